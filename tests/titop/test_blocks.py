"""Port blocks against closed forms (spec 000a section 7, tests 1-8, 20-21).

Oracles: the closed-form TITOP transfer of spec 000a 2.1 (H(s) = s^2/(s^2 + 2 xi w s + w^2)),
eq. 9-10 written out in numpy, scipy's matrix exponential (rotations), and physical invariants.
Tolerances: 1e-12 relative for purely algebraic identities (a few matrix products/inversions
of O(1e3)-conditioned matrices), looser only where stated.
"""

import warnings

import numpy as np
import pytest
from scipy.linalg import expm

from satdyn.lfr import ureal, vreal
from satdyn.spatial import rigid_mass_matrix, skew, tau
from satdyn.titop import (
    ResidualMassWarning, connect, flexible_body, frame_change, invert_port, joint_dcm, revolute_joint, rigid_body,
)
from satdyn.titop.data import load_assembly_spacecraft


@pytest.fixture(scope="module")
def data():
    return load_assembly_spacecraft()


def _titop_closed_form(s, D_P, L, Phi, T, omega, xi):
    H = np.diag(s**2 / (s**2 + 2 * xi * omega * s + omega**2))
    X = T - Phi @ H @ L
    return np.block([[Phi @ H @ Phi.T, X], [X.T, -(D_P - L.T @ H @ L)]])


def _F26_block(data, **kw):
    st = data.structures[26]
    return st, flexible_body("F", st.D_P2, st.modes.omega, st.modes.damping, st.modes.L_P,
                             {"C": (st.r_P2_C, st.Phi_C)}, **kw)


def test_titop_equals_closed_form_transfer(data):
    # spec 000a test 2: C (sI - A)^-1 B + D == the closed form at random s; DC = rigid, HF = D.
    st, F = _F26_block(data)
    T = tau(-st.r_P2_C)
    rng = np.random.default_rng(0)
    for s in 1j * rng.uniform(0.1, 40, 4) + rng.uniform(-1, 1, 4):
        G = np.asarray(F.lfr.nominal()(s))
        ref = _titop_closed_form(s, st.D_P2, st.modes.L_P, st.Phi_C, T, st.modes.omega, st.modes.damping)
        np.testing.assert_allclose(G, ref, rtol=1e-11, atol=1e-11 * np.abs(ref).max())
    ss = F.lfr.nominal()
    np.testing.assert_allclose(ss.D, _titop_closed_form(1e12j, st.D_P2, st.modes.L_P, st.Phi_C, T,
                                                        st.modes.omega, st.modes.damping).real, atol=1e-9)
    dc = np.asarray(ss(0.0)).real
    np.testing.assert_allclose(dc, np.block([[np.zeros((6, 6)), T], [T.T, -st.D_P2]]), atol=1e-9)


def test_titop_without_modes_is_the_rigid_two_port(data):
    # spec 000a test 1: n = 0 -> [[0, tau_CP], [tau_CP^T, -D_P]] == rigid_body with direct parent.
    st = data.structures[26]
    F0 = flexible_body("F", st.D_P2, [], [], np.zeros((0, 6)), {"C": (st.r_P2_C, np.zeros((6, 0)))})
    m, r_PG, J = 157.0998, None, None
    from satdyn.spatial import mass_properties
    m, r_PG, J = mass_properties(st.D_P2)
    R = rigid_body("F", m, J, {"P": -r_PG, "C": st.r_P2_C - r_PG}, direct="P", com_port=None)
    T = tau(-st.r_P2_C)
    expected = np.block([[np.zeros((6, 6)), T], [T.T, -st.D_P2]])
    np.testing.assert_allclose(F0.lfr.nominal(), expected, atol=1e-10)
    # rigid_body's signal order is [P acc, C W] -> [P W, C acc]: compare by names
    G = R.lfr.nominal()
    rows = R.lfr.output_index(["F:C:acc", "F:P:W"])
    cols = R.lfr.input_index(["F:C:W", "F:P:acc"])
    np.testing.assert_allclose(G[np.ix_(rows, cols)], expected, atol=1e-9)


def test_titop_reciprocity(data):
    # spec 000a test 3: G11 = G11^T, G22 = G22^T, G21 = G12^T at every s.
    _, F = _F26_block(data)
    ss = F.lfr.nominal()
    for s in (0.3j, 2.0 + 5j, 13j):
        G = np.asarray(ss(s))
        np.testing.assert_allclose(G[:6, :6], G[:6, :6].T, atol=1e-10 * np.abs(G).max())
        np.testing.assert_allclose(G[6:, 6:], G[6:, 6:].T, atol=1e-10 * np.abs(G).max())
        np.testing.assert_allclose(G[6:, :6], G[:6, 6:].T, atol=1e-10 * np.abs(G).max())


def test_modal_uncertainty_lfr_equals_rebuilt_titop(data):
    # spec 000a test 17: Fu(M, delta I2) == TITOP rebuilt with omega_1 = omega_10 (1 + 0.2 delta).
    am = data.array_modes
    w1 = ureal("A.omega1", am.omega[0], percent=20)
    A = flexible_body("A", data.array_D_P1, [w1, am.omega[1]], am.damping, am.L_P)
    assert [(b.name, b.size) for b in A.lfr.blocks] == [("A.omega1", 2)]
    for delta in (-1, -0.3, 0, 0.7, 1):
        w = am.omega.copy()
        w[0] *= 1 + 0.2 * delta
        rebuilt = flexible_body("A", data.array_D_P1, w, am.damping, am.L_P).lfr.nominal()
        sys = A.lfr.evaluate({"A.omega1": w[0]})
        for s in (0.5j, 8j, 40j):
            np.testing.assert_allclose(np.asarray(sys(s)), np.asarray(rebuilt(s)), rtol=1e-12, atol=1e-10)


def test_residual_mass_warning_names_the_body(data):
    # spec 000a D6: F1 as printed has an indefinite residual mass (min eig -1.166).
    st = load_assembly_spacecraft("as-printed").structures[1]
    args = ("F1", st.D_P2, st.modes.omega, st.modes.damping, st.modes.L_P, {"C": (st.r_P2_C, st.Phi_C)})
    with pytest.warns(ResidualMassWarning, match=r"'F1'.*-1\.166"):
        flexible_body(*args)
    with pytest.raises(ValueError, match="F1"):
        flexible_body(*args, strict=True)
    good = data.structures[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        flexible_body("F1", good.D_P2, good.modes.omega, good.modes.damping, good.modes.L_P,
                      {"C": (good.r_P2_C, good.Phi_C)})


def test_rigid_inverse_model_is_eq9_and_rank6():
    # spec 000a test 5: X = T D_G^-1 T^T symmetric PSD of rank 6.
    rng = np.random.default_rng(3)
    J = np.diag([3.0, 4.0, 5.0]) + 0.3
    ports = {"P1": rng.normal(size=3), "P2": rng.normal(size=3)}
    X = rigid_body("B", 12.0, J, ports).lfr.nominal()
    T = np.vstack([tau(-ports["P1"]), tau(-ports["P2"]), np.eye(6)])
    np.testing.assert_allclose(X, T @ np.linalg.inv(rigid_mass_matrix(12.0, J)) @ T.T, rtol=1e-12, atol=1e-14)
    assert np.linalg.matrix_rank(X, tol=1e-10) == 6
    assert np.linalg.eigvalsh(X).min() > -1e-12


def test_one_direct_port_is_eq10_and_inversion_is_an_involution():
    rng = np.random.default_rng(4)
    J = np.diag([3.0, 4.0, 5.0])
    r1, r2 = rng.normal(size=3), rng.normal(size=3)
    X = rigid_body("B", 12.0, J, {"P1": r1, "P2": r2})
    R = rigid_body("B", 12.0, J, {"P1": r1, "P2": r2}, direct="P1")
    DG = rigid_mass_matrix(12.0, J)
    tGP1, tP2G = tau(r1), tau(-r2)         # tau_{G P1} (G -> P1 is r1), tau_{P2 G}
    eq10 = np.block([
        [tGP1.T @ np.hstack([-DG @ tGP1, tP2G.T, np.eye(6)])],
        [np.vstack([tP2G, np.eye(6)]) @ np.hstack([tGP1, np.zeros((6, 12))])]])
    np.testing.assert_allclose(R.lfr.nominal(), eq10, rtol=1e-12, atol=1e-12)
    back = invert_port(R, "P1")
    np.testing.assert_allclose(back.lfr.nominal(), X.lfr.nominal(), atol=1e-12)
    assert back.lfr.input_names == X.lfr.input_names
    twice = invert_port(invert_port(X, "P2"), "P2")
    np.testing.assert_allclose(twice.lfr.nominal(), X.lfr.nominal(), atol=1e-12)


def test_frame_change_and_its_transpose_is_identity_connection():
    # spec 000a test 7: K(P) then K(P^T) is the identity connection; K is orthogonal.
    P = expm(skew(np.array([0.3, -1.1, 0.7])))
    K = frame_change("K", P, frames=("b", "a"))
    G = K.lfr.nominal()
    np.testing.assert_allclose(G @ G.T, np.eye(12), atol=1e-14)
    K2 = frame_change("K2", P.T, frames=("a", "b"))
    body = rigid_body("X", 3.0, np.eye(3), {"P": [0.1, 0.2, 0.3]}, direct="P", com_port=None, frame="b")
    chain = connect([K, K2, body], [("K.child", "K2.parent"), ("K2.child", "X.P")], external=["K.parent"])
    np.testing.assert_allclose(chain.lfr.nominal(), body.lfr.nominal(), atol=1e-13)


@pytest.mark.parametrize("axis", [[0, 0, 1], [0, 1, 0], [1, 2, -0.5]])
def test_joint_lfr_is_the_rotation(axis):
    # spec 000a test 8: Fu(M_P, tan(a/4) I) = P0 expm(a *v); tau = +-1 <-> a = +-pi; 16 channels.
    v = np.asarray(axis, float) / np.linalg.norm(axis)
    P0 = expm(skew(np.array([0.2, 0.5, -0.4])))
    a = vreal("a", 0.0, range=(-np.pi, np.pi), transform="tan_quarter")
    j = revolute_joint("j", v, a, offset=P0)
    assert [(b.name, b.size) for b in j.lfr.blocks] == [("a", 16)]
    assert joint_dcm(v, a, P0).ndelta == 4                      # 4 occurrences per rotation
    for angle in (-np.pi, -2.0, 0.0, 0.4, 3.0, np.pi):
        P = P0 @ expm(angle * skew(v))
        K = j.lfr.evaluate({"a": angle})
        np.testing.assert_allclose(K[:6, 6:], np.kron(np.eye(2), P).T, atol=1e-13)
        np.testing.assert_allclose(K[6:, :6], np.kron(np.eye(2), P), atol=1e-13)
    assert a.normalize(np.pi) == pytest.approx(1.0)
    rev = revolute_joint("r", v, a, offset=P0, reverse=True).lfr.evaluate({"a": 0.9})
    np.testing.assert_allclose(rev[6:, :6], np.kron(np.eye(2), (P0 @ expm(0.9 * skew(v))).T), atol=1e-13)


def test_joint_lfr_well_posed_over_the_box():
    # spec 000a test 21 (joint part): det(I - M11 Delta) != 0 for every tau in [-1, 1].
    a = vreal("a", 0.0, range=(-np.pi, np.pi), transform="tan_quarter")
    j = revolute_joint("j", [0, 1, 0], a)
    M11 = j.lfr.D[:16, :16]
    for t in np.linspace(-1, 1, 41):
        assert abs(np.linalg.det(np.eye(16) - t * M11)) > 1e-3
