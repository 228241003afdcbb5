"""Exact 9-DOF client dynamics (spec 002 §2.3; §7 tests 1-4, 6, 9).

References: kinetic energy from CoM velocities (definition), finite differences (for the
skew property and the spring gradient), per-body Newton-Euler about the CoM (independent
of the 9x9 assembly) and Pinocchio's ABA on the same two bodies (free-flyer + spherical joint).
"""

import numpy as np
import pinocchio as pin
import pytest

from satdyn.detumbling import dynamics as dyn
from satdyn.detumbling.client import HingeParams, inertia_matrix, inertia_vector
from satdyn.detumbling.regressors import inertia_operator
from satdyn.spatial import (dcm_from_quaternion, quaternion_derivative, quaternion_from_dcm, skew,
                            so3_exp, so3_left_jacobian_inverse, so3_log, vee)

from .conftest import random_state


def _with_friction(client, fc=(0.05, 0.03, 0.02)):
    return client.with_hinge(HingeParams(client.hinge.stiffness, client.hinge.damping, np.array(fc), 0.01))


# --- test 1: the SO(3) utilities of satdyn.spatial that this package uses -------------------------

def test_so3_utilities_used(rng):
    # exp/log round trip and skew/vee inverse (tolerances: double-precision round-off)
    for _ in range(20):
        phi = rng.normal(size=3)
        phi *= min(1.0, 3.0 / np.linalg.norm(phi))
        R = so3_exp(phi)
        np.testing.assert_allclose(so3_exp(so3_log(R)), R, atol=1e-13)
        x = rng.normal(size=3)
        np.testing.assert_allclose(vee(skew(x)), x, atol=0)
    # theta_dot = J_l^{-1}(theta) w when R*_dot = skew(w) R* (finite difference, central, h = 1e-6)
    theta = np.array([0.7, -1.1, 0.4])
    w = rng.normal(size=3)
    h = 1e-6
    R = so3_exp(theta)
    fd = (so3_log(so3_exp(w * h) @ R) - so3_log(so3_exp(-w * h) @ R)) / (2 * h)
    np.testing.assert_allclose(fd, so3_left_jacobian_inverse(theta) @ w, atol=1e-8)
    # inertia operator: L(x) j == J x for random symmetric J (exact algebra)
    J = rng.normal(size=(3, 3))
    J = J + J.T
    np.testing.assert_allclose(inertia_operator(x) @ inertia_vector(J), J @ x, atol=1e-14)
    np.testing.assert_allclose(inertia_matrix(inertia_vector(J)), J, atol=0)
    # quaternion kinematics in the world frame: q_dot = [w, 0] q / 2 agrees with R_dot = skew(w) R
    q = quaternion_from_dcm(R)
    fd_R = (dcm_from_quaternion(q + h * quaternion_derivative(q, w, frame="inertial"))
            - dcm_from_quaternion(q - h * quaternion_derivative(q, w, frame="inertial"))) / (2 * h)
    np.testing.assert_allclose(fd_R, skew(w) @ R, atol=1e-8)


# --- test 2: mass matrix -------------------------------------------------------------------------------

def test_mass_matrix_spd_and_kinetic_energy(client, rng):
    for _ in range(20):
        p, R1, R2, nu = random_state(rng)
        M = dyn.mass_matrix(client, R1, R2)
        np.testing.assert_allclose(M, M.T, rtol=0, atol=1e-14 * np.abs(M).max())  # round-off of R J R^T
        assert np.linalg.eigvalsh(M).min() > 0
        # independent: sum of m |v_c|^2 / 2 + w^T I_c w / 2 over the links (relative 1e-12: round-off)
        T = 0.0
        for link, R, w in ((client.link1, R1, nu[3:6]), (client.link2, R2, nu[6:9])):
            vc = nu[:3] + np.cross(w, R @ link.com)
            T += 0.5 * link.mass * vc @ vc + 0.5 * w @ R @ link.inertia_com @ R.T @ w
        assert abs(dyn.kinetic_energy(client, R1, R2, nu) - T) <= 1e-12 * T


# --- test 3: M_dot - 2C skew ---------------------------------------------------------------------------

def test_mass_matrix_derivative_minus_twice_coriolis_is_skew(client, rng):
    h = 1e-6
    for _ in range(10):
        p, R1, R2, nu = random_state(rng)
        w1, w2 = nu[3:6], nu[6:9]
        Mp = dyn.mass_matrix(client, so3_exp(w1 * h) @ R1, so3_exp(w2 * h) @ R2)
        Mm = dyn.mass_matrix(client, so3_exp(-w1 * h) @ R1, so3_exp(-w2 * h) @ R2)
        M_dot = (Mp - Mm) / (2 * h)
        S = M_dot - 2 * dyn.coriolis_matrix(client, R1, R2, nu)
        # central difference error ~ h^2 |M'''| ~ 1e-10 against entries ~ 1e2: relative 1e-8
        assert np.abs(S + S.T).max() <= 1e-8 * np.abs(M_dot).max()


# --- test 4: C nu against Newton-Euler per body about its CoM ----------------------------------------

def test_coriolis_equals_newton_euler(client, rng):
    for _ in range(10):
        p, R1, R2, nu = random_state(rng)
        force, torques = np.zeros(3), []
        for link, R, w in ((client.link1, R1, nu[3:6]), (client.link2, R2, nu[6:9])):
            rc = R @ link.com
            Ic = R @ link.inertia_com @ R.T
            # velocity-dependent CoM acceleration and Euler torque about the CoM ...
            f_c = link.mass * np.cross(w, np.cross(w, rc))
            t_c = np.cross(w, Ic @ w)
            force += f_c
            # ... transported to H: moment of the CoM force about H
            torques.append(t_c + np.cross(rc, f_c))
        expected = np.concatenate([force, *torques])
        got = dyn.coriolis_matrix(client, R1, R2, nu) @ nu
        np.testing.assert_allclose(got, expected, atol=1e-11 * np.abs(expected).max())


# --- forward dynamics against Pinocchio (free-flyer + spherical joint at H) -----------------------------

def _pinocchio_model(client):
    model = pin.Model()
    model.gravity = pin.Motion.Zero()  # space: pinocchio defaults to -9.81 z
    j1 = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "free")
    model.appendBodyToJoint(j1, pin.Inertia(client.link1.mass, client.link1.com, client.link1.inertia_com),
                            pin.SE3.Identity())
    j2 = model.addJoint(j1, pin.JointModelSpherical(), pin.SE3.Identity(), "hinge")
    model.appendBodyToJoint(j2, pin.Inertia(client.link2.mass, client.link2.com, client.link2.inertia_com),
                            pin.SE3.Identity())
    return model


@pytest.mark.parametrize("with_forces", [False, True])
def test_forward_dynamics_matches_pinocchio(client, rng, with_forces):
    client = _with_friction(client)
    model = _pinocchio_model(client)
    data = model.createData()
    for _ in range(10):
        p, R1, R2, nu = random_state(rng)
        W1, W2 = (rng.normal(size=6), rng.normal(size=6)) if with_forces else (np.zeros(6), np.zeros(6))
        Q = dyn.generalized_force(client, R1, R2, W1, W2)
        ours = dyn.forward_dynamics(client, R1, R2, nu, Q)

        R_rel = R1.T @ R2
        q = np.concatenate([p, quaternion_from_dcm(R1), quaternion_from_dcm(R_rel)])
        w_child = R2.T @ (nu[6:9] - nu[3:6])  # spherical joint velocity: relative rate in the child frame
        v = np.concatenate([R1.T @ nu[:3], R1.T @ nu[3:6], w_child])
        # hinge torque on Link-2 (world) = -(g_K + g_F + D nu) in the omega2 rows; joint torque in child frame
        tau_h = -dyn.hinge_forces(client, R1, R2, nu)[6:9]
        tau = np.concatenate([np.zeros(6), R2.T @ tau_h])
        fext = pin.StdVec_Force()
        fext.append(pin.Force.Zero())
        for R, W, d in ((R1, W1, client.grasp1), (R2, W2, client.grasp2)):
            # external wrench about each joint frame origin (H), in the body frame
            f_H = W[:3]
            t_H = W[3:] + np.cross(R @ d, W[:3])
            fext.append(pin.Force(R.T @ f_H, R.T @ t_H))
        a = pin.aba(model, data, q, v, tau, fext)
        # back to world-frame generalized accelerations
        w1_loc = v[3:6]
        v_dot = R1 @ (a[:3] + np.cross(w1_loc, v[:3]))
        w1_dot = R1 @ a[3:6]
        w2_dot = w1_dot + np.cross(nu[6:9], R2 @ w_child) + R2 @ a[6:9]
        expected = np.concatenate([v_dot, w1_dot, w2_dot])
        np.testing.assert_allclose(ours, expected, atol=1e-10 * max(1.0, np.abs(expected).max()))


# --- hinge spring: exact gradient of the potential (both spring models) --------------------------------

@pytest.mark.parametrize("model", ["logmap", "trace"])
def test_spring_force_is_gradient_of_potential(client, rng, model):
    hinge = HingeParams(np.array([0.5, 0.25, 0.3]), client.hinge.damping, spring_model=model)
    c = client.with_hinge(hinge)
    h = 1e-6
    for _ in range(5):
        p, R1, R2, nu = random_state(rng)
        g = dyn.spring_force(c, R1, R2)
        for k in range(3):
            e = np.eye(3)[k] * h
            # rotate Link-2 (world increment) and Link-1 (world increment); g = dU/d(rotation)
            d2 = (dyn.spring_energy(c, R1, so3_exp(e) @ R2) - dyn.spring_energy(c, R1, so3_exp(-e) @ R2)) / (2 * h)
            d1 = (dyn.spring_energy(c, so3_exp(e) @ R1, R2) - dyn.spring_energy(c, so3_exp(-e) @ R1, R2)) / (2 * h)
            assert abs(g[6 + k] - d2) < 1e-8 and abs(g[3 + k] - d1) < 1e-8
    # the trace spring equals K theta to first order (small angle)
    R1 = np.eye(3)
    small = np.array([1e-4, -2e-4, 1.5e-4])
    g = dyn.spring_force(c, R1, so3_exp(small))
    np.testing.assert_allclose(g[6:9], hinge.stiffness * small, rtol=1e-3)


# --- test 6: grasp algebra -------------------------------------------------------------------------------

def test_grasp_map_algebra(rng):
    from satdyn.detumbling.regressors import grasp_regressor
    for _ in range(10):
        R = so3_exp(rng.normal(size=3))
        d_true, d_hat, W = rng.normal(size=3), rng.normal(size=3), rng.normal(size=6)
        lhs = dyn.grasp_map(R @ d_true) @ np.linalg.inv(dyn.grasp_map(R @ d_hat)) @ W
        rhs = W + np.concatenate([np.zeros(3), grasp_regressor(W[:3], R) @ (d_hat - d_true)])
        np.testing.assert_allclose(lhs, rhs, atol=1e-13)


def test_generalized_force_power_duality(client, rng):
    """Q . nu equals the power of the tug wrenches on their grasp-point twists (virtual work)."""
    for _ in range(10):
        p, R1, R2, nu = random_state(rng)
        W1, W2 = rng.normal(size=6), rng.normal(size=6)
        Q = dyn.generalized_force(client, R1, R2, W1, W2)
        tw = dyn.grasp_twists(client, R1, R2, nu)
        assert abs(Q @ nu - (W1 @ tw[0] + W2 @ tw[1])) < 1e-12 * (1 + abs(Q @ nu))


def test_damping_matrix_psd(client, rng):
    for _ in range(5):
        _, R1, _, _ = random_state(rng)
        assert np.linalg.eigvalsh(dyn.damping_matrix(client, R1)).min() > -1e-12
