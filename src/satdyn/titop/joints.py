"""Connection and joint blocks: frame change, revolute (frozen / actuated), prismatic (actuated).

Every block here is a two-port "like a TITOP" (arXiv:2409.06017): port ``parent``
(direct, parent frame: acceleration in, wrench on the parent out) and port ``child``
(inverse, child frame: wrench from the child in, acceleration out).

Arguments used below
--------------------
P_cp : (3, 3) array or 3x3 LFR   DCM P_{child/parent}: [v]_parent = P_cp [v]_child
axis : (3,)                      unit joint axis v in the CHILD frame (arXiv:2409.06017: P_{c/p}(a) =
                                 P0 expm(a *v)); the parent-frame axis is r_p = P0 v
angle : float or Parameter       joint angle [rad]; a Parameter needs transform "tan_quarter"
                                 (|a| < 2 pi, 4 occurrences per rotation) or "tan_half"
offset : (3, 3)                  P0 = P_{c/p}(0), default identity
frames : (str, str)              frame labels (parent, child)

Frozen revolute joint: the constant-orientation block K(P(a)) with the angle a parameter:
16 occurrences of tan(a/4) (P^T twice on the acceleration, P twice on the wrench).

Actuated revolute joint (arXiv:2109.00407, zero acceleration field): one more DOF
theta about the axis, rotor inertia J >= 0, spring K_p and damper K_d, motor torque T_m:

    J theta'' = T_r + r_c6^T W_c - J r_p^T w'_p,      T_r = T_m - K_p theta - K_d theta'
    x''_c  = P^T(x2) x''_p + r_c6 theta''
    W_p    = P(x2) W_c + diag(S_p, S_p) P(x2) Wbar theta - [0; J r_p (r_p^T w'_p + theta'')]

with r_c6 = [0; v], S_p = (*r_p) and Wbar the equilibrium wrench of the child on the joint
(zero in space without trim loads; the equilibrium issue passes it). Causality "torque"
(T_m in, states theta, theta', outputs theta'', theta', theta; needs J > 0 or a
well-posed loop) or "angle" (theta'' in, T_r out, static: inverse dynamics).
"""

from __future__ import annotations

import numpy as np

from .._validation import as_batch_of
from ..lfr import Parameter, as_lfr, blockdiag, hstack, interconnect, invert_channels, rotation_lfr, ss, vstack
from ..spatial import skew
from ._lfrtools import is_parametric, to_lfr
from .ports import ACC, WRENCH, PortModel, make_port_model, port_signals

__all__ = ["frame_change", "revolute_joint", "actuated_revolute_joint", "prismatic_joint", "joint_dcm"]


def _check_name(name):
    if not isinstance(name, str) or not name or "." in name:
        raise ValueError(f"`name` must be a non-empty str without '.'; got {name!r}")


def _frames(frames, name):
    if frames is None:
        return (f"{name}:parent", f"{name}:child")
    if not (isinstance(frames, (tuple, list)) and len(frames) == 2 and all(isinstance(f, str) for f in frames)):
        raise TypeError(f"`frames` must be a pair of frame labels (parent, child); got {frames!r}")
    return tuple(frames)


def _check_dcm(P, name="P_cp") -> np.ndarray:
    P = as_batch_of(P, (3, 3), name)
    if P.ndim != 2 or not np.allclose(P @ P.T, np.eye(3), atol=1e-9) or np.linalg.det(P) < 0:
        raise ValueError(f"`{name}` must be one proper rotation matrix (3, 3)")
    return P


def _unit(axis, name="axis") -> np.ndarray:
    v = as_batch_of(axis, (3,), name)
    nv = np.linalg.norm(v)
    if v.ndim != 1 or nv < 1e-12:
        raise ValueError(f"`{name}` must be one non-zero 3-vector")
    return v / nv


def joint_dcm(axis, angle=0.0, offset=None):
    """P_{child/parent}(angle) = P0 expm(angle *v): ndarray, or a 3x3 LFR if ``angle`` is a Parameter."""
    v = _unit(axis)
    P0 = np.eye(3) if offset is None else _check_dcm(offset, "offset")
    return rotation_lfr(P0 @ v, angle, P0)


def _kappa(P):
    """[[0, P2^T], [P2, 0]] with inputs [W_child; acc_parent], outputs [acc_child; W_parent]."""
    if is_parametric(P):
        P = to_lfr(P)
        P2, P2T = blockdiag([P, P]), blockdiag([P.T, P.T])
        both = blockdiag([P2, P2T])          # in [W_c, acc_p] -> out [W_p, acc_c]
        return both[list(range(6, 12)) + list(range(6)), :]
    P2 = np.kron(np.eye(2), np.asarray(P, dtype=float))
    return as_lfr(np.block([[np.zeros((6, 6)), P2.T], [P2, np.zeros((6, 6))]]))


def _two_port(name, lfr, frames, extra_in=(), extra_out=()):
    return make_port_model(
        name, lfr, {"parent": ("direct", frames[0]), "child": ("inverse", frames[1])},
        inputs=[("child", WRENCH), ("parent", ACC), *extra_in],
        outputs=[("child", ACC), ("parent", WRENCH), *extra_out],
        extra_inputs=extra_in, extra_outputs=extra_out)


def frame_change(name: str, P_cp, *, frames=None) -> PortModel:
    """Constant-orientation connection K(P) (arXiv:2409.06017): orthogonal, K^-1 = K^T."""
    _check_name(name)
    P = P_cp if is_parametric(P_cp) else _check_dcm(P_cp)
    return _two_port(name, _kappa(P), _frames(frames, name))


def revolute_joint(name: str, axis, angle=0.0, *, offset=None, frames=None, reverse: bool = False) -> PortModel:
    """Frozen-angle revolute joint R(a) = K(P0 expm(a *v)) (arXiv:2409.06017).

    ``reverse=True`` builds the block for the other direction (parent = the joint's child
    body), i.e. K(P^T) from the transposed rotation LFR (reversed arms, arXiv:2409.06017).
    """
    _check_name(name)
    if isinstance(angle, Parameter) and angle.transform not in ("tan_half", "tan_quarter"):
        raise ValueError(f"revolute_joint: angle parameter {angle.name!r} needs transform "
                         f"'tan_quarter' (or 'tan_half'); got {angle.transform!r}")
    P = joint_dcm(axis, angle, offset)
    if reverse:
        P = P.T
    if not P.ndelta:
        P = P.nominal()
    return _two_port(name, _kappa(P), _frames(frames, name))


def _actuated(name, frames, Pbar, r_p, r_c, inertia, kp, kd, causality, Wbar, translational):
    """Shared builder of the actuated revolute / prismatic joints (see module docstring)."""
    if causality not in ("torque", "angle"):
        raise ValueError(f"`causality` must be 'torque' or 'angle'; got {causality!r}")
    names = ("slider_mass" if translational else "rotor_inertia", "stiffness", "damping")
    for label, value in zip(names, (inertia, kp, kd)):
        if not (np.isfinite(value) and value >= 0):
            raise ValueError(f"`{label}` must be finite and >= 0; got {value!r}")
    if translational:       # force along the axis, linear acceleration
        e_c = np.r_[r_c, 0, 0, 0]
        e_p = np.r_[r_p, 0, 0, 0]
    else:
        e_c = np.r_[0, 0, 0, r_c]
        e_p = np.r_[0, 0, 0, r_p]
    # angle-causality static block: in [W_c (6), acc_p (6), qdd (1)], out [acc_c, W_p, T_r]
    K = _kappa(Pbar)
    Ja = inertia * np.outer(e_p, e_p)
    top = hstack([K, as_lfr(np.vstack([e_c[:, None], np.zeros((6, 1))]))])
    extra = as_lfr(np.block([[np.zeros((6, 6)), -Ja, -inertia * e_p[:, None]],
                             [-e_c[None, :], inertia * e_p[None, :], np.array([[inertia]])]]))
    # [acc_c; W_p; T_r] = [[K, e_c]; 0] [W_c; acc_p; qdd] + (rotor terms on rows W_p, T_r)
    corr = np.zeros((13, 13))
    corr[6:, :] = extra.D
    S = vstack([top, as_lfr(np.zeros((1, 13)))]) + as_lfr(corr)
    q = f"{name}:q"
    names_in = [(f"{name}:child:W", list(port_signals(name, "child", WRENCH))),
                (f"{name}:parent:acc", list(port_signals(name, "parent", ACC))), f"{name}:qdd"]
    names_out = [(f"{name}:child:acc", list(port_signals(name, "child", ACC))),
                 (f"{name}:parent:W0", [f"{name}:parent:W0[{i}]" for i in range(6)]), f"{name}:Tr"]
    ports = {"parent": ("direct", frames[0]), "child": ("inverse", frames[1])}
    if causality == "angle":
        if Wbar is not None:
            raise ValueError("`equilibrium_wrench` needs causality='torque' (the angle is a state)")
        S = S.rename(inputs=names_in,
                     outputs=[names_out[0], (f"{name}:parent:W", list(port_signals(name, "parent", WRENCH))),
                              f"{name}:Tr"])
        return PortModel(name, S, {p: _port(name, p, *ports[p]) for p in ports}, (f"{name}:qdd",), (f"{name}:Tr",))
    if inertia == 0:
        raise ValueError("causality='torque' needs a positive rotor inertia / slider mass "
                         "(use causality='angle' and invert the channel after assembly)")
    S = invert_channels(S.rename(inputs=names_in, outputs=names_out), f"{name}:qdd", f"{name}:Tr")
    integ = ss([[0.0, 1.0], [0.0, 0.0]], [[0.0], [1.0]], np.eye(2), np.zeros((2, 1)),
               inputs=[f"{name}:qdd"], outputs=[q, f"{name}:qd"])
    pd = as_lfr(np.array([[1.0, -kp, -kd]])).rename(inputs=[f"{name}:Tm", q, f"{name}:qd"],
                                                     outputs=[f"{name}:Tr"])
    if Wbar is None:
        stiff = as_lfr(np.zeros((6, 1)))
    else:
        Sp = np.kron(np.eye(2), skew(r_p))
        Wb = to_lfr(Wbar) if is_parametric(Wbar) else as_lfr(np.asarray(Wbar, dtype=float).reshape(6, 1))
        P2 = blockdiag([to_lfr(Pbar), to_lfr(Pbar)]) if is_parametric(Pbar) else as_lfr(np.kron(np.eye(2), Pbar))
        stiff = as_lfr(Sp) @ P2 @ Wb
    summ = hstack([as_lfr(np.eye(6)), stiff]).rename(
        inputs=[(f"{name}:parent:W0", [f"{name}:parent:W0[{i}]" for i in range(6)]), q],
        outputs=[(f"{name}:parent:W", list(port_signals(name, "parent", WRENCH)))])
    lfr = interconnect([S, integ, pd, summ], None,
                       inputs=[f"{name}:child:W", f"{name}:parent:acc", f"{name}:Tm"],
                       outputs=[f"{name}:child:acc", f"{name}:parent:W", f"{name}:qdd", f"{name}:qd", q])
    return PortModel(name, lfr, {p: _port(name, p, *ports[p]) for p in ports},
                     (f"{name}:Tm",), (f"{name}:qdd", f"{name}:qd", q))


def _port(model, name, kind, frame):
    from .ports import Port

    return Port(model, name, kind, frame)


def actuated_revolute_joint(name: str, axis, angle=0.0, *, offset=None, rotor_inertia: float = 0.0,
                            stiffness: float = 0.0, damping: float = 0.0, causality: str = "torque",
                            equilibrium_wrench=None, frames=None) -> PortModel:
    """Actuated revolute joint linearised at the angle ``angle`` (arXiv:2109.00407).

    Inputs: ports ``child`` (W), ``parent`` (acc), and ``<name>:Tm`` (motor torque [N m],
    causality "torque") or ``<name>:qdd`` (joint acceleration, causality "angle").
    Outputs: ports ``child`` (acc), ``parent`` (W), and ``<name>:qdd``, ``<name>:qd``,
    ``<name>:q`` (torque causality) or ``<name>:Tr`` (angle causality: the driving torque).
    ``angle`` (float or Parameter) is the equilibrium angle; ``equilibrium_wrench`` (6,) the
    wrench of the child on the joint at equilibrium (child frame), default none.
    """
    _check_name(name)
    v = _unit(axis)
    P0 = np.eye(3) if offset is None else _check_dcm(offset, "offset")
    Pbar = joint_dcm(v, angle, P0)
    Pbar = Pbar if Pbar.ndelta else Pbar.nominal()
    return _actuated(name, _frames(frames, name), Pbar, P0 @ v, v, float(rotor_inertia), float(stiffness),
                     float(damping), causality, equilibrium_wrench, translational=False)


def prismatic_joint(name: str, axis, *, offset=None, slider_mass: float = 0.0, stiffness: float = 0.0,
                    damping: float = 0.0, causality: str = "force", frames=None) -> PortModel:
    """Actuated prismatic joint: the translational analogue of the actuated revolute joint.

    The child slides along ``axis`` (child frame) relative to the parent; at the
    linearisation point the two port points coincide and P_{c/p} = ``offset``. With zero
    equilibrium load (space) the sliding displacement creates no stiffness term.

        m_J d'' = F_r + [v; 0]^T W_c - m_J r_p^T a_p,     F_r = F_m - K d - C d'
        x''_c = P^T(x2) x''_p + [v; 0] d''
        W_p   = P(x2) W_c - [m_J r_p (r_p^T a_p + d''); 0]

    Signals ``<name>:Tm`` / ``.Tr`` carry the force [N], ``.q`` the displacement [m].
    ``causality``: "force" (default, needs m_J > 0) or "angle"-like "acceleration".
    """
    _check_name(name)
    v = _unit(axis)
    P0 = np.eye(3) if offset is None else _check_dcm(offset, "offset")
    mode = {"force": "torque", "acceleration": "angle"}.get(causality)
    if mode is None:
        raise ValueError(f"`causality` must be 'force' or 'acceleration'; got {causality!r}")
    return _actuated(name, _frames(frames, name), P0, P0 @ v, v, float(slider_mass), float(stiffness),
                     float(damping), mode, None, translational=True)
