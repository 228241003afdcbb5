"""Baseline PD attitude controller and the frozen closed loops (paper 000 section 3.2.1, Fig. 10).

Controller (eq. 15): u = K_att [Theta_G; omega_G] with K_att = [-w^2 J, -2 xi w J],
w = omega_att = 2 pi 0.01 rad/s (the paper's "0.01 Hz"), xi = 1, and J = J_tot, the
hub-referred inertia of the design configuration, taken as the inverse of the DC gain of
the torque T_ext/B,G -> omega'_G of that model (the paper's Fig. 9 remark: the static gain
is 1 / J_xx).  The same gain serves every edge.

Closed loop of one frozen plant (states x, then theta (3) and omega_s (3) with
theta' = omega_s, omega_s' = omega'_G):

    e_t = d_t + k theta + c omega_s          (total torque on the hub)
    inputs  [w_omega (r); W at C_port (6); d_t (3)]
    outputs [z_omega (r); omega'_G (3); Theta_G = theta (3); e_t (3)]

No algebraic loop (u depends on integrator states only).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...lfr import StateSpaceBatch
from .models import PlantChannels

__all__ = ["AttitudeController", "closed_loop", "design_inertia", "ClosedLoopChannels", "dc_gain"]


@dataclass(frozen=True)
class AttitudeController:
    """PD attitude law K_att = [-w^2 J, -2 xi w J].

    Attributes
    ----------
    inertia : ndarray (3, 3) [kg m^2], J_tot of the design configuration
    omega : float [rad/s] (default 2 pi 0.01)
    damping : float (default 1)
    """

    inertia: np.ndarray
    omega: float = 2.0 * np.pi * 0.01
    damping: float = 1.0

    def __post_init__(self):
        J = np.asarray(self.inertia, dtype=float)
        if J.shape != (3, 3) or not np.all(np.isfinite(J)):
            raise ValueError(f"`inertia` must be a finite (3, 3) matrix [kg m^2]; got shape {J.shape}")
        if (not np.allclose(J, J.T, rtol=1e-8, atol=1e-12 * np.abs(J).max())
                or np.linalg.eigvalsh(0.5 * (J + J.T)).min() <= 0):
            raise ValueError("`inertia` must be symmetric positive definite")
        if not (np.isfinite(self.omega) and self.omega > 0):
            raise ValueError(f"`omega` must be a positive frequency [rad/s]; got {self.omega!r}")
        if not (np.isfinite(self.damping) and self.damping > 0):
            raise ValueError(f"`damping` must be positive; got {self.damping!r}")
        object.__setattr__(self, "inertia", 0.5 * (J + J.T))

    @property
    def k(self) -> np.ndarray:
        """Angle gain -w^2 J [N m / rad]."""
        return -self.omega ** 2 * self.inertia

    @property
    def c(self) -> np.ndarray:
        """Rate gain -2 xi w J [N m s / rad]."""
        return -2.0 * self.damping * self.omega * self.inertia


@dataclass(frozen=True)
class ClosedLoopChannels:
    """Index slices of the closed loop's inputs and outputs."""

    r: int

    w = property(lambda s: slice(0, s.r))
    W = property(lambda s: slice(s.r, s.r + 6))
    d = property(lambda s: slice(s.r + 6, s.r + 9))
    z = property(lambda s: slice(0, s.r))
    omega_dot = property(lambda s: slice(s.r, s.r + 3))
    theta = property(lambda s: slice(s.r + 3, s.r + 6))
    e = property(lambda s: slice(s.r + 6, s.r + 9))


def dc_gain(batch) -> np.ndarray:
    """Static gain D - C A^-1 B of each system (N, p, m) (the plants have no integrators)."""
    return batch.D - batch.C @ np.linalg.solve(batch.A, batch.B)


def design_inertia(plant: StateSpaceBatch, channels: PlantChannels, *, mode: str = "dc") -> np.ndarray:
    """J_tot from the first system of ``plant``: [DC gain T_G -> omega'_G]^-1 (mode "dc")."""
    if mode != "dc":
        raise ValueError(f"`mode` must be 'dc'; got {mode!r}")
    G0 = dc_gain(StateSpaceBatch(plant.A[:1], plant.B[:1], plant.C[:1], plant.D[:1]))[0]
    J = np.linalg.inv(G0[channels.omega_dot, channels.torque_G])
    return 0.5 * (J + J.T)


def closed_loop(plant: StateSpaceBatch, channels: PlantChannels,
                controller: AttitudeController) -> tuple[StateSpaceBatch, ClosedLoopChannels]:
    """Close the attitude loop around every frozen plant (module docstring); vectorised."""
    A, B, C, D = plant.A, plant.B, plant.C, plant.D
    N, n = A.shape[:2]
    r = channels.r
    w, T, W = channels.w, channels.torque_G, channels.wrench_C
    z, a = channels.z, channels.omega_dot
    k, c = controller.k, controller.c
    BT, DaT, DzT = B[:, :, T], D[:, a, T], D[:, z, T]
    KK = np.concatenate([k, c], axis=1)                         # (3, 6): e = d + KK [theta; omega_s]
    nc = n + 6
    Acl = np.zeros((N, nc, nc))
    Acl[:, :n, :n] = A
    Acl[:, :n, n:] = BT @ KK
    Acl[:, n:n + 3, n + 3:] = np.eye(3)
    Acl[:, n + 3:, :n] = C[:, a]
    Acl[:, n + 3:, n:] = DaT @ KK
    m = r + 9
    Bcl = np.zeros((N, nc, m))
    Bcl[:, :n, :r], Bcl[:, :n, r:r + 6], Bcl[:, :n, r + 6:] = B[:, :, w], B[:, :, W], BT
    Bcl[:, n + 3:, :r], Bcl[:, n + 3:, r:r + 6], Bcl[:, n + 3:, r + 6:] = D[:, a, w], D[:, a, W], DaT
    p = r + 9
    Ccl = np.zeros((N, p, nc))
    Ccl[:, :r, :n], Ccl[:, :r, n:] = C[:, z], DzT @ KK
    Ccl[:, r:r + 3, :n], Ccl[:, r:r + 3, n:] = C[:, a], DaT @ KK
    Ccl[:, r + 3:r + 6, n:n + 3] = np.eye(3)
    Ccl[:, r + 6:, n:] = KK
    Dcl = np.zeros((N, p, m))
    Dcl[:, :r, :r], Dcl[:, :r, r:r + 6], Dcl[:, :r, r + 6:] = D[:, z, w], D[:, z, W], DzT
    Dcl[:, r:r + 3, :r], Dcl[:, r:r + 3, r:r + 6], Dcl[:, r:r + 3, r + 6:] = D[:, a, w], D[:, a, W], DaT
    Dcl[:, r + 6:, r + 6:] = np.eye(3)
    ins = tuple(f"w_omega[{i}]" for i in range(r)) + tuple(f"W_C[{i}]" for i in range(6)) + \
        tuple(f"d_t[{i}]" for i in range(3))
    outs = tuple(f"z_omega[{i}]" for i in range(r)) + tuple(f"omega_dot_G[{i}]" for i in range(3)) + \
        tuple(f"Theta_G[{i}]" for i in range(3)) + tuple(f"e_t[{i}]" for i in range(3))
    return StateSpaceBatch(Acl, Bcl, Ccl, Dcl, ins, outs), ClosedLoopChannels(r)
