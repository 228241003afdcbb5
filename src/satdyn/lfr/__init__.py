"""satdyn.lfr: linear fractional representations with real parametric blocks.

The one object everything in satdyn is built on: an upper LFT
``y = Fu(M, diag(I/s, delta_1 I_r1, ..., delta_k I_rk)) u`` with named signals and
named groups of signals, real parameters (``ureal`` uncertain, ``vreal`` varying)
normalised to ``delta`` in [-1, 1], numpy-like algebra, interconnection by signal
names, single and batched evaluation, rotation matrices and order reduction.
See docs/lfr.md.
"""

from .algebra import blockdiag, hstack, vstack
from .batch import StateSpaceBatch
from .convert import from_statespace, integrator, ss
from .evaluate import RCOND_TOL, IllPosedError, LFRSample
from .interconnect import feedback, interconnect, invert_channels, invio, lft, star
from .lfr import LFR, as_lfr
from .parameters import Block, OutOfRangeWarning, Parameter, ureal, vreal
from .reduce import reduce
from .rotation import cayley_matrix, rotation_lfr
from .simplify import auto_simplify, simplify

__all__ = [
    "ureal",
    "vreal",
    "Parameter",
    "Block",
    "OutOfRangeWarning",
    "LFR",
    "as_lfr",
    "ss",
    "integrator",
    "from_statespace",
    "feedback",
    "lft",
    "star",
    "interconnect",
    "invert_channels",
    "invio",
    "hstack",
    "vstack",
    "blockdiag",
    "rotation_lfr",
    "cayley_matrix",
    "reduce",
    "simplify",
    "auto_simplify",
    "StateSpaceBatch",
    "LFRSample",
    "IllPosedError",
    "RCOND_TOL",
]
