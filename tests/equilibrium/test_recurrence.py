"""Steps 1-3 of the algorithm, numerically (NumericAlgebra) and as LFRs, against
independent references: the analytic arm (spec 003 section 5.3), the Appendix A
recursion, and the potential/Jacobian model of section 3.6 for random 3-D chains."""

import numpy as np
import pytest

from equilibrium_oracles import appendix_a_matrices, chain_tree, potential_reference, random_chain
from satdyn import lfr
from satdyn.equilibrium import (GEOMETRIES, EquilibriumTree, RevoluteJoint, RigidBody, Scaled, arm_gravity_stiffness,
                                arm_mass_matrix, arm_static_torques, backward_recurrence, equilibrium_lfr,
                                equilibrium_linearisation, forward_recurrence, linear_inverse_dynamics,
                                load_two_link_arm, two_link_arm_tree)
from satdyn.equilibrium._algebra import LFRAlgebra, NumericAlgebra
from satdyn.equilibrium.body import body_linear_wrench, body_mass_matrix
from satdyn.equilibrium.joint import (joint_dcm, revolute_equilibrium_field, revolute_equilibrium_wrench,
                                      revolute_zero_field_wrench)


def _numeric(tree):
    alg = NumericAlgebra()
    trim = backward_recurrence(alg, tree, forward_recurrence(alg, tree))
    M, K = linear_inverse_dynamics(alg, tree, trim)
    T = np.array([trim.static_torque[j.name].item() for j in tree.joints])
    return T, M, K


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_T6_T7_arm_static_torques_mass_and_stiffness_equal_analytic(geometry):
    """T6/T7 on 200 random (angle, parameter) samples: the recursion against the hand-derived
    Lagrangian; both are exact, so only round-off remains (1e-10 relative)."""
    rng = np.random.default_rng(3)
    for arm in load_two_link_arm(geometry).sample(200, rng):
        arm = arm.with_values(rotor_inertia=rng.uniform(0.0, 0.2))
        th = rng.uniform(-np.pi, np.pi, 2)
        T, M, K = _numeric(two_link_arm_tree(arm, th))
        np.testing.assert_allclose(T, arm_static_torques(arm, th), rtol=0, atol=1e-10 * 150)
        np.testing.assert_allclose(M, arm_mass_matrix(arm, th[1]), rtol=0, atol=1e-10 * 40)
        np.testing.assert_allclose(K, arm_gravity_stiffness(arm, th), rtol=0, atol=1e-10 * 150)
        np.testing.assert_allclose(K, K.T, atol=1e-12)
        assert np.all(np.linalg.eigvalsh(M) > 0)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_T10_random_3d_chains_against_potential_reference_and_appendix_a(n):
    """T10: skewed axes, random P0, full inertias, oblique field. Reference of section 3.6:
    Tbar and M exact (1e-10), K from central differences of the analytic gradient (1e-6
    relative, the difference error with h = 1e-6). Appendix A (as printed) must agree to
    round-off with the product recursion."""
    rng = np.random.default_rng(100 + n)
    for _ in range(3):
        chain = random_chain(n, rng)
        q = rng.uniform(-np.pi, np.pi, n)
        T, M, K = _numeric(chain_tree(chain, q))
        T_ref, M_ref, K_ref = potential_reference(chain, q)
        scale = np.abs(K_ref).max()
        np.testing.assert_allclose(T, T_ref, rtol=0, atol=1e-10 * np.abs(T_ref).max())
        np.testing.assert_allclose(M, M_ref, rtol=0, atol=1e-10 * np.abs(M_ref).max())
        np.testing.assert_allclose(K, K_ref, rtol=0, atol=1e-6 * scale)
        np.testing.assert_allclose(K, K.T, rtol=0, atol=1e-12 * scale)
        T_a, M_a, K_a = appendix_a_matrices(chain, q)
        for got, ref in ((T, T_a), (M, M_a), (K, K_a)):
            np.testing.assert_allclose(got, ref, rtol=0, atol=1e-11 * max(scale, 1.0))


def test_step1_attitudes_and_fields_equal_forward_kinematics():
    """Step 1 on a random 5-joint chain: body attitudes P_{b/i} equal the forward kinematics of
    the reference (Rodrigues products) and abar_b = P_{b/i}^T a (1e-12); the LFR version of
    step 1 evaluates to the same."""
    from equilibrium_oracles import _forward_kinematics

    rng = np.random.default_rng(31)
    chain = random_chain(5, rng)
    q = rng.uniform(-3.0, 3.0, 5)
    trim = forward_recurrence(NumericAlgebra(), chain_tree(chain, q))
    R = _forward_kinematics(chain, q)[0]
    for k in range(5):
        np.testing.assert_allclose(trim.attitude[f"B{k}"], R[k], atol=1e-12)
        np.testing.assert_allclose(trim.field[f"B{k}"][:, 0], R[k].T @ chain["a"], atol=1e-12 * 10)
    angles = [lfr.vreal(f"q{k}", 0.0, range=(-3.0, 3.0), transform="tan_half") for k in range(5)]
    sym = forward_recurrence(LFRAlgebra(), chain_tree(chain, angles))
    values = {f"q{k}": q[k] for k in range(5)}
    np.testing.assert_allclose(sym.attitude["B4"].evaluate(values), R[4], atol=1e-12)


def test_T10_chain_as_lfr_equals_numeric_route():
    """A 3-joint 3-D chain with all angles as tan(theta/2) parameters and one mass as a
    parameter: the LFR evaluated at random points equals the numeric recursion (1e-10)."""
    rng = np.random.default_rng(5)
    chain = random_chain(3, rng)
    angles = [lfr.vreal(f"q{k}", 0.0, range=(-3.0, 3.0), transform="tan_half") for k in range(3)]
    m1 = lfr.ureal("m1", chain["m"][1], percent=20)
    tree = chain_tree(chain, angles)
    bodies = list(tree.bodies)
    bodies[1] = RigidBody("B1", mass=m1, inertia=chain["J"][1], com=chain["PB"][1], ports={"C": chain["PC"][1]})
    tree = EquilibriumTree(bodies=tuple(bodies), connections=tree.connections,
                           field_acceleration=chain["a"])
    model = equilibrium_lfr(tree)
    for _ in range(3):
        q = rng.uniform(-3.0, 3.0, 3)
        mass = chain["m"][1] * rng.uniform(0.8, 1.2)
        values = {"q0": q[0], "q1": q[1], "q2": q[2], "m1": mass}
        chain_k = dict(chain, m=[chain["m"][0], mass, chain["m"][2]])
        lin = equilibrium_linearisation(chain_tree(chain_k, q))
        sys = model.plant.evaluate(values)
        np.testing.assert_allclose(sys.A, lin.A, rtol=0, atol=1e-9 * np.abs(lin.A).max())
        np.testing.assert_allclose(sys.B, lin.B, rtol=0, atol=1e-9 * np.abs(lin.B).max())
        np.testing.assert_allclose(model.static_torques.evaluate(values)[:, 0], lin.static_torques,
                                   rtol=0, atol=1e-9 * np.abs(lin.static_torques).max())


def _pendulum(mass, angle, length=0.7, g0=9.81, rotor=0.03, Kp=0.4, Kd=0.2):
    body = RigidBody("bob", mass=mass, com=Scaled(length, [0.0, 0.0, -1.0]))
    joint = RevoluteJoint("J", parent=None, child="bob", axis=[1.0, 0.0, 0.0], angle=angle,
                          stiffness=Kp, damping=Kd, rotor_inertia=rotor)
    return EquilibriumTree(bodies=(body,), connections=(joint,), field_acceleration=[0.0, 0.0, g0])


def test_T4_pendulum_stiffness_follows_the_uncertain_mass():
    """T4: (J_r + m l^2) s^2 + Kd s + m g l cos(theta) + Kp for EVERY sampled m (the gravity
    stiffness is not frozen at the nominal mass), Tbar = m g l sin(theta); exact (1e-10)."""
    m = lfr.ureal("m", 2.0, percent=30)
    theta = 0.6
    l, g0, Jr, Kp, Kd = 0.7, 9.81, 0.03, 0.4, 0.2
    model = equilibrium_lfr(_pendulum(m, theta))
    assert [b.parameter.name for b in model.plant.blocks] == ["m"]
    for mass in np.linspace(1.4, 2.6, 7):
        sys = model.plant.evaluate({"m": mass})
        inertia = Jr + mass * l**2
        expected_A = [[0.0, 1.0], [-(mass * g0 * l * np.cos(theta) + Kp) / inertia, -Kd / inertia]]
        np.testing.assert_allclose(sys.A, expected_A, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(sys.B[:, 0], [0.0, 1.0 / inertia], rtol=1e-10)
        Tbar = model.static_torques.evaluate({"m": mass})[0, 0]
        assert Tbar == pytest.approx(mass * g0 * l * np.sin(theta), rel=1e-10)


def test_T5_wrench_rotation_cancellation():
    """T5: a child subject only to gravity: the force it transmits to the parent does not
    change with dtheta (its weight is fixed in the world). The two joint terms, the child's
    field rotating (through the body block) and the corrected eq. (22) term, cancel to 1e-12;
    each alone is of the size of the weight."""
    alg = NumericAlgebra()
    rng = np.random.default_rng(2)
    for _ in range(10):
        axis = rng.normal(size=3)
        tree = _pendulum(rng.uniform(0.5, 3.0), rng.uniform(-3, 3))
        joint = RevoluteJoint("J", parent=None, child="bob", axis=axis, angle=rng.uniform(-3, 3),
                              P0=np.eye(3))
        a_p = rng.normal(size=(3, 1)) * 9.81
        P = joint_dcm(alg, joint)
        abar_c = P.T @ a_p
        D = body_mass_matrix(alg, tree.bodies[0])
        Wbar = -(D[:, :3] @ abar_c)
        col = np.array([[1.0]])  # the single generalised variable: dtheta
        da_c = revolute_equilibrium_field(alg, joint, P, abar_c, np.zeros((3, 1)), col)
        dW_c = body_linear_wrench(alg, D, np.zeros((6, 1)), da_c, [])
        rotated = revolute_zero_field_wrench(alg, joint, P, dW_c, np.zeros((6, 1)), np.zeros((1, 1)))
        stiffness_term = revolute_equilibrium_wrench(alg, joint, P, Wbar, col)
        weight = np.linalg.norm(Wbar[:3])
        assert np.linalg.norm(rotated[:3]) > 1e-3 * weight or np.linalg.norm(np.cross(joint.axis, a_p[:, 0])) < 1e-9
        np.testing.assert_allclose(rotated[:3] + stiffness_term[:3], 0.0, atol=1e-12 * max(weight, 1.0))


def test_erratum_A2_printed_sign_of_eq22_fails():
    """Erratum A2: with the stiffness term of eq. (22) as printed (opposite sign, transposed
    DCM) the arm stiffness is wrong by ~100 N m/rad; with the correction it is exact."""
    from satdyn.equilibrium import joint as joint_module

    arm = load_two_link_arm()
    th = np.deg2rad([70.0, 30.0])
    _, _, K = _numeric(two_link_arm_tree(arm, th))
    np.testing.assert_allclose(K, arm_gravity_stiffness(arm, th), atol=1e-10)
    original = joint_module.revolute_equilibrium_wrench

    def as_printed(alg, joint, Pbar, wbar_c, col_angle):
        return -original(alg, joint, Pbar.T, wbar_c, col_angle)

    try:
        joint_module.revolute_equilibrium_wrench = as_printed
        import satdyn.equilibrium.recurrence as rec

        rec.revolute_equilibrium_wrench = as_printed
        _, _, K_printed = _numeric(two_link_arm_tree(arm, th))
    finally:
        joint_module.revolute_equilibrium_wrench = original
        rec.revolute_equilibrium_wrench = original
    assert np.abs(K_printed - arm_gravity_stiffness(arm, th)).max() > 10.0


def test_T11_invariances():
    """T11: (i) rotating the base frame together with the field leaves dT -> dtheta unchanged;
    (ii) changing P_{c/p}(0) with the child data re-expressed leaves it unchanged;
    (iii) a = 0 gives Tbar = 0 and K = Kp I. Exact up to round-off (1e-10)."""
    rng = np.random.default_rng(9)
    chain = random_chain(4, rng)
    q = rng.uniform(-3, 3, 4)
    base = equilibrium_linearisation(chain_tree(chain, q))
    # (i) base rotation Q: field, first axis and first P0 expressed in the rotated ground frame.
    from satdyn.spatial import dcm_from_rotvec

    Q = dcm_from_rotvec(rng.normal(size=3))
    rotated = dict(chain, a=Q @ chain["a"], axis_p=[Q @ chain["axis_p"][0]] + chain["axis_p"][1:],
                   P0=[Q @ chain["P0"][0]] + chain["P0"][1:])
    lin = equilibrium_linearisation(chain_tree(rotated, q))
    np.testing.assert_allclose(lin.A, base.A, atol=1e-10 * np.abs(base.A).max())
    np.testing.assert_allclose(lin.B, base.B, atol=1e-10 * np.abs(base.B).max())
    # (ii) re-express body 1 in a frame turned by R: P0_1 -> P0_1 R, body data R^T (.), child joint.
    R = dcm_from_rotvec(rng.normal(size=3))
    k = 1
    re = {key: list(val) if isinstance(val, list) else val for key, val in chain.items()}
    re["P0"][k] = chain["P0"][k] @ R
    re["J"][k] = R.T @ chain["J"][k] @ R
    re["PB"][k] = R.T @ chain["PB"][k]
    re["PC"][k] = R.T @ chain["PC"][k]
    re["axis_p"][k + 1] = R.T @ chain["axis_p"][k + 1]
    re["P0"][k + 1] = R.T @ chain["P0"][k + 1]
    lin = equilibrium_linearisation(chain_tree(re, q))
    np.testing.assert_allclose(lin.A, base.A, atol=1e-10 * np.abs(base.A).max())
    np.testing.assert_allclose(lin.static_torques, base.static_torques, atol=1e-10 * np.abs(base.static_torques).max())
    # (iii) no field.
    arm = load_two_link_arm().with_values(g0=1.0)
    tree = two_link_arm_tree(arm, rng.uniform(-3, 3, 2))
    tree = EquilibriumTree(bodies=tree.bodies, connections=tree.connections, field_acceleration=np.zeros(3))
    lin = equilibrium_linearisation(tree)
    np.testing.assert_allclose(lin.static_torques, 0.0, atol=1e-14)
    np.testing.assert_allclose(lin.stiffness, arm.stiffness * np.eye(2), atol=1e-14)


def test_lfr_static_torques_match_analytic_over_random_samples():
    """T6 through the LFR: the static-torque LFR (angles and body parameters symbolic)
    evaluated in one batch at 1000 random samples equals the section 5.3 formulas (1e-10 rel)."""
    from satdyn.equilibrium import two_link_arm_parameters

    arm = load_two_link_arm()
    params = two_link_arm_parameters(arm)
    angles = (params.pop("theta1"), params.pop("theta2"))
    alg = LFRAlgebra()
    tree = two_link_arm_tree(arm, angles, params)
    trim = backward_recurrence(alg, tree, forward_recurrence(alg, tree))
    torques = lfr.vstack([trim.static_torque["J1"], trim.static_torque["J2"]])
    rng = np.random.default_rng(4)
    n = 1000
    ranges = arm.parameter_ranges()
    vals = {k: rng.uniform(lo, hi, n) for k, (lo, hi) in ranges.items() if k in torques.parameters}
    th = rng.uniform(-np.deg2rad(170), np.deg2rad(170), (n, 2))
    vals.update(theta1=th[:, 0], theta2=th[:, 1])
    got = torques.evaluate_batch(vals)[:, :, 0]
    expected = np.array([arm_static_torques(arm.with_values(**{k: vals[k][i] for k in ranges if k in vals}), th[i])
                         for i in range(n)])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10 * np.abs(expected).max())


def test_tree_validation_names_the_problem():
    body = RigidBody("B", mass=1.0)
    joint = RevoluteJoint("J", parent=None, child="B", axis=[0, 0, 1])
    with pytest.raises(ValueError, match="exactly one"):
        EquilibriumTree(bodies=(body,), connections=(joint, RevoluteJoint("K", parent=None, child="B", axis=[1, 0, 0])))
    with pytest.raises(ValueError, match="unknown parent"):
        EquilibriumTree(bodies=(body,), connections=(RevoluteJoint("J", parent="X", child="B", axis=[0, 0, 1]),))
    with pytest.raises(ValueError, match="axis"):
        RevoluteJoint("J", parent=None, child="B", axis=[0, 0, 0])
    with pytest.raises(ValueError, match="distinct names"):
        EquilibriumTree(bodies=(body,), connections=(RevoluteJoint("B", parent=None, child="B", axis=[0, 0, 1]),))
    with pytest.raises(ValueError, match="field_acceleration"):
        EquilibriumTree(bodies=(body,), connections=(joint,), field_acceleration=[0, 9.81])
    with pytest.raises(ValueError, match="mass"):
        RigidBody("B", mass=-1.0)
    with pytest.raises(TypeError, match="EquilibriumTree"):
        equilibrium_lfr("not a tree")
    with pytest.raises(ValueError, match="option"):
        equilibrium_lfr(EquilibriumTree(bodies=(body,), connections=(joint,)), option="C")


def test_branched_trees_against_potential_reference():
    """Spec 003 section 4.1: any number of joints on a body (trees, several roots on the
    ground). Random 5-joint trees against the section 3.6 method generalised to trees
    (ancestor Jacobians): Tbar, M exact (1e-10), K to the difference error (1e-6)."""
    from equilibrium_oracles import random_tree, tree_model, tree_potential_reference

    rng = np.random.default_rng(77)
    branched = 0
    for _ in range(4):
        tree = random_tree(5, rng)
        branched += len(set(tree["parent"])) < 5
        q = rng.uniform(-np.pi, np.pi, 5)
        T, M, K = _numeric(tree_model(tree, q))
        T_ref, M_ref, K_ref = tree_potential_reference(tree, q)
        np.testing.assert_allclose(T, T_ref, rtol=0, atol=1e-10 * np.abs(T_ref).max())
        np.testing.assert_allclose(M, M_ref, rtol=0, atol=1e-10 * np.abs(M_ref).max())
        np.testing.assert_allclose(K, K_ref, rtol=0, atol=1e-6 * np.abs(K_ref).max())
    assert branched >= 2  # the draw really contains bodies with several child joints
