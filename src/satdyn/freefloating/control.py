"""Computed-torque control and the joint-command generator of the paper's examples.

Paper Front. Robot. AI 5:41 (2018) eqs. (112)-(115) and §8.1 (implementation notes §7.2, §9 items 31-33):

* ū = K_D(q̇_D − q̇) + K_P(q_D − q) (eq. 112, as printed: **no** q̈_D feed-forward by
  default; ``feedforward=True`` adds q̈_D), τ = H̃ū + C̃ (eq. 115) with H̃, C̃ from an
  estimated model (default: the plant itself, the paper's perfect-model examples).
* Gains from torque limits K_P = τ_max/(q_D − q)_max, K_D = 2√K_P (eqs. 113-114; the
  printed "2K_P" lost its square root: critical damping).  The examples use K_P = K_D = 1.
* The one-joint-at-a-time rate command: +0.1 rad/s for 10 s, rest 2 s, −0.1 rad/s for
  20 s, rest 2 s, +0.1 rad/s for 10 s (44 s per joint); the shape of the acceleration, the
  gaps between joints and the settle time are not given in the paper and are parameters
  here (defaults: step changes of the rate, back-to-back joints, no settle).

Arguments (dimensions): ``t`` scalar or (T,) [s]; ``q``, ``qdot`` (..., N); ``H`` (..., N, N);
``C`` (..., N).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from .._validation import as_float_array
from .dynamics import reduced_terms
from .model import SpacecraftManipulator

__all__ = ["JointSequenceCommand", "ComputedTorqueController", "gains_from_torque_limits"]

PAPER_PHASES = ((1.0, 10.0), (0.0, 2.0), (-1.0, 20.0), (0.0, 2.0), (1.0, 10.0))


@dataclasses.dataclass(frozen=True)
class JointSequenceCommand:
    """Piecewise-constant joint-rate commands, one joint after the other (implementation notes §8.1).

    Attributes
    ----------
    n_joints : int
    joints : tuple of int
        Joints to move, in order (0-based); default all.
    rate : float
        Commanded rate magnitude [rad/s] (paper: 0.1).
    phases : tuple of (multiplier, duration [s])
        Rate profile of one joint cycle (paper: +1 for 10 s, 0 for 2 s, −1 for 20 s, 0 for 2 s, +1 for 10 s).
    gap : float
        Pause between consecutive joint cycles [s] (not given in the paper; default 0).
    settle : float
        Rest after the last cycle [s] (default 0).
    """

    n_joints: int
    joints: tuple = ()
    rate: float = 0.1
    phases: tuple = PAPER_PHASES
    gap: float = 0.0
    settle: float = 0.0

    def __post_init__(self):
        if int(self.n_joints) < 1:
            raise ValueError(f"`n_joints` must be >= 1; got {self.n_joints}")
        joints = tuple(range(self.n_joints)) if not self.joints else tuple(int(j) for j in self.joints)
        if any(not 0 <= j < self.n_joints for j in joints):
            raise ValueError(f"`joints` must be 0-based indices below {self.n_joints}; got {joints}")
        object.__setattr__(self, "joints", joints)
        if self.gap < 0 or self.settle < 0:
            raise ValueError("`gap` and `settle` must be non-negative")
        if any(d <= 0 for _, d in self.phases):
            raise ValueError("every phase duration must be positive")

    @property
    def cycle_duration(self) -> float:
        """Duration of one joint cycle [s] (44 s for the paper's profile)."""
        return float(sum(d for _, d in self.phases))

    def segments(self):
        """List of (joint, t_start, t_end, rate) of every constant-rate piece."""
        out, t = [], 0.0
        for n, j in enumerate(self.joints):
            if n:
                t += self.gap
            for mult, dur in self.phases:
                out.append((j, t, t + dur, mult * self.rate))
                t += dur
        return out

    @functools.cached_property
    def _segment_arrays(self):
        segs = self.segments()
        return (np.array([s[0] for s in segs], dtype=int), np.array([s[1] for s in segs]),
                np.array([s[2] for s in segs]), np.array([s[3] for s in segs]))

    @property
    def duration(self) -> float:
        """Total duration including gaps and the settle time [s]."""
        return len(self.joints) * self.cycle_duration + max(len(self.joints) - 1, 0) * self.gap + self.settle

    def breakpoints(self) -> np.ndarray:
        """Times where the rate command jumps (integrate piecewise between them)."""
        times = {0.0, self.duration}
        for _, t0, t1, _ in self.segments():
            times.update((t0, t1))
        return np.array(sorted(times))

    def cycle_windows(self):
        """(joint, t_start, t_end) of each joint cycle."""
        segs = self.segments()
        k = len(self.phases)
        return [(segs[i * k][0], segs[i * k][1], segs[i * k + k - 1][2]) for i in range(len(self.joints))]

    def reference(self, t):
        """Desired q_D, q̇_D, q̈_D at time(s) ``t`` (q̈_D = 0 between breakpoints).

        Returns
        -------
        qd, qd_dot, qd_ddot : ndarray, shape (..., N)
        """
        t = as_float_array(t, "t")[..., None]
        joint, t0, t1, rate = self._segment_arrays
        onehot = np.eye(self.n_joints)[joint] * rate[:, None]          # (S, N)
        q = np.clip(t - t0, 0.0, t1 - t0) @ onehot
        qdot = ((t >= t0) & (t < t1)).astype(float) @ onehot
        return q, qdot, np.zeros_like(q)


def gains_from_torque_limits(tau_max, error_max):
    """K_P = τ_max/(q_D − q)_max and K_D = 2√K_P (eqs. 113-114, critical damping).

    Returns
    -------
    kp, kd : ndarray, shape (N,)
    """
    tau_max = as_float_array(tau_max, "tau_max")
    error_max = as_float_array(error_max, "error_max")
    if np.any(tau_max <= 0) or np.any(error_max <= 0):
        raise ValueError("`tau_max` and `error_max` must be positive")
    kp = tau_max / error_max
    return kp, 2.0 * np.sqrt(kp)


@dataclasses.dataclass(frozen=True)
class ComputedTorqueController:
    """τ = H̃ū + C̃ with ū = K_D(q̇_D − q̇) + K_P(q_D − q) [+ q̈_D] (eqs. 112, 115).

    Attributes
    ----------
    command : JointSequenceCommand
    kp, kd : float or array (N,)
        Gains [1/s², 1/s] (paper examples: 1 and 1).
    feedforward : bool
        Add q̈_D (the prose of the paper; the printed eq. 112 has none).  Default False.
    model_estimate : SpacecraftManipulator or None
        Estimated model for H̃, C̃ (e.g. with fuel slosh mismatch); None = the plant (perfect model).
    """

    command: JointSequenceCommand
    kp: object = 1.0
    kd: object = 1.0
    feedforward: bool = False
    model_estimate: object = None

    def __post_init__(self):
        if not isinstance(self.command, JointSequenceCommand):
            raise TypeError(f"`command` must be a JointSequenceCommand; got {type(self.command).__name__}")
        for label, lowest in (("kp", "positive"), ("kd", "non-negative")):
            gain = as_float_array(getattr(self, label), label)
            if gain.ndim > 1 or np.any(gain <= 0.0 if lowest == "positive" else gain < 0.0):
                raise ValueError(f"`{label}` must be a {lowest} gain or a 1-D array of them; "
                                 f"got {getattr(self, label)!r}")
        if self.model_estimate is not None and not isinstance(self.model_estimate, SpacecraftManipulator):
            raise TypeError("`model_estimate` must be a SpacecraftManipulator or None; "
                            f"got {type(self.model_estimate).__name__}")

    def acceleration(self, t, q, qdot) -> np.ndarray:
        """ū of eq. (112), shape (..., N)."""
        qd, qd_dot, qd_ddot = self.command.reference(t)
        u = np.asarray(self.kd) * (qd_dot - qdot) + np.asarray(self.kp) * (qd - q)
        return u + qd_ddot if self.feedforward else u

    def torque(self, t, q, qdot, H, C) -> np.ndarray:
        """τ = H̃ū + C̃ (eq. 115); ``H``, ``C`` are the plant's (used when there is no estimate)."""
        u = self.acceleration(t, q, qdot)
        if self.model_estimate is not None:
            est = reduced_terms(self.model_estimate, q, qdot)
            H, C = est.H, est.C
        return np.einsum("...ij,...j->...i", H, u) + C
