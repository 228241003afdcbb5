"""Analytic reference model of the two-link arm (arXiv:2109.00407) and its numerical
trim + finite-difference linearisation (the comparator of the ``satdyn equilibrium`` study).

Independent of the LFR route: hand-derived Lagrangian equations of motion
(checked with sympy by the satdyn developers). All functions are batched over leading dimensions of
the angles.

Arguments used below
--------------------
arm : TwoLinkArm                 physical data (one parameter point)
theta : (..., 2)                 equilibrium joint angles [rad] (theta_2 relative)
q, qd, qdd : (..., 2)            joint angles [rad], rates [rad/s], accelerations [rad/s^2]
torque : (..., 2)                joint torques [N m]
omega : (F,)                     angular frequencies [rad/s]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.optimize

from .._validation import as_batch_of, as_float_array
from .arm import TwoLinkArm

__all__ = [
    "arm_constants",
    "arm_mass_matrix",
    "arm_static_torques",
    "arm_gravity_stiffness",
    "arm_inverse_dynamics",
    "arm_forward_dynamics",
    "arm_linear_state_space",
    "trim_and_linearise",
    "TrimLinearisation",
    "frequency_response",
    "relative_error",
]


def arm_constants(arm: TwoLinkArm) -> tuple[float, float, float]:
    """``(c1, c2, b)`` of arXiv:2109.00407 [N m, N m, kg m^2]."""
    c1 = arm.g0 * (arm.m1 * arm.rho1 * arm.L1 + (arm.m2 + arm.m3) * arm.L1)
    c2 = arm.g0 * (arm.m2 * arm.rho2 * arm.L2 + arm.m3 * arm.L2)
    b = arm.L1 * (arm.m2 * arm.rho2 * arm.L2 + arm.m3 * arm.L2)
    return c1, c2, b


def arm_mass_matrix(arm: TwoLinkArm, theta2) -> np.ndarray:
    """Mass matrix ``M(theta_2)``, shape (..., 2, 2) [kg m^2] (rotor inertias included)."""
    c = np.cos(as_float_array(theta2, "theta2"))
    m2, m3, L1, L2, r2 = arm.m2, arm.m3, arm.L1, arm.L2, arm.rho2
    Jr = arm.rotor_inertia
    m22 = arm.J2 + m2 * r2**2 * L2**2 + m3 * L2**2 + Jr
    m12 = m22 + (m2 * L1 * r2 * L2 + m3 * L1 * L2) * c
    m11 = (arm.J1 + arm.m1 * arm.rho1**2 * L1**2 + Jr + m22
           + m2 * (L1**2 + 2 * L1 * r2 * L2 * c) + m3 * (L1**2 + 2 * L1 * L2 * c))
    M = np.empty(c.shape + (2, 2))
    M[..., 0, 0] = m11
    M[..., 0, 1] = m12
    M[..., 1, 0] = m12
    M[..., 1, 1] = m22
    return M


def _absolute_angles(arm: TwoLinkArm, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # Angles of the two links measured from the hanging direction.
    a0 = arm.zero_angle
    return q[..., 0] + a0, q[..., 0] + q[..., 1] + a0


def arm_static_torques(arm: TwoLinkArm, theta) -> np.ndarray:
    """Joint torques holding the arm at rest at ``theta`` (gravity torques), shape (..., 2) [N m]."""
    theta = as_batch_of(theta, (2,), "theta")
    c1, c2, _ = arm_constants(arm)
    a1, a12 = _absolute_angles(arm, theta)
    return np.stack([c1 * np.sin(a1) + c2 * np.sin(a12), c2 * np.sin(a12)], axis=-1)


def arm_gravity_stiffness(arm: TwoLinkArm, theta) -> np.ndarray:
    """Gravity stiffness ``K_g = d(static torque)/d theta``, shape (..., 2, 2) [N m/rad]."""
    theta = as_batch_of(theta, (2,), "theta")
    c1, c2, _ = arm_constants(arm)
    a1, a12 = _absolute_angles(arm, theta)
    k12 = c2 * np.cos(a12)
    K = np.empty(theta.shape[:-1] + (2, 2))
    K[..., 0, 0] = c1 * np.cos(a1) + k12
    K[..., 0, 1] = k12
    K[..., 1, 0] = k12
    K[..., 1, 1] = k12
    return K


def arm_inverse_dynamics(arm: TwoLinkArm, q, qd, qdd) -> np.ndarray:
    """Non-linear inverse dynamics (no joint spring/damper): torques, shape (..., 2) [N m]."""
    q = as_batch_of(q, (2,), "q")
    qd = as_batch_of(qd, (2,), "qd")
    qdd = as_batch_of(qdd, (2,), "qdd")
    _, _, b = arm_constants(arm)
    M = arm_mass_matrix(arm, q[..., 1])
    s2 = np.sin(q[..., 1])
    coriolis = np.stack([-b * s2 * (2 * qd[..., 0] * qd[..., 1] + qd[..., 1] ** 2),
                         b * s2 * qd[..., 0] ** 2], axis=-1)
    return np.einsum("...ij,...j->...i", M, qdd) + coriolis + arm_static_torques(arm, q)


def arm_forward_dynamics(arm: TwoLinkArm, q, qd, torque, spring_rest=None) -> np.ndarray:
    """Joint accelerations with the joint springs (rest ``spring_rest``, default 0) and dampers."""
    q = as_batch_of(q, (2,), "q")
    qd = as_batch_of(qd, (2,), "qd")
    torque = as_batch_of(torque, (2,), "torque")
    rest = 0.0 if spring_rest is None else as_batch_of(spring_rest, (2,), "spring_rest")
    net = torque - arm.stiffness * (q - rest) - arm.damping * qd
    bias = arm_inverse_dynamics(arm, q, qd, np.zeros_like(q))
    return np.linalg.solve(arm_mass_matrix(arm, q[..., 1]), (net - bias)[..., None])[..., 0]


def arm_linear_state_space(arm: TwoLinkArm, theta) -> tuple[np.ndarray, ...]:
    """Analytic linear model around the equilibrium ``theta`` (arXiv:2109.00407).

    States ``[dtheta; dtheta_dot]``, inputs ``dT`` (2), outputs ``[dtheta; dtheta_dot]`` (4).

    Returns
    -------
    A (..., 4, 4), B (..., 4, 2), C (..., 4, 4), D (..., 4, 2)
    """
    theta = as_batch_of(theta, (2,), "theta")
    M = arm_mass_matrix(arm, theta[..., 1])
    K = arm_gravity_stiffness(arm, theta) + arm.stiffness * np.eye(2)
    return _second_order_state_space(M, arm.damping * np.broadcast_to(np.eye(2), M.shape), K)


def _second_order_state_space(M, Kd, K):
    batch = M.shape[:-2]
    Minv = np.linalg.inv(M)
    A = np.zeros(batch + (4, 4))
    A[..., :2, 2:] = np.eye(2)
    A[..., 2:, :2] = -Minv @ K
    A[..., 2:, 2:] = -Minv @ Kd
    B = np.zeros(batch + (4, 2))
    B[..., 2:, :] = Minv
    C = np.broadcast_to(np.eye(4), batch + (4, 4)).copy()
    D = np.zeros(batch + (4, 2))
    return A, B, C, D


@dataclass(frozen=True)
class TrimLinearisation:
    """Numerical trim + central finite-difference linearisation at one configuration.

    Attributes
    ----------
    theta : ndarray (2,)            equilibrium angles [rad]
    torque : ndarray (2,)           trim torques found by root finding [N m]
    A, B, C, D : ndarray            (4,4), (4,2), (4,4), (4,2): states/outputs [dtheta; dtheta_dot]
    residual : float                max |joint acceleration| at the trim [rad/s^2]
    """

    theta: np.ndarray
    torque: np.ndarray
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    residual: float


def trim_and_linearise(arm: TwoLinkArm, theta, *, step: float = 1e-5) -> TrimLinearisation:
    """Numerical trim (root finding on the forward dynamics) and central finite differences.

    The usual workflow the LFT route replaces: at one configuration, find the torques that
    hold the arm at rest, then differentiate the non-linear state equation numerically.

    Parameters
    ----------
    arm : TwoLinkArm
    theta : array_like (2,)
        Equilibrium angles [rad].
    step : float
        Finite-difference step on states [rad, rad/s] and inputs (scaled by the trim torque) [N m].
    """
    theta = np.asarray(theta, dtype=float)
    if theta.shape != (2,) or not np.all(np.isfinite(theta)):
        raise ValueError(f"theta must be 2 finite angles [rad], got {theta!r}")
    if not step > 0.0:
        raise ValueError(f"step must be positive, got {step!r}")
    zero = np.zeros(2)

    def accel(torque):
        return arm_forward_dynamics(arm, theta, zero, torque, spring_rest=theta)

    sol = scipy.optimize.root(accel, zero, method="hybr", tol=1e-13)
    torque = sol.x

    def f(x, u):
        qdd = arm_forward_dynamics(arm, x[:2], x[2:], u, spring_rest=theta)
        return np.concatenate([x[2:], qdd])

    x0 = np.concatenate([theta, zero])
    A = np.empty((4, 4))
    for i in range(4):
        dx = np.zeros(4)
        dx[i] = step
        A[:, i] = (f(x0 + dx, torque) - f(x0 - dx, torque)) / (2 * step)
    B = np.empty((4, 2))
    hu = step * max(1.0, float(np.max(np.abs(torque))))
    for i in range(2):
        du = np.zeros(2)
        du[i] = hu
        B[:, i] = (f(x0, torque + du) - f(x0, torque - du)) / (2 * hu)
    return TrimLinearisation(theta=theta, torque=torque, A=A, B=B, C=np.eye(4), D=np.zeros((4, 2)),
                             residual=float(np.max(np.abs(accel(torque)))))


def frequency_response(A, B, C, D, omega) -> np.ndarray:
    """``G(j omega) = C (j omega I - A)^-1 B + D``, batched: shape (..., F, p, m)."""
    A = np.asarray(A)
    omega = np.asarray(omega, dtype=float)
    n = A.shape[-1]
    s = 1j * omega[:, None, None]
    X = np.linalg.solve(s * np.eye(n) - A[..., None, :, :], np.asarray(B)[..., None, :, :])
    return np.asarray(C)[..., None, :, :] @ X + np.asarray(D)[..., None, :, :]


def relative_error(G1, G2) -> np.ndarray:
    """``max over frequencies of sigma_max((G1 - G2) G2^-1)`` for square responses (..., F, p, p)."""
    G1 = np.asarray(G1)
    G2 = np.asarray(G2)
    if G1.shape != G2.shape or G1.ndim < 3 or G1.shape[-1] != G1.shape[-2]:
        raise ValueError(f"`G1` and `G2` must be square responses of one shape (..., F, p, p); "
                         f"got {G1.shape} and {G2.shape}")
    # (G1 - G2) G2^-1 = solve(G2^T, (G1 - G2)^T)^T
    E = np.swapaxes(np.linalg.solve(np.swapaxes(G2, -1, -2), np.swapaxes(G1 - G2, -1, -2)), -1, -2)
    return np.linalg.norm(E, ord=2, axis=(-2, -1)).max(axis=-1)
