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


def reduce(lfr: LFR, tol: float = 1e-10) -> LFR:
    """LFR with the same input/output map and no uncontrollable/unobservable channels
    (per-block Kalman reduction; see module docstring)."""
    if not isinstance(lfr, LFR):
        raise TypeError(f"reduce() needs an LFR; got {type(lfr).__name__}")
    labels = list(lfr._labels)
    M, out_scale, in_scale = _balance(lfr._M, len(labels))
    # Absolute threshold relative to the size of the whole realisation.
    atol = tol * max(float(np.linalg.norm(M, 2)) if M.size else 0.0, np.finfo(float).tiny)
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
                    V = _krylov(Ajj, M[s:e][:, rest_c], atol)
                else:
                    V = _krylov(Ajj.T, M[rest_r][:, s:e].T, atol)
                r = V.shape[1]
                if r < e - s:
                    M = _project(M, s, e, V, V)
                    labels = labels[:s] + [labels[s]] * r + labels[e:]
                    start += (e - s) - r
                    changed = True
                del q
        if not changed:
            break
    q = len(labels)
    M[q:] /= out_scale[:, None]
    M[:, q:] /= in_scale[None, :]
    return LFR._make(M, labels, lfr.input_names, lfr.output_names, lfr._igroups, lfr._ogroups, canonical=False)
