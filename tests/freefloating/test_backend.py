"""Pinocchio back-end (backend="pinocchio") against the default pure-numpy path.

The two paths share nothing but the model parameters: numpy evaluates the paper's closed-form
blocks (eqs. 28-61, 103-110), Pinocchio its CRBA / RNEA / ABA and joint Jacobians on a
free-flyer tree.  Tolerances: H, C, J* are exact identities evaluated with O(1e2..1e3) entries,
so agreement to 1e-10 relative bounds the rounding of either route; simulations integrate the
same ODE at rtol 1e-11, so trajectories agree to the integrator's tolerance (1e-8 over a few
seconds of O(1) motion).
"""

import sys

import numpy as np
import pytest
from oracle import random_model, random_state

from satdyn.freefloating import (
    ComputedTorqueController,
    JointSequenceCommand,
    generalized_inertia,
    generalized_jacobian,
    reduced_forward_dynamics,
    reduced_inverse_dynamics,
    reduced_terms,
    simulate,
)
from satdyn.freefloating.backend import pinocchio_terms


@pytest.mark.parametrize("n,seed", [(1, 1), (4, 2), (7, 3)])
def test_pinocchio_backend_H_C_J_equal_numpy(n, seed):
    model = random_model(n, seed)
    rng = np.random.default_rng(seed)
    states = [random_state(rng, n) for _ in range(5)]
    r0 = np.array([s[0] for s in states])
    R0 = np.array([s[1] for s in states])
    q = np.array([s[2] for s in states])
    qd = np.array([s[3] for s in states])
    ref = reduced_terms(model, q, qd, r0, R0)
    pin_terms = pinocchio_terms(model, q, qd, r0, R0)
    scale = np.abs(ref.H).max()
    np.testing.assert_allclose(pin_terms.H, ref.H, atol=1e-10 * scale)
    np.testing.assert_allclose(pin_terms.C, ref.C, atol=1e-10 * max(1.0, np.abs(ref.C).max()))
    np.testing.assert_allclose(generalized_inertia(model, q, r0, R0, backend="pinocchio"), ref.H, atol=1e-10 * scale)
    for link, point in ((None, None), (n, None), (0, None), (max(n - 1, 1), [0.1, -0.2, 0.3])):
        J_np = generalized_jacobian(model, q, link, point, r0, R0)
        J_pin = generalized_jacobian(model, q, link, point, r0, R0, backend="pinocchio")
        np.testing.assert_allclose(J_pin, J_np, atol=1e-10 * max(1.0, np.abs(J_np).max()))
    tau = rng.normal(size=(5, n))
    qdd = reduced_forward_dynamics(model, q, qd, tau)
    np.testing.assert_allclose(reduced_forward_dynamics(model, q, qd, tau, backend="pinocchio"), qdd,
                               atol=1e-9 * max(1.0, np.abs(qdd).max()))
    np.testing.assert_allclose(reduced_inverse_dynamics(model, q, qd, qdd, backend="pinocchio"), tau, atol=1e-9)


def test_pinocchio_backend_simulation_equals_numpy_reduced_closed_loop():
    model = random_model(3, 11)
    ctrl = ComputedTorqueController(JointSequenceCommand(3, joints=(0, 2), rate=0.3))
    kw = dict(controller=ctrl, t_final=6.0, q0=[0.2, -0.1, 0.4], base_quaternion=[0.1, 0.2, -0.3, 0.9],
              rtol=1e-11, atol=1e-13, sample_dt=0.5)
    a = simulate(model, **kw)
    b = simulate(model, backend="pinocchio", **kw)
    assert a.layout == b.layout == "reduced"
    np.testing.assert_allclose(b.q, a.q, atol=1e-8)
    np.testing.assert_allclose(b.base_quaternion, a.base_quaternion, atol=1e-8)
    np.testing.assert_allclose(b.base_position, a.base_position, atol=1e-8)


def test_pinocchio_backend_simulation_equals_numpy_flying_with_wheels():
    # full (6+N) layout: external base force (translation-flying) and reaction wheels
    model = random_model(2, 12)
    kw = dict(mode="translation-flying", t_final=3.0, qdot0=[0.3, -0.2], base_twist0=[0.01, 0, 0, 0.02, -0.01, 0.03],
              base_wrench=lambda t, y: (np.array([1.0, -2.0, 0.5]) * np.cos(t), np.zeros(3)),
              wheel_torque=lambda t, y: np.array([0.05, -0.1, 0.02]) * np.sin(2 * t),
              joint_torque=lambda t, q, qd: np.array([0.5, -0.3]) * np.sin(t),
              rtol=1e-11, atol=1e-13, sample_dt=0.5)
    a = simulate(model, **kw)
    b = simulate(model, backend="pinocchio", **kw)
    assert a.layout == b.layout == "full"
    for field in ("q", "qdot", "base_position", "base_quaternion", "base_twist"):
        np.testing.assert_allclose(getattr(b, field), getattr(a, field), atol=1e-8, err_msg=field)


def test_backend_keyword_is_checked():
    model = random_model(2, 13)
    with pytest.raises(ValueError, match="backend"):
        generalized_inertia(model, np.zeros(2), backend="torch")
    with pytest.raises(ValueError, match="backend"):
        simulate(model, t_final=1.0, backend="mujoco")
    with pytest.raises(ValueError, match="link"):
        pinocchio_terms(model, np.zeros(2), link=5)
    with pytest.raises(ValueError, match="local_point"):
        pinocchio_terms(model, np.zeros(2), local_point=[0.0, 1.0])
    with pytest.raises(TypeError, match="model"):
        pinocchio_terms("arm", np.zeros(2))


def test_missing_pinocchio_gives_clear_error(monkeypatch):
    model = random_model(2, 14)
    monkeypatch.setitem(sys.modules, "pinocchio", None)       # makes `import pinocchio` raise ImportError
    from satdyn.freefloating import backend as backend_module
    monkeypatch.setattr(backend_module, "_CACHE", type(backend_module._CACHE)())
    with pytest.raises(ImportError, match="pip install pin"):
        generalized_inertia(model, np.zeros(2), backend="pinocchio")
    # the default path does not need it
    assert generalized_inertia(model, np.zeros(2)).shape == (2, 2)
