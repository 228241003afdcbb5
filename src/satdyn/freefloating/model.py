"""Immutable spacecraft-manipulator model (base + serial arm of N revolute joints).

The model is stored in a general form (joint placements, CoM vectors, inertias), as
Pinocchio stores a kinematic tree; the paper's customised Denavit-Hartenberg table
(Front. Robot. AI 5:41 (2018), eqs. 1-10, with the joint offsets and vector CoM offsets of
implementation notes §2.5) is one input format, :func:`from_dh`; a URDF with a floating root another, through
``satdyn.multibody``'s reader (:mod:`satdyn.freefloating.from_multibody`).

Frames
------
* Link 0 is the base; its body frame has its origin at the base CoM (paper: 𝒥₀ = ℒ₀).
* ``joint_placements[i]`` (4x4) is the pose of joint frame 𝒥ᵢ₊₁ (its z-axis is the joint
  axis kᵢ₊₁) in the body frame of link i (0-based arrays: entry 0 is joint 1 on the base).
* The body frame 𝒦ᵢ of link i (i >= 1) is 𝒥ᵢ rotated by the joint angle about z:
  ``T_Ki = T_Ji Rz(q_i)``.  Link CoMs and inertias are given in 𝒦ᵢ.
* ``ee_placement`` (4x4) is the end-effector frame 𝒥_{N+1} in 𝒦_N.

Arguments of the algorithm functions of this package (dimensions)
-----------------------------------------------------------------
* ``q`` (..., N) joint angles [rad]; ``qdot``/``qddot`` (..., N).
* ``base_position`` (..., 3) base CoM in the inertial frame 𝒥 [m] (default 0).
* ``base_attitude`` (..., 3, 3) DCM P_{L0/J}, the paper's ${}^J R_{L_0}$ (default identity).
* ``base_twist`` (..., 6) = [v0; ω0], base CoM velocity and angular velocity, **both in the
  inertial frame 𝒥** (the paper's convention; satdyn's architecture uses body-frame base
  velocities: convert with :func:`satdyn.freefloating.base_twist_to_body` at the boundary).
"""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np

from .._validation import as_batch_of, as_float_array
from ..spatial import dcm_from_euler

__all__ = ["SpacecraftManipulator", "from_dh", "dh_transform", "homogeneous"]


def homogeneous(rotation, translation) -> np.ndarray:
    """4x4 homogeneous transform ``[[R, t], [0, 1]]`` (batched)."""
    R = np.asarray(rotation, dtype=float)
    t = np.asarray(translation, dtype=float)
    T = np.zeros(np.broadcast_shapes(R.shape[:-2], t.shape[:-1]) + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = t
    T[..., 3, 3] = 1.0
    return T


def dh_transform(theta, d, alpha, c) -> np.ndarray:
    """The paper's DH matrix A(θ, d, α, c) = Rz(θ) Tz(d) Tx(c) Rx(α), eq. (2) (batched)."""
    theta, d, alpha, c = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (theta, d, alpha, c)))
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    A = np.zeros(theta.shape + (4, 4))
    A[..., 0, :] = np.stack([ct, -st * ca, st * sa, c * ct], axis=-1)
    A[..., 1, :] = np.stack([st, ct * ca, -ct * sa, c * st], axis=-1)
    A[..., 2, 1], A[..., 2, 2], A[..., 2, 3] = sa, ca, d
    A[..., 3, 3] = 1.0
    return A


def _check_inertia(J, name, *, definite=True):
    """Symmetric, positive definite (or semi-definite: ``definite=False``), triangle inequality."""
    J = as_batch_of(J, (3, 3), name)
    scale = max(1.0, np.abs(J).max(initial=0.0))
    if np.abs(J - np.swapaxes(J, -1, -2)).max(initial=0.0) > 1e-9 * scale:
        raise ValueError(f"`{name}` must be symmetric")
    eig = np.linalg.eigvalsh(J)
    if np.any(eig <= 0.0) if definite else np.any(eig < -1e-12 * scale):
        kind = "definite" if definite else "semi-definite"
        raise ValueError(f"`{name}` must be positive {kind}; eigenvalues {eig.tolist()}")
    s = eig.sum(axis=-1, keepdims=True)
    if np.any(2.0 * eig > s * (1.0 + 1e-9)):
        raise ValueError(f"`{name}` violates the triangle inequality of principal moments: {eig.tolist()}")
    return J


def _check_placements(T, name):
    T = as_batch_of(T, (4, 4), name)
    R = T[..., :3, :3]
    if np.abs(R @ np.swapaxes(R, -1, -2) - np.eye(3)).max(initial=0.0) > 1e-9 or np.any(np.linalg.det(R) < 0):
        raise ValueError(f"`{name}` rotation blocks must be proper rotation matrices")
    if np.abs(T[..., 3, :] - [0, 0, 0, 1]).max(initial=0.0) > 0:
        raise ValueError(f"`{name}` last row must be [0, 0, 0, 1]")
    return T


@dataclasses.dataclass(frozen=True, eq=False)
class SpacecraftManipulator:
    """A base spacecraft carrying a serial arm of N revolute joints (immutable).

    Attributes
    ----------
    base_mass : float
        m₀ [kg].
    base_inertia : ndarray, shape (3, 3)
        ᴸ⁰I₀, base inertia about its CoM in the base frame [kg m²].
    joint_placements : ndarray, shape (N, 4, 4)
        Pose of joint frame i+1 in the body frame of link i (entry 0: joint 1 on the base).
    link_masses : ndarray, shape (N,)
        Link masses [kg], >= 0: a massless link (a gimbal between two joints, a URDF frame
        without ``<inertial>``) is allowed as long as every joint moves some mass or inertia.
    link_coms : ndarray, shape (N, 3)
        CoM of link i in its body frame 𝒦ᵢ [m].
    link_inertias : ndarray, shape (N, 3, 3)
        Inertia of link i about its CoM, 𝒦ᵢ axes [kg m²], positive semi-definite.
    ee_placement : ndarray, shape (4, 4)
        End-effector frame in 𝒦_N.
    name : str
    synthetic : bool
        True when the parameters are invented (e.g. the implementation notes' substitutes P4S/S6S).
    """

    base_mass: float
    base_inertia: np.ndarray
    joint_placements: np.ndarray
    link_masses: np.ndarray
    link_coms: np.ndarray
    link_inertias: np.ndarray
    ee_placement: np.ndarray
    name: str = "spacecraft-manipulator"
    synthetic: bool = False

    def __post_init__(self):
        m0 = float(as_float_array(self.base_mass, "base_mass"))
        if m0 <= 0:
            raise ValueError(f"`base_mass` must be positive; got {m0}")
        I0 = _check_inertia(self.base_inertia, "base_inertia")
        if I0.shape != (3, 3):
            raise ValueError(f"`base_inertia` must have shape (3, 3); got {I0.shape}")
        P = _check_placements(self.joint_placements, "joint_placements")
        if P.ndim != 3 or P.shape[0] < 1:
            raise ValueError(f"`joint_placements` must have shape (N, 4, 4) with N >= 1; got {P.shape}")
        n = P.shape[0]
        m = as_float_array(self.link_masses, "link_masses")
        if m.shape != (n,) or np.any(m < 0):
            raise ValueError(f"`link_masses` must be {n} masses >= 0 [kg]; got {m!r}")
        c = as_batch_of(self.link_coms, (3,), "link_coms")
        if c.shape != (n, 3):
            raise ValueError(f"`link_coms` must have shape ({n}, 3); got {c.shape}")
        J = _check_inertia(self.link_inertias, "link_inertias", definite=False)
        if J.shape != (n, 3, 3):
            raise ValueError(f"`link_inertias` must have shape ({n}, 3, 3); got {J.shape}")
        # Joint i moves links i..N: with no mass and no inertia there, H(q) is singular.
        outboard = np.cumsum((m + np.trace(J, axis1=-2, axis2=-1))[::-1])[::-1]
        if np.any(outboard <= 0.0):
            k = int(np.flatnonzero(outboard <= 0.0)[0])
            raise ValueError(f"`link_masses`/`link_inertias`: links {k + 1}..{n} carry no mass and no inertia, "
                             f"so joint {k + 1} moves nothing (singular generalized inertia)")
        E = _check_placements(self.ee_placement, "ee_placement")
        if E.shape != (4, 4):
            raise ValueError(f"`ee_placement` must have shape (4, 4); got {E.shape}")
        for field, value in (("base_mass", m0), ("base_inertia", I0), ("joint_placements", P),
                             ("link_masses", m), ("link_coms", c), ("link_inertias", J), ("ee_placement", E)):
            if isinstance(value, np.ndarray):
                value = value.copy()
                value.setflags(write=False)
            object.__setattr__(self, field, value)

    @property
    def n_joints(self) -> int:
        """N, the number of revolute joints."""
        return self.joint_placements.shape[0]

    @property
    def total_mass(self) -> float:
        """m_tot = m₀ + Σ mᵢ [kg]."""
        return self.base_mass + float(self.link_masses.sum())

    def fingerprint(self) -> str:
        """Hash of the numerical parameters (cache key of the symbolic back-end)."""
        h = hashlib.sha256()
        for a in (np.float64(self.base_mass), self.base_inertia, self.joint_placements, self.link_masses,
                  self.link_coms, self.link_inertias, self.ee_placement):
            h.update(np.ascontiguousarray(a, dtype=float).tobytes())
        return h.hexdigest()[:24]


def from_dh(*, base_mass, base_inertia, mount_position, mount_euler=(0.0, 0.0, 0.0), d, alpha, a, b,
            masses, inertias, theta_offset=None, c=None, ee_transform=None, name="DH spacecraft-manipulator",
            synthetic=False) -> SpacecraftManipulator:
    """Model from the paper's customised DH table (Front. Robot. AI 5:41 (2018) §2.1, eqs. 1-10;
    implementation notes §2.5 extensions).

    Joint frame 𝒥ᵢ₊₁ = 𝒥ᵢ A(qᵢ + θᵢ⁰, dᵢ, αᵢ, cᵢ) (eq. 9) and link frame ℒᵢ ∥ 𝒥ᵢ₊₁ with the
    CoM at ϱᵢ₊₁ − bᵢ (eq. 10 generalised to a vector **b**ᵢ).

    Parameters
    ----------
    base_mass : float
        m₀ [kg].
    base_inertia : array_like, shape (3, 3)
        ᴸ⁰I₀ [kg m²].
    mount_position : array_like, shape (3,)
        ⁰b₀, base CoM → joint 1 origin, base components [m].
    mount_euler : array_like, shape (3,)
        (ϵ, ζ, η) [rad] of ${}^{L_0}R_{J_1}$ = Rz(η) Ry(ζ) Rx(ϵ), eq. (8).  The paper calls this
        sequence "1-2-3"; it is satdyn's Euler 3-2-1 matrix ``spatial.dcm_from_euler``.
    d, alpha : array_like, shape (N,)
        DH offset along zᵢ [m] and twist about xᵢ₊₁ [rad].
    a : array_like, shape (N,)
        ϱᵢ → CMᵢ distance along the common normal [m] (used only to build c = a + b).
    b : array_like, shape (N,) or (N, 3)
        CMᵢ → ϱᵢ₊₁: scalar along x of ℒᵢ, or a vector in ℒᵢ components [m].
    masses : array_like, shape (N,)
    inertias : array_like, shape (N, 3, 3)
        ᴸⁱIᵢ, link inertias about the CoM in ℒᵢ (∥ 𝒥ᵢ₊₁) [kg m²].
    theta_offset : array_like, shape (N,), optional
        Joint offsets θᵢ⁰ [rad] (θᵢ = qᵢ + θᵢ⁰).  Default 0.
    c : array_like, shape (N,), optional
        DH lengths cᵢ [m]; default ``a + b`` (required when ``b`` is given as vectors).
    ee_transform : array_like, shape (4, 4), optional
        Constant transform after the last DH step (as SPART's EE); default identity.
    """
    d = as_float_array(d, "d")
    n = d.shape[0] if d.ndim == 1 else -1
    if d.ndim != 1 or n < 1:
        raise ValueError(f"`d` must be a 1-D array of N >= 1 offsets; got shape {d.shape}")

    def vec(x, nm):
        x = as_float_array(x, nm)
        if x.shape != (n,):
            raise ValueError(f"`{nm}` must have shape ({n},); got {x.shape}")
        return x

    alpha, a = vec(alpha, "alpha"), vec(a, "a")
    theta_offset = np.zeros(n) if theta_offset is None else vec(theta_offset, "theta_offset")
    b = as_float_array(b, "b")
    if b.shape == (n,):
        b_vec = np.zeros((n, 3))
        b_vec[:, 0] = b
        c = a + b if c is None else vec(c, "c")
    elif b.shape == (n, 3):
        if c is None:
            raise ValueError("`c` (DH lengths) is required when `b` is given as (N, 3) vectors")
        b_vec, c = b, vec(c, "c")
    else:
        raise ValueError(f"`b` must have shape ({n},) or ({n}, 3); got {b.shape}")
    inertias = as_batch_of(inertias, (3, 3), "inertias")
    if inertias.shape != (n, 3, 3):
        raise ValueError(f"`inertias` must have shape ({n}, 3, 3); got {inertias.shape}")
    mount_position = as_batch_of(mount_position, (3,), "mount_position")
    mount_R = dcm_from_euler(mount_euler)  # paper "1-2-3" (eq. 8) == satdyn Euler 3-2-1 matrix

    # Constant part of each DH step after the joint rotation: Rz(θ⁰) Tz(d) Tx(c) Rx(α).
    steps = dh_transform(theta_offset, d, alpha, c)
    placements = np.empty((n, 4, 4))
    placements[0] = homogeneous(mount_R, mount_position)
    placements[1:] = steps[:-1]
    ee = steps[-1] if ee_transform is None else steps[-1] @ _check_placements(ee_transform, "ee_transform")
    # ℒᵢ ∥ 𝒥ᵢ₊₁ with CoM at ϱᵢ₊₁ − R bᵢ; express both in the body frame 𝒦ᵢ = 𝒥ᵢ Rz(qᵢ).
    R_step, t_step = steps[:, :3, :3], steps[:, :3, 3]
    coms = t_step - np.einsum("nij,nj->ni", R_step, b_vec)
    link_inertias = R_step @ inertias @ np.swapaxes(R_step, -1, -2)
    return SpacecraftManipulator(base_mass=base_mass, base_inertia=base_inertia, joint_placements=placements,
                                 link_masses=masses, link_coms=coms, link_inertias=link_inertias,
                                 ee_placement=ee, name=name, synthetic=synthetic)
