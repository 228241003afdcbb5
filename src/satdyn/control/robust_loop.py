"""Robust / LPV outer loop (Apkarian, Dao & Noll, "Parametric robust structured control
design", IEEE TAC 2015): tune on active scenarios -> worst-case search over the parameter
box -> add the violators -> repeat; then certify densely.

The box is every ``ureal``/``vreal`` of the plant and of the blocks' scheduling (or the
subset named in ``parameters``), in normalised coordinates ``delta`` in [-1, 1]
(``Parameter.denormalize``). The worst-case search evaluates all goals at fixed controller
values on a batched grid (``grid_points`` per varying parameter) times the vertices of the
uncertain parameters (plus nominal and random points), then maximises locally (L-BFGS-B on
``delta`` with analytic parameter gradients through the LFR, :mod:`.param_gradients`) from
the worst points. An unstable point is a
violation (``+inf``, pitfall P11). Each finished round is written to ``checkpoint`` (JSON,
replaced atomically) so an interrupted run resumes from its last round; the random points of
round ``r`` come from the seed ``(seed, r)``, so a resumed run repeats the uninterrupted one.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.optimize

from ..runtime import progress
from .evaluation import evaluate
from .problem import TuningProblem
from .systune import TuneOptions, TuneResult, tune_problem

__all__ = ["RobustOptions", "Certification", "CheckpointError", "robust_tune", "worst_case_search", "certify",
           "read_json_checkpoint", "write_json_checkpoint", "load_checkpoint_state", "uncertainty_box",
           "training_candidates"]


class CheckpointError(ValueError):
    """A checkpoint file that cannot be resumed from (unreadable, not JSON, wrong schema, or
    not made for this problem); the message names the file."""


def read_json_checkpoint(path, what: str):
    """The JSON content of checkpoint ``path`` (``what`` says what it should hold), or
    :class:`CheckpointError` naming the file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise CheckpointError(f"cannot read checkpoint {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CheckpointError(f"checkpoint {str(path)!r} is not text (expected JSON: {what}); delete it or "
                              "choose another checkpoint location") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CheckpointError(f"checkpoint {str(path)!r} is not valid JSON ({exc}; expected {what}): truncated "
                              "or not a satdyn checkpoint; delete it or choose another checkpoint location") from None


def write_json_checkpoint(path, content) -> None:
    """Write ``content`` as JSON to ``path`` atomically (a temporary file in the same folder,
    then ``os.replace``): an interrupted write never leaves a truncated checkpoint."""
    import os
    import tempfile

    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)  # the permissions of an ordinary new file (mkstemp makes 0600)
        with os.fdopen(fd, "w") as fh:
            json.dump(content, fh)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def finite_vector(value, n: int) -> np.ndarray | None:
    """``value`` as a float vector of length ``n`` with finite entries, or None."""
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    return v if v.shape == (n,) and np.all(np.isfinite(v)) else None


_ROUND_KEYS = ("round", "active", "train_soft", "train_hard", "worst_soft", "worst_hard", "violators", "added")


def load_checkpoint_state(path, n_params: int, n_box: int):
    """(x, active, rounds) of a robust-loop checkpoint, validated against the problem."""
    state = read_json_checkpoint(path, "a robust-loop state {x, active, rounds}")

    def bad(why):
        return CheckpointError(f"checkpoint {str(path)!r} {why}; delete it or choose another checkpoint location")

    if not isinstance(state, dict) or not {"x", "active", "rounds"} <= set(state):
        raise bad("is not a robust-loop state (expected a JSON object with keys x, active, rounds)")
    x = finite_vector(state["x"], n_params)
    if x is None:
        raise bad(f"has no usable controller: 'x' must be {n_params} finite numbers")
    try:
        active = np.asarray(state["active"], dtype=float)
    except (TypeError, ValueError):
        active = None
    if active is None or active.ndim != 2 or active.shape[1] != n_box or len(active) == 0 \
            or not np.all(np.abs(active) <= 1.0 + 1e-9):
        raise bad(f"has no usable training set: 'active' must be rows of {n_box} numbers in [-1, 1]")
    rounds = state["rounds"]
    if not isinstance(rounds, list) or not all(isinstance(r, dict) and set(_ROUND_KEYS) <= set(r) for r in rounds):
        raise bad(f"has no usable round history: 'rounds' must be a list of objects with keys {list(_ROUND_KEYS)}")
    return x, active, rounds


@dataclass(frozen=True)
class RobustOptions:
    """Options of :func:`robust_tune`.

    Attributes
    ----------
    rounds : int
        Maximum number of tune / worst-case rounds.
    grid_points : int
        Grid points per varying (scheduling) parameter in the worst-case search.
    random_points : int
        Extra uniform random points of the box per search.
    local_starts : int
        Local maximisations (from the worst grid points) per goal.
    add_per_round : int
        Violating scenarios added per round.
    tol : float
        A point violates when a hard goal exceeds ``1 + tol`` or a soft goal exceeds the
        training value times ``1 + tol``.
    certify_grid_points, certify_random : int
        Dense certification grid per varying parameter, and random points.
    seed : int
    """

    rounds: int = 10
    grid_points: int = 5
    random_points: int = 0
    local_starts: int = 3
    add_per_round: int = 3
    tol: float = 1e-3
    certify_grid_points: int = 11
    certify_random: int = 500
    seed: int = 0

    def __post_init__(self):
        for name in ("rounds", "grid_points", "add_per_round", "certify_grid_points"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"`{name}` must be a positive integer; got {v!r}")
        for name in ("random_points", "certify_random", "local_starts"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 0:
                raise ValueError(f"`{name}` must be a non-negative integer; got {v!r}")
        if not self.tol >= 0:
            raise ValueError(f"`tol` must be >= 0; got {self.tol!r}")


@dataclass
class Certification:
    """Worst case of every goal over a certification set.

    ``worst`` (ngoals,) values, ``where`` list of {parameter: value} per goal,
    ``frequency`` (ngoals,) [rad/s], ``points`` number of scenarios, ``local`` whether a local
    maximisation refined the grid worst case; ``wcgain`` optional list of
    ``satdyn.robust.worst_case_gain`` bounds between grid points; ``rounds`` the history of
    the robust loop (one dict per round).
    """

    goal_names: tuple
    worst: np.ndarray
    where: list
    frequency: np.ndarray
    points: int
    local: bool
    time_s: float
    wcgain: list = field(default_factory=list)
    rounds: list = field(default_factory=list)


def uncertainty_box(problem, names):
    """The parameters of ``problem`` spanning its box (``names``, or all, sorted), checked to exist."""
    params = problem.parameters()
    if names is None:
        names = sorted(params)
    unknown = [n for n in names if n not in params]
    if unknown:
        raise ValueError(f"`parameters` names unknown parameters {unknown}; known: {sorted(params)}")
    return [params[n] for n in names]


def _to_values(box, delta):
    delta = np.atleast_2d(delta)
    return {p.name: p.denormalize(np.clip(delta[:, i], -1.0, 1.0)) for i, p in enumerate(box)}


def training_candidates(box, grid_points, random_points, rng):
    """Normalised points (N, len(box)) of the box: a grid of ``grid_points`` per varying parameter
    times the nominal and the vertices of the uncertain ones, plus ``random_points`` uniform draws
    from ``rng``."""
    varying = [i for i, p in enumerate(box) if p.kind == "varying"]
    uncertain = [i for i, p in enumerate(box) if p.kind != "varying"]
    grids = [np.linspace(-1, 1, grid_points) for _ in varying]
    # nominal + vertices of the uncertain parameters (without any: the nominal point once)
    vertices = [np.array(v, float) for v in itertools.product((-1.0, 1.0), repeat=len(uncertain))] if uncertain else []
    corners = [np.zeros(len(uncertain))] + vertices
    pts = []
    for g in itertools.product(*grids) if varying else [()]:
        for c in corners:
            d = np.zeros(len(box))
            d[varying] = g
            d[uncertain] = c
            pts.append(d)
    if random_points:
        pts += list(rng.uniform(-1, 1, size=(random_points, len(box))))
    return np.array(pts)


def _scores(problem, values, train_soft, tol):
    """Violation score per scenario (>0: violation) and per-goal normalised values."""
    hard = np.array([g.hard for g in problem.goals])
    rel = np.where(hard[:, None], values, values / max(train_soft, 1e-300))
    limit = 1.0 + tol
    return np.max(rel, axis=0) - limit, rel


def _evaluate_points(problem, x, box, deltas, chunk=2000):
    vals, peaks = [], []
    for s in range(0, len(deltas), chunk):
        sub = problem.with_scenarios(_to_values(box, deltas[s:s + chunk]))
        ev = evaluate(sub, x)
        vals.append(ev.values)
        peaks.append(ev.peaks)
    return np.concatenate(vals, axis=1), np.concatenate(peaks, axis=1)


def _local_max(problem, x, box, d0, goal, h=1e-4, maxiter=30):
    """Maximise goal value over delta in [-1, 1]^k (L-BFGS-B). Gradients: analytic through
    the LFR for an H-infinity goal of a single-model problem
    (:func:`satdyn.control.param_gradients.peak_parameter_gradient`), else batched central
    differences."""
    k = len(box)
    if problem.goals[goal].kind == "hinf" and len(problem.models) == 1:
        from .param_gradients import peak_parameter_gradient

        def fg(d):
            v, g, _ = peak_parameter_gradient(problem, x, box, d, goal)
            if not np.isfinite(v):
                return -1e30, np.zeros(k)
            return -v, -g

        res = scipy.optimize.minimize(fg, d0, jac=True, method="L-BFGS-B", bounds=[(-1, 1)] * k,
                                      options=dict(maxiter=maxiter))
        return np.clip(res.x, -1, 1), -res.fun

    def fg(d):
        pts = np.vstack([d] + [d + h * e for e in np.eye(k)] + [d - h * e for e in np.eye(k)])
        pts = np.clip(pts, -1, 1)
        v, _ = _evaluate_points(problem, x, box, pts)
        v = v[goal]
        if not np.isfinite(v[0]):
            return -1e30, np.zeros(k)
        step = pts[1:k + 1, np.arange(k)] - pts[k + 1:, np.arange(k)]
        g = np.where(np.isfinite(v[1:k + 1]) & np.isfinite(v[k + 1:]),
                     (v[1:k + 1] - v[k + 1:]) / np.maximum(step, 1e-300), 0.0)
        return -v[0], -g

    res = scipy.optimize.minimize(fg, d0, jac=True, method="L-BFGS-B", bounds=[(-1, 1)] * k,
                                  options=dict(maxiter=maxiter))
    return np.clip(res.x, -1, 1), -res.fun


def worst_case_search(problem, x, box, *, grid_points=5, random_points=0, local_starts=3, rng=None):
    """Worst case of every goal over the box at fixed parameters ``x``.

    Returns
    -------
    deltas : ndarray (M, k)
        All points examined (grid, random, local maxima).
    values : ndarray (ngoals, M)
    peaks : ndarray (ngoals, M)
    """
    rng = rng or np.random.default_rng(0)
    deltas = training_candidates(box, grid_points, random_points, rng)
    values, peaks = _evaluate_points(problem, x, box, deltas)
    extra = []
    for gi in range(len(problem.goals)):
        v = np.where(np.isfinite(values[gi]), values[gi], np.inf)
        if np.any(np.isinf(v)):
            continue  # an unstable point is already the worst case
        for j in np.argsort(-v)[:local_starts]:
            d, _ = _local_max(problem, x, box, deltas[j], gi)
            extra.append(d)
    if extra:
        ev, pk = _evaluate_points(problem, x, box, np.array(extra))
        deltas = np.vstack([deltas, extra])
        values = np.concatenate([values, ev], axis=1)
        peaks = np.concatenate([peaks, pk], axis=1)
    return deltas, values, peaks


def certify(problem, x, box, *, grid_points=11, random_points=500, local_starts=2, seed=0, bar=None):
    """Dense certification: grid x vertices + random points, then local maximisation."""
    t0 = time.perf_counter()
    deltas, values, peaks = worst_case_search(problem, x, box, grid_points=grid_points, random_points=random_points,
                                              local_starts=local_starts, rng=np.random.default_rng(seed))
    worst, where, freq = [], [], []
    for gi in range(len(problem.goals)):
        v = np.where(np.isnan(values[gi]), np.inf, values[gi])
        j = int(np.argmax(v))
        worst.append(float(v[j]))
        where.append({p.name: float(p.denormalize(np.clip(deltas[j, i], -1, 1))) for i, p in enumerate(box)})
        freq.append(float(peaks[gi, j]))
    return Certification(tuple(g.name for g in problem.goals), np.array(worst), where, np.array(freq),
                         len(deltas), local_starts > 0, time.perf_counter() - t0)


def robust_tune(plant, blocks, soft=(), hard=(), *, parameters=None, scenarios=None,
                options: TuneOptions | None = None, robust: RobustOptions | None = None,
                checkpoint=None, first_options: TuneOptions | None = None, on_round=None,
                final_certify: bool = True) -> TuneResult:
    """Robust (multi-model over a parameter box) and LPV tuning with certification.

    Parameters
    ----------
    plant, blocks, soft, hard, options
        As :func:`satdyn.control.systune`.
    parameters : sequence of str, optional
        Parameters spanning the box (default: every ``ureal``/``vreal`` of the plant and of
        the blocks' scheduling).
    scenarios : dict, optional
        Initial active scenarios (default: the grid of ``grid_points`` per varying parameter
        at nominal uncertain values; only the nominal point without varying parameters).
    robust : RobustOptions, optional
    options : TuneOptions or callable, optional
        Options of the re-tunes; a callable ``options(round) -> TuneOptions`` gives each round
        its own (e.g. iteration budgets).
    checkpoint : str or Path, optional
        JSON file written (atomically) after each round; an existing file resumes the run
        (:class:`CheckpointError` naming it if it is not a usable state for this problem).
    first_options : TuneOptions, optional
        Options of the first tune (default ``options``); later rounds re-tune from the
        previous controller with ``options`` and no random starts.
    on_round : callable, optional
        ``on_round(result, record, active)`` after each round (``result`` the round's
        :class:`TuneResult`, ``record`` its history dict, ``active`` the training points in
        normalised coordinates); returning True ends the loop (e.g. a study that certifies
        each round and stops once a design qualifies). Each ``record`` holds the round's
        values, the best start's ``iterations``, ``evaluations``, ``stop_reason``, its
        per-iteration ``history`` ``[iteration, soft, hard]``, and ``time_limited``.
    final_certify : bool
        Certify the returned design (default); a caller that certifies itself skips it
        (``certification`` then has no worst case, only the rounds).

    Returns
    -------
    TuneResult
        With ``certification`` (a :class:`Certification`) and ``rounds`` history in
        ``certification.rounds``.
    """
    from .systune import _goal_list

    options = TuneOptions() if options is None else options
    robust = RobustOptions() if robust is None else robust
    options_of_round = options if callable(options) else (lambda r: options)
    options = options_of_round(0)
    if not isinstance(options, TuneOptions):
        raise TypeError(f"`options` must be a TuneOptions (or a callable returning one); got {type(options).__name__}")
    if not isinstance(robust, RobustOptions):
        raise TypeError(f"`robust` must be a RobustOptions; got {type(robust).__name__}")
    goals = _goal_list(soft, hard)
    probe = TuningProblem(plant, blocks, goals, None)
    box = uncertainty_box(probe, parameters)
    if scenarios is None:
        varying = [p for p in box if p.kind == "varying"]
        grids = [np.linspace(-1, 1, min(robust.grid_points, 3)) for _ in varying]
        d = [np.zeros(len(box))]
        if varying:
            d = []
            for g in itertools.product(*grids):
                row = np.zeros(len(box))
                row[[i for i, p in enumerate(box) if p.kind == "varying"]] = g
                d.append(row)
        active = np.array(d)
    else:
        vals = {k: np.atleast_1d(np.asarray(v, float)) for k, v in scenarios.items()}
        n = len(next(iter(vals.values())))
        active = np.column_stack([p.normalize(vals[p.name]) if p.name in vals else np.zeros(n) for p in box])
    x = probe.controller.x0
    rounds = []
    path = Path(checkpoint) if checkpoint is not None else None
    if path is not None and path.exists():
        x, active, rounds = load_checkpoint_state(path, len(x), len(box))
    t0 = time.perf_counter()
    result = None
    bar = progress(total=robust.rounds, desc="robust rounds", unit="round")
    bar.update(len(rounds))
    try:
        converged = bool(rounds) and rounds[-1]["added"] == 0
        for r in range(len(rounds), 0 if converged else robust.rounds):
            problem = probe.with_scenarios(_to_values(box, active))
            first = r == 0 and not rounds
            opts = (first_options or options) if first else \
                TuneOptions(**{**options_of_round(r).__dict__, "random_starts": 0})
            result = tune_problem(problem, opts, starts=None if first else [x])
            x = result.x
            train_soft = result.soft if result.soft > 0 else 1.0
            # the round's own random stream: a run resumed at round r draws what an
            # uninterrupted run draws there
            deltas, values, peaks = worst_case_search(problem, x, box, grid_points=robust.grid_points,
                                                      random_points=robust.random_points,
                                                      local_starts=robust.local_starts,
                                                      rng=np.random.default_rng([robust.seed, r]))
            score, _ = _scores(problem, values, train_soft, robust.tol)
            score = np.where(np.isnan(score), np.inf, score)
            hard_mask = np.array([g.hard for g in goals])
            worst_hard = float(np.max(values[hard_mask])) if hard_mask.any() else -np.inf
            worst_soft = float(np.max(values[~hard_mask])) if (~hard_mask).any() else 0.0
            viol = np.flatnonzero(score > 0)
            added = []
            for j in viol[np.argsort(-score[viol])]:
                if len(added) >= robust.add_per_round:
                    break
                if all(np.max(np.abs(deltas[j] - active[k])) > 1e-3 for k in range(len(active))) and \
                        all(np.max(np.abs(deltas[j] - a)) > 1e-3 for a in added):
                    added.append(deltas[j])
            best = _best_start(result)
            rounds.append(dict(round=r, active=len(active), train_soft=result.soft, train_hard=result.hard,
                               worst_soft=worst_soft, worst_hard=worst_hard, violators=int(len(viol)),
                               added=len(added), iterations=int(best.iterations), evaluations=int(best.evaluations),
                               stop_reason=best.reason, time_limited=bool(result.time_limited),
                               history=[[int(h[0]), float(h[1]), float(h[2])] for h in result.history],
                               time_s=time.perf_counter() - t0))
            bar.update(1)
            if added:
                active = np.vstack([active, added])
            if path is not None:
                write_json_checkpoint(path, dict(x=list(map(float, x)), active=active.tolist(), rounds=rounds))
            stop = on_round is not None and bool(on_round(result, rounds[-1], active))
            if not added or stop:
                break
    finally:
        bar.close()
    problem = probe.with_scenarios(_to_values(box, active))
    if result is None:
        result = tune_problem(problem, TuneOptions(**{**options.__dict__, "random_starts": 0}), starts=[x])
    if final_certify:
        cert = certify(problem, result.x, box, grid_points=robust.certify_grid_points,
                       random_points=robust.certify_random, seed=robust.seed + 1)
    else:
        ng = len(problem.goals)
        cert = Certification(tuple(g.name for g in problem.goals), np.full(ng, np.nan), [{}] * ng,
                             np.full(ng, np.nan), 0, False, 0.0)
    cert.rounds = rounds
    result.active = active
    result.certification = cert
    return result


def _best_start(result):
    """The StartRecord whose parameters the tune returned."""
    for rec in result.starts:
        if rec.x is result.x or np.array_equal(rec.x, result.x):
            return rec
    return result.starts[0]


def closed_loop_lfr(problem, blocks, goal_index: int, model: int = 0):
    """The closed loop of one goal as a ``satdyn.lfr.LFR``: ``Fl(G, K)`` with ``G`` the goal's
    generalized plant (inputs ``[w; u]``, outputs ``[z; y]``) and ``K`` the tuned controller
    with its scheduling ``vreal`` (shared with the plant)."""
    from .. import lfr
    from .lpv import block_lfr

    G = problem.goal_lfrs[goal_index]
    if G is None:
        raise ValueError("spectral goals have no closed-loop channel")
    G = G[model]
    K = lfr.blockdiag([block_lfr(b) for b in blocks])  # inputs in the order of problem.controller.y
    return lfr.lft(G, K)


def certify_wcgain(problem, blocks, goal_index: int, scheduling_points, *, frequencies=None, seed=0):
    """``satdyn.robust.worst_case_gain`` of one goal's closed loop at fixed scheduling values.

    The uncertain (``ureal``) parameters go into the skew-mu upper bound, so the bound holds
    *between* the points of the certification grid for them (on its frequency grid).

    Parameters
    ----------
    scheduling_points : list of dict {vreal name: value}
    Returns
    -------
    list of dict: ``values``, ``lower``, ``upper``, ``critical_frequency``, ``worst_case_values``.
    """
    from ..robust import worst_case_gain

    CL = closed_loop_lfr(problem, blocks, goal_index)
    out = []
    for point in scheduling_points:
        sub = CL.subs(point, strict=False)
        r = worst_case_gain(sub, frequencies=frequencies, seed=seed)
        out.append(dict(values=dict(point), lower=float(r.lower), upper=float(r.upper),
                        critical_frequency=float(r.critical_frequency),
                        worst_case_values={k: float(v) for k, v in r.worst_case_values.items()}))
    return out
