"""TITOP identities of the modal reduction, mode selection and signs, and the public-boundary errors."""

import warnings

import numpy as np
import pytest

from satdyn import fe
from satdyn.fe.reduction import port_operator
from satdyn.spatial import rigid_mass_matrix, tau
from satdyn.titop import ResidualMassWarning, flexible_body


def _tiles_rigid_composition(centres, props):
    # independent: each tile a uniform plate of mass rho h a^2, J = m/12 diag(a^2 + h^2, a^2 + h^2, 2 a^2)
    m = props.density * props.thickness * props.tile_side**2
    a2, h2 = props.tile_side**2, props.thickness**2
    J = m / 12 * np.diag([a2 + h2, a2 + h2, 2 * a2])
    r = np.column_stack([centres, np.zeros(len(centres))])
    return rigid_mass_matrix(np.full(len(r), m), np.broadcast_to(J, (len(r), 3, 3)), r).sum(axis=0)


@pytest.mark.parametrize("n, layout", [(1, "B"), (3, "B"), (17, "A"), (28, "B")])
def test_D_P_equals_rigid_composition_of_the_tiles(n, layout):
    # The rigid field is in the bilinear FE space, so the consistent mass integrates it exactly:
    # D_P = R^T M R equals the analytic composition to round-off (1e-9 relative).
    s = fe.tile_structure(n, layout=layout, elements_per_edge=4)
    D_ref = _tiles_rigid_composition(fe.tile_layout(layout)[:n], fe.tile_properties("S5"))
    np.testing.assert_allclose(s.mass_matrix_at_P, D_ref, rtol=0, atol=1e-9 * np.abs(D_ref).max())
    if n == 26 or n == 28:
        assert s.mass_matrix_at_P[0, 0] == pytest.approx(n * 6.0423, rel=1e-12)


@pytest.mark.parametrize("port_model", ["rbe3", "node"])
def test_port_maps_reproduce_tau_for_rigid_motions(port_model):
    # A rigid motion [t; theta] of P moves the port C by tau(r_CP) [t; theta] (TITOP kinematics).
    s = fe.tile_structure(6, elements_per_edge=4)
    for point in s.ports.values():
        G = port_operator(s, point, port_model, 0.25)
        r_PC = np.append(point - s.origin, 0.0)
        np.testing.assert_allclose(G @ s.R_P, tau(-r_PC), atol=1e-12)


@pytest.mark.parametrize("props", ["S5", "S4"])
def test_modal_completeness_and_residual_mass(props):
    # All modes (dense solve): D_P - sum L^T L is the mass the springs do not carry.  S5 has
    # every interface DOF on springs, so it is 0 (to round-off); S4 holds the translations
    # rigidly, so it is the translational mass of the rigid patches (positive semidefinite).
    s = fe.tile_structure(1, properties=props, elements_per_edge=2)
    all_modes = s.modes(s.n_dofs - 1)
    from scipy.linalg import eigh
    lam, vec = eigh(s.K_red.toarray(), s.M_red.toarray())
    vec = vec / np.sqrt(np.einsum("ij,ij->j", vec, s.M_red.toarray() @ vec))
    L_all = vec.T @ s.TtMR
    R_all = s.mass_matrix_at_P - L_all.T @ L_all
    if props == "S5":
        np.testing.assert_allclose(R_all, 0, atol=1e-10 * s.mass_matrix_at_P.max())
    else:
        ev = np.linalg.eigvalsh(R_all)
        assert ev[0] > -1e-10 * ev[-1] and ev[-1] > 1e-3
    # truncations: residual mass positive definite and decreasing as modes are added
    prev = None
    for m in (1, 3, 10):
        R = s.mass_matrix_at_P - all_modes.L_P[:m].T @ all_modes.L_P[:m]
        ev = np.linalg.eigvalsh(R)
        assert ev[0] > 0
        if prev is not None:
            assert np.all(np.linalg.eigvalsh(prev - R) > -1e-12 * ev[-1])
        prev = R


def test_modes_are_mass_normalised_and_deterministic():
    s = fe.tile_structure(5, elements_per_edge=4)
    m = s.modes(6)
    Mm = m.shapes.T @ (s.M_red @ m.shapes)
    Km = m.shapes.T @ (s.K_red @ m.shapes)
    np.testing.assert_allclose(Mm, np.eye(6), atol=1e-10)
    np.testing.assert_allclose(Km, np.diag(m.omega**2), atol=1e-8 * m.omega[-1] ** 2)
    # sign rule: the largest |L_P| entry of every mode is positive; a rebuild gives the same data
    assert np.all(m.L_P[np.arange(6), np.argmax(np.abs(m.L_P), axis=1)] > 0)
    again = fe.tile_structure(5, elements_per_edge=4).port_data([2, 5], n_modes=6)
    first = s.port_data([2, 5], n_modes=6)
    np.testing.assert_allclose(again.L_P, first.L_P, atol=1e-9 * np.abs(first.L_P).max())
    np.testing.assert_allclose(again.children["C5"][1], first.children["C5"][1], atol=1e-9)


def test_port_data_is_the_flexible_body_input():
    # flexible_body(**port_data): no residual-mass warning, 2 m states, and the poles of the
    # TITOP model with P clamped (x''_P = 0, free ports) are the FE clamped-free frequencies.
    pd = fe.tile_structure(17, elements_per_edge=4).port_data(ports=[13], n_modes=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResidualMassWarning)
        body = flexible_body(**pd)
    ss = body.lfr.nominal()
    assert ss.nstates == 10
    poles = np.sort(np.abs(np.linalg.eigvals(ss.A)))[::2]
    np.testing.assert_allclose(poles, pd.frequencies, rtol=1e-9)
    assert set(pd) == {"name", "D_P", "frequencies", "damping", "L_P", "children", "frame"}
    assert pd.residual_eigenvalues[0] > 0 and pd.residual_condition > 1


def test_user_plate_through_the_same_path():
    # A solar panel 2 m x 1 m on the same reduction path; the residual mass of a rigidly
    # clamped plate keeps the root-line mass, so it stays positive definite.
    p = fe.plate(2.0, 1.0, 0.02, 20e9, 0.3, 150.0, element_size=0.125, name="panel")
    pd = p.port_data(n_modes=6, frame="a")
    body = flexible_body(**pd)
    assert body.name == "panel" and "tip" in pd.children
    np.testing.assert_allclose(pd.children["tip"][0], [2.0, 0.0, 0.0])
    assert pd.D_P[0, 0] == pytest.approx(2.0 * 0.02 * 150.0, rel=1e-12)


def test_auto_mode_selection():
    # "auto": all modes below 20 Hz, at least 6, at most 20 (F1: none below 20 Hz -> 6;
    # F26: 9 below 20 Hz in the spec's family table)
    assert len(fe.tile_structure(1).port_data([1], n_modes="auto").frequencies) == 6
    pd = fe.tile_structure(26).port_data([25], n_modes="auto")
    assert len(pd.frequencies) == int(np.sum(fe.tile_structure(26).modes(20).frequencies_hz < 20)) == 9
    # by frequency with another limit (30 Hz): the count of modes below it, clipped to 6..20
    f = fe.tile_structure(26).modes(20).frequencies_hz
    assert len(fe.tile_structure(26).port_data([25], n_modes="auto", max_frequency_hz=30.0).frequencies) == \
        min(20, max(6, int(np.sum(f < 30.0))))


@pytest.mark.parametrize("call, exc, name", [
    (lambda: fe.tile_structure(0), ValueError, "n"),
    (lambda: fe.tile_structure(29), ValueError, "n"),
    (lambda: fe.tile_structure(3, properties="S9"), ValueError, "properties"),
    (lambda: fe.tile_structure(3, properties=1.0), TypeError, "properties"),
    (lambda: fe.tile_structure(3, layout="C"), ValueError, "layout"),
    (lambda: fe.tile_structure(3, joints="glued"), ValueError, "joints"),
    (lambda: fe.tile_structure(3, joints="points", join_fractions=(0.3,)), ValueError, "join_fractions"),
    (lambda: fe.tile_structure(3, elements_per_edge=0), ValueError, "elements_per_edge"),
    (lambda: fe.tile_structure(3, elements_per_edge=4, joints="points", join_fractions=(0.5,)).modes(3),
     ValueError, "joints"),
    (lambda: fe.plate(1.0, 1.0, -0.01, 70e9, 0.3, 2700, element_size=0.1), ValueError, "thickness"),
    (lambda: fe.plate(1.0, 1.0, 0.01, 70e9, 0.7, 2700, element_size=0.1), ValueError, "poisson_ratio"),
    (lambda: fe.plate(1.0, 1.0, 0.01, 70e9, 0.3, 2700, element_size=0.3), ValueError, "element_size"),
    (lambda: fe.LatchStiffness(k_t=None, k_d=-1.0, k_e=1.0, k_z=1.0), ValueError, "k_d"),
    (lambda: fe.tile_structure(2, elements_per_edge=2).port_data(ports=[3]), ValueError, "ports"),
    (lambda: fe.tile_structure(2, elements_per_edge=2).port_data(n_modes=0), ValueError, "n_modes"),
    (lambda: fe.tile_structure(2, elements_per_edge=2).port_data(n_modes="all"), ValueError, "n_modes"),
    (lambda: fe.tile_structure(2, elements_per_edge=2).port_data(port_model="rbe2"), ValueError, "port_model"),
    (lambda: fe.tile_structure(2, elements_per_edge=2).port_data(foot_radius=0.0), ValueError, "foot_radius"),
    (lambda: fe.tile_structure(2, elements_per_edge=2).port_data(damping=-0.1), ValueError, "damping"),
    (lambda: fe.plate(1.0, 1.0, 0.01, 70e9, 0.3, 2700, element_size=0.1, damping=2.0), ValueError, "damping"),
    (lambda: fe.tile_structure(2, elements_per_edge=2).port_data(n_modes="auto", max_frequency_hz=-1),
     ValueError, "max_frequency_hz"),
    (lambda: fe.tile_family(layout="C", cache=False), ValueError, "layout"),
    (lambda: fe.tile_family(max_modes=0, cache=False), ValueError, "max_modes"),
    (lambda: fe.tile_family(workers=0, cache=False), ValueError, "workers"),
    (lambda: fe.tile_family(elements_per_edge=0, cache=False), ValueError, "elements_per_edge"),
    (lambda: fe.tile_family(foot_radius=-1.0, cache=False), ValueError, "foot_radius"),
])
def test_bad_input_is_named(call, exc, name):
    with pytest.raises(exc, match=name):
        call()


def test_residual_mass_check_raises_with_relative_tolerance():
    D = np.diag([1.0, 1.0, 1.0, 1e-6, 1.0, 1.0])
    fe.check_residual_mass(D, np.zeros((1, 6)))                 # tiny but positive: accepted
    with pytest.raises(fe.ResidualMassError, match="not positive definite"):
        fe.check_residual_mass(D, np.array([[0, 0, 0, 2e-3, 0, 0]]))
