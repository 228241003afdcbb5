"""Rigid body linearised around an equilibrium in a uniform acceleration field
(arXiv:2109.00407, inverse-dynamics block of Fig. 1a).

A body has a parent port ``P`` (where its motion is imposed), a centre of mass ``B`` and
child ports ``C_i``; every vector is in the body frame, measured from ``P``. Entries may be
numbers, ``satdyn.lfr`` parameters or static LFRs (any mass, length, inertia may be a
parameter); :class:`Scaled` keeps "parameter x constant direction" cheap in the LFR.

Equations (wrench applied BY the body ON its parent, at P, body frame):

    trim      W_P   = -D_P [a; 0] + sum_i tau_{C_i P}^T W_{child_i/B, C_i}           (12)
    linear    dW_P  = -D_P (dx''_P + [da; 0]) + sum_i tau_{C_i P}^T dW_{child_i/B, C_i}  (14)
    motion    dx''_{C} = tau_{C P} dx''_P,   da_C = da_P                            (16)

with ``D_P = [[m I, -m skew(PB)], [m skew(PB), J_B - m skew(PB)^2]]``. Linear quantities are
matrices whose columns are the generalised variables of the recursion (see
:mod:`.recurrence`): ``da`` (3, k), ``dx''`` (6, k), ``dW`` (6, k).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import as_inertia
from ..spatial import skew

__all__ = ["Scaled", "RigidBody", "body_mass_matrix", "port_vector", "wrench_transport_matrix", "transport_wrench",
           "transport_acceleration", "body_trim_wrench", "body_linear_wrench"]


@dataclass(frozen=True)
class Scaled:
    """``scale * direction``: a vector (3,) or matrix (3, 3) times a parameter expression.

    Keeps "parameter x constant" entries cheap in an LFR (e.g. a centre of mass
    ``rho L e`` or an inertia ``J diag(1, 0, 0)``).

    Attributes
    ----------
    scale : number, parameter or 1x1 static LFR
    direction : array_like (3,) or (3, 3)   constant
    """

    scale: Any
    direction: Any

    def __post_init__(self):
        d = np.asarray(self.direction, dtype=float)
        if d.shape not in ((3,), (3, 3)) or not np.all(np.isfinite(d)):
            raise ValueError(f"Scaled.direction must be a finite (3,) or (3, 3) array, got {self.direction!r}")
        object.__setattr__(self, "direction", d)


@dataclass(frozen=True)
class RigidBody:
    """A rigid body of an equilibrium tree.

    Attributes
    ----------
    name : str
    mass : number, parameter or static LFR            [kg]
    inertia : (3, 3) array or static LFR               inertia at the centre of mass, body frame [kg m^2]
    com : (3,) array, Scaled or static LFR (3,1) centre of mass from the parent port [m]
    ports : dict name -> (3,) array, Scaled or LFR   child ports from the parent port [m]
    """

    name: str
    mass: Any
    inertia: Any = field(default_factory=lambda: np.zeros((3, 3)))
    com: Any = field(default_factory=lambda: np.zeros(3))
    ports: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"RigidBody.name must be a non-empty string, got {self.name!r}")
        if isinstance(self.mass, (int, float, np.number)) and not (self.mass >= 0.0 and np.isfinite(self.mass)):
            raise ValueError(f"body {self.name!r}: mass must be non-negative, got {self.mass!r}")
        if isinstance(self.inertia, (np.ndarray, list, tuple)):
            J = np.asarray(self.inertia, dtype=float)
            if J.shape != (3, 3):
                raise ValueError(f"body {self.name!r}: `inertia` must be a symmetric 3x3 matrix; got shape {J.shape}")
            # symmetric and PSD; no triangle inequality: planar models (the paper's two-link arm)
            # legitimately keep only the moment about the joint axis, diag(J, 0, 0)
            as_inertia(J, f"body {self.name!r} inertia", triangle=False)
            object.__setattr__(self, "inertia", J)
        for key in ("com",):
            v = getattr(self, key)
            if isinstance(v, (list, tuple, np.ndarray)):
                object.__setattr__(self, key, _check_vector(v, f"body {self.name!r} {key}"))
        ports = {}
        for pname, v in dict(self.ports).items():
            ports[pname] = (_check_vector(v, f"body {self.name!r} port {pname!r}")
                            if isinstance(v, (list, tuple, np.ndarray)) else v)
        object.__setattr__(self, "ports", ports)


def _check_vector(v, what):
    a = np.asarray(v, dtype=float)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise ValueError(f"{what} must be 3 finite numbers, got {v!r}")
    return a


def port_vector(alg, entry):
    """``(vector (3,1), skew (3,3))`` of a position entry in the algebra ``alg``."""
    if isinstance(entry, Scaled):
        s = alg.lift(entry.scale)
        if entry.direction.shape != (3,):
            raise ValueError(f"a position entry must be a 3-vector, got a {entry.direction.shape} Scaled")
        return alg.scale(s, entry.direction.reshape(3, 1)), alg.scale(s, _skew_const(entry.direction))
    v = alg.lift(entry)
    return v, alg.skew(v)


def _skew_const(v):
    return skew(v)


def body_mass_matrix(alg, body: RigidBody):
    """``D_P`` (6, 6) of the body at its parent port, body frame, in the algebra ``alg``."""
    m = alg.lift(body.mass)
    J = (alg.scale(alg.lift(body.inertia.scale), body.inertia.direction)
         if isinstance(body.inertia, Scaled) else alg.lift(body.inertia))
    if isinstance(body.com, Scaled):
        # m skew(PB) = (m s) skew(d) and m skew(PB)^2 = (m s s) skew(d)^2: few occurrences.
        s = alg.lift(body.com.scale)
        S = _skew_const(body.com.direction)
        ms = m * s
        mS = alg.scale(ms, S)
        mSS = alg.scale(ms * s, S @ S)
    else:
        _, S = port_vector(alg, body.com)
        mS = alg.scale(m, np.eye(3)) @ S
        mSS = mS @ S
    mI = alg.scale(m, np.eye(3))
    return alg.simplify(alg.vstack([alg.hstack([mI, -mS]), alg.hstack([mS, J - mSS])]))


def wrench_transport_matrix(alg, skew_PC):
    """``tau_{CP}^T = [[I, 0], [skew(PC), I]]`` (6, 6): moves a wrench from C to P."""
    return alg.vstack([alg.hstack([np.eye(3), np.zeros((3, 3))]), alg.hstack([skew_PC, np.eye(3)])])


def transport_wrench(alg, wrench, transport):
    """``tau_{CP}^T W``: a wrench at C moved to P (``T_P = T_C + PC x F``); ``wrench`` (6, k),
    ``transport`` from :func:`wrench_transport_matrix`."""
    return transport @ wrench


def transport_acceleration(alg, accel, transport):
    """``tau_{CP} x'' = (tau_{CP}^T)^T x''``: an acceleration twist at P moved to C (6, k)."""
    return transport.T @ accel


def body_trim_wrench(alg, D_P, a_bar, child_wrenches):
    """Eq. (12): ``-D_P [a; 0] + sum tau^T W_child``; ``child_wrenches`` already moved to P."""
    W = -(D_P @ alg.vstack([a_bar, np.zeros((3, 1))]))
    for w in child_wrenches:
        W = W + w
    return alg.simplify(W)


def body_linear_wrench(alg, D_P, d_accel, d_field, child_wrenches):
    """Eq. (14): ``-D_P (dx''_P + [da; 0]) + sum tau^T dW_child`` (all (.., k) column maps)."""
    dW = -(D_P @ (d_accel + alg.vstack([d_field, np.zeros((3, d_field.shape[1]))])))
    for w in child_wrenches:
        dW = dW + w
    return alg.simplify(dW)
