"""The ``<visual>`` geometry of a URDF's links (``load_urdf`` keeps only the dynamics).

``urdf_visuals(path, package_dirs=()) -> dict link name -> list of Visual``: boxes, cylinders
(along the visual frame's z, as URDF), spheres and meshes (STL, OBJ, DAE, read with
:mod:`satdyn.viz.meshes`), each with its origin in the link frame (URDF roll-pitch-yaw,
``R = Rz(yaw) Ry(pitch) Rx(roll)``) and its material colour.  ``package://pkg/rel`` mesh names
are looked up in ``package_dirs`` (``dir/pkg/rel``, or ``dir/rel`` when ``dir`` is named ``pkg``)
and then in the URDF's parent directories; a mesh that cannot be found or read is left out
with a warning naming it.
"""

from __future__ import annotations

import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..spatial import dcm_from_euler
from .meshes import TriangleMesh, load_mesh
from .scene import VizInputError

__all__ = ["Visual", "urdf_joint_limits", "urdf_visuals"]

DEFAULT_COLOR = (0.62, 0.66, 0.72, 1.0)


@dataclass(frozen=True)
class Visual:
    """One visual shape in a body frame.

    Attributes
    ----------
    type : {"box", "cylinder", "sphere", "mesh"}
    rotation : (3, 3)   shape frame -> body frame
    position : (3,)     shape frame origin in the body frame [m]
    size : (3,) box sides; radius, length (cylinder, along its z); radius (sphere) [m]
    mesh : TriangleMesh or None;  scale : (3,) of the mesh
    color : (4,) RGBA in 0..1
    """

    type: str
    rotation: np.ndarray
    position: np.ndarray
    size: tuple = ()
    mesh: TriangleMesh | None = None
    scale: tuple = (1.0, 1.0, 1.0)
    color: tuple = DEFAULT_COLOR
    source: str = field(default="", compare=False)

    def corners(self) -> np.ndarray:
        """(8, 3) corners of the shape's bounding box in the body frame [m]."""
        if self.type == "box":
            half = 0.5 * np.asarray(self.size, dtype=float)
        elif self.type == "cylinder":
            half = np.array([self.size[0], self.size[0], 0.5 * self.size[1]])
        elif self.type == "sphere":
            half = np.full(3, self.size[0])
        else:
            v = self.mesh.vertices * np.asarray(self.scale, dtype=float)
            lo, hi = v.min(axis=0), v.max(axis=0)
            c = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
            return c @ self.rotation.T + self.position
        signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
        return (signs * half) @ self.rotation.T + self.position


def _floats(text, count, where):
    try:
        values = [float(x) for x in text.split()]
    except (AttributeError, ValueError):
        raise VizInputError(f"URDF {where}: expected {count} numbers; got {text!r}") from None
    if len(values) != count or not np.all(np.isfinite(values)):
        raise VizInputError(f"URDF {where}: expected {count} finite numbers; got {text!r}")
    return values


def _origin(el, where):
    o = el.find("origin")
    xyz = _floats(o.get("xyz", "0 0 0"), 3, where) if o is not None else [0.0, 0.0, 0.0]
    rpy = _floats(o.get("rpy", "0 0 0"), 3, where) if o is not None else [0.0, 0.0, 0.0]
    return np.asarray(dcm_from_euler(np.array(rpy))), np.array(xyz)


def resolve_mesh_path(filename: str, urdf_dir: Path, package_dirs) -> Path | None:
    """File of a URDF mesh name (``package://``, ``file://``, absolute or relative to the URDF)."""
    if filename.startswith("file://"):
        return Path(filename[len("file://"):])
    if not filename.startswith("package://"):
        p = Path(filename)
        return p if p.is_absolute() else urdf_dir / p
    rest = filename[len("package://"):]
    package, _, relative = rest.partition("/")
    candidates = []
    for d in [Path(d) for d in package_dirs] + list(urdf_dir.resolve().parents):
        candidates += [d / package / relative, d / relative] if d.name == package else [d / package / relative]
    for c in candidates:
        if c.is_file():
            return c
    return None


def _materials(root, where):
    colors = {}
    for m in root.findall("material"):
        c = m.find("color")
        if m.get("name") and c is not None:
            colors[m.get("name")] = tuple(_floats(c.get("rgba", ""), 4, f"{where} material {m.get('name')!r}"))
    return colors


def _read(path):
    path = Path(path)
    if not path.is_file():
        raise VizInputError(f"`urdf`: no URDF file at {str(path)!r}")
    try:
        root = ET.fromstring(path.read_bytes().lstrip(b"\xef\xbb\xbf").lstrip())
    except ET.ParseError as exc:
        raise VizInputError(f"`urdf`: {path} is not valid XML: {exc}") from None
    if root.tag != "robot":
        raise VizInputError(f"`urdf`: {path} is not a URDF (root element <{root.tag}>)")
    return path, root


def urdf_visuals(path, package_dirs=()) -> dict:
    """``{link name: [Visual, ...]}`` of every link of the URDF at ``path`` (module doc)."""
    path, root = _read(path)
    if isinstance(package_dirs, (str, Path)):
        package_dirs = [package_dirs]
    named = _materials(root, path.name)
    meshes: dict = {}
    out = {}
    for link in root.findall("link"):
        name = link.get("name")
        shapes = []
        for k, vis in enumerate(link.findall("visual")):
            where = f"{path.name} link {name!r} visual {k}"
            R, p = _origin(vis, where)
            color = DEFAULT_COLOR
            mat = vis.find("material")
            if mat is not None:
                c = mat.find("color")
                if c is not None:
                    color = tuple(_floats(c.get("rgba", ""), 4, where + " color"))
                elif mat.get("name") in named:
                    color = named[mat.get("name")]
            geom = vis.find("geometry")
            shape = next(iter(geom), None) if geom is not None else None
            if shape is None:
                continue
            if shape.tag == "box":
                size = tuple(_floats(shape.get("size"), 3, where + " box size"))
                shapes.append(Visual("box", R, p, size, color=color))
            elif shape.tag == "cylinder":
                size = (_floats(shape.get("radius"), 1, where + " radius")[0],
                        _floats(shape.get("length"), 1, where + " length")[0])
                shapes.append(Visual("cylinder", R, p, size, color=color))
            elif shape.tag == "sphere":
                size = (_floats(shape.get("radius"), 1, where + " radius")[0],)
                shapes.append(Visual("sphere", R, p, size, color=color))
            elif shape.tag == "mesh":
                filename = shape.get("filename", "")
                scale = (tuple(_floats(shape.get("scale"), 3, where + " scale")) if shape.get("scale")
                         else (1.0, 1.0, 1.0))
                file = resolve_mesh_path(filename, path.parent, package_dirs)
                if file is None or not file.is_file():
                    warnings.warn(f"satdyn.viz: {where}: mesh {filename!r} not found (give `package_dirs`); left out",
                                  UserWarning, stacklevel=2)
                    continue
                key = str(file.resolve())
                if key not in meshes:
                    try:
                        meshes[key] = load_mesh(file)
                    except VizInputError as exc:
                        meshes[key] = None
                        warnings.warn(f"satdyn.viz: {where}: {exc}; left out", UserWarning, stacklevel=2)
                if meshes[key] is not None:
                    shapes.append(Visual("mesh", R, p, mesh=meshes[key], scale=scale, color=color, source=key))
        out[name] = shapes
    return out


def urdf_joint_limits(path) -> dict:
    """``{joint name: (lower, upper)}`` of the revolute and prismatic joints with a ``<limit>``."""
    path, root = _read(path)
    limits = {}
    for j in root.findall("joint"):
        lim = j.find("limit")
        if j.get("type") in ("revolute", "prismatic") and lim is not None and lim.get("lower") and lim.get("upper"):
            lo = _floats(lim.get("lower"), 1, f"joint {j.get('name')!r} limit")[0]
            hi = _floats(lim.get("upper"), 1, f"joint {j.get('name')!r} limit")[0]
            if hi > lo:
                limits[j.get("name")] = (lo, hi)
    return limits
