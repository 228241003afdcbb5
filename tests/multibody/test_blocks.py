"""Block-wise sweeps: batches larger than ``kinematics.CHUNK`` are processed block by block, with
one scratch workspace shared by the blocks (the last block shorter than the others).

Samples on both sides of a block boundary and in the short last block must equal single-sample
calls (same sweep, batch of one: 1e-12) and Pinocchio (independent implementation: 1e-9).
"""

import numpy as np
import pinocchio as pin
import pytest

import satdyn.multibody as mb
from satdyn.multibody import kinematics

from .pin_oracle import random_state, random_tree


def _rel(a, b):
    return np.abs(np.asarray(a) - np.asarray(b)).max() / max(1.0, np.abs(np.asarray(b)).max())


@pytest.mark.parametrize("floating", [True, False])
def test_blocks_and_short_last_block_match_single_calls_and_pinocchio(floating):
    rng = np.random.default_rng(700 + floating)
    model, pm, _, _ = random_tree(rng, 6, floating=floating, gravity=[0.0, 0.0, -9.81])
    pd = pm.createData()
    chunk = kinematics.CHUNK
    n = 2 * chunk + 300                                        # two full blocks and a short one
    idx = np.array([0, chunk - 1, chunk, 2 * chunk - 1, 2 * chunk, n - 1])
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
        assert _rel(a[k], pin.aba(pm, pd, q[k], v[k], tau[k]).copy()) < 1e-9
