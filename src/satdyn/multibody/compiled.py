"""Compiled single-state dynamics (numba): forward dynamics, mass matrix and bias of one state.

A simulation evaluates the dynamics of one state thousands of times; in numpy the cost is
the interpreter's per-call overhead, not arithmetic (the lean numpy sweep of
:mod:`~satdyn.multibody.lean_rhs` spends ~0.5 ms per right-hand side on an 8-joint tree). These
kernels run the same algorithms compiled to machine code:

* ``state_derivative``: ``dx/dt`` of ``x = [q, v]`` by the articulated-body sweep
  (arXiv:2505.03248 §3.6 option b, as :func:`~satdyn.multibody.forward_dynamics`), run in the
  world frame (quantities at a world-fixed point: no frame transform between bodies), joint
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

from .compiled_trig import _sin_cos   # the joint angles' sine and cosine
from .kernel_cache import cached_njit

__all__ = ["HAVE_NUMBA"]  # the kernels; the model-bound interface is in .compiled_model

HAVE_NUMBA = numba is not None
_KIND = {"weld": 0, "revolute": 1, "prismatic": 2}


_jit = cached_njit(fastmath=False, nogil=True)


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
def _solve_spd6(A, b, L, out):
    """out = A^-1 b for a symmetric positive definite 6x6 A (Cholesky; L: 6x6 scratch)."""
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
    for i in range(6):   # forward substitution into out, then backward in place
        s = b[i]
        for k in range(i):
            s -= L[i, k] * out[k]
        out[i] = s / L[i, i]
    for i in range(5, -1, -1):
        s = out[i]
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
def _joint_placement(q, ints, geom, i, R, p):
    """Child frame of body i in its parent's frame: R (3x3) and origin p (3,) at the joint coordinate."""
    k = ints[i, 0]
    if k == 1:   # aligned frames: R = P0 Rz(theta)
        s, c = _sin_cos(q[ints[i, 2]])
        for a in range(3):
            R[a, 0] = c * geom[i, 3 * a] + s * geom[i, 3 * a + 1]
            R[a, 1] = c * geom[i, 3 * a + 1] - s * geom[i, 3 * a]
            R[a, 2] = geom[i, 3 * a + 2]
    else:
        for a in range(3):
            for b in range(3):
                R[a, b] = geom[i, 3 * a + b]
    t = q[ints[i, 2]] if k == 2 else 0.0
    for a in range(3):
        p[a] = geom[i, _POS + a] + t * geom[i, _SLIDE + a]


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
        _joint_placement(q, ints, geom, i, R_local[i], p)
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
def _workspace_size(nb):
    """Floats of the scratch buffer of :func:`_aba` for a tree of nb (reduced) bodies."""
    return nb * (9 + 3 + 6 * 6 + 36 + 1 + 1) + 9 + 3 + 9 + 36 + 6 + 6 + 6


@_jit
def _aba(q, v, tau, ints, geom, inertia, root, ew, qdd):
    """Articulated-body forward dynamics of one state in the world frame; writes qdd, returns R0.

    Every spatial quantity is expressed at a world-fixed point O (the root origin at this
    instant; gravity is uniform, so the choice is free) in world axes, as in Pinocchio's
    world-frame ABA: the articulated inertias and bias forces of the children then add to their
    parent's without any frame transform; each body's rigid inertia and joint axis are turned
    into the world frame once instead. One scratch allocation per call (views carved from it).
    """
    nb = ints.shape[0]
    ws = np.empty(_workspace_size(nb))
    Rw = ws[:9 * nb].reshape((nb, 3, 3))
    pw = ws[9 * nb:12 * nb].reshape((nb, 3))
    six = ws[12 * nb:48 * nb].reshape((6, nb, 6))   # per-body 6-vectors
    S, vel, c, pA, U, acc = six[0], six[1], six[2], six[3], six[4], six[5]
    IA = ws[48 * nb:84 * nb].reshape((nb, 6, 6))
    dinv = ws[84 * nb:85 * nb]
    u = ws[85 * nb:86 * nb]
    o = 86 * nb
    Rl = ws[o:o + 9].reshape((3, 3))
    o += 9
    pl = ws[o:o + 3]
    o += 3
    T = ws[o:o + 9].reshape((3, 3))
    o += 9
    L = ws[o:o + 36].reshape((6, 6))
    o += 36
    sq = ws[o:o + 6]
    tmp = ws[o + 6:o + 12]
    a0 = ws[o + 12:o + 18]
    floating = root[0] != 0.0
    R0 = Rw[0]
    for a in range(3):
        pw[0, a] = 0.0
    for a in range(6):
        vel[0, a] = 0.0
        S[0, a] = 0.0
        c[0, a] = 0.0
    if floating:
        _dcm(q[3:7], R0)
        for a in range(3):
            vel[0, a] = R0[a, 0] * v[0] + R0[a, 1] * v[1] + R0[a, 2] * v[2]
            vel[0, 3 + a] = R0[a, 0] * v[3] + R0[a, 1] * v[4] + R0[a, 2] * v[5]
    else:
        for a in range(3):
            for b in range(3):
                R0[a, b] = root[1 + 3 * a + b]
    for i in range(1, nb):
        k = ints[i, 0]
        par = ints[i, 1]
        _joint_placement(q, ints, geom, i, Rl, pl)
        for a in range(3):
            pw[i, a] = pw[par, a] + Rw[par, a, 0] * pl[0] + Rw[par, a, 1] * pl[1] + Rw[par, a, 2] * pl[2]
            for b in range(3):
                Rw[i, a, b] = Rw[par, a, 0] * Rl[0, b] + Rw[par, a, 1] * Rl[1, b] + Rw[par, a, 2] * Rl[2, b]
        kx, ky, kz = Rw[i, 0, 2], Rw[i, 1, 2], Rw[i, 2, 2]   # joint axis (z of the aligned frame)
        if k == 1:   # rotation about the axis through p: S = [p x k; k]
            px, py, pz = pw[i, 0], pw[i, 1], pw[i, 2]
            S[i, 0], S[i, 1], S[i, 2] = py * kz - pz * ky, pz * kx - px * kz, px * ky - py * kx
            S[i, 3], S[i, 4], S[i, 5] = kx, ky, kz
        else:
            S[i, 0], S[i, 1], S[i, 2] = kx, ky, kz
            S[i, 3], S[i, 4], S[i, 5] = 0.0, 0.0, 0.0
        qd = v[ints[i, 3]]
        for a in range(6):
            sq[a] = S[i, a] * qd
            vel[i, a] = vel[par, a] + sq[a]
        _cross_motion(vel[i], sq, c[i])
    # Rigid inertias in the world frame at O, bias forces v x* I v, constant loads.
    for i in range(nb):
        _world_inertia(Rw[i], pw[i], inertia[i], T, IA[i])
        _rigid_momentum(IA[i], vel[i], tmp)
        _cross_force(vel[i], tmp, pA[i])
        fb0, fb1, fb2 = geom[i, _WRENCH], geom[i, _WRENCH + 1], geom[i, _WRENCH + 2]
        tb0, tb1, tb2 = geom[i, _WRENCH + 3], geom[i, _WRENCH + 4], geom[i, _WRENCH + 5]
        if fb0 != 0.0 or fb1 != 0.0 or fb2 != 0.0 or tb0 != 0.0 or tb1 != 0.0 or tb2 != 0.0:
            Rb = Rw[i]
            F0 = Rb[0, 0] * fb0 + Rb[0, 1] * fb1 + Rb[0, 2] * fb2
            F1 = Rb[1, 0] * fb0 + Rb[1, 1] * fb1 + Rb[1, 2] * fb2
            F2 = Rb[2, 0] * fb0 + Rb[2, 1] * fb1 + Rb[2, 2] * fb2
            pA[i, 0] -= F0
            pA[i, 1] -= F1
            pA[i, 2] -= F2
            pA[i, 3] -= Rb[0, 0] * tb0 + Rb[0, 1] * tb1 + Rb[0, 2] * tb2 + pw[i, 1] * F2 - pw[i, 2] * F1
            pA[i, 4] -= Rb[1, 0] * tb0 + Rb[1, 1] * tb1 + Rb[1, 2] * tb2 + pw[i, 2] * F0 - pw[i, 0] * F2
            pA[i, 5] -= Rb[2, 0] * tb0 + Rb[2, 1] * tb1 + Rb[2, 2] * tb2 + pw[i, 0] * F1 - pw[i, 1] * F0
    for e in range(ew.shape[0]):
        b = int(ew[e, 0])
        # point in the body frame from its skew matrix; world point = R point + p
        pb0, pb1, pb2 = ew[e, 8], ew[e, 3], ew[e, 4]
        x0 = pw[b, 0] + Rw[b, 0, 0] * pb0 + Rw[b, 0, 1] * pb1 + Rw[b, 0, 2] * pb2
        x1 = pw[b, 1] + Rw[b, 1, 0] * pb0 + Rw[b, 1, 1] * pb1 + Rw[b, 1, 2] * pb2
        x2 = pw[b, 2] + Rw[b, 2, 0] * pb0 + Rw[b, 2, 1] * pb1 + Rw[b, 2, 2] * pb2
        F0, F1, F2 = ew[e, 10], ew[e, 11], ew[e, 12]
        pA[b, 0] -= F0
        pA[b, 1] -= F1
        pA[b, 2] -= F2
        pA[b, 3] -= ew[e, 13] + x1 * F2 - x2 * F1
        pA[b, 4] -= ew[e, 14] + x2 * F0 - x0 * F2
        pA[b, 5] -= ew[e, 15] + x0 * F1 - x1 * F0
    for i in range(nb - 1, 0, -1):
        Ia = IA[i]
        pa = pA[i]
        Si = S[i]
        Ui = U[i]
        _matvec6(Ia, Si, Ui)
        di = 0.0
        sp = 0.0
        for a in range(6):
            di += Si[a] * Ui[a]
            sp += Si[a] * pa[a]
        iv = ints[i, 3]
        ui = tau[iv] - sp
        if geom[i, _K] != 0.0 or geom[i, _D] != 0.0:   # joint spring and damper
            ui -= geom[i, _D] * v[iv] + geom[i, _K] * (q[ints[i, 2]] - geom[i, _REST])
        inv = 1.0 / di
        dinv[i], u[i] = inv, ui
        for a in range(6):
            Ua = Ui[a] * inv
            for b in range(a, 6):
                Ia[a, b] -= Ua * Ui[b]
            for b in range(a):
                Ia[a, b] = Ia[b, a]
        _matvec6(Ia, c[i], tmp)
        par = ints[i, 1]
        Ip = IA[par]
        w = ui * inv
        for a in range(6):
            pA[par, a] += pa[a] + tmp[a] + Ui[a] * w
            for b in range(6):
                Ip[a, b] += Ia[a, b]
    for a in range(6):
        acc[0, a] = 0.0
    for a in range(3):   # gravity as an upward acceleration of the inertial frame
        acc[0, a] = -root[10 + a]
    if floating:
        _matvec6(IA[0], acc[0], tmp)
        for a in range(3):   # root wrench: body frame at the root origin (= O) -> world axes
            sq[a] = R0[a, 0] * tau[0] + R0[a, 1] * tau[1] + R0[a, 2] * tau[2] - pA[0, a] - tmp[a]
            sq[3 + a] = R0[a, 0] * tau[3] + R0[a, 1] * tau[4] + R0[a, 2] * tau[5] - pA[0, 3 + a] - tmp[3 + a]
        _solve_spd6(IA[0], sq, L, a0)
        for a in range(3):   # body-frame spatial acceleration = X0 a0 (O is the root origin)
            qdd[a] = R0[0, a] * a0[0] + R0[1, a] * a0[1] + R0[2, a] * a0[2]
            qdd[3 + a] = R0[0, a] * a0[3] + R0[1, a] * a0[4] + R0[2, a] * a0[5]
        for a in range(6):
            acc[0, a] += a0[a]
    for i in range(1, nb):
        par = ints[i, 1]
        ua = 0.0
        for a in range(6):
            tmp[a] = acc[par, a] + c[i, a]
            ua += U[i, a] * tmp[a]
        qddi = (u[i] - ua) * dinv[i]
        qdd[ints[i, 3]] = qddi
        for a in range(6):
            acc[i, a] = tmp[a] + S[i, a] * qddi
    return R0.copy()


@_jit
def _rigid_momentum(I, m, out):
    """out = I m for a rigid spatial inertia I = [[M 1, -[g]x], [[g]x, J]] (as built by _world_inertia)."""
    mass = I[0, 0]
    g0, g1, g2 = I[5, 1], I[3, 2], I[4, 0]
    u0, u1, u2, w0, w1, w2 = m[0], m[1], m[2], m[3], m[4], m[5]
    out[0] = mass * u0 - (g1 * w2 - g2 * w1)
    out[1] = mass * u1 - (g2 * w0 - g0 * w2)
    out[2] = mass * u2 - (g0 * w1 - g1 * w0)
    for a in range(3):
        out[3 + a] = I[3 + a, 3] * w0 + I[3 + a, 4] * w1 + I[3 + a, 5] * w2
    out[3] += g1 * u2 - g2 * u1
    out[4] += g2 * u0 - g0 * u2
    out[5] += g0 * u1 - g1 * u0


@_jit
def _world_inertia(R, p, D, T, out):
    """out = the rigid spatial inertia D (body origin, body axes) at the world point O, world axes.

    With m, first moment h = m c and J about the body origin read from D:
    h_O = R h + m p,  J_O = R J R^T - m [p]x^2 - [p]x [R h]x - [R h]x [p]x.  T: 3x3 scratch.
    """
    m = D[0, 0]
    hb0, hb1, hb2 = D[5, 1], D[3, 2], D[4, 0]   # D[3:, :3] = [h]x
    h0 = R[0, 0] * hb0 + R[0, 1] * hb1 + R[0, 2] * hb2
    h1 = R[1, 0] * hb0 + R[1, 1] * hb1 + R[1, 2] * hb2
    h2 = R[2, 0] * hb0 + R[2, 1] * hb1 + R[2, 2] * hb2
    for a in range(3):
        for b in range(3):
            T[a, b] = D[3 + a, 3] * R[b, 0] + D[3 + a, 4] * R[b, 1] + D[3 + a, 5] * R[b, 2]
    px, py, pz = p[0], p[1], p[2]
    # -m [p]x^2 = m (|p|^2 1 - p p^T);  -([p]x [h]x + [h]x [p]x) = 2 (p.h) 1 - p h^T - h p^T
    diagonal = m * (px * px + py * py + pz * pz) + 2.0 * (px * h0 + py * h1 + pz * h2)
    P = (px, py, pz)
    H = (h0, h1, h2)
    for a in range(3):
        for b in range(a, 3):
            value = R[a, 0] * T[0, b] + R[a, 1] * T[1, b] + R[a, 2] * T[2, b] \
                - m * P[a] * P[b] - P[a] * H[b] - H[a] * P[b]
            if a == b:
                value += diagonal
            out[3 + a, 3 + b] = value
            out[3 + b, 3 + a] = value
    g0, g1, g2 = h0 + m * px, h1 + m * py, h2 + m * pz   # first moment about O
    # [[m 1, -[g]x], [[g]x, J_O]]
    out[0, 0], out[0, 1], out[0, 2], out[0, 3], out[0, 4], out[0, 5] = m, 0.0, 0.0, 0.0, g2, -g1
    out[1, 0], out[1, 1], out[1, 2], out[1, 3], out[1, 4], out[1, 5] = 0.0, m, 0.0, -g2, 0.0, g0
    out[2, 0], out[2, 1], out[2, 2], out[2, 3], out[2, 4], out[2, 5] = 0.0, 0.0, m, g1, -g0, 0.0
    out[3, 0], out[3, 1], out[3, 2] = 0.0, -g2, g1
    out[4, 0], out[4, 1], out[4, 2] = g2, 0.0, -g0
    out[5, 0], out[5, 1], out[5, 2] = -g1, g0, 0.0


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
