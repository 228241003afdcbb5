"""Rotation matrices as LFRs of an angle parameter (Cayley transform).

``rotation_lfr(axis, angle, offset)`` is the 3x3 matrix ``exp(angle [r]x) @ offset``
(``satdyn.spatial.rodrigues(axis, angle) @ offset``), with ``r`` the unit axis.
With ``t = tan(angle/2)`` (transform "tan_half", |angle| < pi):

    R(t) offset = (I + t S)(I - t S)^{-1} offset = Fu([[J2, N^T P0], [2 N J2, P0]], t I_2)

where ``N = [n1, n2]`` is an orthonormal basis of the plane normal to ``r`` with
``n1 x n2 = r`` and ``J2 = [[0, -1], [1, 0]]`` (so ``N J2 N^T = S = [r]x``); it is well
posed for every real t (``det(I - t J2) = 1 + t^2``): 2 occurrences of t.  With
``u = tan(angle/4)`` (transform "tan_quarter", |angle| < 2 pi) ``R = R_half(u)^2``:
4 occurrences.  The DCM ``P_{a/b}`` of a frame rotated by ``angle`` is the transpose
(``.T``) of this matrix.

Arguments: ``axis`` (3,), ``angle`` a Parameter with a tan transform (or a float for a
constant matrix), ``offset`` (3, 3) constant, default identity.
"""

from __future__ import annotations

import numpy as np

from satdyn.spatial import rodrigues

from .._validation import as_batch_of
from .algebra import blockdiag
from .interconnect import lft
from .lfr import LFR, as_lfr
from .parameters import Parameter

__all__ = ["rotation_lfr", "cayley_matrix"]

_J2 = np.array([[0.0, -1.0], [1.0, 0.0]])


def _plane_basis(r: np.ndarray) -> np.ndarray:
    """(3, 2) orthonormal basis [n1, n2] of r-perp with n1 x n2 = r."""
    helper = np.eye(3)[int(np.argmin(np.abs(r)))]
    n1 = np.cross(r, helper)
    n1 /= np.linalg.norm(n1)
    n2 = np.cross(r, n1)
    return np.column_stack([n1, n2])


def cayley_matrix(axis, offset=None) -> np.ndarray:
    """The (5, 5) matrix ``[[J2, N^T P0], [2 N J2, P0]]`` with ``R(t) P0 = Fu(., t I_2)``."""
    r = as_batch_of(axis, (3,), "axis")
    if r.ndim != 1 or np.linalg.norm(r) < 1e-12:
        raise ValueError("`axis` must be one non-zero 3-vector")
    r = r / np.linalg.norm(r)
    P0 = np.eye(3) if offset is None else as_batch_of(offset, (3, 3), "offset")
    if P0.ndim != 2:
        raise ValueError("`offset` must be one (3, 3) matrix")
    N = _plane_basis(r)
    return np.block([[_J2, N.T @ P0], [2.0 * N @ _J2, P0]])


def rotation_lfr(axis, angle, offset=None, *, inputs=None, outputs=None) -> LFR:
    """3x3 LFR of ``rodrigues(axis, angle) @ offset`` (see module docstring)."""
    if not isinstance(angle, Parameter):
        try:
            value = float(angle)
        except (TypeError, ValueError):
            raise TypeError(f"`angle` must be a Parameter or a float; got {type(angle).__name__}") from None
        cayley_matrix(axis, offset)  # validates axis and offset
        P0 = np.eye(3) if offset is None else np.asarray(offset, dtype=float)
        return as_lfr(rodrigues(np.asarray(axis, dtype=float), value) @ P0).rename(inputs, outputs)
    if angle.transform not in ("tan_half", "tan_quarter"):
        raise ValueError(
            f"rotation_lfr: parameter {angle.name!r} needs transform 'tan_half' or 'tan_quarter'; "
            f"got {angle.transform!r}"
        )
    t = blockdiag([angle.lfr, angle.lfr])
    if angle.transform == "tan_half":
        out = lft(as_lfr(cayley_matrix(axis, offset)), t, upper=True)
    else:
        first = lft(as_lfr(cayley_matrix(axis, offset)), t, upper=True)
        second = lft(as_lfr(cayley_matrix(axis)), t, upper=True)
        out = second @ first
    return out.rename(inputs, outputs)
