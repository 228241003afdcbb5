"""The arm study's pieces: analytic parameter gradients through the LFR (against finite
differences of the same closed loop built by the ordinary evaluation path), the integral
controller structure (S_o(0) = 0 against a direct python-control evaluation), and the
feasible-first design selection."""

import control
import numpy as np
import pytest

from satdyn.studies.arm_problem import (arm_controller_block, arm_goals, arm_integral_initial_controller,
                                        arm_interconnection)
from satdyn.studies.control import select_design
from satdyn.control.evaluation import _transfer
from satdyn.control.param_gradients import peak_parameter_gradient
from satdyn.control.problem import TuningProblem
from satdyn.control.robust_loop import uncertainty_box, _to_values


@pytest.fixture(scope="module")
def arm():
    P, params = arm_interconnection()
    soft, hard = arm_goals()
    return P, params, soft, hard


def _scheduled_x(blk, rng, size=0.05):
    # a genuinely scheduled controller: M1, M2 = 5 % random copies of M0's free pattern
    x = blk.value.copy()
    n0 = blk.base.nparameters
    x[n0:] = size * rng.standard_normal(len(x) - n0) * np.abs(np.tile(blk.base.value, 2)) * np.tile(blk.base.free, 2)
    return x


def _sigma_at(problem, x, box, delta, goal, omega):
    """sigma_max of the goal's closed loop at a fixed frequency, by the ordinary path
    (LFR evaluated at the physical point, augmented plant, loop closed)."""
    sub = problem.with_scenarios(_to_values(box, delta[None]))
    K = sub.controller.gain(x, sub.taus, 1)
    G = sub.plants[goal]
    T, _, _ = _transfer(*G.close(K), G, np.array([0]), np.array([omega]))
    return np.linalg.svd(T[0], compute_uv=False)[0]


@pytest.mark.parametrize("goal", [0, 1])
def test_parameter_gradient_matches_finite_differences(arm, goal):
    # d sigma / d delta at the peak (envelope theorem: the fixed-frequency derivative) against
    # central differences of sigma_max(T(j w_peak, delta)) computed without the derivative
    # formulas (LFR evaluation + closing the loop). Step h = 1e-6: truncation ~h^2 |sigma'''|
    # (~1e-11 here) and rounding ~1e-16 sigma / h (~1e-9); tolerance 1e-6 relative to the
    # gradient's size leaves a wide margin on any BLAS
    P, params, soft, hard = arm
    rng = np.random.default_rng(11 + goal)
    blk = arm_controller_block(params)
    x = _scheduled_x(blk, rng)
    problem = TuningProblem(P, [blk], [soft, hard])
    box = uncertainty_box(problem, sorted(params))
    delta = rng.uniform(-0.8, 0.8, len(box))
    value, grad, omega = peak_parameter_gradient(problem, x, box, delta, goal)
    assert np.isfinite(value)
    assert _sigma_at(problem, x, box, delta, goal, omega) == pytest.approx(value, rel=1e-8)
    h = 1e-6
    fd = np.array([(_sigma_at(problem, x, box, delta + h * e, goal, omega)
                    - _sigma_at(problem, x, box, delta - h * e, goal, omega)) / (2 * h) for e in np.eye(len(box))])
    assert np.max(np.abs(grad - fd)) <= 1e-6 * max(1.0, np.max(np.abs(fd)))
    # the scheduling parameters enter both plant and controller: their gradient is non-zero
    assert np.all(np.abs(grad[[i for i, p in enumerate(box) if p.kind == "varying"]]) > 0)


def test_integral_structure_zeroes_the_dc_sensitivity(arm):
    # S_o(0) = (I + G(0) K(0))^-1 = 0 when K has integrators in both channels: checked by a
    # direct evaluation of the closed loop built with python-control (plant from the LFR at a
    # random point, controller from the block at random tuned values of its free entries and
    # random scheduling). Tolerance 1e-9: S_o(0) is 0 in exact arithmetic; rounding of a
    # 7-state closed-loop solve with gains up to ~1e4 stays many orders below
    P, params, soft, hard = arm
    rng = np.random.default_rng(5)
    blk = arm_controller_block(params, structure="integral")
    problem = TuningProblem(P, [blk], [soft, hard])
    ctrl = problem.controller
    x = ctrl.x_of_z(ctrl.z_of_x(_scheduled_x(blk, rng, 0.02)) * (1 + 0.05 * rng.uniform(-1, 1, ctrl.nfree)))
    box = uncertainty_box(problem, sorted(params))
    gains = []
    for _ in range(6):
        delta = rng.uniform(-1, 1, len(box))
        vals = {k: float(v[0]) for k, v in _to_values(box, delta[None]).items()}
        G = P.evaluate(vals)[["e[0]", "e[1]"], ["T[0]", "T[1]"]]  # e = -G_arm T (r = 0)
        S = ctrl.gain(x, ctrl.taus({k: np.array([v]) for k, v in vals.items()}, 1), 1)[0]
        K = control.ss(S[:3, :3], S[:3, 3:], S[3:, :3], S[3:, 3:])
        # integrators: A rows 1-2 zero and B rows 1-2 = I for every scheduling value
        assert np.all(S[:2, :3] == 0) and np.array_equal(S[:2, 3:], np.eye(2))
        loop = control.feedback(control.ss([], [], [], np.eye(2)), -G * K)  # S_o = (I + G_arm K)^-1
        poles = loop.poles()
        if np.all(poles.real < 0):
            gains.append(np.abs(np.asarray(loop(0.0))).max())
    assert gains, "no stable sample"  # the random points must include stable loops
    assert len(gains) >= 3 and max(gains) <= 1e-9
    # the tridiagonal structure has no integrator: its S_o(0) is not zero (the test can fail)
    tri = arm_controller_block(params)
    S = tri.realize(tri.value, np.zeros((1, 2)))[0]
    G = P.evaluate({})[["e[0]", "e[1]"], ["T[0]", "T[1]"]]
    loop = control.feedback(control.ss([], [], [], np.eye(2)),
                            -G * control.ss(S[:3, :3], S[:3, 3:], S[3:, :3], S[3:, 3:]))
    assert np.abs(np.asarray(loop(0.0))).max() > 1e-3


def test_integral_initial_value_must_have_integrators(arm):
    P, params, soft, hard = arm
    A, B, C, D = arm_integral_initial_controller()
    with pytest.raises(ValueError, match="init"):
        arm_controller_block(params, init=(A - np.eye(3), B, C, D), structure="integral")
    with pytest.raises(ValueError, match="structure"):
        arm_controller_block(params, structure="banded")


def _designs(rng, n, feasible_share):
    return [dict(gamma1=float(rng.uniform(0.5, 1.0) if rng.uniform() < feasible_share else rng.uniform(1.0001, 3)),
                 gamma2=float(rng.uniform(0.5, 10)), round=i) for i in range(n)]


def test_selection_never_returns_an_infeasible_design_when_a_feasible_one_exists():
    # exhaustive property over seeded random histories: the selection is certified-feasible
    # whenever any design is, and then the lowest gamma2 among them; else the lowest gamma1
    rng = np.random.default_rng(0)
    for _ in range(500):
        designs = _designs(rng, int(rng.integers(1, 12)), rng.uniform())
        best = select_design(designs)
        feas = [d for d in designs if d["gamma1"] <= 1.0]
        if feas:
            assert best["gamma1"] <= 1.0
            assert best["gamma2"] == min(d["gamma2"] for d in feas)
        else:
            assert best["gamma1"] == min(d["gamma1"] for d in designs)
    # a later, much better gamma2 that lost the certificate is not chosen
    hist = [dict(gamma1=0.98, gamma2=5.0), dict(gamma1=1.02, gamma2=0.7)]
    assert select_design(hist) is hist[0]
    # the skew-mu upper bound is part of the certificate: 0.95 on the grid but 1.05 between
    # its points is not feasible
    hist = [dict(gamma1=0.95, gamma1_mu_upper=1.05, gamma2=2.0), dict(gamma1=0.97, gamma1_mu_upper=0.97, gamma2=3.0)]
    assert select_design(hist) is hist[1]
    with pytest.raises(ValueError, match="designs"):
        select_design([])
