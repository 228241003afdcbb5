"""The bottom of satdyn's input checking: the one base error for bad input.

Every error that means "the caller gave something satdyn cannot use" derives from
:class:`SatdynInputError` (a :class:`ValueError`, so ``except ValueError`` keeps working).
The ``satdyn`` command turns it into its one-line message and exit status 2; an exception of
any other kind escaping a study is a bug and shows its traceback.

This module imports nothing of satdyn's, so every package may use it (as SciPy's
``_lib/_util.py``).
"""

from __future__ import annotations

__all__ = ["SatdynInputError"]


class SatdynInputError(ValueError):
    """Bad input: the message names the offending argument (or file and key) and what was expected."""
