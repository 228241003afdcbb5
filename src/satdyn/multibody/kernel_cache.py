"""numba's on-disk cache of the multibody kernels, kept consistent with their sources.

numba keys a cached function on the time stamp of the file that defines it, and nothing
else. A compiled function that calls functions of another file carries their machine code in
its own cache entry: after that other file changes (an edit, a ``git pull`` that touches one
file only), the caller would load the old code of its callees -- wrong numbers, or a crash when
a workspace layout changed. The kernels of :mod:`~satdyn.multibody.compiled_trig`,
:mod:`~satdyn.multibody.compiled`, :mod:`~satdyn.multibody.compiled_lanes`,
:mod:`~satdyn.multibody.integrate` and :mod:`~satdyn.multibody.integrate_lanes` call one
another, so they are cached as one unit: a fingerprint of all their sources is written next to
the cache files, and a cache directory whose fingerprint differs is cleared of these modules'
entries before anything loads from it (they are then compiled again, once).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

try:
    import numba
except ImportError:  # the numpy paths run instead
    numba = None

__all__ = []  # internal: cached_njit, KERNEL_MODULES, fingerprint

KERNEL_MODULES = ("compiled_trig", "compiled", "compiled_lanes", "integrate", "integrate_lanes")
_STAMP_PREFIX = "satdyn-kernels-"
_checked_directories: set[str] = set()


def fingerprint() -> str:
    """SHA-256 (first 16 hex digits) of the kernel modules' sources, in a fixed order."""
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for module in KERNEL_MODULES:
        digest.update(module.encode())
        digest.update((here / f"{module}.py").read_bytes())
    return digest.hexdigest()[:16]


_FINGERPRINT = fingerprint()


def refresh_directory(directory, stamp: str = _FINGERPRINT) -> bool:
    """Clear ``directory`` of the kernel modules' cache entries unless it carries ``stamp``.

    Returns True when entries were cleared (the stamp was missing or different). Files of other
    modules are left alone. A directory that cannot be written is left as it is (numba then
    caches elsewhere or not at all).
    """
    directory = Path(directory)
    stamp_file = directory / f"{_STAMP_PREFIX}{stamp}"
    if stamp_file.exists() or not directory.is_dir():
        return False
    try:
        for module in KERNEL_MODULES:
            for entry in list(directory.glob(f"{module}.*.nbi")) + list(directory.glob(f"{module}.*.nbc")):
                entry.unlink(missing_ok=True)
        for old in directory.glob(f"{_STAMP_PREFIX}*"):
            old.unlink(missing_ok=True)
        stamp_file.write_text("numba cache entries of satdyn.multibody's kernels match these sources\n")
    except OSError:
        return False
    return True


def cached_njit(**options):
    """``numba.njit(cache=True, **options)`` whose cache directory is checked by :func:`refresh_directory`.

    The check runs once per directory, when the first kernel is decorated (at import), before
    any kernel is called, so no stale entry is ever loaded. Without numba the function is
    returned unchanged.
    """
    def decorate(function):
        if numba is None:
            return function
        dispatcher = numba.njit(cache=True, **options)(function)
        # numba's FunctionCache knows where it reads and writes (in-tree __pycache__, or the
        # user-wide cache directory when that is not writable, or NUMBA_CACHE_DIR).
        directory = getattr(getattr(dispatcher, "_cache", None), "_cache_path", None)
        if directory is not None and directory not in _checked_directories:
            _checked_directories.add(directory)
            refresh_directory(directory)
        return dispatcher
    return decorate
