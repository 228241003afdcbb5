"""Rigid mass matrices and composite inertia, against the parallel-axis theorem written
out by hand and against Pinocchio's ``Inertia`` algebra (``matrix()``, ``se3.act``, ``+``).

Tolerance 1e-11 relative: sums of products of O(1..100) numbers.
"""

import numpy as np
import pinocchio as pin
import pytest

from satdyn import spatial as sp


def random_inertia(rng):
    # A physical inertia: principal moments satisfying the triangle inequality, rotated.
    moments = rng.uniform(1.0, 2.0, size=3)
    R = sp.so3_exp(rng.normal(size=3))
    return R @ np.diag(moments) @ R.T


def test_mass_matrix_equals_parallel_axis_form_and_pinocchio():
    rng = np.random.default_rng(10)
    for _ in range(20):
        m = rng.uniform(0.5, 50.0)
        J = random_inertia(rng)
        r_PG = rng.normal(size=3)
        D = sp.rigid_mass_matrix(m, J, r_PG)
        # Route 1: tau_GP^T D_G tau_GP; route 2: the explicit block form of spec 000a §1.7.
        S = sp.skew(r_PG)
        explicit = np.block([[m * np.eye(3), -m * S], [m * S, J - m * S @ S]])
        assert np.allclose(D, explicit, rtol=1e-12, atol=1e-12)
        assert np.allclose(D[3:, 3:], sp.parallel_axis(J, m, r_PG), rtol=1e-12, atol=1e-12)
        assert np.allclose(D, pin.Inertia(m, r_PG, J).matrix(), rtol=1e-12, atol=1e-11)


def test_mass_properties_inverts_rigid_mass_matrix():
    rng = np.random.default_rng(11)
    m = rng.uniform(1, 10, size=7)
    J = np.stack([random_inertia(rng) for _ in range(7)])
    r = rng.normal(size=(7, 3))
    m2, r2, J2 = sp.mass_properties(sp.rigid_mass_matrix(m, J, r))
    assert np.allclose(m2, m, rtol=1e-14)
    assert np.allclose(r2, r, atol=1e-13)
    assert np.allclose(J2, J, atol=1e-12)


def test_transport_then_back_is_identity_and_matches_pinocchio_placement():
    rng = np.random.default_rng(12)
    m, J, c = 3.0, random_inertia(rng), rng.normal(size=3)
    D_Q = sp.rigid_mass_matrix(m, J, c)  # at Q, in frame a
    P_ab = sp.so3_exp(rng.normal(size=3))
    r_QP = rng.normal(size=3)  # in frame b
    D_P = sp.transport_mass_matrix(D_Q, r_QP, P_ab)
    # Pinocchio: the body inertia at Q in a, placed by bMa = (P_ab, position of Q in b relative to P).
    inertia_b = pin.SE3(P_ab, -r_QP).act(pin.Inertia(m, c, J))
    assert np.allclose(D_P, inertia_b.matrix(), rtol=1e-12, atol=1e-11)
    back = sp.transport_mass_matrix(D_P, -P_ab.T @ r_QP, P_ab.T)
    assert np.allclose(back, D_Q, atol=1e-11)


def test_composite_routes_agree_with_each_other_and_with_pinocchio():
    rng = np.random.default_rng(13)
    n = 5
    m = rng.uniform(1, 20, size=n)
    J = np.stack([random_inertia(rng) for _ in range(n)])
    R = sp.so3_exp(rng.normal(size=(n, 3)))
    coms = rng.normal(size=(n, 3)) * 2
    total, com, J_sys = sp.composite_inertia(m, coms, J, R)
    D_O = sp.composite_mass_matrix(sp.rigid_mass_matrix(m, J), -coms, R)  # at the origin O
    m1, com1, J1 = sp.mass_properties(D_O)
    oracle = pin.Inertia.Zero()
    for k in range(n):
        oracle += pin.SE3(R[k], coms[k]).act(pin.Inertia(m[k], np.zeros(3), J[k]))
    assert total == pytest.approx(m.sum(), rel=1e-14) and m1 == pytest.approx(total, rel=1e-14)
    assert np.allclose(com, oracle.lever, atol=1e-12) and np.allclose(com1, com, atol=1e-12)
    assert np.allclose(J_sys, oracle.inertia, rtol=1e-12, atol=1e-10)
    assert np.allclose(J1, J_sys, rtol=1e-12, atol=1e-10)


def test_composite_is_batched():
    rng = np.random.default_rng(14)
    m = rng.uniform(1, 5, size=(3, 4))
    coms = rng.normal(size=(3, 4, 3))
    J = np.broadcast_to(np.eye(3), (3, 4, 3, 3))
    total, com, inertia = sp.composite_inertia(m, coms, J)
    for i in range(3):
        t, c, k = sp.composite_inertia(m[i], coms[i], J[i])
        assert np.array_equal(total[i], t) and np.allclose(com[i], c, atol=0) and np.allclose(inertia[i], k, atol=0)


@pytest.mark.parametrize(
    "call, exc, text",
    [
        (lambda: sp.rigid_mass_matrix(-1.0, np.eye(3)), ValueError, "`mass`"),
        (lambda: sp.rigid_mass_matrix(1.0, [[1, 2, 0], [0, 1, 0], [0, 0, 1]]), ValueError, "symmetric"),
        (lambda: sp.rigid_mass_matrix(1.0, np.eye(2)), ValueError, "`inertia`"),
        (lambda: sp.rigid_mass_matrix(1.0, np.eye(3), [0.0, 1.0]), ValueError, "`r_PG`"),
        (lambda: sp.mass_properties(np.zeros((6, 6))), ValueError, "`mass_matrix`"),
        (lambda: sp.composite_mass_matrix(np.eye(6), np.zeros(3)), ValueError, "n_bodies"),
        (lambda: sp.composite_inertia([1.0, 2.0], np.zeros((3, 3)), np.zeros((2, 3, 3))), ValueError, "batch"),
        (lambda: sp.parallel_axis(np.eye(3), "heavy", np.zeros(3)), TypeError, "`mass`"),
    ],
)
def test_error_paths(call, exc, text):
    with pytest.raises(exc, match=text):
        call()
