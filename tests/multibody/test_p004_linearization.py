"""arXiv:2505.03248 §8 test 13: at zero twist and g = 0 the non-linear model linearises to the linear TITOP model.

The linear TITOP side is satdyn.titop (independent code: LFR port models of rigid bodies and the
actuated revolute joint, assembled by ``connect``), built from the same bodies. The joint's
rotor inertia of the linear model (a thin rotor on the axis: inertia ``J_rot r r^T`` about any
point, massless) is given to the non-linear body as an extra inertia, which is exact.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import satdyn.multibody as mb
from satdyn.lfr import LFR
from satdyn.multibody.blocks import RevoluteBlock
from satdyn.titop import actuated_revolute_joint, connect, rigid_body

M_HUB, J_HUB, R_JOINT = 50.0, np.diag([10.0, 12.0, 9.0]), np.array([1.0, 0.2, -0.3])
M_A, J_A, COM_A, PORT_C = 4.0, np.array([[0.1, 0.02, 0], [0.02, 0.5, 0.01], [0, 0.01, 0.45]]), \
    np.array([0.7, 0.1, 0.0]), np.array([1.4, 0.0, 0.1])
ROTOR, THETA0 = 0.3, 0.4


def _joint_data(seed):
    rng = np.random.default_rng(seed)
    axis = rng.normal(size=3)
    return axis / np.linalg.norm(axis), Rotation.random(random_state=seed).as_matrix()


def _freqresp(A, B, C, D, s):
    return C @ np.linalg.solve(s * np.eye(A.shape[0]) - A, B) + D


@pytest.mark.parametrize("seed", [1, 2])
def test_system_jacobian_equals_linear_titop(seed):
    # Floating hub (reference point at its CoM) + revolute appendage with spring and damper,
    # linearised by satdyn.multibody.linearize at x' = 0, g = 0, theta = theta0 = spring rest.
    # Compared: the transfer from [root wrench at the CoM; motor torque] to [hub CoM
    # acceleration; theta_dd] at several frequencies. The non-linear A matrix comes from central
    # differences (step 1e-6: truncation ~1e-12, round-off ~1e-10 relative), B is exact, so 1e-7
    # relative is a safe bound independent of the BLAS.
    axis, P0 = _joint_data(seed)
    k, d = 20.0, 0.5
    b = mb.ModelBuilder()
    b.add_body(mb.body("B", M_HUB, inertia=J_HUB, ports={"J": R_JOINT}), mb.floating_root("root"))
    b.add_body(mb.body("A", M_A, com=COM_A, inertia=J_A + ROTOR * np.outer(axis, axis)),
               mb.revolute_joint("K", axis, rotation=P0, stiffness=k, damping=d, rest=THETA0), parent="B", port="J")
    model = b.build()
    q = model.neutral_configuration()
    q[-1] = THETA0
    lin = mb.linearize(model, q)
    nv = model.nv
    A, B = lin.A, lin.B
    C, D = A[nv:], B[nv:]                              # outputs: the accelerations v_dot

    hub = rigid_body("B", M_HUB, J_HUB, {"J": R_JOINT})
    joint = actuated_revolute_joint("K", axis, THETA0, offset=P0, rotor_inertia=ROTOR, stiffness=k, damping=d,
                                    frames=("B", "A"))
    body = rigid_body("A", M_A, J_A, {"P": -COM_A}, direct="P", com_port=None, frame="A")
    titop = connect([hub, joint, body], [("B.J", "K.parent"), ("K.child", "A.P")], external=["B.G"],
                    inputs=["K:Tm"], outputs=["K:qdd"]).lfr.nominal()
    for s in (0.5, 0.3j, 2.0j, 1.0 + 5.0j):   # not s = 0: the free base has rigid modes (poles at 0)
        g_nl = _freqresp(A, B, C, D, s)
        g_tt = _freqresp(titop.A, titop.B, titop.C, titop.D, s)
        assert np.abs(g_nl - g_tt).max() < 1e-7 * np.abs(g_tt).max()


def test_revolute_block_jacobian_equals_linear_titop_blocks():
    # The single revolute block (arXiv:2505.03248 eqs. 35, 45, 63) at zero twist and g = 0 is
    # affine in its inputs [parent acceleration (6), child-port wrench (6), C_m]; its exact
    # Jacobian (unit-input differences, round-off only) must equal the static gain of the
    # linear TITOP joint + body pair: W = tau^T W_C - D_P acc, m_C = tau acc, J_r theta_dd = ...
    axis, P0 = _joint_data(3)
    blk = RevoluteBlock(axis, M_A, com=COM_A, inertia=J_A + ROTOR * np.outer(axis, axis), ports={"C": PORT_C},
                        rotation=P0)
    base_motion = np.zeros(18)
    base_motion[15:18] = [0.3, -0.2, 0.5]   # attitude: irrelevant without gravity

    def outputs(u):
        m = base_motion.copy()
        m[:6] = u[:6]
        out = blk.forward(THETA0, 0.0, m, {"C": u[6:12]}, u[12])
        return np.concatenate([out.wrench_to_parent, out.motion["C"][:6], [out.joint[0]]])

    y0 = outputs(np.zeros(13))
    jac = np.column_stack([outputs(e) - y0 for e in np.eye(13)])
    assert np.abs(y0).max() < 1e-14

    joint = actuated_revolute_joint("K", axis, THETA0, offset=P0, rotor_inertia=ROTOR, frames=("B", "A"))
    body = rigid_body("A", M_A, J_A, {"P": -COM_A, "C": PORT_C - COM_A}, direct="P", com_port=None, frame="A")
    pair = connect([joint, body], [("K.child", "A.P")], external=["K.parent", "A.C"], inputs=["K:Tm"],
                   outputs=["K:qdd"]).lfr.nominal()
    names_in = [f"K:parent:acc[{i}]" for i in range(6)] + [f"A:C:W[{i}]" for i in range(6)] + ["K:Tm"]
    names_out = [f"K:parent:W[{i}]" for i in range(6)] + [f"A:C:acc[{i}]" for i in range(6)] + ["K:qdd"]
    rows = [list(pair.output_labels).index(n) for n in names_out]
    cols = [list(pair.input_labels).index(n) for n in names_in]
    static = pair.D[np.ix_(rows, cols)]
    assert np.abs(pair.C[rows]).max() < 1e-14            # no spring: the states do not reach these outputs
    np.testing.assert_allclose(jac, static, atol=1e-12 * np.abs(static).max())


def test_linearize_lfr_representation():
    # representation="lfr" is the same linear model as a satdyn.lfr LFR (no Delta): its nominal
    # value and its A, B, C, D are the state-space model's, names kept.
    b = mb.ModelBuilder(gravity=[0, 0, -9.81])
    b.add_body(mb.body("base", 1.0, ports={"tip": [0, 0, 1.0]}), mb.fixed_root())
    b.add_body(mb.body("link", 2.0, com=[0, 0, -0.8], inertia=np.eye(3) * 0.05), mb.revolute_joint("q1", [0, 1, 0]),
               parent="base", port="tip")
    model = b.build()
    ss = mb.linearize(model, [0.2])
    lfr = mb.linearize(model, [0.2], representation="lfr")
    assert isinstance(lfr, LFR) and lfr.ndelta == 0
    for name in "ABCD":
        np.testing.assert_array_equal(getattr(lfr, name), getattr(ss, name))
    assert list(lfr.input_names) == list(ss.input_labels)
    assert list(lfr.output_names) == list(ss.output_labels)
    # small oscillations about the hanging position: omega^2 = m g l / I_pivot (compound pendulum)
    lin0 = mb.linearize(model, [0.0])
    eig = np.linalg.eigvals(lin0.A)
    I_pivot = 0.05 + 2.0 * 0.8**2
    np.testing.assert_allclose(np.sort(np.abs(eig.imag)), np.sqrt(2.0 * 9.81 * 0.8 / I_pivot) * np.ones(2), rtol=1e-6)
    with pytest.raises(ValueError, match="representation"):
        mb.linearize(model, [0.0], representation="titop")
