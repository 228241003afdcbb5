"""Concatenation of LFRs: ``hstack``, ``vstack``, ``blockdiag`` (numpy semantics).

Each takes a sequence of LFRs, Parameters, numbers, 2-D arrays or
``control.StateSpace`` objects.  The Delta of the result is the union of the
operands' Deltas (channels of one parameter merged, never duplicated by the
stacking itself).  Signal names are concatenated when they stay unique, otherwise
they fall back to python-control style defaults ``u[i]`` / ``y[i]``.
"""

from __future__ import annotations

import numpy as np

from . import _core
from .lfr import LFR, as_lfr

__all__ = ["hstack", "vstack", "blockdiag"]


def _operands(items, what: str) -> list[LFR]:
    items = list(items)
    if not items:
        raise ValueError(f"{what} needs at least one operand")
    return [as_lfr(x) for x in items]


def _union_groups(parts, attr: str) -> dict:
    out: dict = {}
    for x in parts:
        out.update(getattr(x, attr))
    return out


def hstack(items) -> LFR:
    """``[X1, X2, ...]``: same number of outputs; inputs concatenated."""
    xs = _operands(items, "hstack")
    p = xs[0].noutputs
    if any(x.noutputs != p for x in xs):
        raise ValueError(f"hstack: all operands need the same number of outputs; got {[x.shape for x in xs]}")
    M, labels, p_all, m_all = _core.blockdiag_open(xs)
    F = np.hstack([np.eye(p)] * len(xs))
    out = _core.close(M, len(labels), np.zeros((m_all, p_all)), np.eye(m_all), F, np.zeros((p, m_all)))
    ins = tuple(n for x in xs for n in x.input_names)
    return LFR._make(out, labels, ins, xs[0].output_names, _union_groups(xs, "_igroups"), xs[0]._ogroups)


def vstack(items) -> LFR:
    """``[X1; X2; ...]``: same number of inputs; outputs concatenated."""
    xs = _operands(items, "vstack")
    m = xs[0].ninputs
    if any(x.ninputs != m for x in xs):
        raise ValueError(f"vstack: all operands need the same number of inputs; got {[x.shape for x in xs]}")
    M, labels, p_all, m_all = _core.blockdiag_open(xs)
    E = np.vstack([np.eye(m)] * len(xs))
    out = _core.close(M, len(labels), np.zeros((m_all, p_all)), E, np.eye(p_all), np.zeros((p_all, m)))
    outs = tuple(n for x in xs for n in x.output_names)
    return LFR._make(out, labels, xs[0].input_names, outs, xs[0]._igroups, _union_groups(xs, "_ogroups"))


def blockdiag(items) -> LFR:
    """``diag(X1, X2, ...)``: inputs and outputs concatenated."""
    xs = _operands(items, "blockdiag")
    M, labels, p_all, m_all = _core.blockdiag_open(xs)
    ins = tuple(n for x in xs for n in x.input_names)
    outs = tuple(n for x in xs for n in x.output_names)
    return LFR._make(M, labels, ins, outs, _union_groups(xs, "_igroups"), _union_groups(xs, "_ogroups"))

