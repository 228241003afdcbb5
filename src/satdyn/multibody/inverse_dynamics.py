"""Inverse dynamics: the loop-free TITOP inverse diagram (arXiv:2505.03248 §3.7), i.e. RNEA.

``inverse_dynamics(model, q, v, a, *, fext=None, t=0.0)``:

* ``model`` -- :class:`~satdyn.multibody.model.Model`;
* ``q`` (..., model.nq), ``v`` (..., model.nv), ``a`` (..., model.nv) -- configuration, velocity, ``dv/dt``;
* ``fext`` (..., model.n_bodies, 6) -- extra wrenches on each body at its origin, body frame;
* ``t`` -- time [s].

Returns the actuator efforts ``tau`` (..., model.nv) such that
``forward_dynamics(model, q, v, tau) == a`` (joint springs and dampers are accounted for,
so they are not part of ``tau``). ``interface_wrenches`` returns, in addition, the wrench
transmitted through each joint.

Pass 1 (root to leaves) propagates the motion vectors with eq. (35)/(65); pass 2 (leaves to
root) the wrenches with eq. (45)/(75), (93); the efforts are eq. (46)/(76).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .joints import passive_efforts
from .kinematics import (
    external_body_wrenches,
    forward_kinematics,
    in_chunks,
    prepare_fext,
    prepare_inputs,
)
from .sweeps import newton_euler_sweep

__all__ = ["inverse_dynamics", "interface_wrenches", "InterfaceWrenches"]


def inverse_dynamics(model, q, v, a, *, fext=None, t=0.0) -> np.ndarray:
    """Actuator efforts (..., nv) that produce the accelerations ``a`` (see module doc)."""
    shape, (qf, vf, af) = prepare_inputs(model, [(q, model.nq, "q"), (v, model.nv, "v"), (a, model.nv, "a")])
    fx = prepare_fext(model, fext, shape)
    tau = in_chunks(lambda q_, v_, a_, f_: _rnea(model, q_, v_, a_, f_, t, full=False), qf, vf, af, fx)
    return (tau - passive_efforts(model, qf, vf)).reshape(shape + (model.nv,))


@dataclass
class InterfaceWrenches:
    """Joint wrenches and body accelerations from one inverse-dynamics pass.

    Attributes
    ----------
    joint_wrenches : ndarray, shape (..., n_bodies, 6)
        Wrench applied by the parent on body i through its joint, at the body origin (the
        joint point), in the body frame. Paper arXiv:2505.03248's ``W_{A/B,P}`` (by the child on the parent) is its
        opposite, ``-joint_wrenches[..., i, :]`` in the child frame. For the root: the wrench the
        inertial frame (or the actuator of a floating root) applies.
    accelerations : ndarray, shape (..., n_bodies, 6)
        Body-frame spatial accelerations at the body origins (gravity not folded in).
    efforts : ndarray, shape (..., nv)
        Total generalized efforts (actuator plus spring-damper).
    child_on_parent : ndarray, shape (..., n_bodies, 6)
        Paper arXiv:2505.03248's emitted wrench ``[W_{A/B,P0}]_b``: applied by body i on its parent, at the
        joint's point P0 fixed in the parent (the port; eq. 93 for a prismatic), in the parent
        frame. Row 0 (the root) is zero.
    """

    joint_wrenches: np.ndarray
    accelerations: np.ndarray
    efforts: np.ndarray
    child_on_parent: np.ndarray


def interface_wrenches(model, q, v, a, *, fext=None, t=0.0) -> InterfaceWrenches:
    """Inverse dynamics that also returns every joint's transmitted wrench (see :class:`InterfaceWrenches`)."""
    shape, (qf, vf, af) = prepare_inputs(model, [(q, model.nq, "q"), (v, model.nv, "v"), (a, model.nv, "a")])
    fx = prepare_fext(model, fext, shape)
    kin = forward_kinematics(model, qf, vf, t)
    tau, f, acc = _rnea(model, qf, vf, af, fx, t, kin)
    emitted = np.zeros_like(f)
    for i in range(1, model.n_bodies):
        R, offset = kin.R[i], kin.p[i] - model.joints[i].position
        F = -np.einsum("nij,nj->ni", R, f[:, i, :3])
        emitted[:, i] = np.concatenate([F, -np.einsum("nij,nj->ni", R, f[:, i, 3:]) + np.cross(offset, F)], 1)
    nb = model.n_bodies
    return InterfaceWrenches(f.reshape(shape + (nb, 6)), acc.reshape(shape + (nb, 6)),
                             tau.reshape(shape + (model.nv,)), emitted.reshape(shape + (nb, 6)))


def _rnea(model, q, v, a, fext, t, kin=None, full=True):
    """Flat-batch RNEA: total efforts (N, nv) and, with ``full``, joint wrenches (N, nb, 6) and body
    accelerations (N, nb, 6). ``kin`` is only used for the model's external wrenches and loop closures."""
    if model.external_wrenches or model.loop_closures:
        if kin is None:
            kin = forward_kinematics(model, q, v, t)
        fext = external_body_wrenches(model, kin, t, fext)
    return newton_euler_sweep(model, q, v, a, fext, t, full)
