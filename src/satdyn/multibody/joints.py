"""Joints of a multibody tree: factory functions and per-joint kinematics.

A joint connects a parent body (frame ``R_b``) to its child body (frame ``R_a``). The
child frame's origin is the joint point P, and the joint's axis is given in ``R_a``
(the joint "belongs to" the child, as in arXiv:2505.03248 §1.6). At zero joint coordinate the
child frame sits at ``position`` in the parent frame with DCM ``rotation = P_{a0/b}``.

Joint coordinates (``nq`` entries of ``q``) and rates (``nv`` entries of ``v``):

===============  ===  ===  ==================================================================
kind             nq   nv   coordinates / rates
===============  ===  ===  ==================================================================
weld             0    0    (rigid union)
revolute         1    1    angle [rad] about the unit axis r / rate [rad/s]
prismatic        1    1    displacement [m] along the unit axis t / rate [m/s]
spherical        4    3    quaternion ``[x, y, z, w]`` of ``P_{a/a0}`` / angular velocity in ``R_a``
floating (root)  7    6    inertial position, quaternion of ``P_{a/i}`` / ``[v; omega]`` in ``R_a``
floating_euler   6    6    inertial position, Euler 3-2-1 angles / ``[v; omega]`` in ``R_a``
fixed (root)     0    0    root welded to the inertial frame
prescribed       0    0    root motion given as a function of time
===============  ===  ===  ==================================================================

Every 1-DOF joint carries a linear spring (``stiffness``, about ``rest``), a linear damper
(``damping``) and an actuator effort (the ``tau`` input of the algorithms). A spherical
joint carries a rotational spring on its rotation vector and a damper on its rate.

Functions (``qj``: this joint's slice of q, shape (N, nq); ``vj``: (N, nv); N = batch):
``joint_placement(joint, qj) -> (R (N,3,3), p (N,3))``, ``configuration_derivative``,
``integrate``, ``passive_effort``, ``neutral_configuration``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .._validation import as_batch_of, as_float_array
from ..spatial import (
    dcm_from_euler,
    dcm_from_quaternion,
    euler_from_dcm,
    euler_rate_matrix,
    quaternion_multiply,
    rotvec_from_dcm,
    skew,
    so3_exp,
)

__all__ = [
    "Joint", "weld_joint", "revolute_joint", "prismatic_joint", "spherical_joint",
    "floating_root", "floating_euler_root", "fixed_root", "prescribed_root",
    "ROOT_KINDS", "joint_placement", "configuration_derivative", "integrate",
    "passive_effort", "passive_efforts", "neutral_configuration",
]

_SIZES = {"weld": (0, 0), "revolute": (1, 1), "prismatic": (1, 1), "spherical": (4, 3),
          "floating": (7, 6), "floating_euler": (6, 6), "fixed": (0, 0), "prescribed": (0, 0)}
ROOT_KINDS = frozenset({"floating", "floating_euler", "fixed", "prescribed"})


@dataclass(frozen=True, eq=False)
class Joint:
    """One joint (immutable). Build it with the factory functions of this module.

    Attributes
    ----------
    name : str
    kind : str
        One of weld, revolute, prismatic, spherical, floating, floating_euler, fixed, prescribed.
    axis : ndarray, shape (3,) or None
        Unit axis in the child frame (revolute, prismatic).
    rotation : ndarray, shape (3, 3)
        ``P_{a0/b}``: the child frame's axes in the parent frame at zero coordinate.
    position : ndarray, shape (3,)
        Joint point in the parent frame [m] (set from the parent's port by the builder).
    stiffness, damping, rest : float
        Spring [N/m or N m/rad], damper [N s/m or N m s/rad] and spring rest coordinate.
    motion : callable or None
        Prescribed root only: ``motion(t) -> (position (3,), P_ai (3,3), twist (6,), acceleration (6,))``,
        twist and spatial acceleration in the root frame.
    """

    name: str
    kind: str
    axis: np.ndarray | None = None
    rotation: np.ndarray = field(default_factory=lambda: np.eye(3))
    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    stiffness: float = 0.0
    damping: float = 0.0
    rest: float = 0.0
    motion: Callable | None = None

    @cached_property
    def nq(self) -> int:
        return _SIZES[self.kind][0]

    @cached_property
    def nv(self) -> int:
        return _SIZES[self.kind][1]

    @property
    def is_root(self) -> bool:
        return self.kind in ROOT_KINDS

    @cached_property
    def rodrigues_basis(self) -> np.ndarray:
        """Revolute: rows ``P0, P0 S, P0 S^2`` flattened (3, 9), ``S = skew(axis)`` (see ``joint_placement``)."""
        S1 = skew(self.axis)
        S2 = S1 @ S1
        B = np.stack([self.rotation, self.rotation @ S1, self.rotation @ S2]).reshape(3, 9)
        B.setflags(write=False)
        return B

    @cached_property
    def axis_index(self):
        """Index in the 6-vector of a revolute / prismatic axis along a frame axis, else None."""
        if self.kind not in ("revolute", "prismatic"):
            return None
        hits = np.flatnonzero(np.abs(self.axis) == 1.0)
        if hits.size != 1:
            return None
        return int(hits[0]) + (3 if self.kind == "revolute" else 0) if self.axis[hits[0]] > 0 else None

    @cached_property
    def motion_subspace(self) -> np.ndarray:
        """Constant motion subspace ``S`` (6, nv) in the child frame, ``[linear; angular]``."""
        S = np.zeros((6, self.nv))
        if self.kind == "revolute":
            S[3:, 0] = self.axis
        elif self.kind == "prismatic":
            S[:3, 0] = self.axis
        elif self.kind == "spherical":
            S[3:, :] = np.eye(3)
        elif self.kind in ("floating", "floating_euler"):
            S[:, :] = np.eye(6)
        S.setflags(write=False)
        return S


def _rotation(rotation, name):
    if rotation is None:
        return np.eye(3)
    P = as_batch_of(rotation, (3, 3), name)
    if P.shape != (3, 3) or np.abs(P @ P.T - np.eye(3)).max() > 1e-9 or np.linalg.det(P) < 0:
        raise ValueError(f"`{name}` must be one proper rotation matrix (3, 3)")
    return P.copy()


def _axis(axis):
    a = as_batch_of(axis, (3,), "axis")
    n = np.linalg.norm(a)
    if a.shape != (3,) or n < 1e-12:
        raise ValueError(f"`axis` must be one non-zero 3-vector; got {np.asarray(axis)!r}")
    return a / n  # arXiv:2505.03248 §6.14: only the direction matters


def _scalar(value, name, nonnegative=True):
    x = float(as_float_array(value, name))
    if nonnegative and x < 0.0:
        raise ValueError(f"`{name}` must be >= 0; got {x}")
    return x


def weld_joint(name: str, *, rotation=None) -> Joint:
    """Rigid connection; ``rotation`` is ``P_{a/b}`` (default identity)."""
    return Joint(name, "weld", rotation=_rotation(rotation, "rotation"))


def revolute_joint(name: str, axis, *, rotation=None, stiffness=0.0, damping=0.0, rest=0.0) -> Joint:
    """Revolute joint about ``axis`` (child frame).

    ``P_{a/b} = P_{a0/b} exp(theta skew(r))`` (arXiv:2505.03248 eq. 34).
    """
    return Joint(name, "revolute", _axis(axis), _rotation(rotation, "rotation"),
                 stiffness=_scalar(stiffness, "stiffness"), damping=_scalar(damping, "damping"),
                 rest=_scalar(rest, "rest", nonnegative=False))


def prismatic_joint(name: str, axis, *, rotation=None, stiffness=0.0, damping=0.0, rest=0.0) -> Joint:
    """Prismatic joint along ``axis`` (child frame): the child origin is at ``position + P_{a/b} x t``."""
    return Joint(name, "prismatic", _axis(axis), _rotation(rotation, "rotation"),
                 stiffness=_scalar(stiffness, "stiffness"), damping=_scalar(damping, "damping"),
                 rest=_scalar(rest, "rest", nonnegative=False))


def spherical_joint(name: str, *, rotation=None, stiffness=0.0, damping=0.0) -> Joint:
    """Ball joint; coordinates: quaternion of ``P_{a/a0}``; rates: angular velocity in the child frame."""
    return Joint(name, "spherical", None, _rotation(rotation, "rotation"),
                 stiffness=_scalar(stiffness, "stiffness"), damping=_scalar(damping, "damping"))


def floating_root(name: str = "root") -> Joint:
    """6-DOF free root, quaternion attitude (no gimbal lock).

    q = [r_i (3), quat (4)], v = [v; omega] in the body frame.
    """
    return Joint(name, "floating")


def floating_euler_root(name: str = "root") -> Joint:
    """6-DOF free root with Euler 3-2-1 angles (arXiv:2505.03248's 12-state root); singular at pitch +-90 deg."""
    return Joint(name, "floating_euler")


def fixed_root(name: str = "root", *, rotation=None, position=None) -> Joint:
    """Root welded to the inertial frame at ``position`` [m] with attitude ``rotation = P_{a/i}``."""
    p = np.zeros(3) if position is None else as_batch_of(position, (3,), "position").reshape(3).copy()
    return Joint(name, "fixed", rotation=_rotation(rotation, "rotation"), position=p)


def prescribed_root(motion: Callable, name: str = "root") -> Joint:
    """Root with prescribed motion: ``motion(t) -> (position, P_ai, twist, spatial_acceleration)``.

    ``position`` (3,) inertial [m]; ``P_ai`` (3, 3); ``twist = [v; omega]`` and
    ``spatial_acceleration = d/dt twist`` (6,) in the root frame (arXiv:2505.03248 §1.3).
    """
    if not callable(motion):
        raise TypeError("`motion` must be callable: motion(t) -> (position, P_ai, twist, acceleration)")
    return Joint(name, "prescribed", motion=motion)


def _unit(qj):
    return qj / np.linalg.norm(qj, axis=-1, keepdims=True)


def joint_placement(joint: Joint, qj: np.ndarray):
    """Child frame in the parent frame: ``R = P_{a/b}`` (N, 3, 3) and origin ``p`` (N, 3) [m]."""
    n = qj.shape[0]
    kind = joint.kind
    if kind == "revolute":
        # eq. (34) P_{a0/b} exp(theta skew(r)) = P0 + sin(theta) P0 S + (1 - cos(theta)) P0 S^2 (Rodrigues):
        # one (N, 3) x (3, 9) product instead of N 3x3 products.
        th = qj[:, 0]
        coeffs = np.stack([np.ones_like(th), np.sin(th), 1.0 - np.cos(th)], axis=1)
        R = (coeffs @ joint.rodrigues_basis).reshape(n, 3, 3)
        return R, np.broadcast_to(joint.position, (n, 3))
    if kind == "prismatic":
        p = joint.position + qj[:, :1] * (joint.rotation @ joint.axis)
        return np.broadcast_to(joint.rotation, (n, 3, 3)), p
    if kind == "spherical":
        return joint.rotation @ dcm_from_quaternion(qj), np.broadcast_to(joint.position, (n, 3))
    if kind == "floating":
        return dcm_from_quaternion(qj[:, 3:7]), qj[:, :3]
    if kind == "floating_euler":
        return dcm_from_euler(qj[:, 3:6]), qj[:, :3]
    return np.broadcast_to(joint.rotation, (n, 3, 3)), np.broadcast_to(joint.position, (n, 3))


def configuration_derivative(joint: Joint, qj: np.ndarray, vj: np.ndarray, rotation=None) -> np.ndarray:
    """``dq/dt`` (N, nq) of this joint from its rates ``vj`` (N, nv).

    ``rotation`` (N, 3, 3): the root attitude ``P_{a/i}`` if already known (saves recomputing it).
    """
    kind = joint.kind
    if kind in ("revolute", "prismatic"):
        return vj.copy()
    if kind == "spherical":
        return _quaternion_rate(qj, vj[:, :3])
    if kind == "floating":
        R = dcm_from_quaternion(qj[:, 3:7]) if rotation is None else rotation
        return np.concatenate([np.einsum("nij,nj->ni", R, vj[:, :3]), _quaternion_rate(qj[:, 3:7], vj[:, 3:])], 1)
    if kind == "floating_euler":
        R = dcm_from_euler(qj[:, 3:6])
        rates = np.einsum("nij,nj->ni", euler_rate_matrix(qj[:, 3:6]), vj[:, 3:])
        return np.concatenate([np.einsum("nij,nj->ni", R, vj[:, :3]), rates], 1)
    return np.zeros((qj.shape[0], 0))


def _quaternion_rate(quat, omega):
    """``q_dot = q (x) [omega_b, 0] / 2`` plus a norm-restoring term (zero on the unit sphere).

    The product is written out (``[w omega + v x omega; -v . omega] / 2``, the same as
    :func:`satdyn.spatial.quaternion_derivative`, checked against it in the tests) because this
    is the hot path of every simulation step. The restoring term keeps integration error from
    letting ``|q|`` drift; the dynamics use the normalised quaternion anyway.
    """
    vec, w = quat[:, :3], quat[:, 3:]
    rate = np.concatenate([w * omega + np.einsum("ijk,nj,nk->ni", _LEVI_CIVITA, vec, omega),
                           -np.einsum("ni,ni->n", vec, omega)[:, None]], 1)
    norm2 = np.einsum("ni,ni->n", quat, quat)
    return 0.5 * rate + (1.0 - norm2)[:, None] * quat


_LEVI_CIVITA = np.zeros((3, 3, 3))
_LEVI_CIVITA[0, 1, 2] = _LEVI_CIVITA[1, 2, 0] = _LEVI_CIVITA[2, 0, 1] = 1.0
_LEVI_CIVITA[0, 2, 1] = _LEVI_CIVITA[2, 1, 0] = _LEVI_CIVITA[1, 0, 2] = -1.0


def integrate(joint: Joint, qj: np.ndarray, dv: np.ndarray) -> np.ndarray:
    """``q (+) dv``: move along the constant body-frame rate ``dv`` for unit time (Lie-group step).

    Floating roots move position and attitude separately (``r + P_ai dv_lin``,
    ``P_ai exp(dv_ang)``), the chart used by :func:`satdyn.multibody.linearize`.
    """
    kind = joint.kind
    if kind in ("revolute", "prismatic"):
        return qj + dv
    if kind == "spherical":
        return _quat_times_exp(_unit(qj), dv)
    if kind == "floating":
        R = dcm_from_quaternion(qj[:, 3:7])
        return np.concatenate([qj[:, :3] + np.einsum("nij,nj->ni", R, dv[:, :3]),
                               _quat_times_exp(_unit(qj[:, 3:7]), dv[:, 3:])], 1)
    if kind == "floating_euler":
        R = dcm_from_euler(qj[:, 3:6])
        return np.concatenate([qj[:, :3] + np.einsum("nij,nj->ni", R, dv[:, :3]),
                               euler_from_dcm(R @ so3_exp(dv[:, 3:]))], 1)
    return qj.copy()


def _quat_times_exp(quat, rotvec):
    angle = np.linalg.norm(rotvec, axis=-1, keepdims=True)
    half = 0.5 * angle
    # sin(x)/x written with np.sinc (sinc(y) = sin(pi y)/(pi y)) so that angle = 0 is exact.
    vec = 0.5 * np.sinc(half / np.pi) * rotvec
    return quaternion_multiply(quat, np.concatenate([vec, np.cos(half)], axis=-1))


def passive_effort(joint: Joint, qj: np.ndarray, vj: np.ndarray) -> np.ndarray:
    """Spring-damper effort (N, nv) applied on the child: ``-k (q - rest) - d q_dot``."""
    kind = joint.kind
    if kind in ("revolute", "prismatic"):
        return -joint.stiffness * (qj - joint.rest) - joint.damping * vj
    if kind == "spherical":
        out = -joint.damping * vj
        if joint.stiffness:
            out = out - joint.stiffness * rotvec_from_dcm(dcm_from_quaternion(qj))
        return out
    return np.zeros_like(vj)


def neutral_configuration(joint: Joint) -> np.ndarray:
    """Zero configuration (nq,): zero angles/displacements, identity quaternions, origin."""
    if joint.kind == "spherical":
        return np.array([0.0, 0.0, 0.0, 1.0])
    if joint.kind == "floating":
        return np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    return np.zeros(joint.nq)


def passive_efforts(model, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Spring-damper efforts of all joints, (N, nv) for flat q (N, nq), v (N, nv)."""
    out = np.zeros_like(v)
    for i, joint in enumerate(model.joints):
        if joint.nv and (joint.stiffness or joint.damping):
            out[:, model.v_slice(i)] = passive_effort(joint, q[:, model.q_slice(i)], v[:, model.v_slice(i)])
    return out
