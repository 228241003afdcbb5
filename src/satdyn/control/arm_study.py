"""Study: robust LPV control of the two-link arm (paper arXiv:2109.00407 section 6.4, Fig. 7).

Two phases inside one time budget, because the design note's prototype found the hard goal
robustly feasible on its own but not together with a low soft goal:

1. **hard goal first** — robust loop (:func:`satdyn.control.robust_tune`) with the hard goal
   tightened to ``hard_margin`` (``|| W_e S_o || <= hard_margin`` on the training scenarios, so
   that the worst case between them stays below 1) and the soft goal relaxed;
2. **soft goal** — from that design, the robust loop with both goals (hard still tightened).

The returned design is the one with the lowest certified soft value among those whose
certified hard value is ``<= 1``; if neither is, the one with the lowest certified hard value.
Certification: dense grid of (theta1, theta2) x (nominal + 32 vertices of the five
uncertain parameters) + random points, then local maximisation, and optionally the skew-mu
worst-case gain of the hard goal over the uncertain parameters at the worst scheduling point.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .arm_problem import CONTROL_RANGES_DEG, arm_controller_block, arm_goals, arm_interconnection
from .goals import Gain
from .problem import TuningProblem
from .robust_loop import RobustOptions, certify, certify_wcgain, robust_tune
from .systune import TuneOptions

__all__ = ["ArmControlResult", "arm_control_study", "PAPER_GAMMA1", "PAPER_GAMMA2"]

PAPER_GAMMA1 = 0.97
PAPER_GAMMA2 = 0.69


@dataclass
class ArmControlResult:
    """Result of :func:`arm_control_study` (angles in degrees, frequencies in rad/s)."""

    geometry: str
    mode: str
    gamma1: float
    gamma2: float
    gamma1_where: dict
    gamma2_where: dict
    gamma1_frequency: float
    gamma2_frequency: float
    hard_satisfied: bool
    paper_gamma1: float
    paper_gamma2: float
    phase: str
    certification_points: int
    phases: list
    wcgain: list
    controller_M0: np.ndarray
    controller_M1: np.ndarray
    controller_M2: np.ndarray
    scheduling_normalised: bool
    fig7_frequencies: np.ndarray
    fig7_theta2_deg: np.ndarray
    fig7_sigma: np.ndarray
    step_points_deg: np.ndarray
    step_time: np.ndarray
    step_theta: np.ndarray
    time_s: float
    assumptions: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)


def _tighten(goal: Gain, margin: float) -> Gain:
    import copy

    import control

    g = copy.copy(goal)
    g.weight_out = control.tf([1.0, 1.0], [2.0, 0.02]) * (1.0 / margin)
    return g


def _fig7(result, params, theta1_deg=45.0, theta2_deg=np.linspace(45, 135, 7), omega=np.logspace(-3, 3, 200)):
    sig = []
    for t2 in theta2_deg:
        K = result.controller({"theta1": np.deg2rad(theta1_deg), "theta2": np.deg2rad(t2)})
        resp = np.array([K(1j * w) for w in omega])
        sig.append(np.linalg.svd(resp, compute_uv=False))
    return omega, np.asarray(theta2_deg, float), np.array(sig)


def _steps(result, P, points_deg, t_end=20.0, n=400):
    """Closed-loop angle responses theta (t) to unit reference steps on each joint (nominal)."""
    import control

    t = np.linspace(0.0, t_end, n)
    out = []
    for t1, t2 in points_deg:
        vals = {"theta1": np.deg2rad(t1), "theta2": np.deg2rad(t2)}
        Pn = P.evaluate(vals)  # inputs r, T; outputs e, To
        K = result.controller(vals)
        A, B, C, D = Pn.A, Pn.B, Pn.C, Pn.D
        Ak, Bk, Ck, Dk = K.A, K.B, K.C, K.D
        # u = K e, e = r - G u (rows 0-1 of P), theta = r - e
        B1, B2, C1 = B[:, :2], B[:, 2:], C[:2]
        Acl = np.block([[A + B2 @ Dk @ C1, B2 @ Ck], [Bk @ C1, Ak]])
        Bcl = np.vstack([B1 + B2 @ Dk @ D[:2, :2], Bk @ D[:2, :2]])
        Ccl = -np.hstack([C1, np.zeros((2, Ak.shape[0]))])
        Dcl = np.eye(2) - D[:2, :2]
        sys = control.ss(Acl, Bcl, Ccl, Dcl)
        resp = control.step_response(sys, T=t)
        out.append(np.asarray(resp.outputs).transpose(2, 0, 1))  # (nt, outputs, inputs)
    return t, np.array(out)


def arm_control_study(geometry: str = "hanging", *, quick: bool = False, time_budget_s: float | None = None,
                      hard_margin: float = 0.9, rounds: int | None = None, starts: int | None = None,
                      wcgain_points: int | None = None, seed: int = 0, checkpoint_dir=None) -> ArmControlResult:
    """Robust LPV design of the arm and its certification.

    Parameters
    ----------
    geometry : {"hanging", "upright", "horizontal"}
        Zero configuration of the arm (paper Fig. 3 is missing: a named assumption).
    quick : bool
        Reduced run for tests (< 2 min): nominal 3 x 3 training grid, short budgets, coarse
        certification. Not a robust design.
    time_budget_s : float, optional
        Wall-time budget of the tuning (default 20 s quick, 600 s full); certification and
        figures come on top.
    hard_margin : float
        Training bound of the hard goal (see module docstring).
    rounds, starts, wcgain_points : int, optional
        Robust rounds per phase, random starts of the first tune, skew-mu certificates.
    seed : int
    checkpoint_dir : path, optional
        Directory of the robust loop's resumable checkpoints (one JSON per phase).

    Returns
    -------
    ArmControlResult
    """
    from pathlib import Path

    if not (0 < hard_margin <= 1):
        raise ValueError(f"`hard_margin` must be in (0, 1]; got {hard_margin!r}")
    t0 = time.perf_counter()
    budget = time_budget_s if time_budget_s is not None else (20.0 if quick else 600.0)
    if not budget > 0:
        raise ValueError(f"`time_budget_s` must be > 0; got {time_budget_s!r}")
    P, params = arm_interconnection(geometry)
    soft, hard = arm_goals()
    blk = arm_controller_block(params)
    box_names = sorted(params)
    rounds = rounds if rounds is not None else (1 if quick else 8)
    starts = starts if starts is not None else (0 if quick else 1)
    wcgain_points = wcgain_points if wcgain_points is not None else (0 if quick else 1)
    phases = []
    designs = []
    rob = RobustOptions(rounds=rounds, grid_points=3, local_starts=0 if quick else 2, add_per_round=4,
                        tol=1e-3, certify_grid_points=3 if quick else 11, certify_random=0 if quick else 1000,
                        seed=seed)
    if checkpoint_dir is not None:
        Path(checkpoint_dir).mkdir(parents=True, exist_ok=True)
    ckpt = (lambda name: None) if checkpoint_dir is None else (lambda name: Path(checkpoint_dir) / f"{name}.json")
    parameters = ["theta1", "theta2"] if quick else box_names
    # phase 1: hard goal (tightened), soft relaxed by a factor 10 so it only regularises
    import copy

    soft_relaxed = copy.copy(soft)
    soft_relaxed.weight_out = 1.0 / 15000.0
    plan = [("hard first", [soft_relaxed], [_tighten(hard, hard_margin)], 0.5),
            ("soft + hard", [soft], [_tighten(hard, hard_margin)], 1.0)]
    blocks = [blk]
    for name, s_goals, h_goals, share in plan:
        remaining = budget - (time.perf_counter() - t0)
        if remaining <= 1.0:
            break
        # the first tune of a phase needs most iterations (design note: ~10^3 on the arm, then
        # 10^2-10^3 per re-tune): it gets 40 % of the phase, the rounds share the rest
        phase_time = remaining * share
        first_time = 0.4 * phase_time
        per_tune = max(0.6 * phase_time / max(rounds, 1), 5.0)
        opts = TuneOptions(random_starts=0, max_iter=20000, max_time=per_tune, seed=seed, n_jobs=1)
        first = TuneOptions(random_starts=starts, max_iter=20000, max_time=first_time, seed=seed,
                            n_jobs=None if starts else 1)
        res = robust_tune(P, blocks, soft=s_goals, hard=h_goals, parameters=parameters, options=opts,
                          robust=rob, checkpoint=ckpt(name.replace(" ", "_").replace("+", "and")),
                          first_options=first)
        # certify against the paper's goals (not the tightened / relaxed ones)
        problem = TuningProblem(P, list(res.blocks), [soft, hard])
        from .robust_loop import _box

        cert = certify(problem, res.x, _box(problem, box_names), grid_points=rob.certify_grid_points,
                       random_points=rob.certify_random, local_starts=0 if quick else 2, seed=seed + 7)
        phases.append(dict(name=name, rounds=res.certification.rounds, train_soft=res.soft, train_hard=res.hard,
                           certified_gamma2=float(cert.worst[0]), certified_gamma1=float(cert.worst[1]),
                           points=cert.points, time_s=time.perf_counter() - t0))
        designs.append((name, res, cert, problem))
        blocks = list(res.blocks)
    ok = [d for d in designs if d[2].worst[1] <= 1.0]
    name, res, cert, problem = min(ok, key=lambda d: d[2].worst[0]) if ok else min(designs, key=lambda d: d[2].worst[1])
    wc = []
    if wcgain_points:
        wc = certify_wcgain(problem, list(res.blocks), 1, [{k: cert.where[1][k] for k in ("theta1", "theta2")}])
    b = res.blocks[0]
    x0, xs = b._split(b.value)
    Ms = [b.base.K0 + np.tensordot(x0, b.base.E, axes=1)] + [np.tensordot(xi, b.base.E, axes=1) for xi in xs]
    omega, t2, sig = _fig7(res, params)
    pts = np.array([[45.0, 45.0], [67.5, 90.0], [90.0, 135.0], [45.0, 135.0], [90.0, 45.0]])
    t, y = _steps(res, P, pts)
    notes = [
        "Worst cases are over the grid theta1 x theta2 x (nominal + 32 vertices) plus random points and a "
        "local maximisation (certification); between points only the skew-mu bound (wcgain) is a guarantee "
        "for the uncertain parameters, at the scheduling point given.",
        "The paper's controller, initial value, systune options and geometry (Fig. 3) are not published; "
        "its gamma2 = 0.69 is a soft target (design note: robustness to the five +-20 % parameters drives "
        "gamma2 up from ~0.9-1.3 on the nominal grid to ~2).",
    ]
    return ArmControlResult(
        geometry=geometry, mode="quick" if quick else "full",
        gamma1=float(cert.worst[1]), gamma2=float(cert.worst[0]),
        gamma1_where={k: float(np.rad2deg(v)) if k.startswith("theta") else v for k, v in cert.where[1].items()},
        gamma2_where={k: float(np.rad2deg(v)) if k.startswith("theta") else v for k, v in cert.where[0].items()},
        gamma1_frequency=float(cert.frequency[1]), gamma2_frequency=float(cert.frequency[0]),
        hard_satisfied=bool(cert.worst[1] <= 1.0), paper_gamma1=PAPER_GAMMA1, paper_gamma2=PAPER_GAMMA2,
        phase=name, certification_points=int(cert.points), phases=phases, wcgain=wc,
        controller_M0=Ms[0], controller_M1=Ms[1], controller_M2=Ms[2], scheduling_normalised=bool(b.normalize),
        fig7_frequencies=omega, fig7_theta2_deg=t2, fig7_sigma=sig, step_points_deg=pts, step_time=t,
        step_theta=y, time_s=time.perf_counter() - t0,
        assumptions={"geometry": geometry, "g0": 9.81, "control_ranges_deg": CONTROL_RANGES_DEG,
                     "scheduling": "tau_i = (tan(theta_i/2) - centre)/half_width in [-1, 1]",
                     "controller": "3 states, A tridiagonal, S(tau) = M0 + tau1 M1 + tau2 M2",
                     "hard_margin": hard_margin},
        notes=notes)
