"""Certified D-G bounds: the returned scalings prove the returned bound on any machine.

Oracle: an independent floating-point check, numpy's ``eigvalsh`` of the LMI

    M^H Dz M + j (G M - M^H G^H) - beta^2 Dw   (and D > 0 by Cholesky per block),

congruence-scaled by L = chol(Dw) (see ``lmi_top``), evaluated here, not by the library.
Tolerance: none (the largest eigenvalue must be <= 0). Why that holds on any BLAS:
``certify_scalings`` guarantees that the *exact* scaled LMI is <= -e I, where e bounds the
rounding error of any backward-stable evaluation of it and of its largest eigenvalue
(first-order componentwise bound, ``mu_certify.rounding_bound``); this test's evaluation is
such an evaluation, so its result is <= -e + e = 0.

Cases: random matrices over every block kind (repeated real, repeated complex, full
complex square and not, mixed), scaled by 10^-3..10^3 (the certificate is scale-aware),
drawn by hypothesis (seeded in tests/conftest.py), and scalings driven near singular.
"""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from satdyn.robust import complex_block, full_block, mussv, real_block
from satdyn.robust.mu_certify import certify_scalings
from satdyn.robust.mu_centers import refine_rows
from satdyn.robust.mu_upper import mu_upper_bound
from satdyn.robust.structure import BlockStructure


def lmi_top(M, Dz, Dw, G, level_rows):
    """Largest eigenvalue of L^-1 LMI L^-H, L = chol(diag(level) Dw) (numpy, one matrix).

    By Sylvester's law of inertia LMI <= 0 exactly when L^-1 LMI L^-H <= 0. The scaled form
    is checked because D may span many decades (floored at 1e-13 of its largest eigenvalue):
    the LMI's eigenvalues along small-D directions lie below u ||LMI||, which no unscaled
    eigenvalue computation resolves; scaled, each direction is measured against its own D
    (times the level: a skew level of 1e6 on one block would otherwise swamp the others).
    """
    MH = M.conj().T
    lmi = MH @ Dz @ M + 1j * (G @ M - MH @ G.conj().T) - level_rows[:, None] * Dw
    weight = np.where(level_rows > 0, level_rows, 1.0)
    L = np.linalg.cholesky(0.5 * (Dw + Dw.conj().T) * weight[:, None])
    X = np.linalg.solve(L, 0.5 * (lmi + lmi.conj().T))
    S = np.linalg.solve(L, X.conj().T)
    return np.linalg.eigvalsh(0.5 * (S + S.conj().T))[-1]


def assert_proves(M, structure, scalings, index, level_rows):
    Dz, Dw, G = (np.asarray(x)[index] for x in (scalings.Dz, scalings.Dw, scalings.G))
    for zs in structure.z_slices:
        np.linalg.cholesky(0.5 * (Dz[zs, zs] + Dz[zs, zs].conj().T))  # D > 0 on every block
    assert np.allclose(Dz[: structure.m, : structure.m] if structure.n == structure.m else Dz, Dz)
    assert lmi_top(M, Dz, Dw, G, level_rows) <= 0.0


BLOCK = st.one_of(
    st.builds(real_block, st.integers(1, 3)),
    st.builds(complex_block, st.integers(1, 3)),
    st.builds(full_block, st.integers(1, 3), st.integers(1, 3)),
)


@settings(max_examples=30)
@given(blocks=st.lists(BLOCK, min_size=1, max_size=4), seed=st.integers(0, 2**31 - 1),
       exponent=st.integers(-3, 3))
@example(blocks=[full_block(1, 2)], seed=1, exponent=1)  # issue 25: NaN pencil (see below)
def test_mussv_scalings_prove_the_returned_bound(blocks, seed, exponent):
    structure = BlockStructure(tuple(blocks))
    rng = np.random.default_rng(seed)
    M = 10.0**exponent * (rng.standard_normal((2, structure.n, structure.m))
                          + 1j * rng.standard_normal((2, structure.n, structure.m)))
    result = mussv(M, structure, lower=False, refine=True)
    for i in range(2):
        beta = float(result.dg_upper[i])
        assert np.isfinite(beta)
        assert_proves(M[i], structure, result.scalings, i, np.full(structure.m, beta**2))


@pytest.mark.parametrize("shape", [(1, 2), (2, 1), (3, 1)])
def test_one_full_block_is_its_largest_singular_value(shape):
    """Regression (issue 25): a single full block made the descent produce a NaN pencil.

    With one full block the D-G bound does not depend on D, so the descent's gradient is
    rounding noise; L-BFGS extrapolated on it to a trial factor L = 0 exactly, and the
    pencil L^-1 H L^-H was formed as inf * 0 (a RuntimeWarning, an error in this suite).
    Oracle: mu of one full complex block is the largest singular value of M (Packard and
    Doyle 1993); the bound must equal it up to the certification margin (a few ulps times
    the dimensions, well under 1e-10 relative) and its scalings must prove it.
    """
    structure = BlockStructure((full_block(*shape),))
    rng = np.random.default_rng(1)
    M = 10.0 * (rng.standard_normal((2, structure.n, structure.m))
                + 1j * rng.standard_normal((2, structure.n, structure.m)))
    upper, scalings, _ = mu_upper_bound(M, structure)
    sigma = np.linalg.norm(M, 2, axis=(1, 2))
    assert np.all(upper >= sigma * (1 - 1e-12))
    np.testing.assert_allclose(upper, sigma, rtol=1e-10)
    for i in range(2):
        assert_proves(M[i], structure, scalings, i, np.full(structure.m, upper[i] ** 2))


@settings(max_examples=30)
@given(blocks=st.lists(BLOCK, min_size=2, max_size=4), seed=st.integers(0, 2**31 - 1),
       tiny=st.sampled_from([1e-16, 1e-13, 1e-10, 0.0, -1e-12]))
def test_near_singular_scalings_are_regularised_and_certified(blocks, seed, tiny):
    """An optimiser may return a D block at (or below) zero relative to the others: the
    certificate floors it and reports the level the regularised scalings prove."""
    structure = BlockStructure(tuple(blocks))
    rng = np.random.default_rng(seed)
    n, m = structure.n, structure.m
    M = rng.standard_normal((1, n, m)) + 1j * rng.standard_normal((1, n, m))
    Dz = np.zeros((1, n, n), complex)
    Dw = np.zeros((1, m, m), complex)
    G = np.zeros((1, m, n), complex)
    for k, (blk, zs, ws) in enumerate(zip(structure.blocks, structure.z_slices, structure.w_slices)):
        scale = tiny if k == 0 else rng.uniform(0.5, 2.0)
        if blk.is_scalar:
            X = rng.standard_normal((blk.z_size, blk.z_size)) + 1j * rng.standard_normal((blk.z_size, blk.z_size))
            Q, _ = np.linalg.qr(X)
            D = Q @ np.diag(scale * rng.uniform(0.5, 1.0, blk.z_size)) @ Q.conj().T
            Dz[0, zs, zs] = Dw[0, ws, ws] = D
        else:
            Dz[0, zs, zs] = scale * np.eye(blk.z_size)
            Dw[0, ws, ws] = scale * np.eye(blk.w_size)
        if blk.kind == "real":
            X = rng.standard_normal((blk.z_size, blk.z_size)) + 1j * rng.standard_normal((blk.z_size, blk.z_size))
            G[0, ws, zs] = X + X.conj().T
    level, scalings = certify_scalings(M, structure, Dz, Dw, G)
    assert np.isfinite(level[0])
    assert_proves(M[0], structure, scalings, 0, np.full(m, level[0]))


@settings(max_examples=20)
@given(seed=st.integers(0, 2**31 - 1), sizes=st.lists(st.integers(1, 3), min_size=1, max_size=3))
def test_skew_level_is_certified(seed, sizes):
    """Level on the performance block only (worst-case gain): LMI = H - diag(Dw_Delta, t Dw_p)."""
    blocks = tuple(real_block(r) for r in sizes) + (full_block(1, 2),)
    structure = BlockStructure(blocks)
    rng = np.random.default_rng(seed)
    n, m = structure.n, structure.m
    M = rng.standard_normal((1, n, m)) + 1j * rng.standard_normal((1, n, m))
    M[:, :-2, :-1] *= 0.1  # mu of the Delta loop < 1: a finite gain exists
    level_w = np.arange(m) >= m - 1
    Dz = np.eye(n)[None].astype(complex)
    Dw = np.eye(m)[None].astype(complex)
    Dz[:, -2:, -2:] *= 1e-2
    Dw[:, -1:, -1:] *= 1e-2
    level, scalings = certify_scalings(M, structure, Dz, Dw, np.zeros((1, m, n)), level_w)
    assert np.isfinite(level[0]) and level[0] > 0
    assert_proves(M[0], structure, scalings, 0, np.where(level_w, level[0], 1.0))


@settings(max_examples=15)
@given(seed=st.integers(0, 2**31 - 1), repeat=st.integers(2, 3), count=st.integers(1, 3),
       with_full=st.booleans())
def test_refinement_never_raises_the_bound(seed, repeat, count, with_full):
    """Method of centres from the descent's certificate: the result is the min of two certified
    bounds, so it is <= the start exactly, and its own scalings prove it."""
    blocks = [real_block(repeat)] * count + ([full_block(2)] if with_full else [complex_block(2)])
    structure = BlockStructure(tuple(blocks))
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((2, structure.n, structure.m)) + 1j * rng.standard_normal((2, structure.n, structure.m))
    start, scalings, _ = mu_upper_bound(M, structure, iterations=5)
    refined, found = refine_rows(M, structure, start, scalings, np.arange(2))
    assert np.all(refined <= start)
    for i in range(2):
        assert_proves(M[i], structure, found, i, np.full(structure.m, refined[i] ** 2))


def test_ab13md_case_with_a_vanishing_scaling():
    """The case of issue 15: the descent drives one real block's D to ~1e-12 of the others
    (G alone handles that block); the returned scalings must still prove the bound."""
    rng = np.random.default_rng(7)
    M = None
    for _ in range(8):
        M = rng.standard_normal((5, 5)) + 1j * rng.standard_normal((5, 5))
    blocks = [real_block(), complex_block(), full_block(2), real_block()]
    result = mussv(M, blocks, lower=False)
    d = np.real(np.diagonal(result.scalings.Dw))
    assert d.min() >= 1e-13 * d.max()  # regularised away from singular (smallest floor)
    assert_proves(M, BlockStructure.parse(blocks), result.scalings, (), np.full(5, float(result.dg_upper) ** 2))


@pytest.mark.parametrize("scale", [1e-40, 1e40])
def test_certificate_is_scale_free(scale):
    """Scaling M scales mu (and the certified bound) exactly, far from 1: no absolute tolerance."""
    rng = np.random.default_rng(3)
    M = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    blocks = [real_block(), complex_block(2)]
    a = mussv(M, blocks, lower=False)
    b = mussv(scale * M, blocks, lower=False)
    assert float(b.dg_upper) == pytest.approx(scale * float(a.dg_upper), rel=1e-4)
    assert_proves(scale * M, BlockStructure.parse(blocks), b.scalings, (), np.full(3, float(b.dg_upper) ** 2))
