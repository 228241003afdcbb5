"""Evaluation of an LFR at parameter points: single, batched, partial; sampling; freqresp.

Closing the Delta loop at N points means solving, for every point,

    (I - Delta D_zw) W = Delta [C_z, D_zu]          W: (ndelta, nx + m)

and then  [A', B'] = [A, B_u] + B_w W,  [C', D'] = [C_y, D_yu] + D_yw W.

The batched solver exploits the structure of ``D_zw`` once per LFR (cached): its
strongly connected components (scipy.sparse.csgraph), ordered by dependency *levels*
(all components whose inputs are already known).  Within a level, channels without
a self-loop are a plain multiply and loops a closed-form (sizes 1, 2: scalar loops,
Cayley rotations) or batched-inverse solve.  Levels are swept in super-blocks of
~32 channels (a blocked right-looking triangular solve): inside a super-block each
level pulls its couplings with a small matrix product; after it, one product -- with
a precomputed low-rank factor when the coupling block has small numerical rank, as it
does for products of LFRs, which couple through the few signals between factors --
updates all later channels for all N points at once.  The N points are processed in
chunks sized so that a super-block's work array stays in cache.  A dense ``D_zw`` is
one component: a batched inverse in chunks.

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
_CACHE_BYTES = 1.5e6
_DENSE_POINT_MAX = 400  # single points: dense LAPACK up to this many channels (O(n^3))


class IllPosedError(ValueError):
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


# --- structure of D_zw (cached on the immutable LFR) ---------------------------------------
_SUPERBLOCK = 32  # channels per super-block of the blocked triangular sweep


@dataclass(frozen=True)
class _Schedule:
    perm: np.ndarray          # channel order: by level, components contiguous
    D11: np.ndarray           # D_zw permuted by perm
    levels: list              # (l0, l1, n free, loop groups [(g0, count, size, Dbb)], inner update)
    superblocks: list         # (s0, s1, first level, last level + 1, state rank in, [T, B] or None, row in ext)
    ext_size: int             # rows of the work array (channels + cut states)
    largest: int              # largest strongly connected component
    loop_blocks: dict         # size -> (channels (count, size), D_zw blocks (count, size, size))
    self_gain: np.ndarray     # (ndelta,) D_zw diagonal of 1-channel loops (0 elsewhere), perm order
    one_loops: np.ndarray     # perm positions of 1-channel loops
    loop_groups: dict         # size >= 2 -> (perm positions (count, size), blocks (count, size, size))
    rhs: np.ndarray           # [C_z, D_zu] rows in perm order: (ndelta, nx + m)
    base: np.ndarray          # [[A, B_u], [C_y, D_yu]]: (nx + p, nx + m)
    coupling: tuple           # [B_w; D_yw] columns in perm order, as an update op (see _update_op)
    rhs_right: np.ndarray     # None, or (r, nx + m) with [C_z, D_zu] = rhs @ rhs_right (rank r < nx + m)
    transposed: bool          # schedule of the transposed LFR (see _close_batch): rcond of D_bb^T


def _schedule(lfr, transposed: bool = False) -> _Schedule:
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
    rows, cols = np.nonzero(pattern)
    between = comp[rows] != comp[cols]
    deps = [set() for _ in range(n_comp)]
    for a, b in zip(comp[rows[between]], comp[cols[between]]):
        deps[a].add(int(b))
    level = np.zeros(n_comp, dtype=int)
    for c in _topological(deps):  # dependencies first
        level[c] = 1 + max((level[d] for d in deps[c]), default=-1)
    by_level: dict[int, list[int]] = {}
    for c in range(n_comp):
        by_level.setdefault(int(level[c]), []).append(c)
    def is_free(c):  # a single channel without self-loop: w = delta * rhs
        return len(members[c]) == 1 and not pattern[members[c][0], members[c][0]]

    perm: list[int] = []
    levels = []
    for lev in sorted(by_level):
        l0 = len(perm)
        free, loops = [], {}
        # Free channels first, then loops grouped by size: each group is contiguous.
        for c in sorted(by_level[lev], key=lambda c: (not is_free(c), len(members[c]))):
            mem = members[c]
            if is_free(c):
                free.append(len(perm) - l0)
            else:
                loops.setdefault(len(mem), []).append(len(perm))
            perm.extend(mem)
        levels.append([l0, len(perm), np.array(free, dtype=int), loops])
    perm_a = np.array(perm, dtype=int)
    Dp = D11[np.ix_(perm_a, perm_a)] if nd else D11
    self_gain = np.zeros(nd)
    one_loops: list = []
    group_items: dict = {}
    for entry in levels:
        # Free channels come first in a level, then loops grouped by size: all contiguous.
        # Free channels and 1-channel loops are both a per-channel gain: the "diagonal" part.
        ndiag = entry[2].size
        groups = []
        for size, starts in _loops_sorted(entry[3]):
            count = len(starts)
            if size == 1:
                one_loops.extend(starts)
                ndiag += count
                continue
            items = group_items.setdefault(size, [])
            groups.append((starts[0], count, size, len(items)))
            items.extend(starts)
        entry[2], entry[3] = ndiag, groups
    one_loops_a = np.array(one_loops, dtype=int)
    self_gain[one_loops_a] = Dp[one_loops_a, one_loops_a]
    loop_groups = {}
    for size, starts in group_items.items():
        pos = np.array(starts, dtype=int)[:, None] + np.arange(size)
        loop_groups[size] = (pos, np.stack([Dp[s:s + size, s:s + size] for s in starts]))
    spans, first = [], 0
    for k, (l0, l1, _, _) in enumerate(levels):
        s0 = levels[first][0]
        if l1 - s0 >= _SUPERBLOCK or k == len(levels) - 1:
            spans.append((s0, l1, first, k + 1))
            first = k + 1
    superblocks = _cut_states(Dp, spans)
    for s0, s1, lev0, lev1, r_in, U_in, _ in superblocks:
        for entry in levels[lev0:lev1]:
            l0, l1 = entry[0], entry[1]
            # z_l = rhs_l + [U_in rows of l | D[l, earlier levels of S]] @ [state; w_S[:l0]]
            parts = [U_in[l0 - s0:l1 - s0] if U_in is not None else np.zeros((l1 - l0, r_in)),
                     Dp[l0:l1, s0:l0]]
            op = np.hstack(parts)
            nz = np.flatnonzero(np.any(op != 0.0, axis=0))
            if nz.size == 0:
                entry.append(None)
            else:
                c0, c1 = int(nz[0]), int(nz[-1]) + 1
                entry.append((np.ascontiguousarray(op[:, c0:c1]), c0, c1))
    # Work-array layout: per super-block [entering cut state h (r_in rows); w_S], so that a
    # level's update is one product with [h; w of earlier levels].  ext_rows: row of each
    # channel (perm order) in that array.
    layout, ext_rows, e0 = [], np.empty(nd, dtype=int), 0
    for s0, s1, lev0, lev1, r_in, _, S_op in superblocks:
        ext_rows[s0:s1] = np.arange(e0 + r_in, e0 + r_in + s1 - s0)
        layout.append((s0, s1, lev0, lev1, r_in, S_op, e0))
        e0 += r_in + s1 - s0
    superblocks = layout
    loop_blocks = {size: (perm_a[pos], blocks) for size, (pos, blocks) in loop_groups.items()}
    if one_loops_a.size:
        loop_blocks[1] = (perm_a[one_loops_a][:, None], self_gain[one_loops_a][:, None, None])
    q = nx + nd
    outer_rows = np.r_[0:nx, q:q + lfr.noutputs]
    outer_cols = np.r_[0:nx, q:q + lfr.ninputs]
    M = lfr._M
    coupling = _update_op(M[outer_rows][:, nx + perm_a]) if nd else None
    if coupling is not None:  # act on the work array: zero columns at the cut-state rows
        last = np.zeros((coupling[-1 if coupling[1] is not None else 0].shape[0], e0))
        last[:, ext_rows] = coupling[1] if coupling[1] is not None else coupling[0]
        coupling = (coupling[0], last) if coupling[1] is not None else (last, None)
    rhs, rhs_right = _column_factor(M[nx + perm_a][:, outer_cols])
    result = _Schedule(perm_a, Dp, [tuple(e) for e in levels], superblocks, e0,
                       max((len(m) for m in members), default=0), loop_blocks,
                       self_gain, one_loops_a, loop_groups,
                       rhs,
                       np.ascontiguousarray(M[np.ix_(outer_rows, outer_cols)]), coupling,
                       rhs_right, transposed)
    lfr._cache["schedule"] = result
    return result


def _column_factor(R):
    """``R = left @ right`` with ``left`` of R's numerical rank r when r is clearly below
    R's column count (the sweep then carries r columns instead of all); else (R, None)."""
    if R.size == 0 or not np.any(R):
        return np.ascontiguousarray(R), None
    U, sv, Vt = np.linalg.svd(R, full_matrices=False)
    r = int(np.count_nonzero(sv > 1e-14 * sv[0]))
    if r <= 0.8 * R.shape[1]:
        return np.ascontiguousarray(U[:, :r] * sv[:r]), np.ascontiguousarray(Vt[:r])
    return np.ascontiguousarray(R), None


def _update_op(block):
    """How to apply ``rows += block @ cols``: None (zero block), ``(block, None)`` dense,
    or ``(U, Vt)`` low rank -- products of LFRs couple their factors through the few
    signals between them, so these blocks usually have a small numerical rank."""
    if block.size == 0 or not np.any(block):
        return None
    U, sv, Vt = np.linalg.svd(block, full_matrices=False)
    r = int(np.count_nonzero(sv > 1e-14 * sv[0]))
    rows, cols = block.shape
    if r * (rows + cols) < 0.7 * rows * cols:
        return (np.ascontiguousarray(U[:, :r] * sv[:r]), np.ascontiguousarray(Vt[:r]))
    return (np.ascontiguousarray(block), None)


def _cut_states(Dp, spans) -> list:
    """Couplings between super-blocks through small "cut states" (a sequentially
    semi-separable factorisation of the strictly lower part of ``D_zw``).

    At the cut after super-block S (channel c), everything the later channels need
    from ``w[:c]`` is ``D[c:, :c] w[:c] = U_c h_c`` with ``h_c`` of the numerical rank of
    ``D[c:, :c]`` -- for products of LFRs, the few signals that cross the cut.  The
    state is carried from cut to cut, ``h_c' = T h_c + B w_S``, from the SVD of
    ``[U_c[rows after S], D[after S, S]]`` (so the factorisation is exact up to the
    1e-14 relative truncation).  At run time, super-block S starts with
    ``z_S += U_c[rows of S] h_c``: only S's rows and the small state are touched, so
    the work stays in cache, and the cost does not grow with the number of earlier
    super-blocks.  Entries: (s0, s1, first level, last level + 1, U_in (S, r) or None,
    T (r', r) or None, B (r', S) or None).
    """
    nd = Dp.shape[0]
    U_prev = np.zeros((nd, 0))  # D[s0:, :s0] = U_prev @ (state), rows from s0
    out = []
    for s0, s1, lev0, lev1 in spans:
        width, r_in = s1 - s0, U_prev.shape[1]
        U_in = U_prev[:width] if r_in and np.any(U_prev[:width]) else None
        if s1 == nd:
            out.append((s0, s1, lev0, lev1, r_in, U_in, None))
            break
        A = np.hstack([U_prev[width:], Dp[s1:, s0:s1]])
        U, sv, Vt = np.linalg.svd(A, full_matrices=False)
        r = int(np.count_nonzero(sv > 1e-14 * sv[0])) if sv.size and sv[0] > 0 else 0
        out.append((s0, s1, lev0, lev1, r_in, U_in, np.ascontiguousarray(Vt[:r]) if r else None))
        U_prev = U[:, :r] * sv[:r]
    return out


def _apply_update(op, flat, rows: slice, cols: slice):
    if op is None:
        return
    first, second = op
    if second is None:
        flat[rows] += first @ flat[cols]
    else:
        flat[rows] += first @ (second @ flat[cols])


def _loops_sorted(loops: dict):
    return sorted(loops.items())


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


def _close_batch(lfr, d, out=None, work=None):
    """Closed-loop matrices for deltas ``d`` (ndelta, N): (N, nx + p, nx + m) and rcond (N,).

    Blocked right-looking triangular sweep over the level-ordered channels.  First, for
    all loops of the chunk at once, the per-point loop gains ``(I - Delta_b D_bb)^{-1}
    Delta_b`` (closed forms for sizes 1 and 2) and their conditioning.  Then, super-block
    by super-block, the right-hand sides ``z`` are gathered in a small buffer (constant
    rows, plus the low-rank contributions of earlier super-blocks), and level by level
    ``z_l += D_l,earlier w_earlier`` and ``w_l = gain_l z_l`` (an elementwise product for
    single channels, a stacked small matmul for loops) -- every step is one pass over
    the level's rows, with no temporaries of the work-array size.
    """
    nx, nd, m, p = lfr.nstates, lfr.ndelta, lfr.ninputs, lfr.noutputs
    N = d.shape[1]
    if nd == 0:
        q = nx
        base = lfr._M[np.ix_(np.r_[0:nx, q:q + p], np.r_[0:nx, q:q + m])]
        out = np.empty((N,) + base.shape) if out is None else out
        out[...] = base
        return out, np.ones(N)
    primal, dual = _directions(lfr)
    out = np.empty((N, nx + p, nx + m)) if out is None else out
    work = {} if work is None else work
    if dual is None:
        return out, _sweep(lfr, primal, d, out, work)
    return out, _sweep(dual[0], dual[1], d, np.swapaxes(out, 1, 2), work)


def _directions(lfr):
    """The schedule of ``lfr`` and, when it carries fewer columns, that of its transpose.

    The closed loop of ``M^T`` is the transpose of the closed loop of ``M`` (Delta is
    diagonal), and the sweep carries ``rank [C_z, D_zu]`` columns for ``M`` but
    ``rank [B_w; D_yw]`` for ``M^T``: the narrower direction is used.
    """
    cached = lfr._cache.get("directions")
    if cached is None:
        primal = _schedule(lfr)
        transposed = lfr.T
        dual_sch = _schedule(transposed, transposed=True)
        dual = (transposed, dual_sch) if dual_sch.rhs.shape[1] < primal.rhs.shape[1] else None
        cached = lfr._cache["directions"] = (primal, dual)
    return cached


def _sweep(lfr, sch, d, out, work):
    """The sweep of :func:`_close_batch` with the schedule ``sch`` of ``lfr``; writes
    ``out`` (N, nx + p, nx + m) and returns rcond (N,).  ``work``: dict of buffers reused
    from chunk to chunk (fresh large arrays would cost page faults at every chunk)."""
    nx, m, p = lfr.nstates, lfr.ninputs, lfr.noutputs
    N = d.shape[1]
    k = sch.rhs.shape[1]  # carried columns (nx + m, or the rank of [C_z, D_zu])
    dp = d[sch.perm]
    ext = _buffer(work, "ext", (sch.ext_size, N * k))  # per super-block: [cut state; w_S]
    zbuf = _buffer(work, "z", (max(l1 - l0 for l0, l1, *_ in sch.levels), N, k))
    with np.errstate(all="ignore"):
        gains, rcond = _loop_gains(sch, dp)
        for s0, s1, lev0, lev1, r_in, S_op, e0 in sch.superblocks:
            for l0, l1, ndiag, groups, op in sch.levels[lev0:lev1]:
                z = zbuf[:l1 - l0]
                if op is None:
                    z[...] = sch.rhs[l0:l1, None, :]
                else:
                    np.matmul(op[0], ext[e0 + op[1]:e0 + op[2]], out=z.reshape(l1 - l0, N * k))
                    z += sch.rhs[l0:l1, None, :]
                w0 = e0 + r_in + l0 - s0
                w = ext[w0:w0 + l1 - l0].reshape(l1 - l0, N, k)
                if ndiag:
                    np.multiply(z[:ndiag], gains[1][l0:l0 + ndiag, :, None], out=w[:ndiag])
                for g0, count, size, j0 in groups:
                    g1 = g0 + count * size
                    rhs = z[g0 - l0:g1 - l0].reshape(count, size, N, k).transpose(0, 2, 1, 3)
                    dest = w[g0 - l0:g1 - l0].reshape(count, size, N, k).transpose(0, 2, 1, 3)
                    if size == 2:
                        np.matmul(gains[2][j0:j0 + count], rhs, out=dest)
                    else:
                        inv, ddt = gains[size]
                        scaled = rhs * ddt[j0:j0 + count, :, :, None]
                        np.matmul(inv[j0:j0 + count], scaled, out=dest)
            if S_op is not None:  # next cut state h' = [T, B] @ [h; w_S], where the next block starts
                e1 = e0 + r_in + s1 - s0
                np.matmul(S_op, ext[e0:e1], out=ext[e1:e1 + S_op.shape[0]])
        ops = sch.coupling
        if ops is None:
            out[...] = sch.base
        else:
            first, second = ops
            y = first @ (ext if second is None else second @ ext)
            if sch.rhs_right is not None:
                y = y.reshape((nx + p) * N, k) @ sch.rhs_right
            np.add(np.moveaxis(y.reshape(nx + p, N, nx + m), 1, 0), sch.base, out=out)
    return rcond


def _buffer(work, name, shape):
    buf = work.get(name)
    if buf is None or buf.size < int(np.prod(shape)):
        buf = work[name] = np.empty(int(np.prod(shape)))
    return buf[:int(np.prod(shape))].reshape(shape)


def _loop_gains(sch, dp):
    """Per-point gains of every loop, ``(I - diag(d_b) D_bb)^{-1} diag(d_b)``, for all loops
    of the LFR at once (they depend only on the deltas, not on the sweep).

    dp (ndelta, N) in perm order.  Returns ``gains`` -- ``gains[1]`` (ndelta, N) the
    per-channel gain of free channels and 1-channel loops, ``gains[s]`` (count, N, s, s)
    for the loops of size s >= 2 -- and the smallest reciprocal condition number of the
    loop matrices at each point (N,).  Sizes 1 and 2 (scalar loops, Cayley rotations)
    use closed forms; larger ones a batched inverse.
    """
    N = dp.shape[1]
    rcond = np.ones(N)
    gains = {1: dp}  # free channels: w = delta z (rows of larger loops: unused)
    if sch.one_loops.size:
        ones = sch.one_loops
        loop_gain = dp[ones] * sch.self_gain[ones][:, None]
        a = 1.0 - loop_gain
        gains[1] = dp.copy()
        gains[1][ones] = dp[ones] / a
        rc = np.abs(a) / (1.0 + np.abs(loop_gain))  # distance to singularity, relative
        rcond = np.minimum(rcond, rc.min(axis=0))
    for size, (pos, Dbb) in sch.loop_groups.items():
        dd = dp[pos]  # (count, size, N)
        if size == 2:
            # I - diag(d) D_bb = [[a, -p01], [-p10, e]]; gain = adj * diag(d) / det
            d0, d1 = dd[:, 0], dd[:, 1]
            a = 1.0 - d0 * Dbb[:, 0, 0][:, None]
            e = 1.0 - d1 * Dbb[:, 1, 1][:, None]
            p01 = d0 * Dbb[:, 0, 1][:, None]
            p10 = d1 * Dbb[:, 1, 0][:, None]
            det = a * e
            det -= p01 * p10
            inv_det = 1.0 / det
            G = np.empty(det.shape + (2, 2))
            d0_det, d1_det = d0 * inv_det, d1 * inv_det
            np.multiply(e, d0_det, out=G[..., 0, 0])
            np.multiply(p01, d1_det, out=G[..., 0, 1])
            np.multiply(p10, d0_det, out=G[..., 1, 0])
            np.multiply(a, d1_det, out=G[..., 1, 1])
            # 1-norm rcond of I - diag(d) D_bb of the LFR itself (transposed schedule:
            # D_bb here is its transpose) -- the measure of a single-point evaluation.
            # NaN (0/0) marks the point invalid like rcond 0.
            A, E = np.abs(a), np.abs(e)
            B, C = np.abs(p01), np.abs(p10)
            if sch.transposed:
                B, C = np.abs(d0 * Dbb[:, 1, 0][:, None]), np.abs(d1 * Dbb[:, 0, 1][:, None])
            rc = np.abs(det) / (np.maximum(A + C, B + E) * np.maximum(E + C, B + A))
        else:
            ddt = np.ascontiguousarray(np.moveaxis(dd, 2, 1))  # (count, N, size)
            mats = ddt[..., None] * Dbb[:, None]
            np.negative(mats, out=mats)
            mats.reshape(mats.shape[:-2] + (size * size,))[..., ::size + 1] += 1.0  # I - diag(d) D_bb
            inv, rc = _inverse_with_rcond(mats, overwrite=True)
            if sch.transposed:
                _, rc = _inverse_with_rcond(np.eye(size) - ddt[..., None] * np.swapaxes(Dbb, 1, 2)[:, None])
            G = (inv, ddt)  # gain = inv @ diag(d): applied as inv @ (d * z), no (N, s, s) pass
        gains[size] = G
        rcond = np.minimum(rcond, rc.min(axis=0))
    return gains, rcond


def _inverse_with_rcond(mats, overwrite: bool = False):
    """Batched inverse and 1-norm reciprocal condition numbers; singular -> NaN, rcond 0.
    ``overwrite``: ``mats`` may be destroyed (saves a temporary of its size)."""
    try:
        inv = np.linalg.inv(mats)
    except np.linalg.LinAlgError:
        inv = np.full(mats.shape, np.nan)
        for idx in np.ndindex(*mats.shape[:-2]):
            try:
                inv[idx] = np.linalg.inv(mats[idx])
            except np.linalg.LinAlgError:
                pass
    norm = (np.abs(mats, out=mats) if overwrite else np.abs(mats)).sum(axis=-2).max(axis=-1)
    norm_inv = np.abs(inv).sum(axis=-2).max(axis=-1)
    rc = 1.0 / (norm * norm_inv)
    return inv, np.where(np.isfinite(rc), rc, 0.0)


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
def evaluate_batch(lfr, values=None, *, chunk: int | None = None, strict: bool = True, progress=None):
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

    Returns
    -------
    StateSpaceBatch (dynamic LFR) or ndarray (N, p, m) (static LFR).  Ill-posed points
    are NaN; for a StateSpaceBatch their ``valid`` entry is False.
    """
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
