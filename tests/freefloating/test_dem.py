"""Dynamically Equivalent Manipulator (Liang, Xu & Bergerman 1998) against the free-floating system.

Two independent checks: (1) the DEM's fixed-pivot mass matrix equals the free-floating
kinetic-energy matrix with the linear momentum eliminated (Schur complement of the (6+N)
matrix over the base-translation rows: P = 0); (2) the DEM, built as a fixed-base Pinocchio
model (spherical joint at the system CoM, integrated with Pinocchio's ABA), follows the
free-floating end-effector trajectory that satdyn.freefloating.simulate produces under the same
joint torques.
"""

import dataclasses

import numpy as np
import pinocchio as pin
import pytest
from oracle import pinocchio_model, random_model
from scipy.integrate import solve_ivp

from satdyn.freefloating import (
    base_twist_from_momentum,
    dynamically_equivalent_manipulator,
    forward_kinematics,
    inertia_blocks,
    simulate,
    system_com,
    system_mass_matrix,
)
from satdyn.spatial import dcm_from_quaternion, quaternion_derivative, quaternion_from_dcm


@pytest.mark.parametrize("n,seed", [(1, 3), (3, 4), (5, 5)])
def test_dem_mass_matrix_equals_zero_momentum_kinetic_energy(n, seed):
    # Reference: A_rr − A_rv A_vv⁻¹ A_vr of the free-floating 𝒜 at identity attitude (eliminating
    # v0 with P = 0). Exact identity; 1e-10 relative covers the rounding of O(1e3) entries.
    model = random_model(n, seed)
    dem = dynamically_equivalent_manipulator(model)
    q = np.random.default_rng(seed).uniform(-np.pi, np.pi, (6, n))
    A = system_mass_matrix(inertia_blocks(model, q))
    schur = A[:, 3:, 3:] - A[:, 3:, :3] @ np.linalg.solve(A[:, :3, :3], A[:, :3, 3:])
    Md = dem.mass_matrix(q)
    np.testing.assert_allclose(Md, schur, atol=1e-10 * np.abs(schur).max())
    # negative control: the VM geometry with the real (unscaled) masses is not equivalent
    naive = dataclasses.replace(dem, chain=dataclasses.replace(dem.chain, link_masses=model.link_masses))
    assert np.abs(naive.mass_matrix(q) - schur).max() > 1e-3 * np.abs(schur).max()


def test_dem_reproduces_free_floating_end_effector_motion():
    n = 4
    model = random_model(n, 21)
    dem = dynamically_equivalent_manipulator(model)
    rng = np.random.default_rng(21)
    amp, freq = rng.uniform(-3.0, 3.0, n), rng.uniform(0.5, 2.0, n)

    def tau(t):
        return amp * np.sin(freq * t)

    quat0 = np.array([0.2, -0.1, 0.3, 0.9]) / np.linalg.norm([0.2, -0.1, 0.3, 0.9])
    R0 = dcm_from_quaternion(quat0)
    q0 = rng.uniform(-1.0, 1.0, n)
    qd0 = rng.uniform(-0.5, 0.5, n)
    # the DEM's spherical joint starts with the base's zero-momentum angular velocity (body axes)
    w0_body = R0.T @ base_twist_from_momentum(model, q0, qd0, base_attitude=R0)[3:]
    # put the (fixed) system CoM at the origin, the DEM's pivot
    com = system_com(model, forward_kinematics(model, q0, np.zeros(3), R0))
    t_final, dt = 4.0, 0.05
    ff = simulate(model, joint_torque=lambda t, q, qd: tau(t), t_final=t_final, q0=q0, base_position=-com,
                  base_quaternion=quat0, qdot0=qd0, sample_dt=dt)
    ee_ff = forward_kinematics(model, ff.q, ff.base_position, dcm_from_quaternion(ff.base_quaternion)).ee_position

    # fixed-base Pinocchio model of the DEM: spherical joint at the origin (the pivot), then its chain
    pm, pd, ee = pinocchio_model(dem.chain, root=pin.JointModelSpherical())

    def rhs(t, y):
        quat, q, w, qd = y[:4], y[4:4 + n], y[4 + n:7 + n], y[7 + n:]
        quat = quat / np.linalg.norm(quat)
        acc = pin.aba(pm, pd, np.r_[quat, q], np.r_[w, qd], np.r_[np.zeros(3), tau(t)])
        return np.concatenate([quaternion_derivative(quat, w, "body"), qd, acc])

    y0 = np.concatenate([quaternion_from_dcm(R0), q0, w0_body, qd0])
    sol = solve_ivp(rhs, (0, t_final), y0, method="DOP853", rtol=1e-11, atol=1e-12, t_eval=ff.t)
    ee_dem = []
    for y in sol.y.T:
        quat = y[:4] / np.linalg.norm(y[:4])
        pin.framesForwardKinematics(pm, pd, np.r_[quat, y[4:4 + n]])
        ee_dem.append(pd.oMf[ee].translation.copy())
    ee_dem = np.array(ee_dem)
    moved = np.abs(ee_ff - ee_ff[0]).max()
    assert moved > 0.1                                     # the torques do move the arm
    # Both trajectories are integrated at rtol 1e-10 / 1e-11 over 4 s of O(1) motion (a few
    # hundred steps): the global error of each is bounded by ~1e-8, hence the tolerance.
    np.testing.assert_allclose(ee_dem, ee_ff, atol=1e-8)
    np.testing.assert_allclose(sol.y[4:4 + n].T, ff.q, atol=1e-8)


def test_dem_rejects_non_model():
    with pytest.raises(TypeError, match="model"):
        dynamically_equivalent_manipulator("arm")
