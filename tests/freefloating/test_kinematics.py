"""Kinematics: DCM chain vs the paper's DH matrices, quaternion ≡ DCM, point velocities, CoM.

References: the DH matrices of eq. (2) multiplied exactly as printed in eqs. (8)-(10)
(independent of the model's joint-placement form); Pinocchio's centre of mass; central
finite differences of positions for velocities.  Tolerances: 1e-12 for identities that
differ only by rounding; 1e-8 for finite differences with h = 1e-6 (O(h²) truncation).
"""

import numpy as np
import pinocchio as pin
import pytest
from oracle import pin_configuration, pinocchio_model, random_model, random_state

from satdyn.freefloating import (
    forward_kinematics,
    forward_kinematics_quaternion,
    from_dh,
    link_velocities,
    load_example,
    point_velocity,
    system_com,
)
from satdyn.freefloating.model import dh_transform, homogeneous
from satdyn.spatial import dcm_from_euler, quaternion_from_dcm


def _paper_chain(params, q, r0, R0):
    """Eqs. (7)-(10) literally: T_J1 = T_J0 [R(ϵζη) b0], T_Ji+1 = T_Ji A(q, d, α, a+b), T_Li = T_Ji A(q, d, α, a)."""
    T = homogeneous(R0, r0) @ homogeneous(dcm_from_euler(params["euler"]), params["b0"])
    joints, coms = [], []
    for i in range(len(q)):
        th = q[i] + params["theta0"][i]
        joints.append(T)
        coms.append((T @ dh_transform(th, params["d"][i], params["alpha"][i], params["a"][i]))[:3, 3])
        T = T @ dh_transform(th, params["d"][i], params["alpha"][i], params["a"][i] + params["b"][i])
    return joints, np.array(coms), T


def _random_dh(n, rng):
    return {"d": rng.uniform(-0.5, 0.5, n), "alpha": rng.uniform(-np.pi, np.pi, n), "a": rng.uniform(0.1, 0.6, n),
            "b": rng.uniform(0.1, 0.6, n), "theta0": rng.uniform(-1, 1, n), "b0": rng.normal(size=3),
            "euler": rng.uniform(-1, 1, 3)}


@pytest.mark.parametrize("n", [1, 3, 6])
def test_dh_model_reproduces_paper_chain(n):
    rng = np.random.default_rng(10 + n)
    p = _random_dh(n, rng)
    model = from_dh(base_mass=100.0, base_inertia=np.diag([10.0, 12.0, 14.0]), mount_position=p["b0"],
                    mount_euler=p["euler"], d=p["d"], alpha=p["alpha"], a=p["a"], b=p["b"],
                    theta_offset=p["theta0"], masses=np.ones(n), inertias=np.array([np.diag([0.1, 0.2, 0.2])] * n))
    r0, R0, q, _ = random_state(rng, n)
    kin = forward_kinematics(model, q, r0, R0)
    joints, coms, ee = _paper_chain(p, q, r0, R0)
    np.testing.assert_allclose(kin.joint_positions, [T[:3, 3] for T in joints], atol=1e-12)
    np.testing.assert_allclose(kin.joint_axes, [T[:3, 2] for T in joints], atol=1e-12)
    np.testing.assert_allclose(kin.link_coms, coms, atol=1e-12)
    np.testing.assert_allclose(kin.ee_position, ee[:3, 3], atol=1e-12)
    np.testing.assert_allclose(kin.ee_attitude, ee[:3, :3], atol=1e-12)


def test_dh_matrix_derivative_eq84():
    """∂A/∂q (eq. 84) equals Ŝ_z A and a central difference of eq. (2)."""
    th, d, al, c = 0.7, 0.3, -0.4, 1.2
    h = 1e-6
    fd = (dh_transform(th + h, d, al, c) - dh_transform(th - h, d, al, c)) / (2 * h)
    S = np.zeros((4, 4))
    S[0, 1], S[1, 0] = -1.0, 1.0
    np.testing.assert_allclose(S @ dh_transform(th, d, al, c), fd, atol=1e-9)


@pytest.mark.parametrize("n", [2, 7])
def test_quaternion_chain_equals_dcm_chain(n):
    rng = np.random.default_rng(n)
    model = random_model(n, n)
    r0, R0, q, _ = random_state(rng, n)
    batch_q = np.stack([q, -q, 2 * q])
    a = forward_kinematics(model, batch_q, r0, R0)
    b, link_q, ee_q = forward_kinematics_quaternion(model, batch_q, r0, quaternion_from_dcm(R0))
    for field in ("joint_positions", "joint_axes", "link_attitudes", "link_coms", "ee_position", "ee_attitude",
                  "link_inertias"):
        np.testing.assert_allclose(getattr(b, field), getattr(a, field), atol=1e-12, err_msg=field)
    np.testing.assert_allclose(np.linalg.norm(link_q, axis=-1), 1.0, atol=1e-14)


def test_system_com_matches_pinocchio():
    for n in (1, 4, 7):
        rng = np.random.default_rng(n)
        model = random_model(n, n)
        r0, R0, q, _ = random_state(rng, n)
        pm, pd, _ = pinocchio_model(model)
        com = pin.centerOfMass(pm, pd, pin_configuration(r0, R0, q))
        np.testing.assert_allclose(system_com(model, forward_kinematics(model, q, r0, R0)), com, atol=1e-12)


def test_point_and_link_velocities_vs_finite_differences():
    """Eqs. (15)-(16) vs central differences of positions moved along (base twist, q̇)."""
    n = 5
    rng = np.random.default_rng(3)
    model = random_model(n, 3)
    r0, R0, q, qd = random_state(rng, n)
    tw = rng.normal(size=6)
    h = 1e-6

    def moved(s):
        from satdyn.spatial import so3_exp
        return forward_kinematics(model, q + s * qd, r0 + s * tw[:3], so3_exp(s * tw[3:]) @ R0)

    kp, km, k0 = moved(h), moved(-h), moved(0.0)
    rdot, w = link_velocities(k0, tw, qd)
    np.testing.assert_allclose(rdot, (kp.link_coms - km.link_coms) / (2 * h), atol=1e-8)
    v = point_velocity(k0, n, k0.ee_position, tw, qd)
    np.testing.assert_allclose(v[:3], (kp.ee_position - km.ee_position) / (2 * h), atol=1e-8)
    np.testing.assert_allclose(v[3:], w[-1], atol=1e-14)
    # angular velocity of the last link from dR/dt R^T
    Rd = (kp.link_attitudes[-1] - km.link_attitudes[-1]) / (2 * h)
    W = Rd @ k0.link_attitudes[-1].T
    np.testing.assert_allclose([W[2, 1], W[0, 2], W[1, 0]], w[-1], atol=1e-8)


def test_s6s_geometry_of_spec():
    """Spec §8.4: at q = 0 the S6S arm lies on y = 0, z = 0.25 from x = 0.5 to 5.5; joint 1 ∥ x, others ∥ y."""
    kin = forward_kinematics(load_example("s6s").model, np.zeros(6))
    np.testing.assert_allclose(kin.joint_positions[:, 1:], [[0.0, 0.25]] * 6, atol=1e-12)
    np.testing.assert_allclose(kin.joint_positions[0, 0], 0.5)
    np.testing.assert_allclose(kin.ee_position, [5.5, 0.0, 0.25], atol=1e-12)
    np.testing.assert_allclose(np.abs(kin.joint_axes), [[1, 0, 0]] + [[0, 1, 0]] * 5, atol=1e-12)


def test_bad_inputs_are_named():
    model = random_model(3, 0)
    with pytest.raises(ValueError, match="`q`"):
        forward_kinematics(model, np.zeros(4))
    with pytest.raises(ValueError, match="triangle"):
        from_dh(base_mass=1.0, base_inertia=np.eye(3), mount_position=np.zeros(3), d=[0.0], alpha=[0.0], a=[1.0],
                b=[0.0], masses=[1.0], inertias=[np.diag([1.0, 1.0, 3.0])])
    with pytest.raises(ValueError, match="base_mass"):
        from_dh(base_mass=-1.0, base_inertia=np.eye(3), mount_position=np.zeros(3), d=[0.0], alpha=[0.0], a=[1.0],
                b=[0.0], masses=[1.0], inertias=[np.eye(3)])
    with pytest.raises(TypeError, match="model"):
        forward_kinematics("arm", np.zeros(3))
