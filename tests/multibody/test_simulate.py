"""Simulation and physics invariants (spec 004 §8 items 2-5): analytic motions, conservation laws."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import satdyn.multibody as mb
from satdyn.spatial import classical_from_spatial_acceleration, dcm_from_quaternion

from .pin_oracle import random_state, random_tree


def pendulum(g=9.81, l=0.8, damping=0.0):
    b = mb.ModelBuilder(gravity=[0, -g, 0])
    b.add_body(mb.body("base", 1.0), mb.fixed_root())
    b.add_body(mb.body("bob", 1.5, com=[0, -l, 0]), mb.revolute_joint("th", [0, 0, 1], damping=damping), parent="base")
    return b.build()


def test_free_body_falls_with_g():
    """Classical acceleration of a free body's CoM in a uniform field is g (any attitude, any twist): 1e-12."""
    g = np.array([0.3, -9.81, 0.5])
    b = mb.ModelBuilder(gravity=g)
    b.add_body(mb.body("b", 3.0, inertia=np.diag([1.0, 2.0, 2.5])), mb.floating_root("b"))
    model = b.build()
    rng = np.random.default_rng(1)
    quat = rng.normal(size=4)
    q = np.r_[rng.normal(size=3), quat / np.linalg.norm(quat)]
    v = rng.normal(size=6)
    a = mb.forward_dynamics(model, q, v)
    classical = classical_from_spatial_acceleration(a, v)
    R = dcm_from_quaternion(q[3:])
    np.testing.assert_allclose(R @ classical[:3], g, atol=1e-12)


def test_pendulum_matches_analytic_ode():
    """theta'' = -(g/l) sin(theta) integrated independently; same tolerances, 1e-8 over 3 s."""
    g, l = 9.81, 0.8
    model = pendulum(g, l)
    r = mb.simulate(model, (0, 3.0), (np.array([1.2]), np.array([0.0])), t_eval=np.linspace(0, 3, 31),
                    rtol=1e-12, atol=1e-12)
    ref = solve_ivp(lambda t, x: [x[1], -(g / l) * np.sin(x[0])], (0, 3), [1.2, 0.0], method="DOP853",
                    rtol=1e-12, atol=1e-12, t_eval=np.linspace(0, 3, 31))
    np.testing.assert_allclose(r.coordinate("th"), ref.y[0], atol=1e-8)
    assert np.ptp(r.energy) < 1e-9


def test_prismatic_on_inclined_axis():
    """Point mass sliding on a fixed inclined axis t: x'' = g . t (1e-12)."""
    g = np.array([0, 0, -9.81])
    axis = np.array([1.0, 0.5, 2.0])
    b = mb.ModelBuilder(gravity=g)
    b.add_body(mb.body("base", 1.0), mb.fixed_root(rotation=dcm_from_quaternion([0.1, 0.2, 0.3, 0.9])))
    b.add_body(mb.body("m", 2.0), mb.prismatic_joint("x", axis), parent="base")
    model = b.build()
    P = model.joints[0].rotation
    a = mb.forward_dynamics(model, np.array([0.7]), np.array([1.3]))
    np.testing.assert_allclose(a, [g @ (P @ axis / np.linalg.norm(axis))], atol=1e-12)


def test_floating_tree_conserves_momenta_and_energy():
    """No gravity, no loads: inertial linear and angular momentum and energy constant.

    2 s at rtol 1e-11: 1e-8 relative.
    """
    rng = np.random.default_rng(3)
    model, pm, _, _ = random_tree(rng, 5, floating=True)
    q0, v0 = random_state(rng, model, pm)
    r = mb.simulate(model, (0, 2.0), (q0, v0), t_eval=np.linspace(0, 2, 11), rtol=1e-11, atol=1e-11)
    for series in (r.linear_momentum, r.angular_momentum):
        assert np.abs(series - series[0]).max() < 1e-8 * max(1.0, np.abs(series).max())
    assert np.ptp(r.energy) < 1e-8 * abs(r.energy[0])
    # the centre of mass moves uniformly
    com_velocity = r.linear_momentum[0] / model.total_mass
    np.testing.assert_allclose(r.center_of_mass, r.center_of_mass[0] + np.outer(r.t, com_velocity), atol=1e-8)


def test_weld_equals_rigid_union():
    """Spec §8.4: body A welded to B moves like one body with the combined mass properties (1e-12)."""
    from satdyn.spatial import composite_inertia
    R_ab = dcm_from_quaternion([0.3, -0.1, 0.2, 0.9])
    pos = np.array([0.4, -0.2, 0.7])
    b = mb.ModelBuilder(gravity=[0, 0, -9.81])
    b.add_body(mb.body("B", 2.0, com=[0.1, 0, 0], inertia=np.diag([1.0, 1.5, 2.0])), mb.floating_root("B"))
    b.add_body(mb.body("A", 1.0, com=[0, 0.2, 0], inertia=np.diag([0.3, 0.2, 0.1])),
               mb.weld_joint("w", rotation=R_ab), parent="B", position=pos)
    two = b.build()
    m, com, J = composite_inertia([2.0, 1.0], [[0.1, 0, 0], pos + R_ab @ [0, 0.2, 0]],
                                  [np.diag([1.0, 1.5, 2.0]), np.diag([0.3, 0.2, 0.1])], [np.eye(3), R_ab])
    b1 = mb.ModelBuilder(gravity=[0, 0, -9.81])
    b1.add_body(mb.body("U", m, com=com, inertia=J), mb.floating_root("U"))
    one = b1.build()
    rng = np.random.default_rng(4)
    quat = rng.normal(size=4)
    q = np.r_[rng.normal(size=3), quat / np.linalg.norm(quat)]
    v = rng.normal(size=6)
    tau = rng.normal(size=6)
    np.testing.assert_allclose(mb.forward_dynamics(two, q, v, tau), mb.forward_dynamics(one, q, v, tau), atol=1e-12)


def test_prescribed_root_acts_like_extra_gravity():
    """A root accelerating upward at c (prescribed) = a fixed root under gravity g + c (1e-12)."""
    c = 3.0

    def motion(t):
        return (np.array([0, 0.5 * c * t**2, 0]), np.eye(3), np.array([0, c * t, 0, 0, 0, 0]),
                np.array([0, c, 0, 0, 0, 0]))

    b = mb.ModelBuilder(gravity=[0, -9.81, 0])
    b.add_body(mb.body("base", 1.0), mb.prescribed_root(motion))
    b.add_body(mb.body("bob", 1.5, com=[0, -0.8, 0]), mb.revolute_joint("th", [0, 0, 1]), parent="base")
    moving = b.build()
    still = pendulum(9.81 + c, 0.8)
    q, v = np.array([0.4]), np.array([0.7])
    np.testing.assert_allclose(mb.forward_dynamics(moving, q, v, t=1.3), mb.forward_dynamics(still, q, v), atol=1e-12)


def test_time_dependent_wrench_and_progress():
    """A callable wrench equal to a constant one gives the same motion; progress reaches the end."""
    def make(wrench):
        b = mb.ModelBuilder()
        b.add_body(mb.body("b", 2.0, inertia=np.diag([1.0, 2.0, 3.0])), mb.floating_root("b"))
        b.add_external_wrench("b", wrench, position=[0.1, 0.2, 0.0], frame="inertial")
        return b.build()
    const = np.array([1.0, 0, 0, 0, 0, 0.2])
    m1, m2 = make(const), make(lambda t, pos, R: const)
    x0 = (m1.neutral_configuration(), np.zeros(6))
    seen = []
    r1 = mb.simulate(m1, (0, 1.0), x0, t_eval=[1.0])
    r2 = mb.simulate(m2, (0, 1.0), x0, t_eval=[1.0], progress=lambda t, tf: seen.append(t))
    np.testing.assert_allclose(r1.q, r2.q, atol=1e-12)
    assert seen and seen[-1] == pytest.approx(1.0) and np.all(np.diff(seen) >= 0)
    # The constant inertial force's work is in the energy (conservative): E constant (no torque part here).
    m3 = make(np.array([1.0, -2.0, 0.5, 0, 0, 0]))
    r3 = mb.simulate(m3, (0, 1.0), x0, t_eval=np.linspace(0, 1, 5), rtol=1e-11, atol=1e-11)
    assert np.ptp(r3.energy) < 1e-9


def test_spherical_spring_energy_and_damped_decay():
    b = mb.ModelBuilder()
    b.add_body(mb.body("base", 1.0), mb.fixed_root())
    b.add_body(mb.body("top", 1.0, com=[0, 0, 0.3], inertia=np.diag([0.1, 0.2, 0.15])),
               mb.spherical_joint("ball", stiffness=5.0), parent="base")
    model = b.build()
    quat = np.array([0.2, -0.1, 0.1, 1.0])
    x0 = (quat / np.linalg.norm(quat), np.array([0.3, -0.2, 0.5]))
    r = mb.simulate(model, (0, 2.0), x0, t_eval=np.linspace(0, 2, 11), rtol=1e-11, atol=1e-11)
    assert np.ptp(r.energy) < 1e-9
    np.testing.assert_allclose(np.linalg.norm(r.q, axis=1), 1.0, atol=1e-12)


def test_simulate_rejects_bad_inputs():
    model = pendulum()
    with pytest.raises(ValueError, match="t_span"):
        mb.simulate(model, (1.0, 0.0), (np.zeros(1), np.zeros(1)))
    with pytest.raises(ValueError, match="x0"):
        mb.simulate(model, (0, 1.0), np.zeros(3))
    with pytest.raises(ValueError, match="efforts"):
        mb.simulate(model, (0, 1.0), (np.zeros(1), np.zeros(1)), efforts=np.zeros(2))
    with pytest.raises(ValueError, match="coordinate"):
        mb.simulate(model, (0, 0.1), (np.zeros(1), np.zeros(1))).coordinate("nope")


def test_result_named_outputs_and_json():
    import json

    from satdyn.results import to_jsonable
    model = pendulum(damping=0.2)
    r = mb.simulate(model, (0, 0.5), (np.array([0.3]), np.array([0.0])), t_eval=[0.0, 0.25, 0.5])
    d = json.loads(json.dumps(to_jsonable(r)))
    assert set(d) >= {"t", "coordinates", "rates", "body_positions", "interface_wrenches", "energy",
                      "linear_momentum", "angular_momentum", "center_of_mass"}
    assert d["coordinates"]["th"][0] == pytest.approx(0.3)
    np.testing.assert_allclose(r.body_position("bob"), r.body_positions[:, 1])
    # At release (v = 0) the bob pulls on the pivot with m g cos(th) (sin th, -cos th), no moment (analytic).
    th, m, g = 0.3, 1.5, 9.81
    np.testing.assert_allclose(r.child_on_parent[0, 1], [m * g * np.cos(th) * np.sin(th), -m * g * np.cos(th) ** 2,
                                                         0, 0, 0, 0], atol=1e-12)
    assert np.all(np.diff(r.energy) < 0)


def test_euler_root_stops_before_gimbal_lock_and_keeps_the_trajectory():
    """A body spun about its y axis reaches pitch 90 deg at t = pi/2 / w: the run stops there cleanly."""
    b = mb.ModelBuilder()
    b.add_body(mb.body("b", 1.0, inertia=np.eye(3)), mb.floating_euler_root("b"))
    model = b.build()
    w = 1.0
    r = mb.simulate(model, (0, 3.0), (np.zeros(6), np.array([0, 0, 0, 0, w, 0])), t_eval=np.linspace(0, 3, 31))
    assert not r.success and "gimbal lock" in r.message
    assert r.t[-1] < np.pi / 2 and r.t.size > 10
    np.testing.assert_allclose(r.coordinate("b.theta"), w * r.t, atol=1e-8)


def test_inlined_quaternion_rate_equals_spatial():
    """The simulation's inlined quaternion kinematics equal satdyn.spatial.quaternion_derivative (unit q)."""
    from satdyn.multibody.joints import _quaternion_rate
    from satdyn.spatial import quaternion_derivative
    rng = np.random.default_rng(8)
    q = rng.normal(size=(5, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    w = rng.normal(size=(5, 3))
    np.testing.assert_allclose(_quaternion_rate(q, w), quaternion_derivative(q, w), atol=1e-15)
