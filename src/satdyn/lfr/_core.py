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
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from .parameters import Block, Parameter

__all__ = ["blockdiag_open", "close", "canonical", "substitute"]

_LOOP_COND_LIMIT = 1e12


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
    TR, TSE = T[:, :q], T[:, q:]
    out = np.empty((q + F.shape[0], q + E.shape[1]))
    out[:q, :q] = P + Q @ (K @ TR)
    out[:q, q:] = Q @ (K @ TSE + E)
    out[q:, :q] = F @ TR
    out[q:, q:] = F @ TSE + H
    return out


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
