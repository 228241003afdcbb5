"""Revolute joint (and weld) linearised around an equilibrium in a uniform acceleration
field: the verified joint of arXiv:2109.00407 (the paper's eq. (22) corrected, erratum A2).

Conventions (arXiv:2109.00407): the child rotates by ``+theta`` about the unit axis
``r``; ``Pbar = R([r]_p, theta_bar) P0`` maps child components to parent components;
``[r]_c = P0^T [r]_p``; ``S_p = skew([r]_p)``, ``S_c = skew([r]_c)``, ``r_c6 = [0; [r]_c]``.

The linear joint splits into two parts:

* the **zero-field part** (the actuated revolute joint of a structure at rest without a
  field, the same block as ``satdyn.titop``'s): motion and wrench rotated by ``Pbar``, the
  joint acceleration entering the child motion, the rotor inertia and the torque balance

      dx''_c = Pbar^T(x2) dx''_p + r_c6 dtheta''
      dW_{J/p} = Pbar(x2) dW_{c/J} - [0; J_r r_p (r_p^T domega'_p + dtheta'')]
      dT_m = J_r (r_p^T domega'_p + dtheta'') - r_c6^T dW_{c/J} + Kp dtheta + Kd dtheta'

* the **equilibrium part** (what a non-zero field and a parameter-dependent trim add): the
  field seen by the child turns with the joint and the trim wrench through the joint turns
  with it (the stiffness term of the corrected eq. (22))

      da_c     = Pbar^T da_p - S_c abar_c dtheta
      dW_{J/p} += diag(S_p, S_p) Pbar(x2) Wbar_{c/J} dtheta

Trim: ``abar_c = Pbar^T abar_p``, ``Wbar_{J/p} = Pbar(x2) Wbar_{c/J}``, static torque
``Tbar = -r_c6^T Wbar_{c/J}``. The spring ``Kp`` has its rest angle at the equilibrium.

Linear quantities are column maps of the recursion's generalised variables (``(3, k)``
or ``(6, k)``); ``col_acc`` and ``col_angle`` are the constant rows (1, k) selecting this
joint's ``dtheta''`` and ``dtheta``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..spatial import skew

__all__ = [
    "RevoluteJoint",
    "Weld",
    "joint_dcm",
    "rotate_to_child",
    "rotate_to_parent",
    "revolute_zero_field_motion",
    "revolute_zero_field_wrench",
    "revolute_torque",
    "revolute_equilibrium_field",
    "revolute_equilibrium_wrench",
    "revolute_static_torque",
]


@dataclass(frozen=True)
class RevoluteJoint:
    """An actuated revolute joint of an equilibrium tree.

    Attributes
    ----------
    name : str
        Also names the signals: input ``T_<name>``, outputs ``theta_<name>``, ``dtheta_<name>``.
    parent : str or None
        Parent body name (None: the ground / base).
    parent_port : str or None
        Port of the parent body where the joint sits (None: the parent's own port P).
    child : str
        Child body name (its parent port P is the joint point).
    axis : (3,) array
        Unit axis ``[r]_p`` in the parent frame.
    angle : number, ``satdyn.lfr`` parameter (``vreal(..., transform="tan_half")``) or LFR
        Equilibrium angle ``theta_bar`` [rad].
    P0 : (3, 3) array
        ``P_{c/p}(0)``: child axes in parent coordinates at zero angle.
    stiffness, damping, rotor_inertia : number or parameter
        ``Kp`` [N m/rad], ``Kd`` [N m s/rad], ``J_r`` [kg m^2].
    """

    name: str
    parent: str | None
    child: str
    axis: Any
    angle: Any = 0.0
    parent_port: str | None = None
    P0: Any = field(default_factory=lambda: np.eye(3))
    stiffness: Any = 0.0
    damping: Any = 0.0
    rotor_inertia: Any = 0.0

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"RevoluteJoint.name must be a non-empty string, got {self.name!r}")
        r = np.asarray(self.axis, dtype=float)
        if r.shape != (3,) or not np.all(np.isfinite(r)) or np.linalg.norm(r) == 0.0:
            raise ValueError(f"joint {self.name!r}: axis must be a non-zero 3-vector, got {self.axis!r}")
        object.__setattr__(self, "axis", r / np.linalg.norm(r))
        P0 = np.asarray(self.P0, dtype=float)
        if P0.shape != (3, 3) or not np.allclose(P0.T @ P0, np.eye(3), atol=1e-9) or np.linalg.det(P0) < 0:
            raise ValueError(f"joint {self.name!r}: P0 must be a rotation matrix (3, 3)")
        object.__setattr__(self, "P0", P0)
        for key in ("stiffness", "damping", "rotor_inertia"):
            v = getattr(self, key)
            if isinstance(v, (int, float)) and not v >= 0.0:
                raise ValueError(f"joint {self.name!r}: {key} must be non-negative, got {v!r}")

    @property
    def axis_child(self) -> np.ndarray:
        """``[r]_c = P0^T [r]_p`` (constant)."""
        return self.P0.T @ self.axis


@dataclass(frozen=True)
class Weld:
    """A rigid connection (no degree of freedom) with a constant DCM ``P_{c/p}``."""

    name: str
    parent: str | None
    child: str
    parent_port: str | None = None
    dcm: Any = field(default_factory=lambda: np.eye(3))

    def __post_init__(self):
        P = np.asarray(self.dcm, dtype=float)
        if P.shape != (3, 3) or not np.allclose(P.T @ P, np.eye(3), atol=1e-9) or np.linalg.det(P) < 0:
            raise ValueError(f"weld {self.name!r}: dcm must be a rotation matrix (3, 3)")
        object.__setattr__(self, "dcm", P)


def joint_dcm(alg, joint):
    """``Pbar = R([r]_p, theta_bar) P0`` (revolute) or the constant DCM (weld), in ``alg``."""
    if isinstance(joint, Weld):
        return alg.const(joint.dcm)
    return alg.rotation(joint.axis, joint.P0, joint.angle)


def rotate_to_child(alg, Pbar, x):
    """``Pbar^T`` applied to a 3-row map, or ``Pbar^T(x2)`` to a 6-row map."""
    if x.shape[0] == 3:
        return Pbar.T @ x
    return alg.blockdiag([Pbar.T, Pbar.T]) @ x


def rotate_to_parent(alg, Pbar, x):
    """``Pbar`` applied to a 3-row map, or ``Pbar(x2)`` to a 6-row map."""
    if x.shape[0] == 3:
        return Pbar @ x
    return alg.blockdiag([Pbar, Pbar]) @ x


def revolute_zero_field_motion(alg, joint, Pbar, d_accel_p, col_acc):
    """``dx''_c = Pbar^T(x2) dx''_p + r_c6 dtheta''`` (6, k)."""
    rc6 = np.concatenate([np.zeros(3), joint.axis_child]).reshape(6, 1)
    return rotate_to_child(alg, Pbar, d_accel_p) + alg.const(rc6 @ col_acc)


def _rotor_rate(alg, joint, d_accel_p, col_acc):
    # r_p^T domega'_p + dtheta'' (1, k): the rotor's angular acceleration about its axis.
    return alg.const(np.concatenate([np.zeros(3), joint.axis]).reshape(1, 6)) @ d_accel_p + alg.const(col_acc)


def revolute_zero_field_wrench(alg, joint, Pbar, d_wrench_c, d_accel_p, col_acc):
    """``Pbar(x2) dW_{c/J} - [0; J_r r_p (r_p^T domega'_p + dtheta'')]`` (6, k)."""
    dW = rotate_to_parent(alg, Pbar, d_wrench_c)
    if _is_zero(joint.rotor_inertia):
        return dW
    Jr = alg.lift(joint.rotor_inertia)
    rotor = alg.scale(Jr, np.concatenate([np.zeros(3), joint.axis]).reshape(6, 1)) @ _rotor_rate(
        alg, joint, d_accel_p, col_acc)
    return dW - rotor


def revolute_torque(alg, joint, d_wrench_c, d_accel_p, col_acc):
    """Motor torque map without spring and damper (1, k):
    ``J_r (r_p^T domega'_p + dtheta'') - r_c6^T dW_{c/J}`` (implicit form: J_r = 0 allowed)."""
    T = -(alg.const(np.concatenate([np.zeros(3), joint.axis_child]).reshape(1, 6)) @ d_wrench_c)
    if _is_zero(joint.rotor_inertia):
        return T
    Jr = alg.lift(joint.rotor_inertia)
    return T + alg.scale(Jr, np.ones((1, 1))) @ _rotor_rate(alg, joint, d_accel_p, col_acc)


def revolute_equilibrium_field(alg, joint, Pbar, abar_c, d_field_p, col_angle):
    """``da_c = Pbar^T da_p - S_c abar_c dtheta`` (3, k): the field turns with the joint."""
    Sc = alg.const(skew(joint.axis_child))
    return Pbar.T @ d_field_p - (Sc @ abar_c) @ alg.const(col_angle)


def revolute_equilibrium_wrench(alg, joint, Pbar, wbar_c, col_angle):
    """Corrected eq. (22) term ``diag(S_p, S_p) Pbar(x2) Wbar_{c/J} dtheta`` (6, k)."""
    Sp = skew(joint.axis)
    W = rotate_to_parent(alg, Pbar, wbar_c)
    return alg.const(np.kron(np.eye(2), Sp)) @ W @ alg.const(col_angle)


def revolute_static_torque(alg, joint, wbar_c):
    """Static actuator torque ``Tbar = -r_c6^T Wbar_{c/J}`` (1, 1) [N m]."""
    return -(alg.const(np.concatenate([np.zeros(3), joint.axis_child]).reshape(1, 6)) @ wbar_c)


def _is_zero(entry) -> bool:
    return isinstance(entry, (int, float, np.floating)) and float(entry) == 0.0
