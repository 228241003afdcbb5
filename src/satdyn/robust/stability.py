"""Robust stability margin against repeated real parameters (the counterpart of ``robstab``).

Arguments:
    system : MDeltaSystem — A (n, n), B (n, ndelta + m), C (ndelta + p, n), D, block_sizes (k,)
             (only the Delta channels matter here).
    lfr : satdyn LFR (read through the LFR contract) for :func:`robust_stability`.
    frequencies : optional (K,) rad/s; default: modal grid (``frequency_grid``) refined at peaks.
    progress : optional callable ``progress(done, total, message)``.

The margin k* is the largest factor such that the closed loop is stable for every
parameter vector in k* times the normalised box (1 = the stated ranges). Bounds:

- upper = the size of an explicit destabilising parameter vector, found without any
  frequency grid: for a direction q on the box surface, the smallest t with a closed-loop
  pole of A(t q) on the imaginary axis (scan + bisection on eigenvalues), over vertices
  and random directions (reconstruction notes docs/spec-map/000b-robust.md §3.5, option 2);
  the best crossings are then polished to the nearest point of the crossing set
  (``_polish``: SLSQP on min ||delta||_inf s.t. Re lambda_max(A(delta)) = 0, with the
  eigenvalue's analytic gradient; a vertex, an edge or a face interior, omega > 0 or a
  real eigenvalue through 0) and re-verified along their ray, then a pattern search. The
  pole on the axis gives ``critical_frequency``.
- lower = 1 / sup_w mu_upper(M11(jw)) over the frequency grid (plus the crossing frequency
  and w = infinity, the well-posedness of I - D11 Delta). Certified Osborne bounds
  everywhere; above floor = 1 / upper (mu >= 1 / upper at the crossing) the D-G bound is
  converged by two certified optimisers (soft-max descent, method of centres), and for
  purely real structures of <= 4 blocks the rows still above (1 + 4 %) floor are tightened
  by branch and bound on the box (``mu_branch``). Method and measurements: docs/robust.md,
  "Real-parameter margins".
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.linalg import eig
from scipy.optimize import minimize

from .checks import check_callable, check_int
from .frequency_grid import check_frequencies, modal_frequency_grid, refine_peaks
from .lfr_access import grid_points, lfr_to_mdelta, physical_values, simplified
from .mdelta import MDeltaSystem, check_system
from .mu_barrier import _CentersLayout
from .mu_branch import tighten_real_upper
from .mu_centers import direct_start, needs_refinement, refine_supremum
from .mu_dense import dense_applies
from .mu_upper import DGScalings, mu_upper_bound
from .structure import BlockStructure, real_block

__all__ = ["RobustStabilityResult", "GriddedResults", "robust_stability", "robust_stability_mdelta",
           "stability_crossing"]

_STABLE_MARGIN = 1e-10
# points of the scan along each ray (a thin unstable interval must hold one of them)
_SCAN = 64
# rays polished by SLSQP (the best distinct crossings of the ray search)
_POLISH_STARTS = 4
# branch and bound on the D-G rows above (1 + gap) / t_best: purely real structures of at
# most this many blocks (the boxes grow as 2^blocks), the gaps tried, at most this many rows
_BRANCH_BLOCKS = 4
_BRANCH_GAPS = (0.01, 0.04)
_BRANCH_ROWS = 40
# largest parameter size searched (normalised units)
_T_CAP = 1e6


@dataclass(frozen=True)
class RobustStabilityResult:
    """Robust stability margin bounds (1 = the stated parameter ranges).

    Attributes
    ----------
    lower, upper : float
        Bounds of the margin k* (stable for every parameter in k* x box).
    critical_frequency : float
        rad/s, frequency of the closed-loop pole on the imaginary axis at the destabilising
        parameters (``inf`` for a loss of well-posedness, ``nan`` when none was found).
    worst_case_values : dict
        Destabilising parameter values, physical units for an LFR (normalised ``delta_i``
        for the array interface); may lie outside the ranges.
    nominal_stable : bool
    destabilizing_delta : ndarray (k,)
        Normalised block values of the destabilising parameters (NaN if none found).
    frequencies, mu_upper : ndarray (K,)
        The frequency sweep and the mu upper bound on it.
    delta_channels_before, delta_channels_after : int or None
        Delta channels of the LFR given and of the one analysed (after ``satdyn.lfr.reduce``;
        equal with ``simplify=False``, and for an explicit M-Delta system).
    """

    lower: float
    upper: float
    critical_frequency: float
    worst_case_values: dict
    nominal_stable: bool
    destabilizing_delta: np.ndarray = field(repr=False)
    frequencies: np.ndarray = field(repr=False)
    mu_upper: np.ndarray = field(repr=False)
    delta_channels_before: int | None = None
    delta_channels_after: int | None = None

    def to_dict(self) -> dict:
        return {
            "lower": self.lower,
            "upper": self.upper,
            "critical_frequency": self.critical_frequency,
            "worst_case_values": self.worst_case_values,
            "nominal_stable": self.nominal_stable,
            "frequencies": self.frequencies,
            "mu_upper": self.mu_upper,
            "delta_channels_before": self.delta_channels_before,
            "delta_channels_after": self.delta_channels_after,
        }


@dataclass(frozen=True)
class GriddedResults:
    """One result per grid point of the varying parameters."""

    grid_values: tuple
    results: tuple

    def to_dict(self) -> dict:
        return {"grid_values": list(self.grid_values), "results": list(self.results)}


def _max_real(A):
    return np.max(np.linalg.eigvals(A).real, axis=-1)


def _unstable(system, deltas):
    """(unstable (S,), critical frequency (S,)) of A(delta) for a stack of deltas (S, k)."""
    Acl, _, _, _, well_posed = system.closed_loop(deltas)
    out = ~well_posed
    omega = np.full(len(out), np.inf)
    ok = np.flatnonzero(well_posed)
    if ok.size:
        lam = np.linalg.eigvals(Acl[ok]) if system.nstates else np.zeros((ok.size, 0))
        if lam.shape[1]:
            j = np.argmax(lam.real, axis=1)
            top = lam[np.arange(ok.size), j]
            out[ok] = top.real >= -_STABLE_MARGIN * np.maximum(1.0, np.abs(top))
            omega[ok] = np.abs(top.imag)
    return out, omega


def stability_crossing(system: MDeltaSystem, directions, t_max: float, scan: int = 32,
                       bisections: int = 45):
    """Smallest t in (0, t_max] such that A(t q) is unstable, for each direction q.

    Parameters
    ----------
    system : MDeltaSystem
    directions : ndarray (S, k)
    t_max : float
    scan, bisections : int
        Points of the initial scan and bisection steps.

    Returns
    -------
    t : ndarray (S,)        ``inf`` where stable on the whole segment.
    omega : ndarray (S,)    frequency (rad/s) of the crossing pole.
    """
    q = np.atleast_2d(np.asarray(directions, dtype=float))
    S, k = q.shape
    ts = t_max * np.arange(1, scan + 1) / scan
    unstable, _ = _unstable(system, (ts[None, :, None] * q[:, None, :]).reshape(-1, k))
    unstable = unstable.reshape(S, scan)
    has = unstable.any(axis=1)
    first = np.argmax(unstable, axis=1)
    hi = np.where(has, ts[first], np.inf)
    lo = np.where(has & (first > 0), ts[np.maximum(first - 1, 0)], 0.0)
    rows = np.flatnonzero(has)
    omega = np.full(S, np.nan)
    if rows.size:
        a, b = lo[rows], hi[rows]
        for _ in range(bisections):
            mid = 0.5 * (a + b)
            u, _ = _unstable(system, mid[:, None] * q[rows])
            b = np.where(u, mid, b)
            a = np.where(u, a, mid)
        _, w = _unstable(system, b[:, None] * q[rows])
        hi[rows] = b
        omega[rows] = w
    return hi, omega


def _box_directions(k, rng, count):
    if 2**k <= count:
        vertices = np.array(np.meshgrid(*[[-1.0, 1.0]] * k, indexing="ij")).reshape(k, -1).T
    else:
        vertices = np.sign(rng.uniform(-1, 1, (count, k)))
    surface = rng.uniform(-1, 1, (count, k))
    surface /= np.max(np.abs(surface), axis=1, keepdims=True)
    return np.concatenate([vertices, surface])


def _pattern_search(system, q, t, w, t_max, iterations=25):
    """Coordinate pattern search on the direction to lower the crossing t."""
    k = q.size
    h = 0.25
    for _ in range(iterations):
        if h < 1e-4:
            break
        trials = []
        for j in range(k):
            for s in (-h, h):
                d = q.copy()
                d[j] += s
                m = np.max(np.abs(d))
                if m > 0:
                    trials.append(d / m)
        trials = np.array(trials)
        tt, ww = stability_crossing(system, trials, min(t_max, t * 1.0001) if np.isfinite(t) else t_max,
                                    scan=8, bisections=40)
        best = int(np.argmin(tt))
        if tt[best] < t * (1 - 1e-9):
            q, t, w = trials[best], tt[best], ww[best]
        else:
            h /= 2
    return q, t, w


def _crossing_sensitivity(system, delta):
    """Rightmost closed-loop eigenvalue at ``delta`` (k,) and the gradient of its real part.

    With A(delta) = A + B1 Delta (I - D11 Delta)^-1 C1, the derivative along delta_i is
    B1 (I - Delta D11)^-1 E_i (I - D11 Delta)^-1 C1 (E_i: the identity on block i's
    channels), so for the eigenvalue lambda with right / left eigenvectors x, y
    d lambda / d delta_i = sum over block i of a_j b_j / (y^H x), with
    a = y^H B1 (I - Delta D11)^-1 and b = (I - D11 Delta)^-1 C1 x (simple eigenvalue).

    Returns (alpha, gradient (k,), omega) -- Re lambda, its gradient, |Im lambda| -- or
    None where the loop is ill-posed or the eigenvector problem is singular.
    """
    nd = system.ndelta
    n = system.nstates
    d = system.expand(delta)
    B1, C1, D11 = system.B[:, :nd], system.C[:nd], system.D[:nd, :nd]
    right_inv = np.eye(nd) - D11 * d[None, :]     # I - D11 Delta
    left_inv = np.eye(nd) - d[:, None] * D11      # I - Delta D11
    try:
        Acl = system.A + B1 @ (d[:, None] * np.linalg.solve(right_inv, C1))
        lam, Y, X = eig(Acl, left=True, right=True)
    except (np.linalg.LinAlgError, ValueError):
        return None
    if n == 0 or not np.all(np.isfinite(lam)):
        return None
    j = int(np.argmax(lam.real))
    x, y = X[:, j], Y[:, j]
    yx = np.vdot(y, x)
    if abs(yx) < 1e-14 * np.linalg.norm(x) * np.linalg.norm(y):
        return None   # defective eigenvalue: no derivative
    a = np.linalg.solve(left_inv.T, B1.T @ np.conj(y))   # (I - Delta D11)^-T B1^T conj(y)
    b = np.linalg.solve(right_inv, C1 @ x)
    per_channel = a * b / yx
    starts = np.concatenate([[0], np.cumsum(system.block_sizes)[:-1]])
    return float(lam[j].real), np.add.reduceat(per_channel, starts).real, float(abs(lam[j].imag))


def _polish(system, delta0, t_max):
    """Smallest ||delta||_inf with a closed-loop eigenvalue on the imaginary axis, near ``delta0``.

    Solves  min s  s.t.  -s <= delta_i <= s,  Re lambda_max(A(delta)) = 0  by SLSQP from a
    crossing point delta0 (the rightmost eigenvalue's real part and its gradient from
    ``_crossing_sensitivity``). A minimum interior to a face of the box (some |delta_i| < s)
    is found as well as a vertex. The optimiser's point is only a guess: the caller verifies
    it by eigenvalues along its ray (``stability_crossing``).
    """
    k = delta0.size
    scale = max(float(np.max(np.abs(delta0))), 1e-12)
    cache = {}

    def at(z):
        key = z.tobytes()
        if key not in cache:
            cache[key] = _crossing_sensitivity(system, z[:k] * scale)
        return cache[key]

    def g(z):
        out = at(z)
        return np.array([out[0] if out is not None else 1.0])

    def g_jac(z):
        out = at(z)
        jac = np.zeros((1, k + 1))
        if out is not None:
            jac[0, :k] = out[1] * scale
        return jac

    eye = np.eye(k)
    ineq_jac = np.vstack([np.hstack([-eye, np.ones((k, 1))]), np.hstack([eye, np.ones((k, 1))])])
    z0 = np.append(delta0 / scale, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # SLSQP's own warnings on a failed line search
        res = minimize(lambda z: z[k], z0, jac=lambda z: np.eye(k + 1)[k], method="SLSQP",
                       constraints=[{"type": "eq", "fun": g, "jac": g_jac},
                                    {"type": "ineq", "fun": lambda z: ineq_jac @ z, "jac": lambda z: ineq_jac}],
                       bounds=[(-t_max / scale, t_max / scale)] * k + [(0.0, t_max / scale)],
                       options={"maxiter": 60, "ftol": 1e-12})
    z = res.x if np.all(np.isfinite(res.x)) else z0
    return z[:k] * scale


def _mu_sweep(system, frequencies, structure):
    """Certified D-G bounds of mu(M11(jw)) (K,) and their scalings (DGScalings).

    Small structures start from certified Osborne scalings (``direct_start``): the method of
    centres then converges the rows that decide the supremum (``_converge``), and the
    soft-max descent, which stalls far above the D-G optimum on lightly damped real-parameter
    loops (a three-mass chain: 5.6 against the LMI's 0.24 at one frequency), is not needed.
    """
    M = system.response(frequencies)[:, : system.ndelta, : system.ndelta]
    start = direct_start(M, structure)
    if start is not None:
        return start
    upper, scalings, _ = mu_upper_bound(M, structure)
    return upper, scalings


def _converge(system, frequencies, structure, upper, scalings, floor):
    """Converge the certified bounds that exceed ``floor``; returns new (upper, scalings).

    Two optimisers of the same D-G bound, each certified, the smaller bound kept per row:
    the batched soft-max descent (``mu_upper_bound``, stopped early below ``floor``) and
    then the method of centres (``refine_supremum``) on what is left above it. Each fails
    where the other does not: the descent stalled at 5.6 against the optimum 0.24 on a
    three-mass chain; the centres stopped at 1.10 against 3e-4 on a two-mass chain (an
    optimum reached only as D becomes singular).
    """
    rows = np.flatnonzero(upper > floor)
    if rows.size == 0:
        return upper, scalings
    M = system.response(frequencies)[:, : system.ndelta, : system.ndelta]
    upper = upper.copy()
    descent, found, _ = mu_upper_bound(M[rows], structure, target=floor)
    better = descent < upper[rows]
    if np.any(better):
        pick = rows[better]
        upper[pick] = descent[better]
        parts = [X.copy() for X in (scalings.Dz, scalings.Dw, scalings.G)]
        for X, Y in zip(parts, (found.Dz, found.Dw, found.G)):
            X[pick] = Y[better]
        scalings = DGScalings(*parts)
    if not (needs_refinement(structure) or dense_applies(_CentersLayout(structure))):
        return upper, scalings   # large non-repeated structures: the long descent is converged
    upper, scalings, _ = refine_supremum(M, structure, upper, scalings, floor=floor, batch=8)
    return upper, scalings


def _concat_scalings(first, second, order=slice(None)):
    """Certificates of two sweeps, one after the other (then reordered by ``order``)."""
    return DGScalings(*(np.concatenate([a, b])[order] for a, b in zip((first.Dz, first.Dw, first.G),
                                                                      (second.Dz, second.Dw, second.G))))


def _merge_sweeps(freqs, mu_up, scalings, extra, mu_extra, scalings_extra):
    """Concatenate two sweeps and sort them by frequency."""
    freqs = np.concatenate([freqs, extra])
    order = np.argsort(freqs)
    return freqs[order], np.concatenate([mu_up, mu_extra])[order], _concat_scalings(scalings, scalings_extra, order)


def _add_frequencies(system, structure, freqs, mu_up, scalings, extra, floor):
    """Sweep ``extra`` frequencies (those not yet in ``freqs``), converge them above ``floor``, merge."""
    extra = np.unique(extra[np.isfinite(extra) & (extra >= 0)])
    extra = extra[~np.isin(extra, freqs)]
    if extra.size == 0:
        return freqs, mu_up, scalings
    up, sc = _mu_sweep(system, extra, structure)
    up, sc = _converge(system, extra, structure, up, sc, floor)
    return _merge_sweeps(freqs, mu_up, scalings, extra, up, sc)


def _branch_and_bound(system, structure, freqs, mu_up, t_best):
    """Tighten, by branch and bound on the parameter box, the rows whose D-G bound exceeds 1 / t_best.

    The D-G bound is conservative for real parameters (a two-parameter chain: 1.10 at a
    lightly damped mode where real mu is below 0.72). For purely real structures of at
    most 4 blocks, ``tighten_real_upper`` proves mu <= (1 + gap) / t_best at a row by
    splitting the box (``mu_branch``), gap 1 % then 4 %. Rows are taken largest first and
    the loop stops at the first row it cannot tighten: that row then decides the supremum.
    Returns the new bounds (K,) (each still a proved upper bound of mu at its frequency).
    """
    if not (np.isfinite(t_best) and t_best > 0 and structure.all_real
            and len(structure.blocks) <= _BRANCH_BLOCKS):
        return mu_up
    lower = 1.0 / t_best
    rows = np.flatnonzero(mu_up > lower * (1 + _BRANCH_GAPS[-1]))
    if rows.size == 0:
        return mu_up
    rows = rows[np.argsort(-mu_up[rows])][:_BRANCH_ROWS]
    M = system.response(freqs[rows])[:, : system.ndelta, : system.ndelta]
    mu_up = mu_up.copy()
    for i, row in enumerate(rows):
        tightened = tighten_real_upper(M[i], structure, float(mu_up[row]), lower, gaps=_BRANCH_GAPS)
        if not tightened < mu_up[row]:
            break
        mu_up[row] = tightened
    return mu_up


def _destabilising_search(system, t_max, rng, directions):
    """Smallest destabilising ||delta||_inf found: (direction q (k,), t, omega).

    1. rays through the vertices and random points of the box surface, first crossing by
       scan + bisection (``stability_crossing``);
    2. from the best distinct rays, the crossing point is polished (``_polish``: the
       smallest box that touches the set where a closed-loop eigenvalue is on the imaginary
       axis, a vertex, an edge or a face interior), and verified along its ray;
    3. a coordinate pattern search on the direction as a last local improvement.
    Every t returned is the bisected crossing of an explicit ray: A(t q) is unstable.
    """
    k = len(system.block_sizes)
    dirs = _box_directions(k, rng, directions)
    while True:
        t, w = stability_crossing(system, dirs, t_max, scan=_SCAN)
        if np.any(np.isfinite(t)) or t_max >= _T_CAP:
            break
        # the scale came from loose (Osborne) bounds, up to 100x above mu near a lightly
        # damped mode: nothing on the segment, look 4x further
        t_max = min(4.0 * t_max, _T_CAP)
    order = np.argsort(t)
    best = int(order[0])
    q, t_best, w_best = dirs[best], t[best], w[best]
    if not np.isfinite(t_best):
        return q, t_best, w_best, t_max
    starts = [i for i in order[:_POLISH_STARTS] if np.isfinite(t[i])]
    for i in starts:
        delta = _polish(system, t[i] * dirs[i], t_max)
        size = float(np.max(np.abs(delta)))
        if not (np.isfinite(size) and size > 0):
            continue
        # verify: the first crossing along the polished ray, which is <= size when the
        # polished point is on the boundary (searched a little beyond it for rounding)
        tt, ww = stability_crossing(system, (delta / size)[None], min(t_max, size * (1 + 1e-3)),
                                    scan=_SCAN // 4)
        if tt[0] < t_best:
            q, t_best, w_best = delta / size, float(tt[0]), float(ww[0])
    q, t_best, w_best = _pattern_search(system, q, t_best, w_best, t_max, iterations=12)
    return q, t_best, w_best, t_max


def check_options(system, progress, seed, directions, frequencies):
    """Validate the options of the M-Delta entry points: (seed, directions, frequencies)."""
    check_system(system)
    check_callable(progress, "progress")
    frequencies = None if frequencies is None else check_frequencies(frequencies)
    return check_int(seed, "seed", 0), check_int(directions, "directions", 1), frequencies


def robust_stability_mdelta(system: MDeltaSystem, *, frequencies=None, progress=None,
                            seed: int = 0, directions: int = 64) -> RobustStabilityResult:
    """Robust stability margin bounds of an explicit M-Delta system (see module docstring).

    Parameters
    ----------
    system : MDeltaSystem
    frequencies : array_like (K,), optional, rad/s
    progress : callable(done, total, message), optional
    seed : int
        Seed of the random search directions.
    directions : int
        Number of vertex and of random directions in the destabilising-parameter search.

    Returns
    -------
    RobustStabilityResult (``worst_case_values`` keyed ``delta_1..delta_k``, normalised)
    """
    seed, directions, frequencies = check_options(system, progress, seed, directions, frequencies)
    report = progress if progress is not None else (lambda *a: None)
    k = len(system.block_sizes)
    names = [f"delta_{i + 1}" for i in range(k)]
    poles = np.linalg.eigvals(system.A) if system.nstates else np.zeros(0)
    if poles.size and np.any(poles.real >= -_STABLE_MARGIN * np.maximum(1.0, np.abs(poles))):
        worst = poles[np.argmax(poles.real)]
        zero = np.zeros(k)
        report(1, 1, "nominal system unstable")
        return RobustStabilityResult(0.0, 0.0, float(abs(worst.imag)), dict(zip(names, zero.tolist())),
                                     False, zero, np.zeros(0), np.zeros(0), system.ndelta, system.ndelta)
    structure = BlockStructure(tuple(real_block(r) for r in system.block_sizes))
    if frequencies is None:
        freqs = modal_frequency_grid(system.A)
    else:
        freqs = check_frequencies(frequencies)
    report(0, 4, "certified mu upper bound on the frequency grid")
    # certified bounds everywhere first (Osborne scalings, or the descent for large
    # structures); they are valid but loose, and only set the search's scale
    mu_up, scalings = _mu_sweep(system, freqs, structure)
    # w = infinity: well-posedness of I - D11 Delta (real D11)
    D11 = system.D[: system.ndelta, : system.ndelta]
    if np.any(D11):
        mu_inf, _, _ = mu_upper_bound(D11[None].astype(complex), structure)
    else:   # strictly proper Delta loop: always well-posed
        mu_inf = np.zeros(1)
    rough_peak = max(float(np.max(mu_up)), float(mu_inf[0]))
    report(1, 4, "destabilising parameter search")
    rng = np.random.default_rng(seed)
    t_max = min(4.0 / rough_peak if rough_peak > 0 else 1e3, _T_CAP)
    q, t_best, w_best, t_max = _destabilising_search(system, t_max, rng, directions)
    report(2, 4, "converging the mu upper bound where it decides the margin")
    # mu >= 1 / t_best at the crossing frequency: rows certified below that cannot decide the
    # supremum and are not converged (the margin 1e-4 keeps rounding of t_best harmless)
    floor = (1.0 - 1e-4) / t_best if np.isfinite(t_best) and t_best > 0 else 0.0
    if np.isfinite(t_best) and np.isfinite(w_best):
        near = w_best * np.array([1 - 1e-3, 1.0, 1 + 1e-3]) if w_best > 0 else np.array([0.0])
        freqs, mu_up, scalings = _add_frequencies(system, structure, freqs, mu_up, scalings, near, np.inf)
    mu_up, scalings = _converge(system, freqs, structure, mu_up, scalings, floor)
    if frequencies is None:
        for _ in range(2):
            before = freqs.size
            freqs, mu_up, scalings = _add_frequencies(system, structure, freqs, mu_up, scalings,
                                                      refine_peaks(freqs, mu_up),
                                                      max(floor, float(np.max(mu_up)) * (1 - 1e-4)))
            if freqs.size == before:
                break
    mu_up = _branch_and_bound(system, structure, freqs, mu_up, t_best)
    report(3, 4, "certified bounds collected")
    peak = max(float(np.max(mu_up)), float(mu_inf[0]))
    lower = 1.0 / peak if peak > 0 else np.inf
    upper = float(t_best)
    if not np.isfinite(upper):
        delta = np.full(k, np.nan)
        critical = float(freqs[np.argmax(mu_up)]) if mu_up.size else np.nan
    else:
        delta = t_best * q
        critical = float(w_best)
    report(4, 4, "done")
    return RobustStabilityResult(
        lower=float(min(lower, upper)),
        upper=upper,
        critical_frequency=critical,
        worst_case_values=dict(zip(names, delta.tolist())),
        nominal_stable=True,
        destabilizing_delta=delta,
        frequencies=freqs,
        mu_upper=mu_up,
        delta_channels_before=system.ndelta,
        delta_channels_after=system.ndelta,
    )


def robust_stability(lfr, *, grid=None, frequencies=None, progress=None, seed: int = 0, simplify: bool = True):
    """Robust stability of a closed-loop LFR with uncertain (and varying) real parameters.

    Parameters
    ----------
    lfr : satdyn LFR
        Closed loop, continuous time; read through the LFR contract.
    grid : int or dict, optional
        Values of the varying parameters (dict name -> physical values), or the number of
        points per varying parameter over its range (default 5). Ignored without varying
        parameters.
    frequencies : array_like, optional
        Frequency grid (rad/s) for the mu sweep (default: modal grid with refinement).
    progress : callable(done, total, message), optional
        Called as grid points and analysis stages finish.
    seed : int
        Seed of the destabilising-parameter search.
    simplify : bool
        Reduce the LFR first (``satdyn.lfr.reduce``, default True); the channel counts
        before and after are on the result (``delta_channels_before/after``).

    Returns
    -------
    RobustStabilityResult, with ``worst_case_values`` in physical units, when the LFR has no
    varying parameter; otherwise GriddedResults with one result per grid point.
    """
    lfr, before, after = simplified(lfr, simplify)
    check_callable(progress, "progress")
    seed = check_int(seed, "seed", 0)
    if frequencies is not None:
        frequencies = check_frequencies(frequencies)
    points = grid_points(lfr, grid)
    results = []
    for i, point in enumerate(points):
        system, parameters = lfr_to_mdelta(point.lfr)
        sub_progress = None
        if progress is not None:
            def sub_progress(d, t, msg, i=i):
                return progress(i * t + d, len(points) * t, msg)
        res = robust_stability_mdelta(system, frequencies=frequencies, progress=sub_progress, seed=seed)
        physical = physical_values(parameters, np.nan_to_num(res.destabilizing_delta, nan=0.0))
        if np.all(np.isnan(res.destabilizing_delta)):
            physical = {name: float("nan") for name in physical}
        results.append(replace(res, worst_case_values=physical, delta_channels_before=before,
                               delta_channels_after=after))
    if len(points) == 1 and not points[0].values:
        return results[0]
    return GriddedResults(tuple(p.values for p in points), tuple(results))
