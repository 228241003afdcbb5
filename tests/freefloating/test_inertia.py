"""Inertia blocks: kinetic-energy identity, H₀⁻¹ by Schur, CRBA (Pinocchio), base-pose invariance.

Spec §11 tests 1-4.  Oracles: eq. (26) summed body by body from eqs. (15)-(16) (a different
formula than the block matrices), ``np.linalg.inv``, ``satdyn.spatial.composite_inertia``
(classical parallel-axis route) and Pinocchio's CRBA with a free-flyer root.  Pinocchio's
base velocity is body-frame, so the comparison is Bᵀ𝒜B with B = diag(R₀, R₀, I) (spec §11.3).
Tolerances: 1e-12 relative for pure rounding, 1e-10 absolute on O(10-100) matrices vs CRBA.
"""

import numpy as np
import pinocchio as pin
import pytest
from oracle import pin_configuration, pinocchio_model, random_model, random_state

from satdyn.freefloating import (
    base_inertia_inverse,
    generalized_inertia,
    inertia_blocks,
    link_velocities,
    schur_complement_elements,
    system_mass_matrix,
)
from satdyn.spatial import composite_inertia, frame_change_matrix, skew


@pytest.mark.parametrize("n", range(1, 8))
def test_mass_matrix_matches_pinocchio_crba(n):
    rng = np.random.default_rng(100 + n)
    model = random_model(n, n)
    r0, R0, q, _ = random_state(rng, n)
    pm, pd, _ = pinocchio_model(model)
    M = pin.crba(pm, pd, pin_configuration(r0, R0, q))
    M = np.triu(M) + np.triu(M, 1).T
    A = system_mass_matrix(inertia_blocks(model, q, r0, R0))
    B = np.eye(6 + n)
    B[:6, :6] = frame_change_matrix(R0)
    np.testing.assert_allclose(B.T @ A @ B, M, atol=1e-10)


def test_kinetic_energy_identity():
    n = 6
    rng = np.random.default_rng(1)
    model = random_model(n, 1)
    r0, R0, q, qd = random_state(rng, n)
    tw = rng.normal(size=6)
    blocks = inertia_blocks(model, q, r0, R0)
    x = np.concatenate([tw, qd])
    T_blocks = 0.5 * x @ system_mass_matrix(blocks) @ x
    kin = blocks.kin
    rdot, w = link_velocities(kin, tw, qd)
    T_bodies = 0.5 * (tw[3:] @ kin.base_inertia @ tw[3:] + model.base_mass * tw[:3] @ tw[:3]
                      + np.einsum("ni,nij,nj->", w, kin.link_inertias, w)
                      + np.einsum("n,ni,ni->", model.link_masses, rdot, rdot))
    assert T_blocks == pytest.approx(T_bodies, rel=1e-12)


def test_schur_inverse_and_corrected_elements():
    n = 7
    rng = np.random.default_rng(2)
    model = random_model(n, 2)
    qs = rng.uniform(-np.pi, np.pi, (20, n))
    R0 = np.stack([random_state(rng, n)[1] for _ in range(20)])
    blocks = inertia_blocks(model, qs, rng.normal(size=(20, 3)), R0)
    inv = np.linalg.inv(blocks.H0)
    np.testing.assert_allclose(base_inertia_inverse(blocks), inv, atol=1e-12 * np.abs(inv).max())
    SU_matrix = blocks.HS + model.total_mass * skew(blocks.r0C) @ skew(blocks.r0C)
    SU_elements = schur_complement_elements(model, blocks)
    np.testing.assert_allclose(SU_elements, SU_matrix, atol=1e-12 * np.abs(SU_matrix).max())
    # S_U is the system inertia about the system CoM (classical parallel-axis route)
    kin = blocks.kin
    masses = np.concatenate([[model.base_mass], model.link_masses])
    coms = np.concatenate([kin.base_position[:, None], kin.link_coms], axis=1)
    inertias = np.concatenate([kin.base_inertia[:, None], kin.link_inertias], axis=1)
    _, _, J = composite_inertia(np.broadcast_to(masses, (20, n + 1)), coms, inertias)
    np.testing.assert_allclose(SU_elements, J, atol=1e-11 * np.abs(J).max())


def test_printed_s22_s33_would_fail():
    """Negative control for erratum 21: the printed s₂₂ (r₀ᵢᵧ² + r₀ᵢ𝓏²) differs from the matrix path."""
    n = 3
    model = random_model(n, 5)
    blocks = inertia_blocks(model, np.array([0.3, -1.0, 2.0]))
    r, rc, m = blocks.r0i, blocks.r0C, model.link_masses
    I = blocks.kin.link_inertias
    printed_s22 = ((I[:, 1, 1] + m * (r[:, 1] ** 2 + r[:, 2] ** 2)).sum() + blocks.kin.base_inertia[1, 1]
                   - model.total_mass * (rc[0] ** 2 + rc[2] ** 2))
    assert abs(printed_s22 - schur_complement_elements(model, blocks)[1, 1]) > 1e-3


def test_generalized_inertia_base_invariant_and_spd():
    n = 7
    rng = np.random.default_rng(4)
    model = random_model(n, 4)
    q = rng.uniform(-np.pi, np.pi, (10, n))
    H = generalized_inertia(model, q)
    for _ in range(3):
        r0, R0, _, _ = random_state(rng, n)
        np.testing.assert_allclose(generalized_inertia(model, q, r0, R0), H, atol=1e-12 * np.abs(H).max())
    assert np.all(np.linalg.eigvalsh(H) > 0)
    blocks = inertia_blocks(model, q)
    assert np.all(np.linalg.eigvalsh(blocks.H0) > 0)
    np.testing.assert_allclose(H, np.swapaxes(H, -1, -2), atol=0)


def test_batched_equals_single():
    n = 4
    model = random_model(n, 6)
    q = np.random.default_rng(6).uniform(-3, 3, (2, 3, n))
    H = generalized_inertia(model, q)
    np.testing.assert_allclose(H[1, 2], generalized_inertia(model, q[1, 2]), atol=1e-14)
