"""Linear-in-parameters forms of the client dynamics (arXiv:2407.17617).

Arguments (world frame unless said otherwise):

* ``R1, R2`` (3, 3) link attitudes; ``nu = [v, omega1, omega2]`` (9,) actual velocity;
* ``nu_r = [v_r, omega_r1, omega_r2]`` (9,) reference velocity and
  ``nu_r_dot = [a_r, alpha_r1, alpha_r2]`` (9,) its time derivative;
* ``hinge`` the :class:`HingeParams` -- only its *structure* (spring model, ``eps_f``) is
  used, never its values, which are unknown to the controller.

Regressors:

* :func:`link_regressor` (6, 10): ``Y_link [m, h, j] = M_i nu_r_dot + C_i nu_r`` for one link;
* :func:`full_regressor` (9, 29): ``Y pi = M nu_r_dot + C nu_r + D nu_r + g_K + g_F`` exactly
  (controller B);
* :func:`composite_regressor` (6, 29): the paper-faithful rigid-composite form (controller A);
* :func:`rigid_regressor` (6, 10): Link-1 alone as a rigid body (baseline R);
* :func:`grasp_regressor` (3, 3): ``f x R`` -- the torque error from a grasp-point error,
  ``G(R d) G(R d_hat)^{-1} W = W + [0; skew(f) R (d_hat - d)]``.
"""

from __future__ import annotations

import numpy as np

from ..spatial.unchecked import skew  # trusted inputs: inner loop
from .client import N_PARAMETERS, HingeParams
from .dynamics import _cross, hinge_angle, hinge_rate, spring_basis

__all__ = ["inertia_operator", "link_regressor", "hinge_regressor", "full_regressor",
           "composite_regressor", "rigid_regressor", "grasp_regressor"]


def inertia_operator(x: np.ndarray) -> np.ndarray:
    """``L(x)`` (3, 6) with ``J x = L(x) j`` for ``j = [Jxx, Jyy, Jzz, Jxy, Jxz, Jyz]``."""
    x1, x2, x3 = x
    return np.array([[x1, 0.0, 0.0, x2, x3, 0.0],
                     [0.0, x2, 0.0, x1, 0.0, x3],
                     [0.0, 0.0, x3, 0.0, x1, x2]])


def link_regressor(R: np.ndarray, omega: np.ndarray, a_r: np.ndarray, omega_r: np.ndarray,
                   alpha_r: np.ndarray) -> np.ndarray:
    """Per-link regressor (6, 10), columns ``[m | h(3) | j(6)]``.

    ``Y_link [m; h; j] = M_i(R) [a_r; alpha_r] + C_i(R, omega) [v_r; omega_r]``::

        [[a_r, skew(alpha_r) R + skew(omega_r) skew(omega) R, 0],
         [0,   -skew(a_r) R,  R L(R^T (alpha_r - omega x omega_r)) + skew(omega_r) R L(R^T omega)]]
    """
    Y = np.zeros((6, 10))
    Y[:3, 0] = a_r
    Y[:3, 1:4] = (skew(alpha_r) + skew(omega_r) @ skew(omega)) @ R
    Y[3:, 1:4] = -skew(a_r) @ R
    Y[3:, 4:10] = (R @ inertia_operator(R.T @ (alpha_r - _cross(omega, omega_r)))
                   + skew(omega_r) @ R @ inertia_operator(R.T @ omega))
    return Y


def hinge_regressor(hinge: HingeParams, R1: np.ndarray, R2: np.ndarray, nu: np.ndarray,
                    w_r: np.ndarray) -> np.ndarray:
    """World-frame torque-on-Link-2 regressor (3, 9) over ``[k, xi, f_c]``.

    ``Y_h [k; xi; f_c] = R1 (B(theta*) k + diag(w_r) xi + diag(tanh(w / eps_f)) f_c)``, where ``w_r``
    is the relative *reference* rate (damping acts on the reference, Slotine-Li) and ``w`` the
    actual relative rate (friction acts on the actual motion). It enters the ``omega2`` rows
    with ``+`` and the ``omega1`` rows with ``-``.
    """
    w = hinge_rate(R1, nu)
    return np.concatenate([R1 @ spring_basis(hinge, R1, R2), R1 * w_r,
                           R1 * np.tanh(w / hinge.friction_eps)], axis=1)


def full_regressor(hinge: HingeParams, R1: np.ndarray, R2: np.ndarray, nu: np.ndarray, nu_r: np.ndarray,
                   nu_r_dot: np.ndarray) -> np.ndarray:
    """Full-chain regressor ``Y`` (9, 29) of controller B.

    ``Y pi = M nu_r_dot + C(q, nu) nu_r + D nu_r + g_K(q) + g_F(q, nu)`` for the true ``pi``.
    """
    a_r = nu_r_dot[:3]
    Y = np.zeros((9, N_PARAMETERS))
    for R, w, w_r, al_r, cols, rows in (
            (R1, nu[3:6], nu_r[3:6], nu_r_dot[3:6], slice(0, 10), slice(3, 6)),
            (R2, nu[6:9], nu_r[6:9], nu_r_dot[6:9], slice(10, 20), slice(6, 9))):
        Yl = link_regressor(R, w, a_r, w_r, al_r)
        Y[:3, cols] = Yl[:3]
        Y[rows, cols] = Yl[3:]
    Yh = hinge_regressor(hinge, R1, R2, nu, R1.T @ (nu_r[6:9] - nu_r[3:6]))
    Y[3:6, 20:29] = -Yh
    Y[6:9, 20:29] = Yh
    return Y


def composite_regressor(hinge: HingeParams, R1: np.ndarray, R2: np.ndarray, nu: np.ndarray,
                        nu_rc: np.ndarray, nu_rc_dot: np.ndarray) -> np.ndarray:
    """Paper-faithful composite regressor ``Y_A`` (6, 29) about H (controller A, arXiv:2407.17617).

    Both links are driven by Link-1's reference ``nu_rc = [v_r, omega_r1]`` (6,) (the
    rigid-composite assumption); the hinge columns sit in the torque rows as the paper's
    ``theta*``, ``omega*`` and constant-torque blocks: ``R1 diag(theta*)``, ``R1 diag(w)``,
    ``R1 diag(tanh(w / eps_f))`` (``w`` the actual relative rate). The internal hinge torques
    do not actually cancel in this form: it has no stability guarantee on the two-body plant.
    """
    a_r, w_r, al_r = nu_rc_dot[:3], nu_rc[3:6], nu_rc_dot[3:6]
    Y = np.zeros((6, N_PARAMETERS))
    Y[:, 0:10] = link_regressor(R1, nu[3:6], a_r, w_r, al_r)
    Y[:, 10:20] = link_regressor(R2, nu[6:9], a_r, w_r, al_r)
    w = hinge_rate(R1, nu)
    Y[3:, 20:23] = R1 * hinge_angle(R1, R2)
    Y[3:, 23:26] = R1 * w
    Y[3:, 26:29] = R1 * np.tanh(w / hinge.friction_eps)
    return Y


def rigid_regressor(R1: np.ndarray, nu: np.ndarray, nu_rc: np.ndarray, nu_rc_dot: np.ndarray) -> np.ndarray:
    """Rigid-body baseline regressor ``Y_R`` (6, 10): Link-1's :func:`link_regressor` alone."""
    return link_regressor(R1, nu[3:6], nu_rc_dot[:3], nu_rc[3:6], nu_rc_dot[3:6])


def grasp_regressor(f: np.ndarray, R: np.ndarray) -> np.ndarray:
    """``Y_d = skew(f) R`` (3, 3): torque about H gained from a grasp error ``d_hat - d`` (link frame).

    With the tug applying ``W = G(R d_hat)^{-1} W_hat`` at its true grasp ``d``, the wrench
    about H is ``W_hat + [0; Y_d (d_hat - d)]``.
    """
    return skew(f) @ R
