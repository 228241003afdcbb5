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

from .blocks import ScheduledBlock, TunableSS
from .goals import Gain

__all__ = ["CONTROL_RANGES_DEG", "arm_interconnection", "arm_goals", "arm_initial_controller", "arm_controller_block"]

CONTROL_RANGES_DEG = {"theta1": (45.0, 90.0), "theta2": (45.0, 135.0)}
ERROR = ("e[0]", "e[1]")
TORQUE = ("T[0]", "T[1]")


def arm_interconnection(geometry: str = "hanging", g0=None):
    """The open-loop interconnection LFR and its parameters ``{name: Parameter}``."""
    from .. import lfr
    from ..equilibrium import two_link_arm_lfr

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


def arm_initial_controller(kp=300.0, kd=100.0, a=20.0, lag=0.05, lag_gain=5.0):
    """Initial 3-state controller: a filtered PD per joint ``kp + kd a s / (s + a)`` plus one
    slow lag state on ``e1 + e2`` feeding both torques (design note section 5)."""
    A = np.diag([-a, -a, -lag])
    B = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    C = np.array([[-kd * a * a, 0.0, lag_gain], [0.0, -kd * a * a, lag_gain]])
    D = (kp + kd * a) * np.eye(2)
    return A, B, C, D


def arm_controller_block(parameters: dict, init=None, structure="tridiag", normalize=True):
    """The LPV controller S(tau) = M0 + tau1 M1 + tau2 M2 (75 reals with structure="full")."""
    base = TunableSS("K", 3, list(ERROR), list(TORQUE), structure=structure,
                     init=arm_initial_controller() if init is None else init)
    return ScheduledBlock(base, (parameters["theta1"], parameters["theta2"]), normalize=normalize)
