"""Evaluation of an LFR at parameter points: single, batched, partial; sampling; freqresp.

Closing the Delta loop at N points means solving, for every point,

    (I - Delta D_zw) W = Delta [C_z, D_zu]          W: (ndelta, nx + m)

and then  [A', B'] = [A, B_u] + B_w W,  [C', D'] = [C_y, D_yu] + D_yw W.

The batched solver exploits the structure of ``D_zw`` once per LFR (cached): its
strongly connected components, in dependency order and grouped into *levels*
(all components whose inputs are already known).  Channels with no self-loop are
then a plain multiply, the others a small batched solve, and the couplings between
levels one large matrix product over all N points (columns ``N * (nx + m)``).  A
dense ``D_zw`` is one component: a batched LU solve in chunks.  LFRs built by
products and interconnections (rotation chains, TITOP assemblies) are mostly
triangular, which is where the batch gains most.

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
import scipy.sparse
import scipy.sparse.csgraph

from . import _core
from .batch import StateSpaceBatch, batch_freqresp
from .convert import to_statespace

__all__ = ["evaluate", "evaluate_batch", "subs", "sample", "freqresp", "IllPosedError", "LFRSample", "RCOND_TOL"]

RCOND_TOL = 1e-12
_CHUNK_BYTES = 96e6


class IllPosedError(ValueError):
    """The LFR is ill posed (I - M11 Delta singular) at the requested parameter point."""


@dataclass(frozen=True)
class LFRSample:
    """Random samples of an LFR: physical ``values`` (name -> (n,)) and the ``systems``
    (StateSpaceBatch, or (n, p, m) array for a static LFR)."""

    values: dict
    systems: object


# --- parameter values -> per-channel deltas ------------------------------------------------
def _deltas(lfr, values, batch: bool):
    values = {} if values is None else values
    if not isinstance(values, dict):
        raise TypeError(f"`values` must be a dict name -> value; got {type(values).__name__}")
    params = lfr.parameters
    unknown = [k for k in values if k not in params]
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown}; this LFR has {list(params)}")
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


# --- structure of D_zw (cached on the immutable LFR) ---------------------------------------
def _schedule(lfr):
    cached = lfr._cache.get("schedule")
    if cached is not None:
        return cached
    nx, nd = lfr.nstates, lfr.ndelta
    D11 = lfr._M[nx:nx + nd, nx:nx + nd]
    pattern = D11 != 0.0
    n_comp, comp = scipy.sparse.csgraph.connected_components(
        scipy.sparse.csr_matrix(pattern), directed=True, connection="strong"
    )
    members = [[] for _ in range(n_comp)]
    for i, c in enumerate(comp):
        members[c].append(i)
    # Dependencies between components; levels by repeated relaxation in topological order.
    rows, cols = np.nonzero(pattern)
    between = comp[rows] != comp[cols]
    deps = [set() for _ in range(n_comp)]
    for a, b in zip(comp[rows[between]], comp[cols[between]]):
        deps[a].add(b)
    level = np.full(n_comp, -1)
    order = _topological(deps)
    for c in order:  # dependencies first
        level[c] = 1 + max((level[d] for d in deps[c]), default=-1)
    schedule = []
    done = np.zeros(nd, dtype=bool)
    for lev in range(int(level.max()) + 1 if n_comp else 0):
        comps = [c for c in range(n_comp) if level[c] == lev]
        chans = np.array([i for c in comps for i in members[c]], dtype=int)
        free = [i for c in comps if len(members[c]) == 1 and not pattern[members[c][0], members[c][0]] for i in members[c]]
        loops = {}
        for c in comps:
            mem = members[c]
            if len(mem) == 1 and not pattern[mem[0], mem[0]]:
                continue
            loops.setdefault(len(mem), []).append(mem)
        local = {ch: k for k, ch in enumerate(chans)}
        dep_cols = np.flatnonzero(np.any(pattern[chans][:, done], axis=0))
        dep_cols = np.flatnonzero(done)[dep_cols]
        groups = []
        for size, mems in loops.items():
            idx = np.array(mems, dtype=int)  # (count, size)
            groups.append((idx, np.array([[local[i] for i in m] for m in mems]), D11[idx[:, :, None], idx[:, None, :]]))
        schedule.append((chans, np.array([local[i] for i in free], dtype=int), np.array(free, dtype=int),
                         dep_cols, D11[np.ix_(chans, dep_cols)], groups))
        done[chans] = True
    largest = max((len(m) for m in members), default=0)
    result = (schedule, largest)
    lfr._cache["schedule"] = result
    return result


def _topological(deps):
    """Components ordered so that each comes after all its dependencies."""
    order, state = [], [0] * len(deps)
    for start in range(len(deps)):
        if state[start]:
            continue
        stack = [(start, iter(deps[start]))]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                order.append(node)
                state[node] = 2
            elif not state[nxt]:
                state[nxt] = 1
                stack.append((nxt, iter(deps[nxt])))
    return order


def _close_batch(lfr, d):
    """Closed-loop matrices for deltas ``d`` (ndelta, N): (N, nx + p, nx + m) and rcond (N,)."""
    nx, nd, m, p = lfr.nstates, lfr.ndelta, lfr.ninputs, lfr.noutputs
    M = lfr._M
    N = d.shape[1]
    q = nd + nx
    outer_rows = np.r_[0:nx, q:q + p]
    outer_cols = np.r_[0:nx, q:q + m]
    base = M[np.ix_(outer_rows, outer_cols)]
    if nd == 0:
        return np.broadcast_to(base, (N,) + base.shape).copy(), np.ones(N)
    k = nx + m
    R = M[nx:q][:, outer_cols]  # (nd, k)
    W = np.empty((nd, N, k))
    rcond = np.ones(N)
    schedule, _ = _schedule(lfr)
    with np.errstate(all="ignore"):
        for chans, free_local, free, dep_cols, D_dep, groups in schedule:
            rhs = np.broadcast_to(R[chans][:, None, :], (len(chans), N, k))
            if dep_cols.size:
                rhs = rhs + (D_dep @ W[dep_cols].reshape(dep_cols.size, N * k)).reshape(len(chans), N, k)
            if free.size:
                W[free] = d[free][:, :, None] * rhs[free_local]
            for idx, loc, Dbb in groups:
                dd = d[idx]  # (count, size, N)
                mats = np.eye(idx.shape[1]) - np.moveaxis(dd, 2, 0)[..., None] * Dbb  # (N, count, s, s)
                b = np.moveaxis(dd[..., None] * rhs[loc], 2, 0)  # (N, count, s, k)
                inv, rc = _inverse_with_rcond(mats)
                rcond = np.minimum(rcond, rc.min(axis=1))
                W[idx] = np.moveaxis(inv @ b, 0, 2)
        out = base[None] + np.moveaxis(
            (M[outer_rows][:, nx:q] @ W.reshape(nd, N * k)).reshape(nx + p, N, k), 1, 0
        )
    return out, rcond


def _inverse_with_rcond(mats):
    """Batched inverse and 1-norm reciprocal condition numbers; singular -> NaN, rcond 0."""
    try:
        inv = np.linalg.inv(mats)
    except np.linalg.LinAlgError:
        inv = np.full(mats.shape, np.nan)
        for idx in np.ndindex(*mats.shape[:-2]):
            try:
                inv[idx] = np.linalg.inv(mats[idx])
            except np.linalg.LinAlgError:
                pass
    norm = np.abs(mats).sum(axis=-2).max(axis=-1)
    norm_inv = np.abs(inv).sum(axis=-2).max(axis=-1)
    rc = 1.0 / (norm * norm_inv)
    return inv, np.where(np.isfinite(rc), rc, 0.0)


def _evaluate_deltas(lfr, d, chunk=None):
    nx, nd = lfr.nstates, lfr.ndelta
    N = d.shape[1]
    _, largest = _schedule(lfr) if nd else ((), 0)
    if chunk is None:
        per_point = 8.0 * (largest * largest * 3 + nd * (nx + lfr.ninputs) * 2 + (nx + lfr.noutputs) * (nx + lfr.ninputs))
        chunk = max(1, int(_CHUNK_BYTES // max(per_point, 1.0)))
    out = np.empty((N, nx + lfr.noutputs, nx + lfr.ninputs))
    rcond = np.empty(N)
    for s in range(0, N, chunk):
        out[s:s + chunk], rcond[s:s + chunk] = _close_batch(lfr, d[:, s:s + chunk])
    valid = (rcond >= RCOND_TOL) & np.all(np.isfinite(out.reshape(N, -1)), axis=1)
    out[~valid] = np.nan
    return out, valid


# --- public functions ----------------------------------------------------------------------
def evaluate_batch(lfr, values=None, *, chunk: int | None = None):
    """Evaluate at N points in one vectorised computation.

    Parameters
    ----------
    values : dict name -> array (N,) or scalar
        Physical parameter values; missing parameters take their nominal value.
    chunk : int, optional
        Points per vectorised chunk (default: sized to ~100 MB of work arrays).

    Returns
    -------
    StateSpaceBatch (dynamic LFR) or ndarray (N, p, m) (static LFR).  Ill-posed points
    are NaN; for a StateSpaceBatch their ``valid`` entry is False.
    """
    d, N, _ = _deltas(lfr, values, batch=True)
    out, valid = _evaluate_deltas(lfr, d, chunk)
    nx = lfr.nstates
    if nx == 0:
        return out
    return StateSpaceBatch(
        out[:, :nx, :nx], out[:, :nx, nx:], out[:, nx:, :nx], out[:, nx:, nx:],
        lfr.input_names, lfr.output_names, valid,
    )


def evaluate(lfr, values=None):
    """Evaluate at one point: ``control.StateSpace`` (dynamic) or ndarray (p, m) (static).

    Raises
    ------
    IllPosedError
        If ``I - M11 Delta`` is singular (or numerically so) at this point.
    """
    d, _, arrays = _deltas(lfr, values, batch=False)
    out, valid = _evaluate_deltas(lfr, d, chunk=1)
    if not valid[0]:
        point = {b.name: float(arrays.get(b.name, b.nominal)) for b in lfr.blocks}
        raise IllPosedError(f"the LFR is ill posed (I - M11 Delta singular) at {point}")
    nx = lfr.nstates
    G = out[0]
    if nx == 0:
        return G
    return to_statespace(G[:nx, :nx], G[:nx, nx:], G[nx:, :nx], G[nx:, nx:], lfr.input_names, lfr.output_names)


def subs(lfr, values):
    """Partial substitution: the LFR with the blocks of the parameters in ``values`` closed."""
    if not values:
        return lfr
    d, _, _ = _deltas(lfr, values, batch=False)
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


def sample(lfr, n: int, rng=None, *, kinds=None) -> LFRSample:
    """``n`` points drawn uniformly in normalised delta (in [-1, 1]) for the parameters whose
    kind is in ``kinds`` (default: all); the others stay nominal."""
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"`n` must be a positive integer; got {n!r}")
    rng = np.random.default_rng(rng)
    values = {}
    for b in lfr.blocks:
        if kinds is None or b.kind in kinds:
            values[b.name] = b.parameter.denormalize(rng.uniform(-1.0, 1.0, size=int(n)))
    systems = evaluate_batch(lfr, values) if values else _repeat_nominal(lfr, int(n))
    return LFRSample(values, systems)


def _repeat_nominal(lfr, n):
    d = np.zeros((lfr.ndelta, n))
    out, valid = _evaluate_deltas(lfr, d)
    nx = lfr.nstates
    if nx == 0:
        return out
    return StateSpaceBatch(out[:, :nx, :nx], out[:, :nx, nx:], out[:, nx:, :nx], out[:, nx:, nx:],
                           lfr.input_names, lfr.output_names, valid)


def freqresp(lfr, omega, values=None) -> np.ndarray:
    """Frequency response ``G(j omega)``.

    Returns (nw, p, m) complex at one point (``values`` None or scalars), or
    (N, nw, p, m) when ``values`` holds arrays (N,).  Ill-posed points are NaN.
    """
    batch = values is not None and any(np.ndim(v) == 1 for v in values.values())
    d, N, _ = _deltas(lfr, values, batch=True)
    out, valid = _evaluate_deltas(lfr, d)
    nx = lfr.nstates
    G = batch_freqresp(out[:, :nx, :nx], out[:, :nx, nx:], out[:, nx:, :nx], out[:, nx:, nx:], omega)
    return G if batch else G[0]
