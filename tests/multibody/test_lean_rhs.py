"""The simulation's single-state right-hand side (``lean_rhs``) against the batched dynamics.

``simulate`` integrates ``lean_state_derivative`` when the model allows it; it must be the
same function of the state as ``state_derivative`` (the batched articulated sweep of
``forward_dynamics`` plus the joints' configuration rates). Both evaluate the same equations
in a different order, so they agree to rounding: 1e-12 relative.
"""

from dataclasses import replace

import numpy as np
import pytest

import satdyn.multibody as mb
from satdyn.multibody.lean_rhs import lean_state_derivative
from satdyn.multibody.model import ExternalWrench
from satdyn.multibody.simulate import state_derivative

from .pin_oracle import random_tree


def _with_constant_wrenches(model, rng):
    """Add a constant inertial-frame and a constant body-frame wrench at random body points."""
    last = model.n_bodies - 1
    wrenches = (ExternalWrench(0, rng.normal(size=3), rng.normal(size=6), "inertial"),
                ExternalWrench(last, rng.normal(size=3), rng.normal(size=6), "body"),
                ExternalWrench(last, rng.normal(size=3), rng.normal(size=6), "inertial"))
    return replace(model, external_wrenches=wrenches)


def _random_state(rng, model):
    q = rng.normal(size=model.nq)
    if model.root.kind == "floating":
        q[3:7] *= 1.0 + 0.01 * rng.normal()   # off the unit sphere: exercises the norm-restoring term
    return np.concatenate([q, rng.normal(size=model.nv)])


def _check(model, rng, n_states=10):
    lean = lean_state_derivative(model)
    assert lean is not None
    for _ in range(n_states):
        x = _random_state(rng, model)
        tau = rng.normal(size=model.nv)
        expected = state_derivative(model, 0.0, x, tau)
        got = lean(x, tau)
        assert np.abs(got - expected).max() <= 1e-12 * np.abs(expected).max()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("floating", [True, False])
def test_lean_rhs_equals_batched_dynamics_on_random_trees(seed, floating):
    """Random trees (revolute / prismatic / weld, oblique and frame-aligned axes), gravity, springs,
    dampers and constant wrenches: lean RHS = batched RHS to 1e-12 relative at random states."""
    rng = np.random.default_rng(100 + seed)
    model = random_tree(rng, 6, floating=floating, gravity=rng.normal(size=3),
                        kinds=("revolute", "prismatic", "weld"), damping=True, aligned_axes=seed % 2 == 1)[0]
    _check(_with_constant_wrenches(model, rng), rng)


def test_lean_rhs_equals_batched_dynamics_for_example_g():
    """Example G (floating balloon, slider, double pendulum, inertial buoyancy wrench): 1e-12."""
    _check(mb.example_g(), np.random.default_rng(7))


def test_models_outside_the_lean_path_use_the_general_one():
    """Spherical joints, Euler roots and loop closures are not in the lean path: it declines (None)."""
    rng = np.random.default_rng(3)
    spherical = random_tree(rng, 3, floating=True, kinds=("spherical",))[0]
    assert lean_state_derivative(spherical) is None
    assert lean_state_derivative(mb.example_g(attitude="euler")) is None
