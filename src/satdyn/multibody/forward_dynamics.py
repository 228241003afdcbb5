"""Forward dynamics: joint accelerations from efforts, by the structured O(n) articulated sweep.

``forward_dynamics(model, q, v, tau=None, *, fext=None, t=0.0)``:

* ``model`` -- :class:`~satdyn.multibody.model.Model`;
* ``q`` (..., model.nq) -- configuration; ``v`` (..., model.nv) -- velocity;
* ``tau`` (..., model.nv) -- actuator efforts (root: the wrench ``[F; T]`` applied on the root
  body at its origin, in its frame); joint springs and dampers are added internally;
* ``fext`` (..., model.n_bodies, 6) -- extra wrenches on each body at its origin, body frame;
* ``t`` -- time [s] for time-dependent loads and a prescribed root.

Returns ``a`` (..., model.nv): ``dv/dt``; for a floating root the body-frame spatial
acceleration ``[v_dot; omega_dot]`` (arXiv:2505.03248 §1.3, Pinocchio's ``aba``).

This is arXiv:2505.03248 §3.6 option (b): the algebraic loops of the TITOP forward diagram are
resolved block by block. Each block's parent-port wrench is affine in its parent-port
acceleration, ``W = -(K x_dot' + k)``; a leaves-to-root sweep builds ``K`` (Featherstone's
articulated inertia, ``I - I s s^T I / (s^T I s)``) and ``k``, then a root-to-leaves sweep
gives the accelerations. Option (a), the generic affine cut-and-solve, is
``forward_dynamics_cut_and_solve`` (a test reference: O((6E)^3)); option (c) is
``solve(mass_matrix, tau - bias)``.
"""

from __future__ import annotations

import numpy as np

from .joints import passive_efforts
from . import kinematics
from .kinematics import (
    cross_force,
    external_body_wrenches,
    force_to_parent,
    forward_kinematics,
    in_chunks,
    motion_to_child,
    prepare_fext,
    prepare_inputs,
)
from .sweeps import Workspace, articulated_body_sweep

__all__ = ["forward_dynamics", "forward_dynamics_cut_and_solve"]


def forward_dynamics(model, q, v, tau=None, *, fext=None, t=0.0) -> np.ndarray:
    """Generalized accelerations ``dv/dt`` (..., nv) by the articulated-body sweep (see module doc)."""
    shape, (qf, vf, tf) = _inputs(model, q, v, tau)
    fx = prepare_fext(model, fext, shape)
    work = Workspace(model, kinematics.block_size(qf.shape[0]))  # scratch arrays shared by all blocks
    a = in_chunks(lambda q_, v_, t_, f_: _aba(model, q_, v_, t_, f_, t, work=work), qf, vf, tf, fx)
    return a.reshape(shape + (model.nv,))


def _inputs(model, q, v, tau):
    kinematics.check_model(model)
    tau = np.zeros(model.nv) if tau is None else tau
    return prepare_inputs(model, [(q, model.nq, "q"), (v, model.nv, "v"), (tau, model.nv, "tau")])


def _aba(model, q, v, tau, fext, t, kin=None, work=None):
    """Flat-batch articulated-body sweep; ``tau`` are actuator efforts (passive ones added here).

    ``kin`` (batch-first :class:`~satdyn.multibody.kinematics.Kinematics`) is only used for the
    model's external wrenches and loop closures; the sweep itself runs in :mod:`.sweeps`.
    """
    tau = tau + passive_efforts(model, q, v)
    if model.external_wrenches or model.loop_closures:
        if kin is None:
            kin = forward_kinematics(model, q, v, t)
        fext = external_body_wrenches(model, kin, t, fext)
    return articulated_body_sweep(model, q, v, tau, fext, t, work)


def forward_dynamics_cut_and_solve(model, q, v, tau=None, *, fext=None, t=0.0) -> np.ndarray:
    """Paper arXiv:2505.03248 §3.6 option (a): cut every parent-to-child wrench, solve the affine loop exactly.

    Each non-root body is a forward-mode TITOP block: its joint acceleration follows from its
    own apparent inertia (``J_r`` of eq. 47, or ``m^A``) and the wrenches its children apply
    (eq. 63, 92); the root integrates eq. (29). With the cut wrenches ``w`` guessed, one
    root-to-leaves evaluation gives ``F(w) = A w + b``; ``(1 - A) w = b`` is solved and the
    diagram re-evaluated. A reference for tests (cost O((6E)^3)); it needs every forward block
    to have ``J_r > 0`` (or ``m^A > 0``) and a floating root with invertible ``D``.
    """
    shape, (qf, vf, tf) = _inputs(model, q, v, tau)
    fx = prepare_fext(model, fext, shape)
    A, b, diagram = _loop_system(model, qf, vf, tf, fx, t)
    m = b.shape[1]
    w = np.linalg.solve(np.eye(m) - A, b[..., None])[..., 0] if m else b
    return diagram(w)[1].reshape(shape + (model.nv,))


def _loop_system(model, qf, vf, tf, fx, t):
    """The affine loop map ``F(w) = A w + b`` of the cut diagram: A (N, 6E, 6E), b (N, 6E), and the diagram.

    ``w`` stacks, per non-root body, the wrench it applies on its parent (at its origin, in its
    frame). Plain fixed-point iteration ``w <- A w + b`` diverges when the spectral radius of A
    exceeds 1 (1.39 for example G at t = 0, implementation notes §3.6): the loop is solved exactly instead.
    """
    kin = forward_kinematics(model, qf, vf, t)
    tf = tf + passive_efforts(model, qf, vf)
    f_ext = external_body_wrenches(model, kin, t, fx)
    if f_ext is None:
        f_ext = np.zeros((qf.shape[0], model.n_bodies, 6))
    nb = model.n_bodies
    edges = [i for i in range(1, nb)]
    m = 6 * len(edges)

    def diagram(w):
        # w (N, m): wrench applied BY each child ON its parent, at the child origin, child frame.
        n = w.shape[0]
        acc, emitted = [None] * nb, np.zeros_like(w)
        qdd = np.zeros((n, model.nv))
        for i in range(nb):
            joint, parent = model.joints[i], model.parents[i]
            D = model.spatial_inertias[i]
            twist = kin.twist[i]
            load = f_ext[:, i].copy()                            # wrenches on body i at its origin
            for c in model.children[i]:
                e = edges.index(c)
                load += force_to_parent(kin.R[c], kin.p[c], w[:, 6 * e:6 * e + 6])
            gyro = cross_force(twist, twist @ D.T)
            base = kin.root_acceleration if parent < 0 else motion_to_child(kin.R[i], kin.p[i], acc[parent])
            base = base + kin.bias[i]
            S = joint.motion_subspace
            if joint.nv:
                # S^T (D (base + S qdd) + gyro - load) = tau_i  (eq. 55/84; the root: eq. 29 solved for x_dot')
                Dss = S.T @ D @ S
                r = tf[:, model.v_slice(i)] - (base @ D.T + gyro - load) @ S
                sol = np.linalg.solve(Dss, r.T).T
                qdd[:, model.v_slice(i)] = sol
                base = base + sol @ S.T
            acc[i] = base
            if parent >= 0:
                e = edges.index(i)
                # W_{A/B,P} = loads - D x_dot' - C(x') D x'  (eq. 45 with W_ext = loads from children/outside)
                emitted[:, 6 * e:6 * e + 6] = load - base @ D.T - gyro
        return emitted, qdd

    n = qf.shape[0]
    b, _ = diagram(np.zeros((n, m)))
    A = np.stack([diagram(np.broadcast_to(e, (n, m)))[0] - b for e in np.eye(m)], axis=-1) if m else None
    return A, b, diagram
