"""Tunable blocks: realisations against python-control's own systems, Jacobians against
central finite differences, LPV surfaces against their definition (paper arXiv:2109.00407
eq. (25)), and the error paths of the public constructors."""

import control
import numpy as np
import pytest

from satdyn import lfr
from satdyn.control import PID, ScheduledBlock, StaticGain, TunableSS, TunableTF, controller_lfr


def _fd_jacobian(block, x, tau=None, h=1e-6):
    cols = []
    for k in range(len(x)):
        e = np.zeros(len(x))
        e[k] = h
        cols.append((block.realize(x + e, tau) - block.realize(x - e, tau)) / (2 * h))
    return np.stack(cols, axis=1)


def _freq(sys, w):
    return np.array([sys(1j * wk) for wk in w])


W = np.array([0.01, 0.3, 1.0, 7.0, 100.0])


def test_pid_realisation_equals_parallel_form():
    # compared with python-control's tf of Kp + Ki/s + Kd s/(Tf s + 1): an exact identity,
    # so the tolerance is rounding (1e-12 relative)
    blk = PID("K", "e", "u", Kp=1.3, Ki=0.4, Kd=0.7, Tf=0.05)
    s = control.tf("s")
    ref = 1.3 + 0.4 / s + 0.7 * s / (0.05 * s + 1)
    got = blk.to_statespace()
    assert np.allclose(_freq(got, W).ravel(), _freq(ref, W).ravel(), rtol=1e-12)


@pytest.mark.parametrize("make", [
    lambda: PID("K", "e", "u", 1.0, 0.5, 0.3, 0.2, tune_filter=True),
    lambda: TunableTF("F", "e", "u", num=[2.0, 1.0, 0.5], den=[1.0, 3.0, 2.0]),
    lambda: TunableSS("S", 3, ["a", "b"], ["c", "d"], structure="companion",
                      init=control.rss(3, 2, 2, strictly_proper=False)) if False else
            TunableSS("S", 3, ["a", "b"], ["c", "d"], structure="full"),
])
def test_jacobian_matches_finite_differences(make):
    # central differences with h = 1e-6 on smooth (polynomial / rational) maps: truncation
    # O(h^2 * third derivative) ~ 1e-10 on these magnitudes; 1e-6 absolute leaves margin
    blk = make()
    x = blk.value + 0.1
    assert np.allclose(blk.jacobian(x), _fd_jacobian(blk, x), atol=1e-6)


def test_transfer_function_block_equals_tf():
    # exact identity (companion realisation of a proper TF): rounding-level tolerance
    blk = TunableTF("F", "e", "u", num=[2.0, 1.0, 0.5], den=[1.0, 3.0, 2.0])
    ref = control.tf([2.0, 1.0, 0.5], [1.0, 3.0, 2.0])
    assert np.allclose(_freq(blk.to_statespace(), W).ravel(), _freq(ref, W).ravel(), rtol=1e-11)


@pytest.mark.parametrize("structure", ["full", "tridiag", "companion"])
def test_tunable_ss_keeps_the_initial_transfer_function(structure):
    # the initial value is balanced / brought to modal or companion form by a similarity:
    # the transfer function is unchanged (rounding of the similarity, cond(T) < 1e4 here)
    rng = np.random.default_rng(3)
    sys = control.ss(-np.diag([0.5, 1.0, 2.0]) + 0.3 * rng.standard_normal((3, 3)),
                     rng.standard_normal((3, 2)), rng.standard_normal((2, 3)), rng.standard_normal((2, 2)))
    blk = TunableSS("K", 3, ["a", "b"], ["c", "d"], structure=structure, init=sys)
    A = blk.matrices()[0]
    if structure == "tridiag":
        assert np.all(A[np.abs(np.subtract.outer(range(3), range(3))) > 1] == 0)
    if structure == "companion":
        assert np.allclose(A[:, :-1], np.eye(3, k=-1)[:, :-1])
    assert np.allclose(_freq(blk.to_statespace(), W), _freq(sys, W), rtol=1e-8, atol=1e-10)


def test_scheduled_block_is_affine_in_the_tangent_and_its_lfr_agrees():
    # S(tau) = M0 + tau1 M1 + tau2 M2 with tau = (tan(theta/2) - c)/h: checked entry-wise
    # against that formula and against the LFR of the controller evaluated by satdyn.lfr
    # (two independent code paths; rounding-level tolerance)
    t1 = lfr.vreal("theta1", 1.0, range=(0.8, 1.5), transform="tan_half")
    t2 = lfr.vreal("theta2", 0.5, range=(0.2, 1.2), transform="tan_half")
    base = TunableSS("K", 2, ["e1", "e2"], ["u1", "u2"], structure="full")
    blk = ScheduledBlock(base, (t1, t2))
    rng = np.random.default_rng(0)
    x = rng.standard_normal(blk.nparameters)
    blk = blk.with_value(x)
    th = {"theta1": 1.2, "theta2": 0.9}
    tau = blk.tau({k: np.array([v]) for k, v in th.items()}, 1)
    P = base.nparameters
    v1, v2 = np.tan(0.6), np.tan(0.45)
    c1, h1 = (np.tan(0.4) + np.tan(0.75)) / 2, (np.tan(0.75) - np.tan(0.4)) / 2
    assert np.isclose(tau[0, 0], (v1 - c1) / h1)
    c2, h2 = (np.tan(0.1) + np.tan(0.6)) / 2, (np.tan(0.6) - np.tan(0.1)) / 2
    assert np.isclose(tau[0, 1], (v2 - c2) / h2)
    expect = np.tensordot(x[:P] + tau[0, 0] * x[P:2 * P] + tau[0, 1] * x[2 * P:], base.E, axes=1)
    assert np.allclose(blk.realize(x, tau)[0], expect)
    assert np.allclose(blk.jacobian(x, tau), _fd_jacobian(blk, x, tau), atol=1e-7)
    K = controller_lfr([blk]).evaluate(th)
    A, B, C, D = blk.matrices(x, tau)
    ref = control.ss(A, B, C, D)
    assert np.allclose(_freq(K, W), _freq(ref, W), rtol=1e-10, atol=1e-12)


def test_static_gain_value_and_names():
    blk = StaticGain("G", ["y1", "y2"], ["u"], init=[[1.0, 2.0]])
    assert blk.names == ("G.D[0,0]", "G.D[0,1]")
    assert np.allclose(blk.realize()[0], [[1.0, 2.0]])


@pytest.mark.parametrize("call, exc, word", [
    (lambda: StaticGain("", ["y"], ["u"]), TypeError, "name"),
    (lambda: StaticGain("G", 3, ["u"]), TypeError, "inputs"),
    (lambda: StaticGain("G", ["y"], []), TypeError, "outputs"),
    (lambda: PID("K", "e", "u", Tf=0.0), ValueError, "Tf"),
    (lambda: TunableSS("K", 2, "y", "u", structure="banded"), ValueError, "structure"),
    (lambda: TunableSS("K", 2, "y", "u", init=control.ss(-1, 1, 1, 0)), ValueError, "init"),
    (lambda: TunableTF("F", "e", "u", num=[1, 2, 3], den=[1, 1]), ValueError, "num"),
    (lambda: ScheduledBlock(PID("K", "e", "u", tune_filter=True), ()), TypeError, "base"),
    (lambda: ScheduledBlock(StaticGain("G", "y", "u"), (lfr.ureal("m", 1, percent=10),)), TypeError, "scheduling"),
    (lambda: StaticGain("G", "y", "u", scale=[-1.0]), ValueError, "scale"),
])
def test_block_errors_name_the_argument(call, exc, word):
    with pytest.raises(exc, match=word):
        call()
