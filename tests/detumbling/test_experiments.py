"""Study plumbing: settling-time definition, the experiment's runs and labels, JSON keys.

References: hand-made signals for the settling time; the experiment is checked for structure
(its physics is tested in test_closed_loop.py) on a short horizon.
"""

import dataclasses
import json

import numpy as np
import pytest

from satdyn.studies.detumbling import detumbling_experiment, detumbling_study
from satdyn.detumbling.metrics import _settling_time
from satdyn.detumbling.client import PARAMETER_NAMES
from satdyn.results import to_jsonable


def test_settling_time_definition():
    t = np.arange(6.0)
    assert _settling_time(t, np.array([1, 0.01, 1, 0.01, 0.01, 0.01]), 0.05) == 3.0  # last exit counts
    assert _settling_time(t, np.full(6, 0.01), 0.05) == 0.0
    assert _settling_time(t, np.array([0, 0, 0, 0, 0, 1.0]), 0.05) == np.inf


@pytest.fixture(scope="module")
def short_study(scenario):
    short = dataclasses.replace(scenario, simulation=dataclasses.replace(scenario.simulation, duration=0.5,
                                                                         sample_dt=0.05))
    return detumbling_study(short, experiment=True)


def test_experiment_runs_and_labels(short_study):
    exp = short_study.experiment
    assert list(exp.runs) == ["B", "known", "A", "R", "velocity", "B x10", "A x10", "B x100", "A x100"]
    assert exp.runs["B"] is short_study.run  # the study's own run is reused, not recomputed
    for label, run in exp.runs.items():
        assert run.kind == label.split()[0]
    # the sweep really scaled k and xi by 100: V(0) differs only by the hinge estimate-error terms,
    # 2 tugs x |0.5 pi_hinge|^2 / (2 Gamma_pi) with |pi_hinge|^2 = |k|^2 + |xi|^2 = 0.615 at x1
    g = short_study.scenario.gains
    expected = 2 * 0.5 * 0.25 * 0.615 * (100.0**2 - 1.0) / g.Gamma_pi
    assert exp.metrics["B x100"].V0 - exp.metrics["B"].V0 == pytest.approx(expected, rel=1e-12)
    assert exp.runs["B x100"].scenario.endswith("(hinge x100)")


def test_study_json_has_issue_keys(short_study):
    data = json.loads(json.dumps(to_jsonable(short_study)))
    for key in ("final", "settling_time_s", "V0", "VT", "peak"):
        assert key in data
    assert set(data["experiment"]["runs"]) == set(short_study.experiment.runs)
    # named entries, not unnamed vectors: the true parameters and each tug's final estimates
    # carry the names of PARAMETER_NAMES, in the order of the simulated vectors
    truth = data["scenario"]["parameters_true"]
    assert list(truth) == list(PARAMETER_NAMES)
    assert truth["m1"] == pytest.approx(short_study.run.pi_true[0], rel=1e-11)
    for i in range(2):
        est = data["estimates_final"][f"tug{i + 1}"]
        assert est["parameters"]["Jzz2"] == pytest.approx(short_study.run.pi_hat[-1, i, 16], rel=1e-11, abs=1e-300)
        assert est["grasp_m"]["z"] == pytest.approx(short_study.run.d_hat[-1, i, 2], rel=1e-11, abs=1e-300)


def test_experiment_progress_callback(scenario):
    short = dataclasses.replace(scenario, simulation=dataclasses.replace(scenario.simulation, duration=0.2,
                                                                         sample_dt=0.05))
    seen = []
    detumbling_experiment(short, kinds=("B",), hinge_scales=(1.0,), progress=lambda label, t, T: seen.append(label))
    assert seen and set(seen) == {"B"}


def test_figures_have_units_legends_titles_and_one_panel_per_run(short_study):
    # Readability contract of the figures (issue 15): every visible axis has a title, a unit in
    # its y label and a legend; estimates are split by unit (one unit per axis); the Lyapunov
    # comparison draws each of the 9 runs on its own panel (on one axis most of them overlap).
    from satdyn.plotting import plot_detumbling_study

    figs = plot_detumbling_study(short_study)
    for name, fig in figs.items():
        for ax in fig.axes:
            if not ax.get_visible():
                continue
            assert ax.get_title(), f"{name}: axis without title"
            assert "[" in ax.get_ylabel(), f"{name}: y label without unit: {ax.get_ylabel()!r}"
            assert ax.get_legend() is not None, f"{name}: axis without legend"
    units = {ax.get_ylabel() for ax in figs["parameter_estimates"].axes}
    assert units == {"[kg]", "[kg m$^2$]", "[N m/rad]", "[N m s/rad]"}
    panels = [ax for ax in figs["experiment_lyapunov"].axes if ax.get_visible()]
    assert len(panels) == len(short_study.experiment.runs)
    for ax, (label, run) in zip(panels, short_study.experiment.runs.items()):
        np.testing.assert_array_equal(ax.lines[0].get_ydata(), run.V)
        assert ax.get_title().startswith(label)
    # truth lines are explained in every estimate legend
    for ax in figs["position_estimates"].axes + figs["parameter_estimates"].axes:
        assert any("true value" in t.get_text() for t in ax.get_legend().get_texts())
