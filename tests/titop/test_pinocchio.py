"""Rigid trees against Pinocchio (test oracle only).

* frozen joints: the robot's one-port model at the docked foot equals -(composite rigid
  inertia of the same tree at the same angles), Pinocchio's ``data.oYcrb[0]`` after ``crba``;
* actuated revolute / prismatic joints (angle causality, fixed base): the static map
  joint accelerations -> joint forces is the joint-space mass matrix, Pinocchio's ``crba``;
  in torque causality with rotor inertia the feedthrough forces -> accelerations is its inverse.

Pinocchio's spatial inertia is [linear; angular] about the frame origin, the same layout as
satdyn's rigid mass matrix. Tolerance 1e-10 relative: both sides are exact algebra.
"""

import numpy as np
import pinocchio as pin
import pytest
from scipy.linalg import expm

from satdyn.spatial import skew
from satdyn.titop import actuated_revolute_joint, connect, prismatic_joint, rigid_body
from satdyn.titop.data import load_robot
from satdyn.titop.models import robot_subsystem


def _rot(rng):
    return expm(skew(rng.normal(size=3)))


def _add_link(model, parent, placement, joint, name, inertia):
    jid = model.addJoint(parent, joint, placement, name)
    model.appendBodyToJoint(jid, inertia, pin.SE3.Identity())
    return jid


def _robot_pinocchio(robot, angles, dock):
    """The robot tree rooted at the docked foot: docked arm up, hub, other arms down."""
    arm = robot.arm
    model = pin.Model()
    q = []
    a = dock - 1

    def link_inertia(i):
        return pin.Inertia(arm.link_masses[i], arm.link_coms[i], arm.link_inertias[i])

    # docked arm: frame l0 = world at the foot; joint k at J_k with P_{l_k/l_{k-1}} = P0 expm(a v)
    parent = _add_link(model, 0, pin.SE3.Identity(), pin.JointModelRevoluteUnaligned(0, 0, 1), "a0_fix",
                       link_inertia(0))
    q.append(0.0)                         # dummy joint fixed at 0 about z (l0 = world)
    for k in range(1, 6):
        M = pin.SE3(arm.offsets[k - 1], arm.link_vectors[k - 1])
        parent = _add_link(model, parent, M, pin.JointModelRevoluteUnaligned(*arm.axes[k - 1]), f"a{k}",
                           link_inertia(k))
        q.append(angles[a][k - 1])
    # hub frame c at J6 of the docked arm: P_{c/l5} = P_l5_c[a]^T; CoM D = J6 - P_c r_D_J6[a]
    Pc = robot.P_l5_c[a].T
    hub = pin.SE3(Pc, arm.link_vectors[5])
    D_in_c = -robot.r_D_J6[a]
    hub_id = _add_link(model, parent, hub, pin.JointModelRevoluteUnaligned(0, 0, 1), "hub",
                       pin.Inertia(robot.hub_mass, D_in_c, robot.hub_inertia))
    q.append(0.0)
    for k in range(3):
        if k == a:
            continue
        # walk down arm k; loop invariant: the current joint frame sits at J_{i+1} with the
        # rotation of l_i.  Joint i (at J_i) rotates l_{i-1} relative to l_i by
        # P_{l_{i-1}/l_i} = (P0_i expm(alpha_i *v_i))^T = P0_i^T expm(-alpha_i *(P0_i v_i)).
        M = pin.SE3(robot.P_l5_c[k], D_in_c + robot.r_D_J6[k])
        parent = model.addJoint(hub_id, pin.JointModelRevoluteUnaligned(0, 0, 1), M, f"b{k}6")
        q.append(0.0)
        for i in range(5, -1, -1):
            r = arm.link_vectors[i]
            model.appendBodyToJoint(parent, link_inertia(i), pin.SE3(np.eye(3), -r))
            if i == 0:
                break
            P0, v = arm.offsets[i - 1], arm.axes[i - 1]
            parent = model.addJoint(parent, pin.JointModelRevoluteUnaligned(*(-(P0 @ v))), pin.SE3(P0.T, -r),
                                    f"b{k}{i}")
            q.append(angles[k][i - 1])
    return model, np.array(q)


@pytest.mark.parametrize("dock, seed", [(1, 0), (2, 1)])
def test_frozen_robot_tree_is_pinocchio_composite_inertia(dock, seed):
    robot = load_robot("Y45")
    angles = np.random.default_rng(seed).uniform(-np.pi, np.pi, (3, 5))
    model, q = _robot_pinocchio(robot, angles, dock)
    data = model.createData()
    pin.crba(model, data, q)
    # composite inertia of joint 1's subtree (the whole tree) in joint 1's frame = the foot frame
    Y = data.Ycrb[1]
    oracle = Y.matrix() if hasattr(Y, "matrix") else np.asarray(Y)
    assert oracle[0, 0] == pytest.approx(130.0)
    sub = robot_subsystem(dock=dock, carry_tile=False, angles=angles)
    G = sub.lfr.nominal()
    np.testing.assert_allclose(-G, oracle, rtol=1e-10, atol=1e-10 * np.abs(oracle).max())


def _random_chain(rng, kinds):
    links = []
    for _ in kinds:
        m = rng.uniform(1, 5)
        # a physical inertia: principal moments from positive second moments (a, b, c)
        # (I1 = b + c, ...: the triangle inequality holds), in a random principal frame
        a, b, c = rng.uniform(0.2, 2.0, 3)
        Q = _rot(rng)
        J = Q @ np.diag([b + c, a + c, a + b]) @ Q.T
        links.append((m, rng.normal(size=3) * 0.3, J, rng.normal(size=3) * 0.5))   # mass, com, J_G, r_i
    axes = [v / np.linalg.norm(v) for v in rng.normal(size=(len(kinds), 3))]
    offsets = [_rot(rng) for _ in kinds]
    q = rng.uniform(-2, 2, len(kinds))
    return links, axes, offsets, q


def _pin_chain(links, axes, offsets, kinds, armature):
    model = pin.Model()
    parent = 0
    prev_r = np.zeros(3)
    for k, kind in enumerate(kinds):
        joint = (pin.JointModelRevoluteUnaligned(*axes[k]) if kind == "R"
                 else pin.JointModelPrismaticUnaligned(*axes[k]))
        jid = model.addJoint(parent, joint, pin.SE3(offsets[k], prev_r), f"j{k}")
        m, c, J, r = links[k]
        model.appendBodyToJoint(jid, pin.Inertia(m, c, J), pin.SE3.Identity())
        parent, prev_r = jid, r
    model.armature = np.asarray(armature, dtype=float)
    return model


def _titop_chain(links, axes, offsets, q, kinds, causality, armature):
    blocks, wires, ins, outs = [], [], [], []
    for k, kind in enumerate(kinds):
        m, c, J, r = links[k]
        frames = (f"l{k - 1}", f"l{k}")
        if kind == "R":
            j = actuated_revolute_joint(f"j{k}", axes[k], q[k], offset=offsets[k], rotor_inertia=armature[k],
                                        causality=causality, frames=frames)
        else:
            # prismatic: the linearisation point is the displaced configuration; its offset
            # along the axis is a constant translation of the child port, folded into the
            # parent link's next-joint vector below.
            j = prismatic_joint(f"j{k}", axes[k], offset=offsets[k], slider_mass=armature[k],
                                causality={"angle": "acceleration", "torque": "force"}[causality], frames=frames)
        blocks.append(j)
        blocks.append(rigid_body(f"L{k}", m, J, {"Ji": -c, "Jn": r - c}, direct="Ji", com_port=None,
                                 frame=f"l{k}"))
        wires.append((f"j{k}.child", f"L{k}.Ji"))
        if k:
            wires.append((f"L{k - 1}.Jn", f"j{k}.parent"))
        if causality == "angle":
            ins.append(f"j{k}:qdd")
            outs.append(f"j{k}:Tr")
        else:
            ins.append(f"j{k}:Tm")
            outs.append(f"j{k}:qdd")
    free = ["j0.parent", f"L{len(kinds) - 1}.Jn"]
    return connect(blocks, wires, free=free, inputs=ins, outputs=outs)


@pytest.mark.parametrize("kinds", ["RRR", "RPR", "PRRR"])
def test_actuated_chain_mass_matrix_is_crba(kinds):
    rng = np.random.default_rng(len(kinds) + kinds.count("P"))
    links, axes, offsets, q = _random_chain(rng, kinds)
    # prismatic joints are linearised at displacement 0 in this construction
    q = np.array([qi if k == "R" else 0.0 for qi, k in zip(q, kinds)])
    zero = np.zeros(len(kinds))
    model = _pin_chain(links, axes, offsets, kinds, zero)
    data = model.createData()
    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    sys = _titop_chain(links, axes, offsets, q, kinds, "angle", zero)
    np.testing.assert_allclose(sys.lfr.nominal(), M, rtol=1e-10, atol=1e-10 * np.abs(M).max())
    # torque causality with rotor inertia / slider mass: feedthrough = M_J^-1, where the rotor
    # (spec 003: inertia J r r^T attached to the child body) / slider (mass m_J along r) adds
    # J j j^T with j = the child's angular (revolute) / linear (prismatic) velocity Jacobian
    # along the axis, from Pinocchio's joint Jacobians in the joint (= child) frame.
    arm = rng.uniform(0.1, 0.5, len(kinds))
    pin.computeJointJacobians(model, data, q)
    MJ = M.copy()
    for k, kind in enumerate(kinds):
        Jk = pin.getJointJacobian(model, data, k + 1, pin.ReferenceFrame.LOCAL)
        j = (Jk[3:] if kind == "R" else Jk[:3]).T @ axes[k]
        MJ += arm[k] * np.outer(j, j)
    sys_t = _titop_chain(links, axes, offsets, q, kinds, "torque", arm)
    ss = sys_t.lfr.nominal()
    np.testing.assert_allclose(ss.D, np.linalg.inv(MJ), rtol=1e-9, atol=1e-12)
