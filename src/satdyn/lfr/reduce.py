"""Order reduction of an LFR: removal of uncontrollable / unobservable channels.

One-dimensional (per block) Kalman reduction.  For each block of the loop -- the
states (1/s) and each parameter's repeated block ``delta I_r`` -- the other
channels and the inputs/outputs are treated as external, and the block's channels
are projected on the controllable subspace of ``(M_JJ, M_J,rest)`` and then on the
observable subspace of ``(M_JJ, M_rest,J)``.  This is exact because ``delta I``
commutes with any change of basis of the block's channels; discarded channels carry
``w = 0`` whenever the loop is well posed.  Blocks are swept until nothing changes.
For a single parameter this is the minimal realisation in that parameter; sizes
never grow.  (n-D reduction over several blocks at once is not implemented.)

Arguments: ``lfr`` (LFR), ``tol`` relative rank tolerance of the subspace SVDs.
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


def reduce(lfr: LFR, tol: float = 1e-10) -> LFR:
    """LFR with the same input/output map and no uncontrollable/unobservable channels
    (per-block Kalman reduction; see module docstring)."""
    if not isinstance(lfr, LFR):
        raise TypeError(f"reduce() needs an LFR; got {type(lfr).__name__}")
    M = np.array(lfr._M)
    labels = list(lfr._labels)
    scale = max(1.0, float(np.abs(M).max(initial=0.0)))
    for _ in range(20):
        changed = False
        for kind in ("controllable", "observable"):
            start = 0
            for s0, e0 in _group_slices(labels):
                s, e = s0 - start, e0 - start
                q = len(labels)
                rest_c = np.r_[0:s, e:M.shape[1]]
                rest_r = np.r_[0:s, e:M.shape[0]]
                Ajj = M[s:e, s:e]
                if kind == "controllable":
                    V = _krylov(Ajj, M[s:e][:, rest_c], tol * scale / max(scale, 1.0))
                else:
                    V = _krylov(Ajj.T, M[rest_r][:, s:e].T, tol * scale / max(scale, 1.0))
                r = V.shape[1]
                if r < e - s:
                    M = _project(M, s, e, V, V)
                    labels = labels[:s] + [labels[s]] * r + labels[e:]
                    start += (e - s) - r
                    changed = True
                del q
        if not changed:
            break
    return LFR._make(M, labels, lfr.input_names, lfr.output_names, lfr._igroups, lfr._ogroups, canonical=False)
