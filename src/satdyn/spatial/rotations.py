"""Rotations: DCM, quaternion (scalar-last), rotation vector, Euler 3-2-1, SO(3) exp/log.

A DCM ``P_ab`` maps components in frame a to frame b (``[v]_b = P_ab [v]_a``); the
attitude of a body frame b relative to a reference frame i is ``P_bi``, the usual
"rotation matrix" of b (its columns are b's axes in i). All attitude functions here
return or take that matrix. Quaternions are Hamilton, scalar-last ``[x, y, z, w]``
(SciPy and Pinocchio order); functions using ``[w, x, y, z]`` say ``wxyz`` in their name.

Euler angles ``(phi, theta, psi)`` mean ``P_bi = Rz(psi) Ry(theta) Rx(phi)``
(intrinsic Z-Y'-X'', "3-2-1"; Front. Robot. AI 5:41 (2018) calls the same matrix "1-2-3").

Conversions use :class:`scipy.spatial.transform.Rotation`; every function accepts
leading batch dimensions.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from .._validation import as_batch_of, as_float_array, broadcast_batches
from .algebra import _skew

__all__ = [
    "dcm_from_quaternion",
    "quaternion_from_dcm",
    "dcm_from_rotvec",
    "rotvec_from_dcm",
    "dcm_from_euler",
    "euler_from_dcm",
    "rodrigues",
    "so3_exp",
    "so3_log",
    "so3_left_jacobian",
    "so3_right_jacobian",
    "so3_left_jacobian_inverse",
    "so3_right_jacobian_inverse",
    "euler_rate_matrix",
    "euler_rate_matrix_inverse",
    "quaternion_multiply",
    "quaternion_conjugate",
    "quaternion_derivative",
    "quaternion_to_wxyz",
    "quaternion_from_wxyz",
]

_SMALL_ANGLE = 1e-4  # below this the Taylor series (to theta^4) is exact to double precision
_GIMBAL_COS = 1e-9


def _batched(fn, array, trailing_in: int, trailing_out: tuple[int, ...]):
    """Apply a SciPy ``Rotation`` conversion written for (N, ...) stacks to (..., ...) arrays."""
    batch = array.shape[: array.ndim - trailing_in]
    flat = array.reshape((-1,) + array.shape[array.ndim - trailing_in:])
    out = fn(flat)
    return out.reshape(batch + trailing_out)


def _check_dcm(P, name):
    P = as_batch_of(P, (3, 3), name)
    err = np.abs(P @ np.swapaxes(P, -1, -2) - np.eye(3)).max(initial=0.0)
    if err > 1e-6:
        raise ValueError(f"`{name}` must be a rotation matrix (orthonormal); |P P^T - I| = {err:.3g}")
    if np.any(np.linalg.det(P) < 0.0):
        raise ValueError(f"`{name}` must be a proper rotation (det = +1), not a reflection")
    return P


def _check_quaternion(q, name="quaternion"):
    q = as_batch_of(q, (4,), name)
    norm = np.linalg.norm(q, axis=-1)
    if np.any(norm < 1e-12):
        raise ValueError(f"`{name}` must be non-zero")
    return q


def dcm_from_quaternion(quaternion) -> np.ndarray:
    """DCM ``P_bi`` of the attitude quaternion ``[x, y, z, w]`` (normalised first).

    Parameters
    ----------
    quaternion : array_like, shape (..., 4)

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    q = _check_quaternion(quaternion)
    return _batched(lambda f: Rotation.from_quat(f).as_matrix(), q, 1, (3, 3))


def quaternion_from_dcm(P_bi) -> np.ndarray:
    """Scalar-last unit quaternion of a DCM, with ``w >= 0``.

    Parameters
    ----------
    P_bi : array_like, shape (..., 3, 3)

    Returns
    -------
    ndarray, shape (..., 4)
    """
    P = _check_dcm(P_bi, "P_bi")
    return _batched(lambda f: Rotation.from_matrix(f).as_quat(canonical=True), P, 2, (4,))


def dcm_from_rotvec(rotvec) -> np.ndarray:
    """DCM of a rotation vector (axis times angle [rad]); same as :func:`so3_exp`.

    Parameters
    ----------
    rotvec : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    return so3_exp(rotvec)


def rotvec_from_dcm(P_bi) -> np.ndarray:
    """Rotation vector (angle in [0, pi]) of a DCM; same as :func:`so3_log`.

    Parameters
    ----------
    P_bi : array_like, shape (..., 3, 3)

    Returns
    -------
    ndarray, shape (..., 3)
    """
    return so3_log(P_bi)


def dcm_from_euler(angles) -> np.ndarray:
    """DCM ``P_bi = Rz(psi) Ry(theta) Rx(phi)`` of Euler angles 3-2-1.

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        ``(phi, theta, psi)`` [rad]: roll about x, pitch about y, yaw about z.

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    a = as_batch_of(angles, (3,), "angles")
    # SciPy's intrinsic "ZYX" with (psi, theta, phi) is Rz(psi) Ry(theta) Rx(phi).
    return _batched(lambda f: Rotation.from_euler("ZYX", f[:, ::-1]).as_matrix(), a, 1, (3, 3))


def euler_from_dcm(P_bi) -> np.ndarray:
    """Euler angles 3-2-1 ``(phi, theta, psi)`` of a DCM, theta in [-pi/2, pi/2].

    At theta = +-pi/2 (gimbal lock) only phi -/+ psi is defined; psi is then set to 0.

    Parameters
    ----------
    P_bi : array_like, shape (..., 3, 3)

    Returns
    -------
    ndarray, shape (..., 3)
    """
    P = _check_dcm(P_bi, "P_bi")
    cos_theta = np.hypot(P[..., 0, 0], P[..., 1, 0])  # accurate where arcsin(P[2, 0]) is not
    theta = np.arctan2(-P[..., 2, 0], cos_theta)
    locked = cos_theta < 1e-10
    # At lock, with psi := 0, row 2 of Ry(theta) Rx(phi) is [0, cos(phi), -sin(phi)].
    phi = np.where(locked, np.arctan2(-P[..., 1, 2], P[..., 1, 1]), np.arctan2(P[..., 2, 1], P[..., 2, 2]))
    psi = np.where(locked, 0.0, np.arctan2(P[..., 1, 0], P[..., 0, 0]))
    return np.stack([phi, theta, psi], axis=-1)


def rodrigues(axis, angle) -> np.ndarray:
    """Rodrigues' formula ``I + sin(a) skew(u) + (1 - cos(a)) skew(u)^2``.

    Parameters
    ----------
    axis : array_like, shape (..., 3)
        Rotation axis (normalised here; must be non-zero).
    angle : float or array_like, shape (...)
        Rotation angle [rad].

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    u = as_batch_of(axis, (3,), "axis")
    n = np.linalg.norm(u, axis=-1)
    if np.any(n < 1e-12):
        raise ValueError("`axis` must be a non-zero vector")
    a = as_float_array(angle, "angle")
    broadcast_batches((u, 1, "axis"), (a, 0, "angle"))
    S = _skew(u / n[..., None])
    return np.eye(3) + np.sin(a)[..., None, None] * S + (1.0 - np.cos(a))[..., None, None] * (S @ S)


def _exp_coefficients(theta):
    """sin(t)/t, (1-cos t)/t^2, (t - sin t)/t^3, with Taylor series near 0."""
    t2 = theta * theta
    small = theta < _SMALL_ANGLE
    ts = np.where(small, 1.0, theta)  # avoid 0/0 in the unused branch
    a = np.where(small, 1.0 - t2 / 6.0 + t2 * t2 / 120.0, np.sin(ts) / ts)
    b = np.where(small, 0.5 - t2 / 24.0 + t2 * t2 / 720.0, (1.0 - np.cos(ts)) / ts**2)
    c = np.where(small, 1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0, (ts - np.sin(ts)) / ts**3)
    return a, b, c


def so3_exp(rotvec) -> np.ndarray:
    """Exponential map of SO(3): DCM of the rotation vector ``phi`` (axis times angle).

    Parameters
    ----------
    rotvec : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    phi = as_batch_of(rotvec, (3,), "rotvec")
    a, b, _ = _exp_coefficients(np.linalg.norm(phi, axis=-1))
    S = _skew(phi)
    return np.eye(3) + a[..., None, None] * S + b[..., None, None] * (S @ S)


def so3_log(P_bi) -> np.ndarray:
    """Logarithm map of SO(3): the rotation vector with angle in [0, pi].

    Computed through the quaternion (SciPy), which stays accurate near 0 and near pi,
    where the trace formula loses all its digits.

    Parameters
    ----------
    P_bi : array_like, shape (..., 3, 3)

    Returns
    -------
    ndarray, shape (..., 3)
    """
    P = _check_dcm(P_bi, "P_bi")
    return _batched(lambda f: Rotation.from_matrix(f).as_rotvec(), P, 2, (3,))


def so3_left_jacobian(rotvec) -> np.ndarray:
    """Left Jacobian of SO(3): ``exp(phi + d) = exp(J_l(phi) d) exp(phi)`` to first order.

    Equivalently the inertial angular velocity is ``omega_i = J_l(phi) phi_dot``.

    Parameters
    ----------
    rotvec : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    phi = as_batch_of(rotvec, (3,), "rotvec")
    _, b, c = _exp_coefficients(np.linalg.norm(phi, axis=-1))
    S = _skew(phi)
    return np.eye(3) + b[..., None, None] * S + c[..., None, None] * (S @ S)


def so3_right_jacobian(rotvec) -> np.ndarray:
    """Right Jacobian of SO(3): ``exp(phi + d) = exp(phi) exp(J_r(phi) d)``; ``J_r(phi) = J_l(-phi)``.

    The body angular velocity is ``omega_b = J_r(phi) phi_dot``.

    Parameters
    ----------
    rotvec : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    return so3_left_jacobian(-as_batch_of(rotvec, (3,), "rotvec"))


def so3_left_jacobian_inverse(rotvec) -> np.ndarray:
    """Inverse of :func:`so3_left_jacobian`; finite for angles below 2 pi (guarded at pi).

    ``J_l^-1 = I - skew(phi)/2 + (1/t^2 - cot(t/2)/(2t)) skew(phi)^2``, t = |phi|.

    Parameters
    ----------
    rotvec : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    phi = as_batch_of(rotvec, (3,), "rotvec")
    theta = np.linalg.norm(phi, axis=-1)
    if np.any(theta >= 2.0 * np.pi - 1e-6):
        raise ValueError("`rotvec` angle must be below 2*pi, where the SO(3) Jacobian is singular")
    t2 = theta * theta
    small = theta < _SMALL_ANGLE
    ts = np.where(small, 1.0, theta)
    # cot(t/2) form: no 0/0 at t = pi, where (1 + cos t)/sin t would be.
    d = np.where(small, 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0,
                 1.0 / ts**2 - np.cos(ts / 2) / np.sin(ts / 2) / (2.0 * ts))
    S = _skew(phi)
    return np.eye(3) - 0.5 * S + d[..., None, None] * (S @ S)


def so3_right_jacobian_inverse(rotvec) -> np.ndarray:
    """Inverse of :func:`so3_right_jacobian`, ``J_r^-1(phi) = J_l^-1(-phi)``.

    Parameters
    ----------
    rotvec : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    return so3_left_jacobian_inverse(-as_batch_of(rotvec, (3,), "rotvec"))


def _check_frame(frame: str) -> None:
    if frame not in ("body", "inertial"):
        raise ValueError(f"`frame` must be 'body' or 'inertial'; got {frame!r}")


def euler_rate_matrix_inverse(angles, frame: str = "body") -> np.ndarray:
    """Map from Euler 3-2-1 rates to angular velocity, ``omega = E(angles) @ angles_dot``.

    Never singular.

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        ``(phi, theta, psi)`` [rad].
    frame : {"body", "inertial"}
        Frame of the angular velocity: body b or reference i.

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    _check_frame(frame)
    a = as_batch_of(angles, (3,), "angles")
    phi, theta, psi = a[..., 0], a[..., 1], a[..., 2]
    E = np.zeros(a.shape[:-1] + (3, 3))
    if frame == "body":
        sf, cf, st, ct = np.sin(phi), np.cos(phi), np.sin(theta), np.cos(theta)
        E[..., 0, 0] = 1.0
        E[..., 0, 2] = -st
        E[..., 1, 1] = cf
        E[..., 1, 2] = sf * ct
        E[..., 2, 1] = -sf
        E[..., 2, 2] = cf * ct
    else:
        sp, cp, st, ct = np.sin(psi), np.cos(psi), np.sin(theta), np.cos(theta)
        E[..., 0, 0] = cp * ct
        E[..., 0, 1] = -sp
        E[..., 1, 0] = sp * ct
        E[..., 1, 1] = cp
        E[..., 2, 0] = -st
        E[..., 2, 2] = 1.0
    return E


def euler_rate_matrix(angles, frame: str = "body") -> np.ndarray:
    """Map from angular velocity to Euler 3-2-1 rates, ``angles_dot = Gamma(angles) @ omega``.

    Body form (arXiv:2505.03248 App. B, Front. Robot. AI 5:41 (2018) §2.9 corrected)::

        [[1, sin(phi) tan(theta), cos(phi) tan(theta)],
         [0, cos(phi),            -sin(phi)          ],
         [0, sin(phi)/cos(theta), cos(phi)/cos(theta)]]

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        ``(phi, theta, psi)`` [rad].
    frame : {"body", "inertial"}
        Frame of the angular velocity.

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Raises
    ------
    ValueError
        At gimbal lock, ``|cos(theta)| < 1e-9``; use a quaternion there.
    """
    _check_frame(frame)
    a = as_batch_of(angles, (3,), "angles")
    phi, theta, psi = a[..., 0], a[..., 1], a[..., 2]
    ct = np.cos(theta)
    if np.any(np.abs(ct) < _GIMBAL_COS):
        raise ValueError("`angles`: Euler 3-2-1 rates are singular at theta = +-pi/2 (gimbal lock)")
    st = np.sin(theta)
    G = np.zeros(a.shape[:-1] + (3, 3))
    if frame == "body":
        sf, cf = np.sin(phi), np.cos(phi)
        G[..., 0, 0] = 1.0
        G[..., 0, 1] = sf * st / ct
        G[..., 0, 2] = cf * st / ct
        G[..., 1, 1] = cf
        G[..., 1, 2] = -sf
        G[..., 2, 1] = sf / ct
        G[..., 2, 2] = cf / ct
    else:
        sp, cp = np.sin(psi), np.cos(psi)
        G[..., 0, 0] = cp / ct
        G[..., 0, 1] = sp / ct
        G[..., 1, 0] = -sp
        G[..., 1, 1] = cp
        G[..., 2, 0] = cp * st / ct
        G[..., 2, 1] = sp * st / ct
        G[..., 2, 2] = 1.0
    return G


def quaternion_multiply(p, q) -> np.ndarray:
    """Hamilton product ``p * q`` of scalar-last quaternions (``dcm(p q) = dcm(p) dcm(q)``).

    Parameters
    ----------
    p, q : array_like, shape (..., 4)

    Returns
    -------
    ndarray, shape (..., 4)
    """
    p = as_batch_of(p, (4,), "p")
    q = as_batch_of(q, (4,), "q")
    broadcast_batches((p, 1, "p"), (q, 1, "q"))
    pv, pw = p[..., :3], p[..., 3:]
    qv, qw = q[..., :3], q[..., 3:]
    vec = pw * qv + qw * pv + np.cross(pv, qv)
    scal = pw * qw - np.einsum("...i,...i->...", pv, qv)[..., None]
    return np.concatenate([vec, scal], axis=-1)


def quaternion_conjugate(q) -> np.ndarray:
    """Conjugate ``[-x, -y, -z, w]`` (the inverse of a unit quaternion).

    Parameters
    ----------
    q : array_like, shape (..., 4)

    Returns
    -------
    ndarray, shape (..., 4)
    """
    q = as_batch_of(q, (4,), "q")
    return np.concatenate([-q[..., :3], q[..., 3:]], axis=-1)


def quaternion_derivative(quaternion, omega, frame: str = "body") -> np.ndarray:
    """Quaternion kinematics: ``q_dot = q * [omega_b, 0] / 2`` or ``[omega_i, 0] * q / 2``.

    Parameters
    ----------
    quaternion : array_like, shape (..., 4)
        Attitude ``[x, y, z, w]`` of body b in reference i.
    omega : array_like, shape (..., 3)
        Angular velocity [rad/s], in the frame named by ``frame``.
    frame : {"body", "inertial"}

    Returns
    -------
    ndarray, shape (..., 4)
    """
    _check_frame(frame)
    q = _check_quaternion(quaternion)
    w = as_batch_of(omega, (3,), "omega")
    pure = np.concatenate([w, np.zeros(w.shape[:-1] + (1,))], axis=-1)
    if frame == "body":
        return 0.5 * quaternion_multiply(q, pure)
    return 0.5 * quaternion_multiply(pure, q)


def quaternion_to_wxyz(q) -> np.ndarray:
    """Reorder a scalar-last quaternion ``[x, y, z, w]`` to scalar-first ``[w, x, y, z]`` (MuJoCo, SPART)."""
    q = as_batch_of(q, (4,), "q")
    return np.concatenate([q[..., 3:], q[..., :3]], axis=-1)


def quaternion_from_wxyz(q_wxyz) -> np.ndarray:
    """Reorder a scalar-first quaternion ``[w, x, y, z]`` to satdyn's scalar-last ``[x, y, z, w]``."""
    q = as_batch_of(q_wxyz, (4,), "q_wxyz")
    return np.concatenate([q[..., 1:], q[..., :1]], axis=-1)
