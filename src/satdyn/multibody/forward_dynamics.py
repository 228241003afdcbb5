"""Forward dynamics: joint accelerations from efforts, by the structured O(n) articulated sweep.

``forward_dynamics(model, q, v, tau=None, *, fext=None, t=0.0)``:

* ``model`` -- :class:`~satdyn.multibody.model.Model`;
* ``q`` (..., model.nq) -- configuration; ``v`` (..., model.nv) -- velocity;
* ``tau`` (..., model.nv) -- actuator efforts (root: the wrench ``[F; T]`` applied on the root
  body at its origin, in its frame); joint springs and dampers are added internally;
* ``fext`` (..., model.n_bodies, 6) -- extra wrenches on each body at its origin, body frame;
* ``t`` -- time [s] for time-dependent loads and a prescribed root.

Returns ``a`` (..., model.nv): ``dv/dt``; for a floating root the body-frame spatial
acceleration ``[v_dot; omega_dot]`` (seed 004 §1.3, Pinocchio's ``aba``).

This is seed 004 §3.6 option (b): the algebraic loops of the TITOP forward diagram are
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
from .kinematics import (
    cross_force,
    external_body_wrenches,
    force_to_parent,
    forward_kinematics,
    motion_to_child,
    motion_transform_to_child,
    prepare_fext,
    prepare_inputs,
)

__all__ = ["forward_dynamics", "forward_dynamics_cut_and_solve"]


def forward_dynamics(model, q, v, tau=None, *, fext=None, t=0.0) -> np.ndarray:
    """Generalized accelerations ``dv/dt`` (..., nv) by the articulated-body sweep (see module doc)."""
    shape, (qf, vf, tf) = _inputs(model, q, v, tau)
    fx = prepare_fext(model, fext, shape)
    return _aba(model, qf, vf, tf, fx, t).reshape(shape + (model.nv,))


def _inputs(model, q, v, tau):
    tau = np.zeros(model.nv) if tau is None else tau
    return prepare_inputs(model, [(q, model.nq, "q"), (v, model.nv, "v"), (tau, model.nv, "tau")])


def _aba(model, q, v, tau, fext, t, kin=None):
    """Flat-batch articulated-body sweep; ``tau`` are actuator efforts (passive ones added here)."""
    if kin is None:
        kin = forward_kinematics(model, q, v, t)
    tau = tau + passive_efforts(model, q, v)
    f_ext = external_body_wrenches(model, kin, t, fext)
    n = q.shape[0]
    nb = model.n_bodies
    IA = [np.repeat(model.spatial_inertias[i][None], n, axis=0) for i in range(nb)]
    pA = [cross_force(kin.twist[i], kin.twist[i] @ model.spatial_inertias[i].T) - f_ext[:, i] for i in range(nb)]
    U, Dinv, u, X = [None] * nb, [None] * nb, [None] * nb, [None] * nb
    for i in range(nb - 1, -1, -1):
        joint = model.joints[i]
        S = joint.motion_subspace
        parent = model.parents[i]
        k = joint.nv
        if k:
            Ui = IA[i] @ S                                       # (N, 6, k)
            Di = S.T @ Ui                                        # (N, k, k): J_r, m^A, or 6x6
            ui = tau[:, model.v_slice(i)] - pA[i] @ S            # (N, k)
            Dinv_i = 1.0 / Di if k == 1 else np.linalg.inv(Di)
            U[i], Dinv[i], u[i] = Ui, Dinv_i, ui
        if parent < 0:
            continue
        Ia = IA[i]
        pa = pA[i] + np.einsum("nij,nj->ni", Ia, kin.bias[i])
        if k:
            UD = Ui @ Dinv_i                                     # (N, 6, k)
            Ia = Ia - UD @ np.swapaxes(Ui, -1, -2)
            pa = pA[i] + np.einsum("nij,nj->ni", Ia, kin.bias[i]) + np.einsum("nik,nk->ni", UD, ui)
        Xi = motion_transform_to_child(kin.R[i], kin.p[i])
        X[i] = Xi
        IA[parent] = IA[parent] + np.swapaxes(Xi, -1, -2) @ Ia @ Xi
        pA[parent] = pA[parent] + force_to_parent(kin.R[i], kin.p[i], pa)
    a_body = [None] * nb
    qdd = np.zeros((n, model.nv))
    for i in range(nb):
        parent = model.parents[i]
        if parent < 0:
            ai = kin.root_acceleration.copy()
        else:
            ai = motion_to_child(kin.R[i], kin.p[i], a_body[parent]) + kin.bias[i]
        if model.joints[i].nv:
            S = model.joints[i].motion_subspace
            rhs = u[i] - np.einsum("nik,ni->nk", U[i], ai)
            acc = np.einsum("nkl,nl->nk", Dinv[i], rhs)
            qdd[:, model.v_slice(i)] = acc
            ai = ai + acc @ S.T
        a_body[i] = ai
    return qdd


def forward_dynamics_cut_and_solve(model, q, v, tau=None, *, fext=None, t=0.0) -> np.ndarray:
    """Seed 004 §3.6 option (a): cut every parent-to-child wrench, solve the affine loop exactly.

    Each non-root body is a forward-mode TITOP block: its joint acceleration follows from its
    own apparent inertia (``J_r`` of eq. 47, or ``m^A``) and the wrenches its children apply
    (eq. 63, 92); the root integrates eq. (29). With the cut wrenches ``w`` guessed, one
    root-to-leaves evaluation gives ``F(w) = A w + b``; ``(1 - A) w = b`` is solved and the
    diagram re-evaluated. A reference for tests (cost O((6E)^3)); it needs every forward block
    to have ``J_r > 0`` (or ``m^A > 0``) and a floating root with invertible ``D``.
    """
    shape, (qf, vf, tf) = _inputs(model, q, v, tau)
    fx = prepare_fext(model, fext, shape)
    kin = forward_kinematics(model, qf, vf, t)
    tf = tf + passive_efforts(model, qf, vf)
    f_ext = external_body_wrenches(model, kin, t, fx)
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
    w = np.linalg.solve(np.eye(m) - A, b[..., None])[..., 0] if m else b
    return diagram(w)[1].reshape(shape + (model.nv,))
