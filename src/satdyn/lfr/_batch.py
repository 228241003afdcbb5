"""Batched closing of the Delta loop of an LFR at N points (used by ``evaluate``).

For every point, ``(I - Delta D_zw) W = Delta [C_z, D_zu]`` is solved and the closed
loop ``[[A, B_u], [C_y, D_yu]] + [B_w; D_yw] W`` formed.  The structure of ``D_zw`` is
analysed once per LFR (cached; the LFR is immutable): strongly connected components
(scipy.sparse.csgraph) ordered by dependency *levels*; within a level, free channels
and 1-channel loops are a per-channel gain, 2-channel loops (Cayley rotations) a
closed-form 2x2 gain, larger loops a batched inverse -- all gains of a chunk of
points computed at once, before the sweep.  Levels are grouped into super-blocks of
~32 channels, joined by small *cut states* (a semi-separable factorisation of the
strictly lower part of ``D_zw``: products of LFRs couple through the few signals
between factors), so that each level is one product on ``[cut state; earlier w of the
super-block]`` and the work stays in cache.  The sweep carries the numerical rank of
``[C_z, D_zu]`` columns, and runs on the transposed LFR when that carries fewer
(``F_u(M, Delta)^T = F_u(M^T, Delta)`` for diagonal Delta).  A dense ``D_zw`` is one
component: a batched inverse.

Arguments named in this module: ``lfr`` (LFR: nx states, ndelta channels, m inputs,
p outputs), ``d`` normalised deltas (ndelta, N), ``dp`` the same in schedule order,
``sch`` a :class:`_Schedule`, ``out`` (N, nx + p, nx + m), ``work`` dict of buffers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph

__all__: list = []  # private helpers of satdyn.lfr.evaluate

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
    loop_groups: dict         # size >= 2 -> (unique loops: perm positions (u, size), blocks (u, size, size),
                              #   index (count,) of each loop's unique loop, or None if all distinct)
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
    # Loops with the same parameters on the same channels and the same D_bb (e.g. the two
    # copies of a rotation in blockdiag(R, R)) have the same gains at every point: their
    # gains are computed once (exactly the same numbers) and gathered.
    owner = np.repeat(np.arange(len(lfr.blocks)), [b.size for b in lfr.blocks]) if nd else np.zeros(0, int)
    loop_groups, all_loops = {}, {}
    for size, starts in group_items.items():
        pos = np.array(starts, dtype=int)[:, None] + np.arange(size)
        blocks = np.stack([Dp[s:s + size, s:s + size] for s in starts])
        all_loops[size] = (pos, blocks)
        seen: dict = {}
        index = np.array([seen.setdefault((tuple(owner[perm_a[p]]), b.tobytes()), len(seen))
                          for p, b in zip(pos, blocks)], dtype=int)
        first_of = np.unique(index, return_index=True)[1]
        loop_groups[size] = (pos[first_of], blocks[first_of], None if len(seen) == len(pos) else index)
    spans, first = [], 0
    for k, (_l0, l1, _, _) in enumerate(levels):
        s0 = levels[first][0]
        if l1 - s0 >= _SUPERBLOCK or k == len(levels) - 1:
            spans.append((s0, l1, first, k + 1))
            first = k + 1
    superblocks = _cut_states(Dp, spans)
    for s0, _s1, lev0, lev1, r_in, U_in, _ in superblocks:
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
    loop_blocks = {size: (perm_a[pos], blocks) for size, (pos, blocks) in all_loops.items()}
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
    for size, (pos, Dbb, index) in sch.loop_groups.items():
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
        if index is not None:  # gather the shared gains of duplicate loops
            G = G[index] if size == 2 else (G[0][index], G[1][index])
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
