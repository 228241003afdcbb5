"""robust_stability_mdelta / robust_stability: brute force on the physical model, grid, error paths."""

import numpy as np
import pytest

from satdyn.robust import mdelta_system, modal_frequency_grid, mussv, real_block, robust_stability_mdelta

from lfr_contract_fixture import two_mass_A, two_mass_lfr


def brute_force_margin(A_of_delta, directions=720, s_max=3.0, steps=300):
    """Smallest ||delta||_inf with a pole in the closed right half plane, by rays from the origin.

    Independent of satdyn: rays towards ``directions`` points of the unit box perimeter, a
    uniform scan of max Re(eig) along each ray, then bisection on the best few rays.
    Returns (margin, critical frequency, delta).
    """
    angles = np.linspace(0, 2 * np.pi, directions, endpoint=False)
    dirs = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    dirs /= np.max(np.abs(dirs), axis=1, keepdims=True)
    s = np.linspace(s_max / steps, s_max, steps)
    deltas = s[None, :, None] * dirs[:, None, :]
    growth = np.linalg.eigvals(A_of_delta(deltas.reshape(-1, 2))).real.max(axis=1).reshape(directions, steps)
    unstable = growth >= 0
    first = np.where(unstable.any(axis=1), np.argmax(unstable, axis=1), steps)
    best = np.argsort(first)[:8]
    results = []
    for i in best:
        if first[i] == steps:
            continue
        lo, hi = (s[first[i] - 1] if first[i] else 0.0), s[first[i]]
        for _ in range(50):
            mid = 0.5 * (lo + hi)
            if np.linalg.eigvals(A_of_delta(mid * dirs[i][None]))[0].real.max() >= 0:
                hi = mid
            else:
                lo = mid
        lam = np.linalg.eigvals(A_of_delta(hi * dirs[i][None]))[0]
        results.append((hi, abs(lam[np.argmax(lam.real)].imag), hi * dirs[i]))
    return min(results, key=lambda r: r[0])


def physical_A(deltas):
    # the fixture's ranges: k = 1 +- 0.2, c = 0.05 +- 0.025, g fixed at 0.02
    return np.stack([two_mass_A(1 + 0.2 * d[0], 0.05 + 0.025 * d[1], 0.02) for d in deltas])


def fixture_system():
    lfr = two_mass_lfr()
    return mdelta_system(lfr.A, lfr.B, lfr.C, lfr.D, [1, 1])


def test_margin_against_brute_force():
    result = robust_stability_mdelta(fixture_system())
    margin, w_crit, _ = brute_force_margin(physical_A)
    assert result.nominal_stable
    # bounds bracket the brute-force margin (bisection accuracy ~1e-12, ray resolution: the ray
    # minimum can only be >= the true margin, by at most ~1e-3 relative with 720 rays)
    assert result.lower <= margin * (1 + 1e-9)
    assert result.upper <= margin * (1 + 1e-9)
    assert result.upper >= margin * (1 - 2e-3)
    assert result.critical_frequency == pytest.approx(w_crit, rel=0.02)
    # the returned worst-case parameters really put a pole on the imaginary axis at that frequency
    lam = np.linalg.eigvals(physical_A(result.destabilizing_delta[None])[0])
    top = lam[np.argmax(lam.real)]
    assert abs(top.real) < 1e-6 * abs(top)
    assert abs(top.imag) == pytest.approx(result.critical_frequency, rel=1e-6)


def lightly_damped_system(zeta=0.001, w=5.0, spread=0.6):
    """One mode; delta scales its damping by (1 + spread delta): unstable at delta = -1/spread."""
    c0 = 2 * zeta * w
    A = np.array([[0.0, 1.0], [-w * w, -c0]])
    B = np.array([[0.0], [-spread * c0]])
    C = np.array([[0.0, 1.0]])
    return mdelta_system(A, B, C, np.zeros((1, 1)), [1])


def test_lightly_damped_mode_is_not_missed_by_the_grid():
    system = lightly_damped_system()
    exact = 1 / 0.6  # damping vanishes at delta = -1/0.6, pole at +-5j
    grid = modal_frequency_grid(system.A)
    M = system.response(grid)[:, :1, :1]
    peak = np.max(mussv(M, [real_block()], lower=False).upper)
    assert 1 / peak == pytest.approx(exact, rel=1e-3)
    # the same number of log-spaced points misses the resonance (relative width 2e-3): this is
    # what the modal grid is for
    # (shifted so that it does not contain w = 5 by accident)
    log_grid = 1.0007 * np.geomspace(grid[1], grid[-1], grid.size)
    M_log = system.response(log_grid)[:, :1, :1]
    assert np.max(mussv(M_log, [real_block()], lower=False).upper) < 0.5 / exact
    result = robust_stability_mdelta(system)
    assert result.lower == pytest.approx(exact, rel=1e-3)
    assert result.upper == pytest.approx(exact, rel=1e-6)
    assert result.critical_frequency == pytest.approx(5.0, rel=1e-6)
    assert result.destabilizing_delta[0] == pytest.approx(-exact, rel=1e-6)


def test_repeated_block_and_feedthrough():
    # delta I_2 with a feedthrough: A(delta) = A + B1 delta (I - D11 delta)^-1 C1; brute force in 1-D
    rng = np.random.default_rng(4)
    A = np.diag([-1.0, -2.0, -0.5]) + 0.3 * rng.standard_normal((3, 3))
    B = 0.5 * rng.standard_normal((3, 2))
    C = 0.5 * rng.standard_normal((2, 3))
    D = 0.2 * rng.standard_normal((2, 2))
    system = mdelta_system(A, B, C, D, [2])
    result = robust_stability_mdelta(system)
    d = np.linspace(-6, 6, 24001)
    unstable = []
    for x in d:
        K = x * np.linalg.solve(np.eye(2) - D * x, C)
        ill = abs(np.linalg.det(np.eye(2) - D * x)) < 1e-9
        unstable.append(ill or np.linalg.eigvals(A + B @ K).real.max() >= 0)
    unstable = np.array(unstable)
    margin = np.min(np.abs(d[unstable])) if unstable.any() else np.inf
    assert result.lower <= margin * (1 + 1e-3)
    assert result.upper == pytest.approx(margin, abs=1e-3)  # grid step 5e-4


def test_unstable_nominal_gives_zero_margin():
    system = mdelta_system([[0.1, 1.0], [-1.0, 0.1]], np.eye(2)[:, :1], np.eye(2)[:1], [[0.0]], [1])
    result = robust_stability_mdelta(system)
    assert result.lower == 0.0 and result.upper == 0.0 and not result.nominal_stable
    assert result.critical_frequency == pytest.approx(1.0)


def test_progress_callback_and_to_dict():
    calls = []
    result = robust_stability_mdelta(lightly_damped_system(zeta=0.05), progress=lambda d, t, m: calls.append((d, t)))
    assert calls[-1][0] == calls[-1][1] and len(calls) >= 3
    assert set(result.to_dict()) >= {"lower", "upper", "critical_frequency", "worst_case_values", "nominal_stable"}


def test_errors():
    A, B, C, D = np.diag([-1.0, -2.0]), np.ones((2, 2)), np.ones((2, 2)), np.zeros((2, 2))
    with pytest.raises(ValueError, match="block_sizes"):
        mdelta_system(A, B, C, D, [3])  # 3 Delta channels, but B has 2 columns
    with pytest.raises(ValueError, match="block_sizes"):
        mdelta_system(A, B, C, D, [0, 1])
    with pytest.raises(ValueError, match="finite"):
        mdelta_system(np.diag([np.nan, -1.0]), B, C, D, [1])
    with pytest.raises(ValueError, match="`D` must have shape"):
        mdelta_system(A, B, C, np.zeros((3, 2)), [1])
    with pytest.raises(ValueError, match="frequencies"):
        robust_stability_mdelta(mdelta_system(A, B, C, D, [1]), frequencies=[1.0, np.inf])
