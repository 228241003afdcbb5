"""Free-floating models from a ``satdyn.multibody`` tree or a URDF file.

``from_multibody(model, end_effector=None) -> SpacecraftManipulator`` and
``from_urdf(path, end_effector=None) -> SpacecraftManipulator``:

* ``model`` -- a :class:`satdyn.multibody.Model` with a floating root (quaternion or Euler)
  and no gravity, whose revolute joints form one serial arm; bodies attached by weld joints
  are lumped into the body they hang on (composite inertia);
* ``path`` -- a URDF file, read by the project's one URDF reader
  (:func:`satdyn.multibody.load_urdf`, floating root);
* ``end_effector`` -- name of the body whose frame is the end-effector frame 𝒥_{N+1}; it must
  be the last revolute link or welded to it. Default: the last revolute link's frame.

Frame bookkeeping (see :mod:`satdyn.freefloating.model`): the base frame is the root body's
frame moved to the base centre of mass; each joint frame 𝒥ᵢ is the multibody child frame at
zero angle turned so that its z axis is the joint axis (``R_align e_z = axis``), hence the link
frame 𝒦ᵢ = 𝒥ᵢ Rz(qᵢ) is the multibody child frame times ``R_align``, and the joint angles are
the same numbers in both models.
"""

from __future__ import annotations

import numpy as np

from ..multibody import load_urdf
from ..spatial import composite_inertia, rodrigues
from .model import SpacecraftManipulator, homogeneous

__all__ = ["from_multibody", "from_urdf"]

_FLOATING = ("floating", "floating_euler")


def _z_to(axis) -> np.ndarray:
    """A rotation taking e_z to the unit vector ``axis``."""
    z = np.array([0.0, 0.0, 1.0])
    c = float(axis @ z)
    if c > 1.0 - 1e-12:
        return np.eye(3)
    if c < -1.0 + 1e-12:
        return rodrigues([1.0, 0.0, 0.0], np.pi)
    return rodrigues(np.cross(z, axis), np.arccos(np.clip(c, -1.0, 1.0)))


def _joint_pose(joint) -> np.ndarray:
    """Pose of the child frame at zero coordinate in the parent frame (4x4)."""
    return homogeneous(joint.rotation, joint.position)


def _group(model, children, start):
    """Bodies welded (recursively) to ``start``, with their poses in ``start``'s frame; revolute exits."""
    members, exits = [(start, np.eye(4))], []
    stack = [(start, np.eye(4))]
    while stack:
        i, pose = stack.pop()
        for c in children[i]:
            joint = model.joints[c]
            if joint.kind == "weld":
                child_pose = pose @ _joint_pose(joint)
                members.append((c, child_pose))
                stack.append((c, child_pose))
            elif joint.kind == "revolute":
                exits.append((c, pose @ _joint_pose(joint)))
            else:
                raise ValueError(f"`model`: joint {joint.name!r} is {joint.kind}; a free-floating arm "
                                 "has revolute joints only (welded bodies are lumped)")
    return members, exits


def _mass_properties(model, members):
    """Mass, CoM and inertia about the CoM of welded bodies, in the group frame."""
    masses = np.array([model.bodies[i].mass for i, _ in members])
    coms = np.stack([pose[:3, :3] @ model.bodies[i].com + pose[:3, 3] for i, pose in members])
    inertias = np.stack([model.bodies[i].inertia for i, _ in members])
    dcms = np.stack([pose[:3, :3] for _, pose in members])
    if masses.sum() == 0.0:  # only massless frames (a gimbal link): rotational inertia at most
        return 0.0, np.zeros(3), np.einsum("kij,kjl,kml->im", dcms, inertias, dcms)
    mass, com, inertia = composite_inertia(masses, coms, inertias, dcms)
    return float(mass), com, inertia


def from_multibody(model, end_effector: str | None = None, *, name: str | None = None) -> SpacecraftManipulator:
    """Free-floating spacecraft-manipulator of a multibody tree (see the module docstring).

    Parameters
    ----------
    model : satdyn.multibody.Model
        Floating root, no gravity, one serial chain of revolute joints (welds allowed anywhere),
        no joint springs or dampers (the free-floating equations of Front. Robot. AI 5:41 (2018) have none).
    end_effector : str, optional
        Body whose frame is the end-effector frame; default: the last revolute link.
    name : str, optional
        Model name; default: the multibody model's.

    Returns
    -------
    SpacecraftManipulator
    """
    from ..multibody import Model

    if not isinstance(model, Model):
        raise TypeError(f"`model` must be a satdyn.multibody.Model (ModelBuilder.build() or load_urdf); "
                        f"got {type(model).__name__}")
    if end_effector is not None and not isinstance(end_effector, str):
        raise TypeError(f"`end_effector` must be a body name (str); got {type(end_effector).__name__}")
    if model.joints[0].kind not in _FLOATING:
        raise ValueError(f"`model`: the root joint must be floating for a free-floating system; "
                         f"got {model.joints[0].kind!r}")
    if np.any(model.gravity != 0.0):
        raise ValueError("`model`: a free-floating system is in space: gravity must be zero")
    if model.loop_closures:
        raise ValueError("`model`: loop closures are not supported by the free-floating equations")
    children = [[] for _ in model.bodies]
    for i, parent in enumerate(model.parents[1:], start=1):
        children[parent].append(i)
    for joint in model.joints[1:]:
        if joint.stiffness != 0.0 or joint.damping != 0.0:
            raise ValueError(f"`model`: joint {joint.name!r} has a spring or damper; the free-floating "
                             "equations have none")

    base_members, exits = _group(model, children, 0)
    base_mass, base_com, base_inertia = _mass_properties(model, base_members)
    if base_mass == 0.0:
        raise ValueError(f"`model`: the base (root body {model.bodies[0].name!r} and the bodies welded to it) "
                         "has no mass; a free-floating base needs one")
    shift = homogeneous(np.eye(3), -base_com)  # root frame -> base CoM frame (same axes)
    placements, masses, coms, inertias, links = [], [], [], [], []
    parent_align, parent_to_group = np.eye(3), shift
    while exits:
        if len(exits) > 1:
            names = [model.bodies[i].name for i, _ in exits]
            raise ValueError(f"`model` branches into {names}: satdyn.freefloating handles one serial arm")
        (index, pose), = exits
        align = _z_to(model.joints[index].axis)
        # Joint frame in the parent link frame: parent link frame = parent group frame * parent_align.
        joint_frame = parent_to_group @ pose @ homogeneous(align, np.zeros(3))
        placements.append(joint_frame)
        members, exits = _group(model, children, index)
        mass, com, inertia = _mass_properties(model, members)
        masses.append(mass)
        coms.append(align.T @ com)
        inertias.append(align.T @ inertia @ align)
        links.append((index, members, align))
        parent_align = align
        parent_to_group = homogeneous(parent_align.T, np.zeros(3))  # group frame -> link frame
    if not placements:
        raise ValueError("`model` has no revolute joint: nothing to build a manipulator from")

    last_index, last_members, last_align = links[-1]
    ee_pose = np.eye(4)
    if end_effector is not None:
        poses = {model.bodies[i].name: pose for i, pose in last_members}
        if end_effector not in poses:
            raise ValueError(f"`end_effector` {end_effector!r} must be the last revolute link or welded to it: "
                             f"one of {sorted(poses)}")
        ee_pose = poses[end_effector]
    ee_placement = homogeneous(last_align.T, np.zeros(3)) @ ee_pose
    return SpacecraftManipulator(
        base_mass=base_mass, base_inertia=base_inertia, joint_placements=np.stack(placements),
        link_masses=np.array(masses), link_coms=np.stack(coms), link_inertias=np.stack(inertias),
        ee_placement=ee_placement, name=name or model.name,
    )


def from_urdf(path, end_effector: str | None = None, *, name: str | None = None) -> SpacecraftManipulator:
    """Free-floating spacecraft-manipulator of a URDF file (root link = base spacecraft).

    Parameters
    ----------
    path : str or Path
        URDF file; its root link is the base, its revolute joints the arm.
    end_effector : str, optional
        Link whose frame is the end-effector frame; default: the last revolute link.
    name : str, optional

    Returns
    -------
    SpacecraftManipulator
    """
    if end_effector is not None and not isinstance(end_effector, str):
        raise TypeError(f"`end_effector` must be a link name (str); got {type(end_effector).__name__}")
    return from_multibody(load_urdf(path, floating=True), end_effector, name=name)
