"""The Virtual Manipulator of a free-floating spacecraft-manipulator (Vafa & Dubowsky, 1990).

With zero linear momentum the system centre of mass C stays fixed in inertial space. Writing
the end-effector position from C gives a massless kinematic chain, the *Virtual Manipulator*
(VM): its "virtual ground" is C, its joints have the real joints' axes and angles, and its
link vectors are the real link vectors scaled by cumulative mass fractions (a spherical joint
at C carries the base attitude). With ``W_j = (m_0 + ... + m_j) / m_tot`` and, per link,
``a_j`` (CoM of link j -> joint j+1, or -> end effector for the last link) and ``b_j``
(joint j -> CoM of link j), all body-fixed vectors:

    r_E = r_C + W_0 a_0 + sum_j (W_{j-1} b_j + W_j a_j)          (exact, any configuration)

The introduction of Front. Robot. AI 5:41 (2018) cites the VM (and the Dynamically
Equivalent Manipulator) as the classical alternative to the Generalized Jacobian; here it is
built from the same kinematics and checked against the GJM end-effector map: with zero
momentum the end-effector velocity is ``ω0 × (r_E − r_C) + Σ k_j × (r_E − P_j) q̇_j`` over the
VM joints P_j, which equals ``J* q̇``.

``virtual_manipulator(model, q, base_position=None, base_attitude=None) -> VirtualManipulator``
(batched like every function of this package).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .kinematics import _cross, forward_kinematics

__all__ = ["VirtualManipulator", "virtual_manipulator"]


@dataclasses.dataclass(frozen=True)
class VirtualManipulator:
    """The VM at a batch of configurations, inertial frame.

    Attributes
    ----------
    ground : ndarray, shape (..., 3)
        Virtual ground: the system centre of mass r_C [m].
    link_vectors : ndarray, shape (..., N + 1, 3)
        V_0 (ground -> VM joint 1) and V_j (VM joint j -> j+1, the last one -> end effector) [m].
    joint_positions : ndarray, shape (..., N, 3)
        VM joint points P_j [m].
    joint_axes : ndarray, shape (..., N, 3)
        Unit axes (the real joints' axes).
    ee_position : ndarray, shape (..., 3)
        End of the VM = the real end effector [m].
    mass_fractions : ndarray, shape (N + 1,)
        W_0 .. W_N.
    """

    ground: np.ndarray
    link_vectors: np.ndarray
    joint_positions: np.ndarray
    joint_axes: np.ndarray
    ee_position: np.ndarray
    mass_fractions: np.ndarray

    def end_effector_velocity(self, base_angular_velocity, qdot) -> np.ndarray:
        """End-effector velocity [m/s] (..., 3) with the ground at rest (zero linear momentum).

        ``base_angular_velocity`` (..., 3) ω0 in the inertial frame (every VM link turns with its
        real link, the first with the base); ``qdot`` (..., N) [rad/s].
        """
        w0 = np.asarray(base_angular_velocity, dtype=float)
        qd = np.asarray(qdot, dtype=float)
        arm = self.ee_position[..., None, :] - self.joint_positions
        v = _cross(w0, self.ee_position - self.ground)
        return v + (_cross(self.joint_axes, arm) * qd[..., :, None]).sum(axis=-2)


def virtual_manipulator(model, q, base_position=None, base_attitude=None) -> VirtualManipulator:
    """The Virtual Manipulator at configurations ``q`` (..., N) (see the module doc).

    Parameters
    ----------
    model : SpacecraftManipulator
    q : array_like, shape (..., N)
    base_position : array_like, shape (..., 3), optional
    base_attitude : array_like, shape (..., 3, 3), optional

    Returns
    -------
    VirtualManipulator
    """
    kin = forward_kinematics(model, q, base_position, base_attitude)
    masses = np.concatenate([[model.base_mass], model.link_masses])
    W = np.cumsum(masses) / masses.sum()
    p, rc = kin.joint_positions, kin.link_coms
    ends = np.concatenate([p[..., 1:, :], kin.ee_position[..., None, :]], axis=-2)
    a0 = p[..., 0, :] - kin.base_position                 # base CoM -> joint 1
    V = np.concatenate([(W[0] * a0)[..., None, :],
                        W[:-1, None] * (rc - p) + W[1:, None] * (ends - rc)], axis=-2)
    ground = (masses[0] * kin.base_position + np.einsum("n,...ni->...i", model.link_masses, rc)) / masses.sum()
    joints = ground[..., None, :] + np.cumsum(V, axis=-2)
    return VirtualManipulator(ground=ground, link_vectors=V, joint_positions=joints[..., :-1, :],
                              joint_axes=kin.joint_axes, ee_position=joints[..., -1, :], mass_fractions=W)
