"""Order reduction of an LFR: removal of uncontrollable / unobservable channels.

First a structural pass deletes channels that, in the sparsity graph, no input
reaches or that reach no output.  Then two numerical reductions, both exact because
``delta I`` commutes with any change of basis inside a block, and both dropping channels that
carry ``w = 0`` whenever the loop is well posed:

* n-D (structured) Kalman reduction: the smallest block-diagonal subspace that
  contains the input directions and is invariant under the loop matrix (all blocks
  at once; reachability only through other channels, not from them), and its dual;
* 1-D (per block) Kalman reduction: for each block of the loop -- the states (1/s)
  and each parameter's repeated block ``delta I_r`` -- the other channels and the
  inputs/outputs are treated as external, and the block's channels are projected on
  the controllable subspace of ``(M_JJ, M_J,rest)`` and then on the observable
  subspace of ``(M_JJ, M_rest,J)``.  Blocks are swept until nothing changes.

For a single parameter this is the minimal realisation in that parameter.  Sizes
never grow; minimality is not guaranteed for several parameters (an open problem in
general).

The realisation is first balanced (power-of-2 diagonal scaling of channels, inputs
and outputs) so that the rank decisions do not depend on the model's units.

Arguments: ``lfr`` (LFR), ``tol`` rank tolerance of the subspace SVDs, relative to
the 2-norm of the balanced matrix ``[[A, B], [C, D]]``.  A parameter whose channels are
all removed disappears from ``blocks`` (pass ``strict=False`` to ``evaluate`` to keep
using value dictionaries that still name it).
"""

from __future__ import annotations

import numpy as np

from ._core import orth_range
from .lfr import LFR

__all__ = ["reduce"]


def _krylov(A: np.ndarray, B: np.ndarray, tol: float) -> np.ndarray:
    V = orth_range(B, tol)
    while 0 < V.shape[1] < A.shape[0]:
        W = orth_range(np.hstack([V, A @ V]), tol)
        if W.shape[1] == V.shape[1]:
            break
        V = W
    return V


def _group_slices(labels) -> list[tuple[int, int]]:
    out, start = [], 0
    for i in range(1, len(labels) + 1):
        if i == len(labels) or labels[i] != labels[start]:
            out.append((start, i))
            start = i
    return out


def _project(M, s, e, left, right):
    """Replace rows s:e by ``left.T @ rows`` and columns s:e by ``cols @ right``."""
    M = np.concatenate([M[:s], left.T @ M[s:e], M[e:]], axis=0)
    return np.concatenate([M[:, :s], M[:, s:e] @ right, M[:, e:]], axis=1)


def _balance(M: np.ndarray, q: int, sweeps: int = 6):
    """Diagonal (power-of-2) scaling of the loop channels (a similarity, which commutes
    with Delta) and of the inputs/outputs, so that the rank decisions do not depend on
    the units of the model.  Returns the scaled matrix and the output/input scales."""
    M = np.array(M)
    p, m = M.shape[0] - q, M.shape[1] - q
    out_scale, in_scale = np.ones(p), np.ones(m)
    for _ in range(sweeps):
        rows = np.abs(M[q:]).max(axis=1, initial=0.0)
        f_out = np.where(rows > 0, 2.0 ** -np.round(np.log2(np.where(rows > 0, rows, 1.0))), 1.0)
        M[q:] *= f_out[:, None]
        out_scale *= f_out
        cols = np.abs(M[:, q:]).max(axis=0, initial=0.0)
        f_in = np.where(cols > 0, 2.0 ** -np.round(np.log2(np.where(cols > 0, cols, 1.0))), 1.0)
        M[:, q:] *= f_in[None, :]
        in_scale *= f_in
        if q:
            off = np.abs(M[:q, :q] - np.diag(np.diag(M[:q, :q])))
            r = np.sqrt((off**2).sum(axis=1) + (M[:q, q:] ** 2).sum(axis=1))
            c = np.sqrt((off**2).sum(axis=0) + (M[q:, :q] ** 2).sum(axis=0))
            ok = (r > 0) & (c > 0)
            f = np.ones(q)
            f[ok] = 2.0 ** np.round(0.5 * np.log2(c[ok] / r[ok]))
            M[:q] *= f[:, None]
            M[:, :q] /= f[None, :]
    return M, out_scale, in_scale


def _structured_subspaces(A: np.ndarray, B: np.ndarray, slices, atol: float) -> list[np.ndarray]:
    """n-D (structured) reachable subspace: the smallest ``V = blockdiag(V_1, ..., V_K)``
    with ``range B`` in ``V`` and ``A V`` in ``V`` (block by block).  Returns the V_i."""
    V = [orth_range(B[s:e], atol) for s, e in slices]
    while True:
        basis = np.zeros((A.shape[0], sum(v.shape[1] for v in V)))
        col = 0
        for (s, e), v in zip(slices, V):
            basis[s:e, col:col + v.shape[1]] = v
            col += v.shape[1]
        AV = A @ basis
        grown = False
        for i, (s, e) in enumerate(slices):
            if V[i].shape[1] == e - s:
                continue
            W = orth_range(np.hstack([V[i], AV[s:e]]), atol)
            if W.shape[1] > V[i].shape[1]:
                V[i], grown = W, True
        if not grown:
            return V


def _project_structured(M: np.ndarray, slices, V_list) -> np.ndarray:
    # Blocks that keep all their channels keep their coordinates: rotating them would
    # needlessly destroy the sparsity the batch evaluation exploits.
    V_list = [np.eye(e - s) if v.shape[1] == e - s else v for (s, e), v in zip(slices, V_list)]
    q = slices[-1][1] if slices else 0
    T = np.zeros((q, sum(v.shape[1] for v in V_list)))
    col = 0
    for (s, e), v in zip(slices, V_list):
        T[s:e, col:col + v.shape[1]] = v
        col += v.shape[1]
    top = np.hstack([T.T @ M[:q, :q] @ T, T.T @ M[:q, q:]])
    bottom = np.hstack([M[q:, :q] @ T, M[q:, q:]])
    return np.vstack([top, bottom])


def _nd_pass(M, labels, atol):
    """One n-D controllability + observability reduction; returns (M, labels, changed)."""
    changed = False
    for kind in ("controllable", "observable"):
        slices = _group_slices(labels)
        q = len(labels)
        if not q:
            break
        if kind == "controllable":
            V = _structured_subspaces(M[:q, :q], M[:q, q:], slices, atol)
        else:
            V = _structured_subspaces(M[:q, :q].T, M[q:, :q].T, slices, atol)
        sizes = [v.shape[1] for v in V]
        if sum(sizes) < q:
            M = _project_structured(M, slices, V)
            labels = [labels[s] for (s, _), r in zip(slices, sizes) for _ in range(r)]
            changed = True
    return M, labels, changed


def _one_d_pass(M, labels, atol):
    """One sweep of 1-D (per block) reductions; returns (M, labels, changed)."""
    changed = False
    for kind in ("controllable", "observable"):
        start = 0
        for s0, e0 in _group_slices(labels):
            s, e = s0 - start, e0 - start
            rest_c = np.r_[0:s, e:M.shape[1]]
            rest_r = np.r_[0:s, e:M.shape[0]]
            Ajj = M[s:e, s:e]
            if kind == "controllable":
                V = _krylov(Ajj, M[s:e][:, rest_c], atol)
            else:
                V = _krylov(Ajj.T, M[rest_r][:, s:e].T, atol)
            r = V.shape[1]
            if r < e - s:
                M = _project(M, s, e, V, V)
                labels = labels[:s] + [labels[s]] * r + labels[e:]
                start += (e - s) - r
                changed = True
    return M, labels, changed


def _structural_pass(M, labels):
    """Delete channels that no input reaches or that reach no output in the sparsity
    graph of M (exact, and it keeps the remaining channels' coordinates)."""
    q = len(labels)
    if not q:
        return M, labels, False
    P = M[:q, :q] != 0.0
    reach = np.any(M[:q, q:] != 0.0, axis=1)
    while True:
        new = reach | np.any(P[:, reach], axis=1)
        if np.array_equal(new, reach):
            break
        reach = new
    seen = np.any(M[q:, :q] != 0.0, axis=0)
    while True:
        new = seen | np.any(P[seen, :], axis=0)
        if np.array_equal(new, seen):
            break
        seen = new
    keep = reach & seen
    if keep.all():
        return M, labels, False
    rows = np.r_[np.flatnonzero(keep), np.arange(q, M.shape[0])]
    cols = np.r_[np.flatnonzero(keep), np.arange(q, M.shape[1])]
    return M[np.ix_(rows, cols)], [lab for lab, k in zip(labels, keep) if k], True


def reduce(lfr: LFR, tol: float = 1e-10, *, method: str = "nd", states: bool = True) -> LFR:
    """LFR with the same input/output map and fewer channels (see module docstring).

    Parameters
    ----------
    tol : float
        Rank tolerance relative to the 2-norm of the balanced realisation.
    method : {"nd", "1d"}
        "nd" (default): structured n-D controllability/observability reduction, then
        1-D sweeps; "1d": 1-D per-block sweeps only.
    states : bool
        True (default): states are reduced too (minimal input/output map).  False:
        only Delta channels are reduced, the states are treated as external signals,
        so ``A(delta), B(delta), C(delta), D(delta)`` are unchanged at every point
        (what ``evaluate_batch`` and ``sample`` use).
    """
    if not isinstance(lfr, LFR):
        raise TypeError(f"reduce() needs an LFR; got {type(lfr).__name__}")
    if method not in ("nd", "1d"):
        raise ValueError(f"`method` must be 'nd' or '1d'; got {method!r}")
    if not isinstance(states, bool):
        raise TypeError(f"`states` must be a bool; got {states!r}")
    if not states:
        return _reduce_delta_only(lfr, tol, method)
    return _reduce(lfr, tol, method)


def _reduce_delta_only(lfr: LFR, tol: float, method: str) -> LFR:
    """Reduce the static LFR in Delta with [states; inputs] -> [states; outputs] as
    its external signals, then put the states back in the loop."""
    nx, q = lfr.nstates, lfr._nloop
    if q == nx:
        return lfr
    # Loop = Delta channels; external = states then the LFR's own inputs/outputs.
    rows = np.r_[nx:q, 0:nx, q:lfr._M.shape[0]]
    cols = np.r_[nx:q, 0:nx, q:lfr._M.shape[1]]
    static = LFR._make(lfr._M[np.ix_(rows, cols)], lfr._labels[nx:], [f"i{i}" for i in range(nx + lfr.ninputs)],
                       [f"o{i}" for i in range(nx + lfr.noutputs)], canonical=False, simplify=False)
    red = _reduce(static, tol, method)
    if red is static:
        return lfr  # nothing removed
    nd = red.ndelta
    back_r = np.r_[nd:nd + nx, 0:nd, nd + nx:red._M.shape[0]]
    back_c = np.r_[nd:nd + nx, 0:nd, nd + nx:red._M.shape[1]]
    return LFR._make(red._M[np.ix_(back_r, back_c)], [None] * nx + list(red._labels), lfr.input_names,
                     lfr.output_names, lfr._igroups, lfr._ogroups, canonical=False, simplify=False)


def _reduce(lfr: LFR, tol: float, method: str) -> LFR:
    labels = list(lfr._labels)
    M, out_scale, in_scale = _balance(lfr._M, len(labels))
    # Absolute threshold relative to the size of the whole realisation.
    atol = tol * max(float(np.linalg.norm(M, 2)) if M.size else 0.0, np.finfo(float).tiny)
    M, labels, _ = _structural_pass(M, labels)
    for _ in range(20):
        changed = False
        if method == "nd":
            M, labels, changed = _nd_pass(M, labels, atol)
        M, labels, changed_1d = _one_d_pass(M, labels, atol)
        if not (changed or changed_1d):
            break
    q = len(labels)
    if q == lfr._nloop:
        return lfr  # nothing removed: keep the original coordinates (and sparsity)
    M[q:] /= out_scale[:, None]
    M[:, q:] /= in_scale[None, :]
    return LFR._make(M, labels, lfr.input_names, lfr.output_names, lfr._igroups, lfr._ogroups, canonical=False,
                     simplify=False)
