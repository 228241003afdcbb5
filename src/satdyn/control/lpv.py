"""The tuned controller as a ``satdyn.lfr.LFR``: scheduled blocks keep their ``vreal``.

A scheduled block ``S(tau) = M0 + sum_i tau_i M_i`` (``tau_i = (v_i - c_i) / h_i``, ``v_i``
the LFR variable of the ``vreal``) becomes the static LFR ``M0 + sum_i tau_i(p_i) M_i`` and
the dynamic block ``K(s, tau) = Fu(S(tau), I/s)`` (paper arXiv:2109.00407 eq. (26)); the
same ``vreal`` objects as the plant's, so that plant and controller are scheduled
consistently in the closed loop (and in ``satdyn.robust`` analyses of it).
"""

from __future__ import annotations

import numpy as np

from .blocks import ScheduledBlock

__all__ = ["controller_lfr", "block_lfr"]


def block_lfr(block):
    """One tunable block as an LFR (inputs/outputs named after its signals)."""
    from .. import lfr

    n = block.nstates
    if isinstance(block, ScheduledBlock):
        base = block.base
        x0, xs = block._split(block.value)
        S = lfr.as_lfr(base.K0 + np.tensordot(x0, base.E, axes=1))
        for p, c, h, xi in zip(block.scheduling, block.centre, block.half, xs):
            Mi = np.tensordot(xi, base.E, axes=1)
            if np.any(Mi != 0):
                tau = (p.lfr - c) * (1.0 / h)
                S = S + tau * lfr.as_lfr(Mi)
    else:
        S = lfr.as_lfr(block.realize()[0])
    if n:
        K = lfr.lft(S, lfr.integrator(n), upper=True)
    else:
        K = S
    return K.rename(inputs=list(block.inputs), outputs=list(block.outputs))


def controller_lfr(blocks):
    """All blocks as one LFR from the measured signals to the control signals.

    A measured signal read by several blocks is one input of the result.
    """
    from .. import lfr

    parts = [block_lfr(b) for b in blocks]
    K = lfr.blockdiag(parts)
    ins = list(dict.fromkeys(n for b in blocks for n in b.inputs))
    E = np.zeros((K.ninputs, len(ins)))
    k = 0
    for b in blocks:
        for n in b.inputs:
            E[k, ins.index(n)] = 1.0
            k += 1
    out = K @ lfr.as_lfr(E)
    return out.rename(inputs=ins, outputs=[n for b in blocks for n in b.outputs])
