"""The two-link arm control problem of paper arXiv:2109.00407 section 6.4 as a tuning problem.

Interconnection (error feedback, eq. (24)): inputs ``r[0..1]`` (angle references) and
``T[0..1]`` (joint torques [N m]); outputs ``e = r - theta`` and ``To = T``. The LPV
controller ``T = K(s, tau) e`` is a 3-state ``TunableSS`` scheduled affinely by the
equilibrium angles' LFR variables ``t_i = tan(theta_i / 2)`` (eq. (25)), normalised to
[-1, 1] over the control ranges theta1 in [45, 90] deg, theta2 in [45, 135] deg.
Goals (eq. (27)): hard ``|| W_e S_o ||_inf <= 1`` with ``W_e = (s + 1)/(2 s + 0.02)``; soft
``min || W_T K S_o ||_inf`` with ``W_T = 1/1500``. The plant is satdyn.equilibrium's LFT
model of the arm (five +-20 % uncertain parameters, scheduling theta1, theta2); the
geometry (paper Fig. 3 is missing) is a named assumption, default ``"hanging"``.
"""

from __future__ import annotations

import numpy as np

from .. import lfr
from ..control.blocks import ScheduledBlock, TunableSS
from ..control.goals import Gain
from ..equilibrium import two_link_arm_lfr

__all__ = ["CONTROL_RANGES_DEG", "ARM_STRUCTURES", "arm_interconnection", "arm_goals", "arm_initial_controller",
           "arm_integral_initial_controller", "arm_controller_block"]

CONTROL_RANGES_DEG = {"theta1": (45.0, 90.0), "theta2": (45.0, 135.0)}
ERROR = ("e[0]", "e[1]")
TORQUE = ("T[0]", "T[1]")


def arm_interconnection(geometry: str = "hanging", g0=None):
    """The open-loop interconnection LFR and its parameters ``{name: Parameter}``."""
    ranges = {k: tuple(np.deg2rad(v)) for k, v in CONTROL_RANGES_DEG.items()}
    model = two_link_arm_lfr(geometry, g0, angle_ranges=ranges)
    G = model.plant[["theta_J1", "theta_J2"], ["T_J1", "T_J2"]]
    I2, Z2 = lfr.as_lfr(np.eye(2)), lfr.as_lfr(np.zeros((2, 2)))
    P = lfr.vstack([lfr.hstack([I2, -1.0 * G]), lfr.hstack([Z2, I2])])
    P = P.rename(inputs=["r[0]", "r[1]", *TORQUE], outputs=[*ERROR, "To[0]", "To[1]"])
    return P, dict(P.parameters)


def arm_goals():
    """(soft, hard) goals of eq. (27)."""
    import control

    We = control.tf([1.0, 1.0], [2.0, 0.02])
    hard = Gain(["r[0]", "r[1]"], list(ERROR), weight_out=We, hard=True, name="gamma1 |We So|")
    soft = Gain(["r[0]", "r[1]"], ["To[0]", "To[1]"], weight_out=1.0 / 1500.0, name="gamma2 |WT K So|")
    return soft, hard


ARM_STRUCTURES = ("integral", "tridiag")


def arm_initial_controller(kp=300.0, kd=100.0, a=20.0, lag=0.05, lag_gain=5.0):
    """Initial 3-state controller: a filtered PD per joint ``kp + kd a s / (s + a)`` plus one
    slow lag state on ``e1 + e2`` feeding both torques (design note section 5)."""
    A = np.diag([-a, -a, -lag])
    B = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    C = np.array([[-kd * a * a, 0.0, lag_gain], [0.0, -kd * a * a, lag_gain]])
    D = (kp + kd * a) * np.eye(2)
    return A, B, C, D


def arm_integral_initial_controller(kp=2300.0, ki=30.0, kd=100.0, a=20.0, direction=(0.0, 1.0)):
    """Initial 3-state controller with integral action: states 1, 2 integrate ``e1, e2``
    (``A`` rows zero, ``B`` rows the identity), state 3 a first-order lead ``-kd a^2 / (s + a)``
    on the error component along ``direction`` feeding back along the same direction;
    ``D = kp I`` (high-frequency gain of a filtered PD ``kp - kd a + kd a s / (s + a)``).
    The defaults (lead on joint 2, slow integral gain) stabilise all 297 points of the
    3 x 3 (theta1, theta2) x (nominal + 32 vertices) grid (hanging geometry)."""
    v = np.asarray(direction, float) / np.linalg.norm(direction)
    A = np.diag([0.0, 0.0, -a])
    B = np.vstack([np.eye(2), v])
    C = np.column_stack([ki * np.eye(2), -kd * a * a * v])
    D = kp * np.eye(2)
    return A, B, C, D


def _integral_ss(init):
    """3-state ``TunableSS`` whose states 1, 2 are integrators of ``e1, e2`` for every parameter
    value: ``A`` rows 1-2 and ``B`` rows 1-2 fixed (zero / identity), the third state's pole
    ``A[2, 2]``, its input row ``B[2, :]`` and all of ``C``, ``D`` tuned. With the scheduled
    surface the fixed entries are fixed in ``M0`` and zero in ``M1``, ``M2``, so
    ``K(s, tau)`` has a pole at ``s = 0`` in both error channels on the whole domain and
    ``S_o(0) = 0`` wherever the loop is stable and the integral gain
    ``C[:, :2] - C[:, 2] A[2, :2] / A[2, 2]`` is invertible (paper family: ``A(tau)`` with
    eigenvalues at 0)."""
    A, B, C, D = (np.asarray(m, float) for m in init)
    if np.any(A[:2] != 0) or np.any(A[2, :2] != 0) or not np.allclose(B[:2], np.eye(2)):
        raise ValueError("`init` of the integral structure must have A = diag(0, 0, a), B[:2] = I")
    names = TunableSS("K", 3, list(ERROR), list(TORQUE), structure="full", init=(A, B, C, D), balance=False).names
    fixed = {f"K.A[{i},{j}]" for i in range(3) for j in range(3) if (i, j) != (2, 2)}
    fixed |= {f"K.B[{i},{j}]" for i in range(2) for j in range(2)}
    free = np.array([n not in fixed for n in names])
    return TunableSS("K", 3, list(ERROR), list(TORQUE), structure="full", init=(A, B, C, D), balance=False,
                     free=free)


def arm_controller_block(parameters: dict, init=None, structure="tridiag", normalize=True):
    """The LPV controller S(tau) = M0 + tau1 M1 + tau2 M2.

    ``structure="tridiag"``: tridiagonal ``A`` (every entry of the band tuned), initial value
    :func:`arm_initial_controller`; ``"integral"``: two integrator states with fixed
    structure (:func:`_integral_ss`), initial value :func:`arm_integral_initial_controller`.
    """
    if structure not in ARM_STRUCTURES:
        raise ValueError(f"`structure` must be one of {ARM_STRUCTURES}; got {structure!r}")
    if structure == "integral":
        base = _integral_ss(arm_integral_initial_controller() if init is None else init)
    else:
        base = TunableSS("K", 3, list(ERROR), list(TORQUE), structure=structure,
                         init=arm_initial_controller() if init is None else init)
    return ScheduledBlock(base, (parameters["theta1"], parameters["theta2"]), normalize=normalize)
