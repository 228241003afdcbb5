"""Single-state ODE right-hand side for :func:`~satdyn.multibody.simulate` (no batch machinery).

``lean_state_derivative(model)`` returns ``rhs(x, tau) -> dx/dt`` (nq + nv,) for ``x = [q, v]``
and actuator efforts ``tau`` (nv,), or None when the model needs the general path (spherical
joints, Euler-angle or prescribed roots, loop closures, time- or attitude-dependent wrenches).

A simulation evaluates the dynamics of one state thousands of times; there the cost of the
batched sweeps is numpy's per-call overhead on (1, 6) arrays, not arithmetic. This path binds
every model constant once (inertias, joint bases, spring and damper coefficients, constant
wrenches) and runs the same articulated-body sweep (arXiv:2505.03248 §3.6 option b, as
:func:`~satdyn.multibody.forward_dynamics`) on single 6-vectors and 6x6 matrices. It is tested
against the batched forward dynamics to 1e-12 on random states.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import lapack

from ..spatial.unchecked import skew as _skew  # trusted inputs: inner loop

__all__ = ["lean_state_derivative"]

_SUPPORTED_JOINTS = {"revolute", "prismatic", "weld"}
_SUPPORTED_ROOTS = {"floating", "fixed"}


def _motion_cross_map():
    """(36, 6) ``C`` with ``crm(v) = (C @ v).reshape(6, 6)``, ``crm(v) m = v x m`` (``[lin; ang]``).

    ``crm(v) = [[skew(w), skew(u)], [0, skew(w)]]`` for ``v = [u; w]``; the force cross is ``-crm(v)^T``.
    """
    C = np.zeros((6, 6, 6))
    for k in range(3):
        e = np.zeros(3)
        e[k] = 1.0
        S = _skew(e)
        C[:3, 3:, k] = S          # d crm / d u_k
        C[:3, :3, 3 + k] = S      # d crm / d w_k
        C[3:, 3:, 3 + k] = S
    return C.reshape(36, 6)


_CRM = _motion_cross_map()


def _solve_spd(A, b):
    """``A^-1 b`` for one symmetric positive definite 6x6 A (LAPACK dposv: a tenth of np.linalg.solve's overhead)."""
    x, info = lapack.dposv(A, b)[1:]
    return x if info == 0 else np.linalg.solve(A, b)


def _dcm(x, y, z, w):
    """``P`` of a quaternion (normalised), scipy's formula (as :func:`satdyn.spatial.dcm_from_quaternion`)."""
    s = 1.0 / (x * x + y * y + z * z + w * w) ** 0.5
    x, y, z, w = x * s, y * s, z * s, w * s
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    return np.array([[x2 - y2 - z2 + w2, 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), -x2 + y2 - z2 + w2, 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), -x2 - y2 + z2 + w2]])


def _transform(R, p):
    """6x6 ``X = [[R^T, -R^T skew(p)], [0, R^T]]`` (motion: parent origin -> child origin)."""
    Rt = R.T
    X = np.zeros((6, 6))
    X[:3, :3] = Rt
    X[3:, 3:] = Rt
    X[:3, 3:] = -Rt @ _skew(p)
    return X


def lean_state_derivative(model):
    """The single-state right-hand side of ``model`` (see module doc), or None if unsupported."""
    joints = model.joints
    if (joints[0].kind not in _SUPPORTED_ROOTS or any(j.kind not in _SUPPORTED_JOINTS for j in joints[1:])
            or model.loop_closures or any(not ew.is_constant for ew in model.external_wrenches)):
        return None
    nb, nq, nv = model.n_bodies, model.nq, model.nv
    parents = model.parents
    inertias = [np.array(D) for D in model.spatial_inertias]
    subspaces = [j.motion_subspace[:, 0].copy() if j.nv == 1 else None for j in joints]
    v_index = [model.idx_v[i] for i in range(nb)]
    q_index = [model.idx_q[i] for i in range(nb)]
    x_bases = [None] * nb          # revolute: X = [1, sin, 1 - cos] @ x_basis (as in .sweeps)
    for i, j in enumerate(joints):
        if j.kind == "revolute":
            B = j.rodrigues_basis.reshape(3, 3, 3)
            X = np.zeros((3, 6, 6))
            for k in range(3):
                X[k, :3, :3] = X[k, 3:, 3:] = B[k].T
                X[k, :3, 3:] = -B[k].T @ _skew(j.position)
            x_bases[i] = X.reshape(3, 36)
    rot_bases = [j.rodrigues_basis if j.kind == "revolute" else None for j in joints]
    fixed_X = [_transform(j.rotation, j.position) if j.kind == "weld" else None for j in joints]
    # Prismatic: p = position + t (rotation @ axis) makes X affine in t: X = X0 + t dX.
    slide_X = [(_transform(j.rotation, j.position),
                _transform(j.rotation, j.rotation @ j.axis) - _transform(j.rotation, np.zeros(3)))
               if j.kind == "prismatic" else None for j in joints]
    stiffness = np.zeros(nv)
    damping = np.zeros(nv)
    rest = np.zeros(nv)
    spring_q = np.zeros(nv, dtype=int)
    for i, j in enumerate(joints):
        if j.nv == 1:
            stiffness[v_index[i]], damping[v_index[i]], rest[v_index[i]] = j.stiffness, j.damping, j.rest
            spring_q[v_index[i]] = q_index[i]
    has_springs = bool(np.any(stiffness) or np.any(damping))
    g = np.array(model.gravity)
    floating = joints[0].kind == "floating"
    # Constant wrenches: body-frame ones fold into one constant vector per body; inertial ones need P_{a/i}.
    body_wrench = [np.zeros(6) for _ in range(nb)]
    inertial = []
    for ew in model.external_wrenches:
        W = np.array(ew.wrench, dtype=float)
        if ew.frame == "inertial":
            inertial.append((ew.body, _skew(np.array(ew.point)), W[:3], W[3:]))
        else:
            body_wrench[ew.body] += np.concatenate([W[:3], W[3:] + np.cross(ew.point, W[:3])])
    need_world = bool(inertial)
    root_R_fixed = np.array(joints[0].rotation)

    def rhs(x, tau):
        q = x[:nq]
        v = x[nq:]
        tau = tau - damping * v - stiffness * (q[spring_q] - rest) if has_springs else tau
        R_world = [None] * nb
        Xs = [None] * nb
        twists = [None] * nb
        biases = [None] * nb
        crosses = [None] * nb
        if floating:
            qx, qy, qz, qw = q[3:7].tolist()
            R0 = _dcm(qx, qy, qz, qw)
            twists[0] = v[:6]
        else:
            R0 = root_R_fixed
            twists[0] = np.zeros(6)
        R_world[0] = R0
        # Gravity as an upward acceleration of the inertial frame (arXiv:2505.03248 eq. 29, "x_dot' - g").
        root_acc = np.concatenate([-(R0.T @ g), np.zeros(3)])
        for i in range(1, nb):
            j = joints[i]
            kind = j.kind
            if kind == "revolute":
                th = float(q[q_index[i]])
                c = np.array([1.0, math.sin(th), 1.0 - math.cos(th)])
                X = (c @ x_bases[i]).reshape(6, 6)
                if need_world:
                    R = (c @ rot_bases[i]).reshape(3, 3)
            elif kind == "prismatic":
                R = j.rotation
                X0, dX = slide_X[i]
                X = X0 + q[q_index[i]] * dX
            else:
                R = j.rotation
                X = fixed_X[i]
            if need_world:
                R_world[i] = R_world[parents[i]] @ R
            Xs[i] = X
            tw = X @ twists[parents[i]]
            if j.nv:
                s_qd = subspaces[i] * v[v_index[i]]
                tw = tw + s_qd
                crosses[i] = crm = (_CRM @ tw).reshape(6, 6)
                biases[i] = crm @ s_qd
            else:
                biases[i] = np.zeros(6)
            twists[i] = tw
        IA = [D.copy() for D in inertias]
        pA = [None] * nb
        for i in range(nb):
            tw = twists[i]
            crm = crosses[i] if crosses[i] is not None else (_CRM @ tw).reshape(6, 6)
            pA[i] = -(crm.T @ (inertias[i] @ tw)) - body_wrench[i]
        for b, point_skew, F, T in inertial:
            Rt = R_world[b].T
            Fb = Rt @ F
            pA[b] = pA[b] - np.concatenate([Fb, Rt @ T + point_skew @ Fb])
        U = [None] * nb
        d = [0.0] * nb
        u = [0.0] * nb
        for i in range(nb - 1, 0, -1):
            Ia = IA[i]
            pa = pA[i]
            if joints[i].nv:
                s = subspaces[i]
                Ui = Ia @ s
                di = float(s @ Ui)
                ui = tau[v_index[i]] - float(s @ pa)
                U[i], d[i], u[i] = Ui, di, ui
                Ia = Ia - Ui[:, None] * (Ui / di)
                pa = pa + Ia @ biases[i] + Ui * (ui / di)
            else:
                pa = pa + Ia @ biases[i]
            X = Xs[i]
            p = parents[i]
            IA[p] = IA[p] + X.T @ Ia @ X
            pA[p] = pA[p] + X.T @ pa
        a = [None] * nb
        qdd = np.empty(nv)
        if floating:
            I0 = IA[0]
            acc0 = _solve_spd(I0, tau[:6] - pA[0] - I0 @ root_acc)
            qdd[:6] = acc0
            a[0] = root_acc + acc0
        else:
            a[0] = root_acc
        for i in range(1, nb):
            ai = Xs[i] @ a[parents[i]] + biases[i]
            if joints[i].nv:
                acc = (u[i] - float(U[i] @ ai)) / d[i]
                qdd[v_index[i]] = acc
                ai = ai + subspaces[i] * acc
            a[i] = ai
        dq = v[:0] if nq == 0 else np.empty(nq)
        if floating:
            dq[:3] = R0 @ v[:3]
            wx, wy, wz = v[3:6].tolist()
            n2 = qx * qx + qy * qy + qz * qz + qw * qw
            # Same as joints._quaternion_rate: q (x) [omega, 0] / 2 plus the norm-restoring term.
            dq[3] = 0.5 * (qw * wx + (qy * wz - qz * wy)) + (1.0 - n2) * qx
            dq[4] = 0.5 * (qw * wy + (qz * wx - qx * wz)) + (1.0 - n2) * qy
            dq[5] = 0.5 * (qw * wz + (qx * wy - qy * wx)) + (1.0 - n2) * qz
            dq[6] = 0.5 * -(qx * wx + qy * wy + qz * wz) + (1.0 - n2) * qw
            dq[7:] = v[6:]
        elif nq:
            dq[:] = v
        return np.concatenate([dq, qdd])

    return rhs
