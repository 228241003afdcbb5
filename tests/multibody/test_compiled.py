"""Compiled single-state dynamics and integration (numba) against Pinocchio and the numpy paths.

* Right-hand side, mass matrix, bias: random trees (revolute / prismatic / weld, oblique and
  frame-aligned axes, fixed or floating root, gravity) against Pinocchio's aba, crba and
  nonLinearEffects; with springs, dampers and constant wrenches (which Pinocchio's models here
  do not carry) against the batched numpy sweep. Same equations in a different order:
  1e-11 relative (a few hundred ulps through a 12-body recursion).
* Simulation: the compiled DOP853 / RK45 against ``solve_ivp`` over ``pin.aba`` with the same
  method and tolerances, and both against a reference at rtol = atol = 1e-13. The local error
  per step is held at ~1e-10 (rtol = atol); over 1 s (~100-300 accepted steps) the global error
  is at most steps x 1e-10 x exp(lambda t) with the trees' growth rate lambda <= 5 /s, i.e.
  <= 300 x 1e-10 x e^5 ~ 5e-6: both integrators must stay within 5e-6 of the reference (they
  are ~1e-9 from it in practice), and the two step sequences are the same algorithm.
"""

from dataclasses import replace

import numpy as np
import pinocchio as pin
import pytest
from scipy.integrate import solve_ivp

import satdyn.multibody as mb
from satdyn.multibody import compiled as compiled_module
from satdyn.multibody.compiled_model import compile_model
from satdyn.multibody.model import ExternalWrench
from satdyn.multibody.simulate import state_derivative

from .pin_oracle import random_tree

pytestmark = pytest.mark.skipif(not compiled_module.HAVE_NUMBA, reason="numba is not installed")

KINDS = ("revolute", "prismatic", "weld")


def _state(rng, model):
    q = rng.uniform(-1.0, 1.0, model.nq)
    if model.is_floating:
        q[3:7] /= np.linalg.norm(q[3:7])
    return q, rng.normal(size=model.nv)


def with_constant_loads(rng, model):
    """``model`` with three random constant wrenches: on the root (inertial components) and two on
    the last body (body and inertial components)."""
    last = model.n_bodies - 1
    return replace(model, external_wrenches=(
        ExternalWrench(0, rng.normal(size=3), rng.normal(size=6), "inertial"),
        ExternalWrench(last, rng.normal(size=3), rng.normal(size=6), "body"),
        ExternalWrench(last, rng.normal(size=3), rng.normal(size=6), "inertial")))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("floating", [False, True])
def test_kernels_match_pinocchio(seed, floating):
    rng = np.random.default_rng(40 + seed)
    g = rng.normal(size=3) * 5.0
    model, pm = random_tree(rng, 12, floating=floating, gravity=g, kinds=KINDS, aligned_axes=seed == 1)[:2]
    pd = pm.createData()
    kernels = compile_model(model)
    for _ in range(3):
        q, v = _state(rng, model)
        tau = rng.normal(size=model.nv)
        a_pin = pin.aba(pm, pd, q, v, tau).copy()
        dx = kernels.state_derivative(np.concatenate([q, v]), tau)
        assert np.abs(dx[model.nq:] - a_pin).max() <= 1e-11 * max(1.0, np.abs(a_pin).max())
        M = pin.crba(pm, pd, q).copy()
        M = np.triu(M) + np.triu(M, 1).T
        assert np.abs(kernels.mass_matrix(q) - M).max() <= 1e-11 * np.abs(M).max()
        b = pin.nonLinearEffects(pm, pd, q, v).copy()
        assert np.abs(kernels.nonlinear_effects(q, v) - b).max() <= 1e-11 * max(1.0, np.abs(b).max())


@pytest.mark.parametrize("floating", [False, True])
def test_kernels_with_springs_and_loads_match_the_numpy_sweep(floating):
    rng = np.random.default_rng(7 + floating)
    model = with_constant_loads(rng, random_tree(rng, 8, floating=floating, gravity=rng.normal(size=3), kinds=KINDS,
                                                 damping=True)[0])
    kernels = compile_model(model)
    for _ in range(5):
        q, v = _state(rng, model)
        if floating:
            q[3:7] *= 1.01   # off the unit sphere: the norm-restoring term of the quaternion rate
        x, tau = np.concatenate([q, v]), rng.normal(size=model.nv)
        expected = state_derivative(model, 0.0, x, tau)
        assert np.abs(kernels.state_derivative(x, tau) - expected).max() <= 1e-11 * np.abs(expected).max()


def _pin_solution(model, pm, x0, tau, t_eval, method, tol):
    pd = pm.createData()
    nq = model.nq

    def rhs(t, x):
        q, v = x[:nq], x[nq:]
        if model.is_floating:
            qn = q / np.r_[1, 1, 1, np.full(4, np.linalg.norm(q[3:7])), np.ones(nq - 7)]
            R = pin.Quaternion(qn[6], qn[3], qn[4], qn[5]).toRotationMatrix()
            x_, y_, z_, w_ = q[3:7]
            wx, wy, wz = v[3:6]
            quat_dot = 0.5 * np.array([w_ * wx + y_ * wz - z_ * wy, w_ * wy + z_ * wx - x_ * wz,
                                       w_ * wz + x_ * wy - y_ * wx, -x_ * wx - y_ * wy - z_ * wz])
            dq = np.concatenate([R @ v[:3], quat_dot + (1.0 - q[3:7] @ q[3:7]) * q[3:7], v[6:]])
            return np.concatenate([dq, pin.aba(pm, pd, qn, v, tau)])
        return np.concatenate([v, pin.aba(pm, pd, q, v, tau)])

    sol = solve_ivp(rhs, (t_eval[0], t_eval[-1]), x0, method=method, t_eval=t_eval, rtol=tol, atol=tol)
    assert sol.success
    return sol.y.T


@pytest.mark.parametrize("method", ["DOP853", "RK45"])
@pytest.mark.parametrize("floating", [False, True])
def test_simulation_follows_pinocchio_integration(method, floating):
    rng = np.random.default_rng(11 + floating)
    model, pm = random_tree(rng, 6, floating=floating, gravity=[0.0, 0.0, -9.81], kinds=KINDS)[:2]
    q0, v0 = _state(rng, model)
    x0, tau = np.concatenate([q0, v0]), rng.normal(size=model.nv)
    t_eval = np.linspace(0.0, 1.0, 11)
    reference = _pin_solution(model, pm, x0, tau, t_eval, "DOP853", 1e-13)
    peer = _pin_solution(model, pm, x0, tau, t_eval, method, 1e-10)
    ours = mb.simulate(model, (0.0, 1.0), x0, tau, t_eval=t_eval, method=method, rtol=1e-10, atol=1e-10)
    assert ours.success
    got = np.concatenate([ours.q, ours.v], axis=1)
    assert np.abs(peer - reference).max() < 5e-6
    assert np.abs(got - reference).max() < 5e-6
    # the numpy path (compiled=False: solve_ivp over the lean sweep) is the same trajectory too
    numpy_path = mb.simulate(model, (0.0, 1.0), x0, tau, t_eval=t_eval, method=method, compiled=False)
    assert np.abs(np.concatenate([numpy_path.q, numpy_path.v], axis=1) - reference).max() < 5e-6


def test_batch_simulation_follows_pinocchio_integration():
    rng = np.random.default_rng(5)
    model, pm = random_tree(rng, 5, floating=True, gravity=[0.0, 0.0, -9.81], kinds=KINDS)[:2]
    X0 = np.array([np.concatenate(_state(rng, model)) for _ in range(4)])
    taus = rng.normal(size=(4, model.nv))
    t_eval = np.linspace(0.0, 0.5, 6)
    batch = mb.simulate_batch(model, (0.0, 0.5), X0, taus, t_eval=t_eval)
    assert batch.success.all() and batch.q.shape == (4, 6, model.nq)
    for m in range(4):
        reference = _pin_solution(model, pm, X0[m], taus[m], t_eval, "DOP853", 1e-13)
        got = np.concatenate([batch.q[m], batch.v[m]], axis=1)
        assert np.abs(got - reference).max() < 5e-6
    # without the compiled kernels: a loop of solve_ivp over the numpy right-hand side, same result
    loop = mb.simulate_batch(model, (0.0, 0.5), X0[:2], taus[:2], t_eval=t_eval, compiled=False)
    assert np.abs(loop.q - batch.q[:2]).max() < 5e-6


def test_outside_the_compiled_scope_and_without_numba(monkeypatch):
    """Spherical joints: no kernels (None), the numpy path runs; same when numba is absent."""
    rng = np.random.default_rng(2)
    spherical = random_tree(rng, 3, floating=True, kinds=("spherical",))[0]
    assert compile_model(spherical) is None
    plain = random_tree(rng, 3, floating=False, kinds=KINDS)[0]
    with_kernels = mb.simulate(plain, (0.0, 0.2), np.zeros(plain.nq + plain.nv) + 0.1, t_eval=[0.0, 0.2])
    monkeypatch.setattr(compiled_module, "HAVE_NUMBA", False)
    fresh = random_tree(np.random.default_rng(2), 3, floating=True, kinds=("spherical",))[0]
    plain_again = replace(plain)   # a new object: no cached kernels
    assert compile_model(plain_again) is None
    without = mb.simulate(plain_again, (0.0, 0.2), np.zeros(plain.nq + plain.nv) + 0.1, t_eval=[0.0, 0.2])
    assert np.abs(without.q - with_kernels.q).max() < 1e-8
    assert mb.simulate(fresh, (0.0, 0.1), np.r_[fresh.neutral_configuration(), np.zeros(fresh.nv)]).success


def test_states_only_and_progress_paths_give_the_same_trajectory():
    """derived=False returns the same t, q, v without the derived outputs; a progress callback
    (segment by segment) integrates the same steps: identical to rounding (1e-12)."""
    rng = np.random.default_rng(9)
    model = random_tree(rng, 4, floating=True, gravity=[0.0, 0.0, -9.81], kinds=KINDS)[0]
    x0 = np.concatenate(_state(rng, model))
    full = mb.simulate(model, (0.0, 0.3), x0, t_eval=np.linspace(0, 0.3, 4))
    lean = mb.simulate(model, (0.0, 0.3), x0, t_eval=np.linspace(0, 0.3, 4), derived=False)
    calls = []
    stepped = mb.simulate(model, (0.0, 0.3), x0, t_eval=np.linspace(0, 0.3, 4), progress=lambda t, tf: calls.append(t))
    assert np.array_equal(full.t, lean.t) and np.array_equal(full.q, lean.q) and lean.a.shape == (4, 0)
    assert np.abs(stepped.q - full.q).max() < 1e-12 and calls[-1] == 0.3
