"""The arm's LFT model (one LFR for every configuration and parameter) against the
Pinocchio oracle (numerical trim + finite-difference linearisation), option A vs option B,
well-posedness over the box, and the Fig. 6 numbers (T8, T9, T12, T13)."""

import warnings

import numpy as np
import pytest

from equilibrium_oracles import pinocchio_trim_linearise
from satdyn import lfr
from satdyn.equilibrium import equilibrium_lfr, load_two_link_arm, two_link_arm_lfr
from satdyn.equilibrium.reference import frequency_response, relative_error

OMEGA = np.logspace(-2, 2, 40)


@pytest.fixture(scope="module")
def hanging_model():
    return two_link_arm_lfr("hanging")


def _lfr_response(model, arm, theta):
    values = {"theta1": theta[0], "theta2": theta[1]}
    values.update({k: getattr(arm, k) for k in model.plant.parameters if k not in values})
    sys = model.plant.evaluate(values)
    return frequency_response(sys.A, sys.B, sys.C[:2], sys.D[:2], OMEGA), values


def _compare_with_pinocchio(model, arm, grid_deg):
    """Worst relative error ||(G1 - G2) G2^-1||_inf over the grid where sigma_min(K) > 1."""
    worst = 0.0
    checked = 0
    for t1 in grid_deg:
        for t2 in grid_deg:
            theta = np.deg2rad([t1, t2])
            torque, A, B = pinocchio_trim_linearise(arm, theta)
            K = -np.linalg.inv(B[2:]) @ A[2:, :2]  # K = -M A21 with M = B2^-1
            if np.linalg.svd(K, compute_uv=False).min() <= 1.0:
                continue
            G2 = frequency_response(A, B, np.eye(4)[:2], np.zeros((2, 2)), OMEGA)
            G1, values = _lfr_response(model, arm, theta)
            worst = max(worst, float(relative_error(G1, G2)))
            Tbar = model.static_torques.evaluate({k: v for k, v in values.items()
                                                  if k in model.static_torques.parameters})[:, 0]
            np.testing.assert_allclose(Tbar, torque, rtol=0, atol=1e-9 * max(1.0, np.abs(torque).max()))
            checked += 1
    return worst, checked


def test_T8_lfr_equals_pinocchio_trim_linearisation_nominal(hanging_model):
    """T8 at the nominal parameters on a 40-degree grid of (theta1, theta2): relative error
    <= 1e-6 wherever sigma_min(stiffness) > 1 N m/rad (the finite differences of the oracle,
    h = 1e-5, give ~1e-8; the LFR is exact)."""
    arm = load_two_link_arm()
    worst, checked = _compare_with_pinocchio(hanging_model, arm, np.arange(-160, 161, 40))
    assert checked > 40
    assert worst <= 1e-6


def test_T8_lfr_equals_pinocchio_at_20_random_parameter_sets(hanging_model):
    """T8 at 20 random non-nominal parameter sets (uniform in the +-20 % box), each at 4
    random configurations: the same LFR covers all of them (<= 1e-6)."""
    rng = np.random.default_rng(20)
    arms = load_two_link_arm().sample(20, rng)
    worst = 0.0
    for arm in arms:
        for _ in range(4):
            theta = rng.uniform(-np.deg2rad(170), np.deg2rad(170), 2)
            torque, A, B = pinocchio_trim_linearise(arm, theta)
            K = -np.linalg.inv(B[2:]) @ A[2:, :2]
            if np.linalg.svd(K, compute_uv=False).min() <= 1.0:
                continue
            G2 = frequency_response(A, B, np.eye(4)[:2], np.zeros((2, 2)), OMEGA)
            G1, _ = _lfr_response(hanging_model, arm, theta)
            worst = max(worst, float(relative_error(G1, G2)))
    assert worst <= 1e-6


@pytest.mark.slow
@pytest.mark.parametrize("geometry", ["hanging", "upright", "horizontal"])
def test_T8_full_fig5_grid_against_pinocchio(geometry):
    """The full Fig. 5 grid (-170..170 deg step 10) at the nominal and 20 random parameter sets."""
    model = two_link_arm_lfr(geometry)
    rng = np.random.default_rng(50)
    grid = np.arange(-170, 171, 10)
    for arm in [load_two_link_arm(geometry)] + load_two_link_arm(geometry).sample(20, rng):
        worst, checked = _compare_with_pinocchio(model, arm, grid)
        assert checked > 0
        assert worst <= 1e-6


def test_T9_option_a_equals_option_b():
    """T9: block-diagram assembly with implicit joints (interconnect + invio) against inverse
    mode with M inverted, at random samples of every parameter: 1e-9 (relative)."""
    model_b = two_link_arm_lfr("upright", option="B")
    model_a = two_link_arm_lfr("upright", option="A")
    assert model_a.plant.input_names == model_b.plant.input_names
    assert model_a.plant.output_names == model_b.plant.output_names
    rng = np.random.default_rng(9)
    arm = load_two_link_arm("upright")
    ranges = arm.parameter_ranges()
    for _ in range(20):
        values = {k: rng.uniform(lo, hi) for k, (lo, hi) in ranges.items()}
        values.update(theta1=rng.uniform(-2.9, 2.9), theta2=rng.uniform(-2.9, 2.9))
        a = model_a.plant.evaluate({k: v for k, v in values.items() if k in model_a.plant.parameters})
        b = model_b.plant.evaluate({k: v for k, v in values.items() if k in model_b.plant.parameters})
        Ga = frequency_response(a.A, a.B, a.C, a.D, OMEGA)
        Gb = frequency_response(b.A, b.B, b.C, b.D, OMEGA)
        np.testing.assert_allclose(Ga, Gb, rtol=0, atol=1e-9 * np.abs(Gb).max())


def test_T9_option_a_equals_option_b_with_parametric_rotor_and_mass():
    """Option A with a parametric rotor inertia (own zero-field joint, not titop's), mass,
    spring and damper, on a pendulum: same model as option B and as the closed form."""
    from equilibrium_oracles import pendulum_tree

    m, Jr = lfr.ureal("m", 2.0, percent=30), lfr.ureal("Jr", 0.05, percent=50)
    Kp, Kd = lfr.ureal("Kp", 0.4, percent=50), lfr.ureal("Kd", 0.2, percent=50)
    a = equilibrium_lfr(pendulum_tree(m, 0.4, rotor=Jr, Kp=Kp, Kd=Kd), option="A")
    b = equilibrium_lfr(pendulum_tree(m, 0.4, rotor=Jr, Kp=Kp, Kd=Kd), option="B")
    for mass, rotor, kp, kd in [(1.5, 0.03, 0.3, 0.25), (2.5, 0.07, 0.5, 0.15)]:
        values = {"m": mass, "Jr": rotor, "Kp": kp, "Kd": kd}
        sa, sb = a.plant.evaluate(values), b.plant.evaluate(values)
        np.testing.assert_allclose(sa.A, sb.A, atol=1e-10)
        inertia = rotor + mass * 0.7**2
        np.testing.assert_allclose(sa.A[1], [-(mass * 9.81 * 0.7 * np.cos(0.4) + kp) / inertia, -kd / inertia],
                                   rtol=1e-10)


def test_T12_well_posed_over_the_box(hanging_model):
    """T12: every vertex of the 5 uncertain parameters x a 9 x 9 grid of angles (operating
    range of the control study and beyond) evaluates without an ill-posed loop."""
    arm = load_two_link_arm()
    ranges = arm.parameter_ranges()
    names = [k for k in ranges if k in hanging_model.plant.parameters]
    corners = np.array(np.meshgrid(*[[0, 1]] * len(names))).reshape(len(names), -1).T
    angles = np.deg2rad(np.linspace(-170, 170, 9))
    t1, t2 = np.meshgrid(angles, angles)
    values = {k: [] for k in names + ["theta1", "theta2"]}
    for corner in corners:
        for k, c in zip(names, corner):
            values[k].extend([ranges[k][c]] * t1.size)
        values["theta1"].extend(t1.ravel())
        values["theta2"].extend(t2.ravel())
    batch = hanging_model.plant.evaluate_batch({k: np.array(v) for k, v in values.items()})
    assert len(batch) == len(corners) * t1.size
    assert batch.valid.all()


@pytest.mark.parametrize("geometry, sigma0, sigma1, sigma10", [
    ("hanging", (0.0735, 0.0503), (0.0994, 0.0304), (0.0203, 0.0004)),
    ("upright", (0.0724, 0.0508), (0.2114, 0.0252), (0.0184, 0.0003)),
])
def test_T13_fig6_numbers(geometry, sigma0, sigma1, sigma10):
    """T13: sigma(G(j omega)) at (70 deg, 30 deg), nominal: spec 003 section 5.3 table (+-1e-4);
    300 samples of the uncertain parameters bracket the nominal curve."""
    model = two_link_arm_lfr(geometry)
    values = {"theta1": np.deg2rad(70.0), "theta2": np.deg2rad(30.0)}
    sys = model.plant.evaluate(values)
    G = frequency_response(sys.A, sys.B, sys.C[:2], sys.D[:2], np.array([0.0, 1.0, 10.0]))
    sv = np.linalg.svd(G, compute_uv=False)
    np.testing.assert_allclose(sv, [sigma0, sigma1, sigma10], atol=1e-4)
    rng = np.random.default_rng(300)
    arm = load_two_link_arm(geometry)
    ranges = arm.parameter_ranges()
    n = 300
    batch_values = {k: rng.uniform(lo, hi, n) for k, (lo, hi) in ranges.items() if k in model.plant.parameters}
    batch_values.update(theta1=np.full(n, values["theta1"]), theta2=np.full(n, values["theta2"]))
    batch = model.plant.evaluate_batch(batch_values)
    Gs = frequency_response(batch.A, batch.B, batch.C[:, :2], batch.D[:, :2], np.array([0.0]))
    smax = np.linalg.svd(Gs, compute_uv=False)[:, 0, 0]
    assert smax.min() < sigma0[0] < smax.max()


def test_named_signals_parameters_and_tan_quarter_variant():
    """Named I/O; tan(theta/4) (4 occurrences per DCM) reaches |theta| > 180 deg and agrees
    with tan(theta/2) where both are defined (1e-9)."""
    half = two_link_arm_lfr(uncertain=False)
    quarter = two_link_arm_lfr(uncertain=False, transform="tan_quarter")
    assert half.plant.input_names == ("T_J1", "T_J2")
    assert half.plant.output_names == ("theta_J1", "theta_J2", "dtheta_J1", "dtheta_J2")
    assert set(half.plant.parameters) == {"theta1", "theta2"}
    sizes_half = {b.parameter.name: b.size for b in half.plant.blocks}
    sizes_quarter = {b.parameter.name: b.size for b in quarter.plant.blocks}
    assert sizes_quarter["theta1"] > sizes_half["theta1"]
    values = {"theta1": 2.5, "theta2": -1.0}
    a, b = half.plant.evaluate(values), quarter.plant.evaluate(values)
    np.testing.assert_allclose(a.A, b.A, atol=1e-9 * np.abs(a.A).max())
    # 200 deg and -160 deg are the same configuration.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lfr.OutOfRangeWarning)
        c = quarter.plant.evaluate({"theta1": np.deg2rad(200.0), "theta2": -1.0})
    d = half.plant.evaluate({"theta1": np.deg2rad(-160.0), "theta2": -1.0})
    np.testing.assert_allclose(c.A, d.A, atol=1e-9 * np.abs(d.A).max())


def test_factory_rejects_bad_options():
    with pytest.raises(ValueError, match="transform"):
        two_link_arm_lfr(transform="tan_third")
    with pytest.raises(ValueError, match="angle_ranges"):
        two_link_arm_lfr(angle_ranges={"theta3": (0.0, 1.0)})
    with pytest.raises(ValueError, match="geometry"):
        two_link_arm_lfr("sideways")


def test_T9_and_T10_branched_tree_lfr_options_a_b_and_numeric():
    """A 4-joint tree with two joints on one body (parents -1, 0, 0, 1), all angles as
    tan(theta/2) parameters: option A = option B = the numeric recursion (1e-10 relative)."""
    from equilibrium_oracles import random_tree, tree_model

    rng = np.random.default_rng(3)
    tree = random_tree(4, rng)
    tree["parent"] = [-1, 0, 0, 1]
    tree["attach"] = [np.zeros(3)] + [rng.normal(size=3) for _ in range(3)]
    angles = [lfr.vreal(f"q{k}", 0.0, range=(-3.0, 3.0), transform="tan_half") for k in range(4)]
    a = equilibrium_lfr(tree_model(tree, angles), option="A")
    b = equilibrium_lfr(tree_model(tree, angles), option="B")
    from satdyn.equilibrium import equilibrium_linearisation

    for _ in range(3):
        q = rng.uniform(-3.0, 3.0, 4)
        values = {f"q{k}": q[k] for k in range(4)}
        lin = equilibrium_linearisation(tree_model(tree, q))
        for model in (a, b):
            sys = model.plant.evaluate(values)
            np.testing.assert_allclose(sys.A, lin.A, rtol=0, atol=1e-10 * np.abs(lin.A).max())
            np.testing.assert_allclose(sys.B, lin.B, rtol=0, atol=1e-10 * np.abs(lin.B).max())
