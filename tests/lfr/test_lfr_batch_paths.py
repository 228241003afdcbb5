"""Paths of the batched Delta-loop solver added for speed: the sweep of the transposed
LFR (when it carries fewer columns), the cut states between super-blocks (a
semi-separable factorisation of the strictly lower part of D_zw), the low-rank
right-hand side, and the per-point loop gains of sizes 1, 2 and 3 -- each against the
plain upper-LFT formula solved densely with numpy at every point, and the ill-posed
points against the single-point evaluation (which raises)."""

import numpy as np
import pytest

from satdyn.lfr import LFR, IllPosedError, ureal
from satdyn.lfr.evaluate import _directions


def _reference(X, values, i):
    """Dense upper LFT at point i: M_oo + M_od Delta (I - M_dd Delta)^{-1} M_do."""
    nx, nd, m, p = X.nstates, X.ndelta, X.ninputs, X.noutputs
    M = X.M
    d = np.concatenate([np.full(b.size, b.parameter.normalize(values[b.name][i])) for b in X.blocks])
    q = nx + nd
    rows, cols = np.r_[0:nx, q:q + p], np.r_[0:nx, q:q + m]
    Mdd = M[nx:q, nx:q]
    W = np.linalg.solve(np.eye(nd) - Mdd * d[None, :], M[nx:q][:, cols])
    return M[np.ix_(rows, cols)] + M[rows][:, nx:q] @ (d[:, None] * W)


def _chain_lfr(rng, nd_pairs=30, nfree=10, nx=3, m=6, p=2, rank=2):
    """Static-structure chain: strictly lower part tril(U V^T) (rank <= `rank` across
    every cut, like a product of LFRs), 2x2 loops, 1-channel loops and free channels;
    one parameter per loop, so that ill-posed points are known exactly."""
    params, sizes = [], []
    for j in range(nd_pairs):
        params.append(ureal(f"r{j}", 1.0, plusminus=1.0))  # normalised delta = value - 1
        sizes.append(2)
    for j in range(nfree):
        params.append(ureal(f"f{j}", 1.0, plusminus=1.0))
        sizes.append(1)
    nd = sum(sizes)
    D = np.tril(0.3 * rng.normal(size=(nd, rank)) @ rng.normal(size=(rank, nd)), -1)
    row = 0
    loops = {}
    for par, size in zip(params, sizes):
        if size == 2:
            # eigenvalues 1.25 and -0.5: singular at delta = 0.8
            blk = np.array([[0.375, 0.765625], [1.0, 0.375]])
            D[row:row + 2, row:row + 2] = blk
            loops[par.name] = 0.8
        elif row % 3 == 0:
            D[row, row] = 1.25  # scalar loop, singular at delta = 0.8
            loops[par.name] = 0.8
        row += size
    A = -np.eye(nx) + 0.1 * rng.normal(size=(nx, nx))
    B = rng.normal(size=(nx, nd + m))
    C = rng.normal(size=(nd + p, nx))
    Dfull = np.block([[D, rng.normal(size=(nd, m))], [rng.normal(size=(p, nd)), rng.normal(size=(p, m))]])
    return LFR(A, B, C, Dfull, list(zip(params, sizes))), loops


def test_transposed_sweep_with_cut_states_matches_dense_formula_and_flags_ill_posed_points():
    # p + nx < m + nx: the sweep runs on the transpose; 70 channels -> several super-blocks
    # joined by rank-2 cut states.  1e-12 relative: all loops are well conditioned at the
    # random points (|delta| <= 0.6 < 0.8).
    rng = np.random.default_rng(11)
    X, loops = _chain_lfr(rng)
    primal, dual = _directions(X)
    assert dual is not None, "expected the transposed sweep"
    sch = dual[1]
    ranks = [sb[4] for sb in sch.superblocks]  # rank of the cut state entering each super-block
    assert len(ranks) >= 3 and ranks[0] == 0 and 0 < max(ranks) <= 2
    N = 60
    values = {b.name: 1.0 + rng.uniform(-0.6, 0.6, N) for b in X.blocks}
    # Points 7 and 23: one loop exactly singular (delta = 0.8).
    singular = list(loops)
    values[singular[3]][7] = 1.8
    values[singular[-1]][23] = 1.8
    batch = X.evaluate_batch(values, chunk=16)
    full = np.concatenate([np.concatenate([batch.A, batch.B], 2), np.concatenate([batch.C, batch.D], 2)], 1)
    assert batch.valid.tolist() == [i not in (7, 23) for i in range(N)]
    assert np.all(np.isnan(full[[7, 23]]))
    for i in range(N):
        point = {k: v[i] for k, v in values.items()}
        if i in (7, 23):
            with pytest.raises(IllPosedError):
                X.evaluate(point)
            continue
        ref = _reference(X, values, i)
        assert np.allclose(full[i], ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())


def test_primal_sweep_with_low_rank_right_hand_side():
    # 8 inputs entering through a rank-2 map: [C_z, D_zu] has rank nx + 2 = 4 < 10 columns,
    # so the sweep carries 4 columns and expands at the end; outputs have full rank (8),
    # so the primal direction stays.  Reference: the dense formula, 1e-12 relative.
    rng = np.random.default_rng(12)
    X0, _ = _chain_lfr(rng, nd_pairs=10, nfree=4, nx=2, m=2, p=8)
    K = rng.normal(size=(2, 8))
    X = X0 @ K
    primal, dual = _directions(X)
    assert dual is None and primal.rhs_right is not None and primal.rhs.shape[1] == 4
    N = 25
    values = {b.name: 1.0 + rng.uniform(-0.6, 0.6, N) for b in X.blocks}
    batch = X.evaluate_batch(values)
    full = np.concatenate([np.concatenate([batch.A, batch.B], 2), np.concatenate([batch.C, batch.D], 2)], 1)
    assert batch.valid.all()
    for i in range(N):
        ref = _reference(X, values, i)
        assert np.allclose(full[i], ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())


@pytest.mark.parametrize("transposed", [False, True])
def test_three_channel_loops_and_their_conditioning_in_both_directions(transposed):
    # A 3-channel loop of one parameter, I - delta D_bb, with D_bb's eigenvalues
    # {1.25, 0.5, -0.4}: singular at delta = 0.8 (exactly representable).  The batch
    # (either sweep direction) must agree with the dense formula elsewhere and flag that
    # point as the single-point evaluation does.  1e-12 relative: well conditioned away
    # from 0.8 at the chosen points.
    rng = np.random.default_rng(13)
    P = rng.normal(size=(3, 3))
    Dbb = P @ np.diag([1.25, 0.5, -0.4]) @ np.linalg.inv(P)
    a = ureal("a", 1.0, plusminus=1.0)
    b = ureal("b", 1.0, plusminus=1.0)
    nd, m, p = 4, (5 if transposed else 1), (1 if transposed else 5)
    D = np.zeros((nd, nd))
    D[:3, :3] = Dbb
    D[3, :3] = rng.normal(size=3)
    Dfull = np.block([[D, rng.normal(size=(nd, m))], [rng.normal(size=(p, nd)), rng.normal(size=(p, m))]])
    X = LFR(np.zeros((0, 0)), np.zeros((0, nd + m)), np.zeros((nd + p, 0)), Dfull, [(a, 3), (b, 1)])
    assert (_directions(X)[1] is not None) == transposed
    deltas = np.array([-0.9, -0.3, 0.2, 0.6, 0.8, 0.79, 0.95])
    values = {"a": 1.0 + deltas, "b": 1.0 + 0.5 * deltas}
    out = X.evaluate_batch(values)
    for i, dlt in enumerate(deltas):
        if dlt == 0.8:
            assert np.all(np.isnan(out[i]))
            with pytest.raises(IllPosedError):
                X.evaluate({"a": 1.0 + dlt, "b": 1.0 + 0.5 * dlt})
            continue
        ref = _reference(X, values, i)
        assert np.allclose(out[i], ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())
        assert np.allclose(X.evaluate({"a": 1.0 + dlt, "b": 1.0 + 0.5 * dlt}), out[i], rtol=1e-12, atol=1e-13)


def test_duplicate_loops_share_gains_and_match_dense_formula():
    # blockdiag(R, R) of one rotation: two identical 2x2 loops of the same parameter per
    # transport; their gains are computed once and gathered.  Reference: dense formula at
    # every point, 1e-12 relative (rotations are well conditioned for |alpha| <= 3).
    from satdyn.lfr import blockdiag, rotation_lfr, vreal

    rng = np.random.default_rng(14)
    chain = None
    for k in range(3):
        alpha = vreal(f"a{k}", 0.0, range=(-3.0, 3.0), transform="tan_quarter")
        R = rotation_lfr(rng.normal(size=3), alpha)
        T = blockdiag([R, R]) @ (np.eye(6) + 0.1 * rng.normal(size=(6, 6)))
        chain = T if chain is None else chain @ T
    X = chain @ rng.normal(size=(6, 2))
    primal, dual = _directions(X)
    sch = primal if dual is None else dual[1]
    pos, blocks, index = sch.loop_groups[2]
    assert index is not None and len(pos) < len(index)  # duplicates detected
    N = 30
    values = {b.name: rng.uniform(-3.0, 3.0, N) for b in X.blocks}
    out = X.evaluate_batch(values)
    for i in range(N):
        ref = _reference(X, values, i)
        assert np.allclose(out[i], ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())
