"""Forward kinematics (DCM and quaternion routes), point velocities, system CoM.

Paper Front. Robot. AI 5:41 (2018) eqs. (1)-(25) in the general joint-placement form of :mod:`.model`.

Arguments (dimensions; ``...`` = any batch of configurations)
--------------------------------------------------------------
* ``model`` : :class:`SpacecraftManipulator` with N joints.
* ``q`` (..., N) [rad]; ``qdot`` (..., N) [rad/s].
* ``base_position`` (..., 3) [m], inertial frame; default 0.
* ``base_attitude`` (..., 3, 3) DCM P_{L0/J} (base axes in 𝒥); default identity.
* ``base_twist`` (..., 6) [v0; ω0] **in the inertial frame** (the paper's convention).
  :func:`base_twist_to_body` / :func:`base_twist_from_body` convert to/from satdyn's and
  Pinocchio's body-frame base velocity.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .._validation import as_batch_of, broadcast_batches
from ..spatial import dcm_from_quaternion, frame_change_matrix, quaternion_from_dcm, quaternion_multiply
from .model import SpacecraftManipulator

__all__ = [
    "Kinematics",
    "forward_kinematics",
    "forward_kinematics_quaternion",
    "point_velocity",
    "link_velocities",
    "system_com",
    "base_twist_to_body",
    "base_twist_from_body",
]


@dataclasses.dataclass(frozen=True)
class Kinematics:
    """Poses of one batch of configurations, all in the inertial frame 𝒥.

    Attributes
    ----------
    base_position : ndarray, shape (..., 3)
        r₀ (base CoM) [m].
    base_attitude : ndarray, shape (..., 3, 3)
        R₀ = P_{L0/J}.
    joint_positions : ndarray, shape (..., N, 3)
        pᵢ, origins of the joint frames 𝒥ᵢ (i = 1..N).
    joint_axes : ndarray, shape (..., N, 3)
        kᵢ, unit joint axes (eq. 5).
    link_attitudes : ndarray, shape (..., N, 3, 3)
        Attitude of the link body frames 𝒦ᵢ.
    link_coms : ndarray, shape (..., N, 3)
        rᵢ, link CoMs (eq. 10).
    link_inertias : ndarray, shape (..., N, 3, 3)
        Iᵢ in 𝒥 axes about CMᵢ (eq. 30).
    base_inertia : ndarray, shape (..., 3, 3)
        I₀ in 𝒥 axes.
    ee_position : ndarray, shape (..., 3)
    ee_attitude : ndarray, shape (..., 3, 3)
    """

    base_position: np.ndarray
    base_attitude: np.ndarray
    joint_positions: np.ndarray
    joint_axes: np.ndarray
    link_attitudes: np.ndarray
    link_coms: np.ndarray
    link_inertias: np.ndarray
    base_inertia: np.ndarray
    ee_position: np.ndarray
    ee_attitude: np.ndarray


def _cross(a, b):
    """Cross product over the last axis (3); np.cross's argument handling dominates small calls."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def _rz(q):
    c, s = np.cos(q), np.sin(q)
    R = np.zeros(q.shape + (3, 3))
    R[..., 0, 0], R[..., 0, 1], R[..., 1, 0], R[..., 1, 1], R[..., 2, 2] = c, -s, s, c, 1.0
    return R


def _check_config(model, q, base_position, base_attitude):
    """Validate and broadcast (q, r0, R0); returns arrays with a common batch shape."""
    if not isinstance(model, SpacecraftManipulator):
        raise TypeError(f"`model` must be a SpacecraftManipulator; got {type(model).__name__}")
    n = model.n_joints
    q = as_batch_of(q, (n,), "q")
    r0 = np.zeros(3) if base_position is None else as_batch_of(base_position, (3,), "base_position")
    R0 = np.eye(3) if base_attitude is None else as_batch_of(base_attitude, (3, 3), "base_attitude")
    batch = broadcast_batches((q, 1, "q"), (r0, 1, "base_position"), (R0, 2, "base_attitude"))
    return (np.broadcast_to(q, batch + (n,)), np.broadcast_to(r0, batch + (3,)),
            np.broadcast_to(R0, batch + (3, 3)))


def _assemble(model, r0, R0, p, k, RK):
    """Link CoMs and inertias from the body-frame attitudes and joint origins."""
    rc = p + np.einsum("...nij,nj->...ni", RK, model.link_coms)
    I = RK @ model.link_inertias @ np.swapaxes(RK, -1, -2)
    I0 = R0 @ model.base_inertia @ np.swapaxes(R0, -1, -2)
    return rc, I, I0


def forward_kinematics(model, q, base_position=None, base_attitude=None) -> Kinematics:
    """Joint origins and axes, link CoMs and inertias, end-effector pose by DCM products (eqs. 1-10).

    Parameters
    ----------
    model : SpacecraftManipulator
    q : array_like, shape (..., N)
    base_position : array_like, shape (..., 3), optional
    base_attitude : array_like, shape (..., 3, 3), optional

    Returns
    -------
    Kinematics
    """
    q, r0, R0 = _check_config(model, q, base_position, base_attitude)
    return _forward_kinematics(model, q, r0, R0)


def _forward_kinematics(model, q, r0, R0) -> Kinematics:
    n = model.n_joints
    batch = q.shape[:-1]
    p = np.empty(batch + (n, 3))
    k = np.empty(batch + (n, 3))
    RK = np.empty(batch + (n, 3, 3))
    Rz = _rz(q)
    R_prev, o_prev = R0, r0
    for i in range(n):
        P = model.joint_placements[i]
        RJ = R_prev @ P[:3, :3]
        p[..., i, :] = o_prev + R_prev @ P[:3, 3]
        k[..., i, :] = RJ[..., :, 2]
        R_prev = RJ @ Rz[..., i, :, :]
        RK[..., i, :, :] = R_prev
        o_prev = p[..., i, :]
    E = model.ee_placement
    rc, I, I0 = _assemble(model, r0, R0, p, k, RK)
    return Kinematics(r0, R0, p, k, RK, rc, I, I0, o_prev + R_prev @ E[:3, 3], R_prev @ E[:3, :3])


def _rotate(quat, v):
    """Rotate vectors by scalar-last unit quaternions, q ⊗ [v, 0] ⊗ q* (eq. 21), expanded."""
    e, w = quat[..., :3], quat[..., 3:]
    t = 2.0 * _cross(e, v)
    return v + w * t + _cross(e, t)


def forward_kinematics_quaternion(model, q, base_position=None, base_quaternion=None):
    """The same kinematics by quaternion products and rotated translations (eqs. 18-25).

    The chain runs end-to-end in quaternions, base attitude included (implementation notes §9 item 40);
    DCMs are formed only at the end, for the returned :class:`Kinematics`.

    Parameters
    ----------
    model : SpacecraftManipulator
    q : array_like, shape (..., N)
    base_position : array_like, shape (..., 3), optional
    base_quaternion : array_like, shape (..., 4), optional
        Base attitude, Hamilton scalar-last [x, y, z, w]; default identity.

    Returns
    -------
    kinematics : Kinematics
    link_quaternions : ndarray, shape (..., N, 4)
        Attitudes of the link body frames 𝒦ᵢ.
    ee_quaternion : ndarray, shape (..., 4)
    """
    n = model.n_joints
    qb = (np.array([0.0, 0.0, 0.0, 1.0]) if base_quaternion is None
          else as_batch_of(base_quaternion, (4,), "base_quaternion"))
    qb = qb / np.linalg.norm(qb, axis=-1, keepdims=True)
    q, r0, _ = _check_config(model, q, base_position, None)
    batch = broadcast_batches((q, 1, "q"), (qb, 1, "base_quaternion"))
    q, r0 = np.broadcast_to(q, batch + (n,)), np.broadcast_to(r0, batch + (3,))
    qb = np.broadcast_to(qb, batch + (4,))
    place_q = quaternion_from_dcm(model.joint_placements[:, :3, :3])
    half = 0.5 * q
    joint_q = np.zeros(batch + (n, 4))  # q_z(q_i) = [0, 0, sin(q/2), cos(q/2)]
    joint_q[..., 2], joint_q[..., 3] = np.sin(half), np.cos(half)
    p = np.empty(batch + (n, 3))
    k = np.empty(batch + (n, 3))
    link_q = np.empty(batch + (n, 4))
    q_prev, o_prev = qb, r0
    z = np.array([0.0, 0.0, 1.0])
    for i in range(n):
        P = model.joint_placements[i]
        qJ = quaternion_multiply(q_prev, place_q[i])
        p[..., i, :] = o_prev + _rotate(q_prev, P[:3, 3])
        k[..., i, :] = _rotate(qJ, z)
        q_prev = quaternion_multiply(qJ, joint_q[..., i, :])
        link_q[..., i, :] = q_prev
        o_prev = p[..., i, :]
    E = model.ee_placement
    ee_q = quaternion_multiply(q_prev, quaternion_from_dcm(E[:3, :3]))
    RK = dcm_from_quaternion(link_q)
    R0 = dcm_from_quaternion(qb)
    rc, I, I0 = _assemble(model, r0, R0, p, k, RK)
    kin = Kinematics(r0, R0, p, k, RK, rc, I, I0, o_prev + _rotate(q_prev, E[:3, 3]), dcm_from_quaternion(ee_q))
    return kin, link_q, ee_q


def point_velocity(kin: Kinematics, link: int, point, base_twist, qdot) -> np.ndarray:
    """Twist [v_X; ω] of a point X fixed on link ``link`` (0 = base), eqs. (15)-(16).

    Parameters
    ----------
    kin : Kinematics
    link : int
        0..N.
    point : array_like, shape (..., 3)
        Inertial position x of the point [m].
    base_twist : array_like, shape (..., 6)
        [v0; ω0] in 𝒥.
    qdot : array_like, shape (..., N)

    Returns
    -------
    ndarray, shape (..., 6)
    """
    n = kin.joint_axes.shape[-2]
    if not 0 <= int(link) <= n:
        raise ValueError(f"`link` must be in 0..{n}; got {link}")
    x = as_batch_of(point, (3,), "point")
    tw = as_batch_of(base_twist, (6,), "base_twist")
    qd = as_batch_of(qdot, (n,), "qdot")
    v = tw[..., :3] + _cross(tw[..., 3:], x - kin.base_position)
    w = tw[..., 3:] + 0.0 * v
    for j in range(int(link)):
        kj = kin.joint_axes[..., j, :]
        v = v + _cross(kj, x - kin.joint_positions[..., j, :]) * qd[..., j, None]
        w = w + kj * qd[..., j, None]
    return np.concatenate([v, w], axis=-1)


def link_velocities(kin: Kinematics, base_twist, qdot):
    """CoM velocities ṙᵢ and angular velocities ωᵢ of every link (eqs. 15-16 at x = rᵢ).

    Returns
    -------
    com_velocities : ndarray, shape (..., N, 3)
    angular_velocities : ndarray, shape (..., N, 3)
    """
    tw = np.asarray(base_twist, dtype=float)
    qd = np.asarray(qdot, dtype=float)
    kq = kin.joint_axes * qd[..., :, None]  # kᵢ q̇ᵢ
    w = tw[..., None, 3:] + np.cumsum(kq, axis=-2)
    # ṙᵢ = v0 + ω0×(rᵢ−r0) + Σ_{j≤i} q̇ⱼ kⱼ×(rᵢ−pⱼ), written with running sums.
    rel = kin.link_coms - kin.base_position[..., None, :]
    v = tw[..., None, :3] + _cross(tw[..., None, 3:], rel)
    v = v + _cross(np.cumsum(kq, axis=-2), kin.link_coms) - np.cumsum(_cross(kq, kin.joint_positions), axis=-2)
    return v, w


def system_com(model, kin: Kinematics) -> np.ndarray:
    """System centre of mass r_C (eq. 12), inertial frame [m], shape (..., 3)."""
    m = model.link_masses
    return (model.base_mass * kin.base_position + np.einsum("n,...ni->...i", m, kin.link_coms)) / model.total_mass


def base_twist_to_body(base_attitude, base_twist) -> np.ndarray:
    """Inertial-frame base twist [v0; ω0]_J (paper) → body-frame [R0ᵀv0; R0ᵀω0] (satdyn, Pinocchio)."""
    R0 = as_batch_of(base_attitude, (3, 3), "base_attitude")
    tw = as_batch_of(base_twist, (6,), "base_twist")
    return np.einsum("...ji,...j->...i", frame_change_matrix(R0), tw)


def base_twist_from_body(base_attitude, body_twist) -> np.ndarray:
    """Body-frame base twist (satdyn, Pinocchio) → the paper's inertial-frame [v0; ω0]."""
    R0 = as_batch_of(base_attitude, (3, 3), "base_attitude")
    tw = as_batch_of(body_twist, (6,), "body_twist")
    return np.einsum("...ij,...j->...i", frame_change_matrix(R0), tw)

