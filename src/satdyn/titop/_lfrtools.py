"""Small LFR helpers used by the block builders (private)."""

from __future__ import annotations

import numpy as np

from ..lfr import LFR, Parameter, as_lfr, blockdiag, lft

__all__ = ["names_spec", "negate", "close_raw", "is_parametric", "to_lfr"]


def names_spec(names, groups) -> list:
    """A ``rename`` specification reproducing ``names`` and their (contiguous) ``groups``."""
    start = {members[0]: (g, members) for g, members in groups.items() if members}
    spec, skip = [], set()
    for n in names:
        if n in skip:
            continue
        if n in start:
            g, members = start[n]
            spec.append((g, list(members)))
            skip.update(members)
        else:
            spec.append(n)
    return spec


def negate(lfr: LFR, inputs=(), outputs=()) -> LFR:
    """Copy of ``lfr`` with the given input / output signals (names or groups) negated."""
    si = np.ones(lfr.ninputs)
    so = np.ones(lfr.noutputs)
    if inputs:
        si[lfr.input_index(list(inputs))] = -1.0
    if outputs:
        so[lfr.output_index(list(outputs))] = -1.0
    out = as_lfr(np.diag(so)) @ lfr @ as_lfr(np.diag(si))
    return out.rename(inputs=names_spec(lfr.input_names, lfr.input_groups),
                      outputs=names_spec(lfr.output_names, lfr.output_groups))


def is_parametric(x) -> bool:
    return isinstance(x, (Parameter, LFR))


def to_lfr(x) -> LFR:
    return x.lfr if isinstance(x, Parameter) else as_lfr(x)


def close_raw(M_open: np.ndarray, raw: list) -> LFR:
    """Close the first ``len(raw)`` channels of the static matrix ``M_open`` with the raw
    LFR variables of the parameters in ``raw`` (one channel each, ``w_i = v(p_i) z_i``,
    ``v`` the parameter's LFR variable: the value itself, or tan(a/2), tan(a/4)).

    The result is an LFR in the parameters' *normalised* deltas, with one occurrence per
    channel (the Moebius normalisation keeps the count).
    """
    k = len(raw)
    if k == 0:
        return as_lfr(M_open)
    K = blockdiag([p.lfr for p in raw])
    return lft(as_lfr(M_open), K, upper=True)
