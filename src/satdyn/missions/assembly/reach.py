"""General reach IK of a walking robot described as kinematic chains.

A walking robot stands on one *docked* foot (its frame = the structure frame at a tile
centre, z up) and reaches with a *moving* arm: a leg (walking) or an arm carrying a tile.
:class:`WalkingKinematics` holds three kinds of chains, each a list of primitive steps:

* ``docked``: from the docked foot frame to the body frame;
* ``moving``: from the body frame to the moving foot (or to the carried tile's centre, with
  a ``tool`` offset appended);
* ``passive``: from the body frame to the other arms' ends (held at their angles; only the
  collision checks of :mod:`.collision` see them).

A step is ``("fixed", R, p)`` (move by p in the current frame, then turn by R),
``("rot", axis, j, sign)`` (turn by ``expm(sign * q[j] * skew(axis))``, axis in the current
frame) or ``("point", label)`` (a labelled joint point, used by the collision checks).
A chain read backwards is :func:`reverse_chain`: that is how the docked arm of a robot
described from its body (a URDF) is walked from its foot, and why joint angles are the same
whichever foot is docked.

Builders: :meth:`WalkingKinematics.from_titop_robot` (the paper's three-arm robot, arm
geometry Y45 etc., joint vector = the (3, 5) angles flattened) and
:meth:`WalkingKinematics.from_multibody` (a fixed-root :class:`satdyn.multibody.Model`, e.g.
from :func:`satdyn.multibody.load_urdf`, whose root link is the body; joint limits from
:func:`urdf_joint_limits`).

:func:`solve_reach` puts the moving end at a :class:`ReachTarget` (position, sole flat, yaw
aligned with the tile up to its symmetry, or free) with only the ``active`` joints moving:

1. Levenberg-Marquardt-like trust-region least squares (``scipy.optimize.least_squares``,
   ``trf``, analytic Jacobian from the chain, bounds = joint limits) from fixed starts: the
   reference posture, then ``seeds - 1`` uniform draws in (-pi/2, pi/2) clipped to the
   limits from ``numpy.random.default_rng(seed)`` -- deterministic, no wall clock;
2. each converged start is moved to the locally closest point to the reference posture on
   the solution manifold (projected Gauss-Newton: ``dq = -J+ r + (I - J+ J)(q_ref - q)``,
   which handles redundant residual rows), then polished by least squares;
3. solutions are de-duplicated (1e-6 rad), sorted by distance to the reference (``q_ref``,
   default 0: the minimum-norm rule), and the first one the optional ``accept`` test passes
   (e.g. a collision-free path, :func:`.collision.check_move`) is selected.

Rotations use the same Rodrigues formula as :func:`satdyn.titop.kinematics.robot_pose`, which
serves as the oracle in the tests.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

__all__ = ["WalkingKinematics", "ReachTarget", "ReachSolution", "ReachError", "Posture", "solve_reach",
           "reverse_chain", "urdf_joint_limits", "rotation_z"]

_EYE = np.eye(3)


class ReachError(ValueError):
    """Bad input to the reach IK, or no acceptable reach pose."""


def rotation_z(angle: float) -> np.ndarray:
    """R_z(angle) (3, 3): the yaw rotation."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def reverse_chain(steps) -> list:
    """The chain walked backwards: steps reversed, each inverted (fixed (R, p) -> (R^T, -R^T p); rot sign flipped)."""
    out = []
    for step in reversed(steps):
        if step[0] == "fixed":
            R, p = step[1], step[2]
            out.append(("fixed", R.T.copy(), -R.T @ p))
        elif step[0] == "rot":
            out.append(("rot", step[1], step[2], -step[3]) + tuple(step[4:]))
        else:
            out.append(step)
    return out


def _check_steps(steps, n_q, name):
    out = []
    for i, step in enumerate(steps):
        kind = step[0] if isinstance(step, (tuple, list)) and step else None
        if kind == "fixed":
            R, p = np.asarray(step[1], float), np.asarray(step[2], float)
            if R.shape != (3, 3) or p.shape != (3,) or np.abs(R.T @ R - _EYE).max() > 1e-9:
                raise ReachError(f"`{name}` step {i}: a fixed step needs a rotation (3, 3) and a vector (3,)")
            out.append(("fixed", R, p))
        elif kind == "rot":
            axis = np.asarray(step[1], float)
            j = step[2]
            if axis.shape != (3,) or np.linalg.norm(axis) < 1e-12:
                raise ReachError(f"`{name}` step {i}: a rot step needs a non-zero axis (3,)")
            if not isinstance(j, (int, np.integer)) or not 0 <= j < n_q:
                raise ReachError(f"`{name}` step {i}: joint index must be in 0..{n_q - 1}; got {j!r}")
            u = axis / np.linalg.norm(axis)
            K = np.array([[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]])
            out.append(("rot", u, int(j), float(step[3]), K, K @ K))
        elif kind == "point":
            out.append(("point", str(step[1])))
        else:
            raise ReachError(f"`{name}` step {i}: kind must be 'fixed', 'rot' or 'point'; got {kind!r}")
    return out


def _tool_steps(tool):
    """The fixed step to the carried tile's centre, checked."""
    if tool is None:
        return []
    try:
        R, p = (np.asarray(v, dtype=float) for v in tool)
    except (TypeError, ValueError):
        raise ReachError(f"`tool` must be (R (3, 3), p (3,)); got {tool!r}") from None
    if R.shape != (3, 3) or p.shape != (3,) or np.abs(R.T @ R - _EYE).max() > 1e-9:
        raise ReachError(f"`tool` must be (R (3, 3) a rotation, p (3,)) [m]; got shapes {R.shape}, {p.shape}")
    return [("fixed", R, p), ("point", "tool")]


def _walk(steps, q, R, p, points=None, joints=None):
    """Compose the chain from frame (R, p); collect labelled points and (joint, world axis, origin, sign)."""
    for step in steps:
        kind = step[0]
        if kind == "fixed":
            p = p + R @ step[2]
            R = R @ step[1]
        elif kind == "rot":
            if joints is not None:
                joints.append((step[2], R @ step[1], p, step[3]))
            a = step[3] * q[step[2]]
            R = R @ (_EYE + math.sin(a) * step[4] + (1.0 - math.cos(a)) * step[5])
        elif points is not None:
            points[step[1]] = p
    return R, p


@dataclass(frozen=True)
class Posture:
    """Forward kinematics of a walking robot, in the docked foot's frame [m].

    ``points`` {label: (3,)} joint points of every chain; ``body`` (R, p) body frame;
    ``end`` (R, p) the moving end (foot or carried tile centre).
    """

    points: dict
    body: tuple
    end: tuple


@dataclass(frozen=True)
class WalkingKinematics:
    """A walking robot for one move: docked chain, moving chain, passive chains (module docstring).

    Attributes
    ----------
    docked, moving : list of steps
    passive : tuple of step lists
    joint_names : tuple of str, length n_q
    lower, upper : (n_q,) joint limits [rad]
    capsules : tuple of (label_a, label_b, radius [m], group)
        Link approximations for :mod:`.collision` (group: the chain they belong to).
    contact_points : frozenset of labels
        Points allowed to touch the structure (the feet), exempt from the clearance margin.
    landing_points : frozenset of labels
        Points of the moving end that touch the structure only at the end of the move.
    name : str
    """

    docked: list
    moving: list
    passive: tuple = ()
    joint_names: tuple = ()
    lower: np.ndarray = None
    upper: np.ndarray = None
    capsules: tuple = ()
    contact_points: frozenset = frozenset()
    landing_points: frozenset = frozenset()
    name: str = "robot"

    @property
    def n_q(self) -> int:
        return len(self.joint_names)

    # -- forward kinematics ------------------------------------------------------------------
    def _q(self, q):
        q = np.asarray(q, dtype=float).reshape(-1)
        if q.shape != (self.n_q,) or not np.all(np.isfinite(q)):
            raise ReachError(f"`q` must be {self.n_q} finite joint angles [rad] ({self.name}); got shape {q.shape}")
        return q

    def end_pose(self, q) -> tuple:
        """(R (3, 3), p (3,)) of the moving end in the docked foot frame."""
        q = self._q(q)
        R, p = _walk(self.docked, q, _EYE, np.zeros(3))
        return _walk(self.moving, q, R, p)

    def posture(self, q) -> Posture:
        """All labelled points, the body frame and the moving end (:class:`Posture`)."""
        q = self._q(q)
        points = {}
        Rb, pb = _walk(self.docked, q, _EYE, np.zeros(3), points)
        end = _walk(self.moving, q, Rb, pb, points)
        for chain in self.passive:
            _walk(chain, q, Rb, pb, points)
        return Posture(points, (Rb, pb), end)

    def jacobian(self, q):
        """(R, p, Jv (3, n_q), Jw (3, n_q)): end pose and its geometric Jacobian (world frame)."""
        q = self._q(q)
        joints = []
        R, p = _walk(self.docked, q, _EYE, np.zeros(3), joints=joints)
        R, p = _walk(self.moving, q, R, p, joints=joints)
        Jv, Jw = np.zeros((3, self.n_q)), np.zeros((3, self.n_q))
        if joints:
            idx = np.array([j[0] for j in joints])
            W = np.array([j[3] * j[1] for j in joints])                  # signed world axes (k, 3)
            D = p - np.array([j[2] for j in joints])                     # joint origin -> end (k, 3)
            np.add.at(Jv.T, idx, np.cross(W, D))
            np.add.at(Jw.T, idx, W)
        return R, p, Jv, Jw

    # -- builders ----------------------------------------------------------------------------
    @classmethod
    def from_chains(cls, docked, moving, joint_names, lower, upper, *, passive=(), capsules=(),
                    contact_points=(), landing_points=(), name="robot") -> "WalkingKinematics":
        """Checked constructor from explicit chains (module docstring for the step format)."""
        names = tuple(str(n) for n in joint_names)
        n_q = len(names)
        lo, hi = (np.broadcast_to(np.asarray(v, float), (n_q,)).copy() for v in (lower, upper))
        if not np.all(lo < hi):
            raise ReachError(f"`lower` must be < `upper` for every joint; got {lo}, {hi}")
        chains = [_check_steps(docked, n_q, "docked"), _check_steps(moving, n_q, "moving")]
        pas = tuple(_check_steps(c, n_q, f"passive[{i}]") for i, c in enumerate(passive))
        labels = {s[1] for c in chains + list(pas) for s in c if s[0] == "point"}
        for cap in capsules:
            if cap[0] not in labels or cap[1] not in labels or not cap[2] >= 0:
                raise ReachError(f"`capsules`: {cap!r} must join two known points with a radius >= 0")
        for lab in tuple(contact_points) + tuple(landing_points):
            if lab not in labels:
                raise ReachError(f"`contact_points`/`landing_points`: unknown point {lab!r}")
        return cls(chains[0], chains[1], pas, names, lo, hi, tuple(capsules), frozenset(contact_points),
                   frozenset(landing_points), name)

    @classmethod
    def from_titop_robot(cls, robot=None, kind: str = "walk", dock: int = 1, *, limit: float = 2 * np.pi,
                         radius: float = 0.0, tool=None) -> "WalkingKinematics":
        """The paper's three-arm robot (:func:`satdyn.titop.data.load_robot`) for one kind of move.

        ``kind`` "walk": leg ``dock`` docked, the other leg moves, R3 passive; "r3": leg
        ``dock`` docked, R3 (with the tile at its J0) moves, the other leg passive.  Joint
        vector = angles (3, 5) of R1, R2, R3 flattened (index 5 k + i); limits +-``limit``
        (the model's joint range is (-2 pi, 2 pi)); capsules = links J_i J_{i+1} and hub
        spokes D J6, all of ``radius``; contact points (exempt from the plane margin, as
        in the paper's gait) = the two foot columns J0, J1.
        """
        if robot is None:
            from ...titop.data import load_robot
            robot = load_robot("Y45")
        if kind not in ("walk", "r3"):
            raise ReachError(f"`kind` must be 'walk' or 'r3'; got {kind!r}")
        if dock not in (1, 2):
            raise ReachError(f"`dock` must be 1 or 2; got {dock!r}")
        arm = robot.arm
        a = dock - 1
        m = 1 - a if kind == "walk" else 2
        p_arm = 2 if kind == "walk" else 1 - a

        def up(k):   # foot J0 -> body frame c at D, arm k (as satdyn.titop.kinematics.arm_chain_up)
            steps = [("point", f"R{k + 1}.J0")]
            for i in range(6):
                steps.append(("fixed", _EYE, arm.link_vectors[i]))
                steps.append(("point", f"R{k + 1}.J{i + 1}"))
                if i < 5:
                    steps.append(("fixed", arm.offsets[i], np.zeros(3)))
                    steps.append(("rot", arm.axes[i], 5 * k + i, 1.0))
            steps.append(("fixed", robot.P_l5_c[k].T, np.zeros(3)))
            steps.append(("fixed", _EYE, -robot.r_D_J6[k]))
            steps.append(("point", "hub.D"))
            return steps

        moving = reverse_chain(up(m)) + _tool_steps(tool)
        if not (np.isfinite(radius) and radius >= 0):
            raise ReachError(f"`radius` must be a capsule radius >= 0 [m]; got {radius!r}")
        names = [f"R{k + 1}.alpha{i + 1}" for k in range(3) for i in range(5)]
        caps = [(f"R{k + 1}.J{i}", f"R{k + 1}.J{i + 1}", radius, f"R{k + 1}") for k in range(3) for i in range(6)]
        caps += [("hub.D", f"R{k + 1}.J6", radius, "hub") for k in range(3)]
        return cls.from_chains(up(a), moving, names, -limit, limit, passive=(reverse_chain(up(p_arm)),),
                               capsules=caps,
                               contact_points=tuple(f"R{k + 1}.J{i}" for k in (a, m) for i in (0, 1)),
                               landing_points=(f"R{m + 1}.J0",) + (("tool",) if tool is not None else ()),
                               name=f"{arm.name} {kind} dock R{dock}")

    @classmethod
    def from_multibody(cls, model, docked_foot: str, moving_foot: str, *, passive_feet=(), limits=None,
                       radius: float = 0.0, tool=None, contact_points=None, name=None) -> "WalkingKinematics":
        """A fixed-root :class:`satdyn.multibody.Model` whose root body is the robot's body.

        Parameters
        ----------
        model : Model (e.g. ``load_urdf(path)``, root welded); only revolute and weld joints
        docked_foot, moving_foot : body names of the two ends (their frames are the soles)
        passive_feet : body names of other ends (collision checks only)
        limits : {joint name: (lower, upper)} [rad]; default +-2 pi (see :func:`urdf_joint_limits`)
        radius : capsule radius [m] of every link, or {body name: radius} (missing: 0); the
            capsule of a body runs from its parent's origin to its own along the chain
        tool : (R (3, 3), p (3,)) offset of the carried tile centre from the moving foot frame
        contact_points : body names allowed to touch the structure (default the two feet)
        """
        if getattr(model, "is_floating", False) or model.joints[0].kind not in ("fixed", "weld"):
            raise ReachError("`model` must have a fixed root (load_urdf(path, floating=False)); its root is the body")
        names = model.q_names() if callable(getattr(model, "q_names", None)) else list(model.q_names)
        n_q = model.nq
        lo, hi = np.full(n_q, -2 * np.pi), np.full(n_q, 2 * np.pi)
        for jname, (l, u) in (limits or {}).items():
            if jname not in names:
                raise ReachError(f"`limits`: unknown joint {jname!r}; joints: {names}")
            lo[names.index(jname)], hi[names.index(jname)] = l, u

        def down(foot):   # body -> foot along the tree
            try:
                i = model.body_index(foot)
            except (KeyError, ValueError):
                raise ReachError(f"unknown body {foot!r}; bodies: {[b.name for b in model.bodies]}") from None
            path = []
            while i > 0:
                path.append(i)
                i = model.parents[i]
            steps = [("point", model.bodies[0].name)]
            for i in reversed(path):
                joint = model.joints[i]
                if joint.kind not in ("revolute", "weld", "fixed"):
                    raise ReachError(f"joint {joint.name!r} of kind {joint.kind!r}: only revolute and fixed joints")
                steps.append(("fixed", np.asarray(joint.rotation, float), np.asarray(joint.position, float)))
                if joint.kind == "revolute":
                    steps.append(("rot", np.asarray(joint.axis, float), model.q_slice(i).start, 1.0))
                steps.append(("point", model.bodies[i].name))
            return steps

        chains = [down(f) for f in (docked_foot, moving_foot) + tuple(passive_feet)]
        moving = chains[1] + _tool_steps(tool)
        radii = radius if isinstance(radius, dict) else {}
        for link, r in radii.items():
            if link not in [b.name for b in model.bodies] or not (np.isfinite(r) and r >= 0):
                raise ReachError(f"`radius`: {link!r}: {r!r} must be a body name with a radius >= 0 [m]")
        default = 0.0 if isinstance(radius, dict) else radius
        if not (np.isfinite(default) and default >= 0):
            raise ReachError(f"`radius` must be a capsule radius >= 0 [m] or {{link: radius}}; got {radius!r}")
        caps, seen = [], set()
        for c in chains:
            pts = [s[1] for s in c if s[0] == "point"]
            for a_, b_ in zip(pts[:-1], pts[1:]):
                if (a_, b_) not in seen:
                    seen.add((a_, b_))
                    caps.append((a_, b_, float(radii.get(b_, default)), pts[-1]))
        return cls.from_chains(reverse_chain(chains[0]), moving, names, lo, hi, passive=tuple(chains[2:]),
                               capsules=caps,
                               contact_points=(docked_foot, moving_foot) if contact_points is None else contact_points,
                               landing_points=(moving_foot,) + (("tool",) if tool is not None else ()),
                               name=name or f"{model.name}: {docked_foot} docked, {moving_foot} moves")


def urdf_joint_limits(path) -> dict:
    """{joint name: (lower, upper)} [rad] of the revolute joints of a URDF file (continuous: none)."""
    root = ET.parse(Path(path)).getroot()
    out = {}
    for j in root.findall("joint"):
        lim = j.find("limit")
        if j.get("type") == "revolute" and lim is not None:
            out[j.get("name")] = (float(lim.get("lower", -np.pi)), float(lim.get("upper", np.pi)))
    return out


@dataclass(frozen=True)
class ReachTarget:
    """Pose of the moving end: position (3,) [m] in the docked foot frame, sole flat (z up).

    ``yaw`` [rad] of the end's x axis, taken modulo ``2 pi / symmetry`` (tile symmetry: 1 for
    a foot or a generic tile, 2 for a rectangle, 4 for a square); ``yaw=None`` leaves it free.
    """

    position: np.ndarray
    yaw: float | None = 0.0
    symmetry: int = 1

    def __post_init__(self):
        p = np.asarray(self.position, dtype=float)
        if p.shape != (3,) or not np.all(np.isfinite(p)):
            raise ReachError(f"`position` must be 3 finite coordinates [m]; got {self.position!r}")
        object.__setattr__(self, "position", p)
        if self.yaw is not None and not np.isfinite(self.yaw):
            raise ReachError(f"`yaw` must be finite or None; got {self.yaw!r}")
        if isinstance(self.symmetry, bool) or not isinstance(self.symmetry, (int, np.integer)) or self.symmetry < 1:
            raise ReachError(f"`symmetry` must be an integer >= 1; got {self.symmetry!r}")

    def yaws(self):
        """The equivalent yaws [rad] (None if free)."""
        if self.yaw is None:
            return [None]
        return [float(self.yaw) + 2 * np.pi * k / self.symmetry for k in range(self.symmetry)]


@dataclass(frozen=True)
class ReachSolution:
    """Selected joint vector ``q`` (n_q,) [rad], the other candidates (sorted), its residual and yaw."""

    q: np.ndarray
    candidates: tuple
    residual: float
    yaw: float | None
    rejected: int = 0


def _residual_and_jac(kin, q, target, yaw):
    R, p, Jv, Jw = kin.jacobian(q)
    ez = R[:, 2]
    r = [p - target.position, ez[:2]]
    J = [Jv, np.cross(Jw.T, ez).T[:2]]          # d(R e_z) = omega x (R e_z)
    if yaw is not None:
        y_star = np.array([-np.sin(yaw), np.cos(yaw), 0.0])
        ex = R[:, 0]
        r.append([ex @ y_star])
        J.append((np.cross(Jw.T, ex) @ y_star)[None])
    return np.concatenate(r), np.vstack(J)


def _residual(kin, q, target, yaw):
    R, p = kin.end_pose(q)
    r = [p - target.position, R[:2, 2]]
    if yaw is not None:
        r.append([R[:, 0] @ np.array([-np.sin(yaw), np.cos(yaw), 0.0])])
    return np.concatenate(r)


def _orientation_ok(kin, q, yaw, tol=1e-6):
    R, _ = kin.end_pose(q)
    if R[2, 2] < 1 - tol:
        return False
    return yaw is None or R[:, 0] @ np.array([np.cos(yaw), np.sin(yaw), 0.0]) > 1 - tol


def solve_reach(kin: WalkingKinematics, target: ReachTarget, *, active=None, q_ref=None, seeds: int = 24,
                seed: int = 0, accept=None, tol: float = 1e-10, max_candidates: int | None = None) -> ReachSolution:
    """Joint angles putting the moving end on ``target`` (module docstring for the algorithm).

    Parameters
    ----------
    kin : WalkingKinematics
    target : ReachTarget
    active : indices of the joints that move (default all); the others stay at ``q_ref``
    q_ref : (n_q,) reference posture [rad] (default 0): first start and the "closest" rule
    seeds : number of starts (the first is ``q_ref``); seed : seed of the other starts
    accept : callable(q) -> bool, e.g. a collision-free path test; tried in sorted order
    tol : residual norm below which a start counts as converged [m, rad]

    Returns
    -------
    ReachSolution
    """
    if not isinstance(kin, WalkingKinematics):
        raise ReachError(f"`kin` must be a WalkingKinematics; got {type(kin).__name__}")
    if not isinstance(target, ReachTarget):
        raise ReachError(f"`target` must be a ReachTarget; got {type(target).__name__}")
    n = kin.n_q
    q_ref = np.zeros(n) if q_ref is None else kin._q(q_ref).copy()
    act = np.arange(n) if active is None else np.asarray(active, dtype=int).reshape(-1)
    if act.size == 0 or act.min() < 0 or act.max() >= n or np.unique(act).size != act.size:
        raise ReachError(f"`active` must be distinct joint indices in 0..{n - 1}; got {active!r}")
    if isinstance(seeds, bool) or not isinstance(seeds, (int, np.integer)) or seeds < 1:
        raise ReachError(f"`seeds` must be an integer >= 1; got {seeds!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ReachError(f"`seed` must be an integer (the starts' random seed); got {seed!r}")
    if accept is not None and not callable(accept):
        raise ReachError(f"`accept` must be a callable q -> bool or None; got {type(accept).__name__}")
    lo, hi = kin.lower[act], kin.upper[act]
    if np.any(q_ref[act] < lo) or np.any(q_ref[act] > hi):
        raise ReachError("`q_ref` must lie within the joint limits")
    rng = np.random.default_rng(seed)
    starts = [q_ref[act]] + [np.clip(rng.uniform(-np.pi / 2, np.pi / 2, act.size), lo, hi) for _ in range(seeds - 1)]

    def full(x):
        q = q_ref.copy()
        q[act] = x
        return q

    found = []                                   # (distance, x, yaw)
    for yaw in target.yaws():
        def fun(x, yaw=yaw):
            return _residual(kin, full(x), target, yaw)

        def jac(x, yaw=yaw):
            return _residual_and_jac(kin, full(x), target, yaw)[1][:, act]

        for x0 in starts:
            ls = least_squares(fun, x0, jac=jac, bounds=(lo, hi), method="trf", xtol=1e-12, ftol=1e-12, gtol=1e-12)
            if np.linalg.norm(ls.fun) > 1e-6:
                continue
            x = _closest_on_manifold(fun, jac, ls.x, q_ref[act], lo, hi)
            r = fun(x)
            if np.linalg.norm(r) > tol or not _orientation_ok(kin, full(x), yaw):
                continue
            if not any(np.allclose(x, f[1], atol=1e-6) for f in found):
                found.append((float(np.linalg.norm(x - q_ref[act])), x, yaw))
    found.sort(key=lambda f: f[0])
    if max_candidates is not None:
        found = found[:max_candidates]
    rejected = 0
    for _dist, x, yaw in found:
        q = full(x)
        if accept is None or accept(q):
            res = np.linalg.norm(_residual_and_jac(kin, q, target, yaw)[0])
            return ReachSolution(q, tuple(full(f[1]) for f in found), float(res), yaw, rejected)
        rejected += 1
    raise ReachError(f"no acceptable reach pose for {kin.name} at {target.position.tolist()} "
                     f"({len(found)} solutions from {seeds} starts, {rejected} rejected by `accept`)")


def _closest_on_manifold(fun, jac, x, x_ref, lo, hi, iters=200):
    """Locally closest point to ``x_ref`` on {fun = 0} from ``x`` (projected Gauss-Newton, within the limits)."""
    for _ in range(iters):
        r, J = fun(x), jac(x)
        Jp = np.linalg.pinv(J, rcond=1e-10)
        step = -Jp @ r + (np.eye(x.size) - Jp @ J) @ (x_ref - x)
        x_new = np.clip(x + step, lo, hi)
        if np.linalg.norm(fun(x_new)) > max(10 * np.linalg.norm(r), 1e-9):   # curvature: take a half step
            x_new = np.clip(x + 0.5 * step, lo, hi)
        done = np.linalg.norm(x_new - x) < 1e-12
        x = x_new
        if done:
            break
    # polish the residual to rounding: minimum-norm Gauss-Newton steps (quadratic convergence)
    for _ in range(5):
        r = fun(x)
        if np.linalg.norm(r) < 1e-15:
            break
        x = np.clip(x - np.linalg.pinv(jac(x), rcond=1e-10) @ r, lo, hi)
    return x
