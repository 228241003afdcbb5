"""The usual workflow the LFT route replaces: numerical trim + finite-difference
linearisation of the NON-LINEAR arm, one configuration at a time.

The non-linear model is satdyn's own multibody dynamics (:mod:`satdyn.multibody`, the
articulated-body forward dynamics of arXiv:2505.03248), built from the same :class:`TwoLinkArm`
data: a fixed massless ground, links ``B1``, ``B2`` on revolute joints about +x, the point
mass ``B3`` welded at the tip of ``B2``. Springs ``Kp`` (rest at the equilibrium) and
dampers ``Kd`` act through the joint torques.

Arguments used below
--------------------
arm : TwoLinkArm
theta : (2,)   equilibrium angles [rad]
step : float   central-difference step on states [rad, rad/s] and torques (scaled) [N m]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.optimize

from .arm import TwoLinkArm

__all__ = ["multibody_arm", "MultibodyTrim", "multibody_trim_linearise"]


def multibody_arm(arm: TwoLinkArm):
    """The arm as a :class:`satdyn.multibody.Model` (gravity ``(0, 0, -g0)``)."""
    from .. import multibody as mb

    e = arm.link_direction
    b = mb.ModelBuilder(gravity=[0.0, 0.0, -arm.g0], name="two_link_arm")
    b.add_body(mb.body("ground", 0.0, ports={"J1": [0.0, 0.0, 0.0]}), mb.fixed_root())
    # The joint rotor (arXiv:2109.00407 eq. 7) is a massless inertia about the axis carried by the child.
    link = np.diag([1.0, 0.0, 0.0])
    b.add_body(mb.body("B1", arm.m1, com=arm.rho1 * arm.L1 * e, inertia=(arm.J1 + arm.rotor_inertia) * link,
                       ports={"C1": arm.L1 * e}),
               mb.revolute_joint("J1", [1.0, 0.0, 0.0]), parent="ground", port="J1")
    b.add_body(mb.body("B2", arm.m2, com=arm.rho2 * arm.L2 * e, inertia=(arm.J2 + arm.rotor_inertia) * link,
                       ports={"C2": arm.L2 * e}),
               mb.revolute_joint("J2", [1.0, 0.0, 0.0]), parent="B1", port="C1")
    if arm.m3 > 0.0:
        b.add_body(mb.body("B3", arm.m3), mb.weld_joint("W3"), parent="B2", port="C2")
    return b.build()


@dataclass(frozen=True)
class MultibodyTrim:
    """Numerical trim + central-difference linearisation at one configuration.

    Attributes
    ----------
    theta : (2,) [rad]; torque : (2,) trim torques [N m]; residual : max |acceleration| at the trim
    A (4, 4), B (4, 2): states ``[dtheta; dtheta']``, inputs ``dT``
    """

    theta: np.ndarray
    torque: np.ndarray
    residual: float
    A: np.ndarray
    B: np.ndarray


def multibody_trim_linearise(arm: TwoLinkArm, theta, *, model=None, step: float = 1e-5) -> MultibodyTrim:
    """Trim the non-linear arm at ``theta`` (root finding on the forward dynamics for the
    holding torques) and linearise it by central differences (one batched call)."""
    from .. import multibody as mb

    theta = np.asarray(theta, dtype=float)
    if theta.shape != (2,) or not np.all(np.isfinite(theta)):
        raise ValueError(f"theta must be 2 finite angles [rad], got {theta!r}")
    model = multibody_arm(arm) if model is None else model
    zero = np.zeros(2)

    def accel(q, v, torque):
        # Joint spring at rest at the equilibrium, joint damper.
        return mb.forward_dynamics(model, q, v, torque - arm.stiffness * (q - theta) - arm.damping * v)

    sol = scipy.optimize.root(lambda u: accel(theta, zero, u), zero, method="hybr", tol=1e-13)
    torque = sol.x
    hu = step * max(1.0, float(np.abs(torque).max()))
    E = np.eye(4) * step
    q = np.concatenate([theta + E[:, :2], theta - E[:, :2], np.tile(theta, (4, 1))])
    v = np.concatenate([E[:, 2:], -E[:, 2:], np.zeros((4, 2))])
    U = np.eye(2) * hu
    u = np.concatenate([np.tile(torque, (8, 1)), torque + U, torque - U])
    a = accel(q, v, u)
    f = np.concatenate([v, a], axis=1)  # state derivative [q'; v']
    A = ((f[:4] - f[4:8]) / (2 * step)).T
    B = ((f[8:10] - f[10:12]) / (2 * hu)).T
    residual = float(np.abs(accel(theta, zero, torque)).max())
    return MultibodyTrim(theta=theta, torque=torque, residual=residual, A=A, B=B)
