"""The tugs' physical limits: their mass, and 6 thrusters of bounded force each (arXiv:2407.17617).

arXiv:2407.17617 treats the tugs as ideal wrench sources of no mass. Here a tug is

* a rigid body of mass ``mass`` [kg] and inertia ``inertia`` [kg m^2] (about its centre of mass,
  in its link's frame) lumped at its grasp point: once it grasps, it is part of that link
  (:func:`with_tug_masses`; the adaptive tugs then estimate the parameters of link + tug);
* six thrusters fixed to it, thruster ``k`` of axis ``a = k // 2`` pushing along ``e_a`` from
  ``+-arm e_{a+1}``: the pair sum is a force along ``e_a``, the difference a torque about
  ``e_{a+2}``. Each delivers a thrust in ``[-max_thrust, max_thrust]`` (a throttled reversible
  thruster, or an opposed pair). The allocation matrix ``B`` (6x6, invertible) maps thrusts to
  the wrench ``[f; tau]`` about the grasp point in the tug (link) frame.

:meth:`TugModel.allocate` solves the bounded least-squares problem

    u* = argmin_{|u_k| <= max_thrust} |N (B u - w)|,   N = diag(1, 1, 1, 1/arm, 1/arm, 1/arm),

(torques divided by the arm so that force and torque errors are both in newtons): ``u* = B^-1 w``
when that is within the bounds (the demanded wrench is delivered exactly); otherwise scipy's
bounded-variable least squares gives the closest deliverable wrench. For this layout the
columns of ``N B`` are orthogonal with equal norms (``N B = sqrt(2) O``, ``O`` orthogonal), so the
weighted problem is isotropic in ``u`` and its solution is ``clip(B^-1 w, +-max_thrust)``:
:meth:`TugModel.deliver` (the simulation's hot path) uses that closed form, and the tests check
it against the BVLS solution. A saturated loop has no stability proof (V may increase); the
study reports how the settling times change.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy.optimize import lsq_linear

from ..spatial import composite_inertia
from .client import ClientParams, LinkParams

__all__ = ["TugModel", "with_tug_masses", "tug_body"]


@dataclass(frozen=True)
class TugModel:
    """One tug's mass properties and thrusters.

    Attributes
    ----------
    mass : float
        [kg], >= 0 (0: massless, as in arXiv:2407.17617).
    inertia : ndarray, shape (3, 3)
        About the tug's centre of mass (at the grasp point), link frame [kg m^2].
    arm : float
        Lever arm of the thrusters [m], > 0.
    max_thrust : float
        Largest thrust of each of the 6 thrusters [N], > 0 (``inf``: no saturation).
    """

    mass: float = 0.0
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))
    arm: float = 1.0
    max_thrust: float = np.inf

    def __post_init__(self):
        if not (np.isfinite(self.mass) and self.mass >= 0):
            raise ValueError(f"`mass` must be a finite number >= 0 [kg]; got {self.mass!r}")
        J = np.asarray(self.inertia, dtype=float)
        if J.shape != (3, 3) or not np.all(np.isfinite(J)) or not np.allclose(J, J.T) \
                or np.linalg.eigvalsh(J)[0] < -1e-12 * max(1.0, np.abs(J).max()):
            raise ValueError("`inertia` must be a symmetric positive semi-definite (3, 3) matrix [kg m^2]")
        if not (np.isfinite(self.arm) and self.arm > 0):
            raise ValueError(f"`arm` must be a positive finite length [m]; got {self.arm!r}")
        if not (self.max_thrust > 0):
            raise ValueError(f"`max_thrust` must be positive [N] (inf: unlimited); got {self.max_thrust!r}")
        object.__setattr__(self, "inertia", J.copy())
        B = np.zeros((6, 6))
        for axis in range(3):
            e = np.eye(3)[axis]
            for k, side in enumerate((1.0, -1.0)):
                r = side * self.arm * np.eye(3)[(axis + 1) % 3]
                B[:3, 2 * axis + k] = e
                B[3:, 2 * axis + k] = np.cross(r, e)
        object.__setattr__(self, "_B", B)
        object.__setattr__(self, "_B_inv", np.linalg.inv(B))
        object.__setattr__(self, "_row_scale", np.r_[np.ones(3), np.full(3, 1.0 / self.arm)])

    @property
    def allocation_matrix(self) -> np.ndarray:
        """``B`` (6, 6): wrench ``[f; tau]`` about the grasp point (tug frame) per newton of each thrust."""
        return self._B

    @property
    def saturates(self) -> bool:
        return bool(np.isfinite(self.max_thrust))

    def allocate(self, wrench: np.ndarray) -> np.ndarray:
        """Thrusts (6,) [N] delivering the tug-frame ``wrench`` (6,) [N, N m], or the closest within bounds."""
        u = self._B_inv @ wrench
        if not self.saturates or np.abs(u).max() <= self.max_thrust:
            return u
        N = self._row_scale[:, None]
        return lsq_linear(N * self._B, self._row_scale * wrench, bounds=(-self.max_thrust, self.max_thrust),
                          method="bvls").x

    def deliver(self, wrench_world: np.ndarray, R: np.ndarray) -> np.ndarray:
        """The world-frame wrench (6,) the thrusters deliver for the demanded ``wrench_world`` (6,);
        ``R`` (3, 3) the tug's (link's) attitude."""
        if not self.saturates:
            return wrench_world
        body = np.concatenate([R.T @ wrench_world[:3], R.T @ wrench_world[3:]])
        u = self._B_inv @ body
        if np.abs(u).max() <= self.max_thrust:
            return wrench_world
        # N B = sqrt(2) x orthogonal: the bounded least-squares solution is the clipped inverse
        w = self._B @ np.clip(u, -self.max_thrust, self.max_thrust)
        return np.concatenate([R @ w[:3], R @ w[3:]])


def tug_body(link: LinkParams, tug: TugModel, grasp: np.ndarray) -> LinkParams:
    """``link`` with ``tug`` rigidly attached at ``grasp`` (3,) [m] (link frame): the composite body."""
    if tug.mass == 0 and not tug.inertia.any():
        return link
    m, com, inertia = composite_inertia(np.array([link.mass, tug.mass]), np.stack([link.com, grasp]),
                                        np.stack([link.inertia_com, tug.inertia]))
    return LinkParams(float(m), com, inertia)


def with_tug_masses(client: ClientParams, tugs: tuple[TugModel, TugModel]) -> ClientParams:
    """The client with tug 1 lumped into Link-1 at ``grasp1`` and tug 2 into Link-2 at ``grasp2``."""
    if len(tugs) != 2 or not all(isinstance(t, TugModel) for t in tugs):
        raise TypeError("`tugs` must be a pair of TugModel")
    return replace(client, link1=tug_body(client.link1, tugs[0], client.grasp1),
                   link2=tug_body(client.link2, tugs[1], client.grasp2),
                   name=f"{client.name} + tugs")
