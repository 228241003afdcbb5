"""Forward kinematics of the tree (positions, attitudes, twists) and the loads that depend on them.

``forward_kinematics(model, q, v, t=0.0)``:

* ``model`` -- :class:`~satdyn.multibody.model.Model`;
* ``q`` (..., model.nq), ``v`` (..., model.nv) -- configuration and velocity;
* ``t`` -- time [s] (prescribed root, time-dependent external wrenches).

It returns a :class:`Kinematics` whose fields are lists over bodies (index i) of arrays with
a flat batch axis N: ``R[i] = P_{a/b}`` and ``p[i]`` the placement in the parent frame,
``R_world[i] = P_{a/i}``, ``r_world[i]`` the origin in the inertial frame, ``twist[i]`` the body
twist ``[v_O; omega]`` in the body frame at the body origin, ``bias[i]`` the velocity-product
acceleration ``v_i x (S_i qd_i)`` (the ``-theta_dot skew(r)`` terms of arXiv:2505.03248 eq. 35, 65).

6-vector helpers used by all algorithms (``[linear; angular]``, body frame, body origin):
``cross_motion(v, m)`` (``v x m``), ``cross_force(v, f)`` (``v x* f``, arXiv:2505.03248's C(x') f),
``motion_to_child(R, p, m)``, ``force_to_parent(R, p, f)``, ``motion_transform_to_child(R, p)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import as_batch_of, broadcast_batches
from ..spatial import rotvec_from_dcm
from .joints import joint_placement
from .model import Model
from .motion import cross, cross_force, cross_motion, force_to_parent, motion_to_child, motion_transform_to_child

__all__ = ["cross", "in_chunks", "Kinematics", "forward_kinematics", "cross_motion", "cross_force", "motion_to_child",
           "force_to_parent", "motion_transform_to_child", "external_body_wrenches", "point_states",
           "prepare_inputs"]


@dataclass
class Kinematics:
    """Per-body kinematic quantities (lists over bodies of arrays with batch axis N)."""

    R: list
    p: list
    R_world: list
    r_world: list
    twist: list
    bias: list
    root_acceleration: np.ndarray  # root-frame acceleration of the root's parent, gravity folded in


def forward_kinematics(model, q, v, t=0.0, world=True) -> Kinematics:
    """Placements, inertial poses, twists and velocity-product terms of every body (flat batch N).

    With ``world=False`` the inertial poses of non-root bodies are not computed (``None``).
    """
    n = q.shape[0]
    R_list, p_list, Rw, rw, tw, bias = [], [], [], [], [], []
    g = model.gravity
    root_acc = None
    for i, joint in enumerate(model.joints):
        qj = q[:, model.q_slice(i)]
        vj = v[:, model.v_slice(i)]
        parent = model.parents[i]
        if parent < 0 and joint.kind == "prescribed":
            pos, P, twist, acc = joint.motion(t)
            R = np.broadcast_to(np.asarray(P, float), (n, 3, 3))
            p = np.broadcast_to(np.asarray(pos, float), (n, 3))
            twist = np.broadcast_to(np.asarray(twist, float), (n, 6)).copy()
            acc = np.broadcast_to(np.asarray(acc, float), (n, 6))
        else:
            R, p = joint_placement(joint, qj)
        if parent < 0:
            Rw.append(R)
            rw.append(p)
            # Gravity as an upward acceleration of the inertial frame (arXiv:2505.03248 eq. 29, "x_dot' - g").
            ghost = np.concatenate([-np.einsum("nji,j->ni", R, g), np.zeros((n, 3))], 1)
            if joint.kind == "prescribed":
                tw.append(twist)
                root_acc = ghost + acc
            else:
                tw.append(vj @ joint.motion_subspace.T if joint.nv else np.zeros((n, 6)))
                root_acc = ghost
            bias.append(np.zeros((n, 6)))
        else:
            if world:
                Rw.append(Rw[parent] @ R)
                rw.append(rw[parent] + np.einsum("nij,nj->ni", Rw[parent], p))
            else:
                Rw.append(None)
                rw.append(None)
            joint_twist = vj @ joint.motion_subspace.T
            child = motion_to_child(R, p, tw[parent]) + joint_twist
            tw.append(child)
            bias.append(cross_motion(child, joint_twist))
        R_list.append(R)
        p_list.append(p)
    return Kinematics(R_list, p_list, Rw, rw, tw, bias, root_acc)


def point_states(kin: Kinematics, body: int, point):
    """Inertial position (N,3), inertial velocity (N,3) and inertial angular velocity (N,3) of a body point."""
    R = kin.R_world[body]
    twist = kin.twist[body]
    pos = kin.r_world[body] + np.einsum("nij,j->ni", R, point)
    vel = np.einsum("nij,nj->ni", R, twist[:, :3] + cross(twist[:, 3:], point))
    omega = np.einsum("nij,nj->ni", R, twist[:, 3:])
    return pos, vel, omega


def _wrench_at_origin(R, point, F_world, T_world):
    F = np.einsum("nji,nj->ni", R, F_world)
    return np.concatenate([F, np.einsum("nji,nj->ni", R, T_world) + cross(point, F)], 1)


def external_body_wrenches(model, kin: Kinematics, t=0.0, fext=None):
    """Sum of the wrenches on each body (N, n_bodies, 6), at its origin, in its frame (None if there are none).

    Includes the model's external wrenches, its penalty loop closures and the explicit
    ``fext`` (N, n_bodies, 6) (same convention as Pinocchio's ``fext``, LOCAL).
    """
    n = kin.twist[0].shape[0]
    if fext is None and not (model.external_wrenches or model.loop_closures):
        return None
    out = np.zeros((n, model.n_bodies, 6)) if fext is None else np.array(fext, dtype=float)
    for ew in model.external_wrenches:
        R = kin.R_world[ew.body]
        if ew.is_constant:
            W = np.broadcast_to(ew.wrench, (n, 6))
        else:
            pos = kin.r_world[ew.body] + np.einsum("nij,j->ni", R, ew.point)
            W = np.broadcast_to(np.asarray(ew.wrench(t, pos, R), dtype=float), (n, 6))
        if ew.frame == "inertial":
            out[:, ew.body] += _wrench_at_origin(R, ew.point, W[:, :3], W[:, 3:])
        else:
            out[:, ew.body] += np.concatenate([W[:, :3], W[:, 3:] + cross(ew.point, W[:, :3])], 1)
    for lc in model.loop_closures:
        F_world, T_world = loop_closure_wrench(lc, kin)[:2]
        out[:, lc.body_b] += _wrench_at_origin(kin.R_world[lc.body_b], lc.point_b, F_world, T_world)
        out[:, lc.body_a] -= _wrench_at_origin(kin.R_world[lc.body_a], lc.point_a, F_world, T_world)
    return out


def loop_closure_error(lc, kin: Kinematics):
    """Pose error ``dx`` (N, 6) and twist error ``dx'`` (N, 6) of a loop closure, in closure frame a."""
    ra, va, wa = point_states(kin, lc.body_a, lc.point_a)
    rb, vb, wb = point_states(kin, lc.body_b, lc.point_b)
    Fa = kin.R_world[lc.body_a] @ lc.rotation_a
    Fb = kin.R_world[lc.body_b] @ lc.rotation_b
    rot = rotvec_from_dcm(np.swapaxes(Fa, -1, -2) @ Fb)
    dx = np.concatenate([np.einsum("nji,nj->ni", Fa, rb - ra), rot], 1)
    dxd = np.concatenate([np.einsum("nji,nj->ni", Fa, vb - va), np.einsum("nji,nj->ni", Fa, wb - wa)], 1)
    return dx, dxd, Fa


def loop_closure_wrench(lc, kin: Kinematics):
    """Inertial force and torque (N, 3) each applied on body b at point b (the opposite acts on body a)."""
    dx, dxd, Fa = loop_closure_error(lc, kin)
    W = -(dx @ lc.stiffness.T + dxd @ lc.damping.T)
    return np.einsum("nij,nj->ni", Fa, W[:, :3]), np.einsum("nij,nj->ni", Fa, W[:, 3:]), dx


def check_model(model):
    """``TypeError`` naming ``model`` unless it is a :class:`~satdyn.multibody.model.Model`."""
    if not isinstance(model, Model):
        raise TypeError(f"`model` must be a satdyn.multibody.Model (from ModelBuilder.build() or load_urdf); "
                        f"got {type(model).__name__}")


def prepare_inputs(model, named):
    """Validate ``(value, size, name)`` triples, broadcast their batch dims, flatten to (N, size).

    Returns the common batch shape and the list of flat arrays.
    """
    check_model(model)
    arrays = []
    for value, size, name in named:
        arrays.append(as_batch_of(value, (size,), name))
    shape = broadcast_batches(*[(a, 1, name) for a, (_, _, name) in zip(arrays, named)])
    n = int(np.prod(shape)) if shape else 1
    flat = [np.broadcast_to(a, shape + a.shape[-1:]).reshape(n, a.shape[-1]) for a in arrays]
    return shape, flat


CHUNK = 2048  # largest batch block: temporaries stay in cache, BLAS stays single-threaded (see docs/multibody.md)


def block_size(n):
    """Samples per block for a flat batch of n: at most ``CHUNK``, as equal as possible.

    Equal blocks (e.g. 3 x 3334 for 10^4) avoid a short last block that pays the per-call
    overhead of every numpy operation for few samples.
    """
    if n <= CHUNK:
        return n
    return -(-n // -(-n // CHUNK))


def in_chunks(fn, *arrays):
    """``fn(*arrays)`` over blocks of at most ``CHUNK`` samples of the flat batch axis (None passes through)."""
    n = arrays[0].shape[0]
    if n <= CHUNK:
        return fn(*arrays)
    size = block_size(n)
    parts = [fn(*[None if a is None else a[s:s + size] for a in arrays]) for s in range(0, n, size)]
    return np.concatenate(parts, axis=0)


def prepare_fext(model, fext, shape):
    if fext is None:
        return None
    f = as_batch_of(fext, (model.n_bodies, 6), "fext")
    try:
        f = np.broadcast_to(f, shape + (model.n_bodies, 6))
    except ValueError:
        raise ValueError(f"`fext` batch shape {f.shape[:-2]} does not broadcast to {shape}") from None
    n = int(np.prod(shape)) if shape else 1
    return f.reshape(n, model.n_bodies, 6)
