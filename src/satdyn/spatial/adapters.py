"""Explicit adapters between satdyn's 6-vector conventions and those of Pinocchio and SPART.

* satdyn: ``[linear; angular]``; point accelerations are *classical* (``d^2 r / dt^2`` of
  the point, seed papers 000/003/004).
* Pinocchio: ``Motion`` and ``Force`` are ``[linear; angular]`` too, but its accelerations
  are *spatial*: the linear part is ``d/dt v`` of the body point currently at P seen in
  the moving frame, which differs from the classical one by ``omega x v``.
* SPART (MATLAB): twists, wrenches and 6x6 matrices are ordered ``[angular; linear]``.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_batch_of, broadcast_batches

__all__ = [
    "classical_from_spatial_acceleration",
    "spatial_from_classical_acceleration",
    "to_angular_linear",
    "from_angular_linear",
]


def _add_transport_term(acceleration, name, twist, sign):
    """``[a_lin + sign * omega x v; omega_dot]`` with validated, broadcast inputs."""
    a = as_batch_of(acceleration, (6,), name)
    v = as_batch_of(twist, (6,), "twist")
    broadcast_batches((a, 1, name), (v, 1, "twist"))
    linear = a[..., :3] + sign * np.cross(v[..., 3:], v[..., :3])
    return np.concatenate([linear, np.broadcast_to(a[..., 3:], linear.shape)], axis=-1)


def classical_from_spatial_acceleration(spatial_acceleration, twist) -> np.ndarray:
    """Classical acceleration twist from Pinocchio's spatial acceleration.

    ``[a_P; omega_dot] = [dv_P + omega x v_P; omega_dot]``, all in the same frame
    (Pinocchio's ``getClassicalAcceleration``).

    Parameters
    ----------
    spatial_acceleration : array_like, shape (..., 6)
        ``[dv_P; omega_dot]`` (Pinocchio ``data.a`` / ``getFrameAcceleration``).
    twist : array_like, shape (..., 6)
        ``[v_P; omega]`` of the same point and frame.

    Returns
    -------
    ndarray, shape (..., 6)
    """
    return _add_transport_term(spatial_acceleration, "spatial_acceleration", twist, +1.0)


def spatial_from_classical_acceleration(classical_acceleration, twist) -> np.ndarray:
    """Inverse of :func:`classical_from_spatial_acceleration`.

    Parameters
    ----------
    classical_acceleration : array_like, shape (..., 6)
        ``[a_P; omega_dot]``.
    twist : array_like, shape (..., 6)
        ``[v_P; omega]``.

    Returns
    -------
    ndarray, shape (..., 6)
    """
    return _add_transport_term(classical_acceleration, "classical_acceleration", twist, -1.0)


def _swap(x: np.ndarray, matrix: bool) -> np.ndarray:
    perm = np.r_[3:6, 0:3]
    if matrix:
        return x[..., perm, :][..., :, perm]
    return x[..., perm]


def to_angular_linear(x, *, matrix: bool = False) -> np.ndarray:
    """satdyn ``[linear; angular]`` to SPART's ``[angular; linear]`` order.

    Parameters
    ----------
    x : array_like, shape (..., 6) or (..., 6, 6)
        A 6-vector, or with ``matrix=True`` a 6x6 matrix (rows and columns permuted).
    matrix : bool, default False

    Returns
    -------
    ndarray, same shape as ``x``
    """
    arr = as_batch_of(x, (6, 6) if matrix else (6,), "x")
    return _swap(arr, matrix)


def from_angular_linear(x, *, matrix: bool = False) -> np.ndarray:
    """SPART's ``[angular; linear]`` to satdyn's ``[linear; angular]`` order (the same permutation).

    Parameters
    ----------
    x : array_like, shape (..., 6) or (..., 6, 6)
    matrix : bool, default False

    Returns
    -------
    ndarray, same shape as ``x``
    """
    arr = as_batch_of(x, (6, 6) if matrix else (6,), "x")
    return _swap(arr, matrix)
