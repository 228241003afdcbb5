"""Forward kinematics of the arm and the three-arm robot, and their composite rigid mass matrices.

These are the numeric (non-LFR) oracles of the arm and robot blocks (arXiv:2409.06017
"physical meaning and key test", section 2.6.4 "what the robot subsystem reduces to").

Arguments
---------
arm : ArmGeometry            link vectors (6, 3), CoMs (6, 3), masses (6,), inertias (6, 3, 3),
                             axes (5, 3), offsets (5, 3, 3)
angles : (5,) or (3, 5)      joint angles [rad] of one arm or of arms R1, R2, R3
dock : 1 or 2                docked leg (its foot J0 is the root, frame l0 = the structure frame)
carry_tile : bool            the tile hangs at J0 of arm R3 (frame t = l0 of R3)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..spatial import rigid_mass_matrix
from .data import ArmGeometry, RobotData

__all__ = ["RobotPose", "arm_chain_up", "arm_chain_down", "robot_pose",
           "arm_mass_matrix_at_foot", "robot_mass_matrix"]


def _check_angles(angles, shape, name="angles") -> np.ndarray:
    a = np.asarray(angles, dtype=float)
    if a.shape != shape:
        raise ValueError(f"`{name}` must have shape {shape} [rad]; got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"`{name}` must be finite")
    return a


def arm_chain_up(arm: ArmGeometry, angles, J0, P_l0) -> tuple[np.ndarray, np.ndarray]:
    """Joint points J_0..J_6 (7, 3) and link DCMs P_{l_i/w} (6, 3, 3), walking from the foot J0."""
    angles = _check_angles(angles, (5,))
    points = [np.asarray(J0, dtype=float)]
    dcms = [np.asarray(P_l0, dtype=float)]
    for i in range(6):
        points.append(points[i] + dcms[i] @ arm.link_vectors[i])
        if i < 5:
            dcms.append(dcms[i] @ arm.joint_dcm(i + 1, angles[i]))
    return np.array(points), np.array(dcms)


def arm_chain_down(arm: ArmGeometry, angles, J6, P_l5) -> tuple[np.ndarray, np.ndarray]:
    """Same as :func:`arm_chain_up`, walking from the hub side J6 with P_{l5/w} given."""
    angles = _check_angles(angles, (5,))
    dcms = [None] * 6
    points = [None] * 7
    dcms[5] = np.asarray(P_l5, dtype=float)
    points[6] = np.asarray(J6, dtype=float)
    for i in range(5, -1, -1):
        points[i] = points[i + 1] - dcms[i] @ arm.link_vectors[i]
        if i > 0:
            dcms[i - 1] = dcms[i] @ arm.joint_dcm(i, angles[i - 1]).T
    return np.array(points), np.array(dcms)


def _links_mass_matrix(arm, points, dcms, P) -> np.ndarray:
    r = points[:6] + np.einsum("kij,kj->ki", dcms, arm.link_coms) - P
    J = dcms @ arm.link_inertias @ np.swapaxes(dcms, -1, -2)
    return rigid_mass_matrix(arm.link_masses, J, r).sum(axis=0)


def arm_mass_matrix_at_foot(arm: ArmGeometry, angles) -> np.ndarray:
    """Composite rigid mass matrix of the six links at J0, frame l0 (J6 free)."""
    points, dcms = arm_chain_up(arm, angles, np.zeros(3), np.eye(3))
    return _links_mass_matrix(arm, points, dcms, np.zeros(3))


@dataclass(frozen=True)
class RobotPose:
    """Pose of the robot in the frame of the docked foot (origin at that foot).

    ``points[k]`` (7, 3) joint points and ``dcms[k]`` (6, 3, 3) link DCMs of arm R(k+1);
    ``hub_com`` D and ``hub_dcm`` P_{c/root}.
    """

    points: np.ndarray
    dcms: np.ndarray
    hub_com: np.ndarray
    hub_dcm: np.ndarray


def robot_pose(robot: RobotData, angles, dock: int = 1) -> RobotPose:
    """Forward kinematics of the robot rooted at the docked foot (frame l0 of the docked leg)."""
    angles = _check_angles(angles, (3, 5))
    if dock not in (1, 2):
        raise ValueError(f"`dock` must be 1 or 2 (the docked leg); got {dock!r}")
    a = dock - 1
    points = [None] * 3
    dcms = [None] * 3
    points[a], dcms[a] = arm_chain_up(robot.arm, angles[a], np.zeros(3), np.eye(3))
    P_c = dcms[a][5] @ robot.P_l5_c[a].T
    D = points[a][6] - P_c @ robot.r_D_J6[a]
    for k in range(3):
        if k != a:
            points[k], dcms[k] = arm_chain_down(robot.arm, angles[k], D + P_c @ robot.r_D_J6[k],
                                                P_c @ robot.P_l5_c[k])
    return RobotPose(np.array(points), np.array(dcms), D, P_c)


def robot_mass_matrix(robot: RobotData, angles, dock: int = 1, carry_tile: bool = False) -> np.ndarray:
    """D^rob_{Cj}: composite rigid mass matrix of the robot at the docked foot, its frame.

    18 links + hub C (+ the tile at J0 of R3 when ``carry_tile``), arXiv:2409.06017
    """
    pose = robot_pose(robot, angles, dock)
    D = sum(_links_mass_matrix(robot.arm, pose.points[k], pose.dcms[k], np.zeros(3)) for k in range(3))
    D = D + rigid_mass_matrix(robot.hub_mass, pose.hub_dcm @ robot.hub_inertia @ pose.hub_dcm.T, pose.hub_com)
    if carry_tile:
        P_t = pose.dcms[2][0]
        D = D + rigid_mass_matrix(robot.tile_mass, P_t @ robot.tile_inertia @ P_t.T, pose.points[2][0])
    return D
