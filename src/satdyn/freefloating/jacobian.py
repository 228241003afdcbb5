"""Generalized Jacobian Matrix of any point on any link; resolved-motion-rate control.

Paper Front. Robot. AI 5:41 (2018) eqs. (103)-(111): [v_X; ω] = J₀X ẋ₀ + JₘX q̇ and, with conserved zero momentum
(ẋ₀ = −H₀⁻¹H₀ₘq̇), J* = JₘX − J₀X H₀⁻¹ H₀ₘ.  The sign of the upper-right block of J₀X is
−(x − r₀)^× (implementation notes §9 item 28).  Twists are [linear; angular] in the inertial frame 𝒥.

Arguments (dimensions)
----------------------
* ``model`` : SpacecraftManipulator (N joints); ``q`` (..., N).
* ``link`` : int 0..N (0 = base); ``local_point`` (3,) in the link body frame 𝒦 (base frame
  for link 0) [m]; default: the end-effector origin on link N, else the link CoM.
* ``base_position`` (..., 3), ``base_attitude`` (..., 3, 3) (DCM P_{L0/J}).
* ``mode`` : maneuvering mode; the GJM exists only where momentum is conserved.
* ``momentum`` (..., 6) [P; L] in 𝒥 (about the base CoM); ``wheel_momentum`` (..., 3) base frame.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .._validation import as_batch_of
from ..spatial.unchecked import skew as _skew  # trusted inputs: inner loop
from .inertia import base_inertia_inverse, blocks_from_kinematics
from .kinematics import _check_config, _cross, _forward_kinematics
from .modes import ManeuveringMode, require_momentum_conserving

__all__ = [
    "PointJacobians",
    "point_jacobians",
    "generalized_jacobian",
    "momentum_twist_offset",
    "rmrc_joint_rates",
]


@dataclasses.dataclass(frozen=True)
class PointJacobians:
    """J₀X (..., 6, 6), JₘX (..., 6, N) and the inertial position (..., 3) of the point."""

    J0: np.ndarray
    Jm: np.ndarray
    position: np.ndarray


def _point_position(model, kin, link, local_point):
    n = model.n_joints
    if not isinstance(link, (int, np.integer)) or not 0 <= link <= n:
        raise ValueError(f"`link` must be an integer in 0..{n} (0 = base); got {link!r}")
    if local_point is None:
        if link == n:
            return kin.ee_position
        if link == 0:
            return kin.base_position
        return kin.link_coms[..., link - 1, :]
    x = as_batch_of(local_point, (3,), "local_point")
    if link == 0:
        return kin.base_position + np.einsum("...ij,...j->...i", kin.base_attitude, x)
    return (kin.joint_positions[..., link - 1, :]
            + np.einsum("...ij,...j->...i", kin.link_attitudes[..., link - 1, :, :], x))


def _point_jacobians(model, kin, link, local_point) -> PointJacobians:
    n = model.n_joints
    x = _point_position(model, kin, link, local_point)
    batch = x.shape[:-1]
    J0 = np.zeros(batch + (6, 6))
    J0[..., :3, :3] = np.eye(3)
    J0[..., 3:, 3:] = np.eye(3)
    J0[..., :3, 3:] = -_skew(x - kin.base_position)                       # (105): −x₀ᵢ^×
    mask = (np.arange(n) < link).astype(float)[:, None]
    lin = _cross(kin.joint_axes, x[..., None, :] - kin.joint_positions) * mask
    Jm = np.concatenate([np.swapaxes(lin, -1, -2), np.swapaxes(kin.joint_axes * mask, -1, -2)], axis=-2)  # (104)
    return PointJacobians(J0, Jm, x)


def point_jacobians(model, q, link=None, local_point=None, base_position=None, base_attitude=None):
    """J₀X and JₘX of a point on a link (eqs. 103-106), batched.

    Returns
    -------
    PointJacobians
    """
    q, r0, R0 = _check_config(model, q, base_position, base_attitude)
    link = model.n_joints if link is None else link
    return _point_jacobians(model, _forward_kinematics(model, q, r0, R0), link, local_point)


def generalized_jacobian(model, q, link=None, local_point=None, base_position=None, base_attitude=None,
                         mode=ManeuveringMode.FLOATING, backend="numpy") -> np.ndarray:
    """Generalized Jacobian J* = JₘX − J₀X H₀⁻¹H₀ₘ of a point (eq. 110), batched.

    With the default arguments this is Yoshida & Umetani's end-effector GJM.  Valid in the
    momentum-conserving modes only ('floating', 'rotation-floating'); in the others it raises
    ``ValueError``.  With non-zero momentum or stored wheel momentum the point twist is affine,
    J* q̇ + :func:`momentum_twist_offset`.

    Returns
    -------
    ndarray, shape (..., 6, N)
        Maps q̇ to the point twist [v; ω] in 𝒥.

    ``backend="pinocchio"`` evaluates it with Pinocchio's joint Jacobians and CRBA
    (:mod:`satdyn.freefloating.backend`).
    """
    require_momentum_conserving(mode)
    from .backend import check_backend, pinocchio_terms
    if check_backend(backend) == "pinocchio":
        return pinocchio_terms(model, q, base_position=base_position, base_attitude=base_attitude, link=link,
                               local_point=local_point).J
    q, r0, R0 = _check_config(model, q, base_position, base_attitude)
    link = model.n_joints if link is None else link
    kin = _forward_kinematics(model, q, r0, R0)
    jac = _point_jacobians(model, kin, link, local_point)
    blocks = blocks_from_kinematics(model, kin)
    return jac.Jm - jac.J0 @ (base_inertia_inverse(blocks) @ blocks.H0m)


def momentum_twist_offset(model, q, link=None, local_point=None, base_position=None, base_attitude=None,
                          momentum=None, wheel_momentum=None, mode=ManeuveringMode.FLOATING) -> np.ndarray:
    """Affine term J₀X H₀⁻¹(𝓜₀ − [0; R₀h_w]) of the point twist with momentum (implementation notes §6.1).

    Returns
    -------
    ndarray, shape (..., 6)
    """
    require_momentum_conserving(mode, "the momentum-based point twist")
    q, r0, R0 = _check_config(model, q, base_position, base_attitude)
    link = model.n_joints if link is None else link
    kin = _forward_kinematics(model, q, r0, R0)
    jac = _point_jacobians(model, kin, link, local_point)
    blocks = blocks_from_kinematics(model, kin)
    M = np.zeros(q.shape[:-1] + (6,))
    if momentum is not None:
        M = M + as_batch_of(momentum, (6,), "momentum")
    if wheel_momentum is not None:
        hw = as_batch_of(wheel_momentum, (3,), "wheel_momentum")
        M = M - np.concatenate([np.zeros(hw.shape[:-1] + (3,)), np.einsum("...ij,...j->...i", R0, hw)], axis=-1)
    return np.einsum("...ij,...j->...i", jac.J0 @ base_inertia_inverse(blocks), M)


def rmrc_joint_rates(jacobian, twist, damping: float = 0.05, threshold: float = 0.05) -> np.ndarray:
    """Joint rates for a desired point twist, q̇ = J⁺ẋ (eq. 111) with damped least squares.

    For a square, well-conditioned J this is J⁻¹ẋ (eq. 111 as printed).  Near singularities,
    and for N ≠ 6, the SVD form q̇ = Σ σᵢ/(σᵢ² + λ²) vᵢ uᵢᵀ ẋ is used with the variable damping
    λ² = (1 − (σ_min/ε)²) λ_max² when σ_min < ε (Nakamura & Hanafusa / Chiaverini), λ = 0 otherwise.

    Parameters
    ----------
    jacobian : array_like, shape (..., 6, N)
    twist : array_like, shape (..., 6)
        Desired [v; ω] (or any 6-vector in the Jacobian's output space).
    damping : float
        λ_max [same units as the singular values].
    threshold : float
        ε, smallest singular value below which damping starts.

    Returns
    -------
    ndarray, shape (..., N)
    """
    J = as_batch_of(jacobian, (6, np.shape(jacobian)[-1] if np.ndim(jacobian) >= 2 else 0), "jacobian")
    x = as_batch_of(twist, (6,), "twist")
    if damping < 0 or threshold <= 0:
        raise ValueError("`damping` must be >= 0 and `threshold` > 0")
    U, s, Vt = np.linalg.svd(J, full_matrices=False)
    smin = s[..., -1:]
    lam2 = np.where(smin < threshold, (1.0 - (smin / threshold) ** 2) * damping**2, 0.0)
    den = s**2 + lam2
    tiny = 1e-14 * np.maximum(s[..., :1], 1e-300) ** 2  # exactly singular and undamped: drop the direction
    gain = np.divide(s, den, out=np.zeros_like(s), where=den > tiny)
    return np.einsum("...ji,...j,...kj,...k->...i", Vt, gain, U, x)
