"""CSV/JSON modal tables (units and frame stated) and model files that take modal data from
tables and NASTRAN F06 files."""

from __future__ import annotations

import numpy as np
import pytest

from satdyn.io import ModelFileError, build_model, loads_model, read_modal_table, write_modal_table
from satdyn.io.modal import ModalTable
from satdyn.titop import flexible_body

from .io_beam_fe import beam_modes
from .io_f06_writer import normalise, write_f06


def _table():
    b = beam_modes(10, 2.0, 4)
    return b, ModalTable(b.omega, np.full(4, 0.01), b.L_P, "beam", {"tip": {"r": np.array([2.0, 0, 0]),
                                                                            "Phi": b.shapes[:, -1].T}}, b.D_P)


@pytest.mark.parametrize("suffix", [".csv", ".json"])
def test_table_round_trip(tmp_path, suffix):
    # write -> read is exact to repr() precision (CSV) / JSON float precision
    _, t = _table()
    write_modal_table(t, tmp_path / f"t{suffix}")
    r = read_modal_table(tmp_path / f"t{suffix}")
    assert r.frame == "beam"
    assert np.allclose(r.frequencies, t.frequencies, rtol=1e-15)
    assert np.allclose(r.L_P, t.L_P, rtol=1e-15, atol=0)
    assert np.allclose(r.ports["tip"]["Phi"], t.ports["tip"]["Phi"], rtol=1e-15, atol=0)
    assert np.allclose(r.effective_masses, t.L_P ** 2)


def test_csv_units_converted(tmp_path):
    # the same table stated in rad/s, mm and t: L_T scales by sqrt(1e-3) (kg -> t), L_R by
    # sqrt(1e-3) * 1e3 (m -> mm); written that way it must read back as the SI table
    _, t = _table()
    sq = np.sqrt(1e-3)
    rows = ["# frame: beam", "# frequency_unit: rad/s", "# length_unit: mm", "# mass_unit: t",
            "mode,frequency,damping,L_Tx,L_Ty,L_Tz,L_Rx,L_Ry,L_Rz"]
    for j in range(4):
        L = t.L_P[j] * np.r_[np.full(3, sq), np.full(3, sq * 1e3)]
        rows.append(",".join([str(j + 1), repr(float(t.frequencies[j])), "0.01", *(repr(float(x)) for x in L)]))
    (tmp_path / "mm.csv").write_text("\n".join(rows) + "\n")
    r = read_modal_table(tmp_path / "mm.csv")
    assert np.allclose(r.L_P, t.L_P, rtol=1e-12, atol=1e-12 * np.abs(t.L_P).max())


GOOD_HEADER = "# frame: a\n# frequency_unit: Hz\n# length_unit: m\n# mass_unit: kg\n"
COLS = "mode,frequency,damping,L_Tx,L_Ty,L_Tz,L_Rx,L_Ry,L_Rz\n"


@pytest.mark.parametrize("text, key", [
    (GOOD_HEADER.replace("# frame: a\n", "") + COLS + "1,0.5,0.01,0,0,1,0,0,0\n", "frame"),
    (GOOD_HEADER.replace("Hz", "kHz") + COLS + "1,0.5,0.01,0,0,1,0,0,0\n", "frequency_unit"),
    (GOOD_HEADER.replace("# length_unit: m\n", "") + COLS + "1,0.5,0.01,0,0,1,0,0,0\n", "length_unit"),
    (GOOD_HEADER + COLS.replace(",L_Rz", "") + "1,0.5,0.01,0,0,1,0,0\n", "columns.L_Rz"),
    (GOOD_HEADER + COLS + "1,0.5,0.01,0,0,1,0,0\n", "row 6"),
    (GOOD_HEADER + COLS + "1,abc,0.01,0,0,1,0,0,0\n", "row 6"),
    (GOOD_HEADER + COLS + "1,-0.5,0.01,0,0,1,0,0,0\n", "frequency"),
    (GOOD_HEADER + COLS + "1,0.5,-0.01,0,0,1,0,0,0\n", "damping"),
    (GOOD_HEADER + COLS.strip() + ",C_T1,C_T2,C_T3,C_R1,C_R2,C_R3\n" + "1,0.5,0.01,0,0,1,0,0,0,0,0,0,0,0,0\n",
     "ports.C"),
    (GOOD_HEADER + "# port C: 1, 2\n" + COLS + "1,0.5,0.01,0,0,1,0,0,0\n", "port C"),
])
def test_bad_csv_tables(tmp_path, text, key):
    path = tmp_path / "modes.csv"
    path.write_text(text)
    with pytest.raises(ModelFileError) as info:
        read_modal_table(path)
    assert str(path) in str(info.value) and info.value.key_path.startswith(key), str(info.value)


def test_bad_json_table(tmp_path):
    path = tmp_path / "modes.json"
    path.write_text('{"frame": "a", "frequency_unit": "Hz", "length_unit": "m", "mass_unit": "kg", '
                    '"modes": [{"frequency": 1.0, "damping": 0.01, "L_P": [1, 2, 3]}]}')
    with pytest.raises(ModelFileError, match=r"modes\[0\]\.L_P"):
        read_modal_table(path)


MODEL = """\
satdyn_model: 1
name: sc
bodies:
  - name: hub
    type: rigid
    mass: 50.0
    inertia: [[5, 0, 0], [0, 6, 0], [0, 0, 7]]
    ports: {P1: [0.0, 0.5, 0.0]}
  - name: beam
    type: flexible
    frame: hub
    {source}
connections:
  - [hub.P1, beam.P]
external: [hub.G]
"""


def _hub_beam(beam, damping, frequencies=None):
    from satdyn.titop import connect, rigid_body

    blocks = [rigid_body("hub", 50.0, np.diag([5.0, 6, 7]), {"P1": np.array([0, 0.5, 0])}),
              flexible_body("beam", beam.D_P, beam.omega if frequencies is None else frequencies, damping,
                            beam.L_P, frame="hub")]
    return connect(blocks, [("hub.P1", "beam.P")], external=["hub.G"]).lfr


def test_model_with_modal_file(tmp_path):
    # oracle: the same two bodies assembled with satdyn.titop from the in-memory data
    b, t = _table()
    write_modal_table(ModalTable(t.frequencies, t.damping, t.L_P, "hub"), tmp_path / "beam.csv")
    src = "modal_file: beam.csv\n    D_P: " + str(b.D_P.tolist())
    text = MODEL.replace("{source}", src)
    built = build_model(loads_model(text, file=str(tmp_path / "m.yaml"), base_dir=tmp_path))
    w = np.geomspace(1, 300, 6)
    ref = _hub_beam(b, 0.01).freqresp(w)
    # CSV stores repr() floats (exact); only the Hz <-> rad/s conversion rounds: 1e-12
    assert np.abs(built.lfr.freqresp(w) - ref).max() <= 1e-12 * np.abs(ref).max()


def test_model_with_nastran_f06(tmp_path):
    # a model file whose appendage comes from an F06 (MAX-normalised, NX layout): equal to the
    # model built from the beam's own modes to the F06's 7 digits (residual-mass cancellation ~1e2)
    b = beam_modes(10, 2.0, 4)
    printed, gen = normalise(b.shapes, b.M, "MAX")
    gamma = printed.reshape(4, -1) @ b.M @ b.D_r / gen[:, None]
    write_f06(tmp_path / "beam.f06", b.omega, printed, gen, np.arange(1, 12), gamma, gamma ** 2 * gen[:, None],
              layout="NX", rigid_mass=b.D_P)
    src = "nastran: {file: beam.f06, interface_grid: 1, damping: 0.02}"
    built = build_model(loads_model(MODEL.replace("{source}", src), file="m.yaml", base_dir=tmp_path))
    w = np.geomspace(1, 300, 6)
    ref = _hub_beam(b, 0.02).freqresp(w)
    assert np.abs(built.lfr.freqresp(w) - ref).max() <= 1e-4 * np.abs(ref).max()
    assert np.allclose(built.modal["beam"].D_P, b.D_P, rtol=5e-6, atol=5e-6 * np.abs(b.D_P).max())


def test_model_with_missing_f06(tmp_path):
    src = "nastran: {file: none.f06, interface_grid: 1}"
    with pytest.raises(ModelFileError, match="none.f06"):
        build_model(loads_model(MODEL.replace("{source}", src), file="m.yaml", base_dir=tmp_path))


def test_model_with_fe_plate():
    # a flexible body from satdyn.fe (fe_plate) equals flexible_body(**fe.port_data(...)) assembled by hand
    from satdyn import fe
    from satdyn.titop import connect, rigid_body

    src = ("fe_plate: {length: 5.0, width: 2.0, thickness: 0.02, youngs_modulus: 5.0e9, poisson_ratio: 0.3,\n"
           "               density: 225.0, element_size: 0.5, n_modes: 4, damping: 0.01, ports: [tip]}")
    built = build_model(loads_model(MODEL.replace("{source}", src) + "free: [beam.tip]\n"))
    data = fe.port_data(fe.plate(5.0, 2.0, 0.02, 5e9, 0.3, 225.0, element_size=0.5, name="beam"), ["tip"],
                        n_modes=4, damping=0.01, frame="hub")
    ref = connect([rigid_body("hub", 50.0, np.diag([5.0, 6, 7]), {"P1": np.array([0, 0.5, 0])}),
                   flexible_body(**data)], [("hub.P1", "beam.P")], external=["hub.G"], free=["beam.tip"]).lfr
    w = np.geomspace(1, 100, 6)
    # the same numbers through the same blocks: rounding only
    assert np.abs(built.lfr.freqresp(w) - ref.freqresp(w)).max() <= 1e-12 * np.abs(ref.freqresp(w)).max()


# -- a column or key stated twice is an error naming both places ---------------------------

ROW = "1,0.5,0.01,0,0,1,0,0,0"


@pytest.mark.parametrize("text, key, places", [
    # two frequency columns (one meant in Hz, one in another unit: 50 read for 0.5)
    (GOOD_HEADER + COLS.replace("frequency,", "frequency,frequency,") + "1,0.5,50,0.01,0,0,1,0,0,0\n",
     "columns.frequency", "columns 2 and 3"),
    (GOOD_HEADER + COLS.strip() + ",L_Tz\n" + ROW + ",7\n", "columns.L_Tz", "columns 6 and 10"),
    (GOOD_HEADER + "# frequency_unit: rad/s\n" + COLS + ROW + "\n", "frequency_unit", "lines 2 and 5"),
    (GOOD_HEADER + "# port C: 1, 0, 0\n# port C: 2, 0, 0\n" + COLS + ROW + "\n", "port C", "lines 5 and 6"),
    (GOOD_HEADER + COLS + ROW + "\n" + ROW.replace("0.5", "0.7") + "\n", "row 7", "lines 6 and 7"),
])
def test_csv_repeated_column_or_key(tmp_path, text, key, places):
    path = tmp_path / "modes.csv"
    path.write_text(text)
    with pytest.raises(ModelFileError) as info:
        read_modal_table(path)
    assert info.value.key_path == key and places in str(info.value), str(info.value)


def test_json_repeated_key(tmp_path):
    # json.loads keeps the last of two equal keys: the reader refuses instead, naming both lines
    path = tmp_path / "modes.json"
    path.write_text('{"frame": "a", "frequency_unit": "Hz", "length_unit": "m", "mass_unit": "kg",\n'
                    ' "modes": [{"frequency": 0.5,\n'
                    '            "frequency": 50.0, "damping": 0.01, "L_P": [0, 0, 1, 0, 0, 0]}]}\n')
    with pytest.raises(ModelFileError) as info:
        read_modal_table(path)
    assert info.value.key_path == "frequency" and "lines 2, 3" in str(info.value), str(info.value)
