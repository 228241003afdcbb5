"""The dense-basis barrier of small structures (``mu_dense``) against the Kronecker assembly.

Both compute phi_t = -log det F_t - log det D_w, its gradient and Hessian, and the level of a
point, by different formulas (basis matrices T_a = L^-1 A_a L^-H and one product, versus
the Kronecker structure of each block pair); the Kronecker one is itself checked against
finite differences in test_mu_centers.py. Tolerance 1e-9 relative to the largest entry:
both are sums of O(p m^2) products of entries bounded by that size, rounding ~1e-13 each,
on these well-conditioned problems (F_t at 1.5x the level: cond(F_t) ~ 10).
"""

import numpy as np
import pytest

from satdyn.robust.mu_barrier import _barrier_terms, _CentersLayout, _pencil_max
from satdyn.robust.mu_dense import DenseBarrier, dense_applies
from satdyn.robust.structure import BlockStructure

from test_mu_centers import BARRIER_CASES, barrier_problem


@pytest.mark.parametrize("case", list(BARRIER_CASES))
def test_dense_barrier_equals_the_kronecker_assembly(case):
    M, layout, y, t = barrier_problem(case, 1, 3)
    F = M.shape[0]
    assert dense_applies(layout)
    dense = DenseBarrier(layout, M)
    rows = np.arange(F)
    assert np.allclose(dense.level(rows, y), t / 1.5, rtol=1e-9)
    v1, g1, h1, ok1 = _barrier_terms(M, layout, y, t)
    v2, g2, h2, ok2 = dense.terms(rows, y, t)
    assert np.all(ok1) and np.all(ok2)
    assert np.allclose(v2, v1, rtol=1e-9)
    assert np.max(np.abs(g2 - g1)) <= 1e-9 * np.max(np.abs(g1))
    assert np.max(np.abs(h2 - h1)) <= 1e-9 * np.max(np.abs(h1))
    # a subset of rows, in another order, reads its own matrices
    sub = np.array([2, 0])
    v3, g3, h3, _ = dense.terms(sub, y[sub], t[sub])
    assert np.allclose(v3, v1[sub], rtol=1e-9) and np.allclose(h3, h1[sub], atol=1e-9 * np.max(np.abs(h1)))


def test_infeasible_points_are_flagged():
    """A level below the pencil's: F_t is not positive definite -> ok False, value inf."""
    blocks, level = BARRIER_CASES["repeated real and complex"]
    structure = BlockStructure.parse(blocks)
    rng = np.random.default_rng(2)
    M = rng.standard_normal((1, structure.n, structure.m)) + 0j
    layout = _CentersLayout(structure, level)
    y = layout.pack(np.eye(structure.n)[None].astype(complex), np.zeros((1, structure.m, structure.n), complex))
    t = 0.5 * _pencil_max(M, *layout.assemble(y), layout.level_w)
    value, _, _, ok = DenseBarrier(layout, M).terms(np.arange(1), y, t)
    assert not ok[0] and value[0] == np.inf
