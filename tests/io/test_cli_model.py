"""`satdyn model FILE --out DIR` on a small model file with a controller, and the study's
mass summary against an independent composition of the bodies' mass matrices."""

from __future__ import annotations

import json

import numpy as np
import pytest

from satdyn.cli import main
from satdyn.io import build_model, example_path, load_model
from satdyn.studies.model import attitude_closed_loop, mass_summary, model_study
from satdyn.spatial import composite_mass_matrix, mass_properties, rigid_mass_matrix

SMALL = """\
satdyn_model: 1
name: small
synthetic: true
parameters:
  - {name: arr.omega1, kind: uncertain, nominal: 3.0, percent: 20}
bodies:
  - name: hub
    type: rigid
    mass: 100.0
    inertia: [[40, 0, 0], [0, 30, 0], [0, 0, 50]]
    ports: {P1: [0.0, 0.6, 0.1]}
  - name: arr
    type: flexible
    mass_properties: {mass: 10.0, r_P_com: [0.0, 1.5, 0.0], inertia_at_com: [[8, 0, 0], [0, 0.5, 0], [0, 0, 8]]}
    modes:
      frequencies: [arr.omega1]
      damping: 0.01
      L_P: [[0, 0, 2.5, 3.6, 0, 0]]
    frame: hub
connections:
  - [hub.P1, arr.P]
external: [hub.G]
controller: {type: attitude_pid, port: hub.G, kp: [2.0, 2.0, 2.0], kd: [12.0, 12.0, 12.0]}
"""


def test_mass_summary_equals_composition():
    # oracle: the rigid mass matrices of the hub (at G) and the array (at P, moved to G) summed
    # with satdyn.spatial (6x6 transport), against the LFR's zero-frequency mass at hub.G
    built = build_model(load_model(example_path("hub_two_arrays")))
    port = built.system.ports["hub.G"]
    m, com, J = mass_summary(built.lfr, port)
    from satdyn.titop.data import load_hub_two_arrays

    d = load_hub_two_arrays()
    Ds = [rigid_mass_matrix(d.hub_mass, d.hub_inertia)] + [d.array_D_P] * 2
    r = [np.zeros(3), -d.r_G_P[0], -d.r_G_P[1]]        # from each body point to G
    P = [np.eye(3), d.P_a_b_at_zero[0].T, d.P_a_b_at_zero[1].T]   # array frame -> hub frame (angle 0)
    D = composite_mass_matrix(np.array(Ds), np.array(r), np.array(P))
    m_ref, com_ref, J_ref = mass_properties(D)
    # zero-frequency gain of a 12-state model through an inversion: rounding only, 1e-9
    assert np.isclose(m, m_ref, rtol=1e-9) and np.isclose(m, 1190.0, rtol=1e-12)
    assert np.allclose(com, com_ref, atol=1e-9) and np.allclose(J, J_ref, rtol=1e-9, atol=1e-9 * np.abs(J_ref).max())


def test_closed_loop_matches_python_control(tmp_path):
    # the attitude loop LFR at the nominal equals python-control's feedback of the same blocks
    import control

    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    built = build_model(load_model(path))
    port = built.system.ports["hub.G"]
    loop = attitude_closed_loop(built.lfr, port, [2.0] * 3, [12.0] * 3)
    P = built.lfr.nominal()[[f"hub:G:acc[{i}]" for i in range(3, 6)], [f"hub:G:W[{i}]" for i in range(3, 6)]]
    s = control.tf("s")
    K = control.ss(control.append(*[(12 * s + 2) / s ** 2] * 3))
    theta = control.ss(control.append(*[1 / s ** 2] * 3))
    ref = theta * control.feedback(control.ss(P), K)        # theta = (1/s^2) acc
    w = np.geomspace(0.01, 30, 9)
    a = loop.freqresp(w)
    b = np.moveaxis(np.asarray(ref.frequency_response(w).complex), -1, 0)
    assert np.abs(a - b).max() <= 1e-8 * np.abs(b).max()


def test_cli_model_writes_results(tmp_path, capsys):
    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    out = tmp_path / "out"
    assert main(["model", str(path), "--out", str(out), "--samples", "4", "--quiet"]) == 0
    data = json.loads((out / "results.json").read_text())
    assert np.isclose(data["mass"], 110.0, rtol=1e-9)
    assert data["delta_channels"]["arr.omega1"]["occurrences"] == 2
    for name in ("sigma_main_channel", "sigma_pointing", "loop_margins"):
        assert (out / f"{name}.png").stat().st_size > 1000
    text = capsys.readouterr().out
    assert "robust stability margin" in text and "SYNTHETIC" in text
    rs = data["closed_loop"]["robust_stability"]
    assert rs["nominal_stable"] and rs["lower"] <= rs["upper"]


def test_cli_model_bad_file(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text(SMALL.replace("mass: 100.0", "mass: -1.0"))
    assert main(["model", str(path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "bad.yaml" in err and "bodies[0].mass" in err


@pytest.mark.parametrize("kwargs, match", [({"n_samples": -1}, "n_samples"), ({"grid": 0}, "grid")])
def test_model_study_bad_arguments(tmp_path, kwargs, match):
    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    with pytest.raises(ValueError, match=match):
        model_study(path, **kwargs)


@pytest.mark.slow
def test_cli_model_telecom_example(tmp_path):
    # the shipped telecom example end to end (~2 min on one core): the summary's mass is the sum
    # of the bodies' masses in the file, and the robust results are consistent bounds
    out = tmp_path / "out"
    assert main(["model", str(example_path("telecom")), "--out", str(out), "--samples", "5", "--quiet"]) == 0
    data = json.loads((out / "results.json").read_text())
    assert np.isclose(data["mass"], 2800.0 + 2 * 90.0 + 40.0, rtol=1e-9)
    rs = data["closed_loop"]["robust_stability"]["results"][0]
    wc = data["closed_loop"]["worst_case_gain"]["results"][0]
    assert rs["nominal_stable"] and 1.0 < rs["lower"] <= rs["upper"]
    assert wc["nominal_gain"] <= wc["lower"] * (1 + 1e-9) and wc["lower"] <= wc["upper"] * (1 + 1e-6)


def test_assembly_file_total_mass():
    # the zero-frequency mass at B.G of the assembly spacecraft file equals the data's total
    # mass (hub + array + 26 tiles + robot, satdyn.titop.data), a sum that never sees the LFR
    from satdyn.titop.data import load_assembly_spacecraft

    built = build_model(load_model(example_path("assembly_spacecraft")))
    m, _, J = mass_summary(built.lfr, built.system.ports["B.G"])
    assert np.isclose(m, load_assembly_spacecraft().total_mass, rtol=1e-9)
    assert np.all(np.linalg.eigvalsh(J) > 0)


@pytest.mark.parametrize("at, match", [("drive=abc", "--at"), ("=1.0", "--at"), ("nope=1.0", "at")])
def test_cli_model_bad_at(tmp_path, capsys, at, match):
    # a bad --at is refused with exit status 2 and a message naming the option
    assert main(["model", str(example_path("hub_two_arrays")), "--out", str(tmp_path / "o"), "--samples", "0",
                 "--quiet", "--at", at]) == 2
    assert match in capsys.readouterr().err


def test_cli_model_at_changes_the_schedule(tmp_path):
    # --at freezes the varying drive angle: the nominal singular values equal those of the LFR
    # substituted at that angle (lfr.subs), not those at the nominal angle. The arrays'
    # frequencies are made certain so that no worst-case curve is computed (speed).
    from satdyn.io import save_model

    doc = load_model(example_path("hub_two_arrays")).document
    for body in doc["bodies"][1:]:
        body["modes"]["frequencies"][0] = 3.4557519189487724
    doc["parameters"] = [p for p in doc["parameters"] if p["kind"] == "varying"]
    save_model(doc, tmp_path / "m.yaml")
    res = model_study(tmp_path / "m.yaml", n_samples=0, at={"array_angle": 1.2})
    built = build_model(load_model(tmp_path / "m.yaml"))
    G = built.lfr.subs({"array_angle": 1.2}).freqresp(res.sigma.frequencies)
    assert np.allclose(res.sigma.nominal_sv, np.linalg.svd(G, compute_uv=False), rtol=1e-10)
    G0 = built.lfr.freqresp(res.sigma.frequencies)
    assert not np.allclose(res.sigma.nominal_sv, np.linalg.svd(G0, compute_uv=False), rtol=1e-3)
