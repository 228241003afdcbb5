"""Balanced batch blocks: ``kinematics.block_size`` splits a flat batch into equal blocks of at
most ``CHUNK`` samples, and samples on both sides of every actual block boundary (and in the
last block, shorter by less than one sample per block) match single-sample calls (same sweep,
batch of one: 1e-12) and Pinocchio (independent implementation: 1e-9).
"""

import numpy as np
import pinocchio as pin
import pytest

import satdyn.multibody as mb
from satdyn.multibody import kinematics

from .pin_oracle import random_state, random_tree


@pytest.mark.parametrize("n", [1, 7, kinematics.CHUNK, kinematics.CHUNK + 1, 3 * kinematics.CHUNK - 5, 10_000])
def test_block_size_is_balanced_and_bounded(n):
    size = kinematics.block_size(n)
    blocks = -(-n // size)
    assert 1 <= size <= kinematics.CHUNK
    assert blocks == -(-n // kinematics.CHUNK)                 # no more blocks than needed
    assert n - (blocks - 1) * size > size - blocks             # last block short by less than one per block


@pytest.mark.parametrize("floating", [True, False])
def test_balanced_block_boundaries_match_single_calls_and_pinocchio(floating):
    rng = np.random.default_rng(710 + floating)
    model, pm, _, _ = random_tree(rng, 5, floating=floating, gravity=[0.0, 0.0, -9.81])
    pd = pm.createData()
    n = 2 * kinematics.CHUNK + 7                               # three blocks of CHUNK * 2/3 or so
    size = kinematics.block_size(n)
    assert size < kinematics.CHUNK
    idx = np.array([0, size - 1, size, 2 * size - 1, 2 * size, n - 1])
    base_q, base_v = random_state(rng, model, pm)
    q = np.tile(base_q, (n, 1))
    v = np.tile(base_v, (n, 1))
    for k in idx:
        q[k], v[k] = random_state(rng, model, pm)
    tau = rng.normal(size=(n, model.nv))
    a = mb.forward_dynamics(model, q, v, tau)
    t = mb.inverse_dynamics(model, q, v, a)
    for k in idx:
        np.testing.assert_allclose(a[k], mb.forward_dynamics(model, q[k], v[k], tau[k]), rtol=0, atol=1e-12)
        np.testing.assert_allclose(t[k], tau[k], rtol=0, atol=1e-10)
        ref = pin.aba(pm, pd, q[k], v[k], tau[k]).copy()
        assert np.abs(a[k] - ref).max() / max(1.0, np.abs(ref).max()) < 1e-9
