"""Base actuators of the maneuvering modes: reaction wheels and thrusters, with their allocation.

Front. Robot. AI 5:41 (2018), Table 1: in **rotation-floating** the base attitude is controlled by
reaction wheels (internal torques; system momentum, wheels included, is conserved, the GJM
still applies); in the **flying** modes thrusters apply an external base wrench.

* :class:`ReactionWheelArray`: W wheels with spin axes aᵢ (base frame) and motor-torque limits.
  Wheel dynamics: the motor torque uᵢ changes the wheel's stored momentum, ḣ_w = A u
  (A = [a₁ … a_W], 3×W), and reacts on the base with n_w = −d/dt(R₀h_w) = −ω₀×(R₀h_w) − R₀A u
  (inertial frame; the simulator integrates h_w and adds n_w, :func:`satdyn.freefloating.base_wrench`).
  :meth:`ReactionWheelArray.allocate` finds the motor torques for a demanded ḣ_w by bounded
  least squares (exact when feasible, saturated otherwise).
* :class:`ThrusterSet`: T thrusters at base-frame points rᵢ (from the base CoM) with unit
  directions dᵢ and thrust bounds [f_minᵢ, f_maxᵢ] (f_min = 0: single-sided).  The body-frame
  wrench is B f with B = [[dᵢ], [rᵢ × dᵢ]] (6×T); :meth:`ThrusterSet.allocate` solves
  min ‖B f − w‖ subject to the bounds (scipy ``lsq_linear``, BVLS).
* :class:`AttitudeController`: PD on the quaternion error, n = −I(ωₙ² θ + 2ζωₙ ω_b) in the base
  frame, the torque the wheels are asked to produce in rotation-floating.
* :func:`wheel_attitude_control`, :func:`thruster_wrench`: the callables ``(t, state)`` that
  :func:`satdyn.freefloating.simulate` takes as ``wheel_torque`` / ``base_wrench``.

Full-layout simulation state (what the callables receive): y = [r₀ (3), q̄₀ (4, scalar-last),
v₀ (3), ω₀ (3) (inertial), q (N), q̇ (N), h_w (3, base frame)].
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.optimize import lsq_linear

from .._validation import as_batch_of, as_float_array
from ..spatial import dcm_from_quaternion, quaternion_conjugate, quaternion_multiply
from .modes import as_mode

__all__ = ["ReactionWheelArray", "WheelAllocation", "ThrusterSet", "ThrustAllocation", "AttitudeController",
           "wheel_attitude_control", "thruster_wrench"]


def _bounded_least_squares(B, target, lower, upper):
    """min ‖B x − target‖ s.t. lower ≤ x ≤ upper.

    The minimum-norm least-squares solution when it respects the bounds (the usual case, and
    cheap), else BVLS (exact active set; small problems).
    """
    x = np.linalg.lstsq(B, target, rcond=None)[0]
    if np.all(x >= lower) and np.all(x <= upper):
        return x
    return lsq_linear(B, target, bounds=(lower, upper), method="bvls", tol=1e-12).x


def _unit_rows(x, name):
    x = as_batch_of(x, (3,), name)
    if x.ndim != 2 or x.shape[0] < 1:
        raise ValueError(f"`{name}` must have shape (K, 3) with K >= 1; got {x.shape}")
    norms = np.linalg.norm(x, axis=1)
    if np.any(norms <= 0.0) or not np.all(np.isfinite(norms)):
        raise ValueError(f"`{name}` rows must be finite non-zero vectors")
    return x / norms[:, None]


def _limits(value, k, name, *, positive=True):
    v = np.broadcast_to(as_float_array(value, name), (k,)).astype(float) if np.ndim(value) == 0 else \
        as_float_array(value, name)
    if v.shape != (k,):
        raise ValueError(f"`{name}` must be a scalar or have shape ({k},); got {v.shape}")
    if positive and not np.all(v > 0.0):
        raise ValueError(f"`{name}` must be positive; got {v!r}")
    return v


@dataclasses.dataclass(frozen=True)
class WheelAllocation:
    """Motor torques u (W,) [N m], the momentum rate they give ḣ_w = A u (3,) and whether any saturates."""

    wheel_torques: np.ndarray
    momentum_rate: np.ndarray
    saturated: bool


@dataclasses.dataclass(frozen=True, eq=False)
class ReactionWheelArray:
    """W reaction wheels fixed in the base.

    Attributes
    ----------
    axes : ndarray, shape (W, 3)
        Spin axes in the base frame (normalised on construction).
    max_torque : ndarray, shape (W,)
        Motor torque limits |uᵢ| ≤ max_torqueᵢ [N m] (a scalar is broadcast).
    """

    axes: np.ndarray
    max_torque: np.ndarray

    def __post_init__(self):
        axes = _unit_rows(self.axes, "axes")
        if np.linalg.matrix_rank(axes) < 3:
            raise ValueError("`axes` must span 3-D space (at least three independent wheel axes)")
        object.__setattr__(self, "axes", axes)
        object.__setattr__(self, "max_torque", _limits(self.max_torque, axes.shape[0], "max_torque"))

    @property
    def n_wheels(self) -> int:
        return self.axes.shape[0]

    @property
    def torque_matrix(self) -> np.ndarray:
        """A (3, W): ḣ_w = A u."""
        return self.axes.T

    def allocate(self, momentum_rate) -> WheelAllocation:
        """Motor torques for a demanded wheel-momentum rate ḣ_w (3,) [N m], base frame.

        Bounded least squares: reproduces the demand exactly when it is reachable within the
        torque limits (the minimum-norm motor torques when those are within the limits),
        otherwise the closest reachable ḣ_w.
        """
        d = as_batch_of(momentum_rate, (3,), "momentum_rate")
        if d.shape != (3,):
            raise ValueError(f"`momentum_rate` must have shape (3,); got {d.shape}")
        u = _bounded_least_squares(self.torque_matrix, d, -self.max_torque, self.max_torque)
        saturated = bool(np.any(np.abs(u) >= self.max_torque * (1.0 - 1e-9)))
        return WheelAllocation(u, self.torque_matrix @ u, saturated)


@dataclasses.dataclass(frozen=True)
class ThrustAllocation:
    """Thrusts f (T,) [N], the body-frame wrench B f (6,) they give, the residual ‖B f − w‖, feasibility."""

    thrusts: np.ndarray
    wrench: np.ndarray
    residual: float
    feasible: bool


@dataclasses.dataclass(frozen=True, eq=False)
class ThrusterSet:
    """T thrusters fixed on the base.

    Attributes
    ----------
    positions : ndarray, shape (T, 3)
        Points of application, base frame, from the base CoM [m].
    directions : ndarray, shape (T, 3)
        Directions of the force on the base (normalised on construction).
    max_thrust : ndarray, shape (T,)
        Upper bounds [N] (a scalar is broadcast).
    min_thrust : ndarray, shape (T,)
        Lower bounds [N], default 0 (single-sided thrusters); must be < max_thrust.
    """

    positions: np.ndarray
    directions: np.ndarray
    max_thrust: np.ndarray
    min_thrust: np.ndarray = 0.0

    def __post_init__(self):
        d = _unit_rows(self.directions, "directions")
        r = as_batch_of(self.positions, (3,), "positions")
        if r.shape != d.shape:
            raise ValueError(f"`positions` must have shape {d.shape} (one point per direction); got {r.shape}")
        hi = _limits(self.max_thrust, d.shape[0], "max_thrust")
        lo = _limits(self.min_thrust, d.shape[0], "min_thrust", positive=False)
        if not np.all(lo < hi):
            raise ValueError("`min_thrust` must be below `max_thrust` for every thruster")
        for name, value in (("positions", r), ("directions", d), ("max_thrust", hi), ("min_thrust", lo)):
            object.__setattr__(self, name, np.array(value, dtype=float))

    @property
    def n_thrusters(self) -> int:
        return self.directions.shape[0]

    @property
    def wrench_matrix(self) -> np.ndarray:
        """B (6, T): body-frame [force; torque about the base CoM] per unit thrust."""
        return np.concatenate([self.directions.T, np.cross(self.positions, self.directions).T], axis=0)

    def allocate(self, wrench, tolerance: float = 1e-9) -> ThrustAllocation:
        """Thrusts for a demanded body-frame base wrench [f; n] (6,) [N, N m].

        ``feasible`` is True when the residual is below ``tolerance`` × max(1, ‖w‖); otherwise
        the thrusts are the bounded least-squares (saturated) best fit.
        """
        w = as_batch_of(wrench, (6,), "wrench")
        if w.shape != (6,):
            raise ValueError(f"`wrench` must have shape (6,); got {w.shape}")
        B = self.wrench_matrix
        f = _bounded_least_squares(B, w, self.min_thrust, self.max_thrust)
        achieved = B @ f
        residual = float(np.linalg.norm(achieved - w))
        return ThrustAllocation(f, achieved, residual, residual <= tolerance * max(1.0, float(np.linalg.norm(w))))


@dataclasses.dataclass(frozen=True)
class AttitudeController:
    """PD base-attitude law n_b = −I (ωₙ² θ + 2ζωₙ ω_b), θ the rotation vector of the error (base frame).

    Attributes
    ----------
    target_quaternion : ndarray, shape (4,)
        Desired base attitude, scalar-last.
    inertia : ndarray, shape (3, 3)
        Inertia scaling the gains [kg m²] (e.g. the locked system inertia about its CoM).
    natural_frequency : float [rad/s]
    damping_ratio : float
    """

    target_quaternion: np.ndarray
    inertia: np.ndarray
    natural_frequency: float
    damping_ratio: float = 1.0

    def __post_init__(self):
        q = as_batch_of(self.target_quaternion, (4,), "target_quaternion")
        if q.shape != (4,) or not np.linalg.norm(q) > 0:
            raise ValueError("`target_quaternion` must be a non-zero (4,) quaternion [x, y, z, w]")
        inertia = as_batch_of(self.inertia, (3, 3), "inertia")
        if inertia.shape != (3, 3) or np.any(np.linalg.eigvalsh(0.5 * (inertia + inertia.T)) <= 0):
            raise ValueError("`inertia` must be a (3, 3) positive definite matrix")
        for name in ("natural_frequency", "damping_ratio"):
            if not float(getattr(self, name)) > 0:
                raise ValueError(f"`{name}` must be positive; got {getattr(self, name)!r}")
        object.__setattr__(self, "target_quaternion", q / np.linalg.norm(q))
        object.__setattr__(self, "inertia", inertia)

    def torque(self, quaternion, body_angular_velocity) -> np.ndarray:
        """Demanded base torque (3,) [N m] in the base frame."""
        q_err = quaternion_multiply(quaternion_conjugate(self.target_quaternion), quaternion)
        vec = (np.sign(q_err[3]) or 1.0) * q_err[:3]           # shortest rotation
        norm = np.linalg.norm(vec)
        # atan2, not arccos(w): well conditioned near zero error (arccos loses half the digits)
        theta = vec * (2.0 * np.arctan2(norm, abs(q_err[3])) / norm) if norm > 1e-300 else 2.0 * vec
        wn, z = float(self.natural_frequency), float(self.damping_ratio)
        return -self.inertia @ (wn ** 2 * theta + 2.0 * z * wn * np.asarray(body_angular_velocity, dtype=float))


def _base_state(y):
    quat = np.asarray(y[3:7], dtype=float)
    quat = quat / np.linalg.norm(quat)
    R0 = dcm_from_quaternion(quat)
    return quat, R0, R0.T @ np.asarray(y[10:13], dtype=float)


def wheel_attitude_control(wheels, controller):
    """``wheel_torque(t, state) -> ḣ_w`` (3,) for :func:`simulate` in rotation-floating.

    The wheels are asked for the base torque n_b of ``controller``: the reaction on the base in
    the base frame is −ḣ_w − ω_b×h_w, so the demand is ḣ_w = −n_b − ω_b×h_w, allocated within the
    motor limits (:meth:`ReactionWheelArray.allocate`).
    """
    if not isinstance(wheels, ReactionWheelArray):
        raise TypeError(f"`wheels` must be a ReactionWheelArray; got {type(wheels).__name__}")
    if not isinstance(controller, AttitudeController):
        raise TypeError(f"`controller` must be an AttitudeController; got {type(controller).__name__}")

    def wheel_torque(t, y):
        quat, _, w_body = _base_state(y)
        hw = np.asarray(y[-3:], dtype=float)
        demand = -controller.torque(quat, w_body) - np.cross(w_body, hw)
        return wheels.allocate(demand).momentum_rate

    return wheel_torque


def thruster_wrench(thrusters, demand, mode="flying"):
    """``base_wrench(t, state) -> (force, torque)`` (inertial) for :func:`simulate` in a flying mode.

    Parameters
    ----------
    thrusters : ThrusterSet
    demand : callable ``(t, state) -> (6,)`` or array_like (6,)
        Demanded [force; torque about the base CoM] in the inertial frame [N, N m]; rotated into
        the base frame, allocated within the thrust bounds, and the achieved wrench rotated back.
    mode : {"flying", "rotation-flying", "translation-flying"}
        The simulation's mode. In the rotation- (translation-) flying modes the allocation's
        round-off force (torque), at most 1e-9 of the wrench, is set to exactly zero as the mode
        requires; a larger one (the thrusters cannot produce a pure torque/force) raises
        ``ValueError`` during the simulation.
    """
    if not isinstance(thrusters, ThrusterSet):
        raise TypeError(f"`thrusters` must be a ThrusterSet; got {type(thrusters).__name__}")
    mode = as_mode(mode)
    if not (mode.allows_force or mode.allows_torque):
        raise ValueError(f"`mode` must be a flying mode (thrusters apply an external wrench); got {mode.value!r}")
    if not callable(demand):
        constant = as_batch_of(demand, (6,), "demand")
        if constant.shape != (6,):
            raise ValueError(f"`demand` must be callable or have shape (6,); got {constant.shape}")
        demand = lambda t, y: constant  # noqa: E731

    def base_wrench(t, y):
        _, R0, _ = _base_state(y)
        w = np.asarray(demand(t, y), dtype=float)
        achieved = thrusters.allocate(np.concatenate([R0.T @ w[:3], R0.T @ w[3:]])).wrench
        scale = 1e-9 * max(1.0, float(np.linalg.norm(achieved)))
        for allowed, part, what in ((mode.allows_force, slice(0, 3), "force"), (mode.allows_torque, slice(3, 6),
                                                                                 "torque")):
            if not allowed:
                if np.linalg.norm(achieved[part]) > scale:
                    raise ValueError(f"the thrusters give a base {what} of {achieved[part].tolist()} that mode "
                                     f"{mode.value!r} forbids: the demand is not reachable as a pure wrench")
                achieved[part] = 0.0
        return R0 @ achieved[:3], R0 @ achieved[3:]

    return base_wrench
