"""Test-suite settings: seeded Hypothesis without deadlines (shared, noisy CI machines)."""

import matplotlib
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

settings.register_profile(
    "satdyn",
    deadline=None,
    derandomize=True,  # seeded: the same examples on every run
    max_examples=50,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("satdyn")
