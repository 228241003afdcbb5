"""The immutable multibody tree model and its builder.

A :class:`Model` is a tree of rigid bodies, each attached to its parent by one
:class:`~satdyn.multibody.joints.Joint` (the root's joint attaches it to the inertial
frame). Bodies are numbered in the order they were added, parents first; the
generalized coordinates follow that order:

* ``q`` (dim ``model.nq``): root coordinates (floating: ``[r_i (3), quaternion (4, scalar-last)]``)
  then each joint's coordinates;
* ``v`` (dim ``model.nv``): root ``[v; omega]`` in the root body frame, then joint rates
  (as Pinocchio and arXiv:2505.03248).

Each body frame has its origin at the body's joint point (the parent port); a body's
mass properties and ports are given in its own frame. External wrenches (constant,
time-dependent, attitude-dependent) and penalty loop closures (arXiv:2505.03248 §3.5) are part of
the model; gravity is an explicit field ``[g]_i`` (default none).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType

import numpy as np

from .._validation import as_batch_of, as_float_array
from ..spatial import rigid_mass_matrix
from .joints import ROOT_KINDS, Joint, neutral_configuration
from .sweeps import build_sweep_constants

__all__ = ["Body", "body", "ExternalWrench", "LoopClosure", "Model", "ModelBuilder"]


def _frozen(array) -> np.ndarray:
    a = np.array(array, dtype=float)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Body:
    """A rigid body: mass [kg], centre of mass [m] and inertia about it [kg m^2] in the body frame, ports.

    ``ports`` maps a port name to its position [m] in the body frame; children are attached
    at ports (or at explicit positions).
    """

    name: str
    mass: float
    com: np.ndarray
    inertia: np.ndarray
    ports: Mapping[str, np.ndarray] = field(default_factory=dict)

    @property
    def spatial_inertia(self) -> np.ndarray:
        """6x6 dynamic model ``D_O`` at the body-frame origin (arXiv:2505.03248 eq. 13), ``[linear; angular]``."""
        if self.mass == 0.0:  # a massless frame, or a rotational inertia without mass (as Pinocchio)
            D = np.zeros((6, 6))
            D[3:, 3:] = self.inertia
            return D
        return rigid_mass_matrix(self.mass, self.inertia, self.com)


def body(name: str, mass, *, com=None, inertia=None, ports: Mapping | None = None) -> Body:
    """Create a :class:`Body`. ``inertia`` about the CoM defaults to zero (a point mass).

    ``mass`` [kg] > 0, or 0 for a massless frame (a massless body with no inertia cannot end a
    forward-mode branch, arXiv:2505.03248 §3.8). Zero mass with an inertia is a rotational
    inertia without mass (Pinocchio's ``Inertia(0, c, I)``: the CoM then plays no role).
    ``inertia`` must be symmetric positive semi-definite (to 1e-12 relative).
    """
    if not isinstance(name, str):
        raise TypeError(f"`name` of a body must be a str; got {type(name).__name__}")
    m = float(as_float_array(mass, "mass"))
    if m < 0.0:
        raise ValueError(f"`mass` of body {name!r} must be >= 0 [kg]; got {m}")
    c = np.zeros(3) if com is None else as_batch_of(com, (3,), "com").reshape(3)
    J = np.zeros((3, 3)) if inertia is None else as_batch_of(inertia, (3, 3), "inertia").reshape(3, 3)
    if not np.allclose(J, J.T, atol=1e-12 * max(1.0, np.abs(J).max())):
        raise ValueError(f"`inertia` of body {name!r} must be symmetric")
    if np.linalg.eigvalsh(J).min() < -1e-12 * max(1.0, np.abs(J).max()):
        raise ValueError(f"`inertia` of body {name!r} must be positive semi-definite")
    port_map = {str(k): _frozen(as_batch_of(p, (3,), f"ports[{k!r}]").reshape(3))
                for k, p in (ports or {}).items()}
    return Body(name, m, _frozen(c), _frozen(J), MappingProxyType(port_map))


@dataclass(frozen=True, eq=False)
class ExternalWrench:
    """A wrench applied on a body at a body point.

    ``wrench`` is a constant (6,) ``[F; T]`` or a callable ``wrench(t, position, P_ai)``
    returning (..., 6), with ``position`` (..., 3) the inertial position of the point and
    ``P_ai`` (..., 3, 3) the body attitude (attitude-dependent loads such as buoyancy).
    ``frame`` is the frame of the returned components: ``"body"`` or ``"inertial"``.
    A constant inertial force with no torque is conservative; its potential
    ``-F . r_point`` enters :func:`~satdyn.multibody.energy.mechanical_energy`.
    """

    body: int
    point: np.ndarray
    wrench: np.ndarray | Callable
    frame: str = "body"

    @property
    def is_constant(self) -> bool:
        return not callable(self.wrench)


@dataclass(frozen=True, eq=False)
class LoopClosure:
    """Penalty loop closure (arXiv:2505.03248 §3.5): a spring-damper between two body points.

    The wrench on body ``body_b`` at ``point_b`` is ``-(K dx + D dx')`` and its opposite acts
    on ``body_a`` at ``point_a``. ``dx = [r_b - r_a; log(P_{a/i}^T P_{b/i})]`` (inertial position
    difference and rotation-vector attitude error, both in frame a's axes with ``rotation_a``/``rotation_b``
    the closure frames) and ``dx'`` the twist difference of the two points. ``stiffness`` and
    ``damping`` are 6x6 (use zero rotational blocks for a revolute-like closure).
    """

    name: str
    body_a: int
    point_a: np.ndarray
    body_b: int
    point_b: np.ndarray
    stiffness: np.ndarray
    damping: np.ndarray
    rotation_a: np.ndarray = field(default_factory=lambda: np.eye(3))
    rotation_b: np.ndarray = field(default_factory=lambda: np.eye(3))


@dataclass(frozen=True, eq=False)
class Model:
    """Immutable multibody tree. Create it with :class:`ModelBuilder` (or :func:`~satdyn.multibody.load_urdf`).

    Attributes
    ----------
    bodies, joints : tuple
        ``joints[i]`` attaches ``bodies[i]`` to ``bodies[parents[i]]`` (``parents[0] == -1``).
    parents : tuple of int
    gravity : ndarray, shape (3,)
        Uniform gravity / acceleration field ``[g]_i`` [m/s^2].
    external_wrenches, loop_closures : tuple
    idx_q, idx_v : tuple of int
        First index of each joint in ``q`` and ``v``.
    nq, nv : int
    """

    bodies: tuple
    joints: tuple
    parents: tuple
    gravity: np.ndarray
    external_wrenches: tuple = ()
    loop_closures: tuple = ()
    name: str = "model"
    idx_q: tuple = ()
    idx_v: tuple = ()
    nq: int = 0
    nv: int = 0
    spatial_inertias: np.ndarray = None
    children: tuple = ()

    @property
    def n_bodies(self) -> int:
        return len(self.bodies)

    @property
    def root(self) -> Joint:
        return self.joints[0]

    @property
    def is_floating(self) -> bool:
        return self.joints[0].kind in ("floating", "floating_euler")

    def body_index(self, name) -> int:
        if isinstance(name, (int, np.integer)):
            if not 0 <= name < len(self.bodies):
                raise ValueError(f"body index {name} out of range 0..{len(self.bodies) - 1}")
            return int(name)
        for i, b in enumerate(self.bodies):
            if b.name == name:
                return i
        raise ValueError(f"no body named {name!r}; bodies: {[b.name for b in self.bodies]}")

    def joint_index(self, name) -> int:
        for i, j in enumerate(self.joints):
            if j.name == name:
                return i
        raise ValueError(f"no joint named {name!r}; joints: {[j.name for j in self.joints]}")

    @cached_property
    def _sweep_constants(self):
        # per-body arrays of the dynamics sweeps, built once
        return build_sweep_constants(self)

    @cached_property
    def _slices(self):
        return (tuple(slice(a, a + j.nq) for a, j in zip(self.idx_q, self.joints)),
                tuple(slice(a, a + j.nv) for a, j in zip(self.idx_v, self.joints)))

    def q_slice(self, i: int) -> slice:
        """Slice of joint i's coordinates in ``q``."""
        return self._slices[0][i]

    def v_slice(self, i: int) -> slice:
        """Slice of joint i's rates in ``v``."""
        return self._slices[1][i]

    def neutral_configuration(self) -> np.ndarray:
        """q (nq,) with every joint at zero and identity quaternions."""
        return np.concatenate([neutral_configuration(j) for j in self.joints] + [np.zeros(0)])

    @property
    def q_names(self) -> list[str]:
        return _coordinate_names(self, "q")

    @property
    def v_names(self) -> list[str]:
        return _coordinate_names(self, "v")

    @property
    def total_mass(self) -> float:
        """Sum of all body masses (the root's included) [kg]."""
        return float(sum(b.mass for b in self.bodies))


_SUFFIX = {
    ("floating", "q"): ["x", "y", "z", "qx", "qy", "qz", "qw"],
    ("floating", "v"): ["vx", "vy", "vz", "wx", "wy", "wz"],
    ("floating_euler", "q"): ["x", "y", "z", "phi", "theta", "psi"],
    ("floating_euler", "v"): ["vx", "vy", "vz", "wx", "wy", "wz"],
    ("spherical", "q"): ["qx", "qy", "qz", "qw"],
    ("spherical", "v"): ["wx", "wy", "wz"],
}


def _coordinate_names(model, which):
    names = []
    for j in model.joints:
        n = j.nq if which == "q" else j.nv
        if n == 1:
            names.append(j.name)
        elif n:
            names.extend(f"{j.name}.{s}" for s in _SUFFIX[(j.kind, which)])
    return names


class ModelBuilder:
    """Assemble a :class:`Model` body by body (parents first).

    Parameters
    ----------
    gravity : array_like, shape (3,), optional
        Uniform field ``[g]_i`` [m/s^2]; default none (space).
    name : str

    Examples
    --------
    >>> b = ModelBuilder(gravity=[0, 0, -9.81])
    >>> b.add_body(body("base", 1.0, ports={"tip": [0, 0, 1]}), fixed_root())
    >>> b.add_body(body("link", 1.0, com=[0, 0, -0.5]), revolute_joint("q1", [0, 1, 0]),
    ...            parent="base", port="tip")
    >>> model = b.build()
    """

    def __init__(self, gravity=None, name: str = "model"):
        self._g = np.zeros(3) if gravity is None else as_batch_of(gravity, (3,), "gravity").reshape(3)
        self._name = name
        self._bodies: list[Body] = []
        self._joints: list[Joint] = []
        self._parents: list[int] = []
        self._wrenches: list[ExternalWrench] = []
        self._closures: list[LoopClosure] = []

    def _index(self, name):
        for i, b in enumerate(self._bodies):
            if b.name == name or i == name:
                return i
        raise ValueError(f"unknown body {name!r}; add the parent first (bodies: {[b.name for b in self._bodies]})")

    def _point(self, i, port, position, what):
        if port is not None and position is not None:
            raise ValueError(f"give either `{what}port` or `{what}position`, not both")
        if port is not None:
            ports = self._bodies[i].ports
            if port not in ports:
                raise ValueError(f"body {self._bodies[i].name!r} has no port {port!r}; ports: {list(ports)}")
            return np.array(ports[port])
        return np.zeros(3) if position is None else as_batch_of(position, (3,), f"{what}position").reshape(3)

    def add_body(self, new_body: Body, joint: Joint, *, parent=None, port=None, position=None) -> int:
        """Add ``new_body`` attached by ``joint`` to ``parent`` at its ``port`` (or ``position``).

        The first body is the root; its joint must be a root joint (floating, floating_euler,
        fixed, prescribed). Returns the new body's index.
        """
        if not isinstance(new_body, Body):
            raise TypeError("`new_body` must be a Body (use satdyn.multibody.body(...))")
        if not isinstance(joint, Joint):
            raise TypeError("`joint` must be a Joint (use revolute_joint(...), ...)")
        if any(b.name == new_body.name for b in self._bodies):
            raise ValueError(f"duplicate body name {new_body.name!r}")
        if any(j.name == joint.name for j in self._joints):
            raise ValueError(f"duplicate joint name {joint.name!r}")
        if not self._bodies:
            if joint.kind not in ROOT_KINDS or parent is not None:
                raise ValueError("the first body is the root: give it a root joint "
                                 "(floating_root, floating_euler_root, fixed_root, prescribed_root) and no parent")
            self._parents.append(-1)
        else:
            if joint.kind in ROOT_KINDS:
                raise ValueError(f"joint {joint.name!r}: only the first body takes a root joint")
            if parent is None:
                raise ValueError(f"body {new_body.name!r} needs a `parent`")
            ip = self._index(parent)
            joint = replace(joint, position=_frozen(self._point(ip, port, position, "")))
            self._parents.append(ip)
        self._bodies.append(new_body)
        self._joints.append(joint)
        return len(self._bodies) - 1

    def add_external_wrench(self, body_name, wrench, *, port=None, position=None, frame="body") -> None:
        """Apply ``wrench`` (constant (6,) or callable ``(t, position, P_ai)``) on a body at a point."""
        i = self._index(body_name)
        if frame not in ("body", "inertial"):
            raise ValueError(f"`frame` must be 'body' or 'inertial'; got {frame!r}")
        w = wrench if callable(wrench) else _frozen(as_batch_of(wrench, (6,), "wrench").reshape(6))
        self._wrenches.append(ExternalWrench(i, _frozen(self._point(i, port, position, "")), w, frame))

    def add_loop_closure(self, name, body_a, body_b, *, stiffness, damping, port_a=None, position_a=None,
                         port_b=None, position_b=None, rotation_a=None, rotation_b=None) -> None:
        """Close a kinematic loop between two body points with a 6x6 penalty spring-damper (arXiv:2505.03248 §3.5)."""
        ia, ib = self._index(body_a), self._index(body_b)
        K = as_batch_of(stiffness, (6, 6), "stiffness").reshape(6, 6)
        D = as_batch_of(damping, (6, 6), "damping").reshape(6, 6)
        Ra = np.eye(3) if rotation_a is None else as_batch_of(rotation_a, (3, 3), "rotation_a").reshape(3, 3)
        Rb = np.eye(3) if rotation_b is None else as_batch_of(rotation_b, (3, 3), "rotation_b").reshape(3, 3)
        self._closures.append(LoopClosure(name, ia, _frozen(self._point(ia, port_a, position_a, "")), ib,
                                          _frozen(self._point(ib, port_b, position_b, "")),
                                          _frozen(K), _frozen(D), _frozen(Ra), _frozen(Rb)))

    def build(self) -> Model:
        """The immutable :class:`Model`."""
        if not self._bodies:
            raise ValueError("the model has no body")
        idx_q, idx_v, nq, nv = [], [], 0, 0
        for j in self._joints:
            idx_q.append(nq)
            idx_v.append(nv)
            nq += j.nq
            nv += j.nv
        children = [[] for _ in self._bodies]
        for i, p in enumerate(self._parents):
            if p >= 0:
                children[p].append(i)
        inertias = _frozen(np.stack([b.spatial_inertia for b in self._bodies]))
        return Model(tuple(self._bodies), tuple(self._joints), tuple(self._parents), _frozen(self._g),
                     tuple(self._wrenches), tuple(self._closures), self._name, tuple(idx_q), tuple(idx_v),
                     nq, nv, inertias, tuple(tuple(c) for c in children))
