"""Method of centres for the D-G upper bound with repeated scalar blocks (``mu_centers``).

References used:
- the barrier's gradient and Hessian against central finite differences of the barrier value
  and of the gradient (step 1e-6: truncation error ~1e-12 relative, rounding ~1e-9);
- the D-G optimum from the cvxpy LMI (``lmi_upper_bound``, Clarabel, bisection to 1e-6) on
  small repeated-real problems where the interior-point solver is reliable: agreement 1e-3
  relative, the accuracy the refinement promises (it stops at an estimated 1e-4 on beta^2);
- the certificate itself: lambda_max(M^H D M + j(GM - M^H G) - beta^2 D) <= 0 with D > 0.
"""

import numpy as np
import pytest

from satdyn.robust import complex_block, lmi_upper_bound, mussv, real_block
from satdyn.robust.mu_centers import (
    _barrier_terms,
    _CentersLayout,
    _pencil_max,
    centers_upper_bound,
    needs_refinement,
)
from satdyn.robust.mu_upper import mu_upper_bound
from satdyn.robust.structure import BlockStructure


def lightly_damped_system(n, parameters, repeat, seed):
    """Stable n-state system with light modes and Delta channels B (n, p r), C (p r, n)."""
    rng = np.random.default_rng(seed)
    A = np.zeros((n, n))
    for i, w in enumerate(np.geomspace(0.5, 20, n // 2)):
        zeta = rng.uniform(0.01, 0.1)
        A[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[0, 1], [-w * w, -2 * zeta * w]]
    T = np.eye(n) + 0.1 * rng.standard_normal((n, n))
    A = T @ A @ np.linalg.inv(T)
    nd = parameters * repeat
    return A, 0.3 * rng.standard_normal((n, nd)), 0.3 * rng.standard_normal((nd, n))


def frequency_response(A, B, C, w):
    n = A.shape[0]
    return C @ np.linalg.solve(1j * np.asarray(w)[:, None, None] * np.eye(n) - A, B)


def certificate_residual(M, Dz, G, beta):
    """max over rows of lambda_max(LMI) / (beta^2 ||D||): <= 0 means beta is certified."""
    MH = np.conj(np.swapaxes(M, -1, -2))
    lmi = MH @ Dz @ M + 1j * (G @ M - MH @ np.conj(np.swapaxes(G, -1, -2))) - beta[:, None, None] ** 2 * Dz
    lmi = 0.5 * (lmi + np.conj(np.swapaxes(lmi, -1, -2)))
    top = np.linalg.eigvalsh(lmi)[:, -1]
    return top / (beta**2 * np.linalg.norm(Dz, 2, axis=(1, 2)))


def test_barrier_gradient_and_hessian_match_finite_differences():
    rng = np.random.default_rng(0)
    structure = BlockStructure.parse([real_block(2), complex_block(3), real_block(1), real_block(2)])
    F, n = 2, structure.n
    M = 0.3 * (rng.standard_normal((F, n, n)) + 1j * rng.standard_normal((F, n, n)))
    layout = _CentersLayout(structure)
    eye = [np.broadcast_to(np.eye(b.z_size), (F, b.z_size, b.z_size)).astype(complex) for b in structure.blocks]
    y = layout.pack(eye, [0.1 * e for e in eye]) + 0.05 * rng.standard_normal((F, layout.size))
    D, G = layout.assemble(y)
    t = 1.5 * _pencil_max(M, D, G)
    value, grad, hess, ok = _barrier_terms(M, layout, y, t)
    assert np.all(ok)
    step = 1e-6
    grad_fd = np.zeros_like(grad)
    hess_fd = np.zeros_like(hess)
    for a in range(layout.size):
        e = np.zeros(layout.size)
        e[a] = step
        vp, gp, *_ = _barrier_terms(M, layout, y + e, t)
        vm, gm, *_ = _barrier_terms(M, layout, y - e, t)
        grad_fd[:, a] = (vp - vm) / (2 * step)
        hess_fd[:, :, a] = (gp - gm) / (2 * step)
    assert np.max(np.abs(grad - grad_fd)) < 1e-7 * np.max(np.abs(grad))
    assert np.max(np.abs(hess - hess_fd)) < 1e-7 * np.max(np.abs(hess))
    assert np.allclose(hess, np.swapaxes(hess, 1, 2), atol=1e-12 * np.max(np.abs(hess)))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_refined_bound_matches_the_lmi_optimum(seed):
    A, B, C = lightly_damped_system(8, 3, 3, seed)
    M = frequency_response(A, B, C, [0.7, 2.0, 5.0])
    structure = BlockStructure.parse([real_block(3)] * 3)
    fast, scalings, _ = mu_upper_bound(M, structure)
    beta2, Dz, G, error, steps = centers_upper_bound(M, structure, scalings.Dz, scalings.G)
    beta = np.sqrt(beta2)
    reference = np.array([lmi_upper_bound(Mi, structure, tol=1e-6) for Mi in M])
    assert np.all(np.abs(beta - reference) <= 1e-3 * reference), (beta, reference, fast)
    assert np.all(beta <= fast * (1 + 1e-12))
    assert np.all(error <= 1e-4) and np.all(steps < 400)
    assert np.all(certificate_residual(M, Dz, G, beta) <= 1e-9)
    for zs in structure.z_slices:
        assert np.all(np.linalg.eigvalsh(Dz[:, zs, zs])[:, 0] > 0)


def test_mussv_refines_the_peak_and_keeps_every_bound_valid():
    A, B, C = lightly_damped_system(8, 3, 3, 2)  # the descent alone is 8.8 % high at the peak
    w = np.geomspace(0.3, 30, 25)
    M = frequency_response(A, B, C, w)
    blocks = [real_block(3)] * 3
    fast = mussv(M, blocks, lower=False, refine=False)
    peak = mussv(M, blocks, lower=False, refine="peak")
    every = mussv(M, blocks, lower=False, refine=True)
    # the supremum over the grid is the converged one; every bound stays an upper bound
    assert peak.upper.max() == pytest.approx(every.upper.max(), rel=1e-3)
    assert peak.upper.max() < fast.upper.max() * (1 - 0.05)
    assert np.all(every.upper <= peak.upper * (1 + 1e-3))
    assert np.all(peak.upper <= fast.upper * (1 + 1e-12))
    # 1e-8: rounding of lambda_max for the descent's scalings, whose D is ill-conditioned (~1e3)
    assert np.all(certificate_residual(M, peak.scalings.Dz, peak.scalings.G, peak.upper) <= 1e-8)


def test_refinement_only_where_the_descent_stalls():
    assert needs_refinement(BlockStructure.parse([real_block(2), complex_block(1)]))
    assert not needs_refinement(BlockStructure.parse([real_block(1)] * 4))
    assert not needs_refinement(BlockStructure.parse([[-2, 0], [2, 3]]))  # a full block


def test_bad_refine_option_is_refused():
    with pytest.raises(ValueError, match="`refine`"):
        mussv(np.eye(2), [real_block(2)], refine="all")


def test_lmi_margin_brackets_the_refined_bound():
    """cvxpy's margin s*(beta) changes sign within 1e-3 around the refined bound."""
    from satdyn.robust import lmi_margin

    A, B, C = lightly_damped_system(8, 3, 3, 2)
    M = frequency_response(A, B, C, [0.7])
    structure = BlockStructure.parse([real_block(3)] * 3)
    _, scalings, _ = mu_upper_bound(M, structure)
    beta2, Dz, _, _, _ = centers_upper_bound(M, structure, scalings.Dz, scalings.G)
    beta = float(np.sqrt(beta2[0]))
    below, _ = lmi_margin(M[0], structure, beta * (1 - 1e-3), similarity=Dz[0])
    above, _ = lmi_margin(M[0], structure, beta * (1 + 1e-3), similarity=Dz[0])
    assert below > 0 > above
    with pytest.raises(ValueError, match="`beta`"):
        lmi_margin(M[0], structure, -1.0)


def test_robust_stability_uses_the_converged_peak():
    """The stability margin's lower bound is 1 / the converged D-G peak over its own grid."""
    from satdyn.robust.mdelta import mdelta_system
    from satdyn.robust.stability import robust_stability_mdelta

    A, B, C = lightly_damped_system(8, 3, 3, 2)
    system = mdelta_system(A, B, C, np.zeros((9, 9)), [3, 3, 3])
    result = robust_stability_mdelta(system, directions=16)
    M = frequency_response(A, B, C, result.frequencies)
    # refine="peak" converges every bound that could exceed the maximum (checked against
    # refine=True above); the convergence itself is checked against the LMI above
    converged = mussv(M, [real_block(3)] * 3, lower=False, refine="peak").upper
    fast = mussv(M, [real_block(3)] * 3, lower=False, refine=False).upper
    assert result.lower == pytest.approx(1.0 / converged.max(), rel=1e-3)
    assert result.lower > 1.0 / fast.max()
    assert result.lower <= result.upper
