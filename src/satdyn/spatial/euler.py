"""Euler angles of any of the 12 rotation sequences: DCM <-> angles and the Euler-rate matrices.

A ``sequence`` is three axis letters, SciPy's convention:

* upper case (``"ZYX"``, ``"ZXZ"``, ...) is **intrinsic**: rotate about the moving axes,
  ``P_bi = R_1(a_1) R_2(a_2) R_3(a_3)``;
* lower case (``"zyx"``, ``"zxz"``, ...) is **extrinsic**: rotate about the fixed axes,
  ``P_bi = R_3(a_3) R_2(a_2) R_1(a_1)`` (so ``"xyz"`` with angles ``(a, b, c)`` is ``"ZYX"``
  with ``(c, b, a)``).

Six Tait--Bryan sequences (three different axes: XYZ, XZY, YXZ, YZX, ZXY, ZYX) and six proper
Euler sequences (first axis repeated: XYX, XZX, YXY, YZY, ZXZ, ZYZ), each intrinsic or
extrinsic. ``angles`` are always listed in the order of the sequence's letters, in rad, and
``P_bi`` is the attitude DCM of body b in reference i (``[v]_i = P_bi [v]_b``,
docs/conventions.md §4).

Relation to :func:`satdyn.spatial.dcm_from_euler`: that function's ``(phi, theta, psi)`` 3-2-1
angles are ``"ZYX"`` with the angles reversed, ``(psi, theta, phi)``.

Rates: ``omega = E(angles) @ angles_dot`` (never singular) and its inverse
``angles_dot = Gamma(angles) @ omega``, with omega in the body frame (``frame="body"``) or
in the reference frame (``frame="inertial"``). ``Gamma`` is singular where the middle angle
makes the first and third axes parallel: ``cos(a_2) = 0`` for Tait--Bryan, ``sin(a_2) = 0`` for
proper Euler sequences; :func:`euler_sequence_rate_matrix` raises there.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_batch_of
from .rotations import _check_dcm

__all__ = ["EULER_SEQUENCES", "dcm_from_euler_sequence", "euler_sequence_from_dcm",
           "euler_sequence_rate_matrix", "euler_sequence_rate_matrix_inverse", "check_sequence"]

EULER_SEQUENCES = tuple(s for base in ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX",
                                       "XYX", "XZX", "YXY", "YZY", "ZXZ", "ZYZ")
                        for s in (base, base.lower()))
_AXIS = {"x": 0, "y": 1, "z": 2}
_SINGULAR = 1e-9  # |cos a2| (Tait-Bryan) or |sin a2| (proper) below which Gamma is refused
_LOCK = 1e-10     # below this the first and third angles are not separable (a_3 := 0)


def check_sequence(sequence) -> str:
    """Return ``sequence`` if it is one of the 12 x 2 sequences, else raise ``ValueError``."""
    if not isinstance(sequence, str) or sequence not in EULER_SEQUENCES:
        raise ValueError("`sequence` must be three axis letters, upper case (intrinsic) or lower case "
                         f"(extrinsic), e.g. 'ZYX', 'zxz'; one of {EULER_SEQUENCES}; got {sequence!r}")
    return sequence


def _intrinsic(sequence, angles):
    """(axes, angles) of the equivalent intrinsic sequence."""
    axes = [_AXIS[c.lower()] for c in sequence]
    if sequence.islower():
        return axes[::-1], angles[..., ::-1]
    return axes, angles


def _elementary(axis, angle):
    """R_axis(angle), (..., 3, 3)."""
    c, s = np.cos(angle), np.sin(angle)
    m, n = (axis + 1) % 3, (axis + 2) % 3
    R = np.zeros(np.shape(angle) + (3, 3))
    R[..., axis, axis] = 1.0
    R[..., m, m] = c
    R[..., n, n] = c
    R[..., n, m] = s
    R[..., m, n] = -s
    return R


def dcm_from_euler_sequence(angles, sequence: str = "ZYX") -> np.ndarray:
    """DCM ``P_bi`` of Euler angles of the given sequence.

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        Angles [rad] in the order of the sequence's letters.
    sequence : str
        See the module docstring (default ``"ZYX"``: yaw, pitch, roll).

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    check_sequence(sequence)
    a = as_batch_of(angles, (3,), "angles")
    axes, a = _intrinsic(sequence, a)
    return _elementary(axes[0], a[..., 0]) @ _elementary(axes[1], a[..., 1]) @ _elementary(axes[2], a[..., 2])


def euler_sequence_from_dcm(P_bi, sequence: str = "ZYX") -> np.ndarray:
    """Euler angles of a DCM: the middle angle in [-pi/2, pi/2] (Tait--Bryan) or [0, pi] (proper).

    At the singular middle angle only a combination of the outer angles is defined; the angle
    of the rightmost factor of ``P_bi`` (the last letter of an intrinsic sequence, the first of
    an extrinsic one) is then set to 0.

    Parameters
    ----------
    P_bi : array_like, shape (..., 3, 3)
    sequence : str

    Returns
    -------
    ndarray, shape (..., 3)
        Angles [rad] in the order of the sequence's letters.
    """
    check_sequence(sequence)
    R = _check_dcm(P_bi, "P_bi")
    i, j, k = [_AXIS[c.lower()] for c in (sequence[::-1] if sequence.islower() else sequence)]
    proper = i == k
    if proper:
        k = 3 - i - j
    s = 1.0 if (j - i) % 3 == 1 else -1.0  # parity of (i, j, k)
    if proper:
        sin_b = np.hypot(R[..., i, j], R[..., i, k])
        b = np.arctan2(sin_b, R[..., i, i])
        a1 = np.arctan2(R[..., j, i], -s * R[..., k, i])
        a3 = np.arctan2(R[..., i, j], s * R[..., i, k])
        locked = sin_b < _LOCK
    else:
        cos_b = np.hypot(R[..., i, i], R[..., i, j])  # accurate where arcsin(R[i, k]) is not
        b = np.arctan2(s * R[..., i, k], cos_b)
        a1 = np.arctan2(-s * R[..., j, k], R[..., k, k])
        a3 = np.arctan2(-s * R[..., i, j], R[..., i, i])
        locked = cos_b < _LOCK
    if np.any(locked):
        # a3 := 0, so R = R_i(a1) R_j(b): read a1 from M = R R_j(b)^T = R_i(a1).
        M = R @ np.swapaxes(_elementary(j, b), -1, -2)
        m, n = (i + 1) % 3, (i + 2) % 3
        a1 = np.where(locked, np.arctan2(M[..., n, m], M[..., m, m]), a1)
        a3 = np.where(locked, 0.0, a3)
    out = np.stack([a1, b, a3], axis=-1)
    return out[..., ::-1] if sequence.islower() else out


def _rate_inverse(angles, sequence, frame):
    if frame not in ("body", "inertial"):
        raise ValueError(f"`frame` must be 'body' or 'inertial'; got {frame!r}")
    check_sequence(sequence)
    a = as_batch_of(angles, (3,), "angles")
    axes, ai = _intrinsic(sequence, a)
    e = np.eye(3)
    R1, R2, R3 = (_elementary(axes[n], ai[..., n]) for n in range(3))
    if frame == "body":  # omega_b = R3^T R2^T e1 a1' + R3^T e2 a2' + e3 a3'
        R3t = np.swapaxes(R3, -1, -2)
        cols = [R3t @ np.swapaxes(R2, -1, -2) @ e[axes[0]], R3t @ e[axes[1]],
                np.broadcast_to(e[axes[2]], ai.shape)]
    else:                # omega_i = e1 a1' + R1 e2 a2' + R1 R2 e3 a3'
        cols = [np.broadcast_to(e[axes[0]], ai.shape), R1 @ e[axes[1]], R1 @ R2 @ e[axes[2]]]
    E = np.stack(cols, axis=-1)
    return E[..., ::-1] if sequence.islower() else E


def euler_sequence_rate_matrix_inverse(angles, sequence: str = "ZYX", frame: str = "body") -> np.ndarray:
    """``E`` with ``omega = E(angles) @ angles_dot`` (never singular).

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        Angles [rad] in the order of the sequence's letters.
    sequence : str
    frame : {"body", "inertial"}
        Frame of omega.

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    return _rate_inverse(angles, sequence, frame)


def euler_sequence_rate_matrix(angles, sequence: str = "ZYX", frame: str = "body") -> np.ndarray:
    """``Gamma`` with ``angles_dot = Gamma(angles) @ omega`` (the kinematic relation of arXiv:2505.03248).

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        Angles [rad] in the order of the sequence's letters.
    sequence : str
    frame : {"body", "inertial"}
        Frame of omega.

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Raises
    ------
    ValueError
        At the singular middle angle (gimbal lock); use a quaternion or DCM attitude there.
    """
    E = _rate_inverse(angles, sequence, frame)
    det = np.linalg.det(E)  # = +-cos(a2) (Tait-Bryan) or +-sin(a2) (proper)
    if np.any(np.abs(det) < _SINGULAR):
        raise ValueError(f"`angles`: the Euler rates of sequence {sequence!r} are singular here "
                         "(gimbal lock: the first and third axes are parallel)")
    return np.linalg.inv(E)
