"""`satdyn fe`: results.json (modes table + TITOP data) and figures; bad input exits with status 2."""

import json

import numpy as np
import pytest

from satdyn import fe
from satdyn.cli import main
from satdyn.titop import flexible_body


def test_fe_command_writes_modes_titop_data_and_figures(tmp_path, capsys):
    assert main(["fe", "--tiles", "3", "--modes", "4", "--ports", "1", "3", "--elements-per-edge", "4",
                 "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "results.json").read_text())
    assert [m["mode"] for m in data["modes"]] == [1, 2, 3, 4]
    assert data["properties"]["synthetic"] is True
    t = data["titop"]
    # the JSON round-trips into the flexible_body input: same data as the library call
    ref = fe.tile_structure(3, elements_per_edge=4).port_data([1, 3], n_modes=4)
    np.testing.assert_allclose(t["L_P"], ref.L_P, atol=1e-9 * np.abs(ref.L_P).max())
    body = flexible_body(t["name"], t["D_P"], t["frequencies_rad_s"], t["damping"], t["L_P"],
                         {k: (v["r_PC"], v["Phi_C"]) for k, v in t["children"].items()})
    assert body.lfr.nominal().nstates == 8
    for name in ("mode_shapes.png", "frequencies.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = capsys.readouterr().out
    assert "SYNTHETIC" in out and "mode" in out


@pytest.mark.parametrize("argv, word", [
    (["fe", "--tiles", "40"], "n"),
    (["fe", "--tiles", "3", "--ports", "5"], "ports"),
])
def test_fe_command_bad_input(tmp_path, capsys, argv, word):
    assert main(argv + ["--out", str(tmp_path)]) == 2
    assert word in capsys.readouterr().err


def test_fe_command_family_table_from_the_cache(tmp_path, monkeypatch, capsys):
    # --family reads the cached family (seeded here with the shipped one: no regeneration)
    from importlib import resources

    from satdyn.fe.family import family_key
    monkeypatch.setenv("SATDYN_CACHE_DIR", str(tmp_path / "cache"))
    with resources.files("satdyn.data.fe").joinpath("tile_family_S5.npz").open("rb") as fh:
        shipped = fe.TileFamily.load(fh)
    shipped.save(tmp_path / "cache" / "fe" / f"tile_family_{family_key(shipped.inputs)}.npz")
    assert main(["fe", "--tiles", "2", "--modes", "3", "--family", "--out", str(tmp_path / "out")]) == 0
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert len(data["family_frequencies_hz"]) == 28
    np.testing.assert_allclose(data["family_frequencies_hz"]["F26"], shipped.frequencies_hz(26)[:3])
    assert (tmp_path / "out" / "family.png").exists()
    assert "family:" in capsys.readouterr().out
