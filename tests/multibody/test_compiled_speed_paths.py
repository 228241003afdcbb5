"""The fast simulation paths (issue 21) follow the Pinocchio-based integration they are timed against.

* ``simulate`` (compiled Runge-Kutta with scipy's dense output) on random trees of 2, 8 and 30
  joints (revolute / prismatic, oblique axes; fixed or floating base; gravity) against
  ``solve_ivp`` over ``pin.aba`` with the same method and tolerances, and both against a
  reference at rtol = atol = 1e-13. Tolerance derivation (as in test_compiled): the local error
  per step is held at ~1e-10 (rtol = atol = 1e-10, states of order 1); over 0.5 s (at most a
  few hundred accepted steps) the global error is at most steps x 1e-10 x exp(lambda t) with
  the trees' growth rate lambda <= 5 /s: 300 x 1e-10 x e^2.5 ~ 4e-7, so 1e-6 for each
  integrator against the reference, and 2e-6 between the two.
* ``simulate_batch``: each trajectory of a batch is the single-trajectory run of that initial
  state -- the same compiled arithmetic (no fast-math reordering) and the same step sequence,
  so equal to rounding; 1e-12 leaves room for a different instruction selection between the
  two call sites, far below the 1e-10 tolerance.
"""

import numpy as np
import pytest

import satdyn.multibody as mb
from satdyn.multibody import compiled as compiled_module

from .pin_oracle import random_tree
from .test_compiled import _pin_solution

pytestmark = pytest.mark.skipif(not compiled_module.HAVE_NUMBA, reason="numba is not installed")


def _initial_state(rng, model):
    q = rng.uniform(-1.0, 1.0, model.nq)
    if model.is_floating:
        q[3:7] /= np.linalg.norm(q[3:7])
    return np.concatenate([q, rng.normal(size=model.nv)])


@pytest.mark.parametrize("n_joints", [2, 8, 30])
@pytest.mark.parametrize("floating", [False, True])
def test_simulation_follows_pinocchio_integration_on_random_trees(n_joints, floating):
    rng = np.random.default_rng(100 + n_joints + floating)
    model, pm = random_tree(rng, n_joints + 1, floating=floating, gravity=[0.0, 0.0, -9.81],
                            kinds=("revolute", "revolute", "prismatic"))[:2]
    assert model.nv == n_joints + 6 * floating
    x0 = _initial_state(rng, model)
    tau = np.zeros(model.nv)
    t_eval = np.linspace(0.0, 0.5, 26)
    reference = _pin_solution(model, pm, x0, tau, t_eval, "DOP853", 1e-13)
    peer = _pin_solution(model, pm, x0, tau, t_eval, "DOP853", 1e-10)
    ours = mb.simulate(model, (0.0, 0.5), x0, t_eval=t_eval, rtol=1e-10, atol=1e-10, derived=False)
    assert ours.success and np.array_equal(ours.t, t_eval)
    got = np.concatenate([ours.q, ours.v], axis=1)
    assert np.abs(peer - reference).max() < 1e-6
    assert np.abs(got - reference).max() < 1e-6
    assert np.abs(got - peer).max() < 2e-6


@pytest.mark.parametrize("floating", [False, True])
def test_batch_trajectories_equal_single_runs(floating):
    rng = np.random.default_rng(3 + floating)
    model = random_tree(rng, 9, floating=floating, gravity=[0.0, 0.0, -9.81],
                        kinds=("revolute", "prismatic", "weld"))[0]
    X0 = np.array([_initial_state(rng, model) for _ in range(5)])
    taus = rng.normal(size=(5, model.nv))
    t_eval = np.linspace(0.0, 0.4, 9)
    batch = mb.simulate_batch(model, (0.0, 0.4), X0, taus, t_eval=t_eval)
    assert batch.success.all()
    for m in range(5):
        single = mb.simulate(model, (0.0, 0.4), X0[m], taus[m], t_eval=t_eval, derived=False)
        assert np.abs(batch.q[m] - single.q).max() <= 1e-12 * max(1.0, np.abs(single.q).max())
        assert np.abs(batch.v[m] - single.v).max() <= 1e-12 * max(1.0, np.abs(single.v).max())
        assert batch.nfev[m] == single.nfev


def test_derived_outputs_are_computed_on_first_access_only():
    """derived=True defers the outputs: the integration alone runs in simulate; the first read
    computes all of them once (same values as the batched numpy functions on the stored q, v)."""
    rng = np.random.default_rng(8)
    model = random_tree(rng, 5, floating=True, gravity=[0.0, 0.0, -9.81], kinds=("revolute", "weld"))[0]
    res = mb.simulate(model, (0.0, 0.2), _initial_state(rng, model), t_eval=np.linspace(0.0, 0.2, 5))
    assert res._cache == {}
    energy = res.energy
    assert set(res._cache) == {"a", "body_positions", "body_dcms", "root_euler", "joint_wrenches", "child_on_parent",
                               "energy", "linear_momentum", "angular_momentum", "center_of_mass"}
    assert res.energy is energy   # cached, not recomputed
    # independent recomputation from the stored trajectory (undamped, no loads: energy conserved
    # to the integrator's tolerance as well)
    assert np.array_equal(energy, mb.mechanical_energy(model, res.q, res.v))
    assert np.abs(energy - energy[0]).max() < 1e-6 * max(1.0, abs(energy[0]))


def test_threaded_batch_equals_sequential_batch():
    """threads=True only distributes independent trajectories: identical arrays."""
    rng = np.random.default_rng(12)
    model = random_tree(rng, 6, floating=True, gravity=[0.0, 0.0, -9.81], kinds=("revolute", "prismatic"))[0]
    X0 = np.array([_initial_state(rng, model) for _ in range(6)])
    t_eval = np.linspace(0.0, 0.3, 4)
    sequential = mb.simulate_batch(model, (0.0, 0.3), X0, t_eval=t_eval)
    threaded = mb.simulate_batch(model, (0.0, 0.3), X0, t_eval=t_eval, threads=True)
    assert np.array_equal(sequential.q, threaded.q) and np.array_equal(sequential.v, threaded.v)
    assert np.array_equal(sequential.nfev, threaded.nfev)


def test_threads_must_be_a_bool():
    model = random_tree(np.random.default_rng(0), 3, floating=False, kinds=("revolute",))[0]
    with pytest.raises(TypeError, match="threads"):
        mb.simulate_batch(model, (0.0, 0.1), np.zeros((2, model.nq + model.nv)), threads="yes")
