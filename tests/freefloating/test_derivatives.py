"""∂H/∂q (closed form) vs central finite differences; Ḣ (paper's eqs. 65-79, any base twist) vs Σ∂H/∂qₖq̇ₖ.

Spec §11 tests 5, 6, 22.  The two Ḣ routes share no code beyond the kinematics: one is the
paper's Darboux-rate route with an arbitrary (non-zero-momentum) base twist, the other the
batched closed-form joint derivatives.  Tolerances: finite differences with h = 1e-6 have
O(h²)·|∂³H| ≈ 1e-10 truncation and ~1e-10·|H|/h rounding, so 1e-7 relative is a safe bound;
the analytic identities agree to rounding (1e-12 relative).
"""

import numpy as np
import pytest
from oracle import random_model, random_state

from satdyn.freefloating import (
    block_derivatives,
    block_derivatives_dh_route,
    christoffel_matrix,
    coriolis_terms,
    generalized_inertia,
    generalized_inertia_rate,
    inertia_blocks,
)


@pytest.mark.parametrize("n", [1, 3, 7])
def test_dH_dq_vs_finite_differences(n):
    rng = np.random.default_rng(20 + n)
    model = random_model(n, 20 + n)
    r0, R0, q, _ = random_state(rng, n)
    der = block_derivatives(model, inertia_blocks(model, q, r0, R0))
    h = 1e-6
    scale = np.abs(der.H).max()
    for k in range(n):
        e = np.zeros(n)
        e[k] = h
        bp, bm = inertia_blocks(model, q + e, r0, R0), inertia_blocks(model, q - e, r0, R0)
        np.testing.assert_allclose(der.dH0[k], (bp.H0 - bm.H0) / (2 * h), atol=1e-7 * scale)
        np.testing.assert_allclose(der.dH0m[k], (bp.H0m - bm.H0m) / (2 * h), atol=1e-7 * scale)
        np.testing.assert_allclose(der.dHm[k], (bp.Hm - bm.Hm) / (2 * h), atol=1e-7 * scale)
        fd = (generalized_inertia(model, q + e) - generalized_inertia(model, q - e)) / (2 * h)
        np.testing.assert_allclose(der.dH[k], fd, atol=1e-7 * scale)


@pytest.mark.parametrize("n", [2, 6])
def test_Hdot_paper_route_equals_sum_of_partials(n):
    rng = np.random.default_rng(30 + n)
    model = random_model(n, 30 + n)
    r0, R0, q, qd = random_state(rng, n)
    blocks = inertia_blocks(model, q, r0, R0)
    dH = block_derivatives(model, blocks).dH
    for _ in range(3):
        tw = 3.0 * rng.normal(size=6)   # arbitrary base twist: Ḣ must not depend on it
        Hdot = generalized_inertia_rate(model, blocks, tw, qd)
        np.testing.assert_allclose(Hdot, np.einsum("kij,k->ij", dH, qd), atol=1e-12 * np.abs(Hdot).max())


def test_christoffel_skew_property_and_coriolis():
    n = 5
    rng = np.random.default_rng(7)
    model = random_model(n, 7)
    _, _, q, qd = random_state(rng, n)
    dH = block_derivatives(model, inertia_blocks(model, q)).dH
    Cmat = christoffel_matrix(dH, qd)
    np.testing.assert_allclose(Cmat @ qd, coriolis_terms(dH, qd), atol=1e-12)
    N = np.einsum("kij,k->ij", dH, qd) - 2 * Cmat
    np.testing.assert_allclose(N, -N.T, atol=1e-12)


@pytest.mark.parametrize("n", [1, 4, 7])
def test_dH_dq_closed_form_equals_paper_transform_route(n):
    """Spec §11.5: the paper's transform-derivative route (eqs. 83-94) and the closed-form identities agree to 1e-12."""
    rng = np.random.default_rng(35 + n)
    model = random_model(n, 35 + n)
    r0, R0, q, _ = random_state(rng, n)
    blocks = inertia_blocks(model, np.stack([q, -q]), r0, R0)
    a, b = block_derivatives(model, blocks), block_derivatives_dh_route(model, blocks)
    for field in ("dH0", "dH0m", "dHm", "dH"):
        ref = getattr(a, field)
        np.testing.assert_allclose(getattr(b, field), ref, atol=1e-12 * np.abs(a.H).max(), err_msg=field)
