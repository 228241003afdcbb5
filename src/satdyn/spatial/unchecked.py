"""Trusted-input variants of the 6-vector algebra, for the inner loops of algorithms.

Same results as :func:`satdyn.spatial.skew`, :func:`~satdyn.spatial.tau` and
:func:`~satdyn.spatial.frame_change_matrix`, without the validation done at the public
boundary (SciPy's rule: validate once, inner functions trust their callers). Use them only
on arrays that a public function of yours has already checked.
"""

from .algebra import _frame_change as frame_change_matrix
from .algebra import _skew as skew
from .algebra import _tau as tau

__all__ = ["skew", "tau", "frame_change_matrix"]
