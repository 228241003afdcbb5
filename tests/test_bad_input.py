"""Bad input gives a clear error naming the offending argument, before any work.

One parametrised case per error path, across the public constructors of satdyn.titop,
satdyn.spatial, satdyn.lfr (ureal/vreal/ss), satdyn.equilibrium, satdyn.detumbling and the
`satdyn` command. Each case asserts the exception type and that the message names the
argument (the oracle is the function's documented contract, not its implementation). CLI
cases assert exit status 2 and one line on standard error naming the option, and that the
study never started (its ``run`` is replaced by a function that fails the test).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from satdyn import spatial as sp
from satdyn import titop
from satdyn.lfr import Parameter, ss, ureal, vreal

# ------------------------------------------------------------------------------------------
# valid building blocks (the bad cases change one thing at a time)
# ------------------------------------------------------------------------------------------
J_OK = np.diag([1.0, 2.0, 2.5])
D_OK = sp.rigid_mass_matrix(3.0, J_OK, [0.5, 0.0, 0.0])
L_OK = np.array([[0.0, 0.5, 0.0, 0.0, 0.0, 0.2],
                 [0.0, 0.0, 0.4, 0.0, 0.1, 0.0]])      # (2 modes, 6): small, residual mass stays > 0
PHI_OK = 0.1 * np.ones((6, 2))
ROT_OK = sp.rodrigues([0.0, 0.0, 1.0], 0.3)
R = np.eye(3)


def _rigid(**change):
    kwargs = dict(name="b", mass=2.0, inertia=J_OK, ports={"P": [0.1, 0.0, 0.0]})
    kwargs.update(change)
    return lambda: titop.rigid_body(**kwargs)


def _flexible(**change):
    kwargs = dict(name="f", D_P=D_OK, frequencies=[2.0, 5.0], damping=0.01, L_P=L_OK)
    kwargs.update(change)
    return lambda: titop.flexible_body(**kwargs)


TITOP = [
    # rigid_body: non-physical inertias and masses
    ("rigid-negative-inertia", _rigid(inertia=-J_OK), ValueError, "inertia"),
    ("rigid-zero-inertia", _rigid(inertia=np.zeros((3, 3))), ValueError, "inertia"),
    ("rigid-triangle", _rigid(inertia=np.diag([1.0, 1.0, 3.0])), ValueError, "inertia"),
    ("rigid-indefinite", _rigid(inertia=[[1, 2, 0], [2, 1, 0], [0, 0, 1.5]]), ValueError, "inertia"),
    ("rigid-asymmetric", _rigid(inertia=[[1, 0.3, 0], [0, 2, 0], [0, 0, 2.5]]), ValueError, "inertia"),
    ("rigid-inertia-shape", _rigid(inertia=np.eye(2)), ValueError, "inertia"),
    ("rigid-inertia-batch", _rigid(inertia=np.stack([J_OK, J_OK])), ValueError, "inertia"),
    ("rigid-inertia-nan", _rigid(inertia=np.full((3, 3), np.nan)), ValueError, "inertia"),
    ("rigid-inertia-text", _rigid(inertia="heavy"), TypeError, "inertia"),
    ("rigid-mass-zero", _rigid(mass=0.0), ValueError, "mass"),
    ("rigid-mass-negative", _rigid(mass=-1.0), ValueError, "mass"),
    ("rigid-mass-inf", _rigid(mass=np.inf), ValueError, "mass"),
    ("rigid-mass-vector", _rigid(mass=[1.0, 2.0]), ValueError, "mass"),
    ("rigid-mass-text", _rigid(mass="2 kg"), TypeError, "mass"),
    ("rigid-port-shape", _rigid(ports={"P": [0.1, 0.0]}), ValueError, "ports['P']"),
    ("rigid-port-batch", _rigid(ports={"P": np.zeros((2, 3))}), ValueError, "ports['P']"),
    ("rigid-ports-type", _rigid(ports=[[0.1, 0, 0]]), TypeError, "ports"),
    ("rigid-no-port", _rigid(ports={}, com_port=None), ValueError, "ports"),
    ("rigid-direct-unknown", _rigid(direct="Q"), ValueError, "direct"),
    ("rigid-com-port-clash", _rigid(com_port="P"), ValueError, "com_port"),
    ("rigid-name-dot", _rigid(name="a.b"), ValueError, "name"),
    ("rigid-uncertain-inertia-nominal", _rigid(inertia=-J_OK * ureal("k", 1.0, percent=10)), ValueError, "inertia"),
    # flexible_body: shapes, counts, symmetry, definiteness
    ("flex-L-transposed", _flexible(L_P=L_OK.T), ValueError, "L_P"),
    ("flex-L-flat", _flexible(L_P=L_OK.ravel()), ValueError, "L_P"),
    ("flex-L-rows", _flexible(L_P=L_OK[:1]), ValueError, "L_P"),
    ("flex-L-nan", _flexible(L_P=np.full((2, 6), np.nan)), ValueError, "L_P"),
    ("flex-frequency-count-vs-L", _flexible(frequencies=[2.0, 5.0, 9.0]), ValueError, "L_P"),
    ("flex-damping-count", _flexible(damping=[0.01, 0.02, 0.03]), ValueError, "damping"),
    ("flex-damping-negative", _flexible(damping=-0.1), ValueError, "damping"),
    ("flex-damping-nan", _flexible(damping=np.nan), ValueError, "damping"),
    ("flex-frequency-zero", _flexible(frequencies=[0.0, 5.0]), ValueError, "frequencies"),
    ("flex-frequency-negative", _flexible(frequencies=[-2.0, 5.0]), ValueError, "frequencies"),
    ("flex-frequency-matrix", _flexible(frequencies=[[2.0, 5.0]]), ValueError, "frequencies"),
    ("flex-frequency-text", _flexible(frequencies="fast"), TypeError, "frequencies"),
    ("flex-D-asymmetric", _flexible(D_P=D_OK + np.triu(np.ones((6, 6)), 1)), ValueError, "D_P"),
    ("flex-D-indefinite", _flexible(D_P=-D_OK), ValueError, "D_P"),
    ("flex-D-shape", _flexible(D_P=np.eye(3)), ValueError, "D_P"),
    ("flex-D-batch", _flexible(D_P=np.stack([D_OK, D_OK])), ValueError, "D_P"),
    ("flex-child-phi-transposed", _flexible(children={"C": ([1.0, 0, 0], PHI_OK.T)}), ValueError, "Phi_C"),
    ("flex-child-r-shape", _flexible(children={"C": ([1.0, 0], PHI_OK)}), ValueError, "r_PC"),
    ("flex-child-not-pair", _flexible(children={"C": [1.0, 0, 0]}), TypeError, "children['C']"),
    ("flex-children-type", _flexible(children=[("C", [1, 0, 0], PHI_OK)]), TypeError, "children"),
    ("flex-parent-clash", _flexible(children={"P": ([1.0, 0, 0], PHI_OK)}), ValueError, "parent"),
    ("flex-residual-strict", lambda: titop.flexible_body("f", D_OK, [2.0, 5.0], 0.01, 10 * L_OK, strict=True),
     ValueError, "D_P - L_P^T L_P"),
    # joints
    ("revolute-axis-zero", lambda: titop.revolute_joint("j", [0, 0, 0], 0.1), ValueError, "axis"),
    ("revolute-axis-shape", lambda: titop.revolute_joint("j", [1, 0], 0.1), ValueError, "axis"),
    ("revolute-offset-reflection", lambda: titop.revolute_joint("j", [0, 0, 1], 0.1, offset=-np.eye(3)),
     ValueError, "offset"),
    ("revolute-frames", lambda: titop.revolute_joint("j", [0, 0, 1], frames="ab"), TypeError, "frames"),
    ("revolute-angle-transform", lambda: titop.revolute_joint("j", [0, 0, 1], vreal("a", 0.0, range=(-1, 1))),
     ValueError, "angle"),
    ("frame-change-not-rotation", lambda: titop.frame_change("k", 2 * np.eye(3)), ValueError, "P_cp"),
    ("actuated-causality", lambda: titop.actuated_revolute_joint("j", [0, 0, 1], causality="speed"),
     ValueError, "causality"),
    ("prismatic-causality", lambda: titop.prismatic_joint("p", [1, 0, 0], causality="speed"),
     ValueError, "causality"),
    ("actuated-rotor-negative", lambda: titop.actuated_revolute_joint("j", [0, 0, 1], rotor_inertia=-1.0),
     ValueError, "rotor_inertia"),
    ("actuated-stiffness-nan", lambda: titop.actuated_revolute_joint("j", [0, 0, 1], stiffness=np.nan),
     ValueError, "stiffness"),
    ("prismatic-mass-negative", lambda: titop.prismatic_joint("p", [1, 0, 0], slider_mass=-1.0),
     ValueError, "slider_mass"),
    ("residual-mass-L", lambda: titop.residual_mass(D_OK, np.ones((6, 2))), ValueError, "L_P"),
    ("connect-empty", lambda: titop.connect([]), ValueError, "models"),
    ("connect-not-model", lambda: titop.connect([object()]), TypeError, "models"),
]

SPATIAL = [
    ("skew-shape", lambda: sp.skew([1.0, 2.0]), ValueError, "v"),
    ("skew-text", lambda: sp.skew("abc"), TypeError, "v"),
    ("tau-nan", lambda: sp.tau([np.nan, 0, 0]), ValueError, "r_PB"),
    ("vee-shape", lambda: sp.vee(np.eye(2)), ValueError, "matrix"),
    ("rigid-mass-matrix-mass", lambda: sp.rigid_mass_matrix(-1.0, J_OK), ValueError, "mass"),
    ("rigid-mass-matrix-negative-inertia", lambda: sp.rigid_mass_matrix(1.0, -J_OK), ValueError, "inertia"),
    ("rigid-mass-matrix-asymmetric", lambda: sp.rigid_mass_matrix(1.0, J_OK + np.triu(np.ones((3, 3)), 1)),
     ValueError, "inertia"),
    ("rigid-mass-matrix-r", lambda: sp.rigid_mass_matrix(1.0, J_OK, [1.0, 2.0]), ValueError, "r_PG"),
    ("rigid-mass-matrix-batch", lambda: sp.rigid_mass_matrix(np.ones(2), np.stack([J_OK] * 3)), ValueError, "mass"),
    ("parallel-axis-mass", lambda: sp.parallel_axis(J_OK, 0.0, [1, 0, 0]), ValueError, "mass"),
    ("mass-properties-shape", lambda: sp.mass_properties(np.eye(5)), ValueError, "mass_matrix"),
    ("mass-properties-mass", lambda: sp.mass_properties(-np.eye(6)), ValueError, "mass_matrix"),
    ("rodrigues-axis", lambda: sp.rodrigues([1.0, 0.0], 0.1), ValueError, "axis"),
    ("rodrigues-angle-nan", lambda: sp.rodrigues([0.0, 0.0, 1.0], np.nan), ValueError, "angle"),
    ("dcm-from-quaternion", lambda: sp.dcm_from_quaternion([1.0, 0.0, 0.0]), ValueError, "quaternion"),
    ("dcm-from-euler", lambda: sp.dcm_from_euler([0.1, 0.2]), ValueError, "angles"),
    ("euler-from-dcm", lambda: sp.euler_from_dcm(np.eye(2)), ValueError, "P_bi"),
    ("so3-exp", lambda: sp.so3_exp([0.1, np.inf, 0.0]), ValueError, "rotvec"),
    ("euler-rate-frame", lambda: sp.euler_rate_matrix([0.1, 0.2, 0.3], frame="world"), ValueError, "frame"),
    ("quaternion-derivative-omega", lambda: sp.quaternion_derivative([0, 0, 0, 1.0], [1.0, 2.0]), ValueError, "omega"),
    ("composite-inertia-masses", lambda: sp.composite_inertia([1.0, -2.0], np.zeros((2, 3)), np.stack([J_OK] * 2)),
     ValueError, "mass"),
]

LFR = [
    ("ureal-no-range", lambda: ureal("k", 1.0), TypeError, "percent"),
    ("ureal-two-ranges", lambda: ureal("k", 1.0, percent=10, plusminus=0.1), TypeError, "percent"),
    ("ureal-nominal-nan", lambda: ureal("k", np.nan, percent=10), ValueError, "nominal"),
    ("ureal-percent-negative", lambda: ureal("k", 1.0, percent=-5), ValueError, "percent"),
    ("ureal-percent-zero-nominal", lambda: ureal("k", 0.0, percent=5), ValueError, "percent"),
    ("ureal-plusminus-text", lambda: ureal("k", 1.0, plusminus="a"), TypeError, "plusminus"),
    ("ureal-range-triple", lambda: ureal("k", 1.0, range=(0, 1, 2)), ValueError, "range"),
    ("ureal-range-scalar", lambda: ureal("k", 1.0, range=3.0), TypeError, "range"),
    ("vreal-no-range", lambda: vreal("a", 0.0), TypeError, "range"),
    ("vreal-range-triple", lambda: vreal("a", 0.0, range=(0, 1, 2)), ValueError, "range"),
    ("ss-A-not-square", lambda: ss(np.ones((2, 3)), np.ones((2, 1)), np.ones((1, 2)), np.zeros((1, 1))),
     ValueError, "A"),
    ("ss-shapes", lambda: ss(np.eye(2), np.ones((3, 1)), np.ones((1, 2)), np.zeros((1, 1))), ValueError, "B"),
]


def _equilibrium_cases():
    from satdyn.equilibrium import RevoluteJoint, RigidBody, Weld, load_two_link_arm
    from satdyn.studies.equilibrium import equilibrium_study
    from satdyn.equilibrium import arm_mass_matrix, relative_error, trim_and_linearise

    arm = load_two_link_arm()
    return [
        ("eq-body-mass", lambda: RigidBody("b", mass=-1.0), ValueError, "mass"),
        ("eq-body-mass-nan", lambda: RigidBody("b", mass=float("nan")), ValueError, "mass"),
        ("eq-body-inertia-negative", lambda: RigidBody("b", mass=1.0, inertia=-J_OK), ValueError, "inertia"),
        ("eq-body-inertia-shape", lambda: RigidBody("b", mass=1.0, inertia=np.eye(2)), ValueError, "inertia"),
        ("eq-body-inertia-asymmetric", lambda: RigidBody("b", mass=1.0, inertia=J_OK + np.triu(np.ones((3, 3)), 1)),
         ValueError, "inertia"),
        ("eq-body-com", lambda: RigidBody("b", mass=1.0, com=[1.0, 2.0]), ValueError, "com"),
        ("eq-body-name", lambda: RigidBody("", mass=1.0), TypeError, "name"),
        ("eq-joint-axis", lambda: RevoluteJoint("j", None, "b", axis=[0, 0, 0]), ValueError, "axis"),
        ("eq-joint-P0", lambda: RevoluteJoint("j", None, "b", axis=[0, 0, 1], P0=2 * np.eye(3)), ValueError, "P0"),
        ("eq-joint-stiffness", lambda: RevoluteJoint("j", None, "b", axis=[0, 0, 1], stiffness=-1.0),
         ValueError, "stiffness"),
        ("eq-weld-dcm", lambda: Weld("w", None, "b", dcm=np.ones((3, 3))), ValueError, "dcm"),
        ("eq-arm-geometry", lambda: load_two_link_arm("sideways"), ValueError, "geometry"),
        ("eq-arm-g0", lambda: load_two_link_arm(g0=-9.81), ValueError, "g0"),
        ("eq-trim-theta", lambda: trim_and_linearise(arm, [0.1]), ValueError, "theta"),
        ("eq-trim-step", lambda: trim_and_linearise(arm, [0.1, 0.2], step=0.0), ValueError, "step"),
        ("eq-study-step", lambda: equilibrium_study(grid_step_deg=-5.0), ValueError, "grid_step_deg"),
        ("eq-study-samples", lambda: equilibrium_study(n_samples=0), ValueError, "n_samples"),
        ("eq-study-frequencies", lambda: equilibrium_study(frequencies=[-1.0]), ValueError, "frequencies"),
        ("eq-mass-matrix-theta2", lambda: arm_mass_matrix(arm, "a"), TypeError, "theta2"),
        ("eq-relative-error-shapes", lambda: relative_error(np.ones((1, 2, 2)), np.ones((1, 3, 3))), ValueError, "G1"),
    ]


def _detumbling_cases():
    from satdyn.detumbling import (ControllerGains, HingeParams, LinkParams, SimulationOptions, forward_dynamics,
                                   grasp_map, mass_matrix, paper_scenario, run_metrics, simulate, simulate_free_motion)

    sc = paper_scenario()

    return [
        ("dt-link-mass", lambda: LinkParams(0.0, np.zeros(3), J_OK), ValueError, "mass"),
        ("dt-link-com", lambda: LinkParams(1.0, np.zeros(2), J_OK), ValueError, "com"),
        ("dt-link-inertia-negative", lambda: LinkParams(1.0, np.zeros(3), -J_OK), ValueError, "inertia_com"),
        ("dt-link-inertia-triangle", lambda: LinkParams(1.0, np.zeros(3), np.diag([1.0, 1.0, 3.0])),
         ValueError, "inertia_com"),
        ("dt-link-inertia-asymmetric", lambda: LinkParams(1.0, np.zeros(3), J_OK + np.triu(np.ones((3, 3)), 1)),
         ValueError, "inertia_com"),
        ("dt-hinge-stiffness", lambda: HingeParams([-1.0, 0, 0], [0, 0, 0]), ValueError, "stiffness"),
        ("dt-hinge-damping-count", lambda: HingeParams([1.0, 1, 1], [0, 0]), ValueError, "damping"),
        ("dt-hinge-eps", lambda: HingeParams([1.0, 1, 1], [0, 0, 0], friction_eps=0.0), ValueError, "friction_eps"),
        ("dt-hinge-model", lambda: HingeParams([1.0, 1, 1], [0, 0, 0], spring_model="cubic"), ValueError,
         "spring_model"),
        ("dt-simulation-duration", lambda: SimulationOptions(duration=-1.0), ValueError, "duration"),
        ("dt-simulation-method", lambda: SimulationOptions(method="Euler"), ValueError, "method"),
        ("dt-scenario-controller", lambda: paper_scenario(controller="Z"), ValueError, "controller"),
        ("dt-scenario-grasps", lambda: paper_scenario(grasp_estimates=np.zeros(3)), ValueError, "grasp_estimates"),
        ("dt-gains", lambda: ControllerGains(K_v=-1.0), ValueError, "K_v"),
        ("dt-mass-matrix-client", lambda: mass_matrix("client", R, R), TypeError, "client"),
        ("dt-mass-matrix-R1", lambda: mass_matrix(sc.client, np.eye(2), R), ValueError, "R1"),
        ("dt-forward-dynamics-nu", lambda: forward_dynamics(sc.client, R, R, np.zeros(8)), ValueError, "nu"),
        ("dt-grasp-map", lambda: grasp_map([1.0, 2.0]), ValueError, "`r`"),
        ("dt-free-motion-duration", lambda: simulate_free_motion(sc.client, sc.initial, -1.0), ValueError, "duration"),
        ("dt-simulate-kind", lambda: simulate(sc, "Z"), ValueError, "kind"),
        ("dt-run-metrics-run", lambda: run_metrics(None), TypeError, "run"),
    ]


LIBRARY = TITOP + SPATIAL + LFR


def _assert_refused(case, call, error, name):
    with pytest.raises(error) as info:
        call()
    assert name in str(info.value), f"{case}: message does not name {name!r}: {info.value}"


@pytest.mark.parametrize("case, call, error, name", LIBRARY, ids=[c[0] for c in LIBRARY])
def test_library_bad_input(case, call, error, name):
    _assert_refused(case, call, error, name)


@pytest.mark.parametrize("index", range(20))
def test_equilibrium_bad_input(index):
    _assert_refused(*_equilibrium_cases()[index])


@pytest.mark.parametrize("index", range(21))
def test_detumbling_bad_input(index):
    _assert_refused(*_detumbling_cases()[index])


def test_case_lists_have_the_parametrised_lengths():
    assert len(_equilibrium_cases()) == 20 and len(_detumbling_cases()) == 21


def test_a_valid_flexible_body_and_rigid_body_are_accepted():
    # the building blocks above are valid: each bad case differs from them in one argument only
    assert titop.flexible_body("f", D_OK, [2.0, 5.0], 0.01, L_OK, {"C": ([1.0, 0, 0], PHI_OK)}).lfr.nstates == 4
    assert "P" in titop.rigid_body("b", 2.0, J_OK, {"P": [0.1, 0.0, 0.0]}).ports
    assert isinstance(ureal("k", 1.0, percent=10), Parameter)


# ------------------------------------------------------------------------------------------
# the `satdyn` command: exit status 2, one line naming the option, before the study runs
# ------------------------------------------------------------------------------------------
CLI = [
    (["demo", "--seed", "-1"], "--seed"),
    (["demo", "--seed", "1.5"], "--seed"),
    (["demo", "--samples", "0"], "--samples"),
    (["demo", "--bandwidth", "0"], "--bandwidth"),
    (["demo", "--bandwidth", "nan"], "--bandwidth"),
    (["demo", "--array-angle", "200"], "--array-angle"),
    (["demo", "--array-angle", "inf"], "--array-angle"),
    (["demo", "--out", ""], "--out"),
    (["demo", "--out", "/dev/null"], "--out"),
    (["demo", "--out", "/dev/null/sub"], "--out"),
    (["demo", "--angles", "10"], "--angles"),
    (["demo", "--scenario", "{scenario}"], "--scenario"),
    (["demo", "--rigid", "--seed", "3"], "--seed"),
    (["demo", "--rigid", "--bandwidth", "0.02"], "--bandwidth"),
    (["demo", "--rigid", "--angles", "nan"], "--angles"),
    (["demo", "--rigid", "--scenario", "/no/such/file.json"], "--scenario"),
    (["demo", "--rigid", "--scenario", "{malformed}"], "{malformed}"),
    (["detumbling", "--duration", "inf"], "--duration"),
    (["detumbling", "--duration", "-1"], "--duration"),
    (["detumbling", "--controller", "Z"], "--controller"),
    (["detumbling", "--scenario", "{malformed}"], "{malformed}"),
    (["equilibrium", "--seed", "-1"], "--seed"),
    (["equilibrium", "--step", "nan"], "--step"),
    (["equilibrium", "--samples", "-3"], "--samples"),
    (["equilibrium", "--g0", "heavy"], "--g0"),
    (["equilibrium", "--g0", "-9.81"], "--g0"),
    (["freefloating", "--rtol", "-1"], "--rtol"),
    (["freefloating", "--rtol", "0.5"], "--rtol"),
    (["freefloating", "--settle", "nan"], "--settle"),
    (["freefloating", "--settle", "-1"], "--settle"),
    (["freefloating", "--sample-dt", "0"], "--sample-dt"),
    (["freefloating", "--systems", "{malformed}"], "{malformed}"),
]


@pytest.mark.parametrize("argv, name", CLI, ids=[" ".join(a) for a, _ in CLI])
def test_cli_bad_input(argv, name, tmp_path, capsys, monkeypatch):
    from satdyn import cli

    malformed = tmp_path / "malformed.json"
    malformed.write_text('{"hub": {"mass": 1.0,')
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"hub": {"mass": 1.0}}))
    subs = {"{malformed}": str(malformed), "{scenario}": str(scenario)}
    argv = [subs.get(a, a) for a in argv]
    name = subs.get(name, name)
    out = [] if "--out" in argv else ["--out", str(tmp_path / "out")]

    def never(args):
        raise AssertionError("the study ran before the input was checked")

    for module_name in cli.SUBCOMMANDS.values():
        monkeypatch.setattr(__import__(module_name, fromlist=["run"]), "run", never)
    assert cli.main(argv + out) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert name in err and "error" in err
    assert not (tmp_path / "out").exists()


def test_cli_interrupt_is_one_line_and_status_130(tmp_path, capsys, monkeypatch):
    import satdyn.cli.demo as demo_cli
    from satdyn import cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(demo_cli, "run", interrupted)
    assert cli.main(["demo", "--rigid", "--out", str(tmp_path)]) == 130
    err = capsys.readouterr().err.strip()
    assert err == "satdyn demo: interrupted"
