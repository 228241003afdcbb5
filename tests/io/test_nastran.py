"""NASTRAN F06 reader: F06 text written by the suite (exact layout) from a beam whose modes are
known, read back and compared with the TITOP data computed directly from the same modes."""

from __future__ import annotations

import numpy as np
import pytest

from satdyn.io import ModelFileError, modal_table_from_nastran, read_f06, read_op2
from satdyn.titop import flexible_body

from .io_beam_fe import beam_modes
from .io_f06_writer import normalise, write_f06

N_EL, LENGTH, N_MODES = 20, 2.0, 6
# F06 prints 7 significant digits (E13.6): every number carries a relative rounding of at most
# 5e-7, and L = Gamma sqrt(m_j), Phi = phi / sqrt(m_j) combine two or three such numbers, so
# the read-back data agree to ~1.5e-6 of each entry; 5e-6 of the largest entry of a column.
RTOL = 5e-6


@pytest.fixture(scope="module")
def beam():
    return beam_modes(N_EL, LENGTH, N_MODES)


def test_beam_is_an_analytic_cantilever(beam):
    # the structure itself: first bending frequencies of a uniform cantilever,
    # (1.8751)^2 sqrt(EI / (rho A L^4)); 20 Hermite elements: < 1e-5 relative
    E, rho, b, t = 70e9, 2700.0, 0.05, 0.02
    A, Iy, Iz = b * t, b * t ** 3 / 12, t * b ** 3 / 12
    beta1 = 1.8751040687
    w_y = beta1 ** 2 * np.sqrt(E * Iy / (rho * A * LENGTH ** 4))   # bending in xz (soft)
    w_z = beta1 ** 2 * np.sqrt(E * Iz / (rho * A * LENGTH ** 4))
    assert np.isclose(beam.omega[0], w_y, rtol=1e-5)
    assert np.any(np.isclose(beam.omega, w_z, rtol=1e-5))
    # rigid motions cost no strain energy (K D_r = 0): the TITOP L_P is well defined
    assert np.abs(beam.K @ beam.D_r).max() < 1e-9 * np.abs(beam.K).max()
    # D_P is the rigid mass of the beam at P: total mass rho A L
    assert np.isclose(beam.D_P[0, 0], rho * A * LENGTH, rtol=1e-12)


def _write(beam, path, norm, layout, units=("m", "kg")):
    """The beam's results as NASTRAN prints them (norm: 'MASS', 'MAX', ('POINT', node, dof)).

    In a run with lengths in mm and masses in t (s_l = 1e3 mm per m, s_m = 1e-3 t per kg):
    translations print s_l times larger, generalised masses s_m s_l^2 larger, translational
    participation factors 1/s_l times, effective masses s_m (translation) and s_m s_l^2
    (rotation) times, and the rigid mass matrix s_m lever lever^T times.
    """
    kind, point = (norm, None) if isinstance(norm, str) else ("POINT", norm[1:])
    printed, gen = normalise(beam.shapes, beam.M, kind, point)
    flat = printed.reshape(N_MODES, -1)
    gamma = flat @ beam.M @ beam.D_r / gen[:, None]          # NASTRAN participation factors (SI)
    eff = gamma ** 2 * gen[:, None]
    s_l = {"m": 1.0, "mm": 1e3}[units[0]]
    s_m = {"kg": 1.0, "t": 1e-3}[units[1]]
    lever = np.r_[np.ones(3), np.full(3, s_l)]
    trans = np.r_[np.full(3, s_l), np.ones(3)]
    write_f06(path, beam.omega, printed * trans, gen * s_m * s_l ** 2, np.arange(1, N_EL + 2),
              gamma / trans, eff * s_m * lever ** 2, layout=layout,
              rigid_mass=beam.D_P * s_m * np.outer(lever, lever))


@pytest.mark.parametrize("layout", ["MSC", "NX"])
@pytest.mark.parametrize("norm", ["MASS", "MAX", ("POINT", N_EL, 2)], ids=["MASS", "MAX", "POINT"])
def test_f06_titop_data_equal_direct(beam, tmp_path, layout, norm):
    path = tmp_path / "beam.f06"
    _write(beam, path, norm, layout)
    res = read_f06(path)
    assert res.layout == layout and res.modes.tolist() == list(range(1, N_MODES + 1))
    tip = N_EL + 1
    table = modal_table_from_nastran(path, 1, ports={"tip": {"grid": tip, "r": [LENGTH, 0, 0]}}, damping=0.01)
    # frequencies: printed radians column
    assert np.allclose(table.frequencies, beam.omega, rtol=1e-6)
    # L_P and tip mode shapes: the same up to the sign of each mode; fix it on the largest entry
    sign = np.sign(np.sum(table.L_P * beam.L_P, axis=1) + np.sum(table.ports["tip"]["Phi"].T * beam.shapes[:, -1], axis=1))
    L = table.L_P * sign[:, None]
    assert np.abs(L - beam.L_P).max() <= RTOL * np.abs(beam.L_P).max()
    Phi = table.ports["tip"]["Phi"] * sign[None, :]
    assert np.abs(Phi - beam.shapes[:, -1].T).max() <= RTOL * np.abs(beam.shapes[:, -1]).max()
    # D_P from the grid point weight generator (reference point = interface grid 1)
    assert np.allclose(table.D_P, beam.D_P, rtol=RTOL, atol=RTOL * np.abs(beam.D_P).max())


def test_f06_flexible_body_equals_direct(beam, tmp_path):
    # the TITOP model built from the F06 equals the one built from the directly computed data
    path = tmp_path / "beam.f06"
    _write(beam, path, "MAX", "MSC")
    table = modal_table_from_nastran(path, 1, ports={"tip": {"grid": N_EL + 1, "r": [LENGTH, 0, 0]}},
                                     damping=0.01)
    direct = flexible_body("beam", beam.D_P, beam.omega, 0.01, beam.L_P,
                           {"tip": (np.array([LENGTH, 0, 0]), beam.shapes[:, -1].T)})
    read = flexible_body("beam", table.D_P, table.frequencies, table.damping, table.L_P, table.children())
    w = np.geomspace(0.3, 3, 7) * beam.omega[0]
    a, b = read.lfr.freqresp(w), direct.lfr.freqresp(w)
    # the residual mass D_P - L^T L loses digits (cancellation, ~1e2 here), hence 1e-4
    assert np.abs(a - b).max() <= 1e-4 * np.abs(b).max()


def test_f06_in_mm_t_s_units(beam, tmp_path):
    # NASTRAN runs in mm-t-s are converted to SI: the same data as an SI run
    si, mm = tmp_path / "si.f06", tmp_path / "mm.f06"
    _write(beam, si, "MAX", "MSC")
    _write(beam, mm, "MAX", "MSC", units=("mm", "t"))
    a = modal_table_from_nastran(si, 1, ports={"tip": {"grid": N_EL + 1, "r": [LENGTH, 0, 0]}})
    b = modal_table_from_nastran(mm, 1, ports={"tip": {"grid": N_EL + 1, "r": [1e3 * LENGTH, 0, 0]}},
                                 length_unit="mm", mass_unit="t")
    assert np.allclose(b.L_P, a.L_P, rtol=RTOL, atol=RTOL * np.abs(a.L_P).max())
    assert np.allclose(b.ports["tip"]["Phi"], a.ports["tip"]["Phi"], rtol=RTOL,
                       atol=RTOL * np.abs(a.ports["tip"]["Phi"]).max())
    assert np.allclose(b.ports["tip"]["r"], [LENGTH, 0, 0])
    assert np.allclose(b.D_P, a.D_P, rtol=RTOL, atol=RTOL * np.abs(a.D_P).max())


def test_effective_masses_checked(beam, tmp_path):
    # an F06 whose effective masses disagree with Gamma^2 m_j is refused, naming the table
    path = tmp_path / "beam.f06"
    _write(beam, path, "MASS", "MSC")
    text = path.read_text().splitlines()
    i = next(k for k, s in enumerate(text) if s.strip() == "MODAL EFFECTIVE MASS")
    j = next(k for k in range(i + 1, len(text)) if text[k].strip().startswith("1 "))
    text[j] = text[j].replace("E", "E", 1)[:-13] + f"{1e3:13.6E}"
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(ModelFileError, match="MODAL EFFECTIVE MASS"):
        modal_table_from_nastran(path, 1)


@pytest.mark.parametrize("kwargs, match", [
    ({"interface_grid": 0}, "interface_grid"),
    ({"interface_grid": 1, "ports": {"tip": {"grid": 999, "r": [0, 0, 0]}}}, "grid 999"),
    ({"interface_grid": 1, "ports": {"tip": 5}}, "ports"),
    ({"interface_grid": 1, "modes": [99]}, "modes"),
    ({"interface_grid": 1, "length_unit": "in"}, "length_unit"),
])
def test_nastran_bad_arguments(beam, tmp_path, kwargs, match):
    path = tmp_path / "beam.f06"
    _write(beam, path, "MASS", "MSC")
    with pytest.raises(ValueError, match=match):
        modal_table_from_nastran(path, **kwargs)


def test_f06_without_eigenvalues(tmp_path):
    path = tmp_path / "empty.f06"
    path.write_text("1    JOB   PAGE 1\n nothing here\n")
    with pytest.raises(ModelFileError, match="R E A L   E I G E N V A L U E S"):
        read_f06(path)


def test_op2_needs_pynastran_or_reads(tmp_path):
    # pyNastran requires numpy < 2, so it is not installed with satdyn's base or test extras:
    # the OP2 path must then fail with an ImportError that says what to install
    pytest.importorskip("numpy")
    try:
        import pyNastran  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"satdyn\[nastran\]"):
            read_op2(tmp_path / "x.op2")
    else:
        pytest.skip("pyNastran is installed: the OP2 path is exercised in its own environment")


def test_shipped_f06_is_the_synthetic_array_beam():
    # the tutorial's F06 (satdyn/data/models) holds the modes of tests/io/make_example_files.ARRAY_BEAM
    from satdyn.io import example_path

    from .make_example_files import ARRAY_BEAM

    b = beam_modes(**ARRAY_BEAM)
    n = ARRAY_BEAM["n_elements"]
    table = modal_table_from_nastran(example_path("telecom").parent / "synthetic_array_beam.f06", 1,
                                     ports={"tip": {"grid": n + 1, "r": [ARRAY_BEAM["length"], 0, 0]}})
    assert np.allclose(table.frequencies, b.omega, rtol=1e-6)
    sign = np.sign(np.sum(table.L_P * b.L_P, axis=1) + np.sum(table.ports["tip"]["Phi"].T * b.shapes[:, -1], axis=1))
    assert np.abs(table.L_P * sign[:, None] - b.L_P).max() <= RTOL * np.abs(b.L_P).max()


def test_reads_f06_written_by_pynastran():
    # tests/io/data/beam_pynastran.f06: an 8-element beam's MAX-normalised modes written by
    # pyNastran 1.4.1's F06 writers (an independent rendering of NASTRAN's layout; generated by
    # tests/io/nastran_env/make_pynastran_files.py in a numpy<2 environment). pyNastran keeps
    # float32: 7 significant digits.
    from pathlib import Path

    b = beam_modes(8, 2.0, 4)
    printed, gen = normalise(b.shapes, b.M, "MAX")
    res = read_f06(Path(__file__).parent / "data" / "beam_pynastran.f06")
    assert res.modes.tolist() == [1, 2, 3, 4]
    assert np.allclose(res.radians, b.omega, rtol=1e-6) and np.allclose(res.generalized_mass, gen, rtol=1e-6)
    read = np.stack([res.eigenvectors[g + 1] for g in range(9)], axis=1)          # (modes, grids, 6)
    # eigenvector signs depend on the LAPACK build that made each side: align them per mode
    sign = np.sign(np.einsum("jgk,jgk->j", read, printed))
    assert np.abs(read * sign[:, None, None] - printed).max() <= 1e-6 * np.abs(printed).max()
    # without MEFFMASS tables there are no participation factors: the message says what to print
    with pytest.raises(ModelFileError, match="MEFFMASS"):
        modal_table_from_nastran(Path(__file__).parent / "data" / "beam_pynastran.f06", 1)


def _fe_plate_data():
    from satdyn import fe

    structure = fe.plate(5.0, 2.0, 0.02, 5e9, 0.3, 225.0, element_size=0.5)
    return fe.port_data(structure, ["tip"], n_modes=6, damping=0.005)


def test_f06_of_an_fe_plate_equals_satdyn_fe(tmp_path):
    # the TITOP data of a satdyn.fe plate, printed as NASTRAN would for eigenvectors normalised
    # to 1 at the tip (POINT), read back: equal to satdyn.fe's own data to the F06's 7 digits
    data = _fe_plate_data()
    r_tip, Phi = data.children["tip"]
    n = data.frequencies.size
    s = 1.0 / Phi[np.argmax(np.abs(Phi), axis=0), np.arange(n)]        # POINT: largest tip component = 1
    shapes = np.zeros((n, 2, 6))
    shapes[:, 1, :] = (Phi * s).T                                       # grid 1 = P (clamped), grid 2 = tip
    gen = s ** 2                                                        # generalised masses of s * Phi
    gamma = data.L_P / s[:, None]
    path = tmp_path / "plate.f06"
    write_f06(path, data.frequencies, shapes, gen, np.array([1, 2]), gamma, data.L_P ** 2, layout="NX",
              rigid_mass=data.D_P)
    table = modal_table_from_nastran(path, 1, ports={"tip": {"grid": 2, "r": r_tip}}, damping=0.005)
    assert np.allclose(table.frequencies, data.frequencies, rtol=1e-6)
    # a mode read back carries the sign of the printed eigenvector (s < 0 flips it): L and Phi
    # flip together, which leaves the TITOP model unchanged
    sign = np.sign(s)
    assert np.abs(table.L_P * sign[:, None] - data.L_P).max() <= RTOL * np.abs(data.L_P).max()
    assert np.abs(table.ports["tip"]["Phi"] * sign - Phi).max() <= RTOL * np.abs(Phi).max()
    assert np.abs(table.D_P - data.D_P).max() <= RTOL * np.abs(data.D_P).max()
    # and the TITOP models agree (residual-mass cancellation costs ~2 digits: 1e-4)
    a = flexible_body("p", table.D_P, table.frequencies, table.damping, table.L_P, table.children()).lfr
    b = flexible_body("p", data.D_P, data.frequencies, data.damping, data.L_P, data.children).lfr
    w = np.geomspace(0.3, 3, 6) * data.frequencies[0]
    assert np.abs(a.freqresp(w) - b.freqresp(w)).max() <= 1e-4 * np.abs(b.freqresp(w)).max()
