"""Poses, centre of mass, energy and momenta of a multibody tree.

* ``body_poses(model, q)`` -> positions (..., n_bodies, 3) [m] of the body origins and DCMs
  ``P_{a/i}`` (..., n_bodies, 3, 3), inertial frame;
* ``center_of_mass(model, q)`` -> (..., 3) [m], all bodies;
* ``mechanical_energy(model, q, v)`` -> (...) [J]: kinetic ``sum 1/2 x'^T D x'`` (arXiv:2505.03248 eq. 28)
  + gravity potential ``-sum m_k g . r_k`` + joint springs + conservative constant loads
  (constant inertial forces without torque, e.g. buoyancy: ``-F . r_point``) + loop-closure
  springs ``1/2 dx^T K dx``;
* ``momentum(model, q, v)`` -> linear (..., 3) [kg m/s] and angular about the inertial origin
  (..., 3) [kg m^2/s], inertial frame.

``q`` (..., model.nq), ``v`` (..., model.nv).
"""

from __future__ import annotations

import numpy as np

from ..spatial import dcm_from_quaternion, rotvec_from_dcm
from .kinematics import forward_kinematics, loop_closure_error, prepare_inputs

__all__ = ["body_poses", "center_of_mass", "mechanical_energy", "kinetic_energy", "momentum"]


def body_poses(model, q):
    """Inertial positions (..., nb, 3) and attitudes ``P_{a/i}`` (..., nb, 3, 3) of the body frames."""
    shape, (qf,) = prepare_inputs(model, [(q, model.nq, "q")])
    kin = forward_kinematics(model, qf, np.zeros((qf.shape[0], model.nv)))
    pos = np.stack(kin.r_world, 1).reshape(shape + (model.n_bodies, 3))
    dcm = np.stack([np.broadcast_to(R, (qf.shape[0], 3, 3)) for R in kin.R_world], 1)
    return pos, dcm.reshape(shape + (model.n_bodies, 3, 3))


def _coms(model, kin):
    return [kin.r_world[i] + np.einsum("nij,j->ni", kin.R_world[i], b.com) for i, b in enumerate(model.bodies)]


def center_of_mass(model, q) -> np.ndarray:
    """System centre of mass (..., 3) [m], inertial frame."""
    shape, (qf,) = prepare_inputs(model, [(q, model.nq, "q")])
    kin = forward_kinematics(model, qf, np.zeros((qf.shape[0], model.nv)))
    masses = np.array([b.mass for b in model.bodies])
    com = sum(m * c for m, c in zip(masses, _coms(model, kin))) / masses.sum()
    return com.reshape(shape + (3,))


def kinetic_energy(model, q, v, t=0.0) -> np.ndarray:
    """Kinetic energy (...) [J]."""
    shape, (qf, vf) = prepare_inputs(model, [(q, model.nq, "q"), (v, model.nv, "v")])
    kin = forward_kinematics(model, qf, vf, t)
    return _kinetic(model, kin).reshape(shape)


def _kinetic(model, kin):
    return sum(0.5 * np.einsum("ni,ij,nj->n", kin.twist[i], model.spatial_inertias[i], kin.twist[i])
               for i in range(model.n_bodies))


def mechanical_energy(model, q, v, t=0.0) -> np.ndarray:
    """Total mechanical energy (...) [J] (see module doc for the potentials included)."""
    shape, (qf, vf) = prepare_inputs(model, [(q, model.nq, "q"), (v, model.nv, "v")])
    kin = forward_kinematics(model, qf, vf, t)
    energy = _kinetic(model, kin)
    for b, c in zip(model.bodies, _coms(model, kin)):
        energy = energy - b.mass * (c @ model.gravity)
    for i, joint in enumerate(model.joints):
        if not joint.stiffness:
            continue
        qj = qf[:, model.q_slice(i)]
        if joint.kind in ("revolute", "prismatic"):
            energy = energy + 0.5 * joint.stiffness * (qj[:, 0] - joint.rest) ** 2
        elif joint.kind == "spherical":
            rv = rotvec_from_dcm(dcm_from_quaternion(qj))
            energy = energy + 0.5 * joint.stiffness * np.einsum("ni,ni->n", rv, rv)
    for ew in model.external_wrenches:
        if ew.is_constant and ew.frame == "inertial" and not np.any(ew.wrench[3:]):
            point = kin.r_world[ew.body] + np.einsum("nij,j->ni", kin.R_world[ew.body], ew.point)
            energy = energy - point @ ew.wrench[:3]
    for lc in model.loop_closures:
        dx = loop_closure_error(lc, kin)[0]
        energy = energy + 0.5 * np.einsum("ni,ij,nj->n", dx, lc.stiffness, dx)
    return energy.reshape(shape)


def momentum(model, q, v, t=0.0):
    """Linear momentum (..., 3) and angular momentum about the inertial origin (..., 3), inertial frame."""
    shape, (qf, vf) = prepare_inputs(model, [(q, model.nq, "q"), (v, model.nv, "v")])
    kin = forward_kinematics(model, qf, vf, t)
    lin = np.zeros((qf.shape[0], 3))
    ang = np.zeros((qf.shape[0], 3))
    for i in range(model.n_bodies):
        h = kin.twist[i] @ model.spatial_inertias[i].T            # [p; L_O] in the body frame
        R = kin.R_world[i]
        p_w = np.einsum("nij,nj->ni", R, h[:, :3])
        lin += p_w
        ang += np.einsum("nij,nj->ni", R, h[:, 3:]) + np.cross(kin.r_world[i], p_w)
    return lin.reshape(shape + (3,)), ang.reshape(shape + (3,))
