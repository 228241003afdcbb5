"""The three-step algorithm of arXiv:2109.00407 on a tree of bodies and joints.

* Step 1, :func:`forward_recurrence` (base -> leaves): DCM ``Pbar`` of every joint and
  field acceleration ``abar`` seen by every body (eq. 13), as algebra values (numbers or LFRs).
* Step 2, :func:`backward_recurrence` (leaves -> base): trim wrench ``Wbar_{c/J}`` through
  every joint (eqs. 12, 21) and static joint torques ``Tbar``.
* Step 3 (inverse mode, option B), :func:`linear_inverse_dynamics`: the linear recursion with
  the generalised variables ``g = [dq''; dq]`` (2n) as inputs, motion outward with the
  joint blocks of section 3.4, wrenches inward with the body block of section 3.2, giving
  ``dT = M dq'' + K dq`` (``K`` = gravity stiffness, springs excluded).

Arguments used below
--------------------
alg : NumericAlgebra or LFRAlgebra     the algebra the model is evaluated in
tree : EquilibriumTree                 bodies, joints/welds, field acceleration (3,) [m/s^2]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .body import (RigidBody, body_linear_wrench, body_mass_matrix, body_trim_wrench, port_vector,
                   transport_acceleration, transport_wrench, wrench_transport_matrix)
from .joint import (RevoluteJoint, Weld, joint_dcm, revolute_equilibrium_field, revolute_equilibrium_wrench,
                    revolute_static_torque, revolute_torque, revolute_zero_field_motion,
                    revolute_zero_field_wrench, rotate_to_child, rotate_to_parent)

__all__ = ["EquilibriumTree", "Trim", "forward_recurrence", "backward_recurrence", "linear_inverse_dynamics"]


@dataclass(frozen=True)
class EquilibriumTree:
    """A tree of rigid bodies connected by revolute joints and welds, in a uniform field.

    Attributes
    ----------
    bodies : tuple of RigidBody
    connections : tuple of RevoluteJoint and Weld
        Each body is the child of exactly one connection; a connection's parent is a body
        or None (the ground, whose frame is the reference frame R). The revolute joints,
        in this order (moved only where a parent must come first), are the degrees of freedom.
    field_acceleration : (3,) array
        ``a = -g`` in the ground frame [m/s^2] (e.g. ``(0, 0, g0)`` with z up).
    """

    bodies: tuple
    connections: tuple
    field_acceleration: Any = field(default_factory=lambda: np.zeros(3))

    def __post_init__(self):
        bodies = tuple(self.bodies)
        conns = tuple(self.connections)
        for b in bodies:
            if not isinstance(b, RigidBody):
                raise TypeError(f"bodies must be RigidBody objects, got {type(b).__name__}")
        for c in conns:
            if not isinstance(c, (RevoluteJoint, Weld)):
                raise TypeError(f"connections must be RevoluteJoint or Weld objects, got {type(c).__name__}")
        names = [b.name for b in bodies]
        if len(set(names)) != len(names):
            raise ValueError(f"body names must be unique, got {names}")
        cnames = [c.name for c in conns]
        if len(set(cnames)) != len(cnames):
            raise ValueError(f"connection names must be unique, got {cnames}")
        clash = set(names) & set(cnames)
        if clash:
            raise ValueError(f"bodies and connections need distinct names (signals are named after them); "
                             f"both use {sorted(clash)}")
        by_name = {b.name: b for b in bodies}
        children = [c.child for c in conns]
        for b in names:
            if children.count(b) != 1:
                raise ValueError(f"body {b!r} must be the child of exactly one connection "
                                 f"(found {children.count(b)})")
        for c in conns:
            if c.child not in by_name:
                raise ValueError(f"connection {c.name!r}: unknown child body {c.child!r}")
            if c.parent is not None:
                if c.parent not in by_name:
                    raise ValueError(f"connection {c.name!r}: unknown parent body {c.parent!r}")
                if c.parent_port is not None and c.parent_port not in by_name[c.parent].ports:
                    raise ValueError(f"connection {c.name!r}: body {c.parent!r} has no port {c.parent_port!r}")
        a = np.asarray(self.field_acceleration, dtype=float)
        if a.shape != (3,) or not np.all(np.isfinite(a)):
            raise ValueError(f"field_acceleration must be 3 finite numbers [m/s^2], got {self.field_acceleration!r}")
        # Topological order (base -> leaves) that keeps the user's order where it already is
        # one (it is the order of the degrees of freedom); a cycle leaves connections unreached.
        order, reached = [], {None}
        pending = list(conns)
        while pending:
            ready = next((c for c in pending if c.parent in reached), None)
            if ready is None:
                raise ValueError("the connections form a loop or are not attached to the ground")
            order.append(ready)
            reached.add(ready.child)
            pending.remove(ready)
        object.__setattr__(self, "bodies", bodies)
        object.__setattr__(self, "connections", tuple(order))
        object.__setattr__(self, "field_acceleration", a)

    @property
    def body(self) -> dict:
        return {b.name: b for b in self.bodies}

    @property
    def joints(self) -> tuple:
        """The revolute joints, base to leaves (the order of the degrees of freedom)."""
        return tuple(c for c in self.connections if isinstance(c, RevoluteJoint))


@dataclass
class Trim:
    """Trim quantities of steps 1-2 (algebra values).

    Attributes
    ----------
    dcm : dict connection name -> (3, 3)      ``Pbar = P_{c/p}(theta_bar)``
    field : dict body name -> (3, 1)          ``abar`` in the body frame (``= attitude^T a``, eq. 13)
    attitude : dict body name -> (3, 3)       ``P_{b/i}``: body axes in the ground frame
    wrench : dict connection name -> (6, 1)   ``Wbar_{c/J}`` (child on joint, child frame)
    static_torque : dict joint name -> (1, 1) ``Tbar`` [N m]
    mass_matrix : dict body name -> (6, 6)    ``D_P`` at the parent port
    """

    dcm: dict
    field: dict
    attitude: dict = None
    wrench: dict = None
    static_torque: dict = None
    mass_matrix: dict = None


def forward_recurrence(alg, tree: EquilibriumTree) -> Trim:
    """Step 1: joint DCMs, body attitudes ``P_{b/i} = P_{p/i} Pbar`` and the field
    acceleration seen by each body (eq. 13)."""
    a_ground = alg.const(tree.field_acceleration)
    dcm, abar, attitude = {}, {}, {}
    for c in tree.connections:
        P = joint_dcm(alg, c)
        dcm[c.name] = P
        a_parent = a_ground if c.parent is None else abar[c.parent]
        abar[c.child] = alg.simplify(P.T @ a_parent)
        attitude[c.child] = P if c.parent is None else alg.simplify(attitude[c.parent] @ P)
    return Trim(dcm=dcm, field=abar, attitude=attitude)


def _port_skew(alg, tree, conn, cache):
    key = (conn.parent, conn.parent_port)
    if key not in cache:
        if conn.parent is None or conn.parent_port is None:
            cache[key] = None
        else:
            S = port_vector(alg, tree.body[conn.parent].ports[conn.parent_port])[1]
            cache[key] = alg.simplify(wrench_transport_matrix(alg, S))
    return cache[key]


def backward_recurrence(alg, tree: EquilibriumTree, trim: Trim) -> Trim:
    """Step 2: trim wrenches through the joints and static joint torques (eqs. 12, 21)."""
    bodies = tree.body
    D = {name: body_mass_matrix(alg, b) for name, b in bodies.items()}
    contrib = {name: [] for name in bodies}
    wrench, torque, skews = {}, {}, {}
    for c in reversed(tree.connections):
        W = body_trim_wrench(alg, D[c.child], trim.field[c.child], contrib[c.child])
        wrench[c.name] = W
        if isinstance(c, RevoluteJoint):
            torque[c.name] = revolute_static_torque(alg, c, W)
        if c.parent is not None:
            W_parent = alg.simplify(rotate_to_parent(alg, trim.dcm[c.name], W))
            S = _port_skew(alg, tree, c, skews)
            contrib[c.parent].append(W_parent if S is None else alg.simplify(transport_wrench(alg, W_parent, S)))
    trim.wrench, trim.static_torque, trim.mass_matrix = wrench, torque, D
    return trim


def linear_inverse_dynamics(alg, tree: EquilibriumTree, trim: Trim):
    """Step 3, option B: ``dT = M dq'' + K dq`` from the linear recursion.

    Returns
    -------
    M : (n, n)  mass matrix, ``K`` : (n, n) gravity (trim-wrench) stiffness, springs excluded.
    """
    joints = tree.joints
    n = len(joints)
    k = 2 * n
    index = {j.name: i for i, j in enumerate(joints)}
    eye = np.eye(k)
    d_field, d_accel = {}, {}
    skews = {}
    zero3, zero6 = alg.zeros((3, k)), alg.zeros((6, k))
    # Motion, outward.
    for c in tree.connections:
        if c.parent is None:
            da_p, dx_p = zero3, zero6
        else:
            da_p, dx_p = d_field[c.parent], d_accel[c.parent]
            S = _port_skew(alg, tree, c, skews)
            if S is not None:
                dx_p = alg.simplify(transport_acceleration(alg, dx_p, S))
        P = trim.dcm[c.name]
        if isinstance(c, RevoluteJoint):
            i = index[c.name]
            acc_row, ang_row = eye[i:i + 1], eye[n + i:n + i + 1]
            d_field[c.child] = alg.simplify(revolute_equilibrium_field(alg, c, P, trim.field[c.child], da_p, ang_row))
            d_accel[c.child] = alg.simplify(revolute_zero_field_motion(alg, c, P, dx_p, acc_row))
        else:
            d_field[c.child] = alg.simplify(P.T @ da_p)
            d_accel[c.child] = alg.simplify(rotate_to_child(alg, P, dx_p))
        d_accel[(c.name, "parent")] = dx_p
    # Wrenches, inward.
    contrib = {b.name: [] for b in tree.bodies}
    rows = [None] * n
    for c in reversed(tree.connections):
        dW = body_linear_wrench(alg, trim.mass_matrix[c.child], d_accel[c.child], d_field[c.child],
                                contrib[c.child])
        dx_p = d_accel[(c.name, "parent")]
        if isinstance(c, RevoluteJoint):
            i = index[c.name]
            acc_row, ang_row = eye[i:i + 1], eye[n + i:n + i + 1]
            rows[i] = alg.simplify(revolute_torque(alg, c, dW, dx_p, acc_row))
            dW_parent = (revolute_zero_field_wrench(alg, c, trim.dcm[c.name], dW, dx_p, acc_row)
                         + revolute_equilibrium_wrench(alg, c, trim.dcm[c.name], trim.wrench[c.name], ang_row))
            dW_parent = alg.simplify(dW_parent)
        else:
            dW_parent = rotate_to_parent(alg, trim.dcm[c.name], dW)
        if c.parent is not None:
            S = _port_skew(alg, tree, c, skews)
            contrib[c.parent].append(dW_parent if S is None else alg.simplify(transport_wrench(alg, dW_parent, S)))
    T = alg.simplify(alg.vstack(rows))
    return alg.simplify(T[:, :n]), alg.simplify(T[:, n:])
