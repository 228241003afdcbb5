"""Tile structures F_n against the paper's Table 2 (arXiv:2409.06017), physics and mesh studies."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from satdyn import fe
from satdyn.fe.reduction import port_operator
from satdyn.spatial import rigid_mass_matrix
from satdyn.titop.data import load_assembly_spacecraft

# Table 2 frequencies [Hz] and the mode types they belong to (in-plane / out-of-plane), from
# the paper's mode shapes: F1 = [IP, OP, OP], F26 = [OP, IP, OP].
TABLE_F1 = ([30.7169, 35.1732, 50.2930], ["in-plane", "out-of-plane", "out-of-plane"])
TABLE_F26 = ([0.9120, 2.1, 2.99], ["out-of-plane", "in-plane", "out-of-plane"])


@pytest.fixture(scope="module")
def table():
    return load_assembly_spacecraft("interpreted")


def _by_type(modes, wanted_types):
    """FE frequencies matched to the table's modes by type, in order of frequency."""
    f = modes.frequencies_hz
    out, used = [], set()
    for t in wanted_types:
        j = next(i for i in range(len(f)) if modes.types[i] == t and i not in used)
        used.add(j)
        out.append(f[j])
    return np.array(out)


@pytest.mark.parametrize("props, rtol", [("S5", 0.015), ("S4", 0.095)])
def test_paper_frequencies_of_F1_and_F26(props, rtol):
    # The calibration claim of the property sets: S5 reproduces the six tabulated
    # frequencies within 1.5 %, S4 (rigid latch translations) within 9.5 %.
    for n, (f_tab, types) in ((1, TABLE_F1), (26, TABLE_F26)):
        modes = fe.tile_structure(n, properties=props).modes(6)
        np.testing.assert_allclose(_by_type(modes, types), f_tab, rtol=rtol)


def _cos(a, b):
    return abs(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b))


@pytest.mark.parametrize("props, n, port, mode, what", [
    ("S5", 26, 25, 0, "L"), ("S5", 26, 25, 0, "Phi"), ("S5", 26, 25, 1, "L"), ("S5", 26, 25, 1, "Phi"),
    ("S5", 1, 1, 2, "L"), ("S5", 1, 1, 2, "Phi"), ("S5", 1, 1, 1, "L"), ("S4", 1, 1, 1, "Phi"),
])
def test_interpreted_table_vectors_match_fe_shapes(table, props, n, port, mode, what):
    # The interpreted Table 2 (L_P and Phi_C swapped back, F1 mode-2 L_Ry = +1.3080) against
    # an independent FE model: cosine >= 0.99 where the spec's study found the shapes to agree
    # (F26 modes 1-2, F1 mode 3; F1 mode-2 Phi with S4).  F1 mode-2 L checks the corrected
    # entry: with the printed -0.7856 the cosine is 0.72.
    st = table.structures[n]
    pd = fe.tile_structure(n, properties=props).port_data([port], n_modes=3)
    fe_vec = pd.L_P[mode] if what == "L" else pd.children[f"C{port}"][1][:, mode]
    tab_vec = st.modes.L_P[mode] if what == "L" else st.Phi_C[:, mode]
    assert _cos(fe_vec, tab_vec) >= 0.99


def test_F1_mode2_printed_entry_disagrees_with_fe(table):
    printed = table.structures[1].modes.L_P[1].copy()
    printed[4] = -0.7856                         # as printed (before the correction)
    pd = fe.tile_structure(1).port_data([1], n_modes=3)
    assert _cos(pd.L_P[1], printed) < 0.8


def test_as_printed_reading_disagrees_with_fe():
    # Table 2 read literally (L_P and Phi_C not swapped): the spec's cosines 0.34-0.40 for F26.
    printed = load_assembly_spacecraft("as-printed").structures[26]
    pd = fe.tile_structure(26).port_data([25], n_modes=3)
    for j in range(2):
        assert _cos(pd.L_P[j], printed.modes.L_P[j]) < 0.5


def test_layout_B_is_the_layout_of_the_paper(table):
    # The interpreted F26 participation factors need D_P of layout B (row 7 mirrored, tile 25
    # at (-0.5, 6.5)) for a positive definite residual mass; with layout A it is indefinite
    # (about -102 kg m^2).  D_P here is the FE rigid mass matrix (not the titop composition).
    L = table.structures[26].modes.L_P
    lam = {lay: np.linalg.eigvalsh(fe.tile_structure(26, layout=lay, elements_per_edge=2).mass_matrix_at_P - L.T @ L)
           for lay in ("A", "B")}
    assert lam["B"][0] > 0.05
    assert lam["A"][0] < -50


ROBOT = rigid_mass_matrix(130.0, 5.0 * np.eye(3), [0.0, 0.0, 0.3])   # 130 kg, CoM 0.3 m above C


def _loaded_hz(omega, Phi, D_r):
    from scipy.linalg import eigh
    lam = eigh(np.diag(omega**2), np.eye(len(omega)) + Phi.T @ D_r @ Phi, eigvals_only=True)
    return np.sqrt(lam) / (2 * np.pi)


def test_robot_loaded_F26_from_the_interpreted_table(table):
    # The spec's sanity check: the 130 kg robot on F26 at C25 through the TITOP data
    # (I + Phi^T D_r Phi) gives 0.466 / 1.173 / 2.357 Hz (3 printed digits: half a unit).
    st = table.structures[26]
    np.testing.assert_allclose(_loaded_hz(st.modes.omega, st.Phi_C, ROBOT), [0.466, 1.173, 2.357], atol=6e-4)


def test_robot_loaded_F26_fe_titop_is_a_ritz_bound_of_the_fe_with_the_mass():
    # Reference: the FE model with the rigid mass inside it, attached through the same RBE3
    # foot (M + G^T D_r G).  The TITOP coupling with m modes is the Ritz projection of that
    # problem on the first m modes, so each frequency is an upper bound; with 10 modes the
    # spec measured <= 0.3 %: assert ref <= titop <= 1.01 ref.
    s = fe.tile_structure(26)
    pd = s.port_data([25], n_modes=10)
    titop = _loaded_hz(pd.frequencies, pd.children["C25"][1], ROBOT)[:3]
    GT = port_operator(s, s.ports["C25"]) @ s.T
    lam = spla.eigsh(s.K_red, k=3, M=s.M_red + GT.T @ sp.csr_matrix(ROBOT) @ GT, sigma=-1.0, which="LM")[0]
    ref = np.sqrt(np.sort(lam)) / (2 * np.pi)
    assert np.all(titop >= ref * (1 - 1e-9))
    assert np.all(titop <= ref * 1.01)
    # vs the interpreted table's loaded frequencies: the unloaded ones agree to 1.5 % and the
    # table's Phi_C25 magnitudes to 1-9 % (effective robot mass), so the first two within 5 %.
    np.testing.assert_allclose(titop[:2], [0.466, 1.173], rtol=0.05)


def test_rigid_translation_latch_S4_and_user_properties():
    # User-given properties reproduce a named set exactly when given its values.
    s4 = fe.tile_properties("S4")
    user = fe.TileProperties(thickness=s4.thickness, youngs_modulus=s4.youngs_modulus,
                             poisson_ratio=s4.poisson_ratio, density=s4.density, latch=s4.latch)
    a = fe.tile_structure(3, properties="S4", elements_per_edge=4).modes(4).omega
    b = fe.tile_structure(3, properties=user, elements_per_edge=4).modes(4).omega
    np.testing.assert_array_equal(a, b)
    assert fe.tile_properties("S5").synthetic and "synthetic" in fe.tile_properties("S5").description


def test_points_joints_at_every_node_equal_continuous():
    # Merging every edge node ('points' at all fractions 0, 1/k, ..., 1) is the continuous mesh.
    k = 4
    a = fe.tile_structure(4, elements_per_edge=k).modes(5).omega
    b = fe.tile_structure(4, elements_per_edge=k, joints="points",
                          join_fractions=np.arange(k + 1) / k).modes(5).omega
    # only the node numbering differs, so only round-off: the generalised problem spans
    # ~1e6 in mass (rotary inertia rho h^3/12 vs rho h a^2) and ~1e6 in eigenvalues, so a
    # relative change up to ~1e-16 * 1e6 * 1e3 = 1e-7 is round-off, not a different model
    np.testing.assert_allclose(a, b, rtol=1e-7)
    # two clamping points per edge: a softer structure (fewer constraints, same mass)
    c = fe.tile_structure(4, elements_per_edge=k, joints="points").modes(5).omega
    assert np.all(c <= a * (1 + 1e-7))


@pytest.mark.parametrize("n", [1, 4])
def test_mesh_convergence_at_8_elements_per_edge(n):
    # Spec study: the first frequencies at k = 8 are within 1.6 % of k = 32 (worst: F1 tilt,
    # stress concentration at the patch corner).
    f8 = fe.tile_structure(n, elements_per_edge=8).modes(4).frequencies_hz
    f32 = fe.tile_structure(n, elements_per_edge=32).modes(4).frequencies_hz
    np.testing.assert_allclose(f8, f32, rtol=0.016)


@pytest.mark.slow
@pytest.mark.parametrize("n", [26, 28])
def test_mesh_convergence_large_structures(n):
    f8 = fe.tile_structure(n, elements_per_edge=8).modes(4).frequencies_hz
    f32 = fe.tile_structure(n, elements_per_edge=32).modes(4).frequencies_hz
    np.testing.assert_allclose(f8, f32, rtol=0.016)


@pytest.mark.parametrize("n, j", [(1, 1), (2, 2), (4, 4), (4, 1), (8, 8)])
def test_modes_to_keep_with_the_robot_on_small_structures(n, j):
    # Why 10 modes by default and not the paper's 3: the 130 kg robot on a light structure.
    # Reference: the FE with the robot inside (through the same RBE3 foot).  The TITOP coupling
    # with m modes is a Ritz projection on nested subspaces, so its frequencies are upper bounds
    # that cannot increase with m (Poincare/Cauchy interlacing): errors are monotone in m.
    # Spec study values (RBE3 feet): 10 modes <= 5.3 %, 3 modes 20-70 % for n <= 4.
    from scipy.linalg import eigh as dense_eigh
    s = fe.tile_structure(n)
    GT = port_operator(s, s.ports[f"C{j}"]) @ s.T
    loaded = s.M_red + GT.T @ sp.csr_matrix(ROBOT) @ GT
    lam = dense_eigh(s.K_red.toarray(), loaded.toarray(), eigvals_only=True, subset_by_index=(0, 2)) \
        if s.n_dofs <= 2000 else np.sort(spla.eigsh(s.K_red, k=3, M=loaded, sigma=-1.0, which="LM")[0])
    ref = np.sqrt(lam) / (2 * np.pi)
    errors = []
    for m in (3, 6, 10, 20):
        pd = s.port_data([j], n_modes=m)
        f = _loaded_hz(pd.frequencies, pd.children[f"C{j}"][1], ROBOT)[:3]
        assert np.all(f >= ref * (1 - 1e-9))
        errors.append(np.max(f / ref - 1))
    assert np.all(np.diff(errors) <= 1e-9)
    assert errors[2] <= 0.055
    if n <= 4:
        assert errors[0] >= 0.15
