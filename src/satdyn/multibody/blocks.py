"""The causal per-body blocks of the non-linear TITOP approach (arXiv:2505.03248 §2–3), as a public API.

Each block is one body. Signals going down the tree are 18-component motion vectors,
signals going up are 6-component wrenches (:mod:`satdyn.multibody.signals`); a joint
belongs to its child body's block. Every block is a pure function of its states and inputs,
with a forward mode (effort in, acceleration out) and an inverse mode (motion in, effort out):

=========================  =====================================  ==============================
block                       paper                                 states
=========================  =====================================  ==============================
:class:`FloatingBodyBlock`  G^B_{P,C1..Cn}, eqs. (29)-(31), Figs 1-3  12: [x'_P (6), [IP]_b (3), Theta (3)]
:class:`GroundBlock`        fixed root ("ground", §3.6 rule 1)    0
:class:`WeldBlock`          R^A_{P,C}, eq. (33), Figs 4-6          0
:class:`RevoluteBlock`      R^{A,r}_{P,C}, eqs. (34)-(64), Figs 7-9  2: theta, theta_dot (held by the diagram)
:class:`PrismaticBlock`     R^{A,t}_{P0,C}, eqs. (65)-(93), Figs 10-12  2: x, x_dot
:class:`LoopClosureBlock`   L^A_C, §3.5, Figs 13-14 (penalty)     0
=========================  =====================================  ==============================

Conventions (docs/multibody-blocks.md):

* a block's body frame ``R_a`` has its origin at the parent port P (the joint point);
  ``ports`` maps child-port names to their positions in ``R_a`` [m];
* the parent's motion comes in the parent frame ``R_b``; the block re-projects it with its
  own ``P_{a/b}`` (the ``[R]^{R_a}_{R_b}`` form of Fig. 6 is used for every joint, including
  the weld and prismatic blocks), recomputing the Euler angles;
* the emitted wrench ``W_{A/B,P}`` (applied by the block's body on its parent, about the
  parent port) is returned in the parent frame; child-port wrench inputs ``W_{./A,C}`` are in
  ``R_a``;
* gravity enters as ``x_dot' - [g; 0]`` (eq. 29), with ``[g]_a`` from the body's Euler angles.

The whole-tree algorithms (:func:`satdyn.multibody.forward_dynamics`, O(n) sweeps) remain the
fast path; the blocks and :class:`~satdyn.multibody.diagram.BlockDiagram` are the paper's
system-based view, assembled block by block.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._validation import as_batch_of, as_float_array
from ..spatial import dcm_from_quaternion, quaternion_derivative, rigid_mass_matrix, rodrigues
from ..spatial.euler import (
    check_sequence,
    dcm_from_euler_sequence,
    euler_sequence_from_dcm,
    euler_sequence_rate_matrix,
)
from .joints import _axis, _rotation
from .signals import transport_motion

__all__ = ["FloatingBodyBlock", "GroundBlock", "WeldBlock", "RevoluteBlock", "PrismaticBlock",
           "LoopClosureBlock", "BlockOutput", "body_frame_change"]


@dataclass(frozen=True)
class BlockOutput:
    """Outputs of one block evaluation.

    Attributes
    ----------
    motion : dict
        Port name -> motion vector (18,) in the block frame; ``"P"`` is the parent port.
    wrench_to_parent : ndarray, shape (6,) or None
        ``W_{A/B,P}`` in the parent frame, about the parent port (None for roots).
    joint : ndarray, shape (3,) or None
        ``m_r = [q_ddot, q_dot, q]`` of a 1-DOF joint.
    effort : float or None
        Drive effort ``C_m`` / ``F_m`` on the child (an input in forward mode, an output in inverse mode).
    state_derivative : ndarray or None
        Floating root only: d/dt of its 12 states.
    """

    motion: dict
    wrench_to_parent: np.ndarray | None = None
    joint: np.ndarray | None = None
    effort: float | None = None
    state_derivative: np.ndarray | None = None


def _cross(a, b):
    """Cross product of two 3-vectors (np.cross costs ~20x more on single vectors)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _crf(twist, h):
    """``C(x') h`` of eq. (26) (spatial force cross product, [lin; ang])."""
    v, w = twist[:3], twist[3:]
    return np.concatenate([_cross(w, h[:3]), _cross(v, h[:3]) + _cross(w, h[3:])])


def body_frame_change(P_ab, m, sequence="ZYX"):
    """Motion vector (18,) of the parent (frame b) re-projected in the child frame a (§1.4).

    Rows 0:15 rotate by ``P_ab^T``; the Euler angles become those of the child body,
    ``Theta^A = Theta(P(Theta^B) P_ab)`` -- a non-linear operator. Trusted input.
    """
    out = np.empty(18)
    Pt = P_ab.T
    for k in range(5):
        out[3 * k:3 * k + 3] = Pt @ m[3 * k:3 * k + 3]
    out[15:18] = euler_sequence_from_dcm(dcm_from_euler_sequence(m[15:18], sequence) @ P_ab, sequence)
    return out


def _ports(ports, name="ports"):
    if ports is None:
        return {}
    if not isinstance(ports, Mapping):
        raise TypeError(f"`{name}` must be a dict {{port name: position (3,) in the body frame}}")
    out = {}
    for k, p in ports.items():
        if not isinstance(k, str) or not k or k == "P":
            raise ValueError(f"`{name}`: port names must be non-empty strings other than 'P' "
                             f"(the parent port); got {k!r}")
        a = as_batch_of(p, (3,), f"{name}[{k!r}]")
        if a.shape != (3,):
            raise ValueError(f"`{name}[{k!r}]` must have shape (3,); got {a.shape}")
        out[k] = a.copy()
    return out


def _vector(value, n, name):
    a = np.asarray(value, dtype=float) if not isinstance(value, np.ndarray) else value
    if a.shape != (n,):
        a = as_batch_of(value, (n,), name)
        if a.shape != (n,):
            raise ValueError(f"`{name}` must have shape ({n},); got {a.shape}")
    return a


class _Body:
    """Shared data of a body block: D_P (eq. 13), ports, gravity, Euler sequence."""

    def __init__(self, mass, com, inertia, ports, gravity, sequence):
        m = float(as_float_array(mass, "mass"))
        if m < 0:
            raise ValueError(f"`mass` must be >= 0 [kg]; got {m}")
        self.mass = m
        self.com = np.zeros(3) if com is None else _vector(com, 3, "com").copy()
        self.inertia = (np.zeros((3, 3)) if inertia is None
                        else as_batch_of(inertia, (3, 3), "inertia").reshape(3, 3).copy())
        if m == 0.0:
            if np.any(self.inertia):
                raise ValueError("`inertia` must be zero when `mass` is 0 (a massless frame)")
            self.D = np.zeros((6, 6))
        else:
            self.D = rigid_mass_matrix(m, self.inertia, self.com)
        self.ports = _ports(ports)
        if callable(gravity):       # a time-varying uniform field g(t) -> (3,)
            self.gravity = gravity
        else:
            self.gravity = np.zeros(3) if gravity is None else _vector(gravity, 3, "gravity").copy()
        self.sequence = check_sequence(sequence)

    def _gravity_hat(self, attitude, t=0.0):
        """``[[g]_a; 0]`` from the body's Euler angles (and the time, for a field g(t))."""
        g = np.zeros(6)
        g_i = self.gravity
        if callable(g_i):
            g_i = np.asarray(g_i(t), dtype=float)
            if g_i.shape != (3,):
                raise ValueError(f"`gravity(t)` must return a (3,) vector; got shape {g_i.shape}")
        if g_i.any():
            g[:3] = dcm_from_euler_sequence(attitude, self.sequence).T @ g_i
        return g

    def _port_wrench(self, port_wrenches):
        """``sum_k tau_{C_k P}^T W_{./A,C_k}`` (eq. 31): child-port wrenches moved to P."""
        total = np.zeros(6)
        for name, W in (port_wrenches or {}).items():
            if name == "P":
                total += _vector(W, 6, "port_wrenches['P']")
                continue
            if name not in self.ports:
                raise ValueError(f"`port_wrenches`: no port {name!r}; ports: {list(self.ports)}")
            W = _vector(W, 6, f"port_wrenches[{name!r}]")
            total[:3] += W[:3]
            total[3:] += W[3:] + _cross(self.ports[name], W[:3])
        return total

    def _outputs(self, mP):
        out = {"P": mP}
        for name, r in self.ports.items():
            out[name] = transport_motion(mP, r)
        return out

    def kinetic_energy(self, twist) -> float:
        """``T = x'^T D_P x' / 2`` [J] (eq. 28) for the twist (6,) at P."""
        return 0.5 * float(twist @ self.D @ twist)


class FloatingBodyBlock(_Body):
    """Floating root ``G^B_{P,C1..Cn}`` (paper Figs. 1-3): 12 states ``[x'_P, [IP]_b, Theta]``.

    Parameters
    ----------
    mass : float
        [kg] > 0.
    com : array_like, shape (3,)
        CoM in the body frame (origin at the reference point P) [m].
    inertia : array_like, shape (3, 3)
        About the CoM [kg m^2]; ``D_P`` must be invertible.
    ports : dict
        Child-port name -> position in the body frame [m].
    gravity : array_like, shape (3,), or callable
        ``[g]_i`` [m/s^2], constant or a uniform field ``gravity(t) -> (3,)`` varying in time.
    sequence : str
        Euler sequence of the attitude (:mod:`satdyn.spatial.euler`).
    attitude : {"euler", "quaternion"}
        Attitude states: the paper's Euler angles (12 states, singular at gimbal lock) or a
        quaternion ``[x, y, z, w]`` of ``P_bi`` (13 states ``[x'_P, [IP]_b, q]``, no singularity;
        the motion vectors still carry Euler angles, computed from it).
    """

    def __init__(self, mass, *, com=None, inertia=None, ports=None, gravity=None, sequence="ZYX",
                 attitude="euler"):
        super().__init__(mass, com, inertia, ports, gravity, sequence)
        if self.mass <= 0 or np.linalg.eigvalsh(self.D).min() <= 1e-12 * max(1.0, np.abs(self.D).max()):
            raise ValueError("a floating root needs `mass` > 0 and a positive-definite `inertia` (D_P invertible)")
        if attitude not in ("euler", "quaternion"):
            raise ValueError(f"`attitude` must be 'euler' or 'quaternion'; got {attitude!r}")
        self.attitude = attitude
        self.n_states = 12 if attitude == "euler" else 13
        self.D_inv = np.linalg.inv(self.D)

    def _dcm(self, x):
        if self.attitude == "euler":
            return dcm_from_euler_sequence(x[9:12], self.sequence)
        return dcm_from_quaternion(x[9:13])

    def motion_from_state(self, state) -> np.ndarray:
        """Motion vector (18,) at P with zero acceleration: twist and pose of the state."""
        x = _vector(state, self.n_states, "state")
        att = x[9:12] if self.attitude == "euler" else euler_sequence_from_dcm(self._dcm(x), self.sequence)
        return np.concatenate([np.zeros(6), x[:9], att])

    def forward(self, state, port_wrenches=None, *, t=0.0) -> BlockOutput:
        """Forward dynamics (eqs. 29-31): wrenches at the ports (``"P"`` included) -> motion vectors.

        ``state`` (12,) or (13,); ``port_wrenches`` dict port -> ``[W_{./B,port}]_b`` (6,); ``t`` [s]
        for a field g(t).
        """
        x = _vector(state, self.n_states, "state")
        twist, pos = x[:6], x[6:9]
        mP = self.motion_from_state(x)
        W = self._port_wrench(port_wrenches)
        acc = self.D_inv @ (W - _crf(twist, self.D @ twist)) + self._gravity_hat(mP[15:18], t)
        if self.attitude == "euler":
            att_rate = euler_sequence_rate_matrix(x[9:12], self.sequence) @ twist[3:]
        else:   # q_dot = q (x) [omega_b; 0] / 2, plus a norm-restoring term that vanishes on |q| = 1
            att_rate = quaternion_derivative(x[9:13], twist[3:]) + (1.0 - x[9:13] @ x[9:13]) * x[9:13]
        rates = np.concatenate([twist[:3] + _cross(pos, twist[3:]), att_rate])   # eq. (30)
        mP[:6] = acc
        return BlockOutput(self._outputs(mP), state_derivative=np.concatenate([acc, rates]))

    def inverse(self, motion, port_wrenches=None, *, t=0.0) -> np.ndarray:
        """Inverse dynamics (Fig. 1): imposed ``m_P`` (18,) -> required ``[W_{./B,P}]_b`` (6,)."""
        m = _vector(np.asarray(motion, dtype=float), 18, "motion")
        twist = m[6:12]
        W = self.D @ (m[:6] - self._gravity_hat(m[15:18], t)) + _crf(twist, self.D @ twist)
        return W - self._port_wrench(port_wrenches)


class GroundBlock:
    """Fixed root: the inertial ground at ``position`` [m] with attitude ``P_bi`` (default identity).

    Its motion vectors have zero acceleration and twist. ``ports``: child-port positions in its frame.
    """

    n_states = 0

    def __init__(self, *, position=None, rotation=None, ports=None, sequence="ZYX"):
        self.position = np.zeros(3) if position is None else _vector(position, 3, "position").copy()
        self.rotation = _rotation(rotation, "rotation")
        self.ports = _ports(ports)
        self.sequence = check_sequence(sequence)
        mP = np.zeros(18)
        mP[12:15] = self.rotation.T @ self.position
        mP[15:18] = euler_sequence_from_dcm(self.rotation, sequence)
        self._motion = {"P": mP, **{k: transport_motion(mP, r) for k, r in self.ports.items()}}

    def forward(self, state=None, port_wrenches=None) -> BlockOutput:
        """Motion vectors of the ground points (no inputs needed)."""
        return BlockOutput({k: v.copy() for k, v in self._motion.items()})


class _JointBody(_Body):
    def __init__(self, mass, com, inertia, ports, gravity, sequence, rotation):
        super().__init__(mass, com, inertia, ports, gravity, sequence)
        self.rotation = _rotation(rotation, "rotation")

    def _newton_euler(self, acc, twist, g_hat, Wc):
        """``W_{A/B,P}`` in R_a (eq. 33/45): ``Wc - D (x_dot' - g) - C(x') D x'``."""
        return Wc - self.D @ (acc - g_hat) - _crf(twist, self.D @ twist)


class WeldBlock(_JointBody):
    """Weld ``[R^A_{P,C}]^{R_a}_{R_b}`` (paper eq. 33, Figs. 4-6): static, no states.

    Parameters
    ----------
    mass, com, inertia, ports, gravity, sequence
        As :class:`FloatingBodyBlock`; ``mass`` may be 0 (a massless frame).
    rotation : array_like, shape (3, 3)
        ``P_{a/b}``: the body's axes in the parent frame.
    """

    def __init__(self, mass=0.0, *, com=None, inertia=None, ports=None, gravity=None, sequence="ZYX", rotation=None):
        super().__init__(mass, com, inertia, ports, gravity, sequence, rotation)

    def evaluate(self, parent_motion, port_wrenches=None, *, t=0.0) -> BlockOutput:
        """Parent motion ``[m^B_P]_b`` (18,) and child-port wrenches -> ``[W_{A/B,P}]_b``, child motions."""
        m = body_frame_change(self.rotation, _vector(np.asarray(parent_motion, dtype=float), 18, "parent_motion"),
                              self.sequence)
        W = self._newton_euler(m[:6], m[6:12], self._gravity_hat(m[15:18], t), self._port_wrench(port_wrenches))
        R = self.rotation
        return BlockOutput(self._outputs(m), np.concatenate([R @ W[:3], R @ W[3:]]))

    forward = inverse = evaluate


class _OneDof(_JointBody):
    _kind = ""

    def __init__(self, mass, com, inertia, ports, gravity, sequence, rotation, axis, stiffness, damping, rest):
        super().__init__(mass, com, inertia, ports, gravity, sequence, rotation)
        self.axis = _axis(axis)
        self.stiffness = float(as_float_array(stiffness, "stiffness"))
        self.damping = float(as_float_array(damping, "damping"))
        self.rest = float(as_float_array(rest, "rest"))
        if self.stiffness < 0 or self.damping < 0:
            raise ValueError("`stiffness` and `damping` must be >= 0")
        self.s_hat = np.zeros(6)
        self.s_hat[3 * (self._kind == "revolute"):3 * (self._kind == "revolute") + 3] = self.axis
        self.apparent_inertia = float(self.s_hat @ self.D @ self.s_hat)   # J_r (eq. 47) or m^A

    def passive_effort(self, q, qd) -> float:
        """Joint law ``-k (q - rest) - d q_dot`` (the Fig. 16 feedbacks)."""
        return -self.stiffness * (q - self.rest) - self.damping * qd

    def _solve(self, q, qd, parent_motion, port_wrenches, effort, qdd, t):
        m_in = _vector(np.asarray(parent_motion, dtype=float), 18, "parent_motion")
        P_ab, pre = self._kinematics(float(q), float(qd), m_in)
        base, corr, twist, pose, T = pre
        g_hat = self._gravity_hat(pose[3:], t)
        Wc = self._port_wrench(port_wrenches)
        if qdd is None:   # forward mode: eq. (63) / (92)
            if self.apparent_inertia <= 0:
                raise ValueError(f"a forward-mode {self._kind} block needs a positive apparent inertia "
                                 "(J_r or m^A); weld a massless body to a neighbour instead")
            effort = float(effort) + self.passive_effort(q, qd)
            bias = self.D @ (base - g_hat + corr) + _crf(twist, self.D @ twist) - Wc
            qdd = (effort - self.s_hat @ bias) / self.apparent_inertia
        acc = base + corr + qdd * self.s_hat                                   # eq. (35) / (65)
        W = self._newton_euler(acc, twist, g_hat, Wc)                           # eq. (45) / (75)
        effort_out = -float(self.s_hat @ W)                                      # eq. (46) / (76)
        if T is not None:
            W = T.T @ W                                                          # eq. (93): back to P0
        mP = np.concatenate([acc, twist, pose])
        W_parent = np.concatenate([P_ab @ W[:3], P_ab @ W[3:]])
        return BlockOutput(self._outputs(mP), W_parent, np.array([qdd, qd, q], dtype=float), effort_out)

    def forward(self, q, qd, parent_motion, port_wrenches=None, effort=0.0, *, t=0.0) -> BlockOutput:
        """Forward mode: joint state, parent motion ``[m^B]_b`` (18,), child-port wrenches, drive effort ->
        ``[W_{A/B}]_b``, child motions, ``m_r = [q_ddot, q_dot, q]``.

        ``effort`` is the actuator effort on the child; the block's spring-damper law is added.
        ``BlockOutput.effort`` is the total effort (actuator + law).
        """
        return self._solve(q, qd, parent_motion, port_wrenches, effort, None, t)

    def inverse(self, q, qd, qdd, parent_motion, port_wrenches=None, *, t=0.0) -> BlockOutput:
        """Inverse mode: imposed ``m_r`` -> ``[W_{A/B}]_b``, child motions and the required total effort."""
        return self._solve(q, qd, parent_motion, port_wrenches, None, float(qdd), t)


class RevoluteBlock(_OneDof):
    """Revolute ``[R^{A,r}_{P,C}(s)]^{R_a}_{R_b}`` (paper eqs. 34-64, Figs. 7-9).

    Parameters
    ----------
    axis : array_like, shape (3,)
        Joint axis r in the body frame (normalised).
    mass, com, inertia, ports, gravity, sequence
        As :class:`WeldBlock`.
    rotation : array_like, shape (3, 3)
        ``P_{a0/b}``, the body axes in the parent frame at zero angle;
        ``P_{a/b} = P_{a0/b} exp(theta skew(r))`` (eq. 34).
    stiffness, damping, rest : float
        Joint law ``C = -k (theta - rest) - d theta_dot`` added to the actuator torque.
    """

    _kind = "revolute"

    def __init__(self, axis, mass, *, com=None, inertia=None, ports=None, gravity=None, sequence="ZYX",
                 rotation=None, stiffness=0.0, damping=0.0, rest=0.0):
        super().__init__(mass, com, inertia, ports, gravity, sequence, rotation, axis, stiffness, damping, rest)

    def dcm(self, q) -> np.ndarray:
        """``P_{a/b}(theta)`` (eq. 34)."""
        return self.rotation @ rodrigues(self.axis, q)

    def _kinematics(self, q, qd, m_in):
        P = self.dcm(q)
        m = body_frame_change(P, m_in, self.sequence)
        twist = m[6:12].copy()
        corr = -qd * np.concatenate([_cross(self.axis, m[6:9]), _cross(self.axis, m[9:12])])
        twist[3:] += qd * self.axis
        return P, (m[:6], corr, twist, m[12:18], None)


class PrismaticBlock(_OneDof):
    """Prismatic ``[R^{A,t}_{P0,C}(s)]_a`` (paper eqs. 65-93, Figs. 10-12), with ``P_{a/b}`` folded in.

    The body frame's origin P moves along the axis t from the parent point P0:
    ``IP = IP0 + x t``. The emitted wrench is taken back to P0 (eq. 93).

    Parameters
    ----------
    axis : array_like, shape (3,)
        Axis t in the body frame (normalised).
    rotation : array_like, shape (3, 3)
        Constant ``P_{a/b}``.
    Others as :class:`RevoluteBlock` (``C`` becomes a force [N]).
    """

    _kind = "prismatic"

    def __init__(self, axis, mass, *, com=None, inertia=None, ports=None, gravity=None, sequence="ZYX",
                 rotation=None, stiffness=0.0, damping=0.0, rest=0.0):
        super().__init__(mass, com, inertia, ports, gravity, sequence, rotation, axis, stiffness, damping, rest)

    def dcm(self, q=None) -> np.ndarray:
        """``P_{a/b}`` (constant)."""
        return self.rotation

    def _kinematics(self, q, qd, m_in):
        m0 = body_frame_change(self.rotation, m_in, self.sequence)
        T = np.eye(6)
        d = -q * self.axis                                             # tau_{-x t}: from P0 to P
        T[0, 4], T[0, 5], T[1, 3], T[1, 5], T[2, 3], T[2, 4] = -d[2], d[1], d[2], -d[0], -d[1], d[0]
        twist = T @ m0[6:12]
        twist[:3] += qd * self.axis
        corr = np.zeros(6)
        corr[:3] = -qd * _cross(self.axis, m0[9:12])
        pose = m0[12:18].copy()
        pose[:3] += q * self.axis
        return self.rotation, (T @ m0[:6], corr, twist, pose, T)


class LoopClosureBlock:
    """Penalty loop closure ``L^A_C`` (paper §3.5, Figs. 13-14): a 6x6 spring-damper between two points.

    Inputs: the motion vectors of the two halves' closure points, each in its own body frame
    (``m_a`` of body a, ``m_b`` of body b). With ``F_a = P_{a/i} rotation_a`` and
    ``F_b = P_{b/i} rotation_b`` the closure frames,
    ``dx = [F_a^T (r_b - r_a); log(F_a^T F_b)]`` and ``dx' = F_a^T [v_b - v_a; omega_b - omega_a]``
    (inertial velocities); the wrench on b is ``-(K dx + D dx')`` in the closure frame, and its
    opposite acts on a (the same convention as :class:`satdyn.multibody.LoopClosure`).
    It uses only poses and twists, so it adds no algebraic loop.

    Parameters
    ----------
    stiffness, damping : array_like, shape (6, 6)
    rotation_a, rotation_b : array_like, shape (3, 3), optional
    sequence : str
    """

    def __init__(self, stiffness, damping, *, rotation_a=None, rotation_b=None, sequence="ZYX"):
        self.stiffness = as_batch_of(stiffness, (6, 6), "stiffness").reshape(6, 6).copy()
        self.damping = as_batch_of(damping, (6, 6), "damping").reshape(6, 6).copy()
        self.rotation_a = _rotation(rotation_a, "rotation_a")
        self.rotation_b = _rotation(rotation_b, "rotation_b")
        self.sequence = check_sequence(sequence)

    def error(self, m_a, m_b):
        """``dx`` (6,), ``dx'`` (6,) and the body attitudes ``P_{a/i}``, ``P_{b/i}``."""
        from ..spatial import so3_log

        Pa = dcm_from_euler_sequence(m_a[15:18], self.sequence)
        Pb = dcm_from_euler_sequence(m_b[15:18], self.sequence)
        Fa, Fb = Pa @ self.rotation_a, Pb @ self.rotation_b
        dr = Pb @ m_b[12:15] - Pa @ m_a[12:15]
        dv = Pb @ m_b[6:9] - Pa @ m_a[6:9]
        dw = Pb @ m_b[9:12] - Pa @ m_a[9:12]
        dx = np.concatenate([Fa.T @ dr, so3_log(Fa.T @ Fb)])
        return dx, np.concatenate([Fa.T @ dv, Fa.T @ dw]), Pa, Pb

    def evaluate(self, m_a, m_b):
        """Wrenches on a (in R_a, about point a) and on b (in R_b, about point b), and ``dx``."""
        m_a = _vector(np.asarray(m_a, dtype=float), 18, "m_a")
        m_b = _vector(np.asarray(m_b, dtype=float), 18, "m_b")
        dx, dxd, Pa, Pb = self.error(m_a, m_b)
        W = -(self.stiffness @ dx + self.damping @ dxd)
        Fa = Pa @ self.rotation_a
        F_i, T_i = Fa @ W[:3], Fa @ W[3:]                 # on b, inertial components
        on_b = np.concatenate([Pb.T @ F_i, Pb.T @ T_i])
        on_a = -np.concatenate([Pa.T @ F_i, Pa.T @ T_i])
        return on_a, on_b, dx

    def potential_energy(self, m_a, m_b) -> float:
        """``dx^T K dx / 2`` [J]."""
        dx = self.error(np.asarray(m_a, float), np.asarray(m_b, float))[0]
        return 0.5 * float(dx @ self.stiffness @ dx)
