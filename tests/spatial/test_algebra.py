"""Identities of the 6-vector algebra (tau, frame changes, transforms), checked against
closed-form identities and Pinocchio's SE3 action (an independent implementation).

Tolerances: every identity is exact in real arithmetic and involves a handful of
O(1) products, so 1e-12 absolute on O(1)-sized random data is a few hundred ulps.
"""

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from satdyn import spatial as sp

vec3 = arrays(float, 3, elements=st.floats(-10, 10))
vec6 = arrays(float, 6, elements=st.floats(-10, 10))


@given(vec3, vec3)
def test_skew_is_cross_product_and_vee_inverts_it(a, b):
    assert np.allclose(sp.skew(a) @ b, np.cross(a, b), atol=1e-12)
    assert np.allclose(sp.vee(sp.skew(a)), a, atol=0)


@given(vec3)
def test_tau_inverse_is_tau_of_reversed_vector(r):
    assert np.allclose(sp.tau(r) @ sp.tau(-r), np.eye(6), atol=1e-12)


@given(vec3, vec3)
def test_tau_transitivity(r_AB, r_BC):
    # tau_AB tau_BC = tau_AC with AC = AB + BC.
    assert np.allclose(sp.tau(r_AB) @ sp.tau(r_BC), sp.tau(r_AB + r_BC), atol=1e-12)


@given(vec3, vec6, vec6)
def test_power_is_invariant_across_a_transport(r_PB, acc_B, W_P):
    # acc_P = tau_PB acc_B and W_B = tau_PB^T W_P carry the same power W . acc.
    acc_P = sp.tau(r_PB) @ acc_B
    W_B = sp.tau(r_PB).T @ W_P
    assert W_B @ acc_B == pytest.approx(W_P @ acc_P, abs=1e-9)


@given(vec3, vec6)
def test_tau_matches_rigid_kinematics(r_PB, acc_B):
    # a_P = a_B + omega_dot x BP (linearised, zero velocity) and T_B = T_P + BP x F.
    acc_P = sp.tau(r_PB) @ acc_B
    assert np.allclose(acc_P[:3], acc_B[:3] + np.cross(acc_B[3:], -r_PB), atol=1e-12)
    W_P = acc_B  # any wrench
    W_B = sp.tau(r_PB).T @ W_P
    assert np.allclose(W_B[3:], W_P[3:] + np.cross(-r_PB, W_P[:3]), atol=1e-12)


def test_frame_change_matrix_rotates_both_halves():
    rng = np.random.default_rng(1)
    P = sp.so3_exp(rng.normal(size=3))
    x = rng.normal(size=6)
    assert np.allclose(sp.frame_change_matrix(P) @ x, np.r_[P @ x[:3], P @ x[3:]], atol=1e-14)


def test_motion_and_wrench_transforms_equal_pinocchio_se3():
    # Oracle: Pinocchio's SE3(R, p).action and .act(Force) on random placements.
    rng = np.random.default_rng(2)
    for _ in range(20):
        R = sp.so3_exp(rng.normal(size=3) * 2)
        p = rng.normal(size=3)
        v = rng.normal(size=6)
        placement = pin.SE3(R, p)
        assert np.allclose(sp.motion_transform(R, p), placement.action, atol=1e-13)
        assert np.allclose(sp.motion_transform(R, p) @ v, placement.act(pin.Motion(v)).vector, atol=1e-13)
        assert np.allclose(sp.wrench_transform(R, p) @ v, placement.act(pin.Force(v)).vector, atol=1e-13)
        # Duality: power is the same in both frames.
        w = rng.normal(size=6)
        assert (sp.wrench_transform(R, p) @ w) @ (sp.motion_transform(R, p) @ v) == pytest.approx(w @ v, abs=1e-12)


def test_batched_equals_looped():
    rng = np.random.default_rng(3)
    r = rng.normal(size=(4, 5, 3))
    R = sp.so3_exp(rng.normal(size=(4, 5, 3)))
    batched = sp.motion_transform(R, r)
    assert batched.shape == (4, 5, 6, 6)
    for i in range(4):
        for j in range(5):
            assert np.array_equal(batched[i, j], sp.motion_transform(R[i, j], r[i, j]))
            assert np.array_equal(sp.tau(r)[i, j], sp.tau(r[i, j]))
            assert np.array_equal(sp.skew(r)[i, j], sp.skew(r[i, j]))


@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda: sp.skew([1.0, 2.0]), "`v`"),
        (lambda: sp.tau(np.zeros((2, 4))), "`r_PB`"),
        (lambda: sp.vee(np.zeros((3, 2))), "`matrix`"),
        (lambda: sp.frame_change_matrix(np.eye(2)), "`P_ab`"),
        (lambda: sp.motion_transform(np.eye(3), [1.0, 2.0, np.nan]), "`r_BA`"),
        (lambda: sp.motion_transform(np.stack([np.eye(3)] * 2), np.zeros((3, 3))), "batch dimensions"),
        (lambda: sp.wrench_transform(np.eye(3)[:2], np.zeros(3)), "`P_ab`"),
    ],
)
def test_bad_shapes_and_values_raise_value_error_naming_the_argument(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()


def test_non_numeric_input_raises_type_error():
    with pytest.raises(TypeError, match="`v`"):
        sp.skew(["a", "b", "c"])


def test_unchecked_variants_equal_the_checked_ones():
    from satdyn.spatial import unchecked

    rng = np.random.default_rng(4)
    r = rng.normal(size=(5, 3))
    P = sp.so3_exp(rng.normal(size=(5, 3)))
    assert np.array_equal(unchecked.skew(r), sp.skew(r))
    assert np.array_equal(unchecked.tau(r), sp.tau(r))
    assert np.array_equal(unchecked.frame_change_matrix(P), sp.frame_change_matrix(P))
