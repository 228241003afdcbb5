"""Simulation: conservation laws, energy, closed loop vs Pinocchio full dynamics, nonholonomy, modes.

Spec §11 tests 8, 9, 10, 17, 18.  Momenta are recomputed from link velocities (eqs. 15-16),
independently of the equations of motion; the closed-loop reference integrates Pinocchio's
ABA (6+N dynamics, body-frame base velocity) under the same controller.  Tolerances follow
the spec: momentum 1e-12 (it is algebraically zero in the reduced model, so this checks the
bookkeeping), CoM drift 1e-9 m and energy 1e-9 relative at rtol 1e-10/1e-11 (integration error).
"""

import numpy as np
import pinocchio as pin
import pytest
from oracle import pinocchio_model, random_model
from scipy.integrate import solve_ivp

from satdyn.freefloating import (
    ComputedTorqueController,
    JointSequenceCommand,
    base_twist_from_momentum,
    load_example,
    reduced_terms,
    simulate,
)
from satdyn.spatial import dcm_from_quaternion, euler_from_dcm, quaternion_derivative


def _controller(n, joints=(0, 1)):
    return ComputedTorqueController(JointSequenceCommand(n, joints=joints, rate=0.3))


def test_floating_momentum_conserved_and_com_fixed():
    model = random_model(5, 80)
    res = simulate(model, controller=_controller(5), t_final=15.0, q0=np.full(5, 0.2), base_position=[1.0, -2.0, 0.5],
                   base_quaternion=[0.1, 0.2, -0.3, 0.9])
    assert res.layout == "reduced"
    assert np.abs(res.linear_momentum).max() < 1e-12
    assert np.abs(res.angular_momentum).max() < 1e-12
    assert res.com_drift.max() < 1e-9
    np.testing.assert_allclose(res.base_linear_momentum, -res.manipulator_linear_momentum, atol=1e-12)
    assert np.abs(res.base_linear_momentum).max() > 1e-2   # the split is not trivially zero


def test_zero_torque_energy_conserved():
    model = random_model(4, 81)
    qd0 = np.array([0.4, -0.3, 0.5, 0.2])
    res = simulate(model, t_final=15.0, qdot0=qd0, rtol=1e-11, atol=1e-13)
    T = res.kinetic_energy
    assert np.abs(T - T[0]).max() / T[0] < 1e-9
    # and ½ q̇ᵀHq̇ of the reduced model is the same energy (zero momentum)
    H = reduced_terms(model, res.q, res.qdot).H
    np.testing.assert_allclose(0.5 * np.einsum("ti,tij,tj->t", res.qdot, H, res.qdot), T, rtol=1e-12)


def test_energy_balance_with_control():
    """dT/dt = τᵀq̇: ΔT equals the integrated joint power (Simpson on a 0.01 s grid)."""
    from scipy.integrate import simpson
    model = random_model(3, 82)
    res = simulate(model, controller=_controller(3, (0,)), t_final=6.0, sample_dt=0.01)
    power = np.einsum("ti,ti->t", res.tau, res.qdot)
    work = simpson(power, x=res.t)
    assert (abs((res.kinetic_energy[-1] - res.kinetic_energy[0]) - work)
            < 1e-6 * max(np.abs(res.kinetic_energy).max(), 1e-3))


def test_closed_loop_matches_pinocchio_full_dynamics():
    """P4S joint-1 command for 12 s: reduced GJM model vs Pinocchio ABA (6+N) under the same controller."""
    ex = load_example("p4s")
    model, ctrl = ex.model, ex.controller
    n = model.n_joints
    t_end = 12.0
    res = simulate(model, controller=ctrl, t_final=t_end, sample_dt=1.0)
    pm, pd, _ = pinocchio_model(model)

    def rhs(t, y):
        quat, vb, q, qd = y[3:7], y[7:13], y[13:13 + n], y[13 + n:]
        red = reduced_terms(model, q, qd)
        tau = ctrl.torque(t, q, qd, red.H, red.C)
        x = np.concatenate([y[:3], quat / np.linalg.norm(quat), q])
        a = pin.aba(pm, pd, x, np.concatenate([vb, qd]), np.concatenate([np.zeros(6), tau]))
        R0 = dcm_from_quaternion(quat)
        return np.concatenate([R0 @ vb[:3], quaternion_derivative(quat, vb[3:], "body"), a[:6], qd, a[6:]])

    y = np.concatenate([np.zeros(3), [0, 0, 0, 1.0], np.zeros(6 + 2 * n)])
    for a, b in [(0.0, 10.0), (10.0, t_end)]:
        y = solve_ivp(rhs, (a, b), y, method="DOP853", rtol=1e-11, atol=1e-13).y[:, -1]
    np.testing.assert_allclose(res.base_position[-1], y[:3], atol=1e-9)
    np.testing.assert_allclose(res.base_quaternion[-1], y[3:7] / np.linalg.norm(y[3:7]), atol=1e-9)
    np.testing.assert_allclose(res.q[-1], y[13:13 + n], atol=1e-9)


def _kinematic_loop(model, legs):
    """Base pose after joint moves (joint, Δq) at unit rate, base from (109): purely kinematic."""
    n = model.n_joints
    y = np.concatenate([np.zeros(3), [0, 0, 0, 1.0], np.zeros(n)])
    for j, dq in legs:
        qd = np.zeros(n)
        qd[j] = np.sign(dq)

        def rhs(t, y, qd=qd):
            tw = base_twist_from_momentum(model, y[7:], qd, y[:3], dcm_from_quaternion(y[3:7]))
            return np.concatenate([tw[:3], quaternion_derivative(y[3:7], tw[3:], "inertial"), qd])
        y = solve_ivp(rhs, (0, abs(dq)), y, method="DOP853", rtol=1e-12, atol=1e-14).y[:, -1]
    return y


def test_nonholonomy_closed_loop_rotates_base_single_joint_does_not():
    """Spec §11.17 on P4S: q₁+0.5 → q₂+0.5 → q₁−0.5 → q₂−0.5 gives net yaw −0.2137° and
    r₀ ≈ (1.6e-6, 8.5e-4, 0) m; a single joint out-and-back returns the base exactly."""
    model = load_example("p4s").model
    y = _kinematic_loop(model, [(0, 0.5), (1, 0.5), (0, -0.5), (1, -0.5)])
    yaw = np.rad2deg(euler_from_dcm(dcm_from_quaternion(y[3:7]))[2])
    assert yaw == pytest.approx(-0.2137, abs=5e-5)
    assert y[0] == pytest.approx(1.6e-6, abs=1e-7)
    assert y[1] == pytest.approx(8.5e-4, abs=1e-5)
    assert abs(y[2]) < 1e-14
    np.testing.assert_allclose(y[7:], 0.0, atol=1e-12)
    y1 = _kinematic_loop(model, [(0, 0.8), (0, -0.8)])
    assert abs(np.rad2deg(euler_from_dcm(dcm_from_quaternion(y1[3:7]))[2])) < 1e-6
    assert np.abs(y1[:3]).max() < 1e-8


def test_single_joint_cycle_with_settle_returns_base():
    """Spec §11.17 first part: one joint cycle + 40 s settle, base pose back to start."""
    ex = load_example("p4s")
    cmd = JointSequenceCommand(4, joints=(1,), settle=40.0)
    res = simulate(ex.model, controller=ComputedTorqueController(cmd), sample_dt=1.0)
    assert np.abs(res.base_euler[-1]).max() < 1e-6
    assert np.abs(res.base_position[-1]).max() < 1e-8
    assert np.abs(np.rad2deg(res.base_euler[:, 2])).max() > 10.0   # it did move in between


def test_flying_mode_momentum_follows_external_wrench():
    """dP/dt = f₀ and, about the inertial origin, dL_Ω/dt = r₀×f₀ + n₀ along a simulated trajectory."""
    model = random_model(3, 83)
    f0, n0 = np.array([2.0, -1.0, 0.5]), np.array([0.3, 0.2, -0.4])
    res = simulate(model, controller=_controller(3, (0,)), t_final=5.0, mode="flying",
                   base_wrench=lambda t, y: (f0, n0), sample_dt=0.01)
    assert res.layout == "full"
    np.testing.assert_allclose(res.linear_momentum, res.t[:, None] * f0, atol=1e-9)
    from scipy.integrate import cumulative_simpson
    torque = np.cross(res.base_position, f0) + n0
    L_expected = cumulative_simpson(torque, x=res.t, axis=0, initial=0.0)
    np.testing.assert_allclose(res.angular_momentum, L_expected, atol=1e-8)


def test_rotation_floating_total_momentum_with_wheels_conserved():
    model = random_model(3, 84)
    hw0 = np.array([0.5, -0.2, 1.0])
    res = simulate(model, controller=_controller(3, (1,)), t_final=5.0, mode="rotation-floating",
                   wheel_momentum0=hw0, wheel_torque=lambda t, y: np.array([0.1, 0.0, -0.2]) * np.cos(t))
    R0 = dcm_from_quaternion(res.base_quaternion)
    # wheel momentum integrated in the state: h_w(t) = hw0 + [0.1, 0, −0.2] sin t
    hw = hw0 + np.outer(np.sin(res.t), [0.1, 0.0, -0.2])
    total = res.angular_momentum + np.einsum("tij,tj->ti", R0, hw)
    np.testing.assert_allclose(total - total[0], 0.0, atol=1e-9)
    # full layout: momentum is integrated, not algebraic
    np.testing.assert_allclose(res.linear_momentum, 0.0, atol=1e-9)
    assert np.abs(res.angular_momentum - res.angular_momentum[0]).max() > 1e-3  # wheels did exchange momentum


def test_simulate_rejects_bad_mode_inputs():
    model = random_model(2, 0)
    with pytest.raises(ValueError, match="wheels"):
        simulate(model, t_final=1.0, mode="flying", wheel_momentum0=[0, 0, 1.0])
    with pytest.raises(ValueError, match="base_force"):
        simulate(model, t_final=1.0, mode="rotation-flying", base_wrench=lambda t, y: ([1.0, 0, 0], [0, 0, 0]))
    with pytest.raises(ValueError, match="t_final"):
        simulate(model)


def test_reference_frame_invariance():
    """Spec §11.21: a shifted origin and a rotated initial base attitude leave q(t) unchanged and
    transform the base trajectory rigidly (r₀' = R r₀ + s, R₀' = R R₀)."""
    from satdyn.spatial import dcm_from_rotvec, quaternion_from_dcm
    model = random_model(3, 85)
    ctrl = _controller(3, (0,))
    a = simulate(model, controller=ctrl, t_final=8.0, sample_dt=1.0)
    R = dcm_from_rotvec([0.3, -0.8, 0.5])
    shift = np.array([2.0, -1.0, 3.0])
    b = simulate(model, controller=ctrl, t_final=8.0, sample_dt=1.0, base_position=shift,
                 base_quaternion=quaternion_from_dcm(R))
    np.testing.assert_allclose(b.q, a.q, atol=1e-9)
    np.testing.assert_allclose(b.base_position, a.base_position @ R.T + shift, atol=1e-9)
    np.testing.assert_allclose(dcm_from_quaternion(b.base_quaternion), R @ dcm_from_quaternion(a.base_quaternion),
                               atol=1e-9)
    assert np.abs(a.base_position).max() > 1e-3   # the base did move
