"""Joint-angle and time derivatives of the inertia blocks; Coriolis terms of the reduced model.

* ∂H₀/∂qₖ, ∂H₀ₘ/∂qₖ, ∂Hₘ/∂qₖ, ∂H/∂qₖ (eqs. 80-102) by the closed-form identities of
  implementation notes §4.5 (∂kₗ/∂qₖ = kₖ×kₗ, ∂rᵢ/∂qₖ = kₖ×(rᵢ−pₖ), ∂Iᵢ/∂qₖ = [kₖ^×, Iᵢ], all k at once,
  base pose held fixed) — batched, no products of DH matrices.
* Ḣ₀, Ḣ₀ₘ, Ḣₘ, Ḣ (eqs. 62-79) with an **arbitrary** inertial-frame base twist
  (an independent code path: the paper's Darboux-rate route).
* Coriolis vector c (eq. 48 with its minus sign, lost in the rendering), C = Ḣq̇ + c
  (eq. 49) and the Christoffel matrix whose Ḣ − 2C_mat is skew.

Arguments (dimensions)
----------------------
* ``model`` : SpacecraftManipulator (N joints); ``blocks`` : InertiaBlocks of a batch.
* ``qdot`` (..., N) [rad/s]; ``base_twist`` (..., 6) [v0; ω0] in 𝒥.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..spatial.unchecked import skew as _skew  # trusted inputs: inner loop
from .kinematics import _cross
from .inertia import InertiaBlocks, _reduced, base_inertia_inverse

__all__ = [
    "BlockDerivatives",
    "block_derivatives",
    "block_derivatives_dh_route",
    "inertia_derivative",
    "block_rates",
    "generalized_inertia_rate",
    "coriolis_vector",
    "coriolis_terms",
    "christoffel_matrix",
]


def _t(a):
    return np.swapaxes(a, -1, -2)


@dataclasses.dataclass(frozen=True)
class BlockDerivatives:
    """∂/∂qₖ of the blocks, k along axis ``-3`` (shape (..., N, rows, cols)); base pose fixed."""

    dH0: np.ndarray
    dH0m: np.ndarray
    dHm: np.ndarray
    dH: np.ndarray
    H: np.ndarray
    H0inv_H0m: np.ndarray


def block_derivatives(model, blocks: InertiaBlocks, H0inv=None) -> BlockDerivatives:
    """All ∂H₀/∂qₖ, ∂H₀ₘ/∂qₖ, ∂Hₘ/∂qₖ and ∂H/∂qₖ (eqs. 81-102) by closed-form identities.

    Returns
    -------
    BlockDerivatives
        Arrays of shapes (..., N, 6, 6), (..., N, 6, N), (..., N, N, N), (..., N, N, N).
    """
    kin = blocks.kin
    n = model.n_joints
    k = kin.joint_axes                 # (..., N, 3)
    JT = blocks.JT                     # (..., i, 3, l)
    I = kin.link_inertias              # (..., i, 3, 3)
    K = _skew(k)                       # (..., k, 3, 3)
    kk = np.arange(n)
    upto = (kk[:, None] <= kk[None, :]).astype(float)       # [k, i]: k <= i
    strictly = (kk[:, None] < kk[None, :]).astype(float)    # [k, l]: k < l

    # ∂rᵢ/∂qₖ = column k of J_Ti  -> (..., k, i, 3)
    dr = np.einsum("...ial->...lia", JT)
    # ∂Iᵢ/∂qₖ = kₖ^× Iᵢ − Iᵢ kₖ^×  for k <= i
    KI = K[..., :, None, :, :] @ I[..., None, :, :, :]
    dI = (KI + _t(KI)) * upto[:, :, None, None]  # (kₖ^× Iᵢ)ᵀ = −Iᵢ kₖ^×
    # ∂J_Ri/∂qₖ column l = kₖ × kₗ for k < l <= i
    kxk = _cross(k[..., :, None, :], k[..., None, :, :]) * strictly[:, :, None]  # (..., k, l, 3)
    lower = np.tril(np.ones((n, n)))                                                # [i, l]: l <= i
    dJR = np.swapaxes(kxk[..., :, None, :, :] * lower[:, :, None], -1, -2)         # (..., k, i, 3, l)
    # ∂J_Ti/∂qₖ column l:  k < l <= i: kₖ × J_Ti[:, l];  l <= k <= i: kₗ × J_Ti[:, k]
    JTc = np.swapaxes(JT, -1, -2)                                                   # (..., i, l, 3)
    a = _cross(k[..., :, None, None, :], JTc[..., None, :, :, :])                 # (..., k, i, l, 3)
    a = a * strictly[:, None, :, None]
    b = _cross(k[..., None, None, :, :], np.swapaxes(JTc, -3, -2)[..., :, :, None, :])  # kₗ × J_Ti[:,k]
    b = b * ((kk[None, None, :] <= kk[:, None, None]) * (kk[:, None, None] <= kk[None, :, None]))[..., None]
    dJT = np.swapaxes(a + b, -1, -2)                                                # (..., k, i, 3, l)
    return _assemble(model, blocks, dr, dI, dJT, dJR, H0inv)


def _assemble(model, blocks, dr, dI, dJT, dJR, H0inv):
    """∂H₀, ∂H₀ₘ, ∂Hₘ, ∂H (eqs. 81-82, 95-101) from ∂rᵢ, ∂Iᵢ, ∂J_Ti, ∂J_Ri (k on axis -4/-3)."""
    m = model.link_masses
    mt = blocks.total_mass
    JT, JR = blocks.JT, blocks.JR
    I = blocks.kin.link_inertias
    # H₀ derivatives (99)-(101)
    dr0C = np.einsum("i,...kia->...ka", m, dr) / mt
    X = _skew(blocks.r0i)[..., None, :, :, :]      # (..., 1, i, 3, 3)
    dX = _skew(dr)                                  # (..., k, i, 3, 3)
    dHS = (dI - m[:, None, None] * (dX @ X + X @ dX)).sum(axis=-3)
    C = _skew(dr0C)
    batch = dr0C.shape[:-1]
    dH0 = np.zeros(batch + (6, 6))
    dH0[..., :3, 3:] = -mt * C
    dH0[..., 3:, :3] = mt * C
    dH0[..., 3:, 3:] = dHS
    # H₀ₘ derivatives (95)-(97)
    JTb, JRb, Ib = JT[..., None, :, :, :], JR[..., None, :, :, :], I[..., None, :, :, :]
    mm = m[:, None, None]
    dJTS = (mm * dJT).sum(axis=-3)
    dHSq = (dI @ JRb + Ib @ dJR + mm * (dX @ JTb + X @ dJT)).sum(axis=-3)
    dH0m = np.concatenate([dJTS, dHSq], axis=-2)
    # Hₘ derivative (82)
    t1 = _t(dJR) @ Ib @ JRb
    t2 = mm * (_t(dJT) @ JTb)
    dHm = (t1 + _t(t1) + _t(JRb) @ dI @ JRb + t2 + _t(t2)).sum(axis=-3)
    # H derivative (81), written with G = H₀⁻¹H₀ₘ
    H, G = _reduced(blocks, H0inv)
    Gb = G[..., None, :, :]
    u = _t(dH0m) @ Gb
    dH = dHm - u - _t(u) + _t(Gb) @ dH0 @ Gb
    return BlockDerivatives(dH0, dH0m, dHm, dH, H, G)


def block_derivatives_dh_route(model, blocks: InertiaBlocks, H0inv=None) -> BlockDerivatives:
    """The same derivatives by the paper's route: products of transform derivatives (eqs. 83-94).

    ∂T/∂qₖ of every frame after joint k is T_Jₖ (∂Rz(qₖ)/∂qₖ) Pₖ₊₁ Rz(qₖ₊₁) ⋯ (eqs. 85-91, in the
    joint-placement form), from which ∂kₗ, ∂pₗ, ∂rᵢ, ∂R_Lᵢ, ∂Iᵢ (102), ∂J_Ti (93-94, corrected column
    index) and ∂J_Ri (92) follow.  No cross-product identities are used: an independent check of
    :func:`block_derivatives` (a Python loop over k and l; slower).
    """
    kin = blocks.kin
    n = model.n_joints
    batch = kin.joint_axes.shape[:-2]
    RJ = _joint_R(model, kin)
    Rz = np.swapaxes(RJ, -1, -2) @ kin.link_attitudes          # Rz(qᵢ) = R_Jᵢᵀ R_Kᵢ
    Sz = np.zeros((3, 3))
    Sz[0, 1], Sz[1, 0] = -1.0, 1.0
    dRz = Sz @ Rz                                               # ∂Rz/∂q = Ŝ_z Rz (eq. 84)
    dr = np.zeros(batch + (n, n, 3))
    dI = np.zeros(batch + (n, n, 3, 3))
    dk = np.zeros(batch + (n, n, 3))
    dp = np.zeros(batch + (n, n, 3))
    for k in range(n):
        dR = RJ[..., k, :, :] @ dRz[..., k, :, :]          # ∂R_Kₖ/∂qₖ; the origin pₖ does not move
        do = np.zeros(batch + (3,))
        for i in range(k, n):
            if i > k:                                       # ∂T_Jᵢ = ∂T_Kᵢ₋₁ Pᵢ, ∂T_Kᵢ = ∂T_Jᵢ Rz(qᵢ)
                P = model.joint_placements[i]
                do = do + dR @ P[:3, 3]
                dRJ = dR @ P[:3, :3]
                dk[..., k, i, :] = dRJ[..., :, 2]
                dp[..., k, i, :] = do
                dR = dRJ @ Rz[..., i, :, :]
            RK = kin.link_attitudes[..., i, :, :]
            dr[..., k, i, :] = do + dR @ model.link_coms[i]
            X = dR @ model.link_inertias[i] @ np.swapaxes(RK, -1, -2)
            dI[..., k, i, :, :] = X + np.swapaxes(X, -1, -2)           # eq. (102)
    lower = np.tril(np.ones((n, n)))[:, :, None]                          # [i, l]: l <= i
    d = kin.link_coms[..., :, None, :] - kin.joint_positions[..., None, :, :]      # rᵢ − pₗ (i, l)
    dd = dr[..., :, :, None, :] - dp[..., :, None, :, :]                            # ∂rᵢ − ∂pₗ (k, i, l)
    dJTc = (_cross(dk[..., :, None, :, :], d[..., None, :, :, :])
            + _cross(kin.joint_axes[..., None, None, :, :], dd)) * lower        # eq. (94)
    dJT = np.swapaxes(dJTc, -1, -2)
    dJR = np.swapaxes(dk[..., :, None, :, :] * lower, -1, -2)                    # eq. (92)
    return _assemble(model, blocks, dr, dI, dJT, dJR, H0inv)


def _joint_R(model, kin):
    """Attitudes R_Jᵢ of the joint frames (before the joint rotation)."""
    parents = np.concatenate([kin.base_attitude[..., None, :, :], kin.link_attitudes[..., :-1, :, :]], axis=-3)
    return parents @ model.joint_placements[:, :3, :3]


def inertia_derivative(model, blocks: InertiaBlocks) -> np.ndarray:
    """∂H/∂qₖ for every k, shape (..., N, N, N) (k on axis -3)."""
    return block_derivatives(model, blocks).dH


@dataclasses.dataclass(frozen=True)
class BlockRates:
    """Time derivatives Ḣ₀ (..., 6, 6), Ḣ₀ₘ (..., 6, N), Ḣₘ (..., N, N)."""

    H0dot: np.ndarray
    H0mdot: np.ndarray
    Hmdot: np.ndarray


def block_rates(model, blocks: InertiaBlocks, base_twist, qdot) -> BlockRates:
    """Ḣ₀, Ḣ₀ₘ, Ḣₘ by the paper's rate equations (66)-(79), for any base twist [v0; ω0] in 𝒥.

    Corrections applied (implementation notes §9 items 23-26): ω_{J₁} = ω₀ and the recursion runs for
    2 <= i <= N+1; zero blocks 0_{3,N−i}; ṗₖ is the velocity of ϱₖ as a point of link k−1;
    İ₀ = ω₀^×I₀ − I₀ω₀^×.
    """
    kin = blocks.kin
    n = model.n_joints
    m = model.link_masses
    tw = np.asarray(base_twist, dtype=float)
    qd = np.asarray(qdot, dtype=float)
    v0, w0 = tw[..., :3], tw[..., 3:]
    k, p, r = kin.joint_axes, kin.joint_positions, kin.link_coms
    kq = k * qd[..., None]
    wL = w0[..., None, :] + np.cumsum(kq, axis=-2)                    # ω of link i (eq. 16)
    wJ = np.concatenate([w0[..., None, :], wL[..., :-1, :]], axis=-2)  # ω of 𝒥ᵢ (eq. 68)
    kdot = _cross(wJ, k)                                            # (71)
    # velocities of the link CoMs and the joint origins (15)
    r0 = kin.base_position[..., None, :]
    rdot = v0[..., None, :] + _cross(w0[..., None, :], r - r0)
    pdot = v0[..., None, :] + _cross(w0[..., None, :], p - r0)
    rdot = rdot + _cross(np.cumsum(kq, axis=-2), r) - np.cumsum(_cross(kq, p), axis=-2)
    ckq = np.cumsum(kq, axis=-2)
    ckqp = np.cumsum(_cross(kq, p), axis=-2)
    zero = np.zeros_like(ckq[..., :1, :])
    before = np.concatenate([zero, ckq[..., :-1, :]], -2)      # Σ_{m<l} kₘq̇ₘ: ϱₗ sits on link l−1
    pdot = pdot + _cross(before, p) - np.concatenate([zero, ckqp[..., :-1, :]], -2)
    lower = np.tril(np.ones((n, n)))[:, :, None]
    # J̇_Ri, J̇_Ti (71)-(73): columns l <= i
    JRdot = np.swapaxes(kdot[..., None, :, :] * lower, -1, -2)
    d = r[..., :, None, :] - p[..., None, :, :]
    dd = rdot[..., :, None, :] - pdot[..., None, :, :]
    JTdot = np.swapaxes((_cross(kdot[..., None, :, :], d) + _cross(k[..., None, :, :], dd)) * lower, -1, -2)
    I = kin.link_inertias
    WL = _skew(wL)
    Idot = WL @ I - I @ WL                                            # (70)
    W0 = _skew(w0)
    I0dot = W0 @ kin.base_inertia - kin.base_inertia @ W0
    r0idot = rdot - v0[..., None, :]                                  # (75)
    X, Xd = _skew(blocks.r0i), _skew(r0idot)
    mm = m[:, None, None]
    HSdot = (Idot - mm * (Xd @ X + X @ Xd)).sum(axis=-3) + I0dot      # (76)
    Cd = _skew(np.einsum("i,...ia->...a", m, r0idot))                 # m_tot ṙ₀C^×
    H0dot = np.zeros(HSdot.shape[:-2] + (6, 6))
    H0dot[..., :3, 3:] = -Cd
    H0dot[..., 3:, :3] = Cd
    H0dot[..., 3:, 3:] = HSdot                                        # (74)
    JT, JR = blocks.JT, blocks.JR
    JTSdot = (mm * JTdot).sum(axis=-3)
    HSqdot = (Idot @ JR + I @ JRdot + mm * (Xd @ JT + X @ JTdot)).sum(axis=-3)
    H0mdot = np.concatenate([JTSdot, HSqdot], axis=-2)                # (77)-(79)
    t1 = _t(JRdot) @ I @ JR
    t2 = mm * (_t(JTdot) @ JT)
    Hmdot = (t1 + _t(t1) + _t(JR) @ Idot @ JR + t2 + _t(t2)).sum(axis=-3)  # (66)
    return BlockRates(H0dot, H0mdot, Hmdot)


def generalized_inertia_rate(model, blocks: InertiaBlocks, base_twist, qdot, H0inv=None) -> np.ndarray:
    """Ḣ by eq. (65) from the block rates (66)-(79), shape (..., N, N)."""
    rates = block_rates(model, blocks, base_twist, qdot)
    H0inv = base_inertia_inverse(blocks) if H0inv is None else H0inv
    G = H0inv @ blocks.H0m
    u = _t(rates.H0mdot) @ G
    return rates.Hmdot - (u + _t(u) - _t(G) @ rates.H0dot @ G)


def coriolis_vector(dH, qdot) -> np.ndarray:
    """c with cₖ = −½ q̇ᵀ (∂H/∂qₖ) q̇ (eqs. 48, 80; the minus sign is required), shape (..., N)."""
    qd = np.asarray(qdot, dtype=float)
    return -0.5 * np.einsum("...i,...kij,...j->...k", qd, dH, qd)


def coriolis_terms(dH, qdot) -> np.ndarray:
    """C(q, q̇) = Ḣq̇ + c with Ḣ = Σₖ (∂H/∂qₖ) q̇ₖ (eqs. 49, implementation notes §4.2), shape (..., N)."""
    qd = np.asarray(qdot, dtype=float)
    Hdot = np.einsum("...kij,...k->...ij", dH, qd)
    return np.einsum("...ij,...j->...i", Hdot, qd) + coriolis_vector(dH, qd)


def christoffel_matrix(dH, qdot) -> np.ndarray:
    """Coriolis matrix from the Christoffel symbols of H: C_mat q̇ = C and Ḣ − 2C_mat is skew.

    Returns
    -------
    ndarray, shape (..., N, N)
    """
    qd = np.asarray(qdot, dtype=float)
    # Γ_kjl = ½(∂H_kj/∂q_l + ∂H_kl/∂q_j − ∂H_jl/∂q_k);  dH[l, k, j] = ∂H_kj/∂q_l
    a = np.einsum("...lkj,...l->...kj", dH, qd)
    b = np.einsum("...jkl,...l->...kj", dH, qd)
    c = np.einsum("...kjl,...l->...kj", dH, qd)
    return 0.5 * (a + b - c)
