"""The tug-limits comparison and the gain-sensitivity sweep (satdyn.studies.detumbling).

References: each cell of the sweep against a direct simulation with the same gains (a second
route through the study), the thrust bounds (|f_i| <= 2 F sqrt(3), |tau_i| <= 2 arm F sqrt(3) for
the 6-thruster layout), the settling-time changes against the metrics they are built from, and
the figure's readability contract; the CLI's validation of the new options (exit 2, one line).
"""

import dataclasses

import numpy as np
import pytest

from satdyn.cli import main
from satdyn.detumbling import run_metrics, simulate
from satdyn.studies.detumbling import DEFAULT_TUG, gain_sweep, tug_limits_comparison


@pytest.fixture(scope="module")
def short(scenario):
    return dataclasses.replace(scenario, simulation=dataclasses.replace(scenario.simulation, sample_dt=0.02))


def test_gain_sweep_cells_equal_direct_runs(short):
    sweep = gain_sweep(short, K_scales=(1.0, 2.0), Gamma_pi=(100.0,), duration=1.0, show_progress=False)
    assert sweep.settling_time_s.shape == sweep.peak_torque.shape == (2, 1)
    g = short.gains
    gains = dataclasses.replace(g, K_v=2 * g.K_v, K_omega1=2 * g.K_omega1, K_omega2=2 * g.K_omega2)
    direct = run_metrics(simulate(dataclasses.replace(short, gains=gains), "B", duration=1.0))
    # the same deterministic computation: bitwise equal
    assert sweep.peak_torque[1, 0] == max(direct.peak["torque1"], direct.peak["torque2"])
    assert sweep.peak_force[1, 0] == direct.peak["force"]
    assert sweep.settling_time_s[1, 0] == max(direct.settling_time_s.values())
    # K x1, Gamma 100 is the paper's gain set: the 1-s run has not settled (v settles at ~6 s)
    assert sweep.settling_time_s[0, 0] == np.inf
    # initial torque demand T = Y pi_hat - K s is affine in K; the peak grows with K here
    assert sweep.peak_torque[1, 0] > sweep.peak_torque[0, 0]


def test_gain_sweep_figure(short):
    from satdyn.plotting.detumbling import plot_gain_sweep

    sweep = gain_sweep(short, K_scales=(1.0,), Gamma_pi=(30.0, 100.0), duration=0.5, show_progress=False)
    fig = plot_gain_sweep(sweep)["gain_sweep"]
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert len(panels) == 2
    for ax in panels:
        assert "[" in ax.get_xlabel() and "[" in ax.get_ylabel()
    colorbars = [ax for ax in fig.axes if not ax.get_title()]
    assert len(colorbars) == 2 and all("[" in ax.get_ylabel() for ax in colorbars)
    assert fig.get_suptitle()


def test_tug_limits_comparison(short):
    comp = tug_limits_comparison(short, DEFAULT_TUG, duration=1.0)
    assert list(comp.runs) == ["ideal", "tug mass", "tug mass + saturation"]
    F, arm = DEFAULT_TUG.max_thrust, DEFAULT_TUG.arm
    w = comp.runs["tug mass + saturation"].wrenches
    # two thrusters per axis: |f| <= 2 F sqrt(3), |tau| <= 2 arm F sqrt(3) (about the grasp point)
    assert np.linalg.norm(w[:, :, :3], axis=2).max() <= 2 * F * np.sqrt(3) * (1 + 1e-12)
    assert np.linalg.norm(w[:, :, 3:], axis=2).max() <= 2 * arm * F * np.sqrt(3) * (1 + 1e-12)
    # the ideal run demands more torque than the thrusters can give (126 N m > 40 N m per axis)
    assert comp.metrics["ideal"].peak["torque1"] > 2 * arm * F * np.sqrt(3)
    for label, change in comp.settling_time_change_s.items():
        for key, value in change.items():
            a, b = comp.metrics[label].settling_time_s[key], comp.metrics["ideal"].settling_time_s[key]
            assert (np.isnan(value) and not np.isfinite(b)) or value == a - b
    assert "tug" in comp.to_dict() and "settling_time_change_s" in comp.to_dict()


@pytest.mark.parametrize("kwargs, name", [
    (dict(K_scales=()), "K_scales"), (dict(K_scales=(1.0, -2.0)), "K_scales"),
    (dict(Gamma_pi=(np.inf,)), "Gamma_pi"), (dict(duration=0.0), "duration"),
])
def test_gain_sweep_errors(scenario, kwargs, name):
    with pytest.raises(ValueError, match=name):
        gain_sweep(scenario, show_progress=False, **kwargs)


def test_tug_limits_errors(scenario):
    with pytest.raises(TypeError, match="tug"):
        tug_limits_comparison(scenario, "tug")
    with pytest.raises(ValueError, match="max_thrust"):
        tug_limits_comparison(scenario, dataclasses.replace(DEFAULT_TUG, max_thrust=np.inf))


@pytest.mark.parametrize("argv, words", [
    (["--tug-mass", "3"], "--tug-mass applies only with --tug-limits"),
    (["--max-thrust", "5"], "--max-thrust applies only with --tug-limits"),
    (["--thruster-arm", "1"], "--thruster-arm applies only with --tug-limits"),
    (["--sweep-grid", "large"], "--sweep-grid applies only with --sweep"),
    (["--tug-limits", "--max-thrust", "-1"], "--max-thrust"),
    (["--tug-limits", "--tug-mass", "nan"], "--tug-mass"),
    (["--sweep", "--sweep-grid", "huge"], "--sweep-grid"),
])
def test_cli_refuses_bad_options_before_work(tmp_path, capsys, argv, words):
    assert main(["detumbling", "--out", str(tmp_path / "o"), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and words in err
    assert not (tmp_path / "o" / "results.json").exists()


def test_cli_tug_limits_and_projection_write_their_results(tmp_path, capsys):
    import json

    out = tmp_path / "o"
    assert main(["detumbling", "--out", str(out), "--quiet", "--duration", "0.3", "--projection", "--tug-limits",
                 "--max-thrust", "15"]) == 0
    data = json.loads((out / "results.json").read_text())
    assert data["parameter_projection"] is True
    assert data["tug_limits"]["tug"]["max_thrust_n"] == 15.0
    assert set(data["tug_limits"]["runs"]) == {"ideal", "tug mass", "tug mass + saturation"}
    assert (out / "tug_limits.png").exists()
    assert "tug mass + saturation" in capsys.readouterr().out
