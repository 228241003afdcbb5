"""The textbook two-mass servo (MATLAB robstab documentation), written entry by entry as a user would.

Model: m1, m2, k = 1 +- 20 % (``ureal``), states (x1, x2, v1, v2), force on mass 1, position of
mass 2 measured; third-order lead controller C = 100 (s + 1)^3 / (0.001 s + 1)^3 in unity
feedback. Published answer (MathWorks, Robust Control Toolbox documentation, "Robust
Stability and Worst-Case Gain of Uncertain System"): stability margin LowerBound 2.8834,
UpperBound 2.8864, CriticalFrequency 575.0339 rad/s, worst case k = 1.5773, m1 = m2 = 0.4227;
MATLAB's ``uss`` carries 5 Delta channels for it (issue 16). Tolerances: half a unit of the
last published digit.
"""

import control
import numpy as np
import pytest

from satdyn.lfr import feedback, ss, ureal
from satdyn.robust import hinfnorm, mussv, robust_stability


def servo_closed_loop(auto_simplify=True):
    from satdyn.lfr import auto_simplify as automatic

    with automatic(auto_simplify):
        return _servo_closed_loop()


def _servo_closed_loop():
    m1, m2, k = ureal("m1", 1.0, percent=20), ureal("m2", 1.0, percent=20), ureal("k", 1.0, percent=20)
    A = [[0, 0, 1, 0], [0, 0, 0, 1], [-k / m1, k / m1, 0, 0], [k / m2, -k / m2, 0, 0]]
    plant = ss(A, [[0], [0], [1 / m1], [0]], [[0, 1, 0, 0]], [[0]])
    s = control.tf("s")
    controller = control.ss(100 * ((s + 1) / (0.001 * s + 1)) ** 3)
    return feedback(plant @ controller, 1.0)


PUBLISHED_MARGIN = (2.8834, 2.8864)
CRITICAL = 575.0339


def test_mu_at_the_critical_frequency_is_the_published_margin():
    """mussv on the LFR: at 575.0339 rad/s the certified D-G bound lies between 1 / 2.8864 (a
    destabilising vector of that size exists, so mu >= it) and 1 / 2.8834 (MATLAB's certified
    lower margin), whether the loop was simplified as it was built (3 channels, one per
    parameter), reduced by mussv (9 -> at most MATLAB's 5) or analysed raw (9)."""
    lo, hi = 1 / (PUBLISHED_MARGIN[1] + 5e-5), 1 / (PUBLISHED_MARGIN[0] - 5e-5)
    built = servo_closed_loop()
    result = mussv(built, frequencies=[CRITICAL], lower=False)
    assert (result.delta_channels_before, result.delta_channels_after) == (3, 3)
    assert lo <= float(result.upper[0]) <= hi
    raw_loop = servo_closed_loop(auto_simplify=False)
    reduced = mussv(raw_loop, frequencies=[CRITICAL], lower=False)
    assert reduced.delta_channels_before == 9 and reduced.delta_channels_after <= 5
    assert lo <= float(reduced.upper[0]) <= hi
    # without simplification: more channels, a valid (never smaller) bound
    raw = mussv(raw_loop, frequencies=[CRITICAL], lower=False, simplify=False)
    assert raw.delta_channels_after == 9
    assert float(raw.upper[0]) >= lo


def test_published_worst_case_is_on_the_stability_boundary():
    """Independent of satdyn.robust: the closed loop at the published worst case (scaled by
    1 -+ 1e-3 towards / away from nominal) is stable / unstable with poles near 575 rad/s."""
    loop = servo_closed_loop()

    def top_pole(scale):
        values = {"k": 1 + 0.5773 * scale, "m1": 1 - 0.5773 * scale, "m2": 1 - 0.5773 * scale}
        with pytest.warns(Warning):  # outside the +-20 % ranges, on purpose
            poles = np.linalg.eigvals(loop.evaluate(values).A)
        return poles[np.argmax(poles.real)]

    assert top_pole(0.999).real < 0 < top_pole(1.001).real
    assert abs(top_pole(1.0).imag) == pytest.approx(CRITICAL, rel=2e-3)
    assert np.isfinite(hinfnorm(loop.nominal()).value)


@pytest.mark.slow
def test_robust_stability_matches_the_published_answer():
    """robust_stability on the loop built raw (``auto_simplify(False)``: 9 channels, which the
    entry point reduces to at most MATLAB's 5): the destabilising vector and the critical
    frequency match the published ones to their digits, and the certified lower margin lies
    in the published interval [LowerBound, UpperBound] (D spans ~1e9 below 1 rad/s on this
    badly scaled loop: the balanced restarts and the scale-free Newton regularisation are
    what make the D-G bound converge there; before, it was 0.77)."""
    result = robust_stability(servo_closed_loop(auto_simplify=False))
    assert result.delta_channels_before == 9 and result.delta_channels_after <= 5
    assert abs(result.upper - PUBLISHED_MARGIN[1]) <= 5e-5
    assert abs(result.critical_frequency - CRITICAL) <= 5e-3
    for name, value in {"k": 1.5773, "m1": 0.4227, "m2": 0.4227}.items():
        assert abs(result.worst_case_values[name] - value) <= 5e-5
    assert PUBLISHED_MARGIN[0] - 5e-5 <= result.lower <= result.upper
