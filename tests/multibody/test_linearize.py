"""Linearisation (spec 004 §8 item 13): mass matrix from the input channel, pendulum frequency."""

import numpy as np
import pinocchio as pin

import satdyn.multibody as mb

from .pin_oracle import random_state, random_tree


def test_input_matrix_is_inverse_mass_matrix_from_pinocchio():
    """At v = 0, g = 0, no springs: A = [[0, I], [0, 0]] and B = [0; M^-1] with M = Pinocchio's crba.

    B is exact (a is affine in tau); A's lower blocks are central differences (step 1e-6), zero
    up to truncation and roundoff (~1e-8)."""
    rng = np.random.default_rng(11)
    model, pm, _, _ = random_tree(rng, 8, floating=True)
    q, _ = random_state(rng, model, pm)
    sys = mb.linearize(model, q)
    nv = model.nv
    M_pin = pin.crba(pm, pm.createData(), q).copy()
    M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
    M_lin = np.linalg.inv(sys.B[nv:])
    assert np.abs(M_lin - M_pin).max() / np.abs(M_pin).max() < 1e-9
    np.testing.assert_allclose(sys.A[:nv, nv:], np.eye(nv), atol=1e-8)
    assert np.abs(sys.A[nv:]).max() < 1e-6
    assert np.abs(sys.A[:nv, :nv]).max() < 1e-8
    assert sys.ninputs == nv and sys.nstates == 2 * nv
    assert sys.input_labels[0] == "tau_root_vx" and sys.state_labels[nv] == "v_root_vx"


def test_springs_appear_as_stiffness():
    """With joint springs k_i at rest (no gravity, v = 0, so a = 0): the lower blocks are -M^-1 K, -M^-1 D."""
    b = mb.ModelBuilder()
    b.add_body(mb.body("base", 1.0), mb.fixed_root())
    b.add_body(mb.body("l1", 2.0, com=[0.5, 0, 0], inertia=np.diag([0.1, 0.2, 0.3])),
               mb.revolute_joint("a", [0, 0, 1], stiffness=30.0, damping=0.5), parent="base")
    b.add_body(mb.body("l2", 1.0, com=[0.2, 0.1, 0], inertia=np.diag([0.1, 0.1, 0.1])),
               mb.prismatic_joint("b", [1, 0, 0], stiffness=80.0), parent="l1", position=[1, 0, 0])
    model = b.build()
    q = np.zeros(2)
    sys = mb.linearize(model, q)
    M = mb.mass_matrix(model, q)
    Minv = np.linalg.inv(M)
    np.testing.assert_allclose(sys.A[2:, :2], -Minv @ np.diag([30.0, 80.0]), atol=1e-6)
    np.testing.assert_allclose(sys.A[2:, 2:], -Minv @ np.diag([0.5, 0.0]), atol=1e-7)


def test_pendulum_frequency():
    """Point-mass pendulum of length l on a fixed root: eigenvalues +-i sqrt(g/l) (FD error ~1e-9)."""
    g, l = 9.81, 0.7
    b = mb.ModelBuilder(gravity=[0, 0, -g])
    b.add_body(mb.body("base", 1.0), mb.fixed_root())
    b.add_body(mb.body("bob", 2.0, com=[0, 0, -l]), mb.revolute_joint("th", [0, 1, 0]), parent="base")
    sys = mb.linearize(b.build(), np.zeros(1))
    eig = np.linalg.eigvals(sys.A)
    np.testing.assert_allclose(np.sort(eig.imag), [-np.sqrt(g / l), np.sqrt(g / l)], rtol=1e-7)
    np.testing.assert_allclose(eig.real, 0.0, atol=1e-7)


def test_floating_chart_rates_at_nonzero_velocity():
    """Free rigid body spinning: the linearised chart kinematics agree with a finite-difference
    of the simulated flow (short step), checking the floating-root chart at v != 0."""
    b = mb.ModelBuilder()
    b.add_body(mb.body("sat", 5.0, inertia=np.diag([1.0, 2.0, 3.0])), mb.floating_root("sat"))
    model = b.build()
    q0 = model.neutral_configuration()
    v0 = np.array([0.1, -0.2, 0.3, 0.5, 0.05, -0.4])
    sys = mb.linearize(model, q0, v0)
    dv = np.array([0, 0, 0, 1e-4, -2e-4, 1e-4])
    h = 1e-3
    base = mb.simulate(model, (0, h), (q0, v0), t_eval=[h], rtol=1e-13, atol=1e-13)
    pert = mb.simulate(model, (0, h), (q0, v0 + dv), t_eval=[h], rtol=1e-13, atol=1e-13)
    predicted_dv_dot = sys.A[6:, 6:] @ dv
    observed = (pert.v[-1] - base.v[-1] - dv) / h
    np.testing.assert_allclose(observed, predicted_dv_dot, atol=5e-6)
