"""Inertia blocks H₀, H₀ₘ, Hₘ, the generalized inertia H and H₀⁻¹ by the Schur route.

Paper Front. Robot. AI 5:41 (2018) eqs. (26)-(36), (45), (51)-(61), closed form and batched over configurations.
All blocks are in the inertial frame 𝒥 and refer to the paper's inertial-frame base
twist [v0; ω0] (the body-frame form is ``diag(R0,R0,I)ᵀ 𝒜 diag(R0,R0,I)``).

Arguments (dimensions)
----------------------
* ``model`` : SpacecraftManipulator (N joints).
* ``q`` (..., N) [rad]; ``base_position`` (..., 3) [m]; ``base_attitude`` (..., 3, 3).
* ``kin`` : :class:`~satdyn.freefloating.kinematics.Kinematics` of the same batch.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..spatial.unchecked import skew as _skew  # trusted inputs: inner loop
from .kinematics import Kinematics, _check_config, _cross, _forward_kinematics

__all__ = [
    "InertiaBlocks",
    "inertia_blocks",
    "blocks_from_kinematics",
    "generalized_inertia",
    "system_mass_matrix",
    "base_inertia_inverse",
    "schur_complement_elements",
    "translational_jacobians",
]


@dataclasses.dataclass(frozen=True)
class InertiaBlocks:
    """The blocks of T = ½ [ẋ₀; q̇]ᵀ [[H₀, H₀ₘ], [H₀ₘᵀ, Hₘ]] [ẋ₀; q̇] for a batch of configurations.

    Attributes
    ----------
    kin : Kinematics
    H0 : ndarray, shape (..., 6, 6)
        Base inertia (eq. 28).
    H0m : ndarray, shape (..., 6, N)
        Coupling inertia (eq. 31).
    Hm : ndarray, shape (..., N, N)
        Manipulator inertia (eq. 36).
    HS : ndarray, shape (..., 3, 3)
        Whole-system inertia about the base CoM (eq. 29).
    r0C : ndarray, shape (..., 3)
        Base CoM → system CoM (eq. 13).
    r0i : ndarray, shape (..., N, 3)
        Base CoM → link CoMs (eq. 11).
    JT, JR : ndarray, shape (..., N, 3, N)
        J_Ti and J_Ri of every link i (eqs. 33, 35).
    """

    kin: Kinematics
    H0: np.ndarray
    H0m: np.ndarray
    Hm: np.ndarray
    HS: np.ndarray
    r0C: np.ndarray
    r0i: np.ndarray
    JT: np.ndarray
    JR: np.ndarray
    total_mass: float


def translational_jacobians(kin: Kinematics, points) -> np.ndarray:
    """Columns kₗ × (xᵢ − pₗ) for points xᵢ on links i = 1..N, zero for l > i (eq. 33).

    Parameters
    ----------
    kin : Kinematics
    points : ndarray, shape (..., N, 3)
        One point per link (row i on link i+1).

    Returns
    -------
    ndarray, shape (..., N, 3, N)
    """
    n = kin.joint_axes.shape[-2]
    d = points[..., :, None, :] - kin.joint_positions[..., None, :, :]  # (..., i, l, 3)
    J = _cross(kin.joint_axes[..., None, :, :], d) * np.tril(np.ones((n, n)))[:, :, None]
    return np.swapaxes(J, -1, -2)


def blocks_from_kinematics(model, kin: Kinematics) -> InertiaBlocks:
    """H₀, H₀ₘ, Hₘ from already computed kinematics (see :func:`inertia_blocks`)."""
    n = model.n_joints
    m = model.link_masses
    mt = model.total_mass
    lower = np.tril(np.ones((n, n)))
    r0i = kin.link_coms - kin.base_position[..., None, :]
    r0C = np.einsum("n,...ni->...i", m, r0i) / mt
    X = _skew(r0i)
    HS = kin.base_inertia + (kin.link_inertias - m[:, None, None] * (X @ X)).sum(axis=-3)
    C = _skew(r0C)
    batch = r0C.shape[:-1]
    H0 = np.zeros(batch + (6, 6))
    H0[..., :3, :3] = mt * np.eye(3)
    H0[..., :3, 3:] = -mt * C
    H0[..., 3:, :3] = mt * C
    H0[..., 3:, 3:] = HS
    JT = translational_jacobians(kin, kin.link_coms)
    JR = np.swapaxes(kin.joint_axes[..., None, :, :] * lower[:, :, None], -1, -2)
    mJT = m[:, None, None] * JT
    IJR = kin.link_inertias @ JR
    H0m = np.concatenate([mJT.sum(axis=-3), (IJR + X @ mJT).sum(axis=-3)], axis=-2)
    Hm = (np.swapaxes(JR, -1, -2) @ IJR + np.swapaxes(JT, -1, -2) @ mJT).sum(axis=-3)
    return InertiaBlocks(kin, H0, H0m, Hm, HS, r0C, r0i, JT, JR, mt)


def inertia_blocks(model, q, base_position=None, base_attitude=None) -> InertiaBlocks:
    """Inertia blocks H₀, H₀ₘ, Hₘ at a batch of configurations (eqs. 28-36).

    Parameters
    ----------
    model : SpacecraftManipulator
    q : array_like, shape (..., N)
    base_position : array_like, shape (..., 3), optional
    base_attitude : array_like, shape (..., 3, 3), optional

    Returns
    -------
    InertiaBlocks
    """
    q, r0, R0 = _check_config(model, q, base_position, base_attitude)
    return blocks_from_kinematics(model, _forward_kinematics(model, q, r0, R0))


def schur_complement_elements(model, blocks: InertiaBlocks) -> np.ndarray:
    """S_U from the element formulas (54)-(59), with the corrected s₂₂ and s₃₃.

    The paper prints r₀ᵢᵧ² + r₀ᵢ𝓏² in s₂₂ and s₃₃; the correct terms are r₀ᵢₓ² + r₀ᵢ𝓏² and
    r₀ᵢₓ² + r₀ᵢᵧ² (implementation notes §9 item 21).  Iₓᵧ etc. are the signed matrix entries of Iᵢ in 𝒥.
    Equal to ``H_S + m_tot r₀C^× r₀C^×`` (eq. 53), the system inertia about the system CoM.

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    return _schur_complement_elements(blocks, model.link_masses)


def _schur_complement_elements(blocks: InertiaBlocks, link_masses) -> np.ndarray:
    I = blocks.kin.link_inertias
    I0 = blocks.kin.base_inertia
    r, rc, m, mt = blocks.r0i, blocks.r0C, link_masses, blocks.total_mass
    x, y, z = r[..., 0], r[..., 1], r[..., 2]
    cx, cy, cz = rc[..., 0], rc[..., 1], rc[..., 2]

    def s(a, b, diag_terms, cross):
        if diag_terms is not None:
            u, v, cu, cv = diag_terms
            return ((I[..., a, a] + m * (u**2 + v**2)).sum(-1) + I0[..., a, a] - mt * (cu**2 + cv**2))
        u, v, cu, cv = cross
        return (I[..., a, b] - m * u * v).sum(-1) + I0[..., a, b] + mt * cu * cv

    S = np.empty(rc.shape[:-1] + (3, 3))
    S[..., 0, 0] = s(0, 0, (y, z, cy, cz), None)
    S[..., 1, 1] = s(1, 1, (x, z, cx, cz), None)   # corrected (paper: r0iy² + r0iz²)
    S[..., 2, 2] = s(2, 2, (x, y, cx, cy), None)   # corrected (paper: r0iy² + r0iz²)
    S[..., 0, 1] = S[..., 1, 0] = s(0, 1, None, (x, y, cx, cy))
    S[..., 0, 2] = S[..., 2, 0] = s(0, 2, None, (x, z, cx, cz))
    S[..., 1, 2] = S[..., 2, 1] = s(1, 2, None, (y, z, cy, cz))
    return S


def _inverse_sym3(S):
    """Inverse of symmetric 3x3 matrices by the adjugate, eqs. (60)-(61)."""
    s11, s12, s13 = S[..., 0, 0], S[..., 0, 1], S[..., 0, 2]
    s22, s23, s33 = S[..., 1, 1], S[..., 1, 2], S[..., 2, 2]
    det = s11 * s22 * s33 + 2 * s12 * s13 * s23 - s11 * s23**2 - s22 * s13**2 - s33 * s12**2
    A = np.empty(S.shape)
    A[..., 0, 0] = s22 * s33 - s23**2
    A[..., 1, 1] = s11 * s33 - s13**2
    A[..., 2, 2] = s11 * s22 - s12**2
    A[..., 0, 1] = A[..., 1, 0] = s13 * s23 - s12 * s33
    A[..., 0, 2] = A[..., 2, 0] = s12 * s23 - s13 * s22
    A[..., 1, 2] = A[..., 2, 1] = s12 * s13 - s11 * s23
    return A / det[..., None, None]


def base_inertia_inverse(blocks: InertiaBlocks) -> np.ndarray:
    """H₀⁻¹ by the Banachiewicz/Schur formula (52) with S_U = H_S + m_tot r₀C^× r₀C^× (53).

    Returns
    -------
    ndarray, shape (..., 6, 6)
    """
    C = _skew(blocks.r0C)
    SU = blocks.HS + blocks.total_mass * (C @ C)
    Si = _inverse_sym3(SU)
    out = np.empty(SU.shape[:-2] + (6, 6))
    out[..., :3, :3] = np.eye(3) / blocks.total_mass - C @ Si @ C
    out[..., :3, 3:] = C @ Si
    out[..., 3:, :3] = -Si @ C
    out[..., 3:, 3:] = Si
    return out


def _reduced(blocks: InertiaBlocks, H0inv=None):
    """H = Hₘ − H₀ₘᵀ H₀⁻¹ H₀ₘ (eq. 45) and H₀⁻¹H₀ₘ."""
    H0inv = base_inertia_inverse(blocks) if H0inv is None else H0inv
    G = H0inv @ blocks.H0m
    H = blocks.Hm - np.swapaxes(blocks.H0m, -1, -2) @ G
    return 0.5 * (H + np.swapaxes(H, -1, -2)), G


def generalized_inertia(model, q, base_position=None, base_attitude=None, backend="numpy") -> np.ndarray:
    """Generalized inertia H(q) = Hₘ − H₀ₘᵀH₀⁻¹H₀ₘ (eq. 45), batched.

    H depends on q only (implementation notes §4.2 fact 1); the base pose arguments exist to check that.

    Parameters
    ----------
    model : SpacecraftManipulator
    q : array_like, shape (..., N)
    backend : {"numpy", "pinocchio"}
        "pinocchio" evaluates H with Pinocchio's CRBA (:mod:`satdyn.freefloating.backend`).

    Returns
    -------
    ndarray, shape (..., N, N)
    """
    from .backend import check_backend, pinocchio_terms
    if check_backend(backend) == "pinocchio":
        return pinocchio_terms(model, q, base_position=base_position, base_attitude=base_attitude).H
    return _reduced(inertia_blocks(model, q, base_position, base_attitude))[0]


def system_mass_matrix(blocks: InertiaBlocks) -> np.ndarray:
    """The (6+N) matrix 𝒜 = [[H₀, H₀ₘ], [H₀ₘᵀ, Hₘ]] of eq. (27) (inertial-frame base twist)."""
    top = np.concatenate([blocks.H0, blocks.H0m], axis=-1)
    bottom = np.concatenate([np.swapaxes(blocks.H0m, -1, -2), blocks.Hm], axis=-1)
    return np.concatenate([top, bottom], axis=-2)
