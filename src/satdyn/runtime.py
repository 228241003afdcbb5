"""Run-time services shared by long computations: BLAS thread limits and progress bars.

Bottom layer (imports nothing of satdyn's). Every long study and the ``satdyn`` command use
these two helpers, so that

* multithreaded BLAS never fights the process pool or a busy machine for cores
  (:func:`limit_blas_threads`, on top of threadpoolctl); and
* long stages show a progress bar with an ETA (:func:`progress`, on top of tqdm) that
  ``--quiet`` (or :func:`quiet`) silences.

Environment overrides, read when a limit is entered:

``SATDYN_BLAS_THREADS``
    number of BLAS threads inside satdyn's long computations (default 1; ``0`` or
    ``"none"`` leaves the BLAS libraries as they are).
``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS``
    a user who set one of these has chosen a thread count: satdyn then leaves BLAS alone.
``SATDYN_QUIET``
    ``1`` silences every progress bar (as ``--quiet``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator

__all__ = ["limit_blas_threads", "blas_thread_limit", "progress", "quiet", "is_quiet"]

_USER_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_quiet_depth = 0


def blas_thread_limit() -> int | None:
    """The BLAS thread count satdyn's long computations use (``None``: leave BLAS alone).

    ``SATDYN_BLAS_THREADS`` wins; otherwise a user-set ``OMP_NUM_THREADS`` /
    ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS`` means "leave BLAS alone"; otherwise 1.
    One thread is the right default for satdyn: its heavy work is many small dense problems
    (a few dozen states), where BLAS threads only add synchronisation, and the parallel
    studies use processes instead.
    """
    value = os.environ.get("SATDYN_BLAS_THREADS")
    if value is not None:
        text = value.strip().lower()
        if text in ("", "0", "none"):
            return None
        try:
            count = int(text)
        except ValueError:
            raise ValueError(f"environment variable SATDYN_BLAS_THREADS must be a positive integer, "
                             f"0 or 'none'; got {value!r}") from None
        if count < 0:
            raise ValueError(f"environment variable SATDYN_BLAS_THREADS must be >= 0; got {value!r}")
        return count
    if any(os.environ.get(name) for name in _USER_THREAD_VARIABLES):
        return None
    return 1


@contextlib.contextmanager
def limit_blas_threads(threads: int | None = -1) -> Iterator[None]:
    """Limit the BLAS libraries' threads inside the ``with`` block.

    Parameters
    ----------
    threads : int or None, optional
        Thread count; ``-1`` (default) takes :func:`blas_thread_limit` (environment, else 1);
        ``None`` leaves BLAS alone.
    """
    if threads == -1:
        threads = blas_thread_limit()
    if threads is None:
        yield
        return
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=int(threads), user_api="blas"):
        yield


def is_quiet() -> bool:
    """True when progress bars are silenced (inside :func:`quiet` or with ``SATDYN_QUIET=1``)."""
    return _quiet_depth > 0 or os.environ.get("SATDYN_QUIET", "").strip() not in ("", "0")


@contextlib.contextmanager
def quiet(enabled: bool = True) -> Iterator[None]:
    """Silence every progress bar inside the ``with`` block (``enabled=False``: no effect)."""
    global _quiet_depth
    _quiet_depth += bool(enabled)
    try:
        yield
    finally:
        _quiet_depth -= bool(enabled)


def progress(iterable: Iterable | None = None, *, total: int | None = None, desc: str | None = None,
             unit: str = "it", leave: bool = False):
    """A progress bar with an ETA on standard error (tqdm), or a silent pass-through.

    Use it as tqdm: wrap an iterable, or call ``update(n)`` on the returned bar. It is silent
    when :func:`is_quiet` is true; it never writes to standard output.
    """
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, leave=leave, file=sys.stderr,
                disable=is_quiet(), dynamic_ncols=True, mininterval=0.5)
