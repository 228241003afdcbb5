"""Linearised substructure blocks as LFRs with named signals (arXiv:2109.00407):
the building blocks of option A, usable on their own.

Signals are named after the bodies and joints, so blocks of one tree connect by name
(:func:`satdyn.lfr.interconnect`):

* revolute joint ``J`` between parent ``p`` (at port ``C``) and child ``c``:
  inputs ``a_p`` (3, field variation, parent frame), ``acc_p@C`` (6, acceleration twist of
  the port), ``W_c`` (6, wrench of the child on the joint, child frame), ``ddtheta_J``,
  ``theta_J``, ``dtheta_J``, ``T_J`` (motor torque [N m]); outputs ``a_c`` (3), ``acc_c`` (6,
  child frame), ``W_J`` (6, wrench of the joint on the parent, parent frame), ``res_J``
  (torque balance residual ``T - Kp theta - Kd theta' - (J_r (r_p^T w'_p + theta'') -
  r_c6^T W_c)``, zero on the motion). A grounded joint has no parent inputs. With
  ``causality="torque"`` (needs ``J_r > 0``) the balance is solved: inputs ``a_p, acc_p, W_c,
  T_J``, outputs ``a_c, acc_c, W_J, ddtheta_J, theta_J, dtheta_J`` and 2 states.
* weld ``W``: inputs ``a_p``, ``acc_p@C``, ``W_c``; outputs ``a_c``, ``acc_c``, ``W_W``.
* body ``b`` with child connections ``k``: inputs ``a_b``, ``acc_b``, ``W_k``; outputs
  ``W_b`` (wrench on its parent at its port P), ``acc_b@C`` for each port with children.

All quantities are first-order variations, in the frames of arXiv:2109.00407.
"""

from __future__ import annotations

import numpy as np

from ._algebra import LFRAlgebra
from .body import RigidBody, body_linear_wrench, body_mass_matrix, port_vector, wrench_transport_matrix
from .joint import (RevoluteJoint, Weld, joint_dcm, revolute_equilibrium_field, revolute_equilibrium_wrench,
                    revolute_torque, revolute_zero_field_motion, revolute_zero_field_wrench, rotate_to_child,
                    rotate_to_parent)

__all__ = ["revolute_joint_block", "weld_block", "rigid_body_block", "joint_block", "body_block"]


def _seg(names_sizes):
    """Column selectors of the named input segments of a block: {name: (size, k) rows}."""
    k = sum(s for _, s in names_sizes)
    eye, out, i = np.eye(k), {}, 0
    for name, size in names_sizes:
        out[name] = eye[i:i + size]
        i += size
    return out, k


def _names(names_sizes):
    return [(name, size) if size > 1 else name for name, size in names_sizes]


def _block(alg, rows, outputs, inputs):
    from .. import lfr

    value = lfr.vstack([lfr.as_lfr(r) for r in rows])
    return lfr.as_lfr(alg.simplify(value)).rename(inputs=_names(inputs), outputs=_names(outputs))


def joint_block(alg, joint, trim):
    """Static LFR of one joint or weld (see module docstring for the signals); ``trim``
    holds its ``dcm``, the child's ``field`` and the trim ``wrench`` (algebra values)."""
    grounded = joint.parent is None
    c, p = joint.name, joint.parent
    at = f"{p}@{joint.parent_port}" if joint.parent_port else p
    ins = [] if grounded else [(f"a_{p}", 3), (f"acc_{at}", 6)]
    ins += [(f"W_{joint.child}", 6)]
    if isinstance(joint, RevoluteJoint):
        ins += [(f"ddtheta_{c}", 1), (f"theta_{c}", 1), (f"dtheta_{c}", 1), (f"T_{c}", 1)]
    sel, k = _seg(ins)
    da_p = np.zeros((3, k)) if grounded else sel[f"a_{p}"]
    dx_p = np.zeros((6, k)) if grounded else sel[f"acc_{at}"]
    dW_c = sel[f"W_{joint.child}"]
    P = trim.dcm[c]
    if isinstance(joint, RevoluteJoint):
        acc, ang = sel[f"ddtheta_{c}"], sel[f"theta_{c}"]
        a_c = revolute_equilibrium_field(alg, joint, P, trim.field[joint.child], da_p, ang)
        Kp = alg.lift(joint.stiffness) if hasattr(joint.stiffness, "name") else float(joint.stiffness)
        Kd = alg.lift(joint.damping) if hasattr(joint.damping, "name") else float(joint.damping)
        spring = sel[f"T_{c}"] - alg.scale(Kp, ang) - alg.scale(Kd, sel[f"dtheta_{c}"])
        W_eq = revolute_equilibrium_wrench(alg, joint, P, trim.wrench[c], ang)
        zero_field = _titop_zero_field(joint, np.vstack([dW_c, dx_p, acc]))
        if zero_field is not None:
            # titop's actuated joint -> [x''_c; W_p (zero field); T_r]; add the field terms.
            place = np.zeros((16, 13))
            place[3:15, :12] = np.eye(12)
            place[15, 12] = -1.0
            own = alg.vstack([a_c, np.zeros((6, k)), W_eq, spring])
            rows = [alg.const(place) @ zero_field + own]
        else:
            x_c = revolute_zero_field_motion(alg, joint, P, dx_p, acc)
            W_p = revolute_zero_field_wrench(alg, joint, P, dW_c, dx_p, acc) + W_eq
            rows = [a_c, x_c, W_p, spring - revolute_torque(alg, joint, dW_c, dx_p, acc)]
        outs = [(f"a_{joint.child}", 3), (f"acc_{joint.child}", 6), (f"W_{c}", 6), (f"res_{c}", 1)]
    else:
        rows = [P.T @ da_p, rotate_to_child(alg, P, dx_p), rotate_to_parent(alg, P, dW_c)]
        outs = [(f"a_{joint.child}", 3), (f"acc_{joint.child}", 6), (f"W_{c}", 6)]
    return _block(alg, rows, outs, ins)


def _titop_zero_field(joint, selector):
    """The zero-field actuated revolute joint of :mod:`satdyn.titop` (angle causality: inputs
    ``[W_c; acc_p; theta'']``, outputs ``[acc_c; W_p; T_r]``) fed by ``selector`` (13, k), or
    None when the joint's rotor inertia is a parameter (titop takes numbers): the
    equivalent :func:`~satdyn.equilibrium.joint.revolute_zero_field_motion` /
    ``_wrench`` / ``revolute_torque`` are then used."""
    if hasattr(joint.rotor_inertia, "name"):
        return None
    from ..titop import actuated_revolute_joint

    block = actuated_revolute_joint(f"titop_{joint.name}", joint.axis_child, joint.angle, offset=joint.P0,
                                    rotor_inertia=float(joint.rotor_inertia), causality="angle")
    return block.lfr @ selector


def body_block(alg, body, children, mass_matrix):
    """Static LFR of one body in inverse mode (eqs. 14, 16); ``children`` are the connections
    whose parent is this body, ``mass_matrix`` its ``D_P`` in the algebra."""
    ins = [(f"a_{body.name}", 3), (f"acc_{body.name}", 6)] + [(f"W_{c.name}", 6) for c in children]
    sel, k = _seg(ins)
    dx = sel[f"acc_{body.name}"]
    wrenches, rows, outs, ports_done = [], [], [], set()
    for c in children:
        if c.parent_port is None:
            wrenches.append(sel[f"W_{c.name}"])
            continue
        T = wrench_transport_matrix(alg, port_vector(alg, body.ports[c.parent_port])[1])
        wrenches.append(T @ sel[f"W_{c.name}"])
        if c.parent_port not in ports_done:
            ports_done.add(c.parent_port)
            rows.append(T.T @ dx)
            outs.append((f"acc_{body.name}@{c.parent_port}", 6))
    dW = body_linear_wrench(alg, mass_matrix, dx, sel[f"a_{body.name}"], wrenches)
    return _block(alg, [dW] + rows, [(f"W_{body.name}", 6)] + outs, ins)


def _trim_of(alg, joint, field_parent, trim_wrench):
    from .recurrence import Trim

    P = joint_dcm(alg, joint)
    a_p = alg.lift(np.zeros(3) if field_parent is None else field_parent)
    W = alg.lift(np.zeros(6) if trim_wrench is None else trim_wrench)
    if tuple(getattr(a_p, "shape", ())) != (3, 1) or tuple(getattr(W, "shape", ())) != (6, 1):
        raise ValueError("field_parent must be a 3-vector and trim_wrench a 6-vector (arrays or LFRs)")
    return Trim(dcm={joint.name: P}, field={joint.child: alg.simplify(P.T @ a_p)}, wrench={joint.name: W})


def revolute_joint_block(joint: RevoluteJoint, field_parent=None, trim_wrench=None, *, causality: str = "angle",
                         tolerance: float = 1e-10):
    """The linearised revolute joint around its equilibrium as an LFR (arXiv:2109.00407).

    Parameters
    ----------
    joint : RevoluteJoint
        Its ``angle`` may be a ``vreal`` parameter (tan(theta/2) or tan(theta/4)).
    field_parent : (3,) array or (3, 1) LFR, optional
        Field acceleration ``abar_p`` seen by the parent, parent frame [m/s^2] (default 0).
    trim_wrench : (6,) array or (6, 1) LFR, optional
        ``Wbar_{c/J}``: equilibrium wrench of the child on the joint, child frame [N, N m]
        (default 0: no load through the joint).
    causality : {"angle", "torque"}
        See the module docstring; "torque" needs a positive numeric rotor inertia.

    Returns
    -------
    satdyn.lfr.LFR
    """
    from .. import lfr

    if not isinstance(joint, RevoluteJoint):
        raise TypeError(f"joint must be a RevoluteJoint, got {type(joint).__name__}")
    if causality not in ("angle", "torque"):
        raise ValueError(f"causality must be 'angle' or 'torque', got {causality!r}")
    alg = LFRAlgebra(tolerance)
    block = joint_block(alg, joint, _trim_of(alg, joint, field_parent, trim_wrench))
    if causality == "angle":
        return block
    Jr = joint.rotor_inertia
    if hasattr(Jr, "name") or not float(Jr) > 0.0:
        raise ValueError("causality='torque' needs a positive numeric rotor_inertia; use causality='angle' "
                         "and solve the torque balance after assembly (equilibrium_lfr does)")
    c = joint.name
    solved = lfr.invert_channels(block, f"ddtheta_{c}", f"res_{c}")
    keep = [n for n in solved.input_names if n != f"res_{c}"]
    solved = solved[:, keep]
    integ = lfr.ss([[0.0, 1.0], [0.0, 0.0]], [[0.0], [1.0]], np.eye(2), np.zeros((2, 1)),
                   inputs=[f"ddtheta_{c}"], outputs=[f"theta_{c}", f"dtheta_{c}"])
    ins = [n for n in keep if n not in (f"theta_{c}", f"dtheta_{c}")]
    outs = list(solved.output_names) + [f"theta_{c}", f"dtheta_{c}"]
    return lfr.interconnect([solved, integ], inputs=ins, outputs=outs)


def weld_block(weld: Weld):
    """The weld as an LFR (constant DCM; see the module docstring for the signals)."""
    if not isinstance(weld, Weld):
        raise TypeError(f"weld must be a Weld, got {type(weld).__name__}")
    alg = LFRAlgebra()
    return joint_block(alg, weld, _trim_of(alg, weld, None, None))


def rigid_body_block(body: RigidBody, children=(), *, tolerance: float = 1e-10):
    """The linearised rigid body in inverse mode as an LFR (arXiv:2109.00407, Fig. 1a).

    Parameters
    ----------
    body : RigidBody
    children : sequence of RevoluteJoint / Weld
        Connections whose parent is this body (they name the wrench inputs ``W_<name>``).
    """
    if not isinstance(body, RigidBody):
        raise TypeError(f"body must be a RigidBody, got {type(body).__name__}")
    children = list(children)
    for c in children:
        if c.parent != body.name:
            raise ValueError(f"connection {c.name!r} has parent {c.parent!r}, not {body.name!r}")
        if c.parent_port is not None and c.parent_port not in body.ports:
            raise ValueError(f"body {body.name!r} has no port {c.parent_port!r}")
    alg = LFRAlgebra(tolerance)
    return body_block(alg, body, children, body_mass_matrix(alg, body))
