"""Evaluation of an LFR at parameter points: single, batched, partial; sampling; freqresp.

Closing the Delta loop at N points means solving, for every point,

    (I - Delta D_zw) W = Delta [C_z, D_zu]          W: (ndelta, nx + m)

and then  [A', B'] = [A, B_u] + B_w W,  [C', D'] = [C_y, D_yu] + D_yw W.

The batched solver (:mod:`satdyn.lfr._batch`) exploits the structure of ``D_zw``
once per LFR (cached): dependency levels of its strongly connected components,
closed-form loop gains, low-rank cut states between super-blocks, the narrower of
the LFR and its transpose.  A single point uses one dense LAPACK solve.

Ill-posedness: a point whose loop matrix has reciprocal condition number below
``RCOND_TOL`` (or is singular, or gives non-finite numbers) is marked invalid and
returned as NaN in a batch; a single-point evaluation raises :class:`IllPosedError`.

Arguments named in this module: ``lfr`` (LFR), ``values`` dict ``name -> value`` with
physical values, scalars or arrays (N,); ``omega`` (nw,) rad/s; ``rng`` a numpy
Generator or seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import SatdynInputError
from . import _core
from ._batch import _SUPERBLOCK, _close_batch, _directions, _inverse_with_rcond, _schedule  # noqa: F401 (tests use them)
from .batch import StateSpaceBatch, batch_freqresp
from .convert import to_statespace

__all__ = ["evaluate", "evaluate_batch", "subs", "sample", "freqresp", "IllPosedError", "LFRSample", "RCOND_TOL"]

RCOND_TOL = 1e-12
_CHUNK_BYTES = 96e6
_CACHE_BYTES = 1.5e6
_DENSE_POINT_MAX = 400  # single points: dense LAPACK up to this many channels (O(n^3))


class IllPosedError(SatdynInputError):
    """The LFR is ill posed (I - M11 Delta singular) at the requested parameter point."""


@dataclass(frozen=True)
class LFRSample:
    """Random samples of an LFR: physical ``values`` (name -> (n,)) and the ``systems``
    (StateSpaceBatch, or (n, p, m) array for a static LFR)."""

    values: dict
    systems: object


# --- parameter values -> per-channel deltas ------------------------------------------------
def _deltas(lfr, values, batch: bool, strict: bool = True):
    values = {} if values is None else values
    if not isinstance(values, dict):
        raise TypeError(f"`values` must be a dict name -> value; got {type(values).__name__}")
    params = lfr.parameters
    unknown = [k for k in values if k not in params]
    if unknown and strict:
        raise ValueError(
            f"unknown parameter(s) {unknown}; this LFR has {list(params)} (strict=False ignores unknown names)"
        )
    values = {k: v for k, v in values.items() if k in params}
    arrays = {}
    for name, v in values.items():
        arr = np.asarray(v, dtype=float)
        if not batch and arr.ndim != 0:
            raise ValueError(f"`values[{name!r}]` must be a scalar for evaluate(); use evaluate_batch()")
        if arr.ndim > 1:
            raise ValueError(f"`values[{name!r}]` must be a scalar or 1-D array (N,); got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"`values[{name!r}]` must be finite")
        arrays[name] = arr
    sizes = {a.shape[0] for a in arrays.values() if a.ndim == 1}
    if len(sizes) > 1:
        raise ValueError(f"`values` arrays must all have the same length N; got lengths {sorted(sizes)}")
    N = sizes.pop() if sizes else 1
    d = np.zeros((lfr.ndelta, N))
    row = 0
    for b in lfr.blocks:
        if b.name in arrays:
            d[row:row + b.size] = b.parameter.normalize(arrays[b.name])
        row += b.size
    return d, N, arrays


def _close_point(lfr, d):
    """One point: a dense LAPACK solve of the Delta loop (cheaper than the level sweep
    for a single point) with the same well-posedness measure as the batch: the
    reciprocal condition numbers of the loop blocks of ``I - Delta D_zw``."""
    nx, nd, m, p = lfr.nstates, lfr.ndelta, lfr.ninputs, lfr.noutputs
    sch = _schedule(lfr)
    rcond = 1.0
    with np.errstate(all="ignore"):
        for size, (channels, Dbb) in sch.loop_blocks.items():
            dd = d[channels]  # (count, size)
            if size == 1:
                gain = dd[:, 0] * Dbb[:, 0, 0]
                rc = np.abs(1.0 - gain) / (1.0 + np.abs(gain))
            else:
                _, rc = _inverse_with_rcond(np.eye(size) - dd[:, :, None] * Dbb)
            rcond = min(rcond, float(rc.min()))
        M = lfr._M
        q = nx + nd
        rows, cols = np.r_[0:nx, q:q + p], np.r_[0:nx, q:q + m]
        D11 = M[nx:q, nx:q]
        try:
            W = np.linalg.solve(np.eye(nd) - d[:, None] * D11, d[:, None] * M[nx:q][:, cols])
        except np.linalg.LinAlgError:
            return np.full((nx + p, nx + m), np.nan), 0.0
        out = M[np.ix_(rows, cols)] + M[rows][:, nx:q] @ W
    return out, rcond


def _evaluate_deltas(lfr, d, chunk=None, progress=None):
    nx, nd = lfr.nstates, lfr.ndelta
    N = d.shape[1]
    largest = _schedule(lfr).largest if nd else 0
    if chunk is None:
        k = nx + lfr.ninputs
        # Memory bound: the super-block being swept should stay in a core's L2 cache,
        # and the largest loop's batched matrices within _CHUNK_BYTES.
        per_sweep = 8.0 * k * max(1, min(nd, _SUPERBLOCK))
        per_point = 8.0 * (3 * largest * largest + nd * k + (nx + lfr.noutputs) * k)
        chunk = int(max(16, min(_CACHE_BYTES // per_sweep, _CHUNK_BYTES // per_point)))
    if N == 1 and nd and (nd <= _DENSE_POINT_MAX or largest > nd // 2):
        out, rcond = _close_point(lfr, d[:, 0])
        out = out[None]
        rcond = np.array([rcond])
        valid = (rcond >= RCOND_TOL) & np.all(np.isfinite(out.reshape(1, -1)), axis=1)
        out[~valid] = np.nan
        return out, valid
    out = np.empty((N, nx + lfr.noutputs, nx + lfr.ninputs))
    rcond = np.empty(N)
    work: dict = {}
    for s in range(0, N, chunk):
        _, rcond[s:s + chunk] = _close_batch(lfr, d[:, s:s + chunk], out[s:s + chunk], work)
        if progress is not None:
            progress(min(s + chunk, N), N)
    valid = (rcond >= RCOND_TOL) & np.all(np.isfinite(out.reshape(N, -1)), axis=1)
    out[~valid] = np.nan
    return out, valid


# --- public functions ----------------------------------------------------------------------
def _delta_reduced(lfr):
    """``reduce(lfr, states=False)``, cached on the immutable LFR: the same A, B, C, D
    at every point with the Delta channels that do not act on them removed."""
    cached = lfr._cache.get("delta_reduced")
    if cached is None:
        from .reduce import reduce

        cached = lfr._cache["delta_reduced"] = reduce(lfr, states=False) if lfr.ndelta else lfr
    return cached


def _check_flag(value, name: str) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"`{name}` must be a bool; got {value!r}")


def evaluate_batch(lfr, values=None, *, chunk: int | None = None, strict: bool = True, progress=None,
                   reduce: bool = True):
    """Evaluate at N points in one vectorised computation.

    Parameters
    ----------
    values : dict name -> array (N,) or scalar
        Physical parameter values; missing parameters take their nominal value.
    chunk : int, optional
        Points per vectorised chunk (default: sized to the cache / ~100 MB of work arrays).
    strict : bool
        Raise on names that are not parameters of this LFR (default); False ignores them.
    progress : callable, optional
        Called as ``progress(points_done, N)`` after each chunk.
    reduce : bool
        Evaluate ``reduce(lfr, states=False)`` (default; computed once and cached):
        the same matrices with fewer Delta channels.  False evaluates ``lfr`` as built.

    Returns
    -------
    StateSpaceBatch (dynamic LFR) or ndarray (N, p, m) (static LFR).  Ill-posed points
    are NaN; for a StateSpaceBatch their ``valid`` entry is False.
    """
    _check_flag(reduce, "reduce")
    if reduce:
        _deltas(lfr, values, batch=True, strict=strict)  # names and shapes checked on the LFR given
        target = _delta_reduced(lfr)
        values = {k: v for k, v in (values or {}).items() if k in target.parameters}
        lfr = target
    d, N, _ = _deltas(lfr, values, batch=True, strict=strict)
    out, valid = _evaluate_deltas(lfr, d, chunk, progress)
    nx = lfr.nstates
    if nx == 0:
        return out
    return StateSpaceBatch(
        out[:, :nx, :nx], out[:, :nx, nx:], out[:, nx:, :nx], out[:, nx:, nx:],
        lfr.input_names, lfr.output_names, valid,
    )


def evaluate(lfr, values=None, *, strict: bool = True):
    """Evaluate at one point: ``control.StateSpace`` (dynamic) or ndarray (p, m) (static).

    Raises
    ------
    IllPosedError
        If ``I - M11 Delta`` is singular (or numerically so) at this point.
    """
    d, _, arrays = _deltas(lfr, values, batch=False, strict=strict)
    out, valid = _evaluate_deltas(lfr, d, chunk=1)
    if not valid[0]:
        point = {b.name: float(arrays.get(b.name, b.nominal)) for b in lfr.blocks}
        raise IllPosedError(f"the LFR is ill posed (I - M11 Delta singular) at {point}")
    nx = lfr.nstates
    G = out[0]
    if nx == 0:
        return G
    return to_statespace(G[:nx, :nx], G[:nx, nx:], G[nx:, :nx], G[nx:, nx:], lfr.input_names, lfr.output_names)


def subs(lfr, values, *, strict: bool = True):
    """Partial substitution: the LFR with the blocks of the parameters in ``values`` closed."""
    if not values:
        return lfr
    d, _, _ = _deltas(lfr, values, batch=False, strict=strict)
    values = {k: v for k, v in values.items() if k in lfr.parameters}
    nx = lfr.nstates
    chans, gains, row = [], [], 0
    for b in lfr.blocks:
        if b.name in values:
            chans.extend(range(nx + row, nx + row + b.size))
            gains.extend(d[row:row + b.size, 0])
        row += b.size
    try:
        M = _core.substitute(lfr._M, lfr._nloop, chans, gains)
    except ValueError as exc:
        raise IllPosedError(f"subs({values}): {exc}") from None
    labels = [lab for i, lab in enumerate(lfr._labels) if i not in set(chans)]
    from .lfr import LFR

    return LFR._make(M, labels, lfr.input_names, lfr.output_names, lfr._igroups, lfr._ogroups, canonical=False)


def sample(lfr, n: int, rng=None, *, kinds=None, reduce: bool = True) -> LFRSample:
    """``n`` points drawn uniformly in normalised delta (in [-1, 1]) for the parameters whose
    kind is in ``kinds`` (default: all); the others stay nominal.  ``reduce`` as in
    :func:`evaluate_batch` (the values are drawn for every parameter of ``lfr``)."""
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"`n` must be a positive integer; got {n!r}")
    _check_flag(reduce, "reduce")
    rng = np.random.default_rng(rng)
    values = {}
    for b in lfr.blocks:
        if kinds is None or b.kind in kinds:
            values[b.name] = b.parameter.denormalize(rng.uniform(-1.0, 1.0, size=int(n)))
    systems = evaluate_batch(lfr, values, reduce=reduce) if values else _repeat_nominal(lfr, int(n))
    return LFRSample(values, systems)


def _repeat_nominal(lfr, n):
    d = np.zeros((lfr.ndelta, n))
    out, valid = _evaluate_deltas(lfr, d)
    nx = lfr.nstates
    if nx == 0:
        return out
    return StateSpaceBatch(out[:, :nx, :nx], out[:, :nx, nx:], out[:, nx:, :nx], out[:, nx:, nx:],
                           lfr.input_names, lfr.output_names, valid)


def freqresp(lfr, omega, values=None, *, strict: bool = True) -> np.ndarray:
    """Frequency response ``G(j omega)``.

    Returns (nw, p, m) complex at one point (``values`` None or scalars), or
    (N, nw, p, m) when ``values`` holds arrays (N,).  Ill-posed points are NaN.
    """
    batch = values is not None and any(np.ndim(v) == 1 for v in values.values())
    d, N, _ = _deltas(lfr, values, batch=True, strict=strict)
    out, valid = _evaluate_deltas(lfr, d)
    nx = lfr.nstates
    G = batch_freqresp(out[:, :nx, :nx], out[:, :nx, nx:], out[:, nx:, :nx], out[:, nx:, nx:], omega)
    return G if batch else G[0]
