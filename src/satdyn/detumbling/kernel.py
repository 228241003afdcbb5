"""Fused closed-loop right-hand side (the simulation hot path).

:func:`satdyn.detumbling.simulate.closed_loop_rhs` assembles the right-hand side from the
model functions (``mass_matrix``, ``coriolis_matrix``, ``full_regressor``, ...), each of
which validates little but builds full matrices and calls ``satdyn.spatial`` conversions
(SciPy ``Rotation``) -- clear, and the reference. This module evaluates the *same*
equations for one state with the constants hoisted out of the loop and every small product
written out: attitudes from the quaternions directly, ``theta*`` from the relative
quaternion, ``C nu`` as vector products, one ``Log`` instead of two. The tugs still run
:func:`satdyn.detumbling.controllers.tug_command` on their own estimates only.

Arguments: ``system`` a :class:`~satdyn.detumbling.simulate.ClosedLoop` (any controller kind)
whose plant uses the log-map spring; ``x`` the closed-loop state (26 + 2n,) (layout in
:mod:`satdyn.detumbling.simulate`). Tests check it against the reference to round-off.
"""

from __future__ import annotations

import numpy as np

from .controllers import FULL_CHAIN_KINDS, Measurement, tug_command
from .regressors import inertia_operator

__all__ = ["supports_fused", "make_fused_rhs"]

_I3 = np.eye(3)


def supports_fused(system) -> bool:
    """True when :func:`make_fused_rhs` applies (every controller; plant with the log-map spring)."""
    return system.client.hinge.spring_model == "logmap"


def _skew(a):
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def _cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _dcm(q):
    """Rotation matrix of a unit scalar-last quaternion (same as satdyn.spatial.dcm_from_quaternion)."""
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def _vee_skew_part(A):
    return 0.5 * np.array([A[2, 1] - A[1, 2], A[0, 2] - A[2, 0], A[1, 0] - A[0, 1]])


def _relative_rotvec(q1, q2):
    """``Log(R1^T R2)`` from the quaternions: the rotation vector of ``conj(q1) q2`` (angle <= pi)."""
    v1, w1, v2, w2 = q1[:3], q1[3], q2[:3], q2[3]
    e = w1 * v2 - w2 * v1 - _cross(v1, v2)
    c = w1 * w2 + v1 @ v2
    if c < 0.0:
        e, c = -e, -c
    s = np.sqrt(e @ e)
    if s < 1e-12:
        return 2.0 * e / c
    return e * (2.0 * np.arctan2(s, c) / s)


def _jl_inverse_transpose(theta):
    """``J_l^{-T}(theta) = I + skew(theta)/2 + d skew(theta)^2`` (same coefficients as satdyn.spatial)."""
    t = np.sqrt(theta @ theta)
    if t < 1e-4:
        t2 = t * t
        d = 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0
    else:
        d = 1.0 / (t * t) - np.cos(t / 2) / np.sin(t / 2) / (2.0 * t)
    S = _skew(theta)
    return _I3 + 0.5 * S + d * (S @ S)


def _link_block(Y, R, w, a_r, w_r, al_r, cols, rows):
    Y[:3, cols] = a_r
    Y[:3, cols + 1:cols + 4] = (_skew(al_r) + _skew(w_r) @ _skew(w)) @ R
    Y[rows:rows + 3, cols + 1:cols + 4] = -_skew(a_r) @ R
    Y[rows:rows + 3, cols + 4:cols + 10] = (R @ inertia_operator(R.T @ (al_r - _cross(w, w_r)))
                                           + _skew(w_r) @ R @ inertia_operator(R.T @ w))


def make_fused_rhs(system):
    """Return ``rhs(t, x)`` equal to ``closed_loop_rhs(system, t, x)``, evaluated faster."""
    if not supports_fused(system):
        raise ValueError("`system` must use the 'logmap' hinge spring (the 'trace' spring has no fused kernel)")
    c = system.client
    m = c.link1.mass + c.link2.mass
    h1, h2 = c.link1.first_moment, c.link2.first_moment
    J1, J2 = c.link1.inertia_hinge, c.link2.inertia_hinge
    k, xi, fc, eps = c.hinge.stiffness, c.hinge.damping, c.hinge.friction, c.hinge.friction_eps
    d1, d2 = c.grasp1, c.grasp2
    p_d, R_d = system.desired.position, system.desired.attitude
    gamma = system.tugs[0].gains.gamma
    tugs = system.tugs
    kind = system.kind
    full_chain = kind in FULL_CHAIN_KINDS
    velocity_only = kind == "velocity"
    n = system.n_parameters
    eps_c = tugs[0].structure.friction_eps  # the controller's assumed regularisation
    thrusters = system.thrusters

    def rhs(t, x):
        p = x[0:3]
        q1 = x[3:7] / np.sqrt(x[3:7] @ x[3:7])
        q2 = x[7:11] / np.sqrt(x[7:11] @ x[7:11])
        nu = x[11:20]
        v, w1, w2 = nu[0:3], nu[3:6], nu[6:9]
        R1, R2 = _dcm(q1), _dcm(q2)

        theta = _relative_rotvec(q1, q2)
        JT = _jl_inverse_transpose(theta)
        w_rel = R1.T @ (w2 - w1)

        # plant: M and the bias C nu + D nu + g_K + g_F
        r1, r2 = R1 @ h1, R2 @ h2
        I1, I2 = R1 @ J1 @ R1.T, R2 @ J2 @ R2.T
        M = np.zeros((9, 9))
        M[0, 0] = M[1, 1] = M[2, 2] = m
        S1, S2 = _skew(r1), _skew(r2)
        M[0:3, 3:6], M[3:6, 0:3], M[3:6, 3:6] = -S1, S1, I1
        M[0:3, 6:9], M[6:9, 0:3], M[6:9, 6:9] = -S2, S2, I2
        g_hinge = R1 @ (JT @ (k * theta) + xi * w_rel + fc * np.tanh(w_rel / eps))
        bias = np.concatenate([_cross(w1, _cross(w1, r1)) + _cross(w2, _cross(w2, r2)),
                               _cross(w1, I1 @ w1) - g_hinge, _cross(w2, I2 @ w2) + g_hinge])

        # shared measurement: reference, composite error, regressor (controllers.reference_velocity)
        nu_r = np.zeros(9)
        nu_r_dot = np.zeros(9)
        if not velocity_only:
            nu_r[:3] = -gamma * (p - p_d)
            nu_r_dot[:3] = -gamma * v
            for R, w, sl in ((R1, w1, slice(3, 6)), (R2, w2, slice(6, 9))):
                R_e = R_d.T @ R
                nu_r[sl] = -gamma * (R_d @ _vee_skew_part(R_e))
                nu_r_dot[sl] = -0.5 * gamma * (R_d @ ((np.trace(R_e) * _I3 - R_e.T) @ (R.T @ w)))
        a_r = nu_r_dot[:3]
        if full_chain:
            s = nu - nu_r
            Y = np.zeros((9, n))
            _link_block(Y, R1, w1, a_r, nu_r[3:6], nu_r_dot[3:6], 0, 3)
            _link_block(Y, R2, w2, a_r, nu_r[6:9], nu_r_dot[6:9], 10, 6)
            w_r_rel = R1.T @ (nu_r[6:9] - nu_r[3:6])
            Yh = np.concatenate([R1 @ (JT * theta), R1 * w_r_rel, R1 * np.tanh(w_rel / eps_c)], axis=1)
            Y[3:6, 20:29] = -Yh
            Y[6:9, 20:29] = Yh
        else:
            # composite (A) / rigid (R): 6-D error on [v, omega1], both links on Link-1's reference
            s = nu[:6] - nu_r[:6]
            Y = np.zeros((6, n))
            _link_block(Y, R1, w1, a_r, nu_r[3:6], nu_r_dot[3:6], 0, 3)
            if kind == "A":
                _link_block(Y, R2, w2, a_r, nu_r[3:6], nu_r_dot[3:6], 10, 3)
                Y[3:, 20:29] = np.concatenate([R1 * theta, R1 * w_rel, R1 * np.tanh(w_rel / eps_c)], axis=1)
        meas = Measurement(p, (R1, R2), nu, nu_r, nu_r_dot, s, Y)

        # each tug: own estimates only
        n0 = 20
        W1, pi_dot1, d_dot1 = tug_command(tugs[0], meas, x[n0:n0 + n], x[n0 + 2 * n:n0 + 2 * n + 3])
        W2, pi_dot2, d_dot2 = tug_command(tugs[1], meas, x[n0 + n:n0 + 2 * n], x[n0 + 2 * n + 3:n0 + 2 * n + 6])

        if thrusters is not None:  # saturation: what the thrusters deliver
            W1, W2 = thrusters[0].deliver(W1, R1), thrusters[1].deliver(W2, R2)
        # generalized force of the wrenches applied at the true grasp points, and the plant
        f1, f2 = W1[:3], W2[:3]
        Q = np.concatenate([f1 + f2, W1[3:] + _cross(R1 @ d1, f1), W2[3:] + _cross(R2 @ d2, f2)])
        nu_dot = np.linalg.solve(M, Q - bias)
        q1_dot = 0.5 * np.concatenate([q1[3] * w1 + _cross(w1, q1[:3]), [-(w1 @ q1[:3])]])
        q2_dot = 0.5 * np.concatenate([q2[3] * w2 + _cross(w2, q2[:3]), [-(w2 @ q2[:3])]])
        return np.concatenate([v, q1_dot, q2_dot, nu_dot, pi_dot1, pi_dot2, d_dot1, d_dot2])

    return rhs
