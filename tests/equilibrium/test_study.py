"""The `satdyn equilibrium` study and its non-linear comparator (coarse grids: the full
Fig. 5 grid is the slow test in test_lfr_model.py and the CLI default)."""

import json

import numpy as np
import pytest

from satdyn.cli import main
from satdyn.equilibrium import GEOMETRIES, arm_linear_state_space, arm_static_torques, load_two_link_arm
from satdyn.equilibrium.comparator import multibody_trim_linearise
from satdyn.studies.equilibrium import equilibrium_study


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_multibody_comparator_equals_analytic_model(geometry):
    """The study's comparator (satdyn.multibody ABA, root finding, central differences with
    h = 1e-5) against the analytic linear model of spec 003 section 5.3: trim torques to
    round-off, A to the difference error (1e-7), at random parameters and rotor inertia."""
    rng = np.random.default_rng(1)
    for arm in load_two_link_arm(geometry).sample(2, rng):
        arm = arm.with_values(rotor_inertia=0.04)
        theta = rng.uniform(-3.0, 3.0, 2)
        trim = multibody_trim_linearise(arm, theta)
        A, B, _, _ = arm_linear_state_space(arm, theta)
        assert trim.residual < 1e-10
        np.testing.assert_allclose(trim.torque, arm_static_torques(arm, theta), atol=1e-10)
        np.testing.assert_allclose(trim.A, A, atol=1e-7)
        np.testing.assert_allclose(trim.B, B, atol=1e-9)


def test_study_error_map_and_fig6():
    """A 40-degree Fig. 5 grid: error <= 1e-6 where sigma_min(K) > 1 N m/rad, the worst
    error in the near-singular columns theta1 = +-90 deg (the paper's Fig. 5 shape is
    'worst around theta1 = +-90 deg'); Fig. 6 nominal = comparator and samples bracket it."""
    progress = []
    result = equilibrium_study(grid_step_deg=40.0, n_samples=40, frequencies=np.logspace(-2, 2, 60),
                               progress=lambda done, total: progress.append((done, total)))
    assert progress[-1] == (81, 81)
    assert result.relative_error.shape == (9, 9)
    assert result.max_error_stiff <= 1e-6
    soft = result.stiffness_sigma_min <= result.stiffness_threshold
    # the only soft configurations are near theta1 = +-90 deg (hanging: K_g singular there)
    cols = np.unique(np.nonzero(soft)[1])
    assert set(np.abs(result.theta1_deg[cols])) <= {70.0, 90.0, 110.0}
    np.testing.assert_allclose(result.sigma_nominal, result.sigma_comparator, rtol=1e-6)
    s0 = result.sigma_samples[:, 0, 0]
    assert s0.min() < result.sigma_nominal[0, 0] < s0.max()
    data = result.to_dict()
    assert data["fig5"]["max_error_stiff"] == result.max_error_stiff
    assert data["fig6"]["n_samples"] == 40
    assert data["lfr"]["ndelta"] == result.lfr_ndelta


def test_study_rejects_bad_input():
    with pytest.raises(ValueError, match="grid_step_deg"):
        equilibrium_study(grid_step_deg=0.0)
    with pytest.raises(ValueError, match="n_samples"):
        equilibrium_study(n_samples=0)
    with pytest.raises(ValueError, match="geometry"):
        equilibrium_study(geometry="flat", grid_step_deg=170.0, n_samples=1)


def test_cli_writes_results_and_figures(tmp_path, capsys):
    assert main(["equilibrium", "--out", str(tmp_path), "--step", "85", "--samples", "10",
                 "--geometry", "upright", "--g0", "standard"]) == 0
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["geometry"] == "upright" and data["g0"] == 9.80665
    for key in ("fig5", "fig6", "lfr", "timing_s", "comparator"):
        assert key in data
    for name in ("fig5_relative_error.png", "fig6_singular_values.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = capsys.readouterr().out
    assert "relative error" in out and "Delta of size" in out


def test_cli_bad_g0_is_a_clean_error(tmp_path, capsys):
    assert main(["equilibrium", "--out", str(tmp_path), "--g0", "heavy"]) == 2
    assert "--g0" in capsys.readouterr().err
