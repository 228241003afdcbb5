"""Penalty loop closure (spec 004 §3.5, §8 item 12): a planar four-bar converges to the exact 1-DOF motion.

The four-bar: a crank (angle th1 at O), a coupler (relative angle th2) and a rocker (absolute
angle th3 at G), all about z, under gravity -y. The loop is closed at the coupler tip / rocker
tip by a translational spring-damper (K = k I, D = 2 sqrt(k) I, about critically damped).
Reference: the exact constrained motion, integrated independently with Lagrange multipliers
(index-1 DAE with Baumgarte stabilisation) on the tree's M and h (themselves checked against
Pinocchio) and an analytic constraint Jacobian. The closure error is O(load / k), so the
trajectory error must fall about tenfold per tenfold stiffness.
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import satdyn.multibody as mb

L1, L2, L3, D_GROUND = 1.0, 2.2, 1.6, 2.0
T_FINAL = 0.5


def four_bar(stiffness=None):
    b = mb.ModelBuilder(gravity=[0.0, -9.81, 0.0], name="four_bar")
    b.add_body(mb.body("ground", 1.0, ports={"O": [0, 0, 0], "G": [D_GROUND, 0, 0]}), mb.fixed_root())

    def rod(name, mass, length, tip):
        J = mass * length**2 / 12 * np.diag([0.01, 1.0, 1.0])
        return mb.body(name, mass, com=[length / 2, 0, 0], inertia=J, ports={tip: [length, 0, 0]})

    b.add_body(rod("crank", 1.0, L1, "A"), mb.revolute_joint("th1", [0, 0, 1]), parent="ground", port="O")
    b.add_body(rod("coupler", 1.5, L2, "C"), mb.revolute_joint("th2", [0, 0, 1]), parent="crank", port="A")
    b.add_body(rod("rocker", 1.0, L3, "R"), mb.revolute_joint("th3", [0, 0, 1]), parent="ground", port="G")
    if stiffness is not None:
        K = np.zeros((6, 6))
        K[:3, :3] = stiffness * np.eye(3)
        D = np.zeros((6, 6))
        D[:3, :3] = 2.0 * np.sqrt(stiffness) * np.eye(3)
        b.add_loop_closure("tip", "coupler", "rocker", stiffness=K, damping=D, port_a="C", port_b="R")
    return b.build()


def closed_configuration(th1):
    B = L1 * np.array([np.cos(th1), np.sin(th1)])
    G = np.array([D_GROUND, 0.0])
    d = np.linalg.norm(G - B)
    a = (L2**2 - L3**2 + d**2) / (2 * d)
    h = np.sqrt(L2**2 - a**2)
    u = (G - B) / d
    C = B + a * u + h * np.array([-u[1], u[0]])
    phi2 = np.arctan2(*(C - B)[::-1])
    return np.array([th1, phi2 - th1, np.arctan2(*(C - G)[::-1])])


def _e(phi):
    return np.array([np.cos(phi), np.sin(phi)])


def _ep(phi):
    return np.array([-np.sin(phi), np.cos(phi)])


def exact_rhs(model):
    def rhs(t, x):
        q, v = x[:3], x[3:]
        p1, p12, p3 = q[0], q[0] + q[1], q[2]
        w1, w12, w3 = v[0], v[0] + v[1], v[2]
        g = L1 * _e(p1) + L2 * _e(p12) - (np.array([D_GROUND, 0]) + L3 * _e(p3))
        J = np.column_stack([L1 * _ep(p1) + L2 * _ep(p12), L2 * _ep(p12), -L3 * _ep(p3)])
        Jdv = -L1 * _e(p1) * w1**2 - L2 * _e(p12) * w12**2 + L3 * _e(p3) * w3**2
        M = mb.mass_matrix(model, q)
        h = mb.nonlinear_effects(model, q, v)
        alpha = 20.0
        K = np.block([[M, J.T], [J, np.zeros((2, 2))]])
        rhs_vec = np.r_[-h, -Jdv - 2 * alpha * (J @ v) - alpha**2 * g]
        return np.r_[v, np.linalg.solve(K, rhs_vec)[:3]]
    return rhs


@pytest.fixture(scope="module")
def reference():
    tree = four_bar()
    q0 = closed_configuration(np.deg2rad(60.0))
    t_eval = np.linspace(0.0, T_FINAL, 11)
    sol = solve_ivp(exact_rhs(tree), (0, T_FINAL), np.r_[q0, 0, 0, 0], method="DOP853", rtol=1e-11, atol=1e-11,
                    t_eval=t_eval)
    return q0, t_eval, sol.y[:3].T


def test_exact_reference_is_a_closed_one_dof_motion(reference):
    q0, _, q = reference
    assert np.ptp(q[:, 0]) > 0.3                           # it really moves
    for qk in q:                                           # and stays closed
        np.testing.assert_allclose(closed_configuration(qk[0]), qk, atol=1e-7)


def test_penalty_closure_converges_to_exact_motion(reference):
    q0, t_eval, q_exact = reference
    errors, closure = [], []
    for k in (1e3, 1e4, 1e5):
        model = four_bar(k)
        # LSODA switches to a stiff (BDF) method as K grows (spec §3.5: the penalty ODE is stiff).
        r = mb.simulate(model, (0, T_FINAL), (q0, np.zeros(3)), t_eval=t_eval, method="LSODA", rtol=1e-9, atol=1e-11)
        errors.append(np.abs(r.q - q_exact).max())
        tips = [mb.body_poses(model, qk)[0] for qk in r.q]
        closure.append(max(np.linalg.norm(p[2] + mb.body_poses(model, qk)[1][2] @ [L2, 0, 0]
                                          - p[3] - mb.body_poses(model, qk)[1][3] @ [L3, 0, 0])
                           for p, qk in zip(tips, r.q)))
    # O(1/K) once K dominates (observed error ratios 3.3 then 8 per decade of K; closure ~10).
    assert errors[1] < errors[0] / 2 and errors[2] < errors[1] / 5, errors
    assert closure[1] < closure[0] / 5 and closure[2] < closure[1] / 5, closure
    assert errors[2] < 1e-2


def test_conservative_penalty_energy_includes_spring_potential():
    """Without dampers the energy with the closure spring potential 1/2 dx^T K dx is conserved."""
    model = four_bar(1e3)
    from dataclasses import replace
    lc = replace(model.loop_closures[0], damping=np.zeros((6, 6)))
    model = replace(model, loop_closures=(lc,))
    q0 = closed_configuration(np.deg2rad(60.0)) + np.array([0.0, 0.01, 0.0])   # pre-stressed spring
    r = mb.simulate(model, (0, 0.5), (q0, np.zeros(3)), t_eval=np.linspace(0, 0.5, 11), rtol=1e-11, atol=1e-11)
    assert np.ptp(r.energy) < 1e-7 * np.abs(r.energy).max()


def test_six_dof_closure_between_floating_bodies_conserves_energy_and_momenta():
    """A 6-DOF closure (translational k_t I, isotropic rotational k_r I on the log map, no damping)
    between a floating body and a second body on a spherical joint: internal loads only, so linear
    and angular momentum are constant, and the energy with 1/2 dx^T K dx is conserved (the isotropic
    log-map spring is conservative: phi^T J_r^-1(phi) = phi^T). 1e-8 relative over 1 s."""
    b = mb.ModelBuilder(name="spring_pair")
    b.add_body(mb.body("a", 2.0, com=[0.1, 0, 0], inertia=np.diag([0.3, 0.4, 0.5]), ports={"s": [0.5, 0, 0]}),
               mb.floating_root("a"))
    b.add_body(mb.body("b", 1.0, com=[0.3, 0.1, 0], inertia=np.diag([0.2, 0.1, 0.15])),
               mb.spherical_joint("ball"), parent="a", port="s")
    K = np.diag([400.0, 400.0, 400.0, 30.0, 30.0, 30.0])
    b.add_loop_closure("pad", "a", "b", stiffness=K, damping=np.zeros((6, 6)), position_a=[0.8, 0.3, 0.0],
                       position_b=[0.3, 0.3, 0.0])
    model = b.build()
    rng = np.random.default_rng(9)
    quat = np.array([0.05, -0.04, 0.1, 1.0])
    q0 = np.r_[0, 0, 0, 0, 0, 0, 1.0, quat / np.linalg.norm(quat)]
    v0 = rng.normal(size=9) * 0.5
    r = mb.simulate(model, (0, 1.0), (q0, v0), t_eval=np.linspace(0, 1, 11), rtol=1e-11, atol=1e-11)
    assert np.ptp(r.energy) < 1e-8 * np.abs(r.energy).max()
    for series in (r.linear_momentum, r.angular_momentum):
        assert np.abs(series - series[0]).max() < 1e-8 * max(1.0, np.abs(series).max())
