"""The free (floating / buoyant) base, external trim wrenches and pose outputs of the
equilibrium LFT model (arXiv:2109.00407 Fig. 1b, the forward-dynamics base block, and the
optional pose outputs), against Pinocchio's free-flyer (RNEA trim, central-difference
linearisation of ABA, finite differences of the forward kinematics) and against the
analytic metacentric stiffness of a buoyant body.

Finite-difference tolerances. Central differences with step h have truncation error
h^2/6 |f'''| and rounding error ~eps |f| / h. The third derivatives of these models are of
the size of their first derivatives times (1 rad)^-2 and inertia ratios; we allow a factor
1e3 for those ratios: atol = 1e3 (h^2 + eps/h) max(1, |reference|). With h = 1e-5 that is
1.2e-7 relative, far below any modelling error (a dropped term is O(1)).
"""

import numpy as np
import pytest

from equilibrium_oracles import pinocchio_arm
from free_base_oracles import (equilibrium_configuration, fd_point_poses, free_arm_parameters, free_arm_tree,
                               pinocchio_free_arm, pinocchio_trim_linearise, random_free_arm)
from satdyn import lfr
from satdyn.equilibrium import (EquilibriumTree, ExternalWrench, FreeBase, RevoluteJoint, RigidBody, Scaled,
                                equilibrium_lfr, equilibrium_linearisation, forward_recurrence, load_two_link_arm,
                                two_link_arm_tree)
from satdyn.equilibrium._algebra import NumericAlgebra

STEP = 1e-5
EPS = np.finfo(float).eps


def fd_tol(reference):
    """Central-difference tolerance (module docstring)."""
    return 1e3 * (STEP**2 + EPS / STEP) * max(1.0, float(np.abs(reference).max()))


def _random_values(params, rng):
    """A random point of the parameter box (physical values)."""
    return {k: float(rng.uniform(*p.range)) for k, p in params.items()}


POSE_POINTS = ["link2", ("link1", "tip"), ("base", [0.1, -0.2, 0.3])]


def _pin_points(arm):
    # Pinocchio joint indices: 1 base (free-flyer), 2 link1, 3 link2.
    return [(3, np.zeros(3)), (2, arm.tip_link1), (1, np.array([0.1, -0.2, 0.3]))]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_free_base_trim_and_linearisation_equal_pinocchio_free_flyer(seed):
    """Two-link arm on a free base with buoyancy (inertial, on the base), an inertial force and
    torque on link 2 and a body-fixed thrust on link 1, at 3 random parameter points each:
    the trim (base control wrench, joint torques) equals Pinocchio's RNEA at rest (exact up to
    rounding of ~100 flops: 1e-12 relative) and A, B equal the central-difference Jacobians of
    Pinocchio's ABA in tangent coordinates (fd_tol)."""
    rng = np.random.default_rng(100 + seed)
    arm = random_free_arm(rng)
    params = free_arm_parameters(arm)
    for _ in range(3):
        values = _random_values(params, rng)
        tree = free_arm_tree(arm, values)  # numeric entries at this point
        lin = equilibrium_linearisation(tree)
        u0, A, B = pinocchio_trim_linearise(arm, values, STEP)
        np.testing.assert_allclose(lin.base_wrench, u0[:6], rtol=0, atol=1e-12 * np.abs(u0).max())
        np.testing.assert_allclose(lin.static_torques, u0[6:], rtol=0, atol=1e-12 * np.abs(u0).max())
        np.testing.assert_allclose(lin.A, A, rtol=0, atol=fd_tol(A))
        np.testing.assert_allclose(lin.B, B, rtol=0, atol=fd_tol(B))
        # Physics invariant: the mass matrix is symmetric positive definite.
        M = lin.mass_matrix
        np.testing.assert_allclose(M, M.T, rtol=0, atol=1e-12 * np.abs(M).max())
        assert np.linalg.eigvalsh(M).min() > 0


@pytest.fixture(scope="module")
def free_arm_lfr():
    arm = random_free_arm(np.random.default_rng(7))
    params = free_arm_parameters(arm)
    model = equilibrium_lfr(free_arm_tree(arm, params), pose_outputs=POSE_POINTS, pose_rates=True)
    return arm, params, model


def test_free_base_lfr_equals_pinocchio_and_numeric_route_at_random_parameters(free_arm_lfr):
    """One LFR (uncertain masses and buoyancy, scheduling angles) evaluated at 4 random points
    of the box equals Pinocchio's trim + FD linearisation (fd_tol) and the numeric route
    (same algorithm in numbers: agreement to the rounding of the LFR evaluation, whose
    (I - A Delta) solves with Delta ~ 90 cost a few digits: 1e-9 relative)."""
    arm, params, model = free_arm_lfr
    assert model.plant.nstates == 16
    assert model.plant.input_names[:6] == ("Fx_base", "Fy_base", "Fz_base", "Mx_base", "My_base", "Mz_base")
    rng = np.random.default_rng(11)
    for _ in range(4):
        values = _random_values(params, rng)
        sys = model.plant.evaluate(values)
        lin = equilibrium_linearisation(free_arm_tree(arm, params), values, pose_outputs=POSE_POINTS,
                                        pose_rates=True)
        for got, want in ((sys.A, lin.A), (sys.B, lin.B), (sys.C, lin.C)):
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-9 * max(1.0, np.abs(want).max()))
        u0, A, B = pinocchio_trim_linearise(arm, values, STEP)
        np.testing.assert_allclose(sys.A, A, rtol=0, atol=fd_tol(A))
        np.testing.assert_allclose(sys.B, B, rtol=0, atol=fd_tol(B))
        W = model.base_wrench.evaluate({k: values[k] for k in model.base_wrench.parameters})[:, 0]
        np.testing.assert_allclose(W, u0[:6], rtol=0, atol=1e-9 * np.abs(u0).max())


def test_pose_outputs_equal_finite_differences_of_forward_kinematics(free_arm_lfr):
    """Pose outputs [dp; dphi] of three points (a body's port P, a named port, a given point)
    equal central differences of Pinocchio's forward kinematics (fd_tol); their rates equal
    the LOCAL frame Jacobian (exact: both are the same linear map, 1e-12); the equilibrium
    positions [OX]_b equal the forward kinematics (1e-12), at 2 random parameter points."""
    arm, params, model = free_arm_lfr
    rng = np.random.default_rng(12)
    N = 8
    for _ in range(2):
        values = _random_values(params, rng)
        sys = model.plant.evaluate(values)
        positions = model.positions.evaluate({k: values[k] for k in model.positions.parameters})[:, 0]
        ref = fd_point_poses(pinocchio_free_arm(arm, values), equilibrium_configuration(arm, values),
                             _pin_points(arm), STEP)
        C = sys.C[2 * N:]
        for k, (X, J, position, _) in enumerate(ref):
            np.testing.assert_allclose(C[6 * k:6 * k + 6, :N], X, rtol=0, atol=fd_tol(X))
            np.testing.assert_allclose(C[6 * k:6 * k + 6, N:], 0.0, atol=1e-12)
            np.testing.assert_allclose(C[18 + 6 * k:24 + 6 * k, N:], J, rtol=0, atol=1e-9 * max(1.0, np.abs(J).max()))
            np.testing.assert_allclose(positions[3 * k:3 * k + 3], position, rtol=0,
                                       atol=1e-9 * max(1.0, np.abs(position).max()))


def test_errata_E003_2_5_7_8_pose_corrections_against_forward_kinematics():
    """The corrected pose equations of arXiv:2109.00407 agree with Pinocchio's forward
    kinematics and the printed ones do not (the difference is O(1), far above fd_tol):

    * E003-2: attitude composition P_{c/i} = P_{p/i} Pbar (printed: P_{p/i} Pbar^T);
    * E003-5: the child twist carries the parent's twist (printed without the delta, the
      parent term vanishes at rest);
    * E003-7: the pose moved from P to a port C with tau_{CP} (printed: I6, dp_C = dp_P);
    * E003-8: [OC]_b = [OP]_b + [PC]_b (printed: + [CP]_b).
    """
    arm = random_free_arm(np.random.default_rng(21))
    tree = free_arm_tree(arm)
    pin_model = pinocchio_free_arm(arm, {})
    q0 = equilibrium_configuration(arm, {})
    N = 8
    ref = fd_point_poses(pin_model, q0, [(2, np.zeros(3)), (2, arm.tip_link1), (3, np.zeros(3))], STEP)
    (X_P, J_P, pos_P, R_link1), (X_tip, J_tip, pos_tip, _), (_, J_link2, _, R_link2) = ref
    # E003-2
    trim = forward_recurrence(NumericAlgebra(), tree, positions=True)
    np.testing.assert_allclose(trim.attitude["link1"], R_link1, atol=1e-12)
    np.testing.assert_allclose(trim.attitude["link2"], R_link2, atol=1e-12)
    printed = trim.attitude["link1"] @ trim.dcm["J2"].T
    assert np.abs(printed - R_link2).max() > 1e-2
    # E003-7 (and the dphi part of E003-2's rotation-vector resolution)
    lin = equilibrium_linearisation(tree, pose_outputs=["link1", ("link1", "tip"), "link2"], pose_rates=True)
    C = lin.C[2 * N:]
    np.testing.assert_allclose(C[6:12, :N], X_tip, rtol=0, atol=fd_tol(X_tip))
    printed_tip = C[0:6, :N]  # I6 on the pose block: the port moves like P
    assert np.abs(printed_tip - X_tip).max() > 1e-2
    # E003-5: rates of link 2 = LOCAL Jacobian; the printed form keeps only r_c6 dtheta'.
    np.testing.assert_allclose(C[18 + 12:18 + 18, N:], J_link2, rtol=0, atol=1e-12 * max(1.0, np.abs(J_link2).max()))
    printed_rate = np.zeros((6, N))
    printed_rate[3:, 7] = arm.P0s[1].T @ arm.axes[1]
    assert np.abs(printed_rate - J_link2).max() > 1e-2
    # E003-8: positions of link 1's P and tip.
    np.testing.assert_allclose(trim.position["link1"][:, 0], pos_P, atol=1e-12 * max(1.0, np.abs(pos_P).max()))
    np.testing.assert_allclose(lin.positions[3:6], pos_tip, atol=1e-12 * max(1.0, np.abs(pos_tip).max()))
    printed_pos = trim.position["link1"][:, 0] - arm.tip_link1
    assert np.abs(printed_pos - pos_tip).max() > 1e-2


def test_ground_arm_pose_outputs_equal_pinocchio_forward_kinematics():
    """Pose outputs on the ground-based two-link arm (arXiv:2109.00407 Table 1, hanging): the
    tip of link 2 (weld W3's body B3 at port C2) from the LFR at random angles equals central
    differences of Pinocchio's forward kinematics (fd_tol)."""
    arm = load_two_link_arm()
    theta = lfr.vreal("theta1", 0.3, range=(-3.0, 3.0), transform="tan_half")
    theta2 = lfr.vreal("theta2", -0.4, range=(-3.0, 3.0), transform="tan_half")
    model = equilibrium_lfr(two_link_arm_tree(arm, (theta, theta2)), pose_outputs=["B3", ("B1", "C1")])
    rng = np.random.default_rng(5)
    for q in rng.uniform(-2.5, 2.5, (3, 2)):
        C = model.plant.evaluate({"theta1": q[0], "theta2": q[1]}).C[4:]
        points = [(2, arm.L2 * arm.link_direction), (1, arm.L1 * arm.link_direction)]
        ref = fd_point_poses(pinocchio_arm(arm), q, points, STEP)
        for k, (X, _, _, _) in enumerate(ref):
            np.testing.assert_allclose(C[6 * k:6 * k + 6, :2], X, rtol=0, atol=fd_tol(X))


def test_buoyant_body_has_the_metacentric_stiffness():
    """A lone body on a free base, buoyancy m a (inertial) applied h above its CoG: the trim
    needs no control wrench, and the attitude stiffness is the analytic metacentric one
    K_phiphi = m g0 h (I - z z^T) (K_pp = 0: no position dependence in a uniform field), for
    every mass of the LFR's uncertainty range (exact: 1e-12)."""
    g0, h = 9.81, 0.4
    m = lfr.ureal("m", 3.0, percent=30)
    J = np.diag([0.5, 0.7, 0.9])
    body = RigidBody("hull", m, J)
    tree = EquilibriumTree((body,), (), [0.0, 0.0, g0], base=FreeBase("hull"),
                           external_wrenches=(ExternalWrench("buoyancy", "hull", force=Scaled(m, [0, 0, g0]),
                                                             point=[0.0, 0.0, h]),))
    model = equilibrium_lfr(tree)
    assert model.static_torques is None
    for mass in (2.1, 3.0, 3.9):
        # strict=False: the reduced LFR of the trim wrench may no longer depend on m (it is 0).
        W = model.base_wrench.evaluate({"m": mass}, strict=False)[:, 0]
        np.testing.assert_allclose(W, 0.0, atol=1e-12 * mass * g0)
        K = model.stiffness.evaluate({"m": mass}, strict=False)
        expected = np.zeros((6, 6))
        expected[3:, 3:] = mass * g0 * h * np.diag([1.0, 1.0, 0.0])
        np.testing.assert_allclose(K, expected, rtol=0, atol=1e-12 * mass * g0)
        # The roll pendulum frequency sqrt(m g h / J_xx) is an eigenvalue pair of A.
        eig = np.linalg.eigvals(model.plant.evaluate({"m": mass}).A)
        assert np.min(np.abs(eig - 1j * np.sqrt(mass * g0 * h / J[0, 0]))) < 1e-9


def test_free_base_block_diagram_equals_option_b():
    """Fig. 1 as a block diagram: the forward-dynamics base block (Fig. 1b) connected by signal
    names to the joint blocks (torque causality, rotor inertia 0.05) and the inverse-mode body
    blocks (Fig. 1a) gives the same transfer F_base, T_J -> pose_base, theta_J as the option-B
    recursion (a different assembly of the same equations: agreement to the rounding of the
    two state-space solves, 1e-9 relative to the largest gain, which is ~1/omega^2 at
    omega = 0.1 rad/s because of the free base's rigid-body modes)."""
    import dataclasses

    from satdyn.equilibrium import backward_recurrence, free_base_block, revolute_joint_block, rigid_body_block
    from satdyn.equilibrium.reference import frequency_response

    arm = random_free_arm(np.random.default_rng(4))
    tree = free_arm_tree(arm)
    joints = tuple(dataclasses.replace(j, rotor_inertia=0.05) for j in tree.connections)
    # The body blocks of Fig. 1a take no external wrench: keep the base's buoyancy and the
    # body-fixed thrust (trim only), drop the inertial load on link 2.
    tree = dataclasses.replace(tree, connections=joints,
                               external_wrenches=tuple(w for w in tree.external_wrenches if w.name != "drag"))
    alg = NumericAlgebra()
    trim = backward_recurrence(alg, tree, forward_recurrence(alg, tree))
    body = tree.body
    blocks = [free_base_block(body["base"], tree.base, [joints[0]], field_acceleration=arm.field,
                              external_wrenches=tree.external_wrenches),
              revolute_joint_block(joints[0], trim.field["base"][:, 0], trim.wrench["J1"][:, 0], causality="torque"),
              rigid_body_block(body["link1"], [joints[1]]),
              revolute_joint_block(joints[1], trim.field["link1"][:, 0], trim.wrench["J2"][:, 0], causality="torque"),
              rigid_body_block(body["link2"])]
    diagram = lfr.interconnect(blocks, inputs=["F_base", "T_J1", "T_J2"],
                               outputs=["pose_base", "theta_J1", "theta_J2"]).evaluate({})
    lin = equilibrium_linearisation(tree)
    omega = np.array([0.1, 1.0, 7.0])
    G1 = frequency_response(diagram.A, diagram.B, diagram.C, diagram.D, omega)
    G2 = frequency_response(lin.A, lin.B, lin.C[:8], lin.D[:8], omega)
    np.testing.assert_allclose(G1, G2, rtol=0, atol=1e-9 * np.abs(G2).max())


def _ok_bodies():
    return (RigidBody("base", 1.0, np.eye(3), ports={"J": [0.0, 0.0, 0.1]}), RigidBody("arm", 1.0, np.eye(3)))


@pytest.mark.parametrize("build, error, words", [
    (lambda: FreeBase("base", attitude=np.ones((3, 3))), ValueError, "FreeBase.attitude"),
    (lambda: FreeBase("base", position=[1.0, 2.0]), ValueError, "FreeBase.position"),
    (lambda: FreeBase(3), TypeError, "FreeBase.body"),
    (lambda: ExternalWrench("w", "base", frame="world"), ValueError, "frame"),
    (lambda: ExternalWrench("w", "base", force=[1.0, 2.0]), ValueError, "force"),
    (lambda: EquilibriumTree(_ok_bodies(), (RevoluteJoint("J", "base", "arm", [1, 0, 0], parent_port="J"),),
                             base="base"), TypeError, "base"),
    (lambda: EquilibriumTree(_ok_bodies(), (RevoluteJoint("J", "base", "arm", [1, 0, 0], parent_port="J"),),
                             base=FreeBase("ghost")), ValueError, "base"),
    (lambda: EquilibriumTree(_ok_bodies(), (RevoluteJoint("J", "arm", "base", [1, 0, 0]),
                                            RevoluteJoint("K", None, "arm", [1, 0, 0])),
                             base=FreeBase("base")), ValueError, "base"),
    (lambda: EquilibriumTree(_ok_bodies(), (RevoluteJoint("J", None, "arm", [1, 0, 0]),),
                             base=FreeBase("base")), ValueError, "ground"),
    (lambda: EquilibriumTree(_ok_bodies(), (RevoluteJoint("J", "base", "arm", [1, 0, 0], parent_port="J"),),
                             base=FreeBase("base"), external_wrenches=(ExternalWrench("w", "ghost"),)),
     ValueError, "external wrench"),
    (lambda: EquilibriumTree(_ok_bodies(), (RevoluteJoint("J", "base", "arm", [1, 0, 0], parent_port="J"),),
                             base=FreeBase("base"), external_wrenches=("thrust",)), TypeError, "external_wrenches"),
])
def test_free_base_and_external_wrench_errors_name_the_argument(build, error, words):
    with pytest.raises(error, match=words):
        build()


def _small_free_tree():
    return EquilibriumTree(_ok_bodies(), (RevoluteJoint("J", "base", "arm", [1, 0, 0], parent_port="J"),),
                           [0.0, 0.0, 9.81], base=FreeBase("base"))


@pytest.mark.parametrize("route", [equilibrium_linearisation, equilibrium_lfr])
@pytest.mark.parametrize("kwargs, words", [
    ({"pose_outputs": ["ghost"]}, "pose_outputs"),
    ({"pose_outputs": [("arm", "nowhere")]}, "pose_outputs"),
    ({"pose_outputs": [("arm", [1.0, 2.0])]}, "pose_outputs"),
    ({"pose_outputs": [42]}, "pose_outputs"),
    ({"pose_outputs": ["base"]}, "pose_outputs"),  # the base's P is already a state output
])
def test_pose_output_errors_name_the_argument(route, kwargs, words):
    with pytest.raises(ValueError, match=words):
        route(_small_free_tree(), **kwargs)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"body": "base"}, TypeError, "body"),
    ({"base": FreeBase("arm")}, ValueError, "base"),
    ({"field_acceleration": [0.0, 9.81]}, ValueError, "field_acceleration"),
    ({"children": [RevoluteJoint("K", "arm", "base", [1, 0, 0])]}, ValueError, "parent"),
])
def test_free_base_block_errors_name_the_argument(kwargs, error, words):
    from satdyn.equilibrium import free_base_block

    args = {"body": _ok_bodies()[0], "base": FreeBase("base"), **kwargs}
    with pytest.raises(error, match=words):
        free_base_block(args.pop("body"), args.pop("base"), **args)


def test_option_a_refuses_a_free_base():
    with pytest.raises(ValueError, match="option"):
        equilibrium_lfr(_small_free_tree(), option="A")
