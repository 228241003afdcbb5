"""Multibody views: a :class:`satdyn.multibody.Model` with joint sliders (:func:`robot`) and a
trajectory replayed with a time slider (:func:`trajectory`).

The tree goes to the browser as its joints (kind, ``P_{a0/b}`` rotation, position in the parent,
axis, index in ``q``); the page computes the forward kinematics of
:func:`satdyn.multibody.joints.joint_placement` itself, so a slider moves every link below its
joint.  Shapes: the URDF's visuals when ``urdf`` is given (boxes, cylinders, spheres, STL/OBJ/DAE
meshes), otherwise each body's equivalent-inertia box (the uniform box with the body's mass and
principal moments, at its centre of mass) and a rod from each body origin to its children's joints.
"""

from __future__ import annotations

import numpy as np

from ..multibody import body_poses
from ..multibody.kinematics import forward_kinematics
from .scene import Scene, VizInputError, fit_camera, rounded
from .urdf_visuals import Visual, urdf_joint_limits, urdf_visuals

__all__ = ["inertia_box", "robot", "trajectory"]

PALETTE = ((0.30, 0.50, 0.78), (0.85, 0.45, 0.20), (0.35, 0.65, 0.40), (0.75, 0.30, 0.45),
           (0.55, 0.45, 0.75), (0.80, 0.65, 0.20))
MAX_FRAMES = 2000


def inertia_box(mass: float, inertia) -> tuple[np.ndarray, np.ndarray]:
    """Sides (3,) [m] and axes (3, 3) (columns, body frame) of the uniform box with this mass [kg]
    and inertia about its centre [kg m^2]: ``I_1 = m (b^2 + c^2) / 12`` and so on."""
    moments, axes = np.linalg.eigh(np.asarray(inertia, dtype=float))
    total = moments.sum()
    sides = np.sqrt(np.maximum(6.0 * (total - 2.0 * moments) / mass, 0.0))
    return sides, axes


def _check_model(model):
    """(tree Model, mimic couplings, map from the given coordinates to the tree's)."""
    if hasattr(model, "expand") and hasattr(model, "mimics"):         # a CoupledModel (URDF mimic joints)
        tree = model.model
        index = {j.name: i for i, j in enumerate(tree.joints)}
        mimics = [{"index": int(tree.idx_q[index[name]]), "master": int(tree.idx_q[index[master]]),
                   "multiplier": float(k), "offset": float(c)} for name, (master, k, c) in model.mimics.items()]
        return tree, mimics, model.expand
    for attr in ("bodies", "joints", "parents", "idx_q", "nq"):
        if not hasattr(model, attr):
            raise VizInputError("`model` must be a satdyn.multibody.Model (or CoupledModel); got "
                                f"{type(model).__name__}")
    return model, [], lambda q: q


def _default_visuals(model) -> dict:
    """Equivalent-inertia boxes and rods to the children's joints (module doc)."""
    offsets = [np.asarray(j.position, dtype=float) for j in model.joints[1:]]
    boxes = {}
    for b in model.bodies:
        if b.mass > 0 and np.any(b.inertia):
            boxes[b.name] = inertia_box(b.mass, b.inertia)
    lengths = [np.linalg.norm(o) for o in offsets] + [s.max() for s, _ in boxes.values()]
    scale = max(lengths + [0.1])
    rod = 0.025 * scale
    out = {}
    for i, b in enumerate(model.bodies):
        color = PALETTE[i % len(PALETTE)] + (1.0,)
        shapes = []
        if b.name in boxes:
            sides, axes = boxes[b.name]
            if np.linalg.det(axes) < 0:
                axes = axes * np.array([1.0, 1.0, -1.0])
            shapes.append(Visual("box", axes, np.asarray(b.com, dtype=float), tuple(np.maximum(sides, rod)),
                                 color=color))
        shapes.append(Visual("sphere", np.eye(3), np.zeros(3), (1.6 * rod,), color=(0.25, 0.25, 0.28, 1.0)))
        for child, parent in enumerate(model.parents):
            if parent != i:
                continue
            d = np.asarray(model.joints[child].position, dtype=float)
            length = float(np.linalg.norm(d))
            if length < 1e-9:
                continue
            z = d / length
            x = np.cross(z, [1.0, 0.0, 0.0] if abs(z[0]) < 0.9 else [0.0, 1.0, 0.0])
            x /= np.linalg.norm(x)
            R = np.column_stack([x, np.cross(z, x), z])
            shapes.append(Visual("cylinder", R, 0.5 * d, (rod, length), color=color))
        out[b.name] = shapes
    return out


def _joint_entry(model, i, t0):
    joint = model.joints[i]
    kind = joint.kind
    R0, p0 = np.asarray(joint.rotation, dtype=float), np.asarray(joint.position, dtype=float)
    if kind == "prescribed":                       # its pose at t0 (a trajectory sends it at every frame)
        p0, R0 = (np.asarray(x, dtype=float) for x in joint.motion(t0)[:2])
        kind = "fixed"
    elif kind in ("weld", "fixed"):
        kind = "fixed"
    axis = np.zeros(3) if joint.axis is None else np.asarray(joint.axis, dtype=float)
    return {"name": joint.name, "kind": kind, "R0": rounded(R0, 9), "p0": rounded(p0, 9) if np.any(p0) else [0.0] * 3,
            "axis": rounded(axis, 9), "q": int(model.idx_q[i])}


def _tree(model, visuals, q0, limits, t0=0.0, mimics=()):
    """JSON of the tree, its shapes (meshes shared by index) and its 1-DOF joint sliders."""
    meshes, mesh_index, bodies = [], {}, []
    for i, b in enumerate(model.bodies):
        shapes = []
        for v in visuals.get(b.name, []):
            entry = {"type": v.type, "R": rounded(v.rotation, 9), "p": [float(x) for x in v.position],
                     "color": [float(c) for c in v.color]}
            if v.type == "box":
                entry["size"] = [float(s) for s in v.size]
            elif v.type == "sphere":
                entry["radius"] = float(v.size[0])
            elif v.type == "cylinder":
                entry["radius"], entry["length"] = float(v.size[0]), float(v.size[1])
            else:
                key = id(v.mesh)
                if key not in mesh_index:
                    mesh_index[key] = len(meshes)
                    meshes.append({"vertices": rounded(v.mesh.vertices), "faces": v.mesh.faces.ravel().tolist()})
                entry["mesh"], entry["scale"] = mesh_index[key], [float(s) for s in v.scale]
            shapes.append(entry)
        bodies.append({"name": b.name, "parent": int(model.parents[i]), "joint": _joint_entry(model, i, t0),
                       "visuals": shapes})
    reach = max([float(np.linalg.norm(j.position)) for j in model.joints] + [0.1])
    sliders = []
    followers = {m["index"] for m in mimics}
    for i, j in enumerate(model.joints):
        if j.kind not in ("revolute", "prismatic") or model.idx_q[i] in followers:
            continue
        lo, hi = limits.get(j.name, (-np.pi, np.pi) if j.kind == "revolute" else (-reach, reach))
        k = int(model.idx_q[i])
        lo, hi = min(lo, float(q0[k])), max(hi, float(q0[k]))
        sliders.append({"name": j.name, "index": k, "min": float(lo), "max": float(hi),
                        "unit": "rad" if j.kind == "revolute" else "m"})
    return {"bodies": bodies, "meshes": meshes, "q0": [float(x) for x in q0], "sliders": sliders,
            "mimics": list(mimics)}


def _visuals_and_limits(model, urdf, package_dirs):
    if urdf is None:
        return _default_visuals(model), {}
    visuals = urdf_visuals(urdf, package_dirs)
    names = {b.name for b in model.bodies}
    if not names & set(visuals):
        raise VizInputError(f"`urdf`: none of its links names a body of the model (bodies: {sorted(names)[:6]} ...)")
    return visuals, urdf_joint_limits(urdf)


def _is_prescribed(model) -> bool:
    return model.joints[0].kind == "prescribed"


def _world_poses(model, qs, times=None):
    """Body origins (K, nb, 3) and attitudes (K, nb, 3, 3) at the configurations ``qs`` (K, nq);
    a prescribed root at ``times`` (K,) (at t = 0 without times)."""
    if not _is_prescribed(model) or times is None:
        return body_poses(model, qs)
    pos, dcm = [], []
    for q, t in zip(qs, times):
        kin = forward_kinematics(model, q[None], np.zeros((1, model.nv)), float(t))
        pos.append(np.stack([r[0] for r in kin.r_world]))
        dcm.append(np.stack([np.broadcast_to(R, (1, 3, 3))[0] for R in kin.R_world]))
    return np.array(pos), np.array(dcm)


def _root_frames(model, times) -> list:
    """A prescribed root's pose at each time, flat (T, 12): ``P_{a/i}`` row-major then position [m]."""
    if not _is_prescribed(model):
        return []
    frames = []
    for t in times:
        position, P = model.joints[0].motion(float(t))[:2]
        frames.append(np.concatenate([np.asarray(P, dtype=float).ravel(), np.asarray(position, dtype=float).ravel()]))
    return rounded(np.array(frames), 9)


def _bounds(model, visuals, qs, times=None):
    """Box around every shape's corners over the configurations ``qs`` (K, nq) (at ``times``)."""
    pos, dcm = _world_poses(model, qs, times)                            # (K, nb, 3), (K, nb, 3, 3)
    points = [pos.reshape(-1, 3)]
    for i, b in enumerate(model.bodies):
        for v in visuals.get(b.name, []):
            c = v.corners()                                              # (8, 3) body frame
            points.append((np.einsum("kij,nj->kni", dcm[:, i], c) + pos[:, i, None, :]).reshape(-1, 3))
    pts = np.concatenate(points)
    return pts.min(axis=0), pts.max(axis=0)


def _configuration(model, q, name):
    q = np.asarray(q, dtype=float)
    if q.shape != (model.nq,) or not np.all(np.isfinite(q)):
        raise VizInputError(f"`{name}` must be {model.nq} finite joint coordinates (model.nq); got shape {q.shape}")
    return q


def robot(model, q=None, *, urdf=None, package_dirs=(), title: str | None = None) -> Scene:
    """A multibody model with one slider per revolute/prismatic joint.

    Parameters
    ----------
    model : satdyn.multibody.Model or CoupledModel
        E.g. ``load_urdf(path)`` (``mimic="coupled"``: a mimic joint follows its master's slider),
        or built with ``ModelBuilder``.
    q : (nq,), optional
        Initial configuration (default: neutral; floating base ``[r, quaternion [x, y, z, w], joints]``).
    urdf : path, optional
        The URDF the model was read from: its link visuals (and joint limits for the sliders) are
        drawn; without it, equivalent-inertia boxes and rods.
    package_dirs : sequence of paths
        Where ``package://`` meshes are looked up (then the URDF's parent directories).
    title : str, optional

    Returns
    -------
    Scene
        Hash ``#joint=name:value,name:value`` sets joint coordinates [rad or m].
    """
    coupled = model
    model, mimics, expand = _check_model(model)
    q0 = expand(coupled.neutral_configuration() if q is None else _configuration(coupled, q, "q"))
    visuals, limits = _visuals_and_limits(model, urdf, package_dirs)
    lo, hi = _bounds(model, visuals, q0[None])
    tree = _tree(model, visuals, q0, limits, mimics=mimics)
    return Scene("robot", {"tree": tree}, title=title or f"{model.name}", camera=fit_camera(lo, hi))


def trajectory(model, t, q=None, *, urdf=None, package_dirs=(), trail_body=None, max_frames: int = MAX_FRAMES,
               title: str | None = None) -> Scene:
    """A multibody trajectory replayed with a time slider and a play button.

    Parameters
    ----------
    model : satdyn.multibody.Model
    t : (T,) increasing times [s], or a :class:`satdyn.multibody.SimulationResult` (then ``q`` is its ``q``)
    q : (T, nq)
        Configurations at ``t`` (a floating base moves: ``[r, quaternion [x, y, z, w], joints]``).
    urdf, package_dirs : as :func:`robot`
    trail_body : str or int, optional
        Body whose origin's path is drawn (default: the root if floating, else the last body;
        ``False`` for none).
    max_frames : int
        Longer trajectories are sampled at this many evenly spaced output indices (the page
        interpolates linearly between frames).
    title : str, optional

    Returns
    -------
    Scene
        Hash ``#t=1.5`` shows time 1.5 s paused; ``#play=0`` starts paused at the first time.
    """
    coupled = model
    model, mimics, expand = _check_model(model)
    if q is None and hasattr(t, "t") and hasattr(t, "q"):
        t, q = t.t, t.q
    times = np.asarray(t, dtype=float).ravel()
    if times.size < 1 or not np.all(np.isfinite(times)) or np.any(np.diff(times) <= 0):
        raise VizInputError(f"`t` must be finite, strictly increasing times [s]; got {times.size} values")
    if q is None:
        raise VizInputError("`q` is required (T, nq) unless `t` is a SimulationResult")
    qs = np.asarray(q, dtype=float)
    if qs.shape != (times.size, coupled.nq) or not np.all(np.isfinite(qs)):
        raise VizInputError(f"`q` must have shape (len(t), model.nq) = ({times.size}, {coupled.nq}) and be finite; got "
                            f"{qs.shape}")
    qs = expand(qs)
    if isinstance(max_frames, bool) or not isinstance(max_frames, (int, np.integer)) or max_frames < 2:
        raise VizInputError(f"`max_frames` must be an int >= 2; got {max_frames!r}")
    if times.size > max_frames:
        keep = np.unique(np.round(np.linspace(0, times.size - 1, max_frames)).astype(int))
        times, qs = times[keep], qs[keep]
    visuals, limits = _visuals_and_limits(model, urdf, package_dirs)
    lo, hi = _bounds(model, visuals, qs, times)
    tree = _tree(model, visuals, qs[0], limits, t0=float(times[0]), mimics=mimics)
    data = {"tree": tree, "times": rounded(times, 9), "q": rounded(qs, 7), "trail": [],
            "root": _root_frames(model, times)}
    if trail_body is not False:
        moving_root = model.is_floating or _is_prescribed(model)
        index = (0 if moving_root else model.n_bodies - 1) if trail_body is None else model.body_index(trail_body)
        data["trail"] = rounded(_world_poses(model, qs, times)[0][:, index, :], 7)
    return Scene("trajectory", data, title=title or f"{model.name}: trajectory", camera=fit_camera(lo, hi))
