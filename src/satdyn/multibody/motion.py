"""6-vector algebra of the tree algorithms (``[linear; angular]``, body frame, body origin).

Trusted inputs (flat batch axis N first); the public, checked entry points live in
:mod:`satdyn.spatial`. Kept below :mod:`.kinematics` and :mod:`.sweeps` so that both, and the
model's cached sweep constants, use them without an import cycle.

``cross(a, b)``, ``cross_motion(v, m)`` (``v x m``), ``cross_force(v, f)`` (``v x* f``,
arXiv:2505.03248's C(x') f), ``motion_to_child(R, p, m)``, ``force_to_parent(R, p, f)``,
``motion_transform_to_child(R, p)``.
"""

from __future__ import annotations

import numpy as np

from ..spatial.unchecked import skew as _skew  # trusted inputs: inner loop

__all__ = ["cross", "cross_motion", "cross_force", "motion_to_child", "force_to_parent", "motion_transform_to_child"]


_LEVI_CIVITA = np.zeros((3, 3, 3))
_LEVI_CIVITA[0, 1, 2] = _LEVI_CIVITA[1, 2, 0] = _LEVI_CIVITA[2, 0, 1] = 1.0
_LEVI_CIVITA[0, 2, 1] = _LEVI_CIVITA[2, 1, 0] = _LEVI_CIVITA[1, 0, 2] = -1.0


def cross(a, b):
    """Row-wise cross product of (..., 3) arrays.

    Small batches (the ODE right-hand side) use one einsum, whose call overhead is a tenth of
    ``np.cross``'s; large batches use ``np.cross``, which is faster per element.
    """
    if a.ndim <= 1 or a.shape[0] < 64:
        return np.einsum("ijk,...j,...k->...i", _LEVI_CIVITA, a, b)
    return np.cross(a, b)


def cross_motion(v, m):
    """``v x m`` for motion vectors ``[lin; ang]`` (N, 6)."""
    w, u = v[:, 3:], v[:, :3]
    return np.concatenate([cross(w, m[:, :3]) + cross(u, m[:, 3:]), cross(w, m[:, 3:])], 1)


def cross_force(v, f):
    """``v x* f`` = C(x') f of arXiv:2505.03248 eq. (26): ``[w x F; u x F + w x T]`` (N, 6)."""
    w, u = v[:, 3:], v[:, :3]
    return np.concatenate([cross(w, f[:, :3]), cross(u, f[:, :3]) + cross(w, f[:, 3:])], 1)


def motion_to_child(R, p, m):
    """Parent-frame motion (at the parent origin) to the child frame at the child origin."""
    lin = m[:, :3] + cross(m[:, 3:], p)
    return np.concatenate([np.einsum("nji,nj->ni", R, lin), np.einsum("nji,nj->ni", R, m[:, 3:])], 1)


def force_to_parent(R, p, f):
    """Child-frame wrench (at the child origin) to the parent frame at the parent origin (``X^T f``)."""
    F = np.einsum("nij,nj->ni", R, f[:, :3])
    return np.concatenate([F, np.einsum("nij,nj->ni", R, f[:, 3:]) + cross(p, F)], 1)


def motion_transform_to_child(R, p):
    """6x6 ``X`` (N, 6, 6) with ``m_child = X m_parent``: ``[[R^T, -R^T skew(p)], [0, R^T]]``."""
    Rt = np.swapaxes(R, -1, -2)
    X = np.zeros(R.shape[:-2] + (6, 6))
    X[..., :3, :3] = Rt
    X[..., 3:, 3:] = Rt
    X[..., :3, 3:] = -Rt @ _skew(p)
    return X
