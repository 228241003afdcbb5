"""URDF reader (the project's one URDF parser).

``load_urdf(path, floating=False, gravity=None, *, joint_damping=False) -> Model``:

* ``path`` -- URDF file;
* ``floating`` -- True: the root link gets a 6-DOF quaternion root (q starts with
  ``[r_i (3), quaternion (4)]``); False: the root link is welded to the inertial frame;
* ``gravity`` (3,) -- ``[g]_i`` [m/s^2], default none (the URDF carries no gravity);
* ``joint_damping`` -- use each joint's ``<dynamics damping>`` as a linear damper (default
  False: Pinocchio's algorithms ignore it too).

Supported joints: ``fixed`` (weld), ``revolute`` and ``continuous`` (revolute, one angle; note
that Pinocchio stores a continuous joint as (cos, sin), nq = 2), ``prismatic``. Joint limits are
read but not enforced. Body frames are the link frames; joint origins use URDF's fixed-axis
roll-pitch-yaw, ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (Euler 3-2-1). Bodies are numbered depth-first
from the root, the children of a link taken in joint-name order, which is Pinocchio's joint
order (urdfdom sorts joints by name). Mimic joints, floating / planar joints, several root links
and closed loops (a link with two parents) raise ``ValueError``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..spatial import dcm_from_euler
from .joints import fixed_root, floating_root, prismatic_joint, revolute_joint, weld_joint
from .model import ModelBuilder, body

__all__ = ["load_urdf"]


def _vector(element, attribute, default, where):
    if element is None or element.get(attribute) is None:
        return np.array(default, dtype=float)
    try:
        values = np.array([float(x) for x in element.get(attribute).split()])
    except ValueError:
        raise ValueError(f"URDF {where}: attribute {attribute}={element.get(attribute)!r} is not numeric") from None
    if values.shape != (len(default),):
        raise ValueError(f"URDF {where}: {attribute} must have {len(default)} numbers; got {element.get(attribute)!r}")
    return values


def _origin(element, where):
    origin = element.find("origin") if element is not None else None
    xyz = _vector(origin, "xyz", (0.0, 0.0, 0.0), where)
    rpy = _vector(origin, "rpy", (0.0, 0.0, 0.0), where)
    return xyz, dcm_from_euler(rpy)


def _link_body(link):
    name = link.get("name")
    inertial = link.find("inertial")
    if inertial is None:
        return body(name, 0.0)
    mass_el = inertial.find("mass")
    mass = float(mass_el.get("value")) if mass_el is not None else 0.0
    com, R = _origin(inertial, f"link {name!r} inertial")
    I_el = inertial.find("inertia")
    if I_el is None:
        J = np.zeros((3, 3))
    else:
        g = {k: float(I_el.get(k, 0.0)) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        J = np.array([[g["ixx"], g["ixy"], g["ixz"]], [g["ixy"], g["iyy"], g["iyz"]], [g["ixz"], g["iyz"], g["izz"]]])
    return body(name, mass, com=com, inertia=R @ J @ R.T)


def load_urdf(path, floating: bool = False, gravity=None, *, joint_damping: bool = False):
    """Read a URDF file into a :class:`~satdyn.multibody.model.Model` (see module doc)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"`path`: no URDF file at {str(path)!r}")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ValueError(f"`path`: {path} is not valid XML: {exc}") from None
    if root.tag != "robot":
        raise ValueError(f"`path`: {path} is not a URDF (root element <{root.tag}>, expected <robot>)")
    links = {link.get("name"): link for link in root.findall("link")}
    joints = root.findall("joint")
    parent_of, children = {}, {name: [] for name in links}
    for j in joints:
        jname, jtype = j.get("name"), j.get("type")
        if j.find("mimic") is not None:
            raise ValueError(f"URDF joint {jname!r}: mimic joints are not supported")
        if jtype not in ("fixed", "revolute", "continuous", "prismatic"):
            raise ValueError(f"URDF joint {jname!r}: type {jtype!r} is not supported "
                             "(supported: fixed, revolute, continuous, prismatic)")
        parent, child = j.find("parent").get("link"), j.find("child").get("link")
        for ln in (parent, child):
            if ln not in links:
                raise ValueError(f"URDF joint {jname!r} refers to an unknown link {ln!r}")
        if child in parent_of:
            raise ValueError(f"URDF link {child!r} has two parent joints ({parent_of[child].get('name')!r}, "
                             f"{jname!r}): closed kinematic loops are not supported by the URDF reader "
                             "(add a LoopClosure to the model instead)")
        parent_of[child] = j
        children[parent].append(j)
    roots = [name for name in links if name not in parent_of]
    if len(roots) != 1:
        raise ValueError(f"URDF must have exactly one root link; found {roots or 'none (a cycle)'}")
    return _build(links, children, roots[0], floating, gravity, joint_damping, root.get("name", path.stem))


def _make_joint(j, damping):
    jname, jtype = j.get("name"), j.get("type")
    xyz, R = _origin(j, f"joint {jname!r}")
    axis = _vector(j.find("axis"), "xyz", (1.0, 0.0, 0.0), f"joint {jname!r} axis")
    dyn = j.find("dynamics")
    d = float(dyn.get("damping", 0.0)) if (damping and dyn is not None) else 0.0
    if jtype == "fixed":
        return weld_joint(jname, rotation=R), xyz
    if jtype in ("revolute", "continuous"):
        return revolute_joint(jname, axis, rotation=R, damping=d), xyz
    return prismatic_joint(jname, axis, rotation=R, damping=d), xyz


def _build(links, children, root_name, floating, gravity, damping, robot_name):
    """Bodies depth-first from the root, children in joint-name order (Pinocchio's order)."""
    builder = ModelBuilder(gravity=gravity, name=robot_name)
    builder.add_body(_link_body(links[root_name]), floating_root(root_name) if floating else fixed_root(root_name))

    def visit(link_name):
        for j in sorted(children[link_name], key=lambda j: j.get("name")):
            joint, xyz = _make_joint(j, damping)
            child = j.find("child").get("link")
            builder.add_body(_link_body(links[child]), joint, parent=link_name, position=xyz)
            visit(child)

    visit(root_name)
    return builder.build()
