"""The linearised substructure blocks as stand-alone LFRs (spec 003 sections 3.2, 3.4)."""

import numpy as np
import pytest

from satdyn import lfr
from satdyn.equilibrium import (RevoluteJoint, RigidBody, Scaled, Weld, revolute_joint_block, rigid_body_block,
                                weld_block)




def test_torque_causality_joint_and_body_blocks_give_the_pendulum():
    """Joint block (torque causality, titop's actuated joint inside) + body block connected by
    signal names = (J_r + m l^2) s^2 + Kd s + m g l cos(theta) + Kp, with the trim wrench
    supplied as the bob's weight in the child frame (exact, 1e-10)."""
    m, theta, Jr, l, g0, Kp, Kd = 1.7, 0.5, 0.03, 0.7, 9.81, 0.4, 0.2
    joint = RevoluteJoint("J", parent=None, child="bob", axis=[1.0, 0.0, 0.0], angle=theta, stiffness=Kp,
                          damping=Kd, rotor_inertia=Jr)
    bob = RigidBody("bob", mass=m, com=Scaled(l, [0.0, 0.0, -1.0]))
    a_c = np.array([0.0, g0 * np.sin(theta), g0 * np.cos(theta)])     # P^T a, a = (0, 0, g0)
    com = np.array([0.0, 0.0, -l])
    Wbar = -np.concatenate([m * a_c, np.cross(com, m * a_c)])          # bob on joint: minus its weight
    jb = revolute_joint_block(joint, [0.0, 0.0, g0], Wbar, causality="torque")
    bb = rigid_body_block(bob)
    plant = lfr.interconnect([jb, bb], inputs=["T_J"], outputs=["theta_J", "dtheta_J"])
    sys = plant.evaluate()
    inertia = Jr + m * l**2
    np.testing.assert_allclose(sys.A, [[0.0, 1.0], [-(m * g0 * l * np.cos(theta) + Kp) / inertia, -Kd / inertia]],
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sys.B[:, 0], [0.0, 1.0 / inertia], rtol=1e-10)


def test_angle_causality_joint_block_signals_and_stiffness_term():
    """Angle causality: named signals; the residual's theta column is -Kp (no load through the
    joint) and the child's field turns with theta (da_c = -S_c abar_c dtheta), at every angle
    of the tan(theta/2) parameter (exact)."""
    theta = lfr.vreal("theta", 0.0, range=(-2.0, 2.0), transform="tan_half")
    joint = RevoluteJoint("J", parent="base", parent_port="C", child="arm", axis=[0.0, 0.0, 1.0], angle=theta,
                          stiffness=0.5)
    block = revolute_joint_block(joint, field_parent=[9.81, 0.0, 0.0], trim_wrench=np.zeros(6))
    assert set(block.input_names) >= {"a_base[0]", "acc_base@C[0]", "W_arm[0]", "ddtheta_J", "theta_J", "T_J"}
    assert set(block.output_names) >= {"a_arm[0]", "acc_arm[0]", "W_J[0]", "res_J"}
    for value in (-1.0, 0.3):
        D = block.evaluate({"theta": value})
        i_th = block.input_names.index("theta_J")
        assert D[block.output_names.index("res_J"), i_th] == pytest.approx(-0.5)
        abar_c = np.array([9.81 * np.cos(value), -9.81 * np.sin(value), 0.0])  # R_z(value)^T a
        expected = -np.cross([0.0, 0.0, 1.0], abar_c)
        got = [D[block.output_names.index(f"a_arm[{k}]"), i_th] for k in range(3)]
        np.testing.assert_allclose(got, expected, atol=1e-12)


def test_weld_block_rotates_motion_and_wrench():
    P = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    block = weld_block(Weld("W", parent="A", child="B", parent_port="C", dcm=P))
    D = block.evaluate()
    rows = [block.output_names.index(f"acc_B[{k}]") for k in range(6)]
    cols = [block.input_names.index(f"acc_A@C[{k}]") for k in range(6)]
    np.testing.assert_allclose(D[np.ix_(rows, cols)], np.kron(np.eye(2), P.T), atol=1e-14)


def test_blocks_reject_bad_input():
    joint = RevoluteJoint("J", parent=None, child="b", axis=[1, 0, 0])
    with pytest.raises(ValueError, match="causality"):
        revolute_joint_block(joint, causality="force")
    with pytest.raises(ValueError, match="rotor_inertia"):
        revolute_joint_block(joint, causality="torque")
    with pytest.raises(TypeError, match="RevoluteJoint"):
        revolute_joint_block("J")
    with pytest.raises(ValueError, match="field_parent"):
        revolute_joint_block(joint, field_parent=[0.0, 9.81])
    with pytest.raises(ValueError, match="parent"):
        rigid_body_block(RigidBody("b", mass=1.0), [joint])
