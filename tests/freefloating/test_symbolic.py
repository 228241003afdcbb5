"""Symbolic back-end ≡ numeric path (spec §11.14) for N = 2, 3, both variants.

Reference: the batched numeric implementation (itself checked against Pinocchio).  Both are
exact formulas evaluated in double precision, so agreement is at rounding level (1e-12
relative).  Also: full and partial symbolic simulations give identical trajectories.
"""

import numpy as np
import pytest
from oracle import random_model

from satdyn.freefloating import generalized_jacobian, reduced_terms
from satdyn.freefloating.symbolic import symbolic_model
from satdyn.spatial import dcm_from_rotvec


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("variant", ["partial", "full"])
def test_symbolic_equals_numeric(n, variant):
    model = random_model(n, 90 + n)
    sym = symbolic_model(model, variant)
    rng = np.random.default_rng(n)
    for _ in range(3):
        q, qd = rng.uniform(-np.pi, np.pi, n), rng.normal(size=n)
        R0 = dcm_from_rotvec(rng.normal(size=3))
        t = reduced_terms(model, q, qd)
        H, C, J = sym.evaluate(q, qd, base_attitude=R0)
        np.testing.assert_allclose(H, t.H, atol=1e-12 * np.abs(t.H).max())
        np.testing.assert_allclose(C, t.C, atol=1e-12 * max(np.abs(t.C).max(), 1.0))
        np.testing.assert_allclose(J, generalized_jacobian(model, q, base_attitude=R0), atol=1e-12)


def test_cached_and_guarded():
    model = random_model(2, 92)
    assert symbolic_model(model, "partial") is symbolic_model(model, "partial")
    with pytest.raises(ValueError, match="N <= 3"):
        symbolic_model(random_model(4, 1), "full")
    with pytest.raises(ValueError, match="variant"):
        symbolic_model(model, "hybrid")


def test_full_and_partial_symbolic_trajectories_agree():
    """Integrate H q̈ + C = τ (a PD law) with both variants: identical trajectories."""
    from scipy.integrate import solve_ivp
    model = random_model(2, 93)
    n = 2
    out = []
    for variant in ("partial", "full"):
        sym = symbolic_model(model, variant)

        def rhs(t, y, sym=sym):
            q, qd = y[:n], y[n:]
            H, C, _ = sym.evaluate(q, qd)
            tau = 2.0 * (np.sin(t) - q) - qd
            return np.concatenate([qd, np.linalg.solve(H, tau - C)])
        out.append(solve_ivp(rhs, (0, 3), np.array([0.3, -0.2, 0.5, 0.1]), method="DOP853", rtol=1e-11,
                             atol=1e-12, t_eval=np.linspace(0, 3, 7)).y)
    np.testing.assert_allclose(out[0], out[1], atol=1e-10)
