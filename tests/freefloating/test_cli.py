"""`satdyn freefloating`: results.json keys of the issue and the four figures, on a small system.

The full study (P4S + S6S, ~50 s of CPU) runs in the slow test of test_examples.py; here the
CLI is driven with a one-link JSON system of the same layout so that the frame is exercised fast.
"""

import json

import pytest

from satdyn.cli import main

ONE_LINK = {
    "name": "one-link test system", "synthetic": True, "note": "synthetic test data",
    "base": {"mass": 100.0, "inertia": [[10, 0, 0], [0, 12, 0], [0, 0, 14]]},
    "mount": {"position": [0.5, 0.0, 0.0], "euler": [0.0, 0.0, 0.0]},
    "links": [{"d": 0.1, "alpha": 0.3, "a": 0.5, "b": 0.5, "mass": 5.0, "inertia_diag": [0.01, 0.4, 0.4]}],
}


def test_cli_writes_results_and_figures(tmp_path, capsys):
    system = tmp_path / "one.json"
    system.write_text(json.dumps(ONE_LINK))
    out = tmp_path / "out"
    assert main(["freefloating", "--systems", str(system), "--settle", "0", "--sample-dt", "0.5",
                 "--out", str(out)]) == 0
    data = json.loads((out / "results.json").read_text())
    run = data["systems"]["one"]
    assert set(run["max_momentum_error"]) == {"linear", "angular"}
    assert run["max_momentum_error"]["linear"] < 1e-12 and run["max_com_drift_m"] < 1e-9
    assert set(run["final_base_pose"]) >= {"position_m", "quaternion_xyzw", "euler_deg"}
    assert run["joint_peaks"][0]["joint"] == 1
    assert run["joint_peaks"][0]["max_abs_q_rad"] == pytest.approx(1.0547, abs=3e-3)  # 0.5 s samples
    assert (out / "fig5_one_motion.png").stat().st_size > 0 and (out / "fig6_one_momentum.png").stat().st_size > 0
    assert "NOT the paper" in capsys.readouterr().out


def test_cli_bad_system_is_a_clean_error(tmp_path, capsys):
    assert main(["freefloating", "--systems", "no-such-table", "--out", str(tmp_path)]) == 2
    assert "error" in capsys.readouterr().err
