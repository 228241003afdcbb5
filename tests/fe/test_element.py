"""The shell element against published plate results, beam theory and scikit-fem."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.linalg import eigh

from satdyn import fe
from satdyn.fe.element import shell_element

NU = 0.3
# Leissa, "Vibration of plates" (NASA SP-160, 1969), cantilever square plate, nu = 0.3:
# Ritz values of lambda = omega a^2 sqrt(rho h / D) for the first five modes.
LEISSA = np.array([3.492, 8.525, 21.43, 27.33, 31.11])


def _lambda(structure, h, E, rho, count=5):
    modes = structure.modes(8)
    D = E * h**3 / (12 * (1 - NU**2))
    oop = np.array([t == "out-of-plane" for t in modes.types])
    return modes.omega[oop][:count] * np.sqrt(rho * h / D)


def test_element_rigid_body_modes_and_symmetry():
    # Independent: any rigid motion (6 of them, 5 DOFs + in-plane rotation through u, v) strains
    # nothing, so K R = 0; K and M symmetric; M positive definite; mass of the element = rho h a^2.
    a, h, E, rho = 0.125, 0.0338, 11.26e9, 178.8
    K, M = shell_element(a, h, E, NU, rho)
    xy = a / 2 * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])
    R = fe.structure.rigid_field(xy)
    np.testing.assert_allclose(K @ R, 0, atol=1e-9 * np.abs(K).max())
    np.testing.assert_allclose(K, K.T, atol=1e-12 * np.abs(K).max())
    assert np.linalg.eigvalsh(M)[0] > 0
    # exactly six zero-energy modes (round-off 1e-10 of the largest eigenvalue): no spurious
    # mechanism -- MITC4 and the condensed QM6 modes are free of zero-energy modes
    lam = np.linalg.eigvalsh(K)
    assert np.sum(lam < 1e-10 * lam[-1]) == 6
    D_P = R.T @ M @ R
    assert D_P[0, 0] == pytest.approx(rho * h * a * a, rel=1e-12)


def test_leissa_cantilever_square_plate():
    # Leissa's Ritz values are upper bounds, accurate to ~0.3 % (his comparison of solutions);
    # MITC4 at 16 x 16 is within 0.6 % of its converged value (halving the mesh changes these
    # five by less than that). 1 % covers both.  Thin plate (h/a = 1e-3): shear-free limit.
    h, E, rho = 0.001, 70e9, 2700.0
    p = fe.plate(1.0, 1.0, h, E, NU, rho, element_size=1 / 16)
    np.testing.assert_allclose(_lambda(p, h, E, rho), LEISSA, rtol=1e-2)


def test_thick_plate_lowers_the_frequencies():
    # Physics: transverse shear and rotary inertia (h/a = 0.034) lower every frequency below
    # the thin-plate value (spec value at k = 32: 3.465 ... 30.55).
    h, E, rho = 0.0338, 11.26e9, 178.8
    thin = _lambda(fe.plate(1.0, 1.0, 0.001, E, NU, rho, element_size=1 / 16), 0.001, E, rho)
    thick = _lambda(fe.plate(1.0, 1.0, h, E, NU, rho, element_size=1 / 16), h, E, rho)
    assert np.all(thick < thin)


def _bfs_cantilever(k, count=5):
    """scikit-fem C1 Kirchhoff plate (Bogner-Fox-Schmit), unit square clamped at x = 0:
    lambda = omega a^2 sqrt(rho h / D) directly (D = rho h = 1)."""
    from skfem import Basis, BilinearForm, ElementQuadBFS, MeshQuad, asm
    from skfem.helpers import dd, ddot, trace

    x = np.linspace(0.0, 1.0, k + 1)
    basis = Basis(MeshQuad.init_tensor(x, x), ElementQuadBFS(), intorder=6)

    @BilinearForm
    def bending(u, v, w):
        return (1 - NU) * ddot(dd(u), dd(v)) + NU * trace(dd(u)) * trace(dd(v))

    @BilinearForm
    def mass(u, v, w):
        return u * v

    K, M = asm(bending, basis), asm(mass, basis)
    clamped = basis.get_dofs(lambda p: np.isclose(p[0], 0.0)).all()
    free = basis.complement_dofs(clamped)
    lam = eigh(K[free][:, free].toarray(), M[free][:, free].toarray(), eigvals_only=True,
               subset_by_index=(0, count - 1))
    return np.sqrt(lam)


def test_scikit_fem_kirchhoff_plate_oracle():
    # A different element (C1 Kirchhoff BFS, no shear) from another library: both converge to
    # the thin-plate solution; at 16 x 16 each is within 0.6 % of it (mesh studies), so they
    # agree within 1 %.
    h, E, rho = 0.001, 70e9, 2700.0
    ours = _lambda(fe.plate(1.0, 1.0, h, E, NU, rho, element_size=1 / 16), h, E, rho)
    np.testing.assert_allclose(ours, _bfs_cantilever(16), rtol=1e-2)


def _strip(k=8):
    h, E, rho = 0.0338, 11.26e9, 178.8
    return fe.plate(6.0, 1.0, h, E, NU, rho, element_size=1 / k), h, E, rho


def test_strip_in_plane_bending_against_beam_theory():
    # 6 m x 1 m cantilever strip, first in-plane bending mode vs Euler-Bernoulli
    # f = 1.8751^2 / (2 pi L^2) sqrt(E I / (rho A)), I = h b^3 / 12.  Euler-Bernoulli neglects
    # shear deformation and rotary inertia, both of which lower the frequency (Timoshenko,
    # L/b = 6: about -2 %): the FE must lie in [0.96, 1.0] x EB (2 % more for the mesh).
    s, h, E, rho = _strip()
    m = s.modes(8)
    f_ip = m.frequencies_hz[[t == "in-plane" for t in m.types]][0]
    b, L = 1.0, 6.0
    f_eb = 1.87510407**2 / (2 * np.pi * L**2) * np.sqrt(E * h * b**3 / 12 / (rho * h * b))
    assert 0.96 * f_eb <= f_ip <= f_eb


def test_strip_out_of_plane_between_beam_and_plate_stiffness():
    # A wide strip bends between a beam (E I) and a cylindrical plate (D b): the first
    # out-of-plane frequency lies between the two Euler-Bernoulli values (a bracket, no tolerance).
    s, h, E, rho = _strip()
    f1 = s.modes(3).frequencies_hz[0]
    base = 1.87510407**2 / (2 * np.pi * 36.0) * np.sqrt(E * h**2 / 12 / rho)
    assert base < f1 < base / np.sqrt(1 - NU**2)


def test_assembly_equals_element_loop():
    # The vectorised COO assembly equals a plain loop over elements (2 tiles, 'points' joints).
    st = fe.tile_structure(3, elements_per_edge=2, joints="points", join_fractions=(0.5,))
    Ke, _ = shell_element(st.mesh.side, 0.0338, 11.26e9, NU, 178.8)
    n = st.mesh.n_dofs
    loop = np.zeros((n, n))
    for e in st.mesh.elements:
        d = (5 * e[:, None] + np.arange(5)).ravel()
        loop[np.ix_(d, d)] += Ke
    np.testing.assert_allclose(st.K.toarray() / np.abs(Ke).max(), loop / np.abs(Ke).max(), atol=1e-13)
    assert sp.issparse(st.K)
