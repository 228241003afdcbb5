"""NASTRAN F06 reader.

* F06 text written by the suite (exact layout) from a beam whose modes are known, read back
  and compared with the TITOP data computed directly from the same modes (MSC/NX layouts,
  normalisations, units, tables broken over pages, subcases, superelements, SPC forces);
* 12 real MSC / NX / Simcenter F06 files (tests/io/data/nastran_real): printed identities,
  values read by hand, and pyNastran's answers (pynastran_answers.json, re-checked live by
  the `nastran` environment of .ci/run);
* refusals: unreadable rows, unclamped runs, modes without eigenvectors, ambiguous subcases.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path

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


def _write(beam, path, norm, layout, units=("m", "kg"), page_lines=40):
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
              rigid_mass=beam.D_P * s_m * np.outer(lever, lever), page_lines=page_lines)


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
    sign = np.sign(np.sum(table.L_P * beam.L_P, axis=1)
                   + np.sum(table.ports["tip"]["Phi"].T * beam.shapes[:, -1], axis=1))
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


# -- real F06 files (tests/io/data/nastran_real: MSC, NX and Simcenter runs from pyNastran's
#    repository, BSD; provenance in the README there) --------------------------------------

REAL = Path(__file__).parent / "data" / "nastran_real"
_spec = importlib.util.spec_from_file_location("real_files", Path(__file__).parent / "nastran_env" / "real_files.py")
real_files = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(real_files)
ANSWERS = json.loads(real_files.ANSWERS.read_text())["files"]


@pytest.mark.parametrize("name", real_files.F06_FILES)
def test_real_f06_printed_identities(name):
    # every real file reads; what is read obeys the identities printed in every row of the
    # eigenvalue table (7 digits each: 2e-6, see _PRINT_RTOL), modes are numbered 1..n (no
    # phantom mode made of a data-block trailer), eigenvectors belong to those modes
    res = read_f06(REAL / name)
    n = res.modes.size
    assert res.modes.tolist() == list(range(1, n + 1))
    assert np.allclose(res.radians, np.sqrt(np.abs(res.eigenvalues)), rtol=2e-6, atol=0)
    assert np.allclose(res.cycles, res.radians / (2 * np.pi), rtol=2e-6, atol=0)
    assert np.allclose(res.generalized_stiffness, res.eigenvalues * res.generalized_mass, rtol=2e-6, atol=0)
    for arr in res.eigenvectors.values():
        assert arr.shape == (n, 6)
        # printed eigenvectors exist exactly for the modes with a generalised mass
        assert np.all(np.isnan(arr[:, 0]) | (res.generalized_mass > 0))


# Read by hand from the files (line numbers of the rows), independently of any reader.
HAND_READ = {
    # name: (modes, first eigenvalue, last eigenvalue, residual vectors, eigenvector grids, SPC grids)
    "goland_final_test.f06": (1, 1.549873e2, 1.549873e2, (), 0, ()),     # l. 674; OUTPX2 trailer 101 at l. 679
    "beam_modes.f06": (10, 8.232777e6, 4.874295e9, (), 12, ()),           # l. 429-438; OUTPBN2 trailers at l. 444
    "0012_flutter.f06": (2, 2.808246e2, 4.459431e3, (), 0, ()),           # l. 180-181 (before augmentation only)
    "pt145.f06": (9, 6.304383e4, 3.823938e8, (7, 8, 9), 0, ()),           # l. 215-223 (after augmentation)
    "ha145e.f06": (37, 4.656517e4, 2.018797e10, (), 40, ()),              # l. 173-209, vectors of modes 1-4
    "bah.f06": (12, -1.939822e-14, 9.492844e4, (), 11, (11,)),            # l. 1644-1655, SPC forces l. 1946...
}


@pytest.mark.parametrize("name", sorted(HAND_READ))
def test_real_f06_hand_read_values(name):
    n, first, last, residual, n_grids, spc = HAND_READ[name]
    res = read_f06(REAL / name)
    assert res.modes.size == n and res.residual_vectors == residual
    assert res.eigenvalues[0] == pytest.approx(first, rel=1e-12)
    assert res.eigenvalues[-1] == pytest.approx(last, rel=1e-12)
    assert len(res.eigenvectors) == n_grids and tuple(sorted(res.spc_forces)) == spc


@pytest.mark.parametrize("name", [k for k in real_files.F06_FILES if set(ANSWERS[k]) - {"op2"}])
def test_real_f06_equals_pynastran(name):
    # pynastran_answers.json: what pyNastran 1.4.1 reads from these files (its OP2 reader on
    # the runs' OP2 files, its F06 eigenvalue parser where it accepts the file), generated once
    # by tests/io/nastran_env/make_pynastran_files.py --write-json in the numpy<2 `nastran`
    # environment, which in CI re-checks it against pyNastran live. Tolerances in real_files.
    res = read_f06(REAL / name)
    assert real_files.compare(res, ANSWERS[name]) == []
    # the comparison can fail: a mode dropped, or one eigenvalue off in its 6th digit
    drop = dataclasses.replace(res, modes=res.modes[:-1], eigenvalues=res.eigenvalues[:-1],
                               generalized_mass=res.generalized_mass[:-1])
    off = dataclasses.replace(res, eigenvalues=res.eigenvalues * np.r_[np.ones(res.modes.size - 1), 1 + 1e-5])
    if res.modes.size > 1:
        assert real_files.compare(drop, ANSWERS[name]) != []
    assert real_files.compare(off, ANSWERS[name]) != []


def test_real_f06_modes_against_op2_eigenvectors():
    # the OP2 eigenvectors (pyNastran) of beam_modes (repeated eigenvalues) and of
    # mode_solid_shell_bar, and the latter's SPC forces, are in the JSON: a sign flip of one
    # printed grid value is detected
    res = read_f06(REAL / "mode_solid_shell_bar.f06")
    bad = dict(res.eigenvectors)
    bad[1] = bad[1] * np.r_[-1.0, np.ones(5)]
    assert real_files.compare(dataclasses.replace(res, eigenvectors=bad), ANSWERS["mode_solid_shell_bar.f06"])


def _edit(tmp_path, name, lineno, text):
    lines = (REAL / name).read_text().splitlines()
    lines[lineno - 1] = text
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("row", [
    "        3         3        2.824056E+08        1.680493E+04        2.674588E+03",                # truncated
    "        3         3        2.824056E+08        1.680493E+04        2.674588E+03        1.383258E-02        NaN",
    "        3         3        2.82405GE+08        1.680493E+04        2.674588E+03        1.383258E-02        3.906398E+06",  # noqa: E501 (fixed-width NASTRAN columns)
    "        3         3        2.824956E+08        1.680493E+04        2.674588E+03        1.383258E-02        3.906398E+06",  # noqa: E501 (fixed-width NASTRAN columns)
], ids=["truncated", "nan", "letter", "digit"])
def test_unreadable_eigenvalue_row_is_refused(tmp_path, row):
    # mode 3 of beam_modes.f06 (line 431) made unreadable: refused in one line naming the file,
    # the line and the table, never dropped ('digit': a wrong digit that still reads as a number
    # breaks radians = sqrt(eigenvalue))
    path = _edit(tmp_path, "beam_modes.f06", 431, row)
    with pytest.raises(ModelFileError) as info:
        read_f06(path)
    msg = str(info.value)
    assert "\n" not in msg and str(path) in msg and "line 431" in msg and "R E A L   E I G E N V A L U E S" in msg


def test_unreadable_eigenvector_row_is_refused(tmp_path):
    lines = (REAL / "beam_modes.f06").read_text().splitlines()
    k = next(i for i, s in enumerate(lines) if "R E A L   E I G E N V E C T O R" in s) + 4
    path = _edit(tmp_path, "beam_modes.f06", k + 1, lines[k][:60])
    with pytest.raises(ModelFileError, match=rf"line {k + 1}: at R E A L   E I G E N V E C T O R"):
        read_f06(path)


def test_real_run_without_participation_tables_is_refused():
    # beam_modes: clamped at grid 1 (SPC 123456), but neither MEFFMASS nor SPCFORCES printed
    with pytest.raises(ModelFileError) as info:
        modal_table_from_nastran(REAL / "beam_modes.f06", 1)
    assert "MEFFMASS(PRINT,PARTFAC)=YES" in str(info.value) and "SPCFORCES" in str(info.value)


def test_real_run_clamped_at_several_grids_is_refused():
    # mode_solid_shell_bar: SPC forces at grids 22..25: not clamped at one interface grid
    with pytest.raises(ModelFileError, match="grid 23 carries a reaction"):
        modal_table_from_nastran(REAL / "mode_solid_shell_bar.f06", 22)


def test_real_run_with_rigid_modes_is_refused():
    # bah.f06: a free-flying wing (SUPORT): modes 1 and 2 are rigid-body modes at 0 Hz
    with pytest.raises(ModelFileError, match=r"modes \[1, 2\] are rigid-body modes"):
        modal_table_from_nastran(REAL / "bah.f06", 11, modes=[3, 4])


def test_real_modes_without_eigenvectors_are_refused():
    # ha145e: eigenvectors of modes 1-4 only (generalised mass 0.0 printed for 5..37)
    with pytest.raises(ModelFileError, match=r"modes \[5, 6,"):
        modal_table_from_nastran(REAL / "ha145e.f06", 1)


# -- several subcases -----------------------------------------------------------------------

def test_subcases_read_one_whole_or_refuse(beam, tmp_path):
    # two subcases: subcase 1 the beam MASS-normalised, subcase 2 a stiffer beam (omega x 1.5,
    # same shapes, hence same L) MAX-normalised in the NX layout. Each subcase's frequencies,
    # participation factors and shapes come from that subcase only.
    one, two = tmp_path / "one.f06", tmp_path / "two.f06"
    _write(beam, one, "MASS", "MSC")
    stiff = dataclasses.replace(beam, omega=1.5 * beam.omega)
    _write(stiff, two, "MAX", "MSC")
    path = tmp_path / "both.f06"
    path.write_text(one.read_text().replace("END OF JOB", "END OF SUBCASE")
                    + two.read_text().replace("SUBCASE 1", "SUBCASE 2"))
    with pytest.raises(ModelFileError, match="subcases 1, 2"):
        read_f06(path)
    with pytest.raises(ModelFileError, match="among 1, 2; got 3"):
        read_f06(path, subcase=3)
    tip = {"tip": {"grid": N_EL + 1, "r": [LENGTH, 0, 0]}}
    for sc, b in ((1, beam), (2, stiff)):
        res = read_f06(path, subcase=sc)
        assert res.subcase == sc and np.allclose(res.radians, b.omega, rtol=1e-6)
        table = modal_table_from_nastran(path, 1, ports=tip, subcase=sc)
        sign = np.sign(np.sum(table.L_P * b.L_P, axis=1))
        assert np.abs(table.L_P * sign[:, None] - b.L_P).max() <= RTOL * np.abs(b.L_P).max()
        assert np.abs(table.ports["tip"]["Phi"] * sign - b.shapes[:, -1].T).max() <= RTOL * np.abs(b.shapes).max()


# -- participation factors from SPC forces --------------------------------------------------

def _spcf_pages(eigenvalues, grid, forces):
    """SPC-force tables of each mode as MSC prints them: a page per mode, the EIGENVALUE line
    above the title, one row per constrained grid."""
    from .io_f06_writer import e

    out = []
    for k, (lam, q) in enumerate(zip(eigenvalues, forces)):
        out += [f"1    SATDYN TEST{' ' * 60}MSC Nastran 2023.1   PAGE {900 + k:5d}", " ", f"0{' ' * 100}SUBCASE 1",
                f"      EIGENVALUE = {e(lam)}",
                "                               F O R C E S   O F   S I N G L E - P O I N T   C O N S T R A I N T",
                " ", "      POINT ID.   TYPE" + "".join(f"{c:>15}" for c in ("T1", "T2", "T3", "R1", "R2", "R3")),
                f"{grid:14d}      G     " + " ".join(f"{v:13.6E} " for v in q)]
    return out


def _with_spcf(path, eigenvalues, grid, forces, meffmass=False):
    lines = path.read_text().splitlines()
    end = next(i for i, s in enumerate(lines) if "END OF JOB" in s) - 3            # its page header
    if not meffmass:
        start = next(i for i, s in enumerate(lines) if "MODAL PARTICIPATION FACTORS" in s) - 3
        lines = lines[:start] + lines[end:]
        end = start
    lines[end:end] = _spcf_pages(eigenvalues, grid, forces)
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("norm", ["MASS", "MAX", ("POINT", N_EL, 2)], ids=["MASS", "MAX", "POINT"])
def test_participation_from_spc_forces_beam(beam, tmp_path, norm):
    # the interface reaction of each mode computed from the FE matrices, the residual of the
    # equations of motion at the clamped grid, q_j = (K_Pq - lambda_j M_Pq) phi_j (the
    # constraint force NASTRAN prints), scaled like the printed eigenvector: read back through
    # L_j = -q_j / (lambda_j sqrt(m_j)), equal to the beam's own L_P = phi^T M D_r
    path = tmp_path / "beam.f06"
    _write(beam, path, norm, "MSC")
    kind, point = (norm, None) if isinstance(norm, str) else ("POINT", norm[1:])
    printed, gen = normalise(beam.shapes, beam.M, kind, point)
    flat = printed.reshape(N_MODES, -1)
    lam = beam.omega ** 2
    q = (flat @ beam.K[:, :6]) - lam[:, None] * (flat @ beam.M[:, :6])      # rows of grid 1 (P)
    _with_spcf(path, lam, 1, q)
    tip = {"tip": {"grid": N_EL + 1, "r": [LENGTH, 0, 0]}}
    table = modal_table_from_nastran(path, 1, ports=tip)
    # L and Phi carry the printed eigenvector's sign together
    sign = np.sign(np.sum(table.ports["tip"]["Phi"].T * beam.shapes[:, -1], axis=1))
    assert np.abs(table.L_P * sign[:, None] - beam.L_P).max() <= RTOL * np.abs(beam.L_P).max()
    # the inertial term matters (consistent mass couples P to the free DOFs): the stiffness
    # part alone would be wrong by far more than the tolerance
    q_k = flat @ beam.K[:, :6]
    L_k = -q_k / (lam[:, None] * np.sqrt(gen)[:, None])
    assert np.abs(np.abs(L_k) - np.abs(beam.L_P)).max() > 100 * RTOL * np.abs(beam.L_P).max()


def test_spc_forces_checked_against_meffmass(beam, tmp_path):
    # both tables printed: they must agree; reactions of the opposite sign (the other sign
    # convention) contradict MEFFMASS and are refused
    lam = beam.omega ** 2
    printed, gen = normalise(beam.shapes, beam.M, "MAX")
    flat = printed.reshape(N_MODES, -1)
    q = (flat @ beam.K[:, :6]) - lam[:, None] * (flat @ beam.M[:, :6])
    good, bad = tmp_path / "good.f06", tmp_path / "bad.f06"
    for path, forces in ((good, q), (bad, -q)):
        _write(beam, path, "MAX", "MSC")
        _with_spcf(path, lam, 1, forces, meffmass=True)
    ref = modal_table_from_nastran(good, 1)
    assert np.abs(np.abs(ref.L_P) - np.abs(beam.L_P)).max() <= RTOL * np.abs(beam.L_P).max()
    with pytest.raises(ModelFileError, match="SPC forces q_j at grid 1"):
        modal_table_from_nastran(bad, 1)


def test_participation_from_spc_forces_fe_plate(tmp_path):
    # a satdyn.fe plate clamped along its root edge (rigid patch slaved to P): the clamp
    # reaction of each mode from the assembled matrices, q = R_P^T (K - lambda M) T phi,
    # printed as an F06 SPC-force table at grid 1 (POINT-normalised eigenvectors) gives back
    # satdyn.fe's L_P (which it computes as phi^T T^T M R_P)
    from satdyn import fe

    structure = fe.plate(5.0, 2.0, 0.02, 5e9, 0.3, 225.0, element_size=0.5)
    data = fe.port_data(structure, ["tip"], n_modes=6, damping=0.005)
    modes = structure.modes(6)
    full = structure.T @ modes.shapes                                     # (n_dofs, 6)
    lam = modes.omega ** 2
    q = (structure.R_P.T @ (structure.K @ full) - lam * (structure.R_P.T @ (structure.M @ full))).T
    r_tip, Phi = data.children["tip"]
    s = 1.0 / Phi[np.argmax(np.abs(Phi), axis=0), np.arange(6)]          # POINT: tip component = 1
    shapes = np.zeros((6, 2, 6))
    shapes[:, 1, :] = (Phi * s).T
    path = tmp_path / "plate.f06"
    write_f06(path, data.frequencies, shapes, s ** 2, np.array([1, 2]), data.L_P / s[:, None], data.L_P ** 2,
              layout="NX", rigid_mass=data.D_P)
    _with_spcf(path, lam, 1, q * s[:, None])
    table = modal_table_from_nastran(path, 1, ports={"tip": {"grid": 2, "r": r_tip}})
    sign = np.sign(s)
    assert np.abs(table.L_P * sign[:, None] - data.L_P).max() <= RTOL * np.abs(data.L_P).max()


@pytest.mark.parametrize("layout", ["MSC", "NX"])
def test_tables_continued_over_pages(beam, tmp_path, layout):
    # pages of 5 lines: every table breaks across pages; the eigenvalue and eigenvector tables
    # repeat their title, the MEFFMASS tables only their part label and column headings
    # (the rows go on under them): the data equal those of unbroken tables, exactly
    whole, broken = tmp_path / "whole.f06", tmp_path / "broken.f06"
    _write(beam, whole, "MAX", layout, page_lines=400)
    _write(beam, broken, "MAX", layout, page_lines=5)
    a, b = read_f06(whole), read_f06(broken)
    assert broken.read_text().count("PAGE") > 3 * whole.read_text().count("PAGE")
    for name in ("modes", "eigenvalues", "generalized_mass", "participation_factors", "effective_masses", "rigid_mass"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.eigenvectors.keys() == b.eigenvectors.keys()
    assert all(np.array_equal(a.eigenvectors[g], b.eigenvectors[g]) for g in a.eigenvectors)


def test_superelement_subcases(beam, tmp_path):
    # the same subcase number in two superelements: subcase=1 is ambiguous and refused;
    # (superelement, subcase) picks one, whole
    one, two = tmp_path / "one.f06", tmp_path / "two.f06"
    _write(beam, one, "MASS", "MSC")
    stiff = dataclasses.replace(beam, omega=2.0 * beam.omega)
    _write(stiff, two, "MASS", "MSC")
    path = tmp_path / "se.f06"
    path.write_text(one.read_text().replace("      SUBCASE 1", "SUPERELEMENT 10  SUBCASE 1")
                    + two.read_text().replace("      SUBCASE 1", "SUPERELEMENT 20  SUBCASE 1"))
    with pytest.raises(ModelFileError, match=r"\(10, 1\), \(20, 1\)"):
        read_f06(path)
    with pytest.raises(ModelFileError, match="name the superelement too"):
        read_f06(path, subcase=1)
    assert np.allclose(read_f06(path, subcase=(20, 1)).radians, stiff.omega, rtol=1e-6)
    assert np.allclose(read_f06(path, subcase=(10, 1)).radians, beam.omega, rtol=1e-6)


def test_garbled_generalized_mass_is_refused(tmp_path):
    # mode 5's generalised mass (beam_modes.f06 line 433) with a wrong digit: it no longer
    # equals generalized stiffness / eigenvalue, and it would scale that mode's L and Phi
    row = "        5         5        4.989076E+08        2.233624E+04        3.554923E+03        3.698128E-03        1.830057E+06"  # noqa: E501 (fixed-width NASTRAN columns)
    path = _edit(tmp_path, "beam_modes.f06", 433, row)
    with pytest.raises(ModelFileError, match=r"line 433: at R E A L   E I G E N V A L U E S.*generalized stiffness"):
        read_f06(path)


def test_unlabelled_eigenvalues_with_several_subcases_are_refused(beam, tmp_path):
    # eigenvalue pages without a SUBCASE label, eigenvectors in subcases 1 and 2: which
    # eigenvalues go with which vectors cannot be told, so the file is refused
    one, two = tmp_path / "one.f06", tmp_path / "two.f06"
    _write(beam, one, "MASS", "MSC")
    _write(dataclasses.replace(beam, omega=1.5 * beam.omega), two, "MAX", "MSC")
    lines = (one.read_text() + two.read_text().replace("SUBCASE 1", "SUBCASE 2")).splitlines()
    for i, s in enumerate(lines):
        if "R E A L   E I G E N V A L U E S" in s:
            lines[i - 1] = "0"                            # the label line of that page
    path = tmp_path / "unlabelled.f06"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ModelFileError, match="in subcases 1, 2"):
        read_f06(path)
