"""Closed-loop and free-motion integration tests (spec 002 §7 tests 9-15, §4.4 reference behaviour).

One simulation per scenario is shared by several assertions (module-scoped fixtures).
References: physical invariants (energy, momenta, their bookkeeping under control), the
Lyapunov identity of the proof, and the spec's prototype numbers (§4.4: tolerances ±30 %
for settling times as the issue asks, tighter where the spec quotes exact digits).
"""

import dataclasses

import numpy as np
import pytest
from scipy.integrate import cumulative_simpson, simpson

from satdyn.detumbling import dynamics as dyn
from satdyn.detumbling import run_metrics, simulate, simulate_free_motion
from satdyn.detumbling.client import HingeParams

# ------------------------------------------------------------------------------------------- free motion


@pytest.fixture(scope="module")
def free_run(scenario):
    c = scenario.client
    undamped = c.with_hinge(HingeParams(c.hinge.stiffness, np.zeros(3)))
    t_eval = np.linspace(0.0, 20.0, 201)
    return undamped, simulate_free_motion(undamped, scenario.initial, 20.0, t_eval=t_eval)


def test_free_motion_conserves_energy_and_momenta(free_run):
    c, (t, p, R1, R2, nu) = free_run
    E = np.array([dyn.energy(c, a, b, n) for a, b, n in zip(R1, R2, nu)])
    L = np.array([dyn.linear_momentum(c, a, b, n) for a, b, n in zip(R1, R2, nu)])
    H = np.array([dyn.angular_momentum(c, q, a, b, n) for q, a, b, n in zip(p, R1, R2, nu)])
    # rtol 1e-10 integration: invariants drift far below 1e-7 relative (spec §7.9)
    assert np.abs(E - E[0]).max() < 1e-7 * E[0]
    assert np.abs(L - L[0]).max() < 1e-7 * np.linalg.norm(L[0])
    assert np.abs(H - H[0]).max() < 1e-7 * np.linalg.norm(H[0])
    # spec §4.4 regression values (they follow from the §2.5 resolutions)
    assert E[0] == pytest.approx(81.7002585, abs=1e-6)
    np.testing.assert_allclose(L[0], [-65.17, 1.08, -3.40], atol=0.006)
    np.testing.assert_allclose(H[0], [10.85489, 26.76359, -58.39251], atol=1e-5)
    assert np.linalg.norm(dyn.hinge_angle(R1[-1], R2[-1])) == pytest.approx(2.17, abs=0.01)


def test_free_motion_with_damping_dissipates_and_conserves_momenta(scenario):
    c = scenario.client.with_hinge(dataclasses.replace(scenario.client.hinge, friction=np.full(3, 0.05)))
    t, p, R1, R2, nu = simulate_free_motion(c, scenario.initial, 10.0, t_eval=np.linspace(0, 10, 101), rtol=1e-9,
                                            atol=1e-11)
    E = np.array([dyn.energy(c, a, b, n) for a, b, n in zip(R1, R2, nu)])
    L = np.array([dyn.linear_momentum(c, a, b, n) for a, b, n in zip(R1, R2, nu)])
    H = np.array([dyn.angular_momentum(c, q, a, b, n) for q, a, b, n in zip(p, R1, R2, nu)])
    assert np.all(np.diff(E) < 1e-9)
    assert E[-1] < E[0] - 0.1  # the damper and friction did dissipate
    assert np.abs(L - L[0]).max() < 1e-6 * np.linalg.norm(L[0])
    assert np.abs(H - H[0]).max() < 1e-6 * np.linalg.norm(H[0])


# --------------------------------------------------------------------------------- known-parameter B


@pytest.fixture(scope="module")
def known_run(scenario):
    return simulate(scenario, "known")


def test_known_parameter_B(known_run, scenario):
    r = known_run
    assert r.status == "completed" and r.t[-1] == pytest.approx(30.0)
    # V(0) = kinetic energy (nu_r(0) = 0), spec §4.4
    assert r.V[0] == pytest.approx(81.7002585, abs=1e-6)
    # strictly decreasing while V is above round-off
    dV = np.diff(r.V)
    assert np.all(dV[r.V[:-1] > 1e-10] < 0)
    assert dV.max() < 1e-12
    # V_dot = -s^T (K + D) s: V(t) - V(0) equals the integral of the analytic rate (cumulative Simpson on
    # the 0.01 s grid: the ~0.05 s initial transient limits it to ~1e-5 of V(0); the exact instantaneous
    # identity is test_controllers.py::test_lyapunov_rate_identity)
    assert np.abs(r.V - r.V[0] - cumulative_simpson(r.V_rate, x=r.t, initial=0.0)).max() < 5e-5 * r.V[0]
    # convergence to rest at the desired pose (spec §7.11)
    assert np.linalg.norm(r.nu[-1]) < 1e-4
    assert np.linalg.norm(r.position_error[-1]) < 1e-4
    assert np.linalg.norm(r.hinge_angle[-1]) < 1e-4
    m = run_metrics(r)
    for key, ref in {"v": 6.0, "omega1": 4.4, "omega2": 5.2}.items():
        assert m.settling_time_s[key] == pytest.approx(ref, rel=0.3)
    assert m.peak["force"] == pytest.approx(58.5, rel=0.1)


def test_known_parameter_no_adaptation(known_run):
    np.testing.assert_array_equal(known_run.pi_hat[-1, 0], known_run.pi_true)
    np.testing.assert_array_equal(known_run.d_hat[-1], known_run.d_true)


# ---------------------------------------------------------------------------------------- adaptive B


@pytest.fixture(scope="module")
def adaptive_run(scenario):
    return simulate(scenario, "B")


def test_adaptive_B_lyapunov(adaptive_run):
    r = adaptive_run
    # spec §4.4: V 203.9 -> 134.9, monotone
    assert r.V[0] == pytest.approx(203.9, abs=0.1)
    assert r.V[-1] == pytest.approx(134.9, abs=0.5)
    assert np.diff(r.V).max() < 1e-6
    assert np.abs(r.V - r.V[0] - cumulative_simpson(r.V_rate, x=r.t, initial=0.0)).max() < 5e-5 * r.V[0]
    assert np.all(r.V > 0)


def test_adaptive_B_converges(adaptive_run):
    r = adaptive_run
    m = run_metrics(r)
    assert r.status == "completed"
    for key in ("v", "omega1", "omega2"):
        assert m.final[key] < 5e-3
    assert np.abs(r.wrenches[-1]).max() < 0.5  # tug forces and torques -> 0 (Figs. 5, 6)
    assert np.linalg.norm(r.tug_twists[-1], axis=1).max() < 5e-3  # tug velocities -> 0 (Figs. 10, 11)
    # settling times within +-30 % of spec §4.4 (omega 1.3 s, 1.3 s; v 6.2 s)
    for key, ref in {"v": 6.2, "omega1": 1.3, "omega2": 1.3}.items():
        assert m.settling_time_s[key] == pytest.approx(ref, rel=0.3)
    assert m.peak["force"] == pytest.approx(52, rel=0.1)
    assert m.peak["torque1"] == pytest.approx(126, rel=0.1)
    assert m.peak["torque2"] == pytest.approx(68, rel=0.1)


def test_adaptive_B_estimates_bounded(adaptive_run):
    r = adaptive_run
    assert np.linalg.norm(r.pi_hat, axis=2).max() < 10 * np.linalg.norm(r.pi_true)
    assert np.abs(r.d_hat).max() < 0.2  # spec §4.4: d_hat stays within 0.2 m of 0
    # estimates of entries a tug never uses stay put (zero regressor rows): tug 1 never adapts j2
    np.testing.assert_array_equal(r.pi_hat[:, 0, 14:20], np.broadcast_to(r.pi_hat[0, 0, 14:20], (r.t.size, 6)))


def test_momentum_bookkeeping_under_control(scenario):
    """L(T) - L(0) = int (f1 + f2) dt and H_O(T) - H_O(0) = int sum_i (p + R_i d_i) x f_i + tau_i dt.

    Own 2 s run sampled every 1 ms (the first transient has a ~0.05 s time scale): Simpson's error
    ~ dt^4 |d4f/dt4| T is then ~1e-8 of the momenta, well inside the 1e-6 of spec test 10.
    """
    sc = dataclasses.replace(scenario, simulation=dataclasses.replace(scenario.simulation, sample_dt=1e-3))
    r = simulate(sc, "B", duration=2.0)
    c = scenario.client
    L = np.array([dyn.linear_momentum(c, a, b, v) for a, b, v in zip(r.R1, r.R2, r.nu)])
    H = np.array([dyn.angular_momentum(c, q, a, b, v) for q, a, b, v in zip(r.position, r.R1, r.R2, r.nu)])
    f = r.wrenches[:, :, :3]
    moment = np.zeros((r.t.size, 3))
    for i, R in enumerate((r.R1, r.R2)):
        arm = r.position + np.einsum("nij,j->ni", R, c.grasps[i])  # true grasp points
        moment += np.cross(arm, f[:, i]) + r.wrenches[:, i, 3:]
    assert np.linalg.norm(L[-1] - L[0]) > 10  # the tugs did change the momenta
    np.testing.assert_allclose(L[-1] - L[0], simpson(f.sum(axis=1), x=r.t, axis=0), atol=1e-6 * np.abs(L[0]).max())
    np.testing.assert_allclose(H[-1] - H[0], simpson(moment, x=r.t, axis=0), atol=1e-6 * np.abs(H[0]).max())


# -------------------------------------------------------------------------------- robustness (test 14)

def _variant(scenario, name):
    if name == "friction":
        hinge = dataclasses.replace(scenario.client.hinge, friction=np.full(3, 0.05))
        return dataclasses.replace(scenario, client=scenario.client.with_hinge(hinge))
    if name == "hinge x100":
        return scenario.with_hinge_scale(100.0)
    if name == "pi_hat(0) = 0":
        return dataclasses.replace(scenario, estimate_fraction=0.0)
    workload = float(name.split("=")[1])
    return dataclasses.replace(scenario, gains=dataclasses.replace(scenario.gains, workload=workload))


@pytest.mark.parametrize("name", [
    "friction", "pi_hat(0) = 0", pytest.param("c=0.3", marks=pytest.mark.slow),
    pytest.param("hinge x100", marks=pytest.mark.slow), pytest.param("c=0.7", marks=pytest.mark.slow)])
def test_robustness_smoke(scenario, name):
    """Each variant keeps V monotone and detumbles (|v|, |omega_i| < 5e-3 at 30 s). d_hat(0) = 0 throughout.

    Two variants run by default; c = 0.3, c = 0.7 and hinge x100 are slow-marked (they pass: `-m slow`).
    """
    variant = _variant(scenario, name)
    # logged every 0.05 s (V monotonicity is a property of the flow; a coarser grid only saves logging time)
    variant = dataclasses.replace(variant, simulation=dataclasses.replace(variant.simulation, sample_dt=0.05))
    r = simulate(variant, "B")
    assert r.status == "completed"
    assert np.diff(r.V).max() < 1e-6
    m = run_metrics(r)
    for key in ("v", "omega1", "omega2"):
        assert m.final[key] < 5e-3


# ---------------------------------------------------------------- controller A, documented (test 15)

def test_controller_A_fails_with_table_I_hinge(scenario):
    """Expected behaviour, not a bug: the paper's composite controller does not stop Link-2 with the
    Table-I hinge (k <= 0.5 N m/rad); |theta*| runs to pi and the run stops there (spec §3.3)."""
    r = simulate(scenario, "A")
    assert r.status == "hinge_angle_limit"
    assert np.linalg.norm(r.hinge_angle[-1]) > np.pi - 0.1
    assert np.linalg.norm(r.nu[-1, 6:9]) > 0.5  # Link-2 still tumbling
    assert np.diff(r.V).max() > 0.1  # and no Lyapunov decrease either


def test_baseline_R_fails_with_table_I_hinge(scenario):
    r = simulate(scenario, "R")
    assert r.status == "hinge_angle_limit"


@pytest.mark.slow
def test_controller_A_works_with_stiff_hinge(scenario):
    """Hinge stiffness and damping x100: A detumbles both links (|omega_i| < 0.01 rad/s by 20 s)."""
    r = simulate(scenario.with_hinge_scale(100.0), "A")
    assert r.status == "completed"
    late = r.t >= 20.0
    assert np.linalg.norm(r.nu[late, 3:6], axis=1).max() < 0.01
    assert np.linalg.norm(r.nu[late, 6:9], axis=1).max() < 0.01


# ------------------------------------------------------------------------ frame invariance (test 16)

def test_frame_invariance(scenario):
    """Rotating the world frame (initial state, p_d, R_d) rotates the trajectory; V and estimates unchanged."""
    from satdyn.detumbling import DesiredPose, InitialState
    from satdyn.spatial import dcm_from_quaternion, quaternion_from_dcm, so3_exp

    Q = so3_exp(np.array([0.3, -1.2, 0.8]))
    ini = scenario.initial
    rotated = dataclasses.replace(
        scenario,
        initial=InitialState(position=Q @ np.array([0.1, -0.2, 0.3]),
                             attitude1=quaternion_from_dcm(Q @ dcm_from_quaternion(ini.attitude1)),
                             attitude2=quaternion_from_dcm(Q @ dcm_from_quaternion(ini.attitude2)),
                             velocity=Q @ ini.velocity, omega1=Q @ ini.omega1, omega2=Q @ ini.omega2),
        desired=DesiredPose(Q @ scenario.desired.position, Q @ scenario.desired.attitude))
    base = dataclasses.replace(scenario, initial=dataclasses.replace(ini, position=np.array([0.1, -0.2, 0.3])))
    # tight solver tolerances: the two runs take different adaptive steps, and their difference shrinks
    # with rtol (1e-6 at rtol 1e-8, 1e-10 at 1e-12), so only a frame-dependent bug survives 1e-7
    tight = dict(simulation=dataclasses.replace(scenario.simulation, rtol=1e-11, atol=1e-13))
    a = simulate(dataclasses.replace(base, **tight), "B", duration=1.0)
    b = simulate(dataclasses.replace(rotated, **tight), "B", duration=1.0)
    np.testing.assert_allclose(b.position, a.position @ Q.T, atol=1e-9)
    np.testing.assert_allclose(b.R1, Q @ a.R1, atol=1e-9)
    np.testing.assert_allclose(b.R2, Q @ a.R2, atol=1e-9)
    np.testing.assert_allclose(b.nu.reshape(-1, 3, 3), a.nu.reshape(-1, 3, 3) @ Q.T, atol=1e-7)
    np.testing.assert_allclose(b.wrenches.reshape(-1, 2, 2, 3), a.wrenches.reshape(-1, 2, 2, 3) @ Q.T, atol=1e-6)
    np.testing.assert_allclose(b.V, a.V, rtol=1e-9)
    np.testing.assert_allclose(b.pi_hat, a.pi_hat, atol=1e-6)
    np.testing.assert_allclose(b.d_hat, a.d_hat, atol=1e-9)
    assert np.abs(b.nu - a.nu).max() > 0.1  # the frames really differ


def test_fixed_step_rk4_matches_adaptive_solver(scenario):
    """The RK4 option (2 ms, MuJoCo-like step) follows the DOP853 run (rtol 1e-8): global error ~ h^4."""
    rk4 = dataclasses.replace(scenario, simulation=dataclasses.replace(scenario.simulation, method="RK4"))
    a = simulate(scenario, "B", duration=2.0)
    b = simulate(rk4, "B", duration=2.0)
    np.testing.assert_array_equal(a.t, b.t)
    assert b.n_rhs == 4 * 1000
    assert np.abs(a.nu - b.nu).max() < 1e-4
    assert np.abs(a.V - b.V).max() < 1e-4 * a.V[0]
