"""Rotation conversions, SO(3) exp/log and their Jacobians, Euler-rate matrices and
quaternion kinematics.

References: round trips (exact maps, tolerance a few ulps of O(1) numbers, 1e-12);
Rodrigues written out independently; finite differences (central, step 1e-6: truncation
error ~1e-12, rounding ~1e-10, hence 1e-7); MuJoCo's quaternion routines (scalar-first)
as an oracle for the Hamilton product and the quaternion -> DCM map.
"""

import mujoco
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from satdyn import spatial as sp

rng0 = np.random.default_rng(20)
rotvecs = arrays(float, 3, elements=st.floats(-3.0, 3.0))
angles_strategy = st.tuples(st.floats(-3.1, 3.1), st.floats(-1.5, 1.5), st.floats(-3.1, 3.1)).map(np.array)


def random_quaternions(rng, n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def test_quaternion_dcm_round_trip_and_sign_canonical():
    q = random_quaternions(np.random.default_rng(21), 200)
    P = sp.dcm_from_quaternion(q)
    q2 = sp.quaternion_from_dcm(P)
    assert np.all(q2[:, 3] >= 0)
    assert np.allclose(np.abs(np.einsum("ij,ij->i", q, q2)), 1.0, atol=1e-12)  # same up to sign
    assert np.allclose(sp.dcm_from_quaternion(q2), P, atol=1e-12)


def test_quaternion_to_dcm_and_product_equal_mujoco():
    rng = np.random.default_rng(22)
    for p, q in zip(random_quaternions(rng, 20), random_quaternions(rng, 20)):
        mat = np.zeros(9)
        mujoco.mju_quat2Mat(mat, sp.quaternion_to_wxyz(p))
        assert np.allclose(sp.dcm_from_quaternion(p), mat.reshape(3, 3), atol=1e-14)
        prod = np.zeros(4)
        mujoco.mju_mulQuat(prod, sp.quaternion_to_wxyz(p), sp.quaternion_to_wxyz(q))
        assert np.allclose(sp.quaternion_multiply(p, q), sp.quaternion_from_wxyz(prod), atol=1e-14)
        # Homomorphism: dcm(p q) = dcm(p) dcm(q); the conjugate is the inverse.
        assert np.allclose(sp.dcm_from_quaternion(sp.quaternion_multiply(p, q)),
                           sp.dcm_from_quaternion(p) @ sp.dcm_from_quaternion(q), atol=1e-13)
        assert np.allclose(sp.quaternion_multiply(p, sp.quaternion_conjugate(p)), [0, 0, 0, 1], atol=1e-14)


@given(rotvecs)
def test_rotvec_round_trip_and_rodrigues(phi):
    P = sp.dcm_from_rotvec(phi)
    angle = np.linalg.norm(phi)
    if angle > 1e-9:
        assert np.allclose(P, sp.rodrigues(phi, angle), atol=1e-12)
    back = sp.rotvec_from_dcm(P)
    assert np.allclose(sp.so3_exp(back), P, atol=1e-12)
    if angle < np.pi - 1e-6:
        assert np.allclose(back, phi, atol=1e-10)


@pytest.mark.parametrize("angle", [0.0, 1e-12, 1e-7, 1e-4, 0.5, np.pi - 1e-9, np.pi])
def test_log_is_accurate_near_zero_and_pi(angle):
    axis = np.array([0.3, -0.5, 0.81])
    axis /= np.linalg.norm(axis)
    P = sp.rodrigues(axis, angle)
    phi = sp.so3_log(P)
    # At pi the axis sign is ambiguous: compare the rotation, and the angle.
    assert np.linalg.norm(phi) == pytest.approx(angle, abs=1e-9)
    assert np.allclose(sp.so3_exp(phi), P, atol=1e-12)
    if 0 < angle < 3:
        assert np.allclose(phi, axis * angle, rtol=1e-9, atol=1e-15)


@given(angles_strategy)
def test_euler_round_trip_and_definition(angles):
    P = sp.dcm_from_euler(angles)
    phi, theta, psi = angles
    Rz = sp.rodrigues([0, 0, 1], psi)
    Ry = sp.rodrigues([0, 1, 0], theta)
    Rx = sp.rodrigues([1, 0, 0], phi)
    assert np.allclose(P, Rz @ Ry @ Rx, atol=1e-12)  # 3-2-1 as the architecture page defines it
    assert np.allclose(sp.euler_from_dcm(P), angles, atol=1e-9)


@pytest.mark.parametrize("theta", [np.pi / 2, -np.pi / 2])
def test_euler_at_gimbal_lock_returns_an_equivalent_triple(theta):
    P = sp.dcm_from_euler([0.4, theta, -0.3])
    angles = sp.euler_from_dcm(P)
    assert angles[2] == 0.0
    assert np.allclose(sp.dcm_from_euler(angles), P, atol=1e-12)


def finite_difference(f, x, h=1e-6):
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = h
        cols.append((f(x + e) - f(x - e)) / (2 * h))
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize("scale", [1e-9, 1e-3, 0.7, 2.0, np.pi - 1e-3])
def test_so3_jacobians_against_finite_differences(scale):
    rng = np.random.default_rng(23)
    phi = rng.normal(size=3)
    phi *= scale / np.linalg.norm(phi)
    P = sp.so3_exp(phi)
    # Left: exp(phi + d) P^T = exp(J_l d); right: P^T exp(phi + d) = exp(J_r d).
    left = finite_difference(lambda x: sp.so3_log(sp.so3_exp(x) @ P.T), phi)
    right = finite_difference(lambda x: sp.so3_log(P.T @ sp.so3_exp(x)), phi)
    assert np.allclose(sp.so3_left_jacobian(phi), left, atol=1e-7)
    assert np.allclose(sp.so3_right_jacobian(phi), right, atol=1e-7)
    assert np.allclose(sp.so3_left_jacobian_inverse(phi) @ sp.so3_left_jacobian(phi), np.eye(3), atol=1e-12)
    assert np.allclose(sp.so3_right_jacobian_inverse(phi) @ sp.so3_right_jacobian(phi), np.eye(3), atol=1e-12)


def test_so3_jacobian_inverse_is_finite_at_pi():
    phi = np.array([np.pi, 0.0, 0.0])
    J_inv = sp.so3_left_jacobian_inverse(phi)
    assert np.all(np.isfinite(J_inv))
    assert np.allclose(J_inv @ sp.so3_left_jacobian(phi), np.eye(3), atol=1e-12)


@given(angles_strategy.filter(lambda a: abs(np.cos(a[1])) > 0.05),
       arrays(float, 3, elements=st.floats(-2, 2)))
def test_euler_rate_matrices_against_dcm_derivative(angles, omega_b):
    # d/dt P = P skew(omega_b) = skew(omega_i) P, with angles_dot = Gamma(angles) omega.
    P = sp.dcm_from_euler(angles)
    omega_i = P @ omega_b
    rates_b = sp.euler_rate_matrix(angles, "body") @ omega_b
    rates_i = sp.euler_rate_matrix(angles, "inertial") @ omega_i
    assert np.allclose(rates_b, rates_i, atol=1e-9)
    h = 1e-6
    P_dot = (sp.dcm_from_euler(angles + h * rates_b) - sp.dcm_from_euler(angles - h * rates_b)) / (2 * h)
    assert np.allclose(P_dot, P @ sp.skew(omega_b), atol=1e-6)
    for frame in ("body", "inertial"):
        G = sp.euler_rate_matrix(angles, frame)
        E = sp.euler_rate_matrix_inverse(angles, frame)
        assert np.allclose(G @ E, np.eye(3), atol=1e-9)


def test_euler_rate_matrix_raises_at_gimbal_lock():
    with pytest.raises(ValueError, match="gimbal lock"):
        sp.euler_rate_matrix([0.1, np.pi / 2, 0.2])


def test_quaternion_derivative_against_finite_difference_of_the_dcm():
    rng = np.random.default_rng(24)
    q = random_quaternions(rng, 1)[0]
    omega_b = rng.normal(size=3)
    P = sp.dcm_from_quaternion(q)
    for frame, omega in (("body", omega_b), ("inertial", P @ omega_b)):
        q_dot = sp.quaternion_derivative(q, omega, frame)
        h = 1e-6
        P_dot = (sp.dcm_from_quaternion(q + h * q_dot) - sp.dcm_from_quaternion(q - h * q_dot)) / (2 * h)
        assert np.allclose(P_dot, P @ sp.skew(omega_b), atol=1e-8)
        assert q @ q_dot == pytest.approx(0.0, abs=1e-14)  # keeps the norm


def test_batched_equals_looped():
    rng = np.random.default_rng(25)
    phi = rng.normal(size=(3, 4, 3))
    batched = {
        "exp": sp.so3_exp(phi), "jl": sp.so3_left_jacobian(phi), "jli": sp.so3_left_jacobian_inverse(phi),
        "euler": sp.euler_from_dcm(sp.so3_exp(phi)), "quat": sp.quaternion_from_dcm(sp.so3_exp(phi)),
        "rate": sp.euler_rate_matrix(phi * 0.3, "body"),
    }
    for i in range(3):
        for j in range(4):
            assert np.array_equal(batched["exp"][i, j], sp.so3_exp(phi[i, j]))
            assert np.array_equal(batched["jl"][i, j], sp.so3_left_jacobian(phi[i, j]))
            assert np.array_equal(batched["jli"][i, j], sp.so3_left_jacobian_inverse(phi[i, j]))
            assert np.allclose(batched["euler"][i, j], sp.euler_from_dcm(sp.so3_exp(phi[i, j])), atol=0)
            assert np.allclose(batched["quat"][i, j], sp.quaternion_from_dcm(sp.so3_exp(phi[i, j])), atol=0)
            assert np.array_equal(batched["rate"][i, j], sp.euler_rate_matrix(phi[i, j] * 0.3, "body"))


@pytest.mark.parametrize(
    "call, text",
    [
        (lambda: sp.dcm_from_quaternion([0, 0, 0, 0]), "`quaternion` must be non-zero"),
        (lambda: sp.dcm_from_quaternion([1, 0, 0]), "`quaternion`"),
        (lambda: sp.quaternion_from_dcm(np.ones((3, 3))), "orthonormal"),
        (lambda: sp.so3_log(np.diag([1.0, 1.0, -1.0])), "reflection"),
        (lambda: sp.rodrigues([0, 0, 0], 1.0), "`axis`"),
        (lambda: sp.dcm_from_euler([0.1, 0.2]), "`angles`"),
        (lambda: sp.euler_rate_matrix([0.0, 0.0, 0.0], "world"), "`frame`"),
        (lambda: sp.quaternion_derivative([0, 0, 0, 1], [1.0, 2.0], "body"), "`omega`"),
        (lambda: sp.so3_left_jacobian_inverse([2 * np.pi, 0, 0]), "2\\*pi"),
        (lambda: sp.quaternion_multiply(np.zeros((2, 4)), np.zeros((3, 4))), "batch"),
    ],
)
def test_error_paths(call, text):
    with pytest.raises(ValueError, match=text):
        call()
