"""Pinocchio as an optional runtime back-end of satdyn.freefloating.

The pure-numpy path (the paper's closed-form blocks, batched) is the default.  Where the
``pin`` package (Pinocchio) is installed, ``backend="pinocchio"`` in :func:`generalized_inertia`,
:func:`generalized_jacobian`, :func:`reduced_forward_dynamics`,
:func:`reduced_inverse_dynamics` and :func:`simulate` evaluates the same quantities with
Pinocchio's CRBA / RNEA / ABA / joint Jacobians on a free-flyer model built from the
:class:`SpacecraftManipulator` (root frame at the base CoM, one revolute-z joint per joint
placement).  Without Pinocchio these calls raise ``ImportError`` naming the package.

Reduction to the paper's quantities (Front. Robot. AI 5:41 (2018), eqs. 45, 48, 109, 110):
Pinocchio uses body-frame base velocities v_b; the Schur complements over the base block are
invariant under that change of base coordinates, so with M = CRBA and n = RNEA(q, v, 0):

* H = M_mm − M_mb M_bb⁻¹ M_bm,  C = n_m − M_mb M_bb⁻¹ n_b at the zero-momentum base velocity
  v_b = −M_bb⁻¹ M_bm q̇,
* J* = J_m − J_b M_bb⁻¹ M_bm with the point Jacobian in world axes (LOCAL_WORLD_ALIGNED).

Arguments (dimensions) as in the rest of the package: ``q``, ``qdot`` (..., N);
``base_position`` (..., 3); ``base_attitude`` (..., 3, 3); twists [v0; ω0] in 𝒥.
"""

from __future__ import annotations

import dataclasses
import weakref

import numpy as np

from ..spatial import quaternion_from_dcm
from ..spatial.unchecked import skew as _skew
from .kinematics import _check_config
from .model import SpacecraftManipulator

__all__ = ["BACKENDS", "check_backend", "PinocchioTerms", "pinocchio_terms", "to_pinocchio"]

BACKENDS = ("numpy", "pinocchio")
_CACHE: "weakref.WeakKeyDictionary[SpacecraftManipulator, _PinocchioSystem]" = weakref.WeakKeyDictionary()


def check_backend(backend) -> str:
    """Validate ``backend`` ('numpy' or 'pinocchio'); for 'pinocchio' also that ``pin`` imports."""
    if backend not in BACKENDS:
        raise ValueError(f"`backend` must be one of {BACKENDS}; got {backend!r}")
    if backend == "pinocchio":
        _pinocchio()
    return backend


def _pinocchio():
    try:
        import pinocchio
    except ImportError as exc:  # pragma: no cover - exercised by monkeypatching sys.modules
        raise ImportError("backend='pinocchio' needs the Pinocchio Python package (`pip install pin`); "
                          "use backend='numpy' (the default) without it") from exc
    return pinocchio


def to_pinocchio(model):
    """Pinocchio free-flyer model of ``model`` (gravity zero, root = base CoM frame, frame 'end_effector').

    Returns
    -------
    pinocchio.Model
    """
    if not isinstance(model, SpacecraftManipulator):
        raise TypeError(f"`model` must be a SpacecraftManipulator; got {type(model).__name__}")
    pin = _pinocchio()
    pm = pin.Model()
    pm.gravity = pin.Motion.Zero()
    joint = pm.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "base")
    pm.appendBodyToJoint(joint, pin.Inertia(model.base_mass, np.zeros(3), model.base_inertia), pin.SE3.Identity())
    for i, placement in enumerate(model.joint_placements):
        joint = pm.addJoint(joint, pin.JointModelRZ(), pin.SE3(placement[:3, :3], placement[:3, 3]), f"joint{i + 1}")
        pm.appendBodyToJoint(joint, pin.Inertia(model.link_masses[i], model.link_coms[i], model.link_inertias[i]),
                             pin.SE3.Identity())
    ee = model.ee_placement
    pm.addFrame(pin.Frame("end_effector", joint, 0, pin.SE3(ee[:3, :3], ee[:3, 3]), pin.FrameType.OP_FRAME))
    return pm


class _PinocchioSystem:
    """A Pinocchio model + data of one SpacecraftManipulator; single-configuration kernels."""

    def __init__(self, model):
        self.pin = _pinocchio()
        self.model = model
        self.pm = to_pinocchio(model)
        self.data = self.pm.createData()
        self.n = model.n_joints

    def _mass(self, config):
        M = self.pin.crba(self.pm, self.data, config)
        return np.triu(M) + np.triu(M, 1).T          # CRBA fills the upper triangle

    def reduced(self, r0, R0, q, qdot):
        """(H (N,N), C (N,), zero-momentum base twist [v0; ω0] in 𝒥 (6,), M, config)."""
        config = np.concatenate([r0, quaternion_from_dcm(R0), q])
        M = self._mass(config)
        G = np.linalg.solve(M[:6, :6], M[:6, 6:])    # M_bb⁻¹ M_bm
        vb = -G @ qdot
        nle = self.pin.rnea(self.pm, self.data, config, np.concatenate([vb, qdot]), np.zeros(6 + self.n))
        H = M[6:, 6:] - M[6:, :6] @ G
        C = nle[6:] - G.T @ nle[:6]
        return 0.5 * (H + H.T), C, np.concatenate([R0 @ vb[:3], R0 @ vb[3:]]), G, config

    def point_jacobian(self, config, G, link, local_point):
        """J* (6, N) of a point fixed on ``link`` (0 = base), world axes, [v; ω]."""
        pin = self.pin
        pin.computeJointJacobians(self.pm, self.data, config)
        pin.updateFramePlacements(self.pm, self.data)
        jid = link + 1
        oMi = self.data.oMi[jid]
        x = oMi.act(local_point)
        J = pin.getJointJacobian(self.pm, self.data, jid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        J = np.vstack([J[:3] - _skew(x - oMi.translation) @ J[3:], J[3:]])
        return J[:, 6:] - J[:, :6] @ G

    def full_acceleration(self, r0, R0, twist, q, qdot, tau, force, torque):
        """[v̇0; ω̇0] (6,) in 𝒥 and q̈ (N,) under an external base wrench (in 𝒥, about the base CoM)."""
        pin = self.pin
        config = np.concatenate([r0, quaternion_from_dcm(R0), q])
        vb = np.concatenate([R0.T @ twist[:3], R0.T @ twist[3:]])
        fext = [pin.Force.Zero() for _ in range(self.pm.njoints)]
        fext[1] = pin.Force(R0.T @ force, R0.T @ torque)
        acc = pin.aba(self.pm, self.data, config, np.concatenate([vb, qdot]),
                      np.concatenate([np.zeros(6), tau]), fext)
        # Pinocchio's base acceleration is the derivative of the body-frame spatial velocity.
        base = np.concatenate([R0 @ (acc[:3] + np.cross(vb[3:], vb[:3])), R0 @ acc[3:6]])
        return base, acc[6:]


def pinocchio_system(model) -> _PinocchioSystem:
    """Cached Pinocchio model of ``model`` (one per model object)."""
    system = _CACHE.get(model)
    if system is None:
        system = _CACHE[model] = _PinocchioSystem(model)
    return system


@dataclasses.dataclass(frozen=True)
class PinocchioTerms:
    """H (..., N, N), C (..., N), J* (..., 6, N) and the zero-momentum base twist (..., 6) in 𝒥."""

    H: np.ndarray
    C: np.ndarray
    J: np.ndarray
    base_twist: np.ndarray


def pinocchio_terms(model, q, qdot=None, base_position=None, base_attitude=None, link=None,
                    local_point=None) -> PinocchioTerms:
    """(H, C, J*) of the reduced zero-momentum equations with Pinocchio (batched by a loop).

    Parameters
    ----------
    model : SpacecraftManipulator
    q, qdot : array_like, shape (..., N); ``qdot`` default zero
    base_position (..., 3), base_attitude (..., 3, 3), optional
    link : int, optional
        0 (base) .. N; default N.
    local_point : array_like, shape (3,), optional
        In the link body frame; default the end effector on link N, else the link CoM.

    Returns
    -------
    PinocchioTerms
    """
    q, r0, R0 = _check_config(model, q, base_position, base_attitude)
    n = model.n_joints
    qd = np.zeros_like(q) if qdot is None else np.broadcast_to(np.asarray(qdot, dtype=float), q.shape)
    link = n if link is None else link
    if not (isinstance(link, (int, np.integer)) and 0 <= link <= n):
        raise ValueError(f"`link` must be an integer 0..{n}; got {link!r}")
    if local_point is None:
        if link == n:
            local_point = model.ee_placement[:3, 3]
        else:
            local_point = np.zeros(3) if link == 0 else model.link_coms[link - 1]
    local_point = np.asarray(local_point, dtype=float)
    if local_point.shape != (3,):
        raise ValueError(f"`local_point` must have shape (3,); got {local_point.shape}")
    system = pinocchio_system(model)
    batch = q.shape[:-1]
    H, C = np.empty(batch + (n, n)), np.empty(batch + (n,))
    J, tw = np.empty(batch + (6, n)), np.empty(batch + (6,))
    for idx in np.ndindex(*batch):
        H[idx], C[idx], tw[idx], G, config = system.reduced(r0[idx], R0[idx], q[idx], qd[idx])
        J[idx] = system.point_jacobian(config, G, link, local_point)
    return PinocchioTerms(H, C, J, tw)
