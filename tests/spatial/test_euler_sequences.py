"""Euler angles of all 12 sequences (intrinsic and extrinsic) against SciPy and rotation kinematics."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from satdyn.spatial import dcm_from_euler, euler_from_dcm, euler_rate_matrix
from satdyn.spatial.euler import (
    EULER_SEQUENCES,
    dcm_from_euler_sequence,
    euler_sequence_from_dcm,
    euler_sequence_rate_matrix,
    euler_sequence_rate_matrix_inverse,
)

# All comparisons below are between closed forms evaluated in float64 on angles of order 1:
# round-off is a few ulps times the number of products (< 1e-14); 1e-12 leaves margin for any BLAS.
TOL = 1e-12


def _angles(rng, n, sequence):
    a = rng.uniform(-np.pi, np.pi, size=(n, 3))
    proper = sequence[0].lower() == sequence[2].lower()
    a[:, 1] = rng.uniform(0.05, np.pi - 0.05, n) if proper else rng.uniform(-1.5, 1.5, n)
    return a


@pytest.mark.parametrize("sequence", EULER_SEQUENCES)
def test_dcm_and_angles_match_scipy(sequence):
    # SciPy's from_euler / as_euler use the same letter-case convention (upper = intrinsic):
    # an independent implementation (quaternion-based) of the same definition.
    rng = np.random.default_rng(12)
    a = _angles(rng, 50, sequence)
    P = dcm_from_euler_sequence(a, sequence)
    np.testing.assert_allclose(P, Rotation.from_euler(sequence, a).as_matrix(), atol=TOL)
    back = euler_sequence_from_dcm(P, sequence)
    np.testing.assert_allclose(back, a, atol=1e-10)  # acos-free formulas: error ~ ulp / |cos b|, |cos b| > 0.05
    np.testing.assert_allclose(back, Rotation.from_matrix(P).as_euler(sequence), atol=1e-10)


@pytest.mark.parametrize("sequence", EULER_SEQUENCES)
def test_gimbal_lock_angles_rebuild_the_dcm(sequence):
    # At the singular middle angle the split between the outer angles is arbitrary; the
    # returned angles must still rebuild the same DCM (to round-off).
    rng = np.random.default_rng(3)
    proper = sequence[0].lower() == sequence[2].lower()
    a = rng.uniform(-np.pi, np.pi, size=(8, 3))
    a[:, 1] = np.where(np.arange(8) % 2, 0.0 if proper else np.pi / 2, np.pi if proper else -np.pi / 2)
    P = dcm_from_euler_sequence(a, sequence)
    np.testing.assert_allclose(dcm_from_euler_sequence(euler_sequence_from_dcm(P, sequence), sequence), P,
                               atol=1e-9)
    with pytest.raises(ValueError, match="angles"):
        euler_sequence_rate_matrix(a, sequence)


@pytest.mark.parametrize("sequence", EULER_SEQUENCES)
@pytest.mark.parametrize("frame", ["body", "inertial"])
def test_rates_match_finite_differences_of_the_dcm(sequence, frame):
    # dP/dt = P skew(omega_b) = skew(omega_i) P. Central differences of step h have truncation
    # error ~ h^2 |P'''| / 6 ~ 1e-11 and round-off ~ eps / h ~ 1e-11 for h = 1e-5.
    rng = np.random.default_rng(7)
    a = _angles(rng, 20, sequence)
    rates = rng.normal(size=(20, 3))
    h = 1e-5
    dP = (dcm_from_euler_sequence(a + h * rates, sequence) - dcm_from_euler_sequence(a - h * rates, sequence)) / (2 * h)
    P = dcm_from_euler_sequence(a, sequence)
    W = np.swapaxes(P, -1, -2) @ dP if frame == "body" else dP @ np.swapaxes(P, -1, -2)
    omega = np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]], axis=-1)
    E = euler_sequence_rate_matrix_inverse(a, sequence, frame)
    np.testing.assert_allclose(np.einsum("nij,nj->ni", E, rates), omega, atol=1e-8)
    G = euler_sequence_rate_matrix(a, sequence, frame)
    np.testing.assert_allclose(np.einsum("nij,nj->ni", G, omega), rates, atol=1e-7)


def test_zyx_is_the_existing_321_convention():
    # satdyn.spatial's 3-2-1 functions take (phi, theta, psi); "ZYX" lists (psi, theta, phi).
    rng = np.random.default_rng(5)
    a = _angles(rng, 30, "ZYX")
    np.testing.assert_allclose(dcm_from_euler_sequence(a, "ZYX"), dcm_from_euler(a[:, ::-1]), atol=TOL)
    P = dcm_from_euler(a[:, ::-1])
    np.testing.assert_allclose(euler_sequence_from_dcm(P, "ZYX"), euler_from_dcm(P)[:, ::-1], atol=TOL)
    for frame in ("body", "inertial"):
        np.testing.assert_allclose(euler_sequence_rate_matrix(a, "ZYX", frame)[:, ::-1, :],
                                   euler_rate_matrix(a[:, ::-1], frame), atol=1e-11)


def test_batched_shapes():
    a = np.zeros((2, 4, 3))
    assert dcm_from_euler_sequence(a, "zxz").shape == (2, 4, 3, 3)
    assert euler_sequence_from_dcm(np.broadcast_to(np.eye(3), (2, 4, 3, 3)), "XYZ").shape == (2, 4, 3)
    assert euler_sequence_rate_matrix(a + 0.3, "YXZ", "inertial").shape == (2, 4, 3, 3)


@pytest.mark.parametrize("call, name", [
    (lambda: dcm_from_euler_sequence([0, 0, 0], "ZYQ"), "sequence"),
    (lambda: dcm_from_euler_sequence([0, 0, 0], "ZyX"), "sequence"),
    (lambda: dcm_from_euler_sequence([0, 0], "ZYX"), "angles"),
    (lambda: euler_sequence_from_dcm(2 * np.eye(3), "ZYX"), "P_bi"),
    (lambda: euler_sequence_rate_matrix([0.1, 0.2, 0.3], "ZYX", frame="world"), "frame"),
])
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()
