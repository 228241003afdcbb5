"""The `satdyn` command frame and the rigid demo study (`satdyn demo --rigid`).

The demo's two routes are compared with each other inside the study; here its numbers
are also checked against Pinocchio's inertia algebra (independent oracle, 1e-10 relative
on ~100-500 kg m^2 values) and against simple physics (mass conservation, symmetry).
"""

import json

import numpy as np
import pinocchio as pin
import pytest

from satdyn import spatial as sp
from satdyn.cli import main
from satdyn.studies.demo import load_rigid_spacecraft, rigid_spacecraft_inertia


def test_rigid_demo_writes_results_and_figures(tmp_path, capsys):
    assert main(["demo", "--rigid", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "results.json").read_text())
    for key in ("panel_angles_deg", "total_mass_kg", "com_m", "inertia_kgm2", "principal_moments_kgm2",
                "route_discrepancy", "synthetic"):
        assert key in data
    assert data["synthetic"] is True
    assert data["route_discrepancy"] < 1e-12
    for name in ("inertia_vs_angle.png", "com_vs_angle.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "total mass 436.000 kg" in capsys.readouterr().out


def test_demo_default_out_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--rigid", "--angles", "0", "90"]) == 0
    assert (tmp_path / "satdyn-out" / "demo" / "results.json").exists()


def test_demo_matches_pinocchio_inertia_algebra():
    sc = load_rigid_spacecraft()
    angles = np.deg2rad([0.0, 37.0, 90.0, 150.0])
    result = rigid_spacecraft_inertia(sc, angles)
    for k, angle in enumerate(angles):
        total = pin.Inertia(sc.hub.mass, np.zeros(3), sc.hub.inertia)
        for panel in sc.panels:
            P = sp.rodrigues(panel.axis, angle) @ panel.dcm_at_zero
            com = panel.hinge + P @ panel.hinge_to_com
            total += pin.SE3(P, com).act(pin.Inertia(panel.mass, np.zeros(3), panel.inertia))
        assert result.total_mass == pytest.approx(total.mass, rel=1e-14)
        assert np.allclose(result.com[k], total.lever, atol=1e-13)
        assert np.allclose(result.inertia[k], total.inertia, rtol=1e-10, atol=1e-10)
    # Physics: panels symmetric about the hub's x-z plane keep the CoM in that plane.
    assert np.allclose(result.com[:, 1], 0.0, atol=1e-15)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["demo", "--rigid", "--scenario", "/no/such/file.json"], "cannot read"),
        (["demo", "--rigid", "--angles", "nan"], "--angles"),
    ],
)
def test_bad_input_gives_one_line_and_nonzero_status(argv, message, tmp_path, capsys):
    assert main(argv + ["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_bad_scenario_field_is_named(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"hub": {"mass": 1.0, "inertia": [[1, 0], [0, 1]]}, "panels": []}))
    assert main(["demo", "--rigid", "--scenario", str(bad), "--out", str(tmp_path)]) == 2
    assert "`inertia`" in capsys.readouterr().err


def test_unknown_option_is_a_one_line_usage_error(capsys):
    assert main(["demo", "--bogus"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--bogus" in err and len(err.splitlines()) == 1


def test_module_entry_point_runs_in_a_subprocess(tmp_path):
    # The same code path as the installed `satdyn` console script (satdyn.cli:main).
    import subprocess
    import sys
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / "src"
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg"}
    ok = subprocess.run([sys.executable, "-m", "satdyn", "demo", "--rigid", "--quiet", "--angles", "0", "45",
                         "--out", str(tmp_path)],
                        capture_output=True, text=True, env=env, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "results.json").exists()
    bad = subprocess.run([sys.executable, "-m", "satdyn", "demo", "--rigid", "--scenario", str(tmp_path / "none.json")],
                         capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "error" in bad.stderr


def test_progress_bars_on_stderr_and_quiet_silences_them(tmp_path, capsys, monkeypatch):
    # a study's progress callback drawn as bars on standard error; --quiet leaves stderr empty
    # (the study is the rigid demo with a simulated progress report, to keep the test fast)
    import satdyn.cli.demo as demo_cli
    from satdyn.cli import SimulationProgress

    original = demo_cli.run

    def reporting(args):
        bars = SimulationProgress("simulate")
        for t in (0.0, 0.5, 1.0):
            bars("B", t, 1.0)
        bars.close()
        return original(args)

    monkeypatch.setattr(demo_cli, "run", reporting)
    assert main(["demo", "--rigid", "--angles", "0", "--out", str(tmp_path / "a")]) == 0
    assert "simulate B" in capsys.readouterr().err
    assert main(["demo", "--rigid", "--angles", "0", "--quiet", "--out", str(tmp_path / "b")]) == 0
    assert capsys.readouterr().err == ""


def test_study_runs_with_one_blas_thread(tmp_path, monkeypatch):
    # the CLI wraps the study in satdyn.runtime.limit_blas_threads(): inside it, threadpoolctl
    # reports one thread for every BLAS library (the environment variables that would let the
    # user choose are cleared here)
    from threadpoolctl import threadpool_info

    import satdyn.cli.demo as demo_cli

    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "SATDYN_BLAS_THREADS"):
        monkeypatch.delenv(name, raising=False)
    seen = []
    original = demo_cli.run

    def spy(args):
        seen.extend(info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas")
        return original(args)

    monkeypatch.setattr(demo_cli, "run", spy)
    assert main(["demo", "--rigid", "--quiet", "--angles", "0", "--out", str(tmp_path)]) == 0
    assert seen and set(seen) == {1}
