"""Worst-case H-infinity gain over a box of real parameters (the counterpart of ``wcgain``).

Arguments:
    system : MDeltaSystem — A (n, n), B (n, ndelta + m), C (ndelta + p, n), D, block_sizes (k,).
    lfr : satdyn LFR (read through the LFR contract) for :func:`worst_case_gain`.
    frequencies : optional (K,) rad/s (default: modal grid).
    progress : optional callable ``progress(done, total, message)``.

Bounds of  max_{delta in box} || F_u(P, Delta(delta)) ||_inf :

- lower: the exact H-infinity norm (``hinfnorm``, batched) of the closed loop at explicit
  parameter vectors: box vertices, random points and a coordinate pattern search from the
  best one. If any of them is unstable the worst-case gain is infinite.
- upper: skew-mu with a performance block (main-loop theorem). At frequency w, gamma is
  certified when mu_[Delta, Delta_p](diag(I, I/gamma) M(jw)) < 1 with the D-G upper bound,
  Delta the real blocks (unit box) and Delta_p a full complex (m x p) block; gamma(w) is
  found by bisection, run on all frequencies at once with warm-started scalings. The grid
  includes the peak frequency of the lower bound's worst case. With repeated parameters
  the descent stalls above the D-G optimum, so where the supremum over the grid is decided
  the skew-mu bound is converged as a GEVP (min gamma^2, the level on the performance
  block only) by the method of centres (``mu_centers``), started from the bisection's
  certificate or, where the descent could not even prove robust stability, from the
  converged mu scalings of the Delta loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .frequency_grid import check_frequencies, modal_frequency_grid, refine_peaks
from .checks import check_callable, check_int
from .lfr_access import grid_points, lfr_to_mdelta, physical_values, simplified
from .mdelta import MDeltaSystem
from .mu_bounds import mussv
from .mu_centers import needs_refinement, refine_supremum
from .mu_certify import DGScalings, certify_scalings
from .mu_upper import mu_upper_bound
from .norms import _hinf_batch, frequency_response
from .stability import GriddedResults, _box_directions, check_options
from .structure import BlockStructure, full_block, real_block

__all__ = ["WorstCaseGainResult", "worst_case_gain", "worst_case_gain_mdelta"]


@dataclass(frozen=True)
class WorstCaseGainResult:
    """Bounds of the worst-case H-infinity gain over the normalised parameter box.

    Attributes
    ----------
    lower, upper : float
        lower is achieved by ``worst_case_values``; upper is certified on the frequency grid.
    critical_frequency : float
        Peak frequency (rad/s) of the gain at the worst-case parameters.
    worst_case_values : dict
        Parameters achieving ``lower`` (physical units for an LFR, ``delta_i`` otherwise).
    nominal_gain : float
    destabilizing : bool
        True when a parameter vector of the box makes the loop unstable (gain ``inf``).
    worst_case_delta : ndarray (k,)
    frequencies, gain_upper : ndarray (K,)
        The frequency grid and the skew-mu bound of the worst-case gain on it.
    delta_channels_before, delta_channels_after : int or None
        Delta channels of the LFR given and of the one analysed (after ``satdyn.lfr.reduce``;
        equal with ``simplify=False``, and for an explicit M-Delta system).
    """

    lower: float
    upper: float
    critical_frequency: float
    worst_case_values: dict
    nominal_gain: float
    destabilizing: bool
    worst_case_delta: np.ndarray = field(repr=False)
    frequencies: np.ndarray = field(repr=False)
    gain_upper: np.ndarray = field(repr=False)
    delta_channels_before: int | None = None
    delta_channels_after: int | None = None

    def to_dict(self) -> dict:
        return {
            "lower": self.lower,
            "upper": self.upper,
            "critical_frequency": self.critical_frequency,
            "worst_case_values": self.worst_case_values,
            "nominal_gain": self.nominal_gain,
            "destabilizing": self.destabilizing,
            "frequencies": self.frequencies,
            "gain_upper": self.gain_upper,
            "delta_channels_before": self.delta_channels_before,
            "delta_channels_after": self.delta_channels_after,
        }


def _gains(system, deltas):
    """H-inf norms (S,) and peak frequencies of the closed loops at deltas (S, k)."""
    A, B, C, D, well_posed = system.closed_loop(deltas)
    value = np.full(len(deltas), np.inf)
    peak = np.full(len(deltas), np.nan)
    ok = np.flatnonzero(well_posed)
    if ok.size:
        v, w, _ = _hinf_batch(A[ok], B[ok], C[ok], D[ok], 1e-9)
        value[ok], peak[ok] = v, w
    return value, peak


def _lower_bound(system, rng, directions, iterations=30):
    k = len(system.block_sizes)
    cands = np.concatenate([np.zeros((1, k)), _box_directions(k, rng, directions)])
    cands = np.concatenate([cands, rng.uniform(-1, 1, (directions, k))])
    g, w = _gains(system, cands)
    best = int(np.argmax(g))
    q, gb, wb = cands[best], g[best], w[best]
    h = 0.25
    for _ in range(iterations):
        if not np.isfinite(gb) or h < 1e-4:
            break
        trials = []
        for j in range(k):
            for s in (-h, h):
                d = q.copy()
                d[j] = np.clip(d[j] + s, -1, 1)
                trials.append(d)
        trials = np.array(trials)
        gt, wt = _gains(system, trials)
        i = int(np.argmax(gt))
        if gt[i] > gb * (1 + 1e-9):
            q, gb, wb = trials[i], gt[i], wt[i]
        else:
            h /= 2
    return q, float(gb), float(wb), float(g[0])


def _skew_structure(system):
    """Delta's real blocks followed by the full (m x p) performance block."""
    blocks = tuple(real_block(r) for r in system.block_sizes) + (full_block(system.ninputs, system.noutputs),)
    return BlockStructure(blocks)


def _skew_mu_bisection(system, freqs, gamma_lo, iterations=18, rtol=1e-3):
    """Upper bounds gamma(w) (K,) of the worst-case gain and their skew-GEVP certificates.

    The certificates (DGScalings) are returned in the form the skew GEVP (``_refine_skew``)
    takes: the mu scalings at diag(I, I/gamma) M with the performance block's d divided by
    gamma^2.
    """
    nd = system.ndelta
    G = system.response(freqs)
    structure = _skew_structure(system)

    def certified(gamma, initial):
        Mg = G.copy()
        Mg[:, nd:, :] /= gamma[:, None, None]
        upper, scalings, packed = mu_upper_bound(Mg, structure, initial=initial, iterations=30, target=1.0)
        Dz, Dw = scalings.Dz.copy(), scalings.Dw.copy()
        Dz[:, nd:, nd:] /= gamma[:, None, None] ** 2
        Dw[:, nd:, nd:] /= gamma[:, None, None] ** 2
        return upper < 1.0, packed, DGScalings(Dz, Dw, scalings.G)

    def keep(mask, old, new):
        """Rows of ``new`` where ``mask``, else of ``old`` (packed arrays or DGScalings)."""
        if isinstance(old, DGScalings):
            return DGScalings(*(keep(mask, a, b) for a, b in zip((old.Dz, old.Dw, old.G), (new.Dz, new.Dw, new.G))))
        return np.where(mask.reshape((-1,) + (1,) * (old.ndim - 1)), new, old)

    lo = np.maximum(gamma_lo, 1e-300)
    hi = np.maximum(2.0 * lo, 1e-12)
    ok, packed, scalings = certified(hi, None)
    for _ in range(40):  # grow until certified (or give up: infinite gain / no robust stability)
        if np.all(ok):
            break
        hi = np.where(ok, hi, hi * 4)
        ok_new, packed_new, scalings_new = certified(hi, None)
        packed, scalings = keep(ok_new & ~ok, packed, packed_new), keep(ok_new & ~ok, scalings, scalings_new)
        ok = ok | ok_new
        if np.any(hi > 1e12 * np.maximum(lo, 1e-12)):
            break
    hi = np.where(ok, hi, np.inf)
    active = ok.copy()
    for _ in range(iterations):
        if not np.any(active & (hi - lo > rtol * hi)):
            break
        mid = np.where(np.isfinite(hi), 0.5 * (lo + hi), lo)
        c, pk, scalings_new = certified(np.where(np.isfinite(mid), mid, 1.0), packed)
        c &= active
        hi = np.where(c, mid, hi)
        lo = np.where(active & ~c, mid, lo)
        packed, scalings = keep(c, packed, pk), keep(c, scalings, scalings_new)
    # hi is proved (mu < 1 at diag(I, I/hi) M), but the scalings found on the way usually prove
    # a smaller gamma directly: the skew level they certify (the level on the performance block)
    level, certified_scalings = certify_scalings(G, structure, scalings.Dz, scalings.Dw, scalings.G,
                                                 np.arange(structure.m) >= nd)
    gamma = np.sqrt(np.maximum(level, 0.0))
    better = gamma < hi
    return np.where(better, gamma, hi), keep(better, scalings, certified_scalings)


def _refine_skew(system, freqs, bound, scalings):
    """Converge the skew-mu bound where the supremum over the grid is decided (repeated parameters).

    The skew-mu D-G bound of the worst-case gain is itself a GEVP, min gamma^2 with the level
    on the performance block only (``mu_centers``); the method of centres solves it from the
    bisection's certificates, so no second bisection on gamma is needed. Where the descent
    certified no gamma at all (its mu bound of the Delta loop alone is >= 1), the converged
    mu bound of that loop may still be < 1: its scalings then give a starting point.
    """
    structure = _skew_structure(system)
    if not needs_refinement(structure):
        return bound
    bound = bound.copy()
    missing = np.flatnonzero(~np.isfinite(bound))
    if missing.size:
        scalings = _robust_stability_start(system, freqs, missing, bound, scalings)
    finite = np.flatnonzero(np.isfinite(bound))
    if finite.size == 0:
        return bound
    level = [False] * len(system.block_sizes) + [True]
    start = DGScalings(scalings.Dz[finite], scalings.Dw[finite], scalings.G[finite])
    bound[finite], _, _ = refine_supremum(system.response(freqs[finite]), structure, bound[finite], start,
                                          level_blocks=level)
    bound[bound >= _UNREFINED] = np.inf  # a start the refinement could not improve: no bound
    return bound


def _robust_stability_start(system, freqs, rows, bound, scalings):
    """Skew-GEVP starting scalings at ``rows`` from the converged mu of the Delta loop.

    With H_Delta <= u^2 D_Delta (u < 1) for M11, the scalings diag(D_Delta, e I) keep
    D_w,N - H_NN >= (1 - u^2) D_Delta - e M21^H M21 > 0 for e below the margin used here;
    ``bound`` gets +inf -> the ``_UNREFINED`` placeholder at those rows (the refinement
    replaces it; ``_refine_skew`` turns any left back into inf).
    """
    nd = system.ndelta
    M = system.response(freqs[rows])
    delta_blocks = [real_block(r) for r in system.block_sizes]
    mu = mussv(M[:, :nd, :nd], delta_blocks, lower=False, refine=True)
    Dz, Dw, G = scalings.Dz.copy(), scalings.Dw.copy(), scalings.G.copy()
    for k, i in enumerate(rows):
        u = mu.dg_upper[k]
        if not u < 1.0:
            continue
        D_delta = mu.scalings.Dz[k]
        coupling = np.linalg.norm(M[k, nd:, :nd], 2) ** 2
        eig = np.linalg.eigvalsh(D_delta)
        # any smaller e is feasible too: cap it at D_Delta's scale (no coupling -> no overflow)
        e = min(0.5 * (1.0 - u * u) * eig[0] / max(coupling, 1e-300), eig[-1])
        Dz[i], Dw[i], G[i] = 0.0, 0.0, 0.0
        Dz[i, :nd, :nd], Dw[i, :nd, :nd], G[i, :nd, :nd] = D_delta, mu.scalings.Dw[k], mu.scalings.G[k]
        Dz[i, nd:, nd:] = e * np.eye(system.noutputs)
        Dw[i, nd:, nd:] = e * np.eye(system.ninputs)
        bound[i] = _UNREFINED
    return DGScalings(Dz, Dw, G)


_UNREFINED = np.finfo(float).max


def worst_case_gain_mdelta(system: MDeltaSystem, *, frequencies=None, progress=None, seed: int = 0,
                           directions: int = 32) -> WorstCaseGainResult:
    """Worst-case gain bounds of an explicit M-Delta system (see module docstring)."""
    seed, directions, frequencies = check_options(system, progress, seed, directions, frequencies)
    if system.ninputs < 1 or system.noutputs < 1:
        raise ValueError("the system needs at least one performance input and output besides the Delta channels")
    report = progress if progress is not None else (lambda *a: None)
    k = len(system.block_sizes)
    names = [f"delta_{i + 1}" for i in range(k)]
    rng = np.random.default_rng(seed)
    report(0, 3, "worst-case parameter search")
    q, g_low, w_low, g_nom = _lower_bound(system, rng, directions)
    if not np.isfinite(g_low):
        report(3, 3, "destabilising parameters in the box")
        return WorstCaseGainResult(np.inf, np.inf, float(w_low), dict(zip(names, q.tolist())), g_nom, True,
                                   q, np.zeros(0), np.zeros(0), system.ndelta, system.ndelta)
    if frequencies is None:
        freqs = modal_frequency_grid(system.A, points=60)
    else:
        freqs = check_frequencies(frequencies)
    if np.isfinite(w_low):
        freqs = np.unique(np.concatenate([freqs, [w_low]]))
    report(1, 3, "skew-mu upper bound on the frequency grid")
    # per-frequency lower start of the bisection: the nominal and worst-case responses
    Acl, Bcl, Ccl, Dcl, _ = system.closed_loop(np.stack([np.zeros(k), q]))
    resp = frequency_response(Acl, Bcl, Ccl, Dcl, np.broadcast_to(freqs, (2, freqs.size)))
    sig = np.linalg.svd(resp, compute_uv=False)[..., 0].max(axis=0)
    bound = _refine_skew(system, freqs, *_skew_mu_bisection(system, freqs, sig))
    if frequencies is None:
        extra = refine_peaks(freqs, bound, count=2, points=6)
        extra = extra[~np.isin(extra, freqs)]
        if extra.size:
            resp = frequency_response(Acl, Bcl, Ccl, Dcl, np.broadcast_to(extra, (2, extra.size)))
            sig_e = np.linalg.svd(resp, compute_uv=False)[..., 0].max(axis=0)
            bound_e = _refine_skew(system, extra, *_skew_mu_bisection(system, extra, sig_e))
            freqs = np.concatenate([freqs, extra])
            bound = np.concatenate([bound, bound_e])
            order = np.argsort(freqs)
            freqs, bound = freqs[order], bound[order]
    report(3, 3, "done")
    return WorstCaseGainResult(
        lower=g_low,
        upper=float(max(np.max(bound), g_low)),
        critical_frequency=w_low,
        worst_case_values=dict(zip(names, q.tolist())),
        nominal_gain=g_nom,
        destabilizing=False,
        worst_case_delta=q,
        frequencies=freqs,
        gain_upper=bound,
        delta_channels_before=system.ndelta,
        delta_channels_after=system.ndelta,
    )


def worst_case_gain(lfr, *, grid=None, frequencies=None, progress=None, seed: int = 0, simplify: bool = True):
    """Worst-case H-infinity gain of an LFR over its uncertain parameters' ranges.

    Parameters
    ----------
    lfr : satdyn LFR (continuous time), performance channels = its inputs and outputs.
    grid : int or dict, optional
        Varying parameters' grid (see :func:`satdyn.robust.robust_stability`).
    frequencies : array_like, optional, rad/s
    progress : callable(done, total, message), optional
    seed : int
    simplify : bool
        Reduce the LFR first (``satdyn.lfr.reduce``, default True); the channel counts
        before and after are on the result (``delta_channels_before/after``).

    Returns
    -------
    WorstCaseGainResult (``worst_case_values`` in physical units), or GriddedResults with
    one result per grid point of the varying parameters.
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
        sub = None
        if progress is not None:
            def sub(d, t, msg, i=i):
                return progress(i * t + d, len(points) * t, msg)
        res = worst_case_gain_mdelta(system, frequencies=frequencies, progress=sub, seed=seed)
        results.append(replace(res, worst_case_values=physical_values(parameters, res.worst_case_delta),
                               delta_channels_before=before, delta_channels_after=after))
    if len(points) == 1 and not points[0].values:
        return results[0]
    return GriddedResults(tuple(p.values for p in points), tuple(results))
