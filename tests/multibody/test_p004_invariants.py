"""arXiv:2505.03248 §8 tests 2, 9, 10 on block diagrams: the Dzhanibekov flip with long-time invariants,
reference point P = B vs P != B, energy flow per block, and frame invariance.

Integration tolerances: DOP853 keeps each step's local error below ``rtol |x| + atol``. A
quantity Q(x) with |dQ/dx| |x| <= c |Q| (c = 2 for the quadratic invariants) then changes by
at most ``c tol |Q|`` per step, and errors at most add up over the N steps taken: a drift bound
``|dQ| <= K c N tol |Q|``, with a factor K = 10 because the step-size control only estimates
the local error. N is read from the solver (``nfev / 12`` steps for DOP853).
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation

import satdyn.multibody as mb
from satdyn.multibody.blocks import FloatingBodyBlock, GroundBlock, PrismaticBlock, RevoluteBlock, WeldBlock
from satdyn.multibody.diagram import BlockDiagram
from satdyn.spatial import dcm_from_euler_sequence, euler_sequence_from_dcm

from .pin_oracle import random_state, random_tree
from .test_p004_assembly import assemble_by_hand, diagram_state, model_state

INERTIA = np.diag([1.0, 2.0, 3.0])   # principal moments; y is the intermediate axis
SEQ = "YXZ"   # singular only when body z is along inertial y = H: never on this motion (at the flip, 30 deg away)


def _integrate(diagram, t_final, x0, tol, t_eval=None):
    sol = solve_ivp(lambda t, x: diagram.derivative(t, x), (0.0, t_final), x0, method="DOP853", rtol=tol, atol=tol,
                    t_eval=t_eval, dense_output=False)
    assert sol.success
    return sol, sol.nfev / 12


def _bound(n_steps, tol, scale, c=2.0):
    return 10.0 * c * n_steps * tol * scale


def test_dzhanibekov_flip_and_long_time_invariants():
    # Spin about the intermediate axis with a 1e-3 perturbation: unstable, so the spin axis
    # flips (body y turns from +H to -H) within ln(1/eps)/lambda ~ 12 s, lambda =
    # Omega sqrt((I2-I1)(I3-I2)/(I1 I3)) = 0.58 /s, and flips back and forth afterwards; energy
    # ½ x'ᵀ D x' and the inertial angular momentum P_bi I omega stay constant to the drift bound.
    d = BlockDiagram("dzhanibekov")
    d.add("body", FloatingBodyBlock(5.0, inertia=INERTIA, sequence=SEQ))
    x0 = np.zeros(12)
    x0[3:6] = [1e-3, 1.0, 1e-3]
    tol = 1e-11
    t = np.linspace(0.0, 100.0, 4001)
    sol, n_steps = _integrate(d, 100.0, x0, tol, t_eval=t)
    X = sol.y.T
    P = dcm_from_euler_sequence(X[:, 9:12], SEQ)
    omega = X[:, 3:6]
    H = np.einsum("nij,jk,nk->ni", P, INERTIA, omega)
    h_dir = H[0] / np.linalg.norm(H[0])
    alignment = np.einsum("ni,i->n", P[:, :, 1], h_dir)          # body y . H direction
    first_flip = t[np.argmax(alignment < -0.9)]
    # observed: first full flip (alignment < -0.9) at 17.5 s, 4 sign changes in 100 s
    assert alignment.min() < -0.99 and 5.0 < first_flip < 30.0
    flips = np.count_nonzero(np.diff(np.sign(alignment)) != 0)
    assert flips >= 3                                              # it keeps flipping back and forth
    energy = 0.5 * np.einsum("ni,ij,nj->n", omega, INERTIA, omega)
    assert np.abs(energy - energy[0]).max() < _bound(n_steps, tol, energy[0])
    assert np.abs(H - H[0]).max() < _bound(n_steps, tol, np.linalg.norm(H[0]), c=1.0)
    assert np.abs(X[:, :3]).max() < 1e-12                          # P = B: the CoM stays at rest


def test_reference_point_does_not_change_the_motion():
    # Same free body under gravity and a constant body-frame torque, described with its
    # reference point at the CoM B and at P = B - c (com = c in the block): the
    # trajectory of B (inertial position, attitude) must be the same. Both runs have their
    # own integration error: the bound is the sum of both drift bounds on |x| ~ 10.
    g = np.array([0.0, -9.81, 0.0])
    c = np.array([0.4, -0.3, 0.2])
    omega0 = np.array([0.3, -0.5, 0.8])
    v_B0 = np.array([1.0, 0.5, -0.2])
    runs = {}
    for name, com in (("B", np.zeros(3)), ("P", c)):
        d = BlockDiagram(name)
        d.add("body", FloatingBodyBlock(5.0, com=com, inertia=INERTIA, gravity=g, ports={"B": com}))
        d.add_external_wrench("body", np.r_[0.0, 0.0, 0.0, 0.1, 0.0, 0.0], port="B")
        x0 = np.zeros(12)
        x0[:3] = v_B0 - np.cross(omega0, com)                      # v_P = v_B + omega x BP
        x0[3:6] = omega0
        x0[6:9] = -com                                             # [IP]_b with I at B(0)
        sol, n = _integrate(d, 5.0, x0, 1e-11, t_eval=np.linspace(0, 5.0, 51))
        X = sol.y.T
        P = dcm_from_euler_sequence(X[:, 9:12], "ZYX")
        runs[name] = (np.einsum("nij,nj->ni", P, X[:, 6:9] + com), P, n)
    (rB, PB, nB), (rP, PP, nP) = runs["B"], runs["P"]
    bound = _bound(nB + nP, 1e-11, 10.0, c=1.0)
    assert np.abs(rB - rP).max() < bound
    assert np.abs(PB - PP).max() < bound
    # and B falls with g: r_B = v_B0 t + g t^2 / 2 (the torque does not move the CoM)
    t = np.linspace(0, 5.0, 51)
    assert np.abs(rB - (np.outer(t, v_B0) + 0.5 * np.outer(t**2, g))).max() < bound


@pytest.mark.parametrize("seed, floating", [(21, True), (22, False)])
def test_energy_flow_per_block(seed, floating):
    # Per block: its kinetic-energy rate from the block's own acceleration output equals
    # (i) the derivative of its kinetic energy along the diagram's flow (central difference,
    # h = 1e-6: error ~ h^2 + eps/h ~ 1e-10 relative) and (ii) gravity + port powers (its
    # Newton-Euler equation). Summed: the interface powers cancel pairwise, so the port
    # powers total the joint efforts' power plus the external load's, and this equals dE/dt of
    # satdyn.multibody.mechanical_energy (independent code) plus the springs' power (the spring
    # potential is inside E, its force inside the block efforts).
    rng = np.random.default_rng(seed)
    model, pm, _, _ = random_tree(rng, 5, floating=floating, gravity=[0.3, -9.81, 0.5],
                                  kinds=("revolute", "prismatic", "weld"), damping=True)
    d = assemble_by_hand(model)
    W_root = rng.normal(size=6)
    if floating:
        d.add_external_wrench(d.root, W_root)
    q, v = random_state(rng, model, pm)
    x = diagram_state(model, q, v)
    u = dict(zip(d.joint_blocks, rng.normal(size=len(d.joint_blocks))))
    powers = d.block_powers(0.0, x, u)
    xdot = d.derivative(0.0, x, u)
    h = 1e-6
    plus, minus = d.block_powers(0.0, x + h * xdot, u), d.block_powers(0.0, x - h * xdot, u)
    scale = max(1.0, max(abs(p["kinetic_rate"]) + abs(p["ports"]) for p in powers.values()))
    for name, p in powers.items():
        fd = (plus[name]["kinetic_energy"] - minus[name]["kinetic_energy"]) / (2 * h)
        assert abs(p["kinetic_rate"] - fd) < 1e-6 * scale, name
        assert abs(p["kinetic_rate"] - p["gravity"] - p["ports"]) < 1e-10 * scale, name
    sig = d.evaluate(0.0, x, u)
    effort_power = sum(sig.efforts[j] * sig.joints[j][1] for j in d.joint_blocks)
    ext_power = float(W_root @ x[:6]) if floating else 0.0
    total_ports = sum(p["ports"] for p in powers.values())
    assert abs(total_ports - effort_power - ext_power) < 1e-10 * scale

    def E(y):
        return float(mb.mechanical_energy(model, *model_state(model, y)))

    dE = (E(x + h * xdot) - E(x - h * xdot)) / (2 * h)
    spring_power = sum(d.blocks[j].stiffness * (sig.joints[j][2] - d.blocks[j].rest) * sig.joints[j][1]
                       for j in d.joint_blocks)
    assert abs(dE - (total_ports + spring_power)) < 1e-6 * scale


def _chain(Q, root_rotation, floating):
    """A 3-body chain whose body k is described in a frame rotated by Q[k] (identity: the reference)."""
    g = np.array([0.2, -9.81, 0.4])
    d = BlockDiagram()

    def rot(k, v):
        return Q[k].T @ np.asarray(v, float)

    if floating:
        d.add("b0", FloatingBodyBlock(8.0, com=rot(0, [0.1, 0.2, 0]), inertia=Q[0].T @ np.diag([2.0, 3, 4]) @ Q[0],
                                      ports={"c": rot(0, [0.5, 0, 0.3])}, gravity=g))
    else:
        d.add("b0", GroundBlock(rotation=root_rotation @ Q[0], ports={"c": rot(0, [0.5, 0, 0.3])}))
    J1, J2 = np.array([[0.3, 0.05, 0], [0.05, 0.2, 0], [0, 0, 0.25]]), np.diag([0.1, 0.2, 0.15])
    P01 = Rotation.from_rotvec([0.3, -0.2, 0.5]).as_matrix()
    P02 = Rotation.from_rotvec([-0.4, 0.1, 0.2]).as_matrix()
    d.add("b1", RevoluteBlock(rot(1, [0.2, 0.1, 1.0]), 2.0, com=rot(1, [0.3, 0, 0.1]), inertia=Q[1].T @ J1 @ Q[1],
                              ports={"c": rot(1, [0.6, 0, 0])}, gravity=g, rotation=Q[0].T @ P01 @ Q[1], damping=0.2),
          parent="b0", port="c")
    d.add("b2", PrismaticBlock(rot(2, [1.0, -0.3, 0.2]), 1.5, com=rot(2, [0.1, 0.1, 0]), inertia=Q[2].T @ J2 @ Q[2],
                               ports={"tip": rot(2, [0.4, 0.2, 0])}, gravity=g, rotation=Q[1].T @ P02 @ Q[2],
                               stiffness=30.0), parent="b1", port="c")
    d.add("w", WeldBlock(0.5, ports={}, gravity=g, rotation=Q[2].T), parent="b2", port="tip")
    return d


@pytest.mark.parametrize("floating", [True, False])
def test_frame_invariance(floating):
    # Re-describing every body in a frame rotated by a constant Q_k (mass data, ports and axes
    # rotated, zero-angle DCMs Q_b^T P0 Q_a, root attitude P Q_0) is the same physical system:
    # joint coordinates, inertial positions of body points and the root's inertial motion must
    # coincide (to the two runs' drift bounds), and instantaneously to round-off.
    Q = Rotation.random(4, random_state=30 + floating).as_matrix()
    I3 = np.broadcast_to(np.eye(3), (4, 3, 3))
    R0 = Rotation.from_rotvec([0.2, 0.1, -0.3]).as_matrix()
    ref, rot = _chain(I3, R0, floating), _chain(Q, R0, floating)
    rng = np.random.default_rng(5)
    x_ref = rng.normal(size=ref.n_states) * 0.5
    x_rot = x_ref.copy()
    if floating:
        P = R0 @ dcm_from_euler_sequence(x_ref[9:12], "ZYX")
        x_ref[9:12] = euler_sequence_from_dcm(P, "ZYX")
        x_rot[9:12] = euler_sequence_from_dcm(P @ Q[0], "ZYX")
        x_rot[:3], x_rot[3:6], x_rot[6:9] = Q[0].T @ x_ref[:3], Q[0].T @ x_ref[3:6], Q[0].T @ x_ref[6:9]
    d_ref, d_rot = ref.derivative(0.0, x_ref), rot.derivative(0.0, x_rot)
    n0 = 12 if floating else 0
    np.testing.assert_allclose(d_rot[n0:], d_ref[n0:], atol=1e-11)
    if floating:
        np.testing.assert_allclose(d_rot[:6], np.r_[Q[0].T @ d_ref[:3], Q[0].T @ d_ref[3:6]], atol=1e-11)
    # a short run (the cut-and-solve diagram costs ~20 evaluations of every block per step)
    tol, t = 1e-9, np.linspace(0.0, 0.2, 3)
    (s_ref, n_ref), (s_rot, n_rot) = _integrate(ref, 0.2, x_ref, tol, t), _integrate(rot, 0.2, x_rot, tol, t)
    bound = _bound(n_ref + n_rot, tol, 10.0, c=1.0)
    assert np.abs(s_rot.y[n0:] - s_ref.y[n0:]).max() < bound
    for k in range(len(t)):   # inertial position of the weld tip through the motion vectors
        sig_ref, sig_rot = ref.evaluate(t[k], s_ref.y[:, k]), rot.evaluate(t[k], s_rot.y[:, k])
        pos = []
        for sig in (sig_ref, sig_rot):
            m = sig.motion[("w", "P")]
            pos.append(dcm_from_euler_sequence(m[15:18], "ZYX") @ m[12:15])
        assert np.abs(pos[0] - pos[1]).max() < bound


def test_time_varying_uniform_field():
    # A uniform field g(t) (spec §7: "optionally time-varying") acts on every mass alike: a
    # tumbling free body's CoM follows r'' = g(t) exactly, here g = [sin t, 0, -9.81] from rest:
    # r = [t - sin t, 0, -9.81 t^2 / 2], whatever the rotation. Bound: the drift bound on |x| ~ 50.
    def field(t):
        return np.array([np.sin(t), 0.0, -9.81])

    d = BlockDiagram()
    d.add("body", FloatingBodyBlock(2.0, com=[0.3, 0, 0], inertia=INERTIA, gravity=field, ports={"B": [0.3, 0, 0]}))
    x0 = np.zeros(12)
    x0[3:6] = [0.4, 0.2, -0.3]
    x0[:3] = -np.cross(x0[3:6], [0.3, 0, 0])   # B at rest: v_P = v_B + omega x BP
    x0[6:9] = [-0.3, 0, 0]
    t = np.linspace(0.0, 3.0, 7)
    sol, n = _integrate(d, 3.0, x0, 1e-11, t_eval=t)
    X = sol.y.T
    r_B = np.einsum("nij,nj->ni", dcm_from_euler_sequence(X[:, 9:12], "ZYX"), X[:, 6:9] + [0.3, 0, 0])
    expected = np.stack([t - np.sin(t), 0 * t, -9.81 * t**2 / 2], axis=1)
    assert np.abs(r_B - expected).max() < _bound(n, 1e-11, 50.0, c=1.0)
    with pytest.raises(ValueError, match="gravity"):
        FloatingBodyBlock(1.0, inertia=INERTIA, gravity=lambda t: np.zeros(2)).forward(np.zeros(12))


def test_quaternion_root_equals_euler_root_and_passes_gimbal_lock():
    # Validation test 11: an Euler-angle root and a quaternion root describe the same motion
    # away from gimbal lock (instantaneously to round-off; along a 2 s run to the drift bound),
    # and the quaternion root integrates through pitch = 90 deg, where the Euler rates are refused.
    from satdyn.spatial import quaternion_from_dcm

    def diagram(attitude):
        d = BlockDiagram(attitude)
        d.add("hub", FloatingBodyBlock(20.0, com=[0.1, 0, 0], inertia=np.diag([3.0, 4, 5]), ports={"c": [0.5, 0, 0]},
                                       gravity=[0, 0, -9.81], attitude=attitude))
        d.add("arm", RevoluteBlock([0, 1, 0], 2.0, com=[0.4, 0, 0], gravity=[0, 0, -9.81], damping=0.3),
              parent="hub", port="c")
        return d

    de, dq = diagram("euler"), diagram("quaternion")
    rng = np.random.default_rng(9)
    xe = rng.normal(size=14) * 0.4
    P = dcm_from_euler_sequence(xe[9:12], "ZYX")
    xq = np.r_[xe[:9], quaternion_from_dcm(P), xe[12:]]
    fe, fq = de.derivative(0.0, xe), dq.derivative(0.0, xq)
    np.testing.assert_allclose(fq[:9], fe[:9], atol=1e-12)
    np.testing.assert_allclose(fq[13:], fe[12:], atol=1e-12)
    t = np.linspace(0.0, 2.0, 5)
    (se, ne), (sq, nq) = _integrate(de, 2.0, xe, 1e-10, t), _integrate(dq, 2.0, xq, 1e-10, t)
    Pe = dcm_from_euler_sequence(se.y[9:12].T, "ZYX")
    Pq = np.stack([np.asarray(dq.blocks["hub"]._dcm(x)) for x in sq.y.T])
    bound = _bound(ne + nq, 1e-10, 10.0, c=1.0)
    assert np.abs(Pe - Pq).max() < bound
    assert np.abs(se.y[12:].T - sq.y[13:].T).max() < bound
    # spin about inertial y: body x turns through inertial z (3-2-1 pitch = 90 deg at t = pi/2)
    def single(att):
        return FloatingBodyBlock(1.0, inertia=np.eye(3), attitude=att)

    dq1, de1 = BlockDiagram(), BlockDiagram()
    dq1.add("b", single("quaternion"))
    de1.add("b", single("euler"))
    x0 = np.r_[0, 0, 0, 0, 1.0, 0, 0, 0, 0, 0, 0, 0, 1.0]
    s, n = _integrate(dq1, 2.0, x0, 1e-11, [2.0])
    P_end = dq1.blocks["b"]._dcm(s.y[:, -1])
    R_y = Rotation.from_rotvec([0, 2.0, 0]).as_matrix()    # spherical-top spin: P(t) = R_y(t)
    assert np.abs(P_end - R_y).max() < _bound(n, 1e-11, 1.0, c=1.0)
    with pytest.raises(ValueError, match="angles"):
        de1.derivative(0.0, np.r_[0, 0, 0, 0, 1.0, 0, 0, 0, 0, 0, np.pi / 2, 0])
    with pytest.raises(ValueError, match="attitude"):
        FloatingBodyBlock(1.0, inertia=np.eye(3), attitude="rotvec")
