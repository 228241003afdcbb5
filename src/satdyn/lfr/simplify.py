"""Automatic simplification of an LFR's Delta channels (cheap and exact, as MATLAB's ``uss``).

Every operation that builds an LFR (parameter arithmetic, ``ss``, ``@``, ``*``, ``+``,
stacking, ``feedback``, ``lft``, ``interconnect``, ``inv``, selection) ends with
:func:`simplify_matrix`.  It looks at the LFR as a *static* LFR in the Delta channels,
with the states treated as external signals: the closed matrices
``[[A(delta), B(delta)], [C(delta), D(delta)]]`` are unchanged at every parameter
point, so poles, internal stability and every evaluation stay exactly what they were
(up to round-off of the merges).  Three reductions, repeated until nothing changes:

* **dead channels**: a Delta channel that no input or state reaches, or that reaches
  no output or state (in the sparsity graph of the Delta loop), carries ``w = 0`` and
  is deleted -- ``0 * p`` is the constant 0;
* **equal rows** (same parameter): if row ``j`` is ``c`` times row ``i`` outside the
  pair's own 2x2 loop ``M_pp`` and ``[1, c]^T`` is an eigenvector of ``M_pp``, then
  ``z_j = c z_i`` and ``w_j = c w_i``, so channel ``j`` is folded into ``i`` (column
  ``i`` += ``c`` column ``j``) -- one parameter expression fed by the same signal is
  one set of channels;
* **equal columns** (same parameter, the transpose): ``w_i`` and ``w_j`` act only
  through ``w_i + c w_j``, so row ``i`` += ``c`` row ``j`` and ``j`` is deleted -- a
  common factor of a sum (``(k/m) x1 - (k/m) x2``) is shared.
The 2x2 condition holds for every pair when the parameter's block loop is ``lambda I``
(the self-loops of inverses and of asymmetric ranges).

Each is an exact special case of the 1-D Kalman reduction of :func:`satdyn.lfr.reduce`
(a rank-1 dependence found by comparing normalised rows), keeps the coordinates of
every other channel (the sparsity the batch evaluation exploits), and costs
O(q (q + m)) per pass for q loop channels and m inputs.  Proportionality is decided
with a relative tolerance of ``_RTOL`` (a few hundred ulps) per row; entries that cancel
to below round-off of their operands in a merge are set to exact zeros.

Arguments named in this module: ``M`` full matrix ``[[A, B], [C, D]]`` (q + p, q + m)
with the loop channels first (states, then Delta by parameter), ``labels`` one per loop
channel (None for a state, the Parameter otherwise).
"""

from __future__ import annotations

import contextlib
import contextvars

import numpy as np

__all__ = ["simplify_matrix", "simplify", "auto_simplify", "auto_simplify_enabled"]

_RTOL = 1e-13          # proportionality of two rows / columns, relative to their size
_CANCEL = 64 * np.finfo(float).eps   # a merged entry below this share of its operands is 0
_MAX_PASSES = 50
_AUTO = contextvars.ContextVar("satdyn_lfr_auto_simplify", default=True)


def auto_simplify_enabled() -> bool:
    """Whether LFR operations currently simplify their result (default True)."""
    return _AUTO.get()


@contextlib.contextmanager
def auto_simplify(enabled: bool):
    """Context manager turning the automatic simplification of LFR operations on or off
    (as MATLAB's ``AutoSimplify`` 'basic' / 'off'), e.g. to see the raw realisation::

        with auto_simplify(False):
            G = ss(A, B, C, D)      # every channel of every entry kept
    """
    if not isinstance(enabled, bool):
        raise TypeError(f"auto_simplify(): `enabled` must be a bool; got {enabled!r}")
    token = _AUTO.set(enabled)
    try:
        yield
    finally:
        _AUTO.reset(token)


def simplify_matrix(M: np.ndarray, labels) -> tuple[np.ndarray, list]:
    """Simplified full matrix and labels (see the module docstring).  ``M`` is not
    modified; the states (``None`` labels) keep their coordinates and number."""
    labels = list(labels)
    if sum(lab is not None for lab in labels) == 0:
        return M, labels
    M = np.array(M, dtype=float)
    for _ in range(_MAX_PASSES):
        M, labels, dead = _drop_dead(M, labels)
        M, labels, rows = _merge(M, labels, transpose=False)
        M, labels, cols = _merge(M, labels, transpose=True)
        if not (dead or rows or cols):
            break
    return M, labels


def simplify(lfr):
    """The LFR with dead and duplicated Delta channels removed (what every operation
    already does; useful on an LFR built with the raw constructor)."""
    from .lfr import LFR

    if not isinstance(lfr, LFR):
        raise TypeError(f"simplify() needs an LFR; got {type(lfr).__name__}")
    M, labels = simplify_matrix(lfr._M, lfr._labels)
    return LFR._make(M, labels, lfr.input_names, lfr.output_names, lfr._igroups, lfr._ogroups,
                     canonical=False, simplify=False)


def _drop_dead(M, labels):
    """Delete Delta channels not reached from inputs/states or not reaching outputs/states."""
    q = len(labels)
    delta = np.array([lab is not None for lab in labels], dtype=bool)
    nz = M != 0.0
    loop = nz[:q, :q] & delta[None, :] & delta[:, None]       # Delta -> Delta edges only
    # Sources: inputs and states feeding a Delta row; sinks: outputs and states reading it.
    reach = delta & (nz[:q, q:].any(axis=1) | (nz[:q, :q] & ~delta[None, :]).any(axis=1))
    seen = delta & (nz[q:, :q].any(axis=0) | (nz[:q, :q] & ~delta[:, None]).any(axis=0))
    reach, seen = _closure(loop, reach), _closure(loop.T, seen)
    dead = delta & ~(reach & seen)
    if not dead.any():
        return M, labels, False
    keep_loop = np.flatnonzero(~dead)
    rows = np.r_[keep_loop, np.arange(q, M.shape[0])]
    cols = np.r_[keep_loop, np.arange(q, M.shape[1])]
    return M[np.ix_(rows, cols)], [labels[i] for i in keep_loop], True


def _closure(edges: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Channels reachable from ``start`` along ``edges[i, j]`` (j feeds i)."""
    reached = start.copy()
    frontier = start.copy()
    while frontier.any():
        new = edges[:, frontier].any(axis=1) & ~reached
        reached |= new
        frontier = new
    return reached


def _merge(M, labels, transpose: bool):
    """Fold proportional rows (or columns) of one parameter's channels into one."""
    if transpose:
        M2, labels2, changed = _merge(M.T, labels, transpose=False)
        return M2.T, labels2, changed
    q = len(labels)
    drop: list[int] = []
    start = 0
    for i in range(1, q + 1):
        if i < q and labels[i] is labels[start]:
            continue
        if labels[start] is not None and i - start > 1:
            _merge_block(M, range(start, i), drop)
        start = i
    if not drop:
        return M, labels, False
    keep = np.setdiff1d(np.arange(q), drop)
    rows = np.r_[keep, np.arange(q, M.shape[0])]
    cols = np.r_[keep, np.arange(q, M.shape[1])]
    return M[np.ix_(rows, cols)], [labels[i] for i in keep], True


def _merge_block(M, channels, drop: list) -> None:
    """In place: fold row j of the block into an earlier row i when ``z_j = c z_i``.

    With ``p = (i, j)`` and ``M_pp`` their 2x2 loop: if row j equals ``c`` row i on every
    column outside ``p`` and ``M_pp [1, c]^T = mu [1, c]^T``, then ``w_j = c w_i``
    solves the loop, so column i becomes ``col_i + c col_j`` (rows outside p), the
    self-loop of i becomes ``mu``, and channel j is zeroed (dead, deleted by the caller).
    A block whose loop is ``lambda I`` (the self-loops of inverses and asymmetric
    ranges) satisfies the 2x2 condition for every pair.
    """
    s, e = channels.start, channels.stop
    outside = np.r_[0:s, e:M.shape[1]]
    R = M[s:e, outside]
    scale = np.abs(R).max(axis=1, initial=0.0)
    live = scale > 0.0          # rows fed only from their own block are left to reduce()
    if np.count_nonzero(live) < 2:
        return
    # Normalise each row by its first significant entry and group equal patterns
    # (vectorised; only the few candidate pairs are checked one by one below).
    significant = np.abs(R) > _RTOL * scale[:, None]
    pivot = np.argmax(significant, axis=1)
    idx = np.arange(e - s)
    with np.errstate(divide="ignore", invalid="ignore"):
        normalised = np.where(significant, R / R[idx, pivot][:, None], 0.0)
    # One number per row: equal rounded rows give bit-equal hashes (same operations);
    # a collision only costs a failed check in _fold.
    weights = np.cos(np.arange(R.shape[1]) * 0.7548776662466927)
    hashes = np.round(normalised, 9) @ weights
    hashes[~live] = np.nan
    _, group, counts = np.unique(hashes, return_inverse=True, return_counts=True)
    group = group.ravel()
    for g in np.flatnonzero(counts > 1):
        members = [s + int(k) for k in np.flatnonzero((group == g) & live)]
        kept: list[int] = []
        for j in members:
            if not any(_fold(M, i, j, outside[pivot[j - s]], scale[j - s]) for i in kept):
                kept.append(j)
            else:
                drop.append(j)


def _fold(M, i: int, j: int, pivot_col: int, scale: float) -> bool:
    """Fold channel j into i if ``z_j = c z_i`` (see :func:`_merge_block`); True if done."""
    c = M[j, pivot_col] / M[i, pivot_col]
    others = np.r_[0:i, i + 1:j, j + 1:M.shape[1]] if i < j else np.r_[0:j, j + 1:i, i + 1:M.shape[1]]
    if np.max(np.abs(M[j, others] - c * M[i, others])) > 4 * _RTOL * scale:
        return False
    mu = M[i, i] + c * M[i, j]
    residual = M[j, i] + c * M[j, j] - c * mu
    if abs(residual) > 4 * _RTOL * (abs(M[j, i]) + abs(c * M[j, j]) + abs(c * mu)):
        return False
    rows = np.r_[0:i, i + 1:j, j + 1:M.shape[0]] if i < j else np.r_[0:j, j + 1:i, i + 1:M.shape[0]]
    merged = M[rows, i] + c * M[rows, j]
    tiny = np.abs(merged) <= _CANCEL * (np.abs(M[rows, i]) + np.abs(c * M[rows, j]))
    merged[tiny] = 0.0
    M[rows, i] = merged
    M[i, i] = mu
    M[:, j] = 0.0
    M[j] = 0.0
    return True
