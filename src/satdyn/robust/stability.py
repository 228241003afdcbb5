"""Robust stability margin against repeated real parameters (the counterpart of ``robstab``).

Arguments:
    system : MDeltaSystem — A (n, n), B (n, ndelta + m), C (ndelta + p, n), D, block_sizes (k,)
             (only the Delta channels matter here).
    lfr : satdyn LFR (read through the LFR contract) for :func:`robust_stability`.
    frequencies : optional (K,) rad/s; default: modal grid (``frequency_grid``) refined at peaks.
    progress : optional callable ``progress(done, total, message)``.

The margin k* is the largest factor such that the closed loop is stable for every
parameter vector in k* times the normalised box (1 = the stated ranges). Bounds:

- lower = 1 / sup_w mu_upper(M11(jw)) over the frequency grid (and w = infinity, i.e.
  the well-posedness of I - D11 Delta), with the D-G upper bound of ``mu_upper``;
- upper = the size of an explicit destabilising parameter vector, found without any
  frequency grid: for a direction q in the box surface, the smallest t with a closed-loop
  pole of A(t q) on the imaginary axis (scan + bisection on eigenvalues), minimised over
  vertices, random directions and a pattern search (reconstruction notes docs/spec-map/000b-robust.md §3.5, option 2).
  The pole on the axis gives ``critical_frequency``; its frequency is also added to the mu
  grid, so a resonance missed by the grid is caught and the lower bound corrected.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .frequency_grid import check_frequencies, modal_frequency_grid, refine_peaks
from .checks import check_callable, check_int
from .lfr_access import grid_points, lfr_to_mdelta, physical_values, simplified
from .mdelta import MDeltaSystem, check_system
from .mu_centers import needs_refinement, refine_supremum
from .mu_upper import DGScalings, mu_upper_bound
from .structure import BlockStructure, real_block

__all__ = ["RobustStabilityResult", "GriddedResults", "robust_stability", "robust_stability_mdelta",
           "stability_crossing"]

_STABLE_MARGIN = 1e-10


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


def _mu_sweep(system, frequencies, structure):
    """Descent bounds of mu(M11(jw)) (K,) and their certificates (DGScalings)."""
    M = system.response(frequencies)[:, : system.ndelta, : system.ndelta]
    upper, scalings, _ = mu_upper_bound(M, structure)
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
    report(0, 4, "mu upper bound on the frequency grid")
    mu_up, scalings = _mu_sweep(system, freqs, structure)
    if frequencies is None:
        for _ in range(2):
            extra = refine_peaks(freqs, mu_up)
            extra = extra[~np.isin(extra, freqs)]
            if extra.size == 0:
                break
            freqs, mu_up, scalings = _merge_sweeps(freqs, mu_up, scalings, extra,
                                                   *_mu_sweep(system, extra, structure))
    # w = infinity: well-posedness of I - D11 Delta (real D11)
    D11 = system.D[: system.ndelta, : system.ndelta]
    mu_inf, scalings_inf, _ = mu_upper_bound(D11[None].astype(complex), structure)
    peak = max(float(np.max(mu_up)), float(mu_inf[0]))
    report(1, 4, "destabilising parameter search")
    rng = np.random.default_rng(seed)
    t_max = 4.0 / peak if peak > 0 else 1e3
    t_max = min(t_max, 1e6)
    dirs = _box_directions(k, rng, directions)
    t, w = stability_crossing(system, dirs, t_max)
    best = int(np.argmin(t))
    q, t_best, w_best = dirs[best], t[best], w[best]
    report(2, 4, "pattern search on the destabilising direction")
    if np.isfinite(t_best):
        q, t_best, w_best = _pattern_search(system, q, t_best, w_best, t_max)
    report(3, 4, "mu upper bound at the critical frequency")
    if np.isfinite(t_best) and np.isfinite(w_best):
        near = w_best * np.array([1 - 1e-3, 1.0, 1 + 1e-3])
        mu_near, scalings_near = _mu_sweep(system, near, structure)
        freqs, mu_up, scalings = _merge_sweeps(freqs, mu_up, scalings, near, mu_near, scalings_near)
        peak = max(peak, float(np.max(mu_near)))
    if needs_refinement(structure):
        # repeated parameters: converge the D-G bound where the supremum is decided
        M_all = np.concatenate([system.response(freqs)[:, : system.ndelta, : system.ndelta],
                                D11[None].astype(complex)])
        # mu >= 1 / t_best at the crossing frequency (on the grid): rows certified below it
        # cannot decide the supremum (the margin 1e-4 keeps rounding of t_best harmless)
        floor = (1.0 - 1e-4) / t_best if np.isfinite(t_best) and t_best > 0 else 0.0
        ups, _, refined = refine_supremum(M_all, structure, np.append(mu_up, mu_inf[0]),
                                          _concat_scalings(scalings, scalings_inf), floor=floor)
        mu_up, peak = ups[:-1], float(np.max(ups))
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
            sub_progress = (lambda d, t, msg, i=i: progress(i * t + d, len(points) * t, msg))
        res = robust_stability_mdelta(system, frequencies=frequencies, progress=sub_progress, seed=seed)
        physical = physical_values(parameters, np.nan_to_num(res.destabilizing_delta, nan=0.0))
        if np.all(np.isnan(res.destabilizing_delta)):
            physical = {name: float("nan") for name in physical}
        results.append(replace(res, worst_case_values=physical, delta_channels_before=before,
                               delta_channels_after=after))
    if len(points) == 1 and not points[0].values:
        return results[0]
    return GriddedResults(tuple(p.values for p in points), tuple(results))
