"""Input validation shared by the public functions of satdyn (used at public boundaries only).

Errors name the offending argument and say what was expected, so a user never
sees a numpy broadcasting traceback from deep inside an algorithm.
"""

from __future__ import annotations

import numpy as np

__all__ = ["as_float_array", "as_batch_of", "broadcast_batches"]


def as_float_array(value, name: str) -> np.ndarray:
    """Return ``value`` as a float ndarray, or raise ``TypeError`` naming ``name``."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`{name}` must be numeric array-like; got {type(value).__name__}") from exc
    if not np.all(np.isfinite(array)):
        raise ValueError(f"`{name}` must contain only finite numbers (no NaN or inf)")
    return array


def as_batch_of(value, trailing: tuple[int, ...], name: str) -> np.ndarray:
    """Float array of shape ``(..., *trailing)``; ``ValueError`` naming ``name`` otherwise."""
    array = as_float_array(value, name)
    k = len(trailing)
    if array.ndim < k or array.shape[array.ndim - k:] != tuple(trailing):
        expected = "(..., " + ", ".join(str(n) for n in trailing) + ")"
        raise ValueError(f"`{name}` must have shape {expected}; got shape {array.shape}")
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
        raise ValueError(f"batch dimensions do not broadcast: {listing}") from None
