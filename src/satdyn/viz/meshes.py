"""Triangle meshes from STL (ASCII and binary), Wavefront OBJ and COLLADA (DAE, geometry only) files.

``load_mesh(path) -> TriangleMesh(vertices (n, 3) float, faces (m, 3) int)`` in the file's units
(URDF meshes are metres unless the URDF's ``scale`` says otherwise).
"""

from __future__ import annotations

import re
import struct
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .scene import VizInputError

__all__ = ["MESH_FORMATS", "TriangleMesh", "load_dae", "load_mesh", "load_obj", "load_stl"]

MESH_FORMATS = (".stl", ".obj", ".dae")


@dataclass(frozen=True)
class TriangleMesh:
    """Vertices (n, 3) [file units] and triangles (m, 3) (indices into the vertices)."""

    vertices: np.ndarray
    faces: np.ndarray

    def __post_init__(self):
        v, f = np.asarray(self.vertices, dtype=float), np.asarray(self.faces, dtype=np.int64)
        if v.ndim != 2 or v.shape[1] != 3 or f.ndim != 2 or f.shape[1] != 3:
            raise VizInputError(f"a mesh needs vertices (n, 3) and faces (m, 3); got {v.shape}, {f.shape}")
        if f.size and (f.min() < 0 or f.max() >= len(v)):
            raise VizInputError("mesh faces index missing vertices")
        object.__setattr__(self, "vertices", v)
        object.__setattr__(self, "faces", f)


def load_mesh(path) -> TriangleMesh:
    """Read an STL, OBJ or DAE file by its extension."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in MESH_FORMATS:
        raise VizInputError(f"mesh file {str(path)!r}: format {suffix!r} is not supported (supported: {MESH_FORMATS})")
    if not path.is_file():
        raise VizInputError(f"mesh file {str(path)!r} does not exist")
    return {".stl": load_stl, ".obj": load_obj, ".dae": load_dae}[suffix](path)


def _welded(corners: np.ndarray) -> TriangleMesh:
    """Triangle soup (m, 3, 3) -> shared vertices (STL repeats every corner)."""
    flat = corners.reshape(-1, 3)
    unique, inverse = np.unique(flat, axis=0, return_inverse=True)
    return TriangleMesh(unique, inverse.reshape(-1, 3))


def load_stl(path) -> TriangleMesh:
    """ASCII or binary STL (binary when the size matches 84 + 50 x its triangle count)."""
    path = Path(path)
    data = path.read_bytes()
    if len(data) >= 84:
        count = struct.unpack_from("<I", data, 80)[0]
        if len(data) == 84 + 50 * count:
            record = np.dtype([("normal", "<f4", 3), ("corners", "<f4", (3, 3)), ("attr", "<u2")])
            tri = np.frombuffer(data, dtype=record, count=count, offset=84)
            return _welded(tri["corners"].astype(float))
    text = data.decode("ascii", errors="replace")
    if not text.lstrip().lower().startswith("solid"):
        raise VizInputError(f"STL file {str(path)!r} is neither binary (size != 84 + 50 x triangles) "
                            "nor ASCII ('solid ...')")
    numbers = re.findall(r"^\s*vertex\s+(\S+)\s+(\S+)\s+(\S+)", text, flags=re.MULTILINE | re.IGNORECASE)
    if not numbers or len(numbers) % 3:
        raise VizInputError(f"STL file {str(path)!r}: expected 3 'vertex' lines per facet; found {len(numbers)}")
    try:
        corners = np.array(numbers, dtype=float).reshape(-1, 3, 3)
    except ValueError:
        raise VizInputError(f"STL file {str(path)!r}: a vertex is not numeric") from None
    return _welded(corners)


def load_obj(path) -> TriangleMesh:
    """Wavefront OBJ: ``v`` lines and ``f`` lines (polygons fanned into triangles; ``v/vt/vn``
    and negative (relative) indices accepted)."""
    path = Path(path)
    vertices, faces = [], []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        try:
            if parts[0] == "v":
                vertices.append([float(x) for x in parts[1:4]])
            elif parts[0] == "f":
                idx = [int(p.split("/")[0]) for p in parts[1:]]
                idx = [i - 1 if i > 0 else len(vertices) + i for i in idx]
                faces.extend([idx[0], idx[k], idx[k + 1]] for k in range(1, len(idx) - 1))
        except (ValueError, IndexError):
            raise VizInputError(f"OBJ file {str(path)!r} line {number}: cannot read {line.strip()!r}") from None
    if not vertices or not faces:
        raise VizInputError(f"OBJ file {str(path)!r} has no vertices or no faces")
    return TriangleMesh(np.array(vertices), np.array(faces))


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _dae_geometry(geometry, arrays, vert_src):
    """(positions (n, 3), triangles (m, 3)) of one ``<geometry>``, or None."""
    all_v, all_f, base = [], [], 0
    for el in geometry.iter():
        kind = _local(el.tag)
        if kind not in ("triangles", "polylist", "polygons"):
            continue
        inputs = [c for c in el if _local(c.tag) == "input"]
        vin = next((c for c in inputs if c.get("semantic") == "VERTEX"), None)
        src = vert_src.get(vin.get("source", "").lstrip("#")) if vin is not None else None
        if src not in arrays:
            continue
        stride = max(int(c.get("offset", 0)) for c in inputs) + 1
        positions = arrays[src].reshape(-1, 3)
        offset = int(vin.get("offset", 0))
        ps = [c for c in el if _local(c.tag) == "p" and c.text]
        if kind == "polygons":
            polys = [np.array(p.text.split(), dtype=np.int64)[offset::stride] for p in ps]
        else:
            flat = (np.concatenate([np.array(p.text.split(), dtype=np.int64) for p in ps]) if ps
                    else np.zeros(0, np.int64))
            idx = flat[offset::stride]
            if kind == "triangles":
                polys = list(idx[:len(idx) // 3 * 3].reshape(-1, 3))
            else:
                vc = next((c for c in el if _local(c.tag) == "vcount"), None)
                counts = (np.array(vc.text.split(), dtype=np.int64) if vc is not None and vc.text
                          else np.zeros(0, np.int64))
                polys = np.split(idx, np.cumsum(counts)[:-1]) if counts.size else []
        tris = [[p[0], p[k], p[k + 1]] for p in polys for k in range(1, len(p) - 1)]
        if tris:
            all_v.append(positions)
            all_f.append(np.array(tris) + base)
            base += len(positions)
    return (np.concatenate(all_v), np.concatenate(all_f)) if all_f else None


def _dae_node_matrix(node) -> np.ndarray:
    """4x4 transform of a ``<node>`` from its ``matrix``/``translate``/``rotate``/``scale`` children, in order."""
    T = np.eye(4)
    for c in node:
        tag = _local(c.tag)
        values = np.array(c.text.split(), dtype=float) if c.text else np.zeros(0)
        M = np.eye(4)
        if tag == "matrix" and values.size == 16:
            M = values.reshape(4, 4)
        elif tag == "translate" and values.size == 3:
            M[:3, 3] = values
        elif tag == "scale" and values.size == 3:
            M[:3, :3] = np.diag(values)
        elif tag == "rotate" and values.size == 4:
            axis = values[:3] / (np.linalg.norm(values[:3]) or 1.0)
            th = np.radians(values[3])
            K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
            M[:3, :3] = np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K
        else:
            continue
        T = T @ M
    return T


def load_dae(path) -> TriangleMesh:
    """COLLADA geometry placed by the visual scene's node transforms (``matrix``, ``translate``,
    ``rotate``, ``scale``), in metres (``<unit meter=...>``) with z up (a ``Y_UP`` file is turned
    to z up as COLLADA specifies; X_UP is not handled); without a visual scene, every geometry as stored.  Materials
    and textures are not read."""
    path = Path(path)
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise VizInputError(f"DAE file {str(path)!r} is not valid XML: {exc}") from None
    scale, up = 1.0, "Z_UP"
    for el in root.iter():
        if _local(el.tag) == "unit" and el.get("meter"):
            scale = float(el.get("meter"))
        elif _local(el.tag) == "up_axis" and el.text:
            up = el.text.strip()
    arrays, vert_src, geometries = {}, {}, {}
    for el in root.iter():
        tag = _local(el.tag)
        if tag == "source":
            fa = next((c for c in el if _local(c.tag) == "float_array"), None)
            if fa is not None and fa.text:
                arrays[el.get("id")] = np.array(fa.text.split(), dtype=float)
        elif tag == "vertices":
            for inp in el:
                if _local(inp.tag) == "input" and inp.get("semantic") == "POSITION":
                    vert_src[el.get("id")] = inp.get("source", "").lstrip("#")
    for el in root.iter():
        if _local(el.tag) == "geometry":
            geometries[el.get("id")] = el
    placed = []                                      # (geometry id, 4x4)

    def visit(node, T):
        T = T @ _dae_node_matrix(node)
        for c in node:
            tag = _local(c.tag)
            if tag == "instance_geometry":
                placed.append((c.get("url", "").lstrip("#"), T))
            elif tag == "node":
                visit(c, T)

    scenes = [el for el in root.iter() if _local(el.tag) == "visual_scene"]
    for vs in scenes[:1]:
        for node in vs:
            if _local(node.tag) == "node":
                visit(node, np.eye(4))
    if not placed:
        placed = [(gid, np.eye(4)) for gid in geometries]
    all_v, all_f, base = [], [], 0
    cache = {}
    for gid, T in placed:
        if gid not in geometries:
            continue
        if gid not in cache:
            cache[gid] = _dae_geometry(geometries[gid], arrays, vert_src)
        if cache[gid] is None:
            continue
        v, f = cache[gid]
        all_v.append(v @ T[:3, :3].T + T[:3, 3])
        all_f.append(f + base)
        base += len(v)
    if not all_f:
        raise VizInputError(f"DAE file {str(path)!r} has no triangle geometry")
    v = np.concatenate(all_v) * scale
    if up == "Y_UP":                                  # x stays, y up -> z up: (x, y, z) -> (x, -z, y)
        v = np.column_stack([v[:, 0], -v[:, 2], v[:, 1]])
    return TriangleMesh(v, np.concatenate(all_f))
