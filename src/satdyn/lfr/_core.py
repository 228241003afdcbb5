"""Matrix-level LFR operations shared by the algebra and the interconnection code.

An LFR is held as one "full" matrix

    M = [[A, B_w, B_u],        loop channels: q = nx + ndelta (states first, then
         [C_z, D_zw, D_zu],    the Delta channels grouped by parameter), then p outputs
         [C_y, D_yw, D_yu]]    and m inputs;  shape (q + p, q + m)

with one label per loop channel (``None`` for a state, the Parameter otherwise).
Every interconnection is "block-diagonal open system + static connection":

    u_all = K y_all + E r,    y_ext = F y_all + H r

closed by :func:`close` (one linear solve with ``I - S K``, S = feedthrough of the open
system, which must be invertible: the interconnection is well posed at the nominal).

Connecting many blocks at once (:func:`close_blocks`, what ``interconnect`` and hence
``satdyn.titop.connect`` use) never forms the dense open system when it has more than
``_DENSE_MAX_SIGNALS`` block outputs: S is block diagonal and K a sparse wiring, so
``I - S K`` is factorised by a sparse LU (SuperLU) and its condition number estimated
(1-norm, Hager-Higham, deterministic) instead of computed by an SVD.  The cost then grows
about linearly with the number of blocks of a tree-like assembly instead of with the cube
of its number of signals; the closed matrix is the same up to round-off.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg

from .parameters import Block, Parameter

__all__ = ["blockdiag_open", "close", "close_blocks", "canonical", "substitute"]

_LOOP_COND_LIMIT = 1e12
# Above this many block outputs, close_blocks uses the sparse path (below it the dense
# path is as fast and keeps the historical round-off of every small interconnection).
_DENSE_MAX_SIGNALS = 600


def blockdiag_open(lfrs) -> tuple[np.ndarray, list, int, int]:
    """Full matrix of the block-diagonal union of ``lfrs`` (their loops concatenated)."""
    qs = [x._nloop for x in lfrs]
    ps = [x.noutputs for x in lfrs]
    ms = [x.ninputs for x in lfrs]
    q, p, m = sum(qs), sum(ps), sum(ms)
    M = np.zeros((q + p, q + m))
    labels: list = []
    oq = op = om = 0
    for x, qi, pi, mi in zip(lfrs, qs, ps, ms):
        F = x._M
        M[oq:oq + qi, oq:oq + qi] = F[:qi, :qi]
        M[oq:oq + qi, q + om:q + om + mi] = F[:qi, qi:]
        M[q + op:q + op + pi, oq:oq + qi] = F[qi:, :qi]
        M[q + op:q + op + pi, q + om:q + om + mi] = F[qi:, qi:]
        labels.extend(x._labels)
        oq, op, om = oq + qi, op + pi, om + mi
    return M, labels, p, m


def close(M: np.ndarray, q: int, K, E, F, H) -> np.ndarray:
    """Close ``u_all = K y_all + E r``, ``y_ext = F y_all + H r`` around the open ``M``."""
    P, Q = M[:q, :q], M[:q, q:]
    R, S = M[q:, :q], M[q:, q:]
    n_all = S.shape[0]
    if not np.any(K):
        # No feedback (stacking, unconnected blocks): I - S K = I, nothing to solve.
        T = np.hstack([R, S @ E])
        return _assemble(P, Q, K, E, F, H, T, q)
    loop = np.eye(n_all) - S @ K
    if n_all:
        cond = np.linalg.cond(loop)
        if not np.isfinite(cond) or cond > _LOOP_COND_LIMIT:
            raise ValueError(
                "the interconnection has an algebraic loop that is singular at the nominal "
                f"feedthrough (cond(I - D K) = {cond:.3g}); it is not well posed"
            )
        T = np.linalg.solve(loop, np.hstack([R, S @ E]))
    else:
        T = np.zeros((0, q + E.shape[1]))
    return _assemble(P, Q, K, E, F, H, T, q)


def _assemble(P, Q, K, E, F, H, T, q: int) -> np.ndarray:
    """Closed full matrix from ``T = (I - S K)^{-1} [R, S E]`` (dense or sparse P..F)."""
    TR, TSE = T[:, :q], T[:, q:]
    out = np.empty((q + F.shape[0], q + E.shape[1]))
    out[:q, :q] = P + Q @ (K @ TR)
    out[:q, q:] = Q @ (K @ TSE + E)
    out[q:, :q] = F @ TR
    out[q:, q:] = F @ TSE + H
    return out


def close_blocks(lfrs, K, E, F, H) -> tuple[np.ndarray, list]:
    """Close ``u_all = K y_all + E r``, ``y_ext = F y_all + H r`` around the block-diagonal
    union of ``lfrs``; returns the closed full matrix and the loop labels.

    ``K`` (m_all, p_all), ``E`` (m_all, r), ``F`` (n_ext, p_all) may be scipy.sparse
    matrices; ``H`` (n_ext, r) is dense.  Dense path (:func:`blockdiag_open` + :func:`close`)
    up to ``_DENSE_MAX_SIGNALS`` block outputs, sparse path above (module docstring).
    """
    p_all = sum(x.noutputs for x in lfrs)
    if p_all <= _DENSE_MAX_SIGNALS:
        M, labels, _, _ = blockdiag_open(lfrs)
        dense = [A.toarray() if scipy.sparse.issparse(A) else np.asarray(A, float) for A in (K, E, F)]
        return close(M, len(labels), *dense, np.asarray(H, float)), labels
    return _close_sparse(lfrs, K, E, F, np.asarray(H, float))


def _sparse_blockdiag(parts, shape) -> scipy.sparse.csr_matrix:
    """Sparse matrix of ``shape`` with the dense ``parts`` [(row0, col0, block)] placed."""
    rows, cols, vals = [np.zeros(0, int)], [np.zeros(0, int)], [np.zeros(0)]
    for r0, c0, block in parts:
        i, j = np.nonzero(block)
        rows.append(i + r0)
        cols.append(j + c0)
        vals.append(block[i, j])
    return scipy.sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=shape)


def _close_sparse(lfrs, K, E, F, H) -> tuple[np.ndarray, list]:
    """:func:`close_blocks` without forming the dense open system (sparse LU of I - S K)."""
    qs = [x._nloop for x in lfrs]
    ps = [x.noutputs for x in lfrs]
    ms = [x.ninputs for x in lfrs]
    q, p_all, m_all = sum(qs), sum(ps), sum(ms)
    K, E, F = (scipy.sparse.csr_matrix(A) for A in (K, E, F))
    P = np.zeros((q, q))
    Q_parts, R_parts, S_parts, labels = [], [], [], []
    oq = op = om = 0
    for x, qi, pi, mi in zip(lfrs, qs, ps, ms):
        Mx = x._M
        P[oq:oq + qi, oq:oq + qi] = Mx[:qi, :qi]
        Q_parts.append((oq, om, Mx[:qi, qi:]))
        R_parts.append((op, oq, Mx[qi:, :qi]))
        S_parts.append((op, om, Mx[qi:, qi:]))
        labels.extend(x._labels)
        oq, op, om = oq + qi, op + pi, om + mi
    Q = _sparse_blockdiag(Q_parts, (q, m_all))
    R = _sparse_blockdiag(R_parts, (p_all, q))
    S = _sparse_blockdiag(S_parts, (p_all, m_all))
    loop = (scipy.sparse.identity(p_all, format="csr") - S @ K).tocsc()
    try:
        lu = scipy.sparse.linalg.splu(loop)
        cond = _cond1_estimate(loop, lu)
    except RuntimeError:  # SuperLU: "Factor is exactly singular"
        cond = np.inf
    if not np.isfinite(cond) or cond > _LOOP_COND_LIMIT:
        raise ValueError(
            "the interconnection has an algebraic loop that is singular at the nominal "
            f"feedthrough (1-norm estimate of cond(I - D K) = {cond:.3g}); it is not well posed"
        )
    T = lu.solve(np.hstack([R.toarray(), (S @ E).toarray()]))
    return _assemble(P, Q, K, E.toarray(), F, H, T, q), labels


def _cond1_estimate(A, lu, max_iter: int = 5) -> float:
    """``||A||_1 ||A^{-1}||_1`` with ``||A^{-1}||_1`` estimated from the LU factors
    (Hager's method with Higham's extra test vector, as LAPACK ``xLACON``; a lower bound,
    usually within a factor 3, deterministic)."""
    n = A.shape[0]
    norm_a = float(abs(A).sum(axis=0).max())
    x = np.full(n, 1.0 / n)
    est = 0.0
    for k in range(max_iter):
        y = lu.solve(x)
        est = float(np.abs(y).sum())
        xi = np.where(y >= 0.0, 1.0, -1.0)
        z = lu.solve(xi, trans="T")
        j = int(np.argmax(np.abs(z)))
        if k > 0 and abs(z[j]) <= z @ x:
            break
        x = np.zeros(n)
        x[j] = 1.0
    i = np.arange(n)
    b = np.where(i % 2 == 0, 1.0, -1.0) * (1.0 + i / max(n - 1, 1))   # Higham's alternating vector
    est = max(est, 2.0 * float(np.abs(lu.solve(b)).sum()) / (3.0 * n))
    return norm_a * est


def canonical(M: np.ndarray, labels: list) -> tuple[np.ndarray, int, tuple[Block, ...], tuple]:
    """Reorder the loop channels: states first, then each parameter's channels together
    (parameters in order of first appearance).  Parameters sharing a name must be equal."""
    q = len(labels)
    states = [i for i, lab in enumerate(labels) if lab is None]
    order: dict[str, list[int]] = {}
    params: dict[str, Parameter] = {}
    for i, lab in enumerate(labels):
        if lab is None:
            continue
        known = params.get(lab.name)
        if known is None:
            params[lab.name] = lab
            order[lab.name] = [i]
        elif known != lab:
            raise ValueError(
                f"two parameters named {lab.name!r} with different data: {known} and {lab}"
            )
        else:
            order[lab.name].append(i)
    perm = states + [i for name in order for i in order[name]]
    blocks = tuple(Block(params[name], len(idx)) for name, idx in order.items())
    new_labels = tuple([None] * len(states) + [params[name] for name in order for _ in order[name]])
    if perm != list(range(q)):
        rows = np.r_[perm, np.arange(q, M.shape[0])].astype(int)
        cols = np.r_[perm, np.arange(q, M.shape[1])].astype(int)
        M = M[np.ix_(rows, cols)]
    return M, len(states), blocks, new_labels


def substitute(M: np.ndarray, q: int, channels, gains) -> np.ndarray:
    """Close ``w_I = diag(gains) z_I`` on loop channels ``I``; returns the full matrix
    with those channels removed (the partial upper LFT)."""
    channels = np.asarray(channels, dtype=int)
    keep = np.setdiff1d(np.arange(M.shape[0]), channels)
    keep_c = np.setdiff1d(np.arange(M.shape[1]), channels)
    g = np.asarray(gains, dtype=float)
    MII = M[np.ix_(channels, channels)]
    loop = np.eye(len(channels)) - g[:, None] * MII
    cond = np.linalg.cond(loop) if len(channels) else 1.0
    if not np.isfinite(cond) or cond > _LOOP_COND_LIMIT:
        raise ValueError(f"partial substitution is ill posed (cond(I - Delta M11) = {cond:.3g})")
    X = np.linalg.solve(loop, g[:, None] * M[np.ix_(channels, keep_c)])
    return M[np.ix_(keep, keep_c)] + M[np.ix_(keep, channels)] @ X


def orth_range(X: np.ndarray, atol: float) -> np.ndarray:
    """Orthonormal basis of the range of X (SVD; singular values above ``atol``)."""
    if X.size == 0:
        return np.zeros((X.shape[0], 0))
    U, s, _ = scipy.linalg.svd(X, full_matrices=False)
    return U[:, s > atol]
