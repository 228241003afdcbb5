"""Test-suite settings.

* BLAS runs single-threaded unless the environment says otherwise.
* Hypothesis is seeded (derandomized) and has no deadlines: CI machines are shared and noisy.
* pytest runs in importlib mode (test file names repeat across folders, e.g. two
  ``test_inertia.py``). Folders that are not packages keep test-only helper modules next to
  their tests (oracles, contract fixtures) and import them by plain name, so each such folder
  is put on ``sys.path`` here, once for the whole suite.
"""

import os
import sys
from pathlib import Path

# Many small batched matrix operations: multi-threaded BLAS only adds contention on the
# shared 2-core machines (measured ~20x slower for batched eigh under load). Set before
# numpy is imported; a user's explicit setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import matplotlib
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

for folder in sorted(Path(__file__).parent.iterdir()):
    if folder.is_dir() and not (folder / "__init__.py").exists() and folder.name != "__pycache__":
        sys.path.insert(0, str(folder))

settings.register_profile(
    "satdyn",
    deadline=None,
    derandomize=True,  # seeded: the same examples on every run
    max_examples=50,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("satdyn")
