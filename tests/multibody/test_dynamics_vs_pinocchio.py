"""Forward / inverse dynamics, mass matrix and bias terms against Pinocchio (the test oracle).

Random trees (seeded): 1-30 bodies, revolute / prismatic / spherical / weld joints with random
axes, zero-angle rotations and offsets, random masses and inertias (point masses included),
fixed and floating roots, gravity, external wrenches. Tolerance 1e-9 relative: both sides are
exact recursive algorithms in float64 (observed agreement ~1e-13); 1e-9 leaves room for the
conditioning of 30-body trees.
"""

import numpy as np
import pinocchio as pin
import pytest

import satdyn.multibody as mb

from .pin_oracle import pin_fext, random_state, random_tree

CASES = [(seed, n, floating) for seed, (n, floating) in enumerate(
    [(1, True), (2, False), (2, True), (3, False), (5, True), (8, False), (12, True), (17, False), (23, True),
     (30, True), (30, False)])]


def _rel(a, b):
    return np.abs(a - b).max() / max(1.0, np.abs(b).max())


@pytest.mark.parametrize("seed, n_bodies, floating", CASES)
def test_random_tree_matches_pinocchio(seed, n_bodies, floating):
    rng = np.random.default_rng(seed)
    model, pm, pin_joint, placement = random_tree(rng, n_bodies, floating=floating, gravity=[0.4, -9.81, 1.3])
    if model.nv == 0:
        pytest.skip("tree without degrees of freedom")
    pd = pm.createData()
    for _ in range(3):
        q, v = random_state(rng, model, pm)
        tau = rng.normal(size=model.nv) * 5
        fext = rng.normal(size=(model.n_bodies, 6))
        pf = pin_fext(pm, pin_joint, placement, fext)
        a_pin = pin.aba(pm, pd, q, v, tau, pf).copy()
        assert _rel(mb.forward_dynamics(model, q, v, tau, fext=fext), a_pin) < 1e-9
        tau_pin = pin.rnea(pm, pd, q, v, a_pin, pf).copy()
        assert _rel(mb.inverse_dynamics(model, q, v, a_pin, fext=fext), tau_pin) < 1e-9
        M_pin = pin.crba(pm, pd, q).copy()
        M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
        assert _rel(mb.mass_matrix(model, q), M_pin) < 1e-9
        assert _rel(mb.nonlinear_effects(model, q, v), pin.nle(pm, pd, q, v).copy()) < 1e-9
        assert _rel(mb.generalized_gravity(model, q), pin.computeGeneralizedGravity(pm, pd, q).copy()) < 1e-9


@pytest.mark.parametrize("floating", [True, False])
def test_frame_aligned_axes_match_pinocchio(floating):
    """Axes along +x/+y/+z take a selection fast path in the sweep: same oracle, same tolerance."""
    rng = np.random.default_rng(50 + floating)
    model, pm, pin_joint, placement = random_tree(rng, 12, floating=floating, gravity=[0, 0, -9.81],
                                                  kinds=("revolute", "prismatic", "weld"), aligned_axes=True)
    pd = pm.createData()
    q, v = random_state(rng, model, pm)
    tau = rng.normal(size=model.nv)
    assert _rel(mb.forward_dynamics(model, q, v, tau), pin.aba(pm, pd, q, v, tau).copy()) < 1e-9


@pytest.mark.parametrize("floating", [True, False])
def test_batched_equals_looped(floating):
    """Batch (2, 3) of states vs one call per state: same operations, so agreement to 1e-12."""
    rng = np.random.default_rng(100 + floating)
    model, pm, _, _ = random_tree(rng, 9, floating=floating, gravity=[0, 0, -9.81])
    states = [random_state(rng, model, pm) for _ in range(6)]
    q = np.array([s[0] for s in states]).reshape(2, 3, -1)
    v = np.array([s[1] for s in states]).reshape(2, 3, -1)
    tau = rng.normal(size=(2, 3, model.nv))
    a = mb.forward_dynamics(model, q, v, tau)
    t = mb.inverse_dynamics(model, q, v, a)
    M = mb.mass_matrix(model, q)
    assert a.shape == (2, 3, model.nv) and M.shape == (2, 3, model.nv, model.nv)
    for i in range(2):
        for j in range(3):
            np.testing.assert_allclose(a[i, j], mb.forward_dynamics(model, q[i, j], v[i, j], tau[i, j]),
                                       rtol=0, atol=1e-12)
            np.testing.assert_allclose(t[i, j], mb.inverse_dynamics(model, q[i, j], v[i, j], a[i, j]),
                                       rtol=0, atol=1e-12)
            np.testing.assert_allclose(M[i, j], mb.mass_matrix(model, q[i, j]), rtol=0, atol=1e-12)
    # broadcasting: one configuration, several velocities
    a_b = mb.forward_dynamics(model, q[0, 0], v[0], tau[0])
    for j in range(3):
        np.testing.assert_allclose(a_b[j], mb.forward_dynamics(model, q[0, 0], v[0, j], tau[0, j]), rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_three_forward_strategies_agree(seed):
    """Spec 004 §3.6 / §8.14: (a) cut-and-solve, (b) articulated sweep, (c) M \\ (tau - h) agree to 1e-12 (relative)."""
    rng = np.random.default_rng(200 + seed)
    model, pm, _, _ = random_tree(rng, 7, floating=bool(seed % 2), gravity=[0, -9.81, 0], damping=True)
    q, v = random_state(rng, model, pm)
    tau = rng.normal(size=model.nv)
    a_b = mb.forward_dynamics(model, q, v, tau)
    a_a = mb.forward_dynamics_cut_and_solve(model, q, v, tau)
    from satdyn.multibody.joints import passive_efforts
    h = mb.nonlinear_effects(model, q, v) - passive_efforts(model, q[None], v[None])[0]
    a_c = np.linalg.solve(mb.mass_matrix(model, q), tau - h)
    scale = max(1.0, np.abs(a_b).max())
    assert np.abs(a_a - a_b).max() / scale < 1e-11
    assert np.abs(a_c - a_b).max() / scale < 1e-11


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_inverse_of_forward_with_springs_and_dampers(seed):
    """inverse(forward(tau)) = tau with joint springs / dampers and external loads (round trip ~1e-13)."""
    rng = np.random.default_rng(300 + seed)
    model, pm, _, _ = random_tree(rng, 10, floating=bool(seed % 2), gravity=[0, 0, -9.81], damping=True)
    q, v = random_state(rng, model, pm)
    tau = rng.normal(size=model.nv) * 3
    fext = rng.normal(size=(model.n_bodies, 6))
    a = mb.forward_dynamics(model, q, v, tau, fext=fext)
    np.testing.assert_allclose(mb.inverse_dynamics(model, q, v, a, fext=fext), tau,
                               rtol=0, atol=1e-10 * max(1, np.abs(tau).max()))


def test_hybrid_dynamics_mixes_modes():
    """Floating root forward, joints inverse: consistent with the pure forward / inverse algorithms."""
    rng = np.random.default_rng(400)
    model, pm, _, _ = random_tree(rng, 6, floating=True, gravity=[0, 0, -9.81], kinds=("revolute", "prismatic"))
    q, v = random_state(rng, model, pm)
    tau = rng.normal(size=model.nv)
    a_true = mb.forward_dynamics(model, q, v, tau)
    mask = np.zeros(model.nv, bool)
    mask[:6] = True
    a_in = np.where(mask, 0.0, a_true)               # joints: accelerations prescribed
    tau_in = np.where(mask, tau, 0.0)               # root: wrench given
    a_out, tau_out = mb.hybrid_dynamics(model, q, v, tau_in, a_in, mask)
    np.testing.assert_allclose(a_out, a_true, atol=1e-10)
    np.testing.assert_allclose(tau_out, tau, atol=1e-10)


def test_bad_inputs_raise_clear_errors():
    rng = np.random.default_rng(5)
    model, pm, _, _ = random_tree(rng, 3, floating=True)
    q, v = random_state(rng, model, pm)
    with pytest.raises(TypeError, match="`model`"):
        mb.forward_dynamics(pm, q, v)
    with pytest.raises(ValueError, match="`q`"):
        mb.forward_dynamics(model, q[:-1], v)
    with pytest.raises(ValueError, match="`v`"):
        mb.forward_dynamics(model, q, v[:-1])
    with pytest.raises(ValueError, match="`a`"):
        mb.inverse_dynamics(model, q, v, np.zeros(model.nv + 1))
    with pytest.raises(ValueError, match="`tau`"):
        mb.forward_dynamics(model, q, v, np.zeros(model.nv + 1))
    with pytest.raises(ValueError, match="batch"):
        mb.forward_dynamics(model, np.stack([q, q]), np.stack([v, v, v]))
    with pytest.raises(ValueError, match="`q`"):
        mb.mass_matrix(model, np.full(model.nq, np.nan))
    with pytest.raises(ValueError, match="`fext`"):
        mb.forward_dynamics(model, q, v, fext=np.zeros((model.n_bodies + 1, 6)))
    with pytest.raises(ValueError, match="root"):
        b = mb.ModelBuilder()
        b.add_body(mb.body("a", 1.0), mb.revolute_joint("j", [0, 0, 1]))
    with pytest.raises(ValueError, match="axis"):
        mb.revolute_joint("j", [0, 0, 0])
    with pytest.raises(ValueError, match="port"):
        b = mb.ModelBuilder()
        b.add_body(mb.body("a", 1.0), mb.fixed_root())
        b.add_body(mb.body("b", 1.0), mb.revolute_joint("j", [0, 0, 1]), parent="a", port="nope")


def test_large_batches_are_processed_in_blocks_consistently():
    """Batches above the block size (1024) are swept block by block: samples on both sides of a
    block boundary equal single calls (1e-12) and Pinocchio (1e-9)."""
    rng = np.random.default_rng(600)
    model, pm, _, _ = random_tree(rng, 4, floating=True, gravity=[0, 0, -9.81])
    pd = pm.createData()
    states = [random_state(rng, model, pm) for _ in range(4)]
    idx = np.array([0, 1023, 1024, 1499])
    q = np.tile(states[0][0], (1500, 1))
    v = np.tile(states[0][1], (1500, 1))
    for k, (qs, vs) in zip(idx, states):
        q[k], v[k] = qs, vs
    tau = rng.normal(size=(1500, model.nv))
    a = mb.forward_dynamics(model, q, v, tau)
    t = mb.inverse_dynamics(model, q, v, a)
    M = mb.mass_matrix(model, q)
    for k in idx:
        np.testing.assert_allclose(a[k], mb.forward_dynamics(model, q[k], v[k], tau[k]), rtol=0, atol=1e-12)
        np.testing.assert_allclose(t[k], tau[k], rtol=0, atol=1e-10)
        assert _rel(a[k], pin.aba(pm, pd, q[k], v[k], tau[k]).copy()) < 1e-9
        assert _rel(M[k], mb.mass_matrix(model, q[k])) < 1e-12
