"""Generalized Jacobian: vs Pinocchio frame velocities and finite differences; RMRC straight line.

Spec §11 tests 11-12.  (a) J*q̇ equals Pinocchio's end-effector frame velocity
(LOCAL_WORLD_ALIGNED: [linear; angular] of the frame origin in world axes) under a
zero-momentum base twist (eq. 109): rounding-level agreement, 1e-12.  (b) The linear part
equals a central difference of the EE position with base and joints propagated along (109)
by a tight integration (h = 1e-5: truncation ~1e-10).  (c, d) Base point and link CoMs.
"""

import numpy as np
import pinocchio as pin
import pytest
from oracle import pin_configuration, pin_velocity, pinocchio_model, random_model, random_state
from scipy.integrate import solve_ivp

from satdyn.freefloating import (
    base_twist_from_momentum,
    forward_kinematics,
    generalized_jacobian,
    link_velocities,
    momentum_twist_offset,
    point_jacobians,
    rmrc_joint_rates,
)
from satdyn.freefloating.inertia import base_inertia_inverse, inertia_blocks
from satdyn.spatial import dcm_from_quaternion, quaternion_derivative, quaternion_from_dcm


@pytest.mark.parametrize("n", [1, 3, 6, 7])
def test_gjm_matches_pinocchio_frame_velocity(n):
    rng = np.random.default_rng(70 + n)
    model = random_model(n, 70 + n)
    r0, R0, q, qd = random_state(rng, n)
    tw = base_twist_from_momentum(model, q, qd, r0, R0)
    pm, pd, ee = pinocchio_model(model)
    pin.forwardKinematics(pm, pd, pin_configuration(r0, R0, q), pin_velocity(R0, tw, qd))
    pin.updateFramePlacements(pm, pd)
    v = pin.getFrameVelocity(pm, pd, ee, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
    J = generalized_jacobian(model, q, base_position=r0, base_attitude=R0)
    np.testing.assert_allclose(J @ qd, np.concatenate([v.linear, v.angular]), atol=1e-12)


def _propagate(model, q, qd, r0, R0, s):
    """Base pose and joints after s seconds of constant q̇ with the base from (109)."""
    n = model.n_joints

    def rhs(t, y):
        quat = y[3:7]
        tw = base_twist_from_momentum(model, y[7:], qd, y[:3], dcm_from_quaternion(quat))
        return np.concatenate([tw[:3], quaternion_derivative(quat, tw[3:], "inertial"), qd])

    y0 = np.concatenate([r0, quaternion_from_dcm(R0), q])
    y = solve_ivp(rhs, (0, s), y0, method="DOP853", rtol=1e-13, atol=1e-15).y[:, -1] if s else y0
    return forward_kinematics(model, y[7:7 + n], y[:3], dcm_from_quaternion(y[3:7]))


def test_gjm_linear_part_vs_finite_difference_of_simulated_pose():
    n = 5
    rng = np.random.default_rng(11)
    model = random_model(n, 11)
    r0, R0, q, qd = random_state(rng, n)
    h = 1e-5
    kp = _propagate(model, q, qd, r0, R0, h)
    km = _propagate(model, q, -qd, r0, R0, h)   # backwards in time = forwards with −q̇
    J = generalized_jacobian(model, q, base_position=r0, base_attitude=R0)
    np.testing.assert_allclose(J[:3] @ qd, (kp.ee_position - km.ee_position) / (2 * h), atol=1e-8)


def test_gjm_base_point_and_link_coms():
    n = 4
    rng = np.random.default_rng(12)
    model = random_model(n, 12)
    r0, R0, q, qd = random_state(rng, n)
    blocks = inertia_blocks(model, q, r0, R0)
    G = base_inertia_inverse(blocks) @ blocks.H0m
    pj = point_jacobians(model, q, link=0, local_point=[0.1, 0.2, -0.3], base_position=r0, base_attitude=R0)
    J0 = generalized_jacobian(model, q, link=0, local_point=[0.1, 0.2, -0.3], base_position=r0, base_attitude=R0)
    np.testing.assert_allclose(J0, -pj.J0 @ G, atol=1e-13)         # (c): J* = −J₀X H₀⁻¹H₀ₘ
    tw = base_twist_from_momentum(model, q, qd, r0, R0)
    rdot, w = link_velocities(forward_kinematics(model, q, r0, R0), tw, qd)
    for i in range(1, n + 1):                                        # (d): J* q̇ = ṙᵢ
        Ji = generalized_jacobian(model, q, link=i, local_point=model.link_coms[i - 1], base_position=r0,
                                  base_attitude=R0)
        np.testing.assert_allclose(Ji @ qd, np.concatenate([rdot[i - 1], w[i - 1]]), atol=1e-12)


def test_affine_term_with_momentum():
    n = 3
    rng = np.random.default_rng(13)
    model = random_model(n, 13)
    r0, R0, q, qd = random_state(rng, n)
    M = rng.normal(size=6)
    tw = base_twist_from_momentum(model, q, qd, r0, R0, momentum=M)
    pj = point_jacobians(model, q, base_position=r0, base_attitude=R0)
    twist = pj.J0 @ tw + pj.Jm @ qd
    J = generalized_jacobian(model, q, base_position=r0, base_attitude=R0)
    off = momentum_twist_offset(model, q, base_position=r0, base_attitude=R0, momentum=M)
    np.testing.assert_allclose(J @ qd + off, twist, atol=1e-12)


@pytest.mark.parametrize("mode", ["rotation-flying", "translation-flying", "flying"])
def test_gjm_refused_where_momentum_is_not_conserved(mode):
    model = random_model(2, 0)
    with pytest.raises(ValueError, match="conserved system momentum"):
        generalized_jacobian(model, np.zeros(2), mode=mode)


def test_rmrc_end_effector_follows_a_straight_line():
    """q̇ = J*⁻¹ẋ_des (eq. 111) with a constant EE velocity; the EE path stays on the line to 1e-6 m."""
    n = 6
    model = random_model(n, 14)
    q0 = np.random.default_rng(4).uniform(-1, 1, n)   # seed chosen with σ_min(J*) ≈ 0.11
    v_des = np.array([0.02, -0.01, 0.015])
    twist_des = np.concatenate([v_des, np.zeros(3)])

    def rhs(t, y):
        R0 = dcm_from_quaternion(y[3:7])
        J = generalized_jacobian(model, y[7:], base_position=y[:3], base_attitude=R0)
        qd = rmrc_joint_rates(J, twist_des)
        tw = base_twist_from_momentum(model, y[7:], qd, y[:3], R0)
        return np.concatenate([tw[:3], quaternion_derivative(y[3:7], tw[3:], "inertial"), qd])

    y0 = np.concatenate([np.zeros(3), [0, 0, 0, 1.0], q0])
    assert np.linalg.svd(generalized_jacobian(model, q0), compute_uv=False).min() > 0.1  # away from singularity
    sol = solve_ivp(rhs, (0, 5.0), y0, method="DOP853", rtol=1e-11, atol=1e-12, t_eval=np.linspace(0, 5, 26))
    ee = forward_kinematics(model, sol.y[7:].T, sol.y[:3].T, dcm_from_quaternion(sol.y[3:7].T)).ee_position
    expected = ee[0] + sol.t[:, None] * v_des
    assert np.abs(ee - expected).max() < 1e-6


def test_rmrc_damped_near_singularity_is_bounded():
    J = np.zeros((6, 6))
    J[np.arange(6), np.arange(6)] = [1, 1, 1, 1, 1, 1e-9]
    qd = rmrc_joint_rates(J, np.ones(6), damping=0.05, threshold=0.05)
    assert np.all(np.isfinite(qd)) and np.abs(qd).max() < 1.0 + 1e-12
    np.testing.assert_allclose(rmrc_joint_rates(np.eye(6) * 2, np.ones(6)), 0.5 * np.ones(6))
