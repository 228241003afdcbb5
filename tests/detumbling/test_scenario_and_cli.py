"""Scenario data (Table I with the spec's resolutions), bad input, and the `satdyn detumbling` CLI.

References: the spec's resolved parameter vector (§2.5, printed to 4-5 digits) and the issue's
results.json keys.
"""

import dataclasses
import json

import numpy as np
import pytest

from satdyn.cli import main
from satdyn.detumbling import TableResolutions, client_from_table, load_scenario, simulate
from satdyn.detumbling.controllers import ControllerGains, make_tugs, tug_command
from satdyn.detumbling.scenario import scenario_from_dict

SPEC_PI = [50, 60, -10, 5, 5.6807, 77.3438, 78.15, 12, -6, 1, 10, -7.4, -0.1, 2.0, 8.2114, 13.3531, 9.1603,
           -0.074, 1.48, 0.02, 0.5, 0.25, 0.25, 0.4, 0.2, 0.2, 0, 0, 0]


def _raw():
    from importlib import resources
    return json.loads(resources.files("satdyn").joinpath("data/detumbling/paper_table1.json").read_text())


def test_paper_parameters_match_spec(scenario):
    np.testing.assert_allclose(scenario.client.parameters, SPEC_PI, atol=5e-5)
    np.testing.assert_allclose(scenario.initial.nu, [-1.0, 0.9, 0.8, 0.7, 0.8, -1.0, 1.0, 0.5, -1.7])


def test_resolution_options_change_the_client():
    table = _raw()["table_i"]
    base = client_from_table(table)
    alt = client_from_table(table, TableResolutions(d_s_y=0.1, link1_includes_panel1=False, com_from_d="plus",
                                                    xi_is_ratio=True, hinge_scale=10.0))
    assert alt.link1.mass == 40.0 and base.link1.mass == 50.0
    np.testing.assert_allclose(alt.link2.com, [0.74, 0.1, -0.2])
    np.testing.assert_allclose(base.link2.com, [-0.74, -0.01, 0.2])
    # damping ratio reading c = 2 xi sqrt(k J_rotor), then x10 (J_zz = 0 gives no z damping)
    np.testing.assert_allclose(alt.hinge.damping, 10 * 2 * np.array([0.4, 0.2, 0.2]) * np.sqrt(
        np.array([0.5, 0.25, 0.25]) * np.array([6.0, 4.0, 0.0])))
    np.testing.assert_allclose(alt.hinge.stiffness, [5.0, 2.5, 2.5])


@pytest.mark.parametrize("path, value, field", [
    (("table_i", "base", "mass"), "heavy", "table_i.base.mass"),
    (("table_i", "grasp1"), [1, 2], "table_i.grasp1"),
    (("initial_conditions", "omega1"), None, "initial_conditions.omega1"),
    (("controller", "K_v"), -1.0, "K_v"),
    (("controller", "kind"), "Z", "controller.kind"),
    (("resolutions", "spring_model"), "cubic", "spring_model"),
    (("simulation", "rtol"), 0, "simulation.rtol"),
    (("controller", "K_V"), 60.0, "controller.K_V"),  # misspelt: rejected, not silently defaulted
])
def test_bad_scenario_fields_are_named(path, value, field):
    raw = _raw()
    node = raw
    for key in path[:-1]:
        node = node[key]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    with pytest.raises(ValueError, match=field.replace(".", r"\.")) as info:
        scenario_from_dict(raw)
    assert "\n" not in str(info.value)


def test_bad_arguments(scenario):
    with pytest.raises(ValueError, match="workload"):
        ControllerGains(workload=1.5)
    with pytest.raises(ValueError, match="kernel"):
        simulate(scenario, kernel="gpu")
    with pytest.raises(ValueError, match="duration"):
        simulate(scenario, duration=-1.0)
    with pytest.raises(ValueError, match="scenario"):
        load_scenario("/nonexistent/file.json")


def test_cli_writes_results_and_figures(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["detumbling", "--duration", "1", "--quiet", "--out", str(out)]) == 0
    data = json.loads((out / "results.json").read_text())
    assert set(data["final"]) == {"v", "omega1", "omega2", "position_error", "hinge_angle"}
    assert set(data["settling_time_s"]) == {"v", "omega1", "omega2"}
    assert set(data["peak"]) == {"force", "torque1", "torque2"}
    assert data["V0"] == pytest.approx(203.8777, abs=1e-3) and data["VT"] < data["V0"]
    for name in ("tug1_wrench", "tug2_wrench", "link_rates", "lyapunov", "parameter_estimates",
                 "position_estimates", "tug_velocities", "hinge_and_pose"):
        assert (out / f"{name}.png").stat().st_size > 1000
    assert "controller B" in capsys.readouterr().out


def test_cli_bad_scenario_file_is_one_line_error(tmp_path, capsys):
    raw = _raw()
    raw["table_i"]["panel2"]["inertia_diag"] = [1, 2]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(raw))
    assert main(["detumbling", "--scenario", str(path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "table_i.panel2.inertia_diag" in err


def test_controller_does_not_read_the_true_parameters(scenario, rng):
    """Same measurement and estimates, different true client: bitwise identical tug commands."""
    from satdyn.detumbling.controllers import measure
    from .conftest import random_state
    other = scenario.client.with_hinge(dataclasses.replace(scenario.client.hinge, stiffness=np.ones(3),
                                                           damping=np.ones(3), friction=np.ones(3)))
    p, R1, R2, nu = random_state(rng)
    pi_hat, d_hat = rng.normal(size=29), rng.normal(size=3)
    outs = []
    for client in (scenario.client, other):
        tug = make_tugs("B", scenario.gains, client)[1]
        assert not tug.structure.stiffness.any() and not tug.structure.damping.any()
        outs.append(tug_command(tug, measure(tug, scenario.desired, p, R1, R2, nu), pi_hat, d_hat))
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


def test_model_functions_name_bad_arguments(client):
    from satdyn.detumbling import dynamics as dyn
    R = np.eye(3)
    with pytest.raises(ValueError, match="`nu` must have shape"):
        dyn.forward_dynamics(client, R, R, np.zeros(6))
    with pytest.raises(ValueError, match="`R2` must have shape"):
        dyn.mass_matrix(client, R, np.eye(4))
    with pytest.raises(TypeError, match="`W1`"):
        dyn.generalized_force(client, R, R, "wrench", np.zeros(6))
    with pytest.raises(ValueError, match="`kind`"):
        simulate(load_scenario(), "Z")
