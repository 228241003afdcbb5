"""The independent references checked against each other (no LFR involved).

* analytic arm model (spec 003 section 5.3) vs Pinocchio (RNEA / CRBA / ABA): two
  derivations that share nothing but the data;
* the product's numerical trim + finite-difference linearisation (study comparator) vs the
  analytic linear model;
* the Table 1 data file and the named options.
"""

import numpy as np
import pinocchio as pin
import pytest

from equilibrium_oracles import pinocchio_arm, pinocchio_trim_linearise
from satdyn.equilibrium import (GEOMETRIES, arm_gravity_stiffness, arm_linear_state_space, arm_mass_matrix,
                                arm_static_torques, load_two_link_arm, trim_and_linearise)
from satdyn.equilibrium.reference import arm_inverse_dynamics, frequency_response, relative_error


def test_table1_data_and_options():
    arm = load_two_link_arm()
    # Table 1 transcribed (spec 003 section 5.1); g0 default 9.81 (erratum B16).
    assert (arm.m1, arm.m2, arm.m3, arm.J1, arm.J2, arm.L1, arm.L2, arm.rho1, arm.rho2) == (
        3.0, 2.0, 5.0, 0.2, 0.1, 1.0, 1.0, 0.3, 0.5)
    assert (arm.stiffness, arm.damping, arm.rotor_inertia, arm.g0) == (0.1, 0.1, 0.0, 9.81)
    expected = {"m1": (2.4, 3.6), "J1": (0.16, 0.24), "rho1": (0.24, 0.36), "L2": (0.8, 1.2), "m3": (4.0, 6.0)}
    ranges = arm.parameter_ranges()
    assert sorted(ranges) == sorted(expected)
    for name, bounds in expected.items():
        assert ranges[name] == pytest.approx(bounds)
    assert load_two_link_arm(g0="standard").g0 == 9.80665
    assert load_two_link_arm(g0=9.7).g0 == 9.7
    assert [load_two_link_arm(g).zero_angle for g in GEOMETRIES] == pytest.approx([0.0, np.pi, np.pi / 2])


@pytest.mark.parametrize("bad", [dict(geometry="sideways"), dict(g0="moon")])
def test_bad_options_name_the_argument(bad):
    with pytest.raises(ValueError, match=list(bad)[0]):
        load_two_link_arm(**bad)


def test_with_values_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown arm parameters"):
        load_two_link_arm().with_values(mass=3.0)


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_analytic_model_equals_pinocchio(geometry):
    """Static torques = RNEA at rest, M = CRBA, K_g = central differences of RNEA, full
    non-linear inverse dynamics = RNEA at random states; 1e-9 covers the O(h^2) difference
    error of K (h = 1e-6, third derivatives ~ 100 N m)."""
    rng = np.random.default_rng(7)
    for arm in load_two_link_arm(geometry).sample(5, rng):
        model = pinocchio_arm(arm)
        data = model.createData()
        for _ in range(4):
            q, v, a = rng.uniform(-np.pi, np.pi, 2), rng.normal(size=2), rng.normal(size=2)
            zero = np.zeros(2)
            np.testing.assert_allclose(arm_static_torques(arm, q), pin.rnea(model, data, q, zero, zero),
                                       rtol=0, atol=1e-12)
            np.testing.assert_allclose(arm_mass_matrix(arm, q[1]), pin.crba(model, data, q), rtol=0, atol=1e-12)
            np.testing.assert_allclose(arm_inverse_dynamics(arm, q, v, a), pin.rnea(model, data, q, v, a),
                                       rtol=0, atol=1e-11)
            h = 1e-6
            K = np.column_stack([(pin.rnea(model, data, q + h * e, zero, zero)
                                  - pin.rnea(model, data, q - h * e, zero, zero)) / (2 * h) for e in np.eye(2)])
            np.testing.assert_allclose(arm_gravity_stiffness(arm, q), K, rtol=0, atol=1e-7)


def test_spec_reference_values_at_fig6_point():
    """Spec 003 section 5.3 table (hanging and upright, nominal, (70 deg, 30 deg))."""
    th = np.deg2rad([70.0, 30.0])
    hang, up = load_two_link_arm("hanging"), load_two_link_arm("upright")
    np.testing.assert_allclose(arm_static_torques(hang, th), [130.791, 57.966], atol=1e-3)
    np.testing.assert_allclose(arm_static_torques(up, th), [-130.791, -57.966], atol=1e-3)
    np.testing.assert_allclose(arm_mass_matrix(hang, th[1]), [[23.4623, 10.7962], [10.7962, 5.6]], atol=1e-4)
    np.testing.assert_allclose(arm_gravity_stiffness(hang, th) + 0.1 * np.eye(2),
                               [[16.3853, -10.2209], [-10.2209, -10.1209]], atol=1e-4)
    A, B, C, D = arm_linear_state_space(hang, th)
    poles = np.sort_complex(np.linalg.eigvals(A))
    np.testing.assert_allclose(poles, np.sort_complex([-1.5869, 1.5345, -0.0718 + 2.7348j, -0.0718 - 2.7348j]),
                               atol=1e-4)


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_numerical_trim_linearisation_equals_analytic(geometry):
    """The study's comparator (root finding + central differences, h = 1e-5) against the
    analytic linear model: the difference is the O(h^2) + O(eps/h) error, ~1e-8."""
    rng = np.random.default_rng(11)
    for arm in load_two_link_arm(geometry).sample(3, rng):
        th = rng.uniform(-3.0, 3.0, 2)
        tl = trim_and_linearise(arm, th)
        A, B, C, D = arm_linear_state_space(arm, th)
        assert tl.residual < 1e-10
        np.testing.assert_allclose(tl.torque, arm_static_torques(arm, th), rtol=1e-12, atol=1e-10)
        np.testing.assert_allclose(tl.A, A, rtol=0, atol=1e-7)
        np.testing.assert_allclose(tl.B, B, rtol=0, atol=1e-9)
        omega = np.logspace(-2, 2, 30)
        err = relative_error(frequency_response(tl.A, tl.B, tl.C[:2], tl.D[:2], omega),
                             frequency_response(A, B, C[:2], D[:2], omega))
        assert err < 1e-6


def test_pinocchio_trim_linearisation_equals_analytic():
    """The test oracle itself against the analytic model (so the LFR tests can trust it)."""
    arm = load_two_link_arm().with_values(rotor_inertia=0.05)
    th = np.array([0.4, -1.3])
    torque, A, B = pinocchio_trim_linearise(arm, th)
    A0, B0, _, _ = arm_linear_state_space(arm, th)
    np.testing.assert_allclose(torque, arm_static_torques(arm, th), atol=1e-10)
    np.testing.assert_allclose(A, A0, atol=1e-7)
    np.testing.assert_allclose(B, B0, atol=1e-9)


def test_trim_and_linearise_rejects_bad_input():
    arm = load_two_link_arm()
    with pytest.raises(ValueError, match="theta"):
        trim_and_linearise(arm, [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="step"):
        trim_and_linearise(arm, [0.1, 0.2], step=0.0)
