"""Spec 004 Appendix A: the verified block-by-block TITOP prototype of example G (test reference only).

An independent implementation of the paper's block equations (29), (30), (35), (45), (63),
(65), (75), (92), (93) with Euler 3-2-1 root states and the generic affine cut-and-solve of
the algebraic loops (option a), transcribed from the spec with the Appendix B Euler helpers.
State X = [x'_B (6), [IB]_b (3), Theta (3), p, th1, th2, pd, th1d, th2d].
"""

import numpy as np
from scipy.linalg import expm

I3 = np.eye(3)


def skew(v):
    x, y, z = v
    return np.array([[0, -z, y], [z, 0, -x], [-y, x, 0.0]])


def P_of_Theta(th):
    phi, theta, psi = th
    Rx = np.array([[1, 0, 0], [0, np.cos(phi), -np.sin(phi)], [0, np.sin(phi), np.cos(phi)]])
    Ry = np.array([[np.cos(theta), 0, np.sin(theta)], [0, 1, 0], [-np.sin(theta), 0, np.cos(theta)]])
    Rz = np.array([[np.cos(psi), -np.sin(psi), 0], [np.sin(psi), np.cos(psi), 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


def Theta_of_P(P):
    return np.array([np.arctan2(P[2, 1], P[2, 2]), -np.arcsin(P[2, 0]), np.arctan2(P[1, 0], P[0, 0])])


def Gamma(th):
    phi, theta, _ = th
    return np.array([[1, np.sin(phi) * np.tan(theta), np.cos(phi) * np.tan(theta)],
                     [0, np.cos(phi), -np.sin(phi)],
                     [0, np.sin(phi) / np.cos(theta), np.cos(phi) / np.cos(theta)]])


def tau(d):
    T = np.eye(6)
    T[0:3, 3:6] = skew(d)
    return T


def Dmodel(m, IB, BP):
    DB = np.zeros((6, 6))
    DB[:3, :3] = m * I3
    DB[3:, 3:] = IB
    T = tau(BP)
    return T.T @ DB @ T


def Cop(xp):
    v, w = xp[:3], xp[3:]
    C = np.zeros((6, 6))
    C[:3, :3] = skew(w)
    C[3:, :3] = skew(v)
    C[3:, 3:] = skew(w)
    return C


def upsilon(CP, m):
    T = tau(CP)
    out = m.copy()
    out[0:6] = T @ m[0:6]
    out[6:12] = T @ m[6:12]
    out[12:15] = m[12:15] - CP
    return out


def change_frame(P_ab, m):
    out = np.empty(18)
    for k in range(5):
        out[3 * k:3 * k + 3] = P_ab.T @ m[3 * k:3 * k + 3]
    out[15:18] = Theta_of_P(P_of_Theta(m[15:18]) @ P_ab)
    return out


def wrench_to_parent(P_ab, W):
    return np.concatenate([P_ab @ W[:3], P_ab @ W[3:]])


class RootBody:
    def __init__(s, m, IB, BP, CPs, g_i):
        s.D = Dmodel(m, IB, BP)
        s.Di = np.linalg.inv(s.D)
        s.CPs = CPs
        s.g = g_i

    def forward(s, st, W_P, W_Cs):
        xp, x = st[:6], st[6:]
        Wext = W_P + sum(tau(CP).T @ W for CP, W in zip(s.CPs, W_Cs))
        gb = P_of_Theta(x[3:]).T @ s.g
        xdp = s.Di @ (Wext - Cop(xp) @ s.D @ xp) + np.r_[gb, 0, 0, 0]
        xdot = np.r_[xp[:3] + skew(x[:3]) @ xp[3:], Gamma(x[3:]) @ xp[3:]]
        mP = np.r_[xdp, xp, x]
        return mP, [upsilon(CP, mP) for CP in s.CPs], np.r_[xdp, xdot]


class Revolute:
    def __init__(s, m, IB, BP, CPs, r_a, P_a0b, g_i):
        s.D = Dmodel(m, IB, BP)
        s.CPs = CPs
        s.r = r_a / np.linalg.norm(r_a)
        s.P0 = P_a0b
        s.g = g_i
        s.rh = np.r_[0, 0, 0, s.r]
        s.Jr = s.rh @ s.D @ s.rh

    def _pre(s, th, thd, mB_b):
        P = s.P0 @ expm(th * skew(s.r))
        mB = change_frame(P, mB_b)
        xpB = mB[6:12]
        xpA = xpB + np.r_[0, 0, 0, thd * s.r]
        gh = np.r_[P_of_Theta(mB[15:]).T @ s.g, 0, 0, 0]
        corr = -thd * np.r_[skew(s.r) @ xpB[:3], skew(s.r) @ xpB[3:]]
        return P, mB, xpA, gh, corr

    def _post(s, P, mB, xpA, gh, corr, thdd, W_Cs):
        xdpA = mB[:6] + corr + thdd * s.rh
        Wc = sum(tau(CP).T @ W for CP, W in zip(s.CPs, W_Cs))
        W_a = Wc - s.D @ (xdpA - gh) - Cop(xpA) @ s.D @ xpA
        mA = np.r_[xdpA, xpA, mB[12:]]
        return wrench_to_parent(P, W_a), [upsilon(CP, mA) for CP in s.CPs], W_a

    def forward(s, th, thd, mB_b, W_Cs, Cm):
        P, mB, xpA, gh, corr = s._pre(th, thd, mB_b)
        Wc = sum(tau(CP).T @ W for CP, W in zip(s.CPs, W_Cs))
        bias = s.D @ (mB[:6] - gh + corr) + Cop(xpA) @ s.D @ xpA - Wc
        thdd = (Cm - s.rh @ bias) / s.Jr
        W, mCs, _ = s._post(P, mB, xpA, gh, corr, thdd, W_Cs)
        return W, mCs, thdd


class Prismatic:
    def __init__(s, m, IB, BP, CPs, t_a, P_ab, g_i):
        s.D = Dmodel(m, IB, BP)
        s.CPs = CPs
        s.t = t_a / np.linalg.norm(t_a)
        s.Pab = P_ab
        s.g = g_i
        s.th = np.r_[s.t, 0, 0, 0]
        s.m = m

    def _pre(s, x, xd, mB_b):
        m0 = change_frame(s.Pab, mB_b)
        T = tau(-x * s.t)
        xpA = T @ m0[6:12] + np.r_[xd * s.t, 0, 0, 0]
        gh = np.r_[P_of_Theta(m0[15:]).T @ s.g, 0, 0, 0]
        corr = -xd * np.r_[skew(s.t) @ m0[9:12], 0, 0, 0]
        return T, T @ m0[:6], xpA, gh, corr, np.r_[m0[12:15] + x * s.t, m0[15:]]

    def _post(s, T, base, xpA, gh, corr, pose, xdd, W_Cs):
        xdpA = base + corr + xdd * s.th
        Wc = sum(tau(CP).T @ W for CP, W in zip(s.CPs, W_Cs))
        W_P = Wc - s.D @ (xdpA - gh) - Cop(xpA) @ s.D @ xpA
        mA = np.r_[xdpA, xpA, pose]
        return wrench_to_parent(s.Pab, T.T @ W_P), [upsilon(CP, mA) for CP in s.CPs], W_P

    def forward(s, x, xd, mB_b, W_Cs, Fm):
        T, base, xpA, gh, corr, pose = s._pre(x, xd, mB_b)
        Wc = sum(tau(CP).T @ W for CP, W in zip(s.CPs, W_Cs))
        bias = s.D @ (base - gh + corr) + Cop(xpA) @ s.D @ xpA - Wc
        xdd = (Fm - s.th @ bias) / s.m
        W, mCs, _ = s._post(T, base, xpA, gh, corr, pose, xdd, W_Cs)
        return W, mCs, xdd


g_i = np.array([0, -9.81, 0.0])
mG = 16.0
J = np.array([[5, 0, 0], [0, 10, -7], [0, -7, 10.0]])
CB = np.array([0, 2.0, 0])
Z3 = np.zeros((3, 3))
B = RootBody(10.0, J, np.zeros(3), [CB], g_i)
S = Prismatic(1.0, Z3, np.zeros(3), [np.zeros(3)], np.array([1, 0, -1.0]), I3, g_i)
P1 = Revolute(2.0, Z3, np.array([0, 1.2, 0]), [np.array([0, 1.2, 0])], np.array([0, 0, 1.0]), I3, g_i)
P2 = Revolute(3.0, Z3, np.array([0, 1.6, 0]), [np.array([0, 1.6, 0])], np.array([0, 0, 1.0]), I3, g_i)


def evaluate(X, w, k, ds, dp1, dp2):
    p, t1, t2, pd, t1d, t2d = X[12:]
    Wb = np.r_[P_of_Theta(X[9:12]).T @ (-mG * g_i), 0, 0, 0]
    mB, (mC,), sdB = B.forward(X[:12], Wb, [w[0:6]])
    W1, (mS,), pdd = S.forward(p, pd, mC, [w[6:12]], -k * p - ds * pd)
    W2, (mP1,), t1dd = P1.forward(t1, t1d, mS, [w[12:18]], -dp1 * t1d)
    W3, _, t2dd = P2.forward(t2, t2d, mP1, [np.zeros(6)], -dp2 * t2d)
    return np.r_[W1, W2, W3], np.r_[sdB, pd, t1d, t2d, pdd, t1dd, t2dd]


def rhs(t, X, k=10.0, ds=1.0, dp1=0.1, dp2=0.1):
    b, _ = evaluate(X, np.zeros(18), k, ds, dp1, dp2)
    A = np.column_stack([evaluate(X, e, k, ds, dp1, dp2)[0] - b for e in np.eye(18)])
    w = np.linalg.solve(np.eye(18) - A, b)
    return evaluate(X, w, k, ds, dp1, dp2)[1]
