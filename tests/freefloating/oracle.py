"""Test helpers: random physically valid systems and an independent Pinocchio free-flyer model.

Pinocchio (CRBA/ABA/RNEA, frame Jacobians) is the oracle; it is built here from the model's
joint placements, CoMs and inertias only — it never sees satdyn's algorithms.  Pinocchio
uses **body-frame** base velocities [R0ᵀv0; R0ᵀω0] (spec App. B); satdyn.freefloating follows
the paper's inertial-frame base twist, so tests convert at this boundary.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from satdyn.freefloating import SpacecraftManipulator
from satdyn.spatial import dcm_from_rotvec, quaternion_from_dcm


def random_inertia(rng, scale=1.0):
    """SPD inertia satisfying the triangle inequality (principal moments a <= b + c)."""
    e = np.sort(rng.uniform(0.5, 2.0, 3))
    e[2] = min(e[2], 0.95 * (e[0] + e[1]))
    R = dcm_from_rotvec(rng.normal(size=3))
    return scale * R @ np.diag(e) @ R.T


def random_model(n, seed=0) -> SpacecraftManipulator:
    """Random serial arm of n revolute joints with general placements (all offsets non-zero)."""
    rng = np.random.default_rng(seed)
    P = np.zeros((n, 4, 4))
    P[:, 3, 3] = 1.0
    for i in range(n):
        P[i, :3, :3] = dcm_from_rotvec(rng.normal(size=3))
        P[i, :3, 3] = rng.uniform(-0.6, 0.6, 3)
    E = np.eye(4)
    E[:3, :3] = dcm_from_rotvec(rng.normal(size=3))
    E[:3, 3] = rng.uniform(-0.5, 0.5, 3)
    return SpacecraftManipulator(
        base_mass=rng.uniform(50, 200), base_inertia=random_inertia(rng, 30.0), joint_placements=P,
        link_masses=rng.uniform(1, 10, n), link_coms=rng.uniform(-0.4, 0.4, (n, 3)),
        link_inertias=np.array([random_inertia(rng, 0.3) for _ in range(n)]), ee_placement=E,
        name=f"random-{n}", synthetic=True)


def pinocchio_model(model: SpacecraftManipulator, root=None):
    """Pinocchio free-flyer model (root = base CoM frame) + data + EE frame id; gravity zero.

    ``root``: the root joint model (default free-flyer; e.g. ``pin.JointModelSpherical()`` for a
    base pinned at the origin).
    """
    pm = pin.Model()
    pm.gravity = pin.Motion.Zero()
    root = pin.JointModelFreeFlyer() if root is None else root
    parent = pm.addJoint(0, root, pin.SE3.Identity(), "base")
    pm.appendBodyToJoint(parent, pin.Inertia(model.base_mass, np.zeros(3), model.base_inertia), pin.SE3.Identity())
    for i in range(model.n_joints):
        P = model.joint_placements[i]
        parent = pm.addJoint(parent, pin.JointModelRZ(), pin.SE3(P[:3, :3], P[:3, 3]), f"j{i + 1}")
        pm.appendBodyToJoint(parent, pin.Inertia(model.link_masses[i], model.link_coms[i], model.link_inertias[i]),
                             pin.SE3.Identity())
    E = model.ee_placement
    ee = pm.addFrame(pin.Frame("ee", parent, 0, pin.SE3(E[:3, :3], E[:3, 3]), pin.FrameType.OP_FRAME))
    return pm, pm.createData(), ee


def pin_configuration(r0, R0, q):
    return np.concatenate([r0, quaternion_from_dcm(R0), q])


def pin_velocity(R0, base_twist, qdot):
    return np.concatenate([R0.T @ base_twist[:3], R0.T @ base_twist[3:], qdot])


def random_state(rng, n):
    """Random base pose, joint angles and rates."""
    return (rng.normal(size=3), dcm_from_rotvec(rng.normal(size=3)), rng.uniform(-np.pi, np.pi, n),
            rng.normal(size=n))
