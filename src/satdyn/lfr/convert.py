"""Conversions between LFRs and python-control objects; state-space factories.

Functions
---------
from_statespace(sys)        control.StateSpace (continuous) -> LFR, names kept
ss(A, B, C, D, ...)         LFR from state-space matrices whose entries may be LFRs / Parameters
integrator(n, ...)          n integrators 1/s
to_statespace(A, B, C, D, inputs, outputs) -> control.StateSpace
"""

from __future__ import annotations

import numpy as np

from .lfr import LFR, as_lfr
from .signals import expand_names

__all__ = ["from_statespace", "ss", "integrator", "to_statespace"]


def from_statespace(sys) -> LFR:
    """LFR of a continuous-time ``control.StateSpace`` (no Delta); signal names kept."""
    dt = getattr(sys, "dt", 0)
    if dt not in (0, None) and dt is not False:
        raise ValueError(f"only continuous-time systems convert to an LFR; got dt={dt}")
    A, B, C, D = (np.asarray(getattr(sys, k), dtype=float) for k in "ABCD")
    n, m, p = A.shape[0], D.shape[1], D.shape[0]
    M = np.block([[A.reshape(n, n), B.reshape(n, m)], [C.reshape(p, n), D]])
    ins = tuple(getattr(sys, "input_labels", None) or expand_names(None, m, "u")[0])
    outs = tuple(getattr(sys, "output_labels", None) or expand_names(None, p, "y")[0])
    return LFR._make(M, [None] * n, ins, outs, canonical=False)


def to_statespace(A, B, C, D, inputs, outputs):
    """``control.StateSpace`` with the given names (continuous time)."""
    import control

    return control.StateSpace(A, B, C, D, inputs=list(inputs), outputs=list(outputs))


def ss(A, B, C, D, *, inputs=None, outputs=None) -> LFR:
    """LFR of ``x' = A x + B u, y = C x + D u`` where A, B, C, D may contain LFRs.

    Each argument is an array, an LFR, a Parameter or a nested list mixing them
    (static entries only).  The result is ``Fu([[A, B], [C, D]], I/s)`` with the
    Delta of the entries kept.
    """
    parts = [as_lfr(x) for x in (A, B, C, D)]
    if any(not x.is_static for x in parts):
        raise ValueError("ss(): A, B, C, D must be static (no states)")
    a, b, c, d = parts
    n = a.noutputs
    if a.shape != (n, n):
        raise ValueError(f"ss(): `A` must be square; got {a.shape}")
    if b.noutputs != n or c.ninputs != n or d.shape != (c.noutputs, b.ninputs):
        raise ValueError(
            f"ss(): incompatible shapes A {a.shape}, B {b.shape}, C {c.shape}, D {d.shape}"
        )
    from .algebra import hstack, vstack

    top = hstack([a, b]) if b.ninputs else a
    bottom = hstack([c, d]) if b.ninputs else c
    whole = vstack([top, bottom]) if c.noutputs else top
    q = whole._nloop
    m, p = b.ninputs, c.noutputs
    # Loop channels become [states (the first n inputs/outputs), Delta channels].
    M = whole._M
    rows = list(range(q, q + n)) + list(range(q)) + list(range(q + n, q + n + p))
    cols = list(range(q, q + n)) + list(range(q)) + list(range(q + n, q + n + m))
    ins, ig = expand_names(inputs, m, "u", "inputs")
    outs, og = expand_names(outputs, p, "y", "outputs")
    return LFR._make(M[np.ix_(rows, cols)], [None] * n + list(whole._labels), ins, outs, ig, og)


def integrator(n: int = 1, *, inputs=None, outputs=None) -> LFR:
    """``n`` integrators ``1/s`` (A = 0, B = C = I, D = 0)."""
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"`n` must be a positive integer; got {n!r}")
    n = int(n)
    M = np.block([[np.zeros((n, n)), np.eye(n)], [np.eye(n), np.zeros((n, n))]])
    ins, ig = expand_names(inputs, n, "u", "inputs")
    outs, og = expand_names(outputs, n, "y", "outputs")
    return LFR._make(M, [None] * n, ins, outs, ig, og, canonical=False)
