"""The three-step algorithm of arXiv:2109.00407 on a tree of bodies and joints.

* Step 1, :func:`forward_recurrence` (base -> leaves): DCM ``Pbar`` of every joint and
  field acceleration ``abar`` seen by every body (eq. 13), as algebra values (numbers or LFRs).
* Step 2, :func:`backward_recurrence` (leaves -> base): trim wrench ``Wbar_{c/J}`` through
  every joint (eqs. 12, 21) and static joint torques ``Tbar``.
* Step 3 (inverse mode, option B), :func:`linear_inverse_dynamics`: the linear recursion with
  the generalised variables ``g = [dq''; dq]`` (2n) as inputs, motion outward with the
  joint blocks of section 3.4, wrenches inward with the body block of section 3.2, giving
  ``dT = M dq'' + K dq`` (``K`` = gravity stiffness, springs excluded). On a free base
  (Fig. 1b) its 6 coordinates come first and its row is the base's forward dynamics.
* Optional pose outputs, :func:`pose_maps`: ``[dp; dphi]`` of body points, the same outward
  recursion with the angles in place of the accelerations.

Arguments used below
--------------------
alg : NumericAlgebra or LFRAlgebra     the algebra the model is evaluated in
tree : EquilibriumTree                 bodies, joints/welds, field acceleration (3,) [m/s^2]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .base import ExternalWrench, FreeBase, external_linear_wrench, external_trim_wrench
from .body import (RigidBody, body_linear_wrench, body_mass_matrix, body_trim_wrench, port_vector,
                   transport_acceleration, transport_wrench, wrench_transport_matrix)
from .joint import (RevoluteJoint, Weld, joint_dcm, revolute_equilibrium_field, revolute_equilibrium_wrench,
                    revolute_static_torque, revolute_torque, revolute_zero_field_motion,
                    revolute_zero_field_wrench, rotate_to_child, rotate_to_parent)

__all__ = ["EquilibriumTree", "Trim", "forward_recurrence", "backward_recurrence", "linear_inverse_dynamics",
           "pose_maps", "port_offset"]


@dataclass(frozen=True)
class EquilibriumTree:
    """A tree of rigid bodies connected by revolute joints and welds, in a uniform field.

    Attributes
    ----------
    bodies : tuple of RigidBody
    connections : tuple of RevoluteJoint and Weld
        Each body (but a free base) is the child of exactly one connection; a connection's
        parent is a body or None (the ground, whose frame is the reference frame R). The
        revolute joints, in this order (moved only where a parent must come first), are the
        degrees of freedom (after the base's 6 when there is a free base).
    field_acceleration : (3,) array
        ``a = -g`` in the ground frame [m/s^2] (e.g. ``(0, 0, g0)`` with z up).
    base : FreeBase or None
        A floating / buoyant base body with forward dynamics (6 degrees of freedom); then no
        connection may sit on the ground.
    external_wrenches : tuple of ExternalWrench
        Constant external wrenches on bodies (buoyancy, thrust), part of the trim.
    """

    bodies: tuple
    connections: tuple
    field_acceleration: Any = field(default_factory=lambda: np.zeros(3))
    base: Any = None
    external_wrenches: tuple = ()

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
        if self.base is not None:
            if not isinstance(self.base, FreeBase):
                raise TypeError(f"base must be a FreeBase or None, got {type(self.base).__name__}")
            if self.base.body not in by_name:
                raise ValueError(f"base: unknown body {self.base.body!r}")
            if self.base.body in children:
                raise ValueError(f"base: the free base {self.base.body!r} cannot be a connection's child")
            grounded = [c.name for c in conns if c.parent is None]
            if grounded:
                raise ValueError(f"connections {grounded} sit on the ground, but the tree has a free base")
        wrenches = tuple(self.external_wrenches)
        for w in wrenches:
            if not isinstance(w, ExternalWrench):
                raise TypeError(f"external_wrenches must be ExternalWrench objects, got {type(w).__name__}")
            if w.body not in by_name:
                raise ValueError(f"external wrench {w.name!r}: unknown body {w.body!r}")
        if len({w.name for w in wrenches}) != len(wrenches):
            raise ValueError(f"external wrench names must be unique, got {[w.name for w in wrenches]}")
        for b in names:
            if self.base is not None and b == self.base.body:
                continue
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
        order, reached = [], {None} if self.base is None else {self.base.body}
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
        object.__setattr__(self, "external_wrenches", wrenches)

    @property
    def body(self) -> dict:
        return {b.name: b for b in self.bodies}

    @property
    def ndof(self) -> int:
        """Degrees of freedom: 6 for a free base, plus one per revolute joint."""
        return (6 if self.base is not None else 0) + len(self.joints)

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
    position : dict body name -> (3, 1)       ``[OP]_b``: the body's port P from the ground origin O,
                                              body frame (only when asked for; arXiv:2109.00407 step 1)
    wrench : dict connection name -> (6, 1)   ``Wbar_{c/J}`` (child on joint, child frame)
    static_torque : dict joint name -> (1, 1) ``Tbar`` [N m]
    mass_matrix : dict body name -> (6, 6)    ``D_P`` at the parent port
    base_wrench : (6, 1) or None              trim control wrench ``Wbar_u`` the free base needs at P
                                              (body frame; zero when the external wrenches balance)
    external : dict wrench name -> (F_b, T_b) body-frame components of the external trim wrenches
    """

    dcm: dict
    field: dict
    attitude: dict = None
    position: dict = None
    wrench: dict = None
    static_torque: dict = None
    mass_matrix: dict = None
    base_wrench: Any = None
    external: dict = None


def port_offset(alg, tree: EquilibriumTree, body: str, point):
    """``(vector (3,1), skew (3,3))`` of a point of ``body`` from its port P: None (P itself),
    a port name, or a position entry (array, Scaled, LFR)."""
    if point is None:
        return alg.zeros((3, 1)), None
    if isinstance(point, str):
        ports = tree.body[body].ports
        if point not in ports:
            raise ValueError(f"body {body!r} has no port {point!r} (ports: {sorted(ports)})")
        point = ports[point]
    v, S = port_vector(alg, point)
    return v, S


def forward_recurrence(alg, tree: EquilibriumTree, positions: bool = False) -> Trim:
    """Step 1: joint DCMs, body attitudes ``P_{b/i} = P_{p/i} Pbar`` and the field
    acceleration seen by each body (eq. 13); with ``positions``, the equilibrium position
    ``[OP]_b`` of every body's port P (``[OP]_c = Pbar^T [OC]_p``, ``[OC]_b = [OP]_b + [PC]_b``:
    the corrected step 1 of arXiv:2109.00407)."""
    a_ground = alg.const(tree.field_acceleration)
    dcm, abar, attitude, position = {}, {}, {}, {}
    if tree.base is not None:
        b = tree.base.body
        attitude[b] = alg.const(tree.base.attitude)
        abar[b] = alg.const(tree.base.attitude.T @ tree.field_acceleration)
        position[b] = alg.const(tree.base.attitude.T @ tree.base.position)
    for c in tree.connections:
        P = joint_dcm(alg, c)
        dcm[c.name] = P
        a_parent = a_ground if c.parent is None else abar[c.parent]
        abar[c.child] = alg.simplify(P.T @ a_parent)
        attitude[c.child] = P if c.parent is None else alg.simplify(attitude[c.parent] @ P)
        if positions:
            if c.parent is None:  # a joint on the ground sits at the origin O
                position[c.child] = alg.zeros((3, 1))
            else:
                OC = position[c.parent] + port_offset(alg, tree, c.parent, c.parent_port)[0]
                position[c.child] = alg.simplify(P.T @ OC)
    return Trim(dcm=dcm, field=abar, attitude=attitude, position=position if positions else None)


def _port_skew(alg, tree, conn, cache):
    key = (conn.parent, conn.parent_port)
    if key not in cache:
        if conn.parent is None or conn.parent_port is None:
            cache[key] = None
        else:
            S = port_vector(alg, tree.body[conn.parent].ports[conn.parent_port])[1]
            cache[key] = alg.simplify(wrench_transport_matrix(alg, S))
    return cache[key]


def _external_trims(alg, tree, trim):
    """Body name -> list of external trim wrenches at P; fills ``trim.external``."""
    per_body = {b.name: [] for b in tree.bodies}
    trim.external = {}
    for w in tree.external_wrenches:
        W, comps = external_trim_wrench(alg, w, trim.attitude[w.body])
        trim.external[w.name] = comps
        per_body[w.body].append(W)
    return per_body


def backward_recurrence(alg, tree: EquilibriumTree, trim: Trim) -> Trim:
    """Step 2: trim wrenches through the joints, static joint torques (eqs. 12, 21) and, for a
    free base, its trim control wrench ``Wbar_u = D_P [abar; 0] - sum Wbar`` (zero when the
    external wrenches balance the tree: ``sum Wbar = D_P abar_6``)."""
    bodies = tree.body
    D = {name: body_mass_matrix(alg, b) for name, b in bodies.items()}
    contrib = _external_trims(alg, tree, trim)
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
    if tree.base is not None:
        b = tree.base.body
        trim.base_wrench = alg.simplify(-body_trim_wrench(alg, D[b], trim.field[b], contrib[b]))
    trim.wrench, trim.static_torque, trim.mass_matrix = wrench, torque, D
    return trim


def _layout(tree):
    """``(N, index of each joint's coordinate, identity (2N, 2N))``: the generalised
    variables of the recursion are the columns ``[dq''; dq]``."""
    nb = 6 if tree.base is not None else 0
    N = nb + len(tree.joints)
    return N, {j.name: nb + i for i, j in enumerate(tree.joints)}, np.eye(2 * N)


def _outward_motion(alg, tree, trim, offset, skews):
    """A 6-row motion map (2N columns) at every body's port P, body frame, base -> leaves.

    ``offset = 0``: accelerations ``dx''`` (the base's ``[dv'; domega']`` and the joints' ``dtheta''``);
    ``offset = N``: poses ``[dp; dphi]`` (the base's ``(dp, dphi)`` and the joints' ``dtheta``). The
    ground gives zero; a joint maps ``Pbar^T(x2)`` and adds ``r_c6`` times its column (the
    zero-field joint motion); across a body the map moves from P to a port C with ``tau_{CP}``,
    which for the pose includes the position part (E003-7).

    Returns
    -------
    motion : dict body -> (6, 2N);  at_parent : dict connection -> (6, 2N) the parent's motion at the joint point
    """
    N, index, eye = _layout(tree)
    motion, at_parent = {}, {}
    if tree.base is not None:
        motion[tree.base.body] = alg.const(eye[offset:offset + 6])
    for c in tree.connections:
        if c.parent is None:
            x_p = alg.zeros((6, 2 * N))
        else:
            x_p = motion[c.parent]
            S = _port_skew(alg, tree, c, skews)
            if S is not None:
                x_p = alg.simplify(transport_acceleration(alg, x_p, S))
        at_parent[c.name] = x_p
        P = trim.dcm[c.name]
        if isinstance(c, RevoluteJoint):
            i = offset + index[c.name]
            motion[c.child] = alg.simplify(revolute_zero_field_motion(alg, c, P, x_p, eye[i:i + 1]))
        else:
            motion[c.child] = alg.simplify(rotate_to_child(alg, P, x_p))
    return motion, at_parent


def pose_maps(alg, tree: EquilibriumTree, trim: Trim, pose_points):
    """Pose variations ``[dp; dphi] = X dq`` (6, N) of points of the tree.

    Parameters
    ----------
    pose_points : sequence of (body, point)
        ``point`` as in :func:`port_offset` (None: the body's port P).

    Returns
    -------
    list of (6, N) maps, body frame: ``dp`` the point's displacement [m] (ground frame,
    projected with the equilibrium DCM), ``dphi`` the body's small rotation vector [rad].
    """
    N = _layout(tree)[0]
    pose = _outward_motion(alg, tree, trim, N, {})[0]
    maps = []
    for body, point in pose_points:
        x = pose[body]
        S = port_offset(alg, tree, body, point)[1]
        if S is not None:  # dp_X = dp_P + dphi x PX
            x = transport_acceleration(alg, x, wrench_transport_matrix(alg, S))
        maps.append(alg.simplify(x[:, N:]))
    return maps


def linear_inverse_dynamics(alg, tree: EquilibriumTree, trim: Trim):
    """Step 3, option B: ``dF = M dq'' + K dq`` from the linear recursion.

    The generalised coordinates ``q`` are the free base's ``(dp, dphi)`` (6, base port P, body
    frame) if any, then the joint angles; ``dF`` the base control wrench ``dW_u`` (force,
    torque at P, body frame) and the joint torques.

    Returns
    -------
    M : (N, N)  mass matrix, ``K`` : (N, N) stiffness (field, trim wrenches, external wrenches;
    springs excluded).
    """
    N, index, eye = _layout(tree)
    k = 2 * N
    skews = {}
    need_pose = tree.base is not None or any(w.frame == "inertial" for w in tree.external_wrenches)
    pose = _outward_motion(alg, tree, trim, N, skews)[0] if need_pose else {}
    d_accel, accel_at_joint = _outward_motion(alg, tree, trim, 0, skews)
    # Field seen by each body, outward.
    d_field = {}
    if tree.base is not None:
        b = tree.base.body
        d_field[b] = alg.skew(trim.field[b]) @ alg.const(eye[N + 3:N + 6])  # da = skew(abar) dphi
    for c in tree.connections:
        da_p = alg.zeros((3, k)) if c.parent is None else d_field[c.parent]
        P = trim.dcm[c.name]
        if isinstance(c, RevoluteJoint):
            i = index[c.name]
            d_field[c.child] = alg.simplify(revolute_equilibrium_field(alg, c, P, trim.field[c.child], da_p,
                                                                       eye[N + i:N + i + 1]))
        else:
            d_field[c.child] = alg.simplify(P.T @ da_p)
    # Wrenches, inward.
    contrib = {b.name: [] for b in tree.bodies}
    for w in tree.external_wrenches:
        if w.frame == "inertial":
            S = port_vector(alg, w.point)[1]
            contrib[w.body].append(external_linear_wrench(alg, w, trim.external[w.name], S, pose[w.body][3:6]))
    rows = [None] * N
    for c in reversed(tree.connections):
        dW = body_linear_wrench(alg, trim.mass_matrix[c.child], d_accel[c.child], d_field[c.child],
                                contrib[c.child])
        dx_p = accel_at_joint[c.name]
        if isinstance(c, RevoluteJoint):
            i = index[c.name]
            acc_row, ang_row = eye[i:i + 1], eye[N + i:N + i + 1]
            rows[i] = alg.simplify(revolute_torque(alg, c, dW, dx_p, acc_row))
            dW_parent = (revolute_zero_field_wrench(alg, c, trim.dcm[c.name], dW, dx_p, acc_row)
                         + revolute_equilibrium_wrench(alg, c, trim.dcm[c.name], trim.wrench[c.name], ang_row))
            dW_parent = alg.simplify(dW_parent)
        else:
            dW_parent = rotate_to_parent(alg, trim.dcm[c.name], dW)
        if c.parent is not None:
            S = _port_skew(alg, tree, c, skews)
            contrib[c.parent].append(dW_parent if S is None else alg.simplify(transport_wrench(alg, dW_parent, S)))
    if tree.base is not None:
        # Forward dynamics of the base: dW_u = D_P (dx'' + [da; 0]) - sum dW (the negated body block).
        b = tree.base.body
        dW = body_linear_wrench(alg, trim.mass_matrix[b], d_accel[b], d_field[b], contrib[b])
        rows = [alg.simplify(-dW)] + rows[6:]
    T = alg.simplify(alg.vstack(rows))
    return alg.simplify(T[:, :N]), alg.simplify(T[:, N:])
