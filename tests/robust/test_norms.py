"""H-infinity / H2 norms: analytic cases, slycot oracles (ab13dd, ab13bd), batch == single."""

import control
import numpy as np
import pytest
from slycot import ab13bd, ab13dd

from satdyn.robust import h2norm, hinfnorm


class Batch:
    """Minimal stand-in for a StateSpaceBatch: only the stacked arrays (duck typing)."""

    def __init__(self, A, B, C, D):
        self.A, self.B, self.C, self.D = A, B, C, D


def random_stable(rng, n, m, p, feedthrough=True):
    """Random stable system; a third of them lightly damped (shifted to |Re| ~ 1e-3)."""
    A = rng.standard_normal((n, n))
    shift = np.max(np.linalg.eigvals(A).real) + (1e-3 if rng.uniform() < 1 / 3 else rng.uniform(0.05, 1.0))
    A = A - shift * np.eye(n)
    B = rng.standard_normal((n, m))
    C = rng.standard_normal((p, n))
    D = rng.standard_normal((p, m)) if feedthrough else np.zeros((p, m))
    return A, B, C, D


def test_second_order_peak_analytic():
    # |w^2 / (s^2 + 2 zeta w s + w^2)| peaks at w sqrt(1 - 2 zeta^2) with 1 / (2 zeta sqrt(1 - zeta^2))
    for w, zeta in [(2.0, 0.1), (0.5, 0.001), (10.0, 0.5)]:
        sys = control.ss(control.tf([w**2], [1, 2 * zeta * w, w**2]))
        value, peak = hinfnorm(sys)
        assert value == pytest.approx(1 / (2 * zeta * np.sqrt(1 - zeta**2)), rel=1e-9)
        assert peak == pytest.approx(w * np.sqrt(1 - 2 * zeta**2), rel=1e-5)


def test_first_order_h2_and_hinf_analytic():
    # 1/(s+a): H2 = 1/sqrt(2a), Hinf = 1/a at w = 0
    for a in (0.1, 1.0, 7.0):
        sys = control.ss([[-a]], [[1.0]], [[1.0]], [[0.0]])
        assert h2norm(sys) == pytest.approx(1 / np.sqrt(2 * a), rel=1e-12)
        value, peak = hinfnorm(sys)
        assert value == pytest.approx(1 / a, rel=1e-10)
        assert peak == pytest.approx(0.0, abs=1e-6)


def test_h2_columns_and_hinf_diagonal():
    rng = np.random.default_rng(2)
    A, B, C, _ = random_stable(rng, 5, 3, 2, feedthrough=False)
    sys = control.ss(A, B, C, np.zeros((2, 3)))
    columns = [h2norm(control.ss(A, B[:, [j]], C, np.zeros((2, 1)))) for j in range(3)]
    # H2 of a MIMO system = root-sum-square of its columns' H2 norms (trace identity)
    assert h2norm(sys) == pytest.approx(np.sqrt(np.sum(np.square(columns))), rel=1e-12)
    # Hinf of a block-diagonal system = max over its blocks
    s1 = control.ss(control.tf([4.0], [1, 0.4, 4.0]))
    s2 = control.ss(control.tf([1.0], [1, 0.05, 1.0]))
    diag = control.append(s1, s2)
    assert hinfnorm(diag).value == pytest.approx(max(hinfnorm(s1).value, hinfnorm(s2).value), rel=1e-10)


def test_against_slycot_on_100_random_systems():
    # Oracle: SLICOT AB13DD (Hinf, also Bruinsma-Steinbuch but an independent Fortran code with
    # its own tolerances) and AB13BD (H2). 1e-8 relative is the requirement; both
    # sides converge far below it on well-conditioned random systems.
    rng = np.random.default_rng(20240601)
    for trial in range(100):
        n, m, p = int(rng.integers(1, 11)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
        A, B, C, D = random_stable(rng, n, m, p)
        ref_inf = ab13dd("C", "I", "N", "D", n, m, p, A, np.eye(n), B, C, D)[0]
        value = hinfnorm(control.ss(A, B, C, D)).value
        assert value == pytest.approx(ref_inf, rel=1e-8), trial
        ref_2 = ab13bd("C", "H", n, m, p, A, B, C, np.zeros((p, m)))
        assert h2norm(control.ss(A, B, C, np.zeros((p, m)))) == pytest.approx(ref_2, rel=1e-8), trial


def test_batch_equals_single_and_unstable_is_flagged():
    rng = np.random.default_rng(5)
    systems = [random_stable(rng, 6, 2, 3) for _ in range(12)]
    A, B, C, D = (np.stack([s[i] for s in systems]) for i in range(4))
    A[4] += 5.0 * np.eye(6)  # unstable member: +inf, flagged, no exception
    batch = hinfnorm(Batch(A, B, C, D))
    for i in range(12):
        single = hinfnorm(control.ss(A[i], B[i], C[i], D[i]))
        if i == 4:
            assert np.isinf(batch.value[i]) and not batch.stable[i] and not single.stable
        else:
            assert batch.value[i] == single.value  # same arithmetic, bit for bit
            assert batch.stable[i]
    h2 = h2norm(Batch(A, B, C, np.zeros_like(D)))
    assert np.isinf(h2[4]) and np.all(np.isfinite(np.delete(h2, 4)))
    # non-zero feedthrough: infinite H2 norm
    assert np.isinf(h2norm(control.ss(A[0], B[0], C[0], D[0])))


def test_invalid_rows_of_a_batch_are_nan():
    # StateSpaceBatch contract: rows with valid == False (ill-posed LFR) are NaN; they must not
    # raise nor pollute the other rows.
    rng = np.random.default_rng(9)
    systems = [random_stable(rng, 3, 1, 1) for _ in range(3)]
    A, B, C, D = (np.stack([s[i] for s in systems]) for i in range(4))
    A[1] = np.nan
    batch = Batch(A, B, C, D)
    batch.valid = np.array([True, False, True])
    res = hinfnorm(batch)
    assert np.isnan(res.value[1]) and not res.stable[1]
    assert res.value[2] == hinfnorm(control.ss(A[2], B[2], C[2], D[2])).value
    assert np.isnan(h2norm(batch)[1])


def test_peak_frequency_attains_value():
    rng = np.random.default_rng(11)
    A, B, C, D = random_stable(rng, 8, 2, 2)
    value, peak = hinfnorm(control.ss(A, B, C, D))
    G = C @ np.linalg.solve(1j * peak * np.eye(8) - A, B) + D
    assert np.linalg.norm(G, 2) == pytest.approx(value, rel=1e-9)


def test_static_gain_and_feedthrough_peak():
    sys = control.ss([], [], [], [[3.0, 4.0]])
    assert hinfnorm(sys).value == pytest.approx(5.0)
    # |(s + 10)/(s + 1)| decreases from 10 at DC to 1: peak at w = 0; (s+1)/(s+10) peaks at infinity
    assert hinfnorm(control.ss(control.tf([1, 10], [1, 1]))).value == pytest.approx(10.0, rel=1e-10)
    value, peak = hinfnorm(control.ss(control.tf([1, 1], [1, 10])))
    assert value == pytest.approx(1.0, rel=1e-10) and np.isinf(peak)


def test_errors():
    with pytest.raises(ValueError, match="continuous-time"):
        hinfnorm(control.ss([[0.5]], [[1.0]], [[1.0]], [[0.0]], 0.1))
    with pytest.raises(ValueError, match="finite"):
        hinfnorm(Batch(np.array([[np.nan]]), np.ones((1, 1)), np.ones((1, 1)), np.zeros((1, 1))))
    with pytest.raises(ValueError, match="inconsistent shapes"):
        h2norm(Batch(np.eye(2), np.ones((3, 1)), np.ones((1, 2)), np.zeros((1, 1))))
    with pytest.raises(TypeError, match="stacked A, B, C, D"):
        hinfnorm(np.eye(2))
    with pytest.raises(ValueError, match="tol"):
        hinfnorm(control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]]), tol=2.0)
