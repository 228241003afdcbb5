"""The bottom of satdyn's input checking: the one base error for bad input and the array checks
every package uses at its public entry points.

Every error that means "the caller gave something satdyn cannot use" derives from
:class:`SatdynInputError` (a :class:`ValueError`, so ``except ValueError`` keeps working).
The ``satdyn`` command turns it into its one-line message and exit status 2; an exception of
any other kind escaping a study is a bug and shows its traceback.

This module imports nothing of satdyn's (numpy only), so every package may use it (as SciPy's
``_lib/_util.py``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

__all__ = ["SatdynInputError", "as_float_array", "as_batch_of", "broadcast_batches", "as_inertia", "writable_folder"]


class SatdynInputError(ValueError):
    """Bad input: the message names the offending argument (or file and key) and what was expected."""


def as_float_array(value, name: str) -> np.ndarray:
    """Return ``value`` as a float ndarray, or raise ``TypeError`` naming ``name``."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`{name}` must be numeric array-like; got {type(value).__name__}") from exc
    if not np.all(np.isfinite(array)):
        raise SatdynInputError(f"`{name}` must contain only finite numbers (no NaN or inf)")
    return array


def as_batch_of(value, trailing: tuple[int, ...], name: str) -> np.ndarray:
    """Float array of shape ``(..., *trailing)``; ``ValueError`` naming ``name`` otherwise."""
    array = as_float_array(value, name)
    k = len(trailing)
    if array.ndim < k or array.shape[array.ndim - k:] != tuple(trailing):
        expected = "(..., " + ", ".join(str(n) for n in trailing) + ")"
        raise SatdynInputError(f"`{name}` must have shape {expected}; got shape {array.shape}")
    return array


def broadcast_batches(*named: tuple[np.ndarray, int]) -> tuple[int, ...]:
    """Common leading batch shape of arrays given as ``(array, n_trailing_dims, name)``."""
    shapes = []
    names = []
    for array, n_trailing, name in named:
        shapes.append(array.shape[: array.ndim - n_trailing])
        names.append(name)
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        listing = ", ".join(f"`{n}` {s}" for n, s in zip(names, shapes))
        raise SatdynInputError(f"batch dimensions do not broadcast: {listing}") from None


def as_inertia(value, name: str, *, positive_definite: bool = False, triangle: bool = True) -> np.ndarray:
    """A physically realisable inertia tensor (..., 3, 3) about a centre of mass [kg m^2].

    Checks, naming ``name``: symmetric; principal moments ``I1 <= I2 <= I3`` non-negative
    (positive with ``positive_definite``, as a body whose inertia is inverted needs) and
    satisfying the triangle inequality ``I1 + I2 >= I3`` (every mass distribution does:
    ``I1 + I2 - I3 = 2 * integral of r_3^2 dm >= 0``; ``triangle=False`` skips this check
    where a generic symmetric positive semi-definite block is legitimate). The tolerance is relative to the
    largest moment, 1e-9: far above the rounding of a printed table's derived entries,
    far below any physical difference.
    """
    J = as_batch_of(value, (3, 3), name)
    scale = np.abs(J).max() if J.size else 0.0
    tol = 1e-9 * max(scale, 1e-300)
    if not np.allclose(J, np.swapaxes(J, -1, -2), rtol=0.0, atol=tol):
        raise SatdynInputError(f"`{name}` must be a symmetric (3, 3) inertia tensor [kg m^2]")
    moments = np.linalg.eigvalsh(0.5 * (J + np.swapaxes(J, -1, -2)))
    if positive_definite and (scale == 0.0 or np.any(moments[..., 0] <= tol)):
        raise SatdynInputError(f"`{name}` must be positive definite (every principal moment > 0) [kg m^2]; "
                         f"smallest principal moment {moments[..., 0].min():.6g}")
    if np.any(moments[..., 0] < -tol):
        raise SatdynInputError(f"`{name}` must be positive semi-definite [kg m^2]; "
                         f"smallest principal moment {moments[..., 0].min():.6g}")
    excess = moments[..., 2] - moments[..., 0] - moments[..., 1]
    if triangle and np.any(excess > tol):
        raise SatdynInputError(f"`{name}` violates the triangle inequality of principal moments "
                         f"(I1 + I2 >= I3 for every physical body); I3 exceeds I1 + I2 by {excess.max():.6g}")
    return J


def writable_folder(path, name: str, what: str, *, error=SatdynInputError) -> Path:
    """The folder ``path``, created if missing and checked writable for real (permissions alone lie
    to root), before any work is done in it.

    Raises ``error`` (one line naming the argument ``name`` and the folder's use ``what``) when the
    path is a file or the folder cannot be created or written.
    """
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise error(f"`{name}` {str(folder)!r} is a file; expected a folder for {what}")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise error(f"`{name}` {str(folder)!r}: cannot write there ({exc.strerror or exc})") from None
    return folder
