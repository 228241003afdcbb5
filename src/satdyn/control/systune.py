"""``systune``: structured, multi-model, multi-goal H-infinity tuning of tunable blocks.

Minimise the largest soft goal subject to every hard goal ``<= 1`` over all scenarios, from
the blocks' initial values and ``random_starts`` perturbations of them (multiplicative
+-``perturbation``; zero entries get an additive perturbation of their scale — a start at
``Bk = Ck = 0`` is a saddle, design note P6). Starts run in parallel processes with one
BLAS thread each. An unstable start first goes through the stabilisation phase.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import numpy as np

from ..runtime import limit_blas_threads, progress
from .bfgs import bfgs_nonsmooth
from .evaluation import check_parameters, evaluate
from .problem import TuningProblem
from .sqp import objective_parts, sqp_minmax, stabilize

__all__ = ["TuneOptions", "TuneResult", "StartRecord", "systune", "tune_problem"]

METHODS = ("sqp", "bfgs", "bfgs+sqp")


@dataclass(frozen=True)
class TuneOptions:
    """Options of :func:`systune`.

    Attributes
    ----------
    method : {"sqp", "bfgs", "bfgs+sqp"}
        The nonsmooth SQP min-max (default), HANSO-style BFGS on the exact penalty, or BFGS
        as a cheap first phase followed by the SQP.
    random_starts : int
        Extra starts (perturbations of the initial value); 0 runs the initial value only.
    perturbation : float
        Relative size of the perturbations (0.3 = +-30 %).
    max_iter : int
        Iteration budget per start (per phase): the count that decides the result.
    max_time : float or None
        Wall-clock safety limit per start [s] (default none). It can only stop a start
        early: that start's ``reason`` is ``"max_time"`` and ``TuneResult.time_limited`` is
        True — the result then depends on the machine's speed and load.
    n_jobs : int or None
        Worker processes for the starts (None: ``min(starts, os.cpu_count())``; 1: serial).
    seed : int
        Seed of the perturbations.
    rho, mu, tol
        Piece level, progress-function weight and stopping tolerance of the SQP
        (:func:`satdyn.control.sqp.sqp_minmax`).
    penalty : float
        Exact-penalty weight of the hard goals for the BFGS method.
    stability_margin : float
        The stabilisation phase pushes every closed-loop pole left of ``-stability_margin``
        [rad/s].
    target : float or None
        Stop as soon as every hard goal is met and the soft value is ``<= target``
        (``inf``: stop at the first feasible point — a feasibility phase).
    """

    method: str = "sqp"
    random_starts: int = 0
    perturbation: float = 0.3
    max_iter: int = 500
    max_time: float | None = None
    n_jobs: int | None = None
    seed: int = 0
    rho: float = 0.8
    mu: float = 1.0
    tol: float = 1e-7
    penalty: float = 10.0
    stability_margin: float = 1e-7
    target: float | None = None

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"`method` must be one of {METHODS}; got {self.method!r}")
        for name in ("random_starts", "max_iter"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < (0 if name == "random_starts" else 1):
                raise ValueError(f"`{name}` must be an integer >= {0 if name == 'random_starts' else 1}; got {v!r}")
        if not (0 <= self.perturbation < 1):
            raise ValueError(f"`perturbation` must be in [0, 1); got {self.perturbation!r}")
        if self.max_time is not None and not self.max_time > 0:
            raise ValueError(f"`max_time` must be > 0 seconds or None; got {self.max_time!r}")
        if self.n_jobs is not None and (not isinstance(self.n_jobs, (int, np.integer)) or self.n_jobs < 1):
            raise ValueError(f"`n_jobs` must be a positive integer or None; got {self.n_jobs!r}")


@dataclass
class StartRecord:
    """Outcome of one start."""

    index: int
    soft: float
    hard: float
    feasible: bool
    iterations: int
    evaluations: int
    time_s: float
    reason: str
    x: np.ndarray
    history: list = field(default_factory=list)


@dataclass
class TuneResult:
    """Result of :func:`systune`.

    Attributes
    ----------
    soft : float
        Largest soft goal value over the scenarios (0 without soft goals).
    hard : float
        Largest hard goal value over the scenarios (``-inf`` without hard goals).
    feasible : bool
        Every hard goal ``<= 1`` on every scenario (and the loop stable).
    goal_names : tuple of str
    goal_hard : tuple of bool
    values : ndarray (ngoals, N)
        Goal values per scenario (``inf``: unstable).
    peak_frequencies : ndarray (ngoals, N)
        Frequency [rad/s] of each value (NaN for H2 / spectral goals).
    scenarios : dict {name: ndarray (N,)}
    x : ndarray (P,)
        Tuned parameters (all blocks, concatenated); ``parameter_names`` names them.
    blocks : tuple
        The tunable blocks at their tuned values.
    starts : list of StartRecord
    history : list of (iteration, soft, hard, evaluations, time_s)
        Of the best start (``time_s`` is a report: nothing depends on it).
    time_limited : bool
        A start was stopped by the wall-clock limit ``TuneOptions.max_time``.
    certification : object or None
        Filled by the robust loop (:func:`satdyn.control.robust_tune`).
    active : ndarray or None
        Robust loop: the final training points in normalised coordinates (M, k).
    """

    soft: float
    hard: float
    feasible: bool
    goal_names: tuple
    goal_hard: tuple
    values: np.ndarray
    peak_frequencies: np.ndarray
    scenarios: dict
    x: np.ndarray
    parameter_names: tuple
    blocks: tuple
    starts: list
    history: list
    time_s: float = 0.0
    time_limited: bool = False
    certification: object = None
    active: object = None  # robust loop: training points, normalised (M, k)

    def controller(self, values: dict | None = None):
        """The tuned controller (all blocks) as a ``control.StateSpace`` at scheduling values
        ``values`` ({vreal name: physical value}); inputs are the measured signals."""
        from .problem import Controller

        return controller_statespace(Controller(self.blocks), values)

    def controller_lfr(self):
        """The tuned controller as a ``satdyn.lfr.LFR`` (scheduled blocks keep their ``vreal``)."""
        from .lpv import controller_lfr

        return controller_lfr(self.blocks)


def controller_statespace(ctrl, values=None):
    import control

    values = {} if values is None else dict(values)
    for name in ctrl.scheduling:
        if name not in values:
            raise ValueError(f"`values` must give the scheduling parameter {name!r}")
    x = check_parameters(ctrl, ctrl.x0, "controller parameters")
    K = ctrl.gain(x, ctrl.taus({k: np.atleast_1d(v) for k, v in values.items()}, 1), 1)[0]
    n = ctrl.nk
    y = [f"{s}" if list(ctrl.y).count(s) == 1 else f"{s}#{i}" for i, s in enumerate(ctrl.y)]
    return control.ss(K[:n, :n], K[:n, n:], K[n:, :n], K[n:, n:], inputs=y, outputs=list(ctrl.u))


def _perturbed_starts(ctrl, count, perturbation, seed):
    rng = np.random.default_rng(seed)
    x0 = ctrl.x0
    starts = [x0.copy()]
    scale_full = np.zeros_like(x0)
    scale_full[ctrl.free] = ctrl.scale
    for _ in range(count):
        u = rng.uniform(-1.0, 1.0, size=x0.shape)
        x = x0 * (1.0 + perturbation * u)
        zero = x0 == 0
        x[zero] = perturbation * scale_full[zero] * u[zero]
        x[~ctrl.free] = x0[~ctrl.free]
        starts.append(ctrl.project(x))
    return starts


def _run_start(problem, x0, options: TuneOptions, index: int) -> StartRecord:
    t0 = time.perf_counter()
    with limit_blas_threads():
        hist: list = []
        ev = evaluate(problem, x0)
        nev, nit = 1, 0
        reasons = []
        if not np.all(ev.stable):
            st = stabilize(problem, x0, margin=options.stability_margin, max_iter=options.max_iter,
                           max_time=options.max_time)
            x0, nev, nit = st["x"], nev + st["evaluations"], st["iterations"]
            reasons.append(st["reason"])
        remaining = None if options.max_time is None else max(options.max_time - (time.perf_counter() - t0), 1e-3)
        kw = dict(max_iter=options.max_iter, max_time=remaining, history=hist)
        if options.method in ("bfgs", "bfgs+sqp"):
            out = bfgs_nonsmooth(problem, x0, penalty=options.penalty, tol=1e-10,
                                 target=options.target if options.method == "bfgs" else None, **kw)
            nev, nit = nev + out["evaluations"], nit + out["iterations"]
            reasons.append(out["reason"])
            x0 = out["x"]
        if options.method in ("sqp", "bfgs+sqp"):
            remaining = None if options.max_time is None else max(options.max_time - (time.perf_counter() - t0), 1e-3)
            kw["max_time"] = remaining
            out = sqp_minmax(problem, x0, mu=options.mu, rho=options.rho, tol=options.tol, target=options.target,
                             **kw)
            nev, nit = nev + out["evaluations"], nit + out["iterations"]
            reasons.append(out["reason"])
        f, c = objective_parts(problem, out["values"])
    feasible = bool(np.all(np.isfinite(out["values"]))) and c <= 1e-9
    # a phase cut short by the wall-clock limit makes the whole start time-limited
    reason = "max_time" if "max_time" in reasons else out["reason"]
    return StartRecord(index, f, c + 1.0, feasible, nit, nev, time.perf_counter() - t0, reason, out["x"], hist)


def _best(records):
    def key(r):
        if not np.isfinite(r.soft) or not np.isfinite(r.hard) and r.hard != -np.inf:
            return (2, np.inf, np.inf)
        return (0, r.soft, r.hard) if r.feasible else (1, r.hard, r.soft)

    return min(records, key=key)


_SHARED_PROBLEM = None  # the problem of the running pool: forked workers inherit it (no pickling)


def _worker(args):
    x0, options, index = args
    return _run_start(_SHARED_PROBLEM, x0, options, index)


def tune_problem(problem: TuningProblem, options: TuneOptions | None = None, starts=None) -> TuneResult:
    """Run :func:`systune` on an already compiled :class:`TuningProblem`.

    ``starts`` (list of full parameter vectors) replaces the perturbations of the initial value.
    """
    options = options or TuneOptions()
    ctrl = problem.controller
    t0 = time.perf_counter()
    if starts is None:
        starts = _perturbed_starts(ctrl, options.random_starts, options.perturbation, options.seed)
    else:
        starts = [check_parameters(ctrl, s, f"starts[{i}]") for i, s in enumerate(starts)]
    jobs = options.n_jobs or min(len(starts), os.cpu_count() or 1)
    records = []
    bar = progress(total=len(starts), desc="systune starts", unit="start")
    try:
        if jobs > 1 and len(starts) > 1:
            import multiprocessing as mp
            from concurrent.futures import ProcessPoolExecutor

            global _SHARED_PROBLEM
            _SHARED_PROBLEM = problem
            try:
                with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("fork")) as pool:
                    for rec in pool.map(_worker, [(x, options, i) for i, x in enumerate(starts)]):
                        records.append(rec)
                        bar.update(1)
            finally:
                _SHARED_PROBLEM = None
        else:
            for i, x in enumerate(starts):
                records.append(_run_start(problem, x, options, i))
                bar.update(1)
    finally:
        bar.close()
    best = _best(records)
    ev = evaluate(problem, best.x)
    f, c = objective_parts(problem, ev.values)
    return TuneResult(
        soft=f, hard=c + 1.0, feasible=bool(np.all(ev.stable)) and c <= 1e-9,
        goal_names=tuple(g.name for g in problem.goals), goal_hard=tuple(g.hard for g in problem.goals),
        values=ev.values, peak_frequencies=ev.peaks, scenarios=dict(problem.scenarios), x=best.x,
        parameter_names=ctrl.parameter_names, blocks=ctrl.with_value(best.x), starts=records,
        history=best.history, time_s=time.perf_counter() - t0,
        time_limited=any(r.reason == "max_time" for r in records))


def systune(plant, blocks, soft=(), hard=(), scenarios=None, options: TuneOptions | None = None) -> TuneResult:
    """Tune fixed-structure (and scheduled) blocks against soft and hard goals.

    Parameters
    ----------
    plant : satdyn.lfr.LFR, control.StateSpace, or a sequence of them (multi-model)
        Open-loop interconnection with named signals.
    blocks : tunable block(s)
        See :mod:`satdyn.control.blocks`; they read ``block.inputs`` (outputs of ``plant``)
        and drive ``block.outputs`` (inputs of ``plant``).
    soft, hard : sequence of Goal
        Goals minimised (soft) and constrained to ``<= 1`` (hard); the ``hard`` flag of each
        goal is overridden by the list it is given in.
    scenarios : dict {parameter name: array (N,)}, optional
        Parameter points (models) on which every goal is enforced; see
        :class:`~satdyn.control.problem.TuningProblem`.
    options : TuneOptions, optional

    Returns
    -------
    TuneResult
    """
    if options is not None and not isinstance(options, TuneOptions):
        raise TypeError(f"`options` must be a TuneOptions; got {type(options).__name__}")
    problem = TuningProblem(plant, blocks, _goal_list(soft, hard), scenarios)
    return tune_problem(problem, options)


def _goal_list(soft, hard):
    """Copies of the goals with their ``hard`` flag set by the list they come in."""
    import copy

    goals = []
    for flag, group, what in ((False, soft, "soft"), (True, hard, "hard")):
        group = (group,) if hasattr(group, "kind") else tuple(group)
        for g in group:
            if not hasattr(g, "kind"):
                raise TypeError(f"`{what}` must be a sequence of goals; got {type(g).__name__}")
            g = copy.copy(g)
            g.hard = flag
            goals.append(g)
    if not goals:
        raise ValueError("give at least one goal in `soft` or `hard`")
    return goals
