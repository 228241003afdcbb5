"""Compiled single-state dynamics (numba): forward dynamics, mass matrix and bias of one state.

A simulation evaluates the dynamics of one state thousands of times; in numpy the cost is
the interpreter's per-call overhead, not arithmetic (the lean numpy sweep of
:mod:`~satdyn.multibody.lean_rhs` spends ~0.5 ms per right-hand side on an 8-joint tree). These
kernels run the same algorithms compiled to machine code:

* ``state_derivative``: ``dx/dt`` of ``x = [q, v]`` by the articulated-body sweep
  (arXiv:2505.03248 §3.6 option b, as :func:`~satdyn.multibody.forward_dynamics`), joint
  springs and dampers, constant external wrenches (body or inertial frame) and gravity;
* ``mass_matrix`` (composite-rigid-body) and ``nonlinear_effects`` (RNEA at zero
  acceleration: velocity terms and gravity, no springs, no loads), as the batched functions
  of the same names, for implicit integrators and control laws;
* ``batch_state_derivative``: ``state_derivative`` of many states in one compiled loop (the
  right-hand side of :func:`~satdyn.multibody.simulate_batch`).

Scope: the trees :mod:`~satdyn.multibody.lean_rhs` handles -- revolute, prismatic and weld
joints on a fixed or quaternion-floating root, constant external wrenches, no loop closure --
which is every tree :func:`~satdyn.multibody.load_urdf` builds.
:func:`~satdyn.multibody.compiled_model.compile_model` binds them to a model (or returns None
for other models, or when numba is not installed: the numpy paths then run). numba caches
the machine code on disk (``cache=True``): the first call of a fresh installation compiles
(a few seconds), later processes load it.
"""

from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:  # the numpy paths run instead
    numba = None

__all__ = ["HAVE_NUMBA"]  # the kernels; the model-bound interface is in .compiled_model

HAVE_NUMBA = numba is not None
_KIND = {"weld": 0, "revolute": 1, "prismatic": 2}


def _jit(function):
    return numba.njit(cache=True, fastmath=True, nogil=True)(function) if HAVE_NUMBA else function


# --- small dense helpers on 3- and 6-vectors (explicit loops: no BLAS call per 6x6 product) ---

@_jit
def _motion_to_child(R, p, m, out):
    """X m with X = [[R^T, -R^T skew(p)], [0, R^T]]: [R^T (u - p x w); R^T w]."""
    u0 = m[0] - (p[1] * m[5] - p[2] * m[4])
    u1 = m[1] - (p[2] * m[3] - p[0] * m[5])
    u2 = m[2] - (p[0] * m[4] - p[1] * m[3])
    for a in range(3):
        out[a] = R[0, a] * u0 + R[1, a] * u1 + R[2, a] * u2
        out[3 + a] = R[0, a] * m[3] + R[1, a] * m[4] + R[2, a] * m[5]


@_jit
def _force_to_parent_add(R, p, f, out):
    """out += X^T f = [R F; p x (R F) + R T]."""
    F0 = R[0, 0] * f[0] + R[0, 1] * f[1] + R[0, 2] * f[2]
    F1 = R[1, 0] * f[0] + R[1, 1] * f[1] + R[1, 2] * f[2]
    F2 = R[2, 0] * f[0] + R[2, 1] * f[1] + R[2, 2] * f[2]
    out[0] += F0
    out[1] += F1
    out[2] += F2
    out[3] += R[0, 0] * f[3] + R[0, 1] * f[4] + R[0, 2] * f[5] + p[1] * F2 - p[2] * F1
    out[4] += R[1, 0] * f[3] + R[1, 1] * f[4] + R[1, 2] * f[5] + p[2] * F0 - p[0] * F2
    out[5] += R[2, 0] * f[3] + R[2, 1] * f[4] + R[2, 2] * f[5] + p[0] * F1 - p[1] * F0


@_jit
def _rotate_block(R, I, r0, c0, T, out):
    """out = R I[r0:r0+3, c0:c0+3] R^T (T: 3x3 scratch)."""
    for a in range(3):
        for b in range(3):
            T[a, b] = I[r0 + a, c0] * R[b, 0] + I[r0 + a, c0 + 1] * R[b, 1] + I[r0 + a, c0 + 2] * R[b, 2]
    for a in range(3):
        for b in range(3):
            out[a, b] = R[a, 0] * T[0, b] + R[a, 1] * T[1, b] + R[a, 2] * T[2, b]


@_jit
def _times_skew(A, p, out):
    """out = A skew(p) (3x3)."""
    for a in range(3):
        out[a, 0] = A[a, 1] * p[2] - A[a, 2] * p[1]
        out[a, 1] = A[a, 2] * p[0] - A[a, 0] * p[2]
        out[a, 2] = A[a, 0] * p[1] - A[a, 1] * p[0]


@_jit
def _inertia_to_parent_add(R, p, I, out, work):
    """out += X^T I X for a symmetric 6x6 I = [[A, B], [B^T, C]] (3x3 blocks); ``work`` (6, 3, 3).

    With A' = R A R^T, B' = R B R^T, C' = R C R^T, P = skew(p) and T = B' - A' P:
    X^T I X = [[A', T], [T^T, C' + P T - B'^T P]]  (P^T = -P).
    """
    A, B, Cc, T, scratch, BtP = work[0], work[1], work[2], work[3], work[4], work[5]
    _rotate_block(R, I, 0, 0, scratch, A)
    _rotate_block(R, I, 0, 3, scratch, B)
    _rotate_block(R, I, 3, 3, scratch, Cc)
    _times_skew(A, p, T)
    for a in range(3):
        for b in range(3):
            T[a, b] = B[a, b] - T[a, b]
    for a in range(3):   # scratch = B'^T
        for b in range(3):
            scratch[a, b] = B[b, a]
    _times_skew(scratch, p, BtP)
    for a in range(3):
        for b in range(3):
            out[a, b] += A[a, b]
            out[a, 3 + b] += T[a, b]
            out[3 + b, a] += T[a, b]
    # P T: row a of skew(p) is (0, -p2, p1), (p2, 0, -p0), (-p1, p0, 0)
    for b in range(3):
        PT0 = p[1] * T[2, b] - p[2] * T[1, b]
        PT1 = p[2] * T[0, b] - p[0] * T[2, b]
        PT2 = p[0] * T[1, b] - p[1] * T[0, b]
        out[3, 3 + b] += Cc[0, b] + PT0 - BtP[0, b]
        out[4, 3 + b] += Cc[1, b] + PT1 - BtP[1, b]
        out[5, 3 + b] += Cc[2, b] + PT2 - BtP[2, b]


@_jit
def _matvec6(A, x, out):
    for a in range(6):
        acc = 0.0
        for b in range(6):
            acc += A[a, b] * x[b]
        out[a] = acc


@_jit
def _cross_motion(v, m, out):
    """v x m for motion vectors [lin; ang]: [w x u_m + u x w_m; w x w_m]."""
    u0, u1, u2, w0, w1, w2 = v[0], v[1], v[2], v[3], v[4], v[5]
    a0, a1, a2, b0, b1, b2 = m[0], m[1], m[2], m[3], m[4], m[5]
    out[0] = w1 * a2 - w2 * a1 + u1 * b2 - u2 * b1
    out[1] = w2 * a0 - w0 * a2 + u2 * b0 - u0 * b2
    out[2] = w0 * a1 - w1 * a0 + u0 * b1 - u1 * b0
    out[3] = w1 * b2 - w2 * b1
    out[4] = w2 * b0 - w0 * b2
    out[5] = w0 * b1 - w1 * b0


@_jit
def _cross_force(v, f, out):
    """v x* f for a force f = [F; T]: [w x F; w x T + u x F]."""
    u0, u1, u2, w0, w1, w2 = v[0], v[1], v[2], v[3], v[4], v[5]
    F0, F1, F2, T0, T1, T2 = f[0], f[1], f[2], f[3], f[4], f[5]
    out[0] = w1 * F2 - w2 * F1
    out[1] = w2 * F0 - w0 * F2
    out[2] = w0 * F1 - w1 * F0
    out[3] = w1 * T2 - w2 * T1 + u1 * F2 - u2 * F1
    out[4] = w2 * T0 - w0 * T2 + u2 * F0 - u0 * F2
    out[5] = w0 * T1 - w1 * T0 + u0 * F1 - u1 * F0


@_jit
def _solve_spd6(A, b, out):
    """out = A^-1 b for a symmetric positive definite 6x6 A (Cholesky)."""
    L = np.zeros((6, 6))
    for j in range(6):
        s = A[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        L[j, j] = np.sqrt(s)
        for i in range(j + 1, 6):
            s = A[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            L[i, j] = s / L[j, j]
    y = np.empty(6)
    for i in range(6):
        s = b[i]
        for k in range(i):
            s -= L[i, k] * y[k]
        y[i] = s / L[i, i]
    for i in range(5, -1, -1):
        s = y[i]
        for k in range(i + 1, 6):
            s -= L[k, i] * out[k]
        out[i] = s / L[i, i]


@_jit
def _dcm(q4, R):
    """P of the normalised quaternion [x, y, z, w] (as satdyn.spatial.dcm_from_quaternion)."""
    s = 1.0 / np.sqrt(q4[0] * q4[0] + q4[1] * q4[1] + q4[2] * q4[2] + q4[3] * q4[3])
    x, y, z, w = q4[0] * s, q4[1] * s, q4[2] * s, q4[3] * s
    R[0, 0], R[0, 1], R[0, 2] = x * x - y * y - z * z + w * w, 2 * (x * y - z * w), 2 * (x * z + y * w)
    R[1, 0], R[1, 1], R[1, 2] = 2 * (x * y + z * w), -x * x + y * y - z * z + w * w, 2 * (y * z - x * w)
    R[2, 0], R[2, 1], R[2, 2] = 2 * (x * z - y * w), 2 * (y * z + x * w), -x * x - y * y + z * z + w * w


# --- the tree sweeps --------------------------------------------------------------------------
# Packed constants (few arguments: numba's dispatch costs ~0.2 us per argument):
#   ints (nb, 5): kind, parent, q index, v index, motion index k (S = e_k);
#   geom (nb, 48): joint rotation P0 (9; revolute R = P0 Rz(theta)), joint position (3), prismatic
#       slide direction (3), unused (6), constant body-frame wrench (6), spring stiffness, damper, rest;
# Body frames are aligned (each moving body's frame turned so that its joint axis is z: S = e_5
# for a revolute joint, e_2 for a prismatic one) and welded bodies are merged into the body they
# hang on, as Pinocchio merges fixed joints: fewer bodies, and S^T I S reads one entry.
#   inertia (nb, 6, 6); root (13,): floating flag, fixed-root rotation (9), gravity (3);
#   ew (ne, 16): constant inertial-frame wrenches: body, skew(point) (9), force (3), torque (3).

_POS, _SLIDE, _S, _WRENCH, _K, _D, _REST = 27, 30, 33, 39, 45, 46, 47


@_jit
def _kinematics(q, v, ints, geom, root, ps, R_local, twists, biases):
    """Joint transforms, body twists and velocity-product accelerations c_i, root to leaves."""
    nb = ints.shape[0]
    R0 = np.empty((3, 3))
    if root[0] != 0.0:
        _dcm(q[3:7], R0)
        for a in range(6):
            twists[0, a] = v[a]
    else:
        for a in range(3):
            for b in range(3):
                R0[a, b] = root[1 + 3 * a + b]
        twists[0, :] = 0.0
    R_local[0] = R0
    biases[0, :] = 0.0
    p = np.empty(3)
    sq = np.empty(6)
    tw = np.empty(6)
    for i in range(1, nb):
        k = ints[i, 0]
        if k == 1:   # aligned frames: R = P0 Rz(theta)
            th = q[ints[i, 2]]
            s, c = np.sin(th), np.cos(th)
            for a in range(3):
                R_local[i, a, 0] = c * geom[i, 3 * a] + s * geom[i, 3 * a + 1]
                R_local[i, a, 1] = c * geom[i, 3 * a + 1] - s * geom[i, 3 * a]
                R_local[i, a, 2] = geom[i, 3 * a + 2]
        else:
            for a in range(3):
                for b in range(3):
                    R_local[i, a, b] = geom[i, 3 * a + b]
        t = q[ints[i, 2]] if k == 2 else 0.0
        for a in range(3):
            p[a] = geom[i, _POS + a] + t * geom[i, _SLIDE + a]
        ps[i] = p
        _motion_to_child(R_local[i], p, twists[ints[i, 1]], tw)
        if k != 0:
            qd = v[ints[i, 3]]
            for a in range(6):
                sq[a] = 0.0
            sq[ints[i, 4]] = qd
            tw[ints[i, 4]] += qd
            _cross_motion(tw, sq, biases[i])
        else:
            for a in range(6):
                biases[i, a] = 0.0
        for a in range(6):
            twists[i, a] = tw[a]
    return R0


@_jit
def _tree_kinematics(q, v, ints, geom, root):
    """(R0, joint positions, joint rotations, twists, velocity-product terms) of all bodies."""
    nb = ints.shape[0]
    ps = np.empty((nb, 3))
    R_local = np.empty((nb, 3, 3))
    twists = np.empty((nb, 6))
    biases = np.empty((nb, 6))
    R0 = _kinematics(q, v, ints, geom, root, ps, R_local, twists, biases)
    return R0, ps, R_local, twists, biases


@_jit
def _aba(q, v, tau_in, ints, geom, inertia, root, ew, qdd):
    """Articulated-body forward dynamics of one state; writes qdd, returns the root attitude."""
    nb = ints.shape[0]
    tau = tau_in.copy()
    for i in range(1, nb):
        if ints[i, 0] != 0 and (geom[i, _K] != 0.0 or geom[i, _D] != 0.0):
            tau[ints[i, 3]] -= geom[i, _D] * v[ints[i, 3]] + geom[i, _K] * (q[ints[i, 2]] - geom[i, _REST])
    R0, ps, R_local, twists, biases = _tree_kinematics(q, v, ints, geom, root)
    # Gravity as an upward acceleration of the inertial frame (arXiv:2505.03248 eq. 29).
    root_acc = np.zeros(6)
    for a in range(3):
        root_acc[a] = -(R0[0, a] * root[10] + R0[1, a] * root[11] + R0[2, a] * root[12])
    IA = inertia.copy()
    pA = np.empty((nb, 6))
    h = np.empty(6)
    for i in range(nb):
        _matvec6(inertia[i], twists[i], h)
        _cross_force(twists[i], h, pA[i])
        for a in range(6):
            pA[i, a] -= geom[i, _WRENCH + a]
    if ew.shape[0]:
        _inertial_wrenches(ints, R_local, ew, pA)
    U = np.zeros((nb, 6))
    d = np.ones(nb)
    u = np.zeros(nb)
    tmp = np.empty(6)
    work = np.empty((6, 3, 3))
    for i in range(nb - 1, 0, -1):
        Ia = IA[i]   # updated in place: not needed afterwards
        pa = pA[i]
        moving = ints[i, 0] != 0
        if moving:
            k = ints[i, 4]   # S = e_k in the aligned body frame
            for a in range(6):
                U[i, a] = Ia[a, k]
            di = Ia[k, k]
            d[i], u[i] = di, tau[ints[i, 3]] - pa[k]
            for a in range(6):
                for b in range(6):
                    Ia[a, b] -= U[i, a] * U[i, b] / di
        _matvec6(Ia, biases[i], tmp)
        for a in range(6):
            pa[a] += tmp[a]
            if moving:
                pa[a] += U[i, a] * u[i] / d[i]
        p = ints[i, 1]
        _inertia_to_parent_add(R_local[i], ps[i], Ia, IA[p], work)
        _force_to_parent_add(R_local[i], ps[i], pa, pA[p])
    acc6 = np.empty((nb, 6))
    if root[0] != 0.0:
        rhs = np.empty(6)
        _matvec6(IA[0], root_acc, tmp)
        for a in range(6):
            rhs[a] = tau[a] - pA[0, a] - tmp[a]
        a0 = np.empty(6)
        _solve_spd6(IA[0], rhs, a0)
        for a in range(6):
            qdd[a] = a0[a]
            acc6[0, a] = root_acc[a] + a0[a]
    else:
        acc6[0, :] = root_acc
    for i in range(1, nb):
        _motion_to_child(R_local[i], ps[i], acc6[ints[i, 1]], tmp)
        for a in range(6):
            tmp[a] += biases[i, a]
        if ints[i, 0] != 0:
            ua = 0.0
            for a in range(6):
                ua += U[i, a] * tmp[a]
            qddi = (u[i] - ua) / d[i]
            qdd[ints[i, 3]] = qddi
            tmp[ints[i, 4]] += qddi
        for a in range(6):
            acc6[i, a] = tmp[a]
    return R0


@_jit
def _inertial_wrenches(ints, R_local, ew, pA):
    """Subtract constant inertial-frame wrenches (rotated into the body frames) from the bias forces."""
    nb = ints.shape[0]
    R_world = np.empty((nb, 3, 3))
    R_world[0] = R_local[0]
    for i in range(1, nb):
        R_world[i] = R_world[ints[i, 1]] @ R_local[i]
    Fb = np.empty(3)
    Tb = np.empty(3)
    for e in range(ew.shape[0]):
        b = int(ew[e, 0])
        for a in range(3):
            Fb[a] = 0.0
            Tb[a] = 0.0
            for k in range(3):
                Fb[a] += R_world[b, k, a] * ew[e, 10 + k]
                Tb[a] += R_world[b, k, a] * ew[e, 13 + k]
        for a in range(3):
            for k in range(3):
                Tb[a] += ew[e, 1 + 3 * a + k] * Fb[k]
        for a in range(3):
            pA[b, a] -= Fb[a]
            pA[b, 3 + a] -= Tb[a]


@_jit
def _state_derivative(x, tau, nq, ints, geom, inertia, root, ew, out):
    q = x[:nq]
    v = x[nq:]
    R0 = _aba(q, v, tau, ints, geom, inertia, root, ew, out[nq:])
    if root[0] != 0.0:
        for a in range(3):
            out[a] = R0[a, 0] * v[0] + R0[a, 1] * v[1] + R0[a, 2] * v[2]
        qx, qy, qz, qw = q[3], q[4], q[5], q[6]
        wx, wy, wz = v[3], v[4], v[5]
        r = 1.0 - (qx * qx + qy * qy + qz * qz + qw * qw)  # norm-restoring term, as joints._quaternion_rate
        out[3] = 0.5 * (qw * wx + qy * wz - qz * wy) + r * qx
        out[4] = 0.5 * (qw * wy + qz * wx - qx * wz) + r * qy
        out[5] = 0.5 * (qw * wz + qx * wy - qy * wx) + r * qz
        out[6] = -0.5 * (qx * wx + qy * wy + qz * wz) + r * qw
        for k in range(7, nq):
            out[k] = v[k - 1]
    else:
        for k in range(nq):
            out[k] = v[k]


@_jit
def _batch_state_derivative(X, tau, nq, ints, geom, inertia, root, ew, out):
    for n in range(X.shape[0]):
        _state_derivative(X[n], tau[n], nq, ints, geom, inertia, root, ew, out[n])


@_jit
def _mass_matrix(q, nv, ints, geom, inertia, root, M):
    """Composite-rigid-body algorithm (body-frame root block, as Pinocchio's crba)."""
    nb = ints.shape[0]
    _, ps, R_local, twists, biases = _tree_kinematics(q, np.zeros(nv), ints, geom, root)
    Ic = inertia.copy()
    work = np.empty((6, 3, 3))
    for i in range(nb - 1, 0, -1):
        _inertia_to_parent_add(R_local[i], ps[i], Ic[i], Ic[ints[i, 1]], work)
    M[:, :] = 0.0
    F = np.empty(6)
    tmp = np.empty(6)
    for i in range(nb - 1, 0, -1):
        if ints[i, 0] == 0:
            continue
        vi = ints[i, 3]
        for a in range(6):
            F[a] = Ic[i, a, ints[i, 4]]
        M[vi, vi] = F[ints[i, 4]]
        j = i
        while ints[j, 1] > 0:
            tmp[:] = 0.0
            _force_to_parent_add(R_local[j], ps[j], F, tmp)
            F[:] = tmp
            j = ints[j, 1]
            if ints[j, 0] != 0:
                acc = F[ints[j, 4]]
                M[ints[j, 3], vi] = acc
                M[vi, ints[j, 3]] = acc
        if root[0] != 0.0:
            tmp[:] = 0.0
            _force_to_parent_add(R_local[j], ps[j], F, tmp)
            for a in range(6):
                M[a, vi] = tmp[a]
                M[vi, a] = tmp[a]
    if root[0] != 0.0:
        M[:6, :6] = Ic[0]


@_jit
def _bias(q, v, ints, geom, inertia, root, out):
    """RNEA at zero acceleration, no springs, no loads: C(q, v) v + g(q)."""
    nb = ints.shape[0]
    R0, ps, R_local, twists, biases = _tree_kinematics(q, v, ints, geom, root)
    acc = np.zeros((nb, 6))
    for a in range(3):
        acc[0, a] = -(R0[0, a] * root[10] + R0[1, a] * root[11] + R0[2, a] * root[12])
    f = np.empty((nb, 6))
    h = np.empty(6)
    tmp = np.empty(6)
    for i in range(nb):
        if i > 0:
            _motion_to_child(R_local[i], ps[i], acc[ints[i, 1]], tmp)
            for a in range(6):
                acc[i, a] = tmp[a] + biases[i, a]
        _matvec6(inertia[i], acc[i], f[i])
        _matvec6(inertia[i], twists[i], h)
        _cross_force(twists[i], h, tmp)
        for a in range(6):
            f[i, a] += tmp[a]
    for i in range(nb - 1, 0, -1):
        if ints[i, 0] != 0:
            out[ints[i, 3]] = f[i, ints[i, 4]]
        _force_to_parent_add(R_local[i], ps[i], f[i], f[ints[i, 1]])
    if root[0] != 0.0:
        for a in range(6):
            out[a] = f[0, a]
