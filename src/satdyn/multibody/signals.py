"""The signals of the causal TITOP blocks (arXiv:2505.03248 §2–3): motion vectors and wrenches.

Both are small frozen dataclasses that name their frame and point; ``np.asarray`` of either
gives the flat array the blocks compute with, so the blocks of :mod:`satdyn.multibody.blocks`
accept either form.

* :class:`Wrench` (6): ``[F; T]`` -- force [N] and moment about ``point`` [N m], components in
  ``frame``.
* :class:`MotionVector` (18), the paper's ``m_P`` (its §1.4 layout):

  ======  ===============================================================
  0:6     spatial acceleration ``[v_dot_P; omega_dot]`` (body-frame derivative) [m/s^2, rad/s^2]
  6:12    twist ``[v_P; omega]`` [m/s, rad/s]
  12:15   ``[IP]_frame``: position of P from the inertial origin, in ``frame`` [m]
  15:18   Euler angles of the body [rad] in the order of ``sequence`` (not projected)
  ======  ===============================================================

All 6-vectors are ``[linear; angular]`` (docs/conventions.md §1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import as_batch_of
from ..spatial import tau
from ..spatial.euler import check_sequence

__all__ = ["Wrench", "MotionVector", "transport_motion"]


def _vec(value, n, name):
    a = as_batch_of(value, (n,), name)
    if a.shape != (n,):
        raise ValueError(f"`{name}` must have shape ({n},); got {a.shape}")
    a = a.copy()
    a.setflags(write=False)
    return a


def transport_motion(m: np.ndarray, r_to_new: np.ndarray) -> np.ndarray:
    """Transport operator upsilon (paper eq. 32): the motion vector (18,) of another point of the same body.

    ``r_to_new`` (3,) is the vector from the current point P to the new point C, in the
    motion vector's frame: ``x'_C = tau_CP x'_P`` (acceleration likewise), ``IC = IP + PC``,
    attitude unchanged. Trusted input (used inside the blocks).
    """
    T = np.eye(6)
    T[0, 4], T[0, 5], T[1, 3], T[1, 5], T[2, 3], T[2, 4] = (r_to_new[2], -r_to_new[1], -r_to_new[2],
                                                            r_to_new[0], r_to_new[1], -r_to_new[0])
    out = m.copy()
    out[0:6] = T @ m[0:6]
    out[6:12] = T @ m[6:12]
    out[12:15] = m[12:15] + r_to_new
    return out


@dataclass(frozen=True)
class Wrench:
    """A wrench ``[F; T]`` (moment about ``point``), components in ``frame``.

    Attributes
    ----------
    force, torque : ndarray, shape (3,)
        [N], [N m].
    frame, point : str
        Names (documentation; :meth:`power` checks that they match).
    """

    force: np.ndarray
    torque: np.ndarray
    frame: str = "?"
    point: str = "?"

    def __post_init__(self):
        object.__setattr__(self, "force", _vec(self.force, 3, "force"))
        object.__setattr__(self, "torque", _vec(self.torque, 3, "torque"))

    @classmethod
    def from_array(cls, wrench, frame: str = "?", point: str = "?") -> Wrench:
        """From a (6,) ``[F; T]`` array."""
        w = _vec(wrench, 6, "wrench")
        return cls(w[:3], w[3:], frame, point)

    def __array__(self, dtype=None, copy=None):
        return np.concatenate([self.force, self.torque]).astype(dtype or float)

    def transported(self, r_to_new, point: str) -> Wrench:
        """The same wrench about another point: ``W_C = tau_PC^T W_P``, ``r_to_new`` = PC [m] in ``frame``."""
        return Wrench.from_array(tau(_vec(r_to_new, 3, "r_to_new")).T @ np.asarray(self), self.frame, point)

    def expressed_in(self, P_this_new, frame: str) -> Wrench:
        """Components in another frame: ``[W]_new = diag(P, P) [W]_this`` with ``P = P_{this/new}``."""
        P = as_batch_of(P_this_new, (3, 3), "P_this_new").reshape(3, 3)
        return Wrench(P @ self.force, P @ self.torque, frame, self.point)

    def power(self, motion: MotionVector) -> float:
        """``W . x'`` [W] with the twist of ``motion`` (same frame and point required)."""
        if not isinstance(motion, MotionVector):
            raise TypeError(f"`motion` must be a MotionVector; got {type(motion).__name__}")
        if (motion.frame, motion.point) != (self.frame, self.point):
            raise ValueError(f"`motion` is at {motion.point!r} in {motion.frame!r}; the wrench at "
                             f"{self.point!r} in {self.frame!r}: transport one of them first")
        return float(np.asarray(self) @ motion.twist)


@dataclass(frozen=True)
class MotionVector:
    """The paper's 18-component motion vector of a body point (module docstring for the layout).

    Attributes
    ----------
    acceleration, twist : ndarray, shape (6,)
    position : ndarray, shape (3,)
        ``[IP]_frame`` [m].
    attitude : ndarray, shape (3,)
        Euler angles of the body [rad] in the order of ``sequence``.
    frame, point, sequence : str
    """

    acceleration: np.ndarray
    twist: np.ndarray
    position: np.ndarray
    attitude: np.ndarray
    frame: str = "?"
    point: str = "?"
    sequence: str = "ZYX"

    def __post_init__(self):
        for name, n in (("acceleration", 6), ("twist", 6), ("position", 3), ("attitude", 3)):
            object.__setattr__(self, name, _vec(getattr(self, name), n, name))
        check_sequence(self.sequence)

    @classmethod
    def from_array(cls, m, frame: str = "?", point: str = "?", sequence: str = "ZYX") -> MotionVector:
        """From an (18,) array in the paper's layout."""
        m = _vec(m, 18, "m")
        return cls(m[0:6], m[6:12], m[12:15], m[15:18], frame, point, sequence)

    def __array__(self, dtype=None, copy=None):
        return np.concatenate([self.acceleration, self.twist, self.position, self.attitude]).astype(dtype or float)

    def transported(self, r_to_new, point: str) -> MotionVector:
        """The motion of another point C of the same body (eq. 32); ``r_to_new`` = PC [m] in ``frame``."""
        m = transport_motion(np.asarray(self), _vec(r_to_new, 3, "r_to_new"))
        return MotionVector.from_array(m, self.frame, point, self.sequence)
