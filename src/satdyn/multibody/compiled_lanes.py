"""Compiled forward dynamics of LANES states at once, batch-last (numba, SIMD over the states).

:mod:`~satdyn.multibody.compiled` evaluates one state per call; its arithmetic is a chain of
short dependent products that leaves the vector units idle. Here every per-body quantity
carries a trailing lane axis of width :data:`LANES` ("structure of arrays": row r of a
quantity is ``A[r, :]``, the LANES states side by side in memory) and every arithmetic loop
runs innermost over the lanes, so LLVM turns it into vector instructions (AVX2 / AVX-512):
one instruction advances up to 8 states. The algorithm, the operation order and the scope are
those of ``compiled._aba`` / ``compiled._state_derivative`` (world-frame articulated-body
sweep; revolute, prismatic and merged weld joints; fixed or quaternion root; joint springs and
dampers; constant external wrenches; gravity), so each lane equals the single-state kernel to
rounding (no fast-math: no reassociation, the same results on every CPU).

Why the lane width is a compile-time constant of 32: LLVM fully unrolls a loop of a small
constant trip count (8 or 16) and then leaves it scalar; a loop of 32 is vectorised with no
run-time remainder. Measured on a 30-joint tree (AVX-512): 2.3 us per state with 16 lanes,
1.27 with 32, 1.27 with 64 (against 6.9 for the single-state kernel); 32 keeps batches of a few
dozen states busy. Why ``noalias``: numba cannot tell LLVM that two arrays never overlap, and
without that guarantee LLVM either gives up or guards every lane loop with overlap tests. The
kernels below are compiled with numba's ``noalias`` flag (a custom pipeline class), which is
valid because their callers pass arrays that do not overlap (distinct allocations; reads and
writes of one array touch different rows); the workspace is one tuple of separate arrays
(:func:`lane_workspace`), allocated once per integration.
"""

from __future__ import annotations

import numpy as np

from .compiled import _D, _K, _POS, _REST, _SLIDE, _WRENCH, HAVE_NUMBA, _jit
from .compiled_trig import _SINCOS_MAX, _sin_cos, _sin_cos_reduced
from .kernel_cache import cached_njit

__all__ = ["LANES", "lane_workspace", "lanes_state_derivative"]

LANES = 32
_L = np.uint64(LANES)   # unsigned lane index: no negative-index wraparound in the vector loops
# Articulated inertias are symmetric: only the upper triangle is stored, 21 rows packed row by
# row; _SYM[6 a + b] is the row of entry (a, b). The single-state kernel mirrors its upper
# triangle after each update, so its lower entries are the same numbers: same results.
_SYM = tuple(min(a, b) * 6 - min(a, b) * (min(a, b) - 1) // 2 + abs(b - a) for a in range(6) for b in range(6))


if HAVE_NUMBA:
    from numba.core.compiler import Compiler

    class _NoAliasCompiler(Compiler):
        """numba's default pipeline with the ``noalias`` flag: array arguments never overlap."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.state.flags.noalias = True

    _lanes_jit = cached_njit(fastmath=False, nogil=True, boundscheck=False, error_model="numpy",
                             pipeline_class=_NoAliasCompiler)
else:
    def _lanes_jit(function):
        return function


@_jit
def lane_workspace(nb):
    """Scratch arrays of :func:`lanes_state_derivative` for a tree of nb reduced bodies (separate
    allocations: the kernel is compiled with ``noalias``)."""
    return (np.zeros((9 * nb, LANES)), np.zeros((3 * nb, LANES)), np.zeros((6 * nb, LANES)),
            np.zeros((6 * nb, LANES)), np.zeros((6 * nb, LANES)), np.zeros((6 * nb, LANES)),
            np.zeros((6 * nb, LANES)), np.zeros((6 * nb, LANES)), np.zeros((21 * nb, LANES)), np.zeros((nb, LANES)),
            np.zeros((nb, LANES)), np.zeros((9, LANES)), np.zeros((3, LANES)), np.zeros((6, LANES)),
            np.zeros((6, LANES)), np.zeros((6, LANES)), np.zeros((36, LANES)), np.zeros((6, LANES)),
            np.zeros((2, LANES)))


@_lanes_jit
def _lanes_aba(X, nq, TAU, ints, geom, inertia, root, ew, OUT, ws):
    """Articulated-body forward dynamics of LANES states (as ``compiled._aba``, lane by lane).

    X (nq + nv, LANES) = [q; v], TAU (nv, LANES) -> OUT[nq:] (nv, LANES); leaves the root rotation
    R0 in ws[0][:9]. ws: :func:`lane_workspace`. (Whole arrays and row offsets rather than views:
    the arguments of a ``noalias`` function must be distinct arrays.)
    """
    Rw, pw, S, vel, c, pA, U, acc, IA, dinv, u, Rl, pl, sq, tmp, a0, L, rhs, sc = ws
    nb = ints.shape[0]
    floating = root[0] != 0.0
    for a in range(3):
        for l in range(_L):
            pw[a, l] = 0.0
    for a in range(6):
        for l in range(_L):
            vel[a, l] = 0.0
            S[a, l] = 0.0
            c[a, l] = 0.0
    if floating:
        for l in range(_L):   # _dcm of the normalised quaternion (x, y, z, w)
            x, y, z, w = X[3, l], X[4, l], X[5, l], X[6, l]
            s = 1.0 / np.sqrt(x * x + y * y + z * z + w * w)
            x, y, z, w = x * s, y * s, z * s, w * s
            Rw[0, l] = x * x - y * y - z * z + w * w
            Rw[1, l] = 2 * (x * y - z * w)
            Rw[2, l] = 2 * (x * z + y * w)
            Rw[3, l] = 2 * (x * y + z * w)
            Rw[4, l] = -x * x + y * y - z * z + w * w
            Rw[5, l] = 2 * (y * z - x * w)
            Rw[6, l] = 2 * (x * z - y * w)
            Rw[7, l] = 2 * (y * z + x * w)
            Rw[8, l] = -x * x - y * y + z * z + w * w
        for a in range(3):
            for l in range(_L):
                vel[a, l] = Rw[3 * a, l] * X[nq, l] + Rw[3 * a + 1, l] * X[nq + 1, l] \
                    + Rw[3 * a + 2, l] * X[nq + 2, l]
                vel[3 + a, l] = Rw[3 * a, l] * X[nq + 3, l] + Rw[3 * a + 1, l] * X[nq + 4, l] \
                    + Rw[3 * a + 2, l] * X[nq + 5, l]
    else:
        for r in range(9):
            value = root[1 + r]
            for l in range(_L):
                Rw[r, l] = value
    for i in range(1, nb):
        k = ints[i, 0]
        par = ints[i, 1]
        iq = ints[i, 2]
        # joint placement (compiled._joint_placement): Rl (3x3 rows), pl (3 rows)
        if k == 1:
            large = False
            for l in range(_L):
                large |= abs(X[iq, l]) > _SINCOS_MAX
            if large:   # a lane beyond the polynomial's range (libm there): lane by lane
                for l in range(_L):
                    sc[0, l], sc[1, l] = _sin_cos(X[iq, l])
            else:   # the vectorised polynomial (the value _sin_cos returns)
                for l in range(_L):
                    sc[0, l], sc[1, l] = _sin_cos_reduced(X[iq, l])
            for a in range(3):
                g0, g1, g2 = geom[i, 3 * a], geom[i, 3 * a + 1], geom[i, 3 * a + 2]
                for l in range(_L):
                    Rl[3 * a, l] = sc[1, l] * g0 + sc[0, l] * g1
                    Rl[3 * a + 1, l] = sc[1, l] * g1 - sc[0, l] * g0
                    Rl[3 * a + 2, l] = g2
        else:
            for r in range(9):
                value = geom[i, r]
                for l in range(_L):
                    Rl[r, l] = value
        for a in range(3):
            p0, d0 = geom[i, _POS + a], geom[i, _SLIDE + a]
            if k == 2:
                for l in range(_L):
                    pl[a, l] = p0 + X[iq, l] * d0
            else:
                for l in range(_L):
                    pl[a, l] = p0 + 0.0 * d0
        # world placement: pw_i = pw_par + R_par pl, R_i = R_par Rl
        ip, ic = 3 * par, 3 * i
        rp, ri = 9 * par, 9 * i
        for a in range(3):
            for l in range(_L):
                pw[ic + a, l] = pw[ip + a, l] + Rw[rp + 3 * a, l] * pl[0, l] + Rw[rp + 3 * a + 1, l] * pl[1, l] \
                    + Rw[rp + 3 * a + 2, l] * pl[2, l]
            for b in range(3):
                for l in range(_L):
                    Rw[ri + 3 * a + b, l] = Rw[rp + 3 * a, l] * Rl[b, l] + Rw[rp + 3 * a + 1, l] * Rl[3 + b, l] \
                        + Rw[rp + 3 * a + 2, l] * Rl[6 + b, l]
        # motion subspace S (joint axis = z of the aligned frame), twist, velocity-product term
        si, sp_ = 6 * i, 6 * par
        iv = ints[i, 3]
        if k == 1:   # rotation about the axis through p: S = [p x k; k]
            for l in range(_L):
                kx, ky, kz = Rw[ri + 2, l], Rw[ri + 5, l], Rw[ri + 8, l]
                px, py, pz = pw[ic, l], pw[ic + 1, l], pw[ic + 2, l]
                S[si, l] = py * kz - pz * ky
                S[si + 1, l] = pz * kx - px * kz
                S[si + 2, l] = px * ky - py * kx
                S[si + 3, l] = kx
                S[si + 4, l] = ky
                S[si + 5, l] = kz
        else:
            for l in range(_L):
                S[si, l] = Rw[ri + 2, l]
                S[si + 1, l] = Rw[ri + 5, l]
                S[si + 2, l] = Rw[ri + 8, l]
                S[si + 3, l] = 0.0
                S[si + 4, l] = 0.0
                S[si + 5, l] = 0.0
        for l in range(_L):
            qd = X[nq + iv, l]
            a0_, a1_, a2_, b0_, b1_, b2_ = S[si, l] * qd, S[si + 1, l] * qd, S[si + 2, l] * qd, \
                S[si + 3, l] * qd, S[si + 4, l] * qd, S[si + 5, l] * qd
            u0 = vel[sp_, l] + a0_
            u1 = vel[sp_ + 1, l] + a1_
            u2 = vel[sp_ + 2, l] + a2_
            w0 = vel[sp_ + 3, l] + b0_
            w1 = vel[sp_ + 4, l] + b1_
            w2 = vel[sp_ + 5, l] + b2_
            vel[si, l], vel[si + 1, l], vel[si + 2, l] = u0, u1, u2
            vel[si + 3, l], vel[si + 4, l], vel[si + 5, l] = w0, w1, w2
            # compiled._cross_motion(vel_i, S qd)
            c[si, l] = w1 * a2_ - w2 * a1_ + u1 * b2_ - u2 * b1_
            c[si + 1, l] = w2 * a0_ - w0 * a2_ + u2 * b0_ - u0 * b2_
            c[si + 2, l] = w0 * a1_ - w1 * a0_ + u0 * b1_ - u1 * b0_
            c[si + 3, l] = w1 * b2_ - w2 * b1_
            c[si + 4, l] = w2 * b0_ - w0 * b2_
            c[si + 5, l] = w0 * b1_ - w1 * b0_
    # Rigid inertias at O in world axes (compiled._world_inertia), bias forces v x* I v, loads.
    for i in range(nb):
        D = inertia[i]
        m = D[0, 0]
        hb0, hb1, hb2 = D[5, 1], D[3, 2], D[4, 0]
        ri, ic, oi, si = 9 * i, 3 * i, 21 * i, 6 * i
        for l in range(_L):
            R00, R01, R02 = Rw[ri, l], Rw[ri + 1, l], Rw[ri + 2, l]
            R10, R11, R12 = Rw[ri + 3, l], Rw[ri + 4, l], Rw[ri + 5, l]
            R20, R21, R22 = Rw[ri + 6, l], Rw[ri + 7, l], Rw[ri + 8, l]
            h0 = R00 * hb0 + R01 * hb1 + R02 * hb2
            h1 = R10 * hb0 + R11 * hb1 + R12 * hb2
            h2 = R20 * hb0 + R21 * hb1 + R22 * hb2
            # T = J R^T (rows of J: D[3 + a, 3:])
            T00 = D[3, 3] * R00 + D[3, 4] * R01 + D[3, 5] * R02
            T01 = D[3, 3] * R10 + D[3, 4] * R11 + D[3, 5] * R12
            T02 = D[3, 3] * R20 + D[3, 4] * R21 + D[3, 5] * R22
            T10 = D[4, 3] * R00 + D[4, 4] * R01 + D[4, 5] * R02
            T11 = D[4, 3] * R10 + D[4, 4] * R11 + D[4, 5] * R12
            T12 = D[4, 3] * R20 + D[4, 4] * R21 + D[4, 5] * R22
            T20 = D[5, 3] * R00 + D[5, 4] * R01 + D[5, 5] * R02
            T21 = D[5, 3] * R10 + D[5, 4] * R11 + D[5, 5] * R12
            T22 = D[5, 3] * R20 + D[5, 4] * R21 + D[5, 5] * R22
            px, py, pz = pw[ic, l], pw[ic + 1, l], pw[ic + 2, l]
            diagonal = m * (px * px + py * py + pz * pz) + 2.0 * (px * h0 + py * h1 + pz * h2)
            J00 = R00 * T00 + R01 * T10 + R02 * T20 - m * px * px - px * h0 - h0 * px + diagonal
            J01 = R00 * T01 + R01 * T11 + R02 * T21 - m * px * py - px * h1 - h0 * py
            J02 = R00 * T02 + R01 * T12 + R02 * T22 - m * px * pz - px * h2 - h0 * pz
            J11 = R10 * T01 + R11 * T11 + R12 * T21 - m * py * py - py * h1 - h1 * py + diagonal
            J12 = R10 * T02 + R11 * T12 + R12 * T22 - m * py * pz - py * h2 - h1 * pz
            J22 = R20 * T02 + R21 * T12 + R22 * T22 - m * pz * pz - pz * h2 - h2 * pz + diagonal
            g0, g1, g2 = h0 + m * px, h1 + m * py, h2 + m * pz
            # [[m 1, -[g]x], [[g]x, J]] row by row
            # upper triangle, packed row by row (_SYM)
            IA[oi, l], IA[oi + 1, l], IA[oi + 2, l], IA[oi + 3, l], IA[oi + 4, l], IA[oi + 5, l] = \
                m, 0.0, 0.0, 0.0, g2, -g1
            IA[oi + 6, l], IA[oi + 7, l], IA[oi + 8, l], IA[oi + 9, l], IA[oi + 10, l] = m, 0.0, -g2, 0.0, g0
            IA[oi + 11, l], IA[oi + 12, l], IA[oi + 13, l], IA[oi + 14, l] = m, g1, -g0, 0.0
            IA[oi + 15, l], IA[oi + 16, l], IA[oi + 17, l] = J00, J01, J02
            IA[oi + 18, l], IA[oi + 19, l] = J11, J12
            IA[oi + 20, l] = J22
            # momentum I v (compiled._rigid_momentum), then v x* (I v) (compiled._cross_force)
            u0, u1, u2 = vel[si, l], vel[si + 1, l], vel[si + 2, l]
            w0, w1, w2 = vel[si + 3, l], vel[si + 4, l], vel[si + 5, l]
            F0 = m * u0 - (g1 * w2 - g2 * w1)
            F1 = m * u1 - (g2 * w0 - g0 * w2)
            F2 = m * u2 - (g0 * w1 - g1 * w0)
            T0 = J00 * w0 + J01 * w1 + J02 * w2 + (g1 * u2 - g2 * u1)
            T1 = J01 * w0 + J11 * w1 + J12 * w2 + (g2 * u0 - g0 * u2)
            T2 = J02 * w0 + J12 * w1 + J22 * w2 + (g0 * u1 - g1 * u0)
            pA[si, l] = w1 * F2 - w2 * F1
            pA[si + 1, l] = w2 * F0 - w0 * F2
            pA[si + 2, l] = w0 * F1 - w1 * F0
            pA[si + 3, l] = w1 * T2 - w2 * T1 + u1 * F2 - u2 * F1
            pA[si + 4, l] = w2 * T0 - w0 * T2 + u2 * F0 - u0 * F2
            pA[si + 5, l] = w0 * T1 - w1 * T0 + u0 * F1 - u1 * F0
        fb0, fb1, fb2 = geom[i, _WRENCH], geom[i, _WRENCH + 1], geom[i, _WRENCH + 2]
        tb0, tb1, tb2 = geom[i, _WRENCH + 3], geom[i, _WRENCH + 4], geom[i, _WRENCH + 5]
        if fb0 != 0.0 or fb1 != 0.0 or fb2 != 0.0 or tb0 != 0.0 or tb1 != 0.0 or tb2 != 0.0:
            for l in range(_L):   # body-frame constant wrench, to the world frame at O
                F0 = Rw[ri, l] * fb0 + Rw[ri + 1, l] * fb1 + Rw[ri + 2, l] * fb2
                F1 = Rw[ri + 3, l] * fb0 + Rw[ri + 4, l] * fb1 + Rw[ri + 5, l] * fb2
                F2 = Rw[ri + 6, l] * fb0 + Rw[ri + 7, l] * fb1 + Rw[ri + 8, l] * fb2
                pA[si, l] -= F0
                pA[si + 1, l] -= F1
                pA[si + 2, l] -= F2
                pA[si + 3, l] -= Rw[ri, l] * tb0 + Rw[ri + 1, l] * tb1 + Rw[ri + 2, l] * tb2 \
                    + pw[ic + 1, l] * F2 - pw[ic + 2, l] * F1
                pA[si + 4, l] -= Rw[ri + 3, l] * tb0 + Rw[ri + 4, l] * tb1 + Rw[ri + 5, l] * tb2 \
                    + pw[ic + 2, l] * F0 - pw[ic, l] * F2
                pA[si + 5, l] -= Rw[ri + 6, l] * tb0 + Rw[ri + 7, l] * tb1 + Rw[ri + 8, l] * tb2 \
                    + pw[ic, l] * F1 - pw[ic + 1, l] * F0
    for e in range(ew.shape[0]):   # constant inertial-frame wrenches at a body point
        b = int(ew[e, 0])
        pb0, pb1, pb2 = ew[e, 8], ew[e, 3], ew[e, 4]
        F0, F1, F2 = ew[e, 10], ew[e, 11], ew[e, 12]
        rb, ib, sb = 9 * b, 3 * b, 6 * b
        for l in range(_L):
            x0 = pw[ib, l] + Rw[rb, l] * pb0 + Rw[rb + 1, l] * pb1 + Rw[rb + 2, l] * pb2
            x1 = pw[ib + 1, l] + Rw[rb + 3, l] * pb0 + Rw[rb + 4, l] * pb1 + Rw[rb + 5, l] * pb2
            x2 = pw[ib + 2, l] + Rw[rb + 6, l] * pb0 + Rw[rb + 7, l] * pb1 + Rw[rb + 8, l] * pb2
            pA[sb, l] -= F0
            pA[sb + 1, l] -= F1
            pA[sb + 2, l] -= F2
            pA[sb + 3, l] -= ew[e, 13] + x1 * F2 - x2 * F1
            pA[sb + 4, l] -= ew[e, 14] + x2 * F0 - x0 * F2
            pA[sb + 5, l] -= ew[e, 15] + x0 * F1 - x1 * F0
    # Backward sweep: articulated inertias and bias forces, children into parents.
    for i in range(nb - 1, 0, -1):
        oi, si, iv, iq = 21 * i, 6 * i, ints[i, 3], ints[i, 2]
        par = ints[i, 1]
        op, sp_ = 21 * par, 6 * par
        kk, dd, rest = geom[i, _K], geom[i, _D], geom[i, _REST]
        for a in range(6):   # U = IA S
            r0, r1, r2, r3, r4, r5 = oi + _SYM[6 * a], oi + _SYM[6 * a + 1], oi + _SYM[6 * a + 2], \
                oi + _SYM[6 * a + 3], oi + _SYM[6 * a + 4], oi + _SYM[6 * a + 5]
            for l in range(_L):
                U[si + a, l] = IA[r0, l] * S[si, l] + IA[r1, l] * S[si + 1, l] + IA[r2, l] * S[si + 2, l] \
                    + IA[r3, l] * S[si + 3, l] + IA[r4, l] * S[si + 4, l] + IA[r5, l] * S[si + 5, l]
        for l in range(_L):
            di = S[si, l] * U[si, l] + S[si + 1, l] * U[si + 1, l] + S[si + 2, l] * U[si + 2, l] \
                + S[si + 3, l] * U[si + 3, l] + S[si + 4, l] * U[si + 4, l] + S[si + 5, l] * U[si + 5, l]
            sp = S[si, l] * pA[si, l] + S[si + 1, l] * pA[si + 1, l] + S[si + 2, l] * pA[si + 2, l] \
                + S[si + 3, l] * pA[si + 3, l] + S[si + 4, l] * pA[si + 4, l] + S[si + 5, l] * pA[si + 5, l]
            ui = TAU[iv, l] - sp
            if kk != 0.0 or dd != 0.0:
                ui -= dd * X[nq + iv, l] + kk * (X[iq, l] - rest)
            inv = 1.0 / di
            dinv[i, l] = inv
            u[i, l] = ui
        for a in range(6):   # IA -= U U^T / d (the upper triangle: IA stays symmetric)
            for b in range(a, 6):
                r = oi + _SYM[6 * a + b]
                for l in range(_L):
                    IA[r, l] -= U[si + a, l] * dinv[i, l] * U[si + b, l]
        for a in range(6):   # pA_par += pA + IA c + U u / d
            r0, r1, r2, r3, r4, r5 = oi + _SYM[6 * a], oi + _SYM[6 * a + 1], oi + _SYM[6 * a + 2], \
                oi + _SYM[6 * a + 3], oi + _SYM[6 * a + 4], oi + _SYM[6 * a + 5]
            for l in range(_L):
                pA[sp_ + a, l] += pA[si + a, l] + (
                    IA[r0, l] * c[si, l] + IA[r1, l] * c[si + 1, l] + IA[r2, l] * c[si + 2, l]
                    + IA[r3, l] * c[si + 3, l] + IA[r4, l] * c[si + 4, l] + IA[r5, l] * c[si + 5, l]) \
                    + U[si + a, l] * (u[i, l] * dinv[i, l])
        for r in range(21):   # IA_par += IA
            for l in range(_L):
                IA[op + r, l] += IA[oi + r, l]
    # Root acceleration (gravity as an upward acceleration of the inertial frame).
    for a in range(6):
        value = -root[10 + a] if a < 3 else 0.0
        for l in range(_L):
            acc[a, l] = value
    if floating:
        for a in range(6):   # rhs = R0 tau_root - pA_0 - IA_0 acc_0 (root wrench to world axes)
            r0, r1, r2, r3, r4, r5 = _SYM[6 * a], _SYM[6 * a + 1], _SYM[6 * a + 2], _SYM[6 * a + 3], \
                _SYM[6 * a + 4], _SYM[6 * a + 5]
            for l in range(_L):
                tmp[a, l] = IA[r0, l] * acc[0, l] + IA[r1, l] * acc[1, l] + IA[r2, l] * acc[2, l] \
                    + IA[r3, l] * acc[3, l] + IA[r4, l] * acc[4, l] + IA[r5, l] * acc[5, l]
        for a in range(3):
            for l in range(_L):
                rhs[a, l] = Rw[3 * a, l] * TAU[0, l] + Rw[3 * a + 1, l] * TAU[1, l] + Rw[3 * a + 2, l] * TAU[2, l] \
                    - pA[a, l] - tmp[a, l]
                rhs[3 + a, l] = Rw[3 * a, l] * TAU[3, l] + Rw[3 * a + 1, l] * TAU[4, l] \
                    + Rw[3 * a + 2, l] * TAU[5, l] - pA[3 + a, l] - tmp[3 + a, l]
        # Cholesky solve of IA_0 a0 = rhs (compiled._solve_spd6, same operation order), lane by lane
        for j in range(6):
            for i in range(j, 6):
                r = _SYM[6 * i + j]
                for l in range(_L):
                    L[6 * i + j, l] = IA[r, l]
                for k in range(j):
                    for l in range(_L):
                        L[6 * i + j, l] -= L[6 * i + k, l] * L[6 * j + k, l]
                if i == j:
                    for l in range(_L):
                        L[6 * j + j, l] = np.sqrt(L[6 * j + j, l])
                else:
                    for l in range(_L):
                        L[6 * i + j, l] = L[6 * i + j, l] / L[6 * j + j, l]
        for i in range(6):
            for l in range(_L):
                a0[i, l] = rhs[i, l]
            for k in range(i):
                for l in range(_L):
                    a0[i, l] -= L[6 * i + k, l] * a0[k, l]
            for l in range(_L):
                a0[i, l] = a0[i, l] / L[6 * i + i, l]
        for i in range(5, -1, -1):
            for k in range(i + 1, 6):
                for l in range(_L):
                    a0[i, l] -= L[6 * k + i, l] * a0[k, l]
            for l in range(_L):
                a0[i, l] = a0[i, l] / L[6 * i + i, l]
        for a in range(3):   # body-frame spatial acceleration = X0 a0
            for l in range(_L):
                OUT[nq + a, l] = Rw[a, l] * a0[0, l] + Rw[3 + a, l] * a0[1, l] + Rw[6 + a, l] * a0[2, l]
                OUT[nq + 3 + a, l] = Rw[a, l] * a0[3, l] + Rw[3 + a, l] * a0[4, l] + Rw[6 + a, l] * a0[5, l]
        for a in range(6):
            for l in range(_L):
                acc[a, l] += a0[a, l]
    # Forward sweep of accelerations.
    for i in range(1, nb):
        par = ints[i, 1]
        si, sp_, iv = 6 * i, 6 * par, ints[i, 3]
        for l in range(_L):
            t0 = acc[sp_, l] + c[si, l]
            t1 = acc[sp_ + 1, l] + c[si + 1, l]
            t2 = acc[sp_ + 2, l] + c[si + 2, l]
            t3 = acc[sp_ + 3, l] + c[si + 3, l]
            t4 = acc[sp_ + 4, l] + c[si + 4, l]
            t5 = acc[sp_ + 5, l] + c[si + 5, l]
            ua = 0.0
            ua += U[si, l] * t0
            ua += U[si + 1, l] * t1
            ua += U[si + 2, l] * t2
            ua += U[si + 3, l] * t3
            ua += U[si + 4, l] * t4
            ua += U[si + 5, l] * t5
            qddi = (u[i, l] - ua) * dinv[i, l]
            OUT[nq + iv, l] = qddi
            acc[si, l] = t0 + S[si, l] * qddi
            acc[si + 1, l] = t1 + S[si + 1, l] * qddi
            acc[si + 2, l] = t2 + S[si + 2, l] * qddi
            acc[si + 3, l] = t3 + S[si + 3, l] * qddi
            acc[si + 4, l] = t4 + S[si + 4, l] * qddi
            acc[si + 5, l] = t5 + S[si + 5, l] * qddi


@_lanes_jit
def lanes_state_derivative(X, TAU, nq, ints, geom, inertia, root, ew, OUT, ws):
    """``dx/dt`` of LANES states: X (nq + nv, LANES), TAU (nv, LANES) -> OUT (nq + nv, LANES)
    (as ``compiled._state_derivative`` lane by lane; OUT must not overlap X)."""
    nx = X.shape[0]
    if ws[8].shape[0] != 21 * ints.shape[0] or X.shape[1] != LANES or OUT.shape[0] != nx:
        # Cheap guard against a workspace of another layout (e.g. a stale numba cache of a caller
        # compiled against an older version of this module): fail instead of writing out of bounds.
        raise ValueError("lanes_state_derivative: arrays of the wrong shape for this kernel")
    _lanes_aba(X, nq, TAU, ints, geom, inertia, root, ew, OUT, ws)
    if root[0] != 0.0:
        Rw = ws[0]
        for a in range(3):
            for l in range(_L):
                OUT[a, l] = Rw[3 * a, l] * X[nq, l] + Rw[3 * a + 1, l] * X[nq + 1, l] + Rw[3 * a + 2, l] * X[nq + 2, l]
        for l in range(_L):
            qx, qy, qz, qw = X[3, l], X[4, l], X[5, l], X[6, l]
            wx, wy, wz = X[nq + 3, l], X[nq + 4, l], X[nq + 5, l]
            r = 1.0 - (qx * qx + qy * qy + qz * qz + qw * qw)   # norm-restoring term
            OUT[3, l] = 0.5 * (qw * wx + qy * wz - qz * wy) + r * qx
            OUT[4, l] = 0.5 * (qw * wy + qz * wx - qx * wz) + r * qy
            OUT[5, l] = 0.5 * (qw * wz + qx * wy - qy * wx) + r * qz
            OUT[6, l] = -0.5 * (qx * wx + qy * wy + qz * wz) + r * qw
        for k in range(7, nq):
            for l in range(_L):
                OUT[k, l] = X[nq + k - 1, l]
    else:
        for k in range(nq):
            for l in range(_L):
                OUT[k, l] = X[nq + k, l]
    return nx
