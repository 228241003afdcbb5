"""Free (floating or buoyant) base and external trim wrenches (arXiv:2109.00407, Fig. 1b).

A tree may stand on the ground (imposed motion, no degree of freedom) or on a
:class:`FreeBase`: a body with forward dynamics and 6 degrees of freedom, whose linear
model has the 12 states ``(dp, dphi, dv, domega)`` at its parent port ``P``, all in the
equilibrium body frame (``dp`` the ground-frame displacement projected with the equilibrium
DCM, ``dphi`` a small rotation vector, so ``dp' = dv`` and ``dphi' = domega`` exactly to
first order):

    D_P (dx''_P + [da; 0]) = sum_i tau_{C_i P}^T dW_{./B, C_i} + dW_ext + dW_u,
    da = skew(abar) dphi                     (the field turns in the body frame)

:class:`ExternalWrench` is a constant wrench on a body (buoyancy, thrust, ...). Fixed in the
ground frame (``frame="inertial"``) it rotates in the body frame like the field,
``dF_b = skew(Fbar_b) dphi_b`` (same for the torque); fixed in the body (``frame="body"``) it
only enters the trim. The base balance at equilibrium reads ``sum Wbar = D_P [abar; 0]``;
what the external wrenches do not balance is the base's trim control wrench ``Wbar_u``
(body-fixed, at P), reported like the joints' static torques and zero when they balance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .body import Scaled, _check_vector, port_vector, wrench_transport_matrix

__all__ = ["FreeBase", "ExternalWrench", "external_trim_wrench", "external_linear_wrench", "BASE_AXES"]

BASE_AXES = ("x", "y", "z")


def _rotation(value, what):
    P = np.asarray(value, dtype=float)
    if P.shape != (3, 3) or not np.all(np.isfinite(P)) or not np.allclose(P.T @ P, np.eye(3), atol=1e-9) \
            or np.linalg.det(P) < 0:
        raise ValueError(f"{what} must be a rotation matrix (3, 3), got {value!r}")
    return P


def _vector_entry(value, what):
    if isinstance(value, (list, tuple, np.ndarray)):
        return _check_vector(value, what)
    if isinstance(value, Scaled) and value.direction.shape != (3,):
        raise ValueError(f"{what} must be a 3-vector, got a {value.direction.shape} Scaled")
    return value


@dataclass(frozen=True)
class FreeBase:
    """The free base of an equilibrium tree (6 degrees of freedom, forward dynamics).

    Attributes
    ----------
    body : str
        Name of the base body (a :class:`RigidBody` of the tree that is no connection's child).
    attitude : (3, 3) array
        Equilibrium DCM ``P_{b/i}``: base axes in ground coordinates.
    position : (3,) array
        Equilibrium position of the base's port ``P`` in the ground frame [m] (only enters the
        equilibrium positions of :attr:`EquilibriumLFR.positions`).
    """

    body: str
    attitude: Any = field(default_factory=lambda: np.eye(3))
    position: Any = field(default_factory=lambda: np.zeros(3))

    def __post_init__(self):
        if not isinstance(self.body, str) or not self.body:
            raise TypeError(f"FreeBase.body must be a body name, got {self.body!r}")
        object.__setattr__(self, "attitude", _rotation(self.attitude, "FreeBase.attitude"))
        p = np.asarray(self.position, dtype=float)
        if p.shape != (3,) or not np.all(np.isfinite(p)):
            raise ValueError(f"FreeBase.position must be 3 finite numbers [m], got {self.position!r}")
        object.__setattr__(self, "position", p)


@dataclass(frozen=True)
class ExternalWrench:
    """A constant external wrench on a body (buoyancy, thrust, a tether...).

    Attributes
    ----------
    name : str
    body : str
        The body it acts on.
    force : (3,) array, Scaled or (3, 1) static LFR      [N]
    torque : (3,) array, Scaled or static LFR             [N m] (about the application point)
    point : (3,) array, Scaled or static LFR
        Application point from the body's parent port ``P``, body frame [m].
    frame : {"inertial", "body"}
        Frame the force and torque components are fixed in: ``"inertial"`` (ground frame:
        buoyancy, gravity-like loads; they rotate in the body frame) or ``"body"`` (a
        body-fixed thruster).
    """

    name: str
    body: str
    force: Any = field(default_factory=lambda: np.zeros(3))
    torque: Any = field(default_factory=lambda: np.zeros(3))
    point: Any = field(default_factory=lambda: np.zeros(3))
    frame: str = "inertial"

    def __post_init__(self):
        for key in ("name", "body"):
            if not isinstance(getattr(self, key), str) or not getattr(self, key):
                raise TypeError(f"ExternalWrench.{key} must be a non-empty string, got {getattr(self, key)!r}")
        if self.frame not in ("inertial", "body"):
            raise ValueError(f"ExternalWrench.frame must be 'inertial' or 'body', got {self.frame!r}")
        for key in ("force", "torque", "point"):
            object.__setattr__(self, key, _vector_entry(getattr(self, key), f"external wrench {self.name!r} {key}"))


def _body_frame_components(alg, wrench: ExternalWrench, attitude):
    """Force and torque (3, 1) each in the body frame at equilibrium."""
    F = port_vector(alg, wrench.force)[0]
    T = port_vector(alg, wrench.torque)[0]
    if wrench.frame == "inertial":
        F, T = attitude.T @ F, attitude.T @ T
    return alg.simplify(F), alg.simplify(T)


def external_trim_wrench(alg, wrench: ExternalWrench, attitude):
    """Trim wrench (6, 1) at the body's port P, body frame: ``tau_{EP}^T [F_b; T_b]``.

    Returns the wrench and the body-frame components ``(F_b, T_b)`` (reused by the linear part).
    """
    F, T = _body_frame_components(alg, wrench, attitude)
    S = port_vector(alg, wrench.point)[1]
    W = wrench_transport_matrix(alg, S) @ alg.vstack([F, T])
    return alg.simplify(W), (F, T)


def external_linear_wrench(alg, wrench: ExternalWrench, components, point_skew, d_phi):
    """Linear wrench (6, k) at P of an inertially fixed wrench: ``tau_{EP}^T [skew(F) dphi; skew(T) dphi]``.

    ``components`` from :func:`external_trim_wrench`, ``point_skew`` = skew(PE) in ``alg``,
    ``d_phi`` (3, k) the body's small rotation.
    """
    F, T = components
    dW = alg.vstack([alg.skew(F) @ d_phi, alg.skew(T) @ d_phi])
    return alg.simplify(wrench_transport_matrix(alg, point_skew) @ dW)
