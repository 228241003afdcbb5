"""GJM of several end effectors of a tree on a free-floating base, against Pinocchio.

The tree: a spacecraft with two arms (one of them branching into two fingers) read from one
URDF by satdyn.multibody and by Pinocchio (free-flyer root). Oracle: the end-effector twists of
a zero-momentum motion in Pinocchio (base velocity from M_bb v_b + M_bm q̇ = 0 with Pinocchio's
CRBA, frame velocities LOCAL_WORLD_ALIGNED). Tolerance 1e-10: a few hundred ulps of O(1..100)
quantities through the 6x6 base solve on both sides. A serial arm must give the serial GJM of
satdyn.freefloating (a second route: the paper's closed-form blocks).
"""

import numpy as np
import pinocchio as pin
import pytest

from satdyn import freefloating as ff
from satdyn import multibody as mb
from test_from_urdf import _inertial, random_arm_urdf


def _joint(name, kind, parent, child, rng):
    xyz = rng.normal(size=3) * 0.4
    rpy = rng.uniform(-1, 1, 3)
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz[0]} {xyz[1]} {xyz[2]}" rpy="{rpy[0]} {rpy[1]} {rpy[2]}"/>'
            f'<axis xyz="{axis[0]} {axis[1]} {axis[2]}"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>')


def two_arm_urdf(rng):
    links = ['<link name="base">' + _inertial(rng, 400.0) + '</link>']
    joints = []
    tree = [("a1", "revolute", "base", "arm_a1"), ("a2", "revolute", "arm_a1", "arm_a2"),
            ("a3", "prismatic", "arm_a2", "arm_a3"), ("a_tool", "fixed", "arm_a3", "tool_a"),
            ("b1", "revolute", "base", "arm_b1"), ("b2", "revolute", "arm_b1", "arm_b2"),
            ("b_f1", "revolute", "arm_b2", "finger_1"), ("b_f2", "revolute", "arm_b2", "finger_2")]
    for name, kind, parent, child in tree:
        links.append(f'<link name="{child}"/>' if child == "tool_a" else
                     f'<link name="{child}">' + _inertial(rng, rng.uniform(1, 6)) + '</link>')
        joints.append(_joint(name, kind, parent, child, rng))
    return '<?xml version="1.0"?>\n<robot name="two_arms">' + "".join(links + joints) + "</robot>"


@pytest.mark.parametrize("seed", [0, 1])
def test_tree_gjm_matches_pinocchio(tmp_path, seed):
    rng = np.random.default_rng(seed)
    path = tmp_path / "two_arms.urdf"
    path.write_text(two_arm_urdf(rng))
    model = mb.load_urdf(path, floating=True)
    pm = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    pm.gravity = pin.Motion.Zero()
    data = pm.createData()
    ees = ["tool_a", "finger_1", "finger_2"]
    points = rng.normal(size=(3, 3)) * 0.1
    for _ in range(3):
        q = model.neutral_configuration()
        q[:3] = rng.normal(size=3)
        quat = rng.normal(size=4)
        q[3:7] = quat / np.linalg.norm(quat)
        q[7:] = rng.uniform(-1, 1, model.nq - 7)
        qdot = rng.normal(size=model.nv - 6)
        J = ff.tree_generalized_jacobians(model, q, ees, points)
        M = pin.crba(pm, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        v = np.r_[-np.linalg.solve(M[:6, :6], M[:6, 6:] @ qdot), qdot]
        pin.forwardKinematics(pm, data, q, v)
        pin.updateFramePlacements(pm, data)
        for e, (name, point) in enumerate(zip(ees, points)):
            frame = pm.getFrameId(name)
            twist = pin.getFrameVelocity(pm, data, frame, pin.LOCAL_WORLD_ALIGNED).vector
            R = data.oMf[frame].rotation
            omega = twist[3:]
            expected = np.r_[twist[:3] + np.cross(omega, R @ point), omega]
            assert np.allclose(J[e] @ qdot, expected, rtol=1e-10, atol=1e-10)


def test_serial_arm_gives_the_serial_gjm(tmp_path):
    """One arm: the tree route equals freefloating.generalized_jacobian (closed-form blocks)."""
    rng = np.random.default_rng(3)
    path = tmp_path / "arm.urdf"
    path.write_text(random_arm_urdf(rng, 4))
    serial = ff.from_urdf(path, end_effector="tool")
    model = mb.load_urdf(path, floating=True)
    q = rng.uniform(-1, 1, 4)
    full_q = np.r_[np.zeros(3), 0, 0, 0, 1, q]   # base frame at the identity attitude
    J_tree = ff.tree_generalized_jacobians(model, full_q, ["tool"])[0]
    assert np.allclose(J_tree, ff.generalized_jacobian(serial, q), rtol=1e-10, atol=1e-10)


def test_tree_gjm_bad_input():
    b = mb.ModelBuilder()
    b.add_body(mb.body("base", 10.0, inertia=np.eye(3)), mb.fixed_root("base"))
    b.add_body(mb.body("l", 1.0, inertia=np.eye(3)), mb.revolute_joint("j", [0, 0, 1]), parent="base")
    with pytest.raises(ValueError, match="`model`"):
        ff.tree_generalized_jacobians(b.build(), np.zeros(1), ["l"])
    with pytest.raises(TypeError, match="`model`"):
        ff.tree_generalized_jacobians("model", np.zeros(1), ["l"])
