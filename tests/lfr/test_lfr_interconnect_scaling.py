"""Interconnection of many blocks (``satdyn.lfr._core.close_blocks``, the sparse path).

Compared with: the dense path (the previous algorithm: dense open system, SVD condition
number, dense solve), forced on the same model; a build of the same model file with its
bodies, joints and connections permuted; a closed form (``y = g y + r`` gives
``y = r / (1 - g)``); counts of dense factorisations and sparse LUs while building models
of 32, 64 and 128 bodies.  The models come from the generator of
benchmarks/bench_model_build.py (a binary tree of rigid and flexible bodies on revolute
joints with uncertain masses and frequencies and varying angles).
"""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse.linalg

from satdyn.io import build_model, model_from_dict
from satdyn.lfr import LFR, _core, as_lfr, interconnect

_EPS = np.finfo(float).eps


def _bench():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_model_build.py"
    spec = importlib.util.spec_from_file_location("bench_model_build_for_tests", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _bench()
N_BODIES = 30          # 702 block outputs: above _DENSE_MAX_SIGNALS (600), so the sparse path runs


@pytest.fixture(scope="module")
def sparse_and_dense():
    """The 30-body model built by the sparse path and by the dense path, and the condition
    number estimate of the sparse path's loop matrix."""
    conds = []
    original = _core._cond1_estimate

    def recording(A, lu, **kw):
        conds.append(original(A, lu, **kw))
        return conds[-1]

    _core._cond1_estimate = recording
    try:
        new = BENCH.build(N_BODIES).lfr
    finally:
        _core._cond1_estimate = original
    old = BENCH.build_dense(N_BODIES).lfr
    assert len(conds) == 1, "the sparse path must have closed the model's loop (once)"
    return new, old, conds[0]


def _closed_matrix_tolerance(cond: float) -> float:
    # A backward-stable LU solve has relative forward error <= c * cond * eps with a modest c;
    # the Hager-Higham estimate is within a factor ~3 of the 1-norm condition number: 10.
    return 10.0 * cond * _EPS


def test_sparse_path_equals_dense_path(sparse_and_dense):
    # Oracle: the dense path (previous algorithm) on the same model.  Same blocks, states
    # and zero pattern, and closed matrices equal to the LU error bound: the two LFRs are
    # the same realisation, so every evaluation is the same.
    new, old, cond = sparse_and_dense
    assert new.blocks == old.blocks and new.nstates == old.nstates
    assert new.input_names == old.input_names and new.output_names == old.output_names
    assert np.array_equal(new.M == 0.0, old.M == 0.0)
    rel = np.abs(new.M - old.M).max() / np.abs(old.M).max()
    assert rel <= _closed_matrix_tolerance(cond)


def _response_tolerance(lfr: LFR, rel: float, omega, values, seed: int = 7) -> float:
    """10 x the response change when every entry of ``lfr.M`` moves by a random relative
    ``rel`` (the first-order sensitivity of these responses to errors of that size)."""
    rng = np.random.default_rng(seed)
    M = lfr.M * (1.0 + rel * rng.uniform(-1.0, 1.0, lfr.M.shape))
    moved = LFR._make(M, lfr._labels, lfr.input_names, lfr.output_names, canonical=False, simplify=False)
    worst = 0.0
    for vals in (None, values):
        G, G_moved = lfr.freqresp(omega, vals), moved.freqresp(omega, vals)
        worst = max(worst, float(np.abs(G_moved - G).max()))
    return 10.0 * worst


def test_permuted_model_file_gives_the_same_transfer_function(sparse_and_dense):
    # Oracle: the same model file with bodies, joints and connections in another order
    # (seeded shuffle): another channel order, the same input/output map.  Same state
    # and Delta counts per parameter; frequency responses at nominal and at 3 random points
    # of the parameter box agree within the response's sensitivity to the closed-matrix
    # error bound of both builds (2 x the LU bound above, see _response_tolerance).
    new, _, cond = sparse_and_dense
    doc = BENCH.tree_document(N_BODIES)
    rng = np.random.default_rng(3)
    for key in ("bodies", "joints", "connections"):
        doc[key] = [doc[key][i] for i in rng.permutation(len(doc[key]))]
    permuted = build_model(model_from_dict(doc)).lfr
    assert permuted.nstates == new.nstates
    assert sorted(permuted.occurrences.items()) == sorted(new.occurrences.items())
    omega = np.logspace(-1, 2, 7)
    values = {b.name: b.parameter.denormalize(np.random.default_rng(1).uniform(-0.9, 0.9, 3)) for b in new.blocks}
    tol = _response_tolerance(new, 2.0 * _closed_matrix_tolerance(cond), omega, values)
    for vals in (None, values):
        G, G_perm = new.freqresp(omega, vals), permuted.freqresp(omega, vals)
        assert np.abs(G_perm - G).max() <= tol


def _feedback_block(n: int, g: float) -> LFR:
    """Static block ``y = g u + r`` with n-signal groups u, r (inputs) and y (output)."""
    D = np.hstack([g * np.eye(n), np.eye(n)])
    return as_lfr(D).rename(inputs=[("u", n), ("r", n)], outputs=[("y", n)])


def test_sparse_closing_of_a_scalar_loop_matches_closed_form():
    # Closed form: u = y, y = g u + r  =>  y = r / (1 - g).  700 signals: sparse path.
    n, g = 700, 0.5
    closed = interconnect([_feedback_block(n, g)], [("u", "y")], inputs=["r"], outputs=["y"])
    # 1 / (1 - g) = 2 is computed exactly (LU of 0.5 I, one division).
    np.testing.assert_array_equal(closed.D, np.eye(n) / (1.0 - g))


def _loop_block(n: int, smallest: float) -> LFR:
    """Static block ``y = D u + r`` whose loop ``I - D`` (when ``u = y``) has singular values
    1 (n - 1 times) and ``smallest``, in a random (seeded) orthonormal basis."""
    Q, _ = np.linalg.qr(np.random.default_rng(5).standard_normal((n, n)))
    s = np.ones(n)
    s[-1] = smallest
    D = np.eye(n) - (Q * s) @ Q.T
    return as_lfr(np.hstack([D, np.eye(n)])).rename(inputs=[("u", n), ("r", n)], outputs=[("y", n)])


@pytest.mark.parametrize("smallest", [0.0, 1e-15])
def test_sparse_path_refuses_an_ill_posed_loop(smallest):
    # cond_2(I - D) = 1 / smallest (infinite, 1e15); cond_1 >= cond_2 / n > 1e12 with
    # n = 700, and the 1-norm estimate is a lower bound within a small factor: refused, as
    # the dense path refuses it (checked on the same loop below the size threshold).
    for n in (700, 400):
        assert (n > _core._DENSE_MAX_SIGNALS) == (n == 700)
        with pytest.raises(ValueError, match="not well posed"):
            interconnect([_loop_block(n, smallest)], [("u", "y")], inputs=["r"], outputs=["y"])


def test_sparse_path_accepts_a_moderately_conditioned_loop():
    # cond_2(I - D) = 1e6 (well below the 1e12 limit): accepted, and the closed
    # feedthrough equals (I - D)^{-1} (dense inverse as the oracle).  Both carry a relative
    # error of at most ~10 cond eps (stable LU), hence 2 x 10 cond eps.
    n, cond = 700, 1e6
    block = _loop_block(n, 1.0 / cond)
    closed = interconnect([block], [("u", "y")], inputs=["r"], outputs=["y"])
    expected = np.linalg.inv(np.eye(n) - block.D[:, :n])
    assert np.abs(closed.D - expected).max() <= 20 * cond * _EPS * np.abs(expected).max()


def _count_factorisations(monkeypatch, n_bodies: int):
    """Dense factorisations (name, shape) and sparse LUs made while building a tree model."""
    calls = []

    def wrap(module, name):
        original = getattr(module, name)

        def counted(a, *args, **kwargs):
            calls.append((name, np.shape(a)))
            return original(a, *args, **kwargs)

        monkeypatch.setattr(module, name, counted)

    for module, name in ((np.linalg, "svd"), (np.linalg, "cond"), (np.linalg, "solve"), (np.linalg, "inv"),
                         (np.linalg, "eigvalsh"), (scipy.linalg, "svd"), (scipy.linalg, "solve"),
                         (scipy.sparse.linalg, "splu"), (sys.modules["satdyn.lfr.reduce"], "_reduce")):
        wrap(module, name)
    BENCH.build(n_bodies, period=8)
    monkeypatch.undo()
    return calls


def test_factorisations_grow_linearly_with_the_number_of_bodies(monkeypatch):
    # Counted, not timed.  With a parameter period of 8 the trees of 32, 64 and 128 bodies
    # repeat the same mix of blocks, so a per-block cost makes the counts exactly affine
    # in n (equal second difference); every dense factorisation (SVD, condition number,
    # solve, inverse, eigenvalues) stays block-sized, independent of n (the previous path
    # made one SVD and one dense solve of the size of all block outputs, ~24 n); the loop
    # of the assembly is one sparse LU per build.
    counts, largest, sparse = [], [], []
    for n in (32, 64, 128):
        calls = _count_factorisations(monkeypatch, n)
        dense = [shape for name, shape in calls if name not in ("splu", "_reduce")]
        counts.append(len(dense) + sum(name == "_reduce" for name, _ in calls))
        largest.append(max(max(shape) for shape in dense))
        sparse.append(sum(name == "splu" for name, _ in calls))
    assert counts[2] - counts[1] == 2 * (counts[1] - counts[0])
    assert largest[0] == largest[1] == largest[2] < 100
    assert sparse == [1, 1, 1]
