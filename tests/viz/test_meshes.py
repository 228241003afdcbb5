"""Mesh readers: STL (ASCII, binary), OBJ and COLLADA, checked on a unit cube whose volume
(divergence theorem over the triangles) must be exactly 1 when every face is read."""

import struct

import numpy as np
import pytest

from satdyn import viz
from satdyn.viz.meshes import load_dae, load_obj, load_stl

from .conftest import PANDA

# unit cube [0, 1]^3: 8 corners and 12 outward triangles
CORNERS = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=float)
QUADS = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
TRIANGLES = [t for a, b, c, d in QUADS for t in ((a, b, c), (a, c, d))]


def volume(mesh):
    v = mesh.vertices[mesh.faces]                        # (m, 3, 3)
    return float(np.einsum("ij,ij->i", v[:, 0], np.cross(v[:, 1], v[:, 2])).sum() / 6.0)


def write_ascii_stl(path):
    lines = ["solid cube"]
    for t in TRIANGLES:
        lines += ["  facet normal 0 0 0", "    outer loop"]
        lines += [f"      vertex {x:.6e} {y:.6e} {z:.6e}" for x, y, z in CORNERS[list(t)]]
        lines += ["    endloop", "  endfacet"]
    path.write_text("\n".join(lines + ["endsolid cube"]) + "\n")


def write_binary_stl(path):
    # the binary layout of the STL format: 80-byte header, uint32 count, 50 bytes per facet
    data = b"solid but binary".ljust(80, b" ") + struct.pack("<I", len(TRIANGLES))
    for t in TRIANGLES:
        data += struct.pack("<3f", 0, 0, 0) + struct.pack("<9f", *CORNERS[list(t)].ravel()) + b"\0\0"
    path.write_bytes(data)


def test_stl_ascii_and_binary_give_the_same_closed_cube(tmp_path):
    write_ascii_stl(tmp_path / "a.stl")
    write_binary_stl(tmp_path / "b.stl")           # starts with "solid" too: told apart by its size
    a, b = load_stl(tmp_path / "a.stl"), load_stl(tmp_path / "b.stl")
    for m in (a, b):
        assert m.vertices.shape == (8, 3) and m.faces.shape == (12, 3)       # corners welded
        assert volume(m) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_array_equal(a.vertices, b.vertices)
    np.testing.assert_array_equal(a.faces, b.faces)


def test_obj_quads_and_relative_indices(tmp_path):
    text = "# cube\n" + "".join(f"v {x} {y} {z}\n" for x, y, z in CORNERS)
    text += "vn 0 0 1\n"
    text += "".join("f " + " ".join(f"{i + 1}//1" for i in q) + "\n" for q in QUADS[:3])
    text += "".join("f " + " ".join(str(i - 8) for i in q) + "\n" for q in QUADS[3:])   # -8 = vertex 0
    (tmp_path / "c.obj").write_text(text)
    m = load_obj(tmp_path / "c.obj")
    assert m.faces.shape == (12, 3)
    assert volume(m) == pytest.approx(1.0, abs=1e-12)


def test_dae_node_transform_unit_and_up_axis(tmp_path):
    # one geometry placed twice by nodes (a translate and a matrix), in centimetres, Y up:
    # expected: the cube scaled by 0.01, shifted, then turned to z up ((x, y, z) -> (x, -z, y))
    positions = " ".join(f"{v:g}" for v in CORNERS.ravel())
    p = " ".join(str(i) for t in TRIANGLES for i in t)
    dae = f"""<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
 <asset><unit name="centimeter" meter="0.01"/><up_axis>Y_UP</up_axis></asset>
 <library_geometries><geometry id="cube"><mesh>
  <source id="pos"><float_array id="pos-a" count="24">{positions}</float_array></source>
  <vertices id="verts"><input semantic="POSITION" source="#pos"/></vertices>
  <triangles count="12"><input semantic="VERTEX" source="#verts" offset="0"/><p>{p}</p></triangles>
 </mesh></geometry></library_geometries>
 <library_visual_scenes><visual_scene id="s">
  <node id="a"><translate>10 0 0</translate><instance_geometry url="#cube"/></node>
  <node id="b"><matrix>1 0 0 0 0 1 0 5 0 0 1 0 0 0 0 1</matrix><instance_geometry url="#cube"/></node>
 </visual_scene></library_visual_scenes>
</COLLADA>"""
    (tmp_path / "c.dae").write_text(dae)
    m = load_dae(tmp_path / "c.dae")
    assert m.faces.shape == (24, 3)
    expected = np.concatenate([CORNERS + [10, 0, 0], CORNERS + [0, 5, 0]]) * 0.01
    expected = np.column_stack([expected[:, 0], -expected[:, 2], expected[:, 1]])
    np.testing.assert_allclose(m.vertices, expected, atol=1e-15)
    assert volume(m) == pytest.approx(2e-6, rel=1e-12)      # two cubes of 1 cm


def test_unsupported_or_missing_files(tmp_path):
    (tmp_path / "x.ply").write_text("ply")
    with pytest.raises(viz.VizInputError, match="not supported"):
        viz.load_mesh(tmp_path / "x.ply")
    with pytest.raises(viz.VizInputError, match="does not exist"):
        viz.load_mesh(tmp_path / "missing.stl")
    (tmp_path / "bad.stl").write_bytes(b"\x00\x01garbage")
    with pytest.raises(viz.VizInputError, match="neither binary"):
        viz.load_mesh(tmp_path / "bad.stl")


@pytest.mark.skipif(PANDA is None, reason="example-robot-data is not installed (the test extra)")
@pytest.mark.parametrize("link", ["link0", "link1", "link5", "hand"])
def test_real_dae_meshes_sit_where_their_collision_stl_is(link):
    # independent geometry of the same Panda link: the visual COLLADA (node transforms, e.g.
    # link1's 0.192 m translate, must be applied) and the collision STL (binary) are separate
    # files; their bounding boxes agree within the collision mesh's simplification (<= 6 mm
    # here; 1 cm tolerance), while a missed node transform is off by decimetres
    visual = viz.load_mesh(PANDA / "meshes" / "visual" / f"{link}.dae").vertices
    collision = viz.load_mesh(PANDA / "meshes" / "collision" / f"{link}.stl").vertices
    np.testing.assert_allclose(visual.min(axis=0), collision.min(axis=0), atol=0.01)
    np.testing.assert_allclose(visual.max(axis=0), collision.max(axis=0), atol=0.01)
