"""Reduced (N-dimensional) and full (6+N) dynamics of the spacecraft-manipulator.

* Reduced forward/inverse dynamics H q̈ + C = τ (eqs. 47-50), valid for zero momentum.
* Base twist from momentum ẋ₀ = H₀⁻¹(𝓜₀ − H₀ₘq̇) (eqs. 42, 109).
* Reduced dynamics with non-zero angular momentum 𝓜₀ = [0; L]: the **corrected** eq. (44)
  (implementation notes §4.1, §9 item 18); the printed form is available as ``form="printed"`` only to
  reproduce the paper's error (it is wrong for L ≠ 0).
* Full momentum-form (6+N) dynamics with an external base wrench (implementation notes §3.6, §6.1): the
  base rows are momentum balances d/dt(H₀ẋ₀ + H₀ₘq̇) = [f₀; n₀ − v₀×P] (the paper's
  c₀ = −∂T/∂x₀ is ill-defined because ω₀ is a quasi-velocity).

Arguments (dimensions)
----------------------
* ``model`` : SpacecraftManipulator (N joints).
* ``q``, ``qdot``, ``qddot``, ``tau`` (..., N) [rad, rad/s, rad/s², N m].
* ``base_position`` (..., 3), ``base_attitude`` (..., 3, 3) (DCM P_{L0/J}).
* ``base_twist`` (..., 6) [v0; ω0], **inertial frame** (paper convention).
* ``momentum`` (..., 6) [P; L]: linear momentum and angular momentum about the base CoM, in 𝒥.
* ``base_force``, ``base_torque`` (..., 3): external force at the base CoM and torque about
  it, in 𝒥 [N, N m].
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .._validation import as_batch_of
from .derivatives import block_derivatives, block_rates, coriolis_terms
from .inertia import base_inertia_inverse, blocks_from_kinematics, system_mass_matrix
from .kinematics import _check_config, _cross, _forward_kinematics

__all__ = [
    "reduced_terms",
    "reduced_forward_dynamics",
    "reduced_inverse_dynamics",
    "base_twist_from_momentum",
    "momentum_from_twist",
    "reduced_forward_dynamics_with_momentum",
    "FullAcceleration",
    "full_forward_dynamics",
]


def _t(a):
    return np.swapaxes(a, -1, -2)


def _mv(A, x):
    return np.einsum("...ij,...j->...i", A, x)


@dataclasses.dataclass(frozen=True)
class ReducedTerms:
    """H (..., N, N), C = Ḣq̇ + c (..., N), ∂H/∂q (..., N, N, N) and the blocks they came from."""

    H: np.ndarray
    C: np.ndarray
    dH: np.ndarray
    blocks: object
    derivatives: object


def _blocks(model, q, base_position, base_attitude):
    q, r0, R0 = _check_config(model, q, base_position, base_attitude)
    return q, blocks_from_kinematics(model, _forward_kinematics(model, q, r0, R0))


def reduced_terms(model, q, qdot, base_position=None, base_attitude=None) -> ReducedTerms:
    """H(q) and C(q, q̇) of the reduced equations H q̈ + C = τ (eqs. 45, 49), batched."""
    q, blocks = _blocks(model, q, base_position, base_attitude)
    qd = as_batch_of(qdot, (model.n_joints,), "qdot")
    der = block_derivatives(model, blocks)
    return ReducedTerms(der.H, coriolis_terms(der.dH, qd), der.dH, blocks, der)


def _terms(model, q, qdot, backend):
    from .backend import check_backend, pinocchio_terms
    if check_backend(backend) == "pinocchio":
        return pinocchio_terms(model, q, as_batch_of(qdot, (model.n_joints,), "qdot"))
    return reduced_terms(model, q, qdot)


def reduced_forward_dynamics(model, q, qdot, tau, backend="numpy") -> np.ndarray:
    """q̈ = H⁻¹(τ − C) for zero system momentum (eq. 50), batched.

    Parameters
    ----------
    model : SpacecraftManipulator
    q, qdot, tau : array_like, shape (..., N)
    backend : {"numpy", "pinocchio"}
        "pinocchio": H and C from Pinocchio's CRBA and RNEA (:mod:`satdyn.freefloating.backend`).

    Returns
    -------
    ndarray, shape (..., N)
    """
    tau = as_batch_of(tau, (model.n_joints,), "tau")
    t = _terms(model, q, qdot, backend)
    return np.linalg.solve(t.H, (tau - t.C)[..., None])[..., 0]


def reduced_inverse_dynamics(model, q, qdot, qddot, backend="numpy") -> np.ndarray:
    """τ = H q̈ + C for zero system momentum (eq. 50), batched, shape (..., N); ``backend`` as above."""
    qdd = as_batch_of(qddot, (model.n_joints,), "qddot")
    t = _terms(model, q, qdot, backend)
    return _mv(t.H, qdd) + t.C


def base_twist_from_momentum(model, q, qdot, base_position=None, base_attitude=None, momentum=None) -> np.ndarray:
    """Inertial-frame base twist [v0; ω0] = H₀⁻¹(𝓜₀ − H₀ₘq̇) (eqs. 42, 109; 𝓜₀ = 0 by default).

    Returns
    -------
    ndarray, shape (..., 6)
        [v0; ω0] in 𝒥; :func:`~satdyn.freefloating.base_twist_to_body` gives the body-frame form.
    """
    _, blocks = _blocks(model, q, base_position, base_attitude)
    qd = as_batch_of(qdot, (model.n_joints,), "qdot")
    rhs = -_mv(blocks.H0m, qd)
    if momentum is not None:
        rhs = rhs + as_batch_of(momentum, (6,), "momentum")
    return _mv(base_inertia_inverse(blocks), rhs)


def momentum_from_twist(model, q, qdot, base_twist, base_position=None, base_attitude=None) -> np.ndarray:
    """[P; L] = H₀ẋ₀ + H₀ₘq̇ (eq. 42): L about the base CoM, both in 𝒥; shape (..., 6)."""
    _, blocks = _blocks(model, q, base_position, base_attitude)
    tw = as_batch_of(base_twist, (6,), "base_twist")
    return _mv(blocks.H0, tw) + _mv(blocks.H0m, as_batch_of(qdot, (model.n_joints,), "qdot"))


def reduced_forward_dynamics_with_momentum(model, q, qdot, tau, angular_momentum, base_position=None,
                                           base_attitude=None, form: str = "corrected") -> np.ndarray:
    """q̈ of the reduced model with constant non-zero angular momentum, 𝓜₀ = [0; L] (eq. 44).

    Corrected form (implementation notes §4.1, verified against an independent rigid-body solver)::

        H q̈ + Ḣ q̇ + c = τ − d/dt(H₀ₘᵀH₀⁻¹) 𝓜₀ − ½ ∂(𝓜₀ᵀH₀⁻¹𝓜₀)/∂q + [𝓜₀ᵀ ∂(H₀⁻¹H₀ₘ)/∂qₖ q̇]ₖ

    with d/dt taken along the actual base motion ẋ₀ = H₀⁻¹(𝓜₀ − H₀ₘq̇) and ∂/∂q at fixed
    base pose.  ``form="printed"`` evaluates the paper's eq. (44) (+½ ∂(𝓜₀ᵀH₀⁻¹𝓜₀)/∂q, no
    last term), which is wrong for L ≠ 0 and exists only as a reproduction of the erratum.
    With linear momentum P ≠ 0 use :func:`full_forward_dynamics`.

    Parameters
    ----------
    angular_momentum : array_like, shape (..., 3)
        L about the base CoM, inertial frame [N m s].
    form : {"corrected", "printed"}

    Returns
    -------
    ndarray, shape (..., N)
    """
    if form not in ("corrected", "printed"):
        raise ValueError(f"`form` must be 'corrected' or 'printed'; got {form!r}")
    n = model.n_joints
    _, blocks = _blocks(model, q, base_position, base_attitude)
    qd = as_batch_of(qdot, (n,), "qdot")
    tau = as_batch_of(tau, (n,), "tau")
    L = as_batch_of(angular_momentum, (3,), "angular_momentum")
    M0 = np.concatenate([np.zeros(L.shape[:-1] + (3,)), L], axis=-1)
    H0inv = base_inertia_inverse(blocks)
    der = block_derivatives(model, blocks, H0inv)
    G = der.H0inv_H0m
    twist = _mv(H0inv, M0 - _mv(blocks.H0m, qd))
    rates = block_rates(model, blocks, twist, qd)
    y = _mv(H0inv, M0)                                         # H₀⁻¹𝓜₀
    # d/dt(H₀ₘᵀH₀⁻¹) 𝓜₀ = Ḣ₀ₘᵀ y − H₀ₘᵀH₀⁻¹Ḣ₀ y
    ddt = _mv(_t(rates.H0mdot), y) - _mv(_t(G), _mv(rates.H0dot, y))
    # ∂(𝓜₀ᵀH₀⁻¹𝓜₀)/∂qₖ = −yᵀ ∂H₀/∂qₖ y
    dquad = -np.einsum("...i,...kij,...j->...k", y, der.dH0, y)
    # 𝓜₀ᵀ ∂(H₀⁻¹H₀ₘ)/∂qₖ q̇ = yᵀ(∂H₀ₘ/∂qₖ − ∂H₀/∂qₖ G) q̇
    Gq = _mv(G, qd)
    extra = np.einsum("...i,...kij,...j->...k", y, der.dH0m, qd) - np.einsum("...i,...kij,...j->...k", y, der.dH0, Gq)
    C = coriolis_terms(der.dH, qd)
    if form == "corrected":
        rhs = tau - C - ddt - 0.5 * dquad + extra
    else:
        rhs = tau - C - ddt + 0.5 * dquad
    return np.linalg.solve(der.H, rhs[..., None])[..., 0]


@dataclasses.dataclass(frozen=True)
class FullAcceleration:
    """Result of :func:`full_forward_dynamics`.

    Attributes
    ----------
    base_acceleration : ndarray, shape (..., 6)
        [v̇₀; ω̇₀], time derivatives of the inertial-frame base twist.
    qddot : ndarray, shape (..., N)
    momentum : ndarray, shape (..., 6)
        [P; L] (L about the base CoM), in 𝒥.
    momentum_rate : ndarray, shape (..., 6)
        d/dt [P; L] = [f₀; n₀ − v₀×P].
    """

    base_acceleration: np.ndarray
    qddot: np.ndarray
    momentum: np.ndarray
    momentum_rate: np.ndarray


def full_forward_dynamics(model, q, qdot, base_twist, tau, base_force=None, base_torque=None,
                          base_position=None, base_attitude=None) -> FullAcceleration:
    """(6+N) momentum-form forward dynamics with an external base wrench (implementation notes §3.6, §6.1).

    Solves 𝒜 [ẍ₀; q̈] = [f₀; n₀ − v₀×P; τ + ∂T/∂q] − [Ḣ₀ẋ₀ + Ḣ₀ₘq̇; Ḣ₀ₘᵀẋ₀ + Ḣₘq̇], i.e. the
    momentum balances for the base rows and the (correct) Lagrange rows (38)/(41) for the joints.

    Parameters
    ----------
    base_twist : array_like, shape (..., 6)
        [v0; ω0] in 𝒥 (paper convention).
    base_force, base_torque : array_like, shape (..., 3), optional
        External force at the base CoM and torque about it, in 𝒥; default zero.

    Returns
    -------
    FullAcceleration
    """
    n = model.n_joints
    _, blocks = _blocks(model, q, base_position, base_attitude)
    qd = as_batch_of(qdot, (n,), "qdot")
    tw = as_batch_of(base_twist, (6,), "base_twist")
    tau = as_batch_of(tau, (n,), "tau")
    f0 = np.zeros(3) if base_force is None else as_batch_of(base_force, (3,), "base_force")
    n0 = np.zeros(3) if base_torque is None else as_batch_of(base_torque, (3,), "base_torque")
    der = block_derivatives(model, blocks)
    rates = block_rates(model, blocks, tw, qd)
    M = _mv(blocks.H0, tw) + _mv(blocks.H0m, qd)
    P = M[..., :3]
    rate = np.concatenate([f0 + 0.0 * P, n0 - _cross(tw[..., :3], P)], axis=-1)
    dTdq = (0.5 * np.einsum("...i,...kij,...j->...k", tw, der.dH0, tw)
            + np.einsum("...i,...kij,...j->...k", tw, der.dH0m, qd)
            + 0.5 * np.einsum("...i,...kij,...j->...k", qd, der.dHm, qd))
    top = rate - _mv(rates.H0dot, tw) - _mv(rates.H0mdot, qd)
    bottom = tau - _mv(_t(rates.H0mdot), tw) - _mv(rates.Hmdot, qd) + dTdq
    A = system_mass_matrix(blocks)
    acc = np.linalg.solve(A, np.concatenate([top, bottom], axis=-1)[..., None])[..., 0]
    return FullAcceleration(acc[..., :6], acc[..., 6:], M, rate)


