"""Multibody views: URDF visuals, the page's forward kinematics against satdyn.multibody.body_poses,
and the links moving on screen where the pinhole camera puts them."""

import struct

import numpy as np
import pytest

from satdyn import viz
from satdyn.multibody import (
    ModelBuilder,
    body,
    body_poses,
    floating_root,
    load_urdf,
    prismatic_joint,
    revolute_joint,
    spherical_joint,
)

from .conftest import PANDA, pixel_box, projected_box

PIXELS = 3.0          # pixel rounding each side plus antialiasing
# the page computes in float64 from joint data written with 9 significant digits: 1e-9 of a
# metre-sized model per joint, a few joints deep
POSE_TOL = 1e-8

CUBE = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
CUBE_TRIANGLES = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1), (2, 3, 7), (2, 7, 6),
                  (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]

URDF = """<?xml version="1.0"?>
<robot name="testbot">
  <material name="blue"><color rgba="0.2 0.35 0.9 1"/></material>
  <link name="base">
    <inertial><mass value="10"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><origin xyz="0 0 0.1"/><geometry><box size="0.4 0.4 0.2"/></geometry><material name="blue"/></visual>
  </link>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><origin xyz="0.45 0 0.05"/>
      <geometry><mesh filename="package://testbot/meshes/cube.stl" scale="0.8 0.1 0.1"/></geometry>
      <material name="red"><color rgba="0.9 0.1 0.1 1"/></material></visual>
  </link>
  <link name="tip">
    <inertial><mass value="0.5"/><inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><sphere radius="0.08"/></geometry>
      <material name="green"><color rgba="0.1 0.8 0.2 1"/></material></visual>
    <visual><origin xyz="0 0 0.1" rpy="0 1.5707963 0"/>
      <geometry><cylinder radius="0.02" length="0.2"/></geometry></visual>
    <visual><origin xyz="0 0 -0.1"/>
      <geometry><mesh filename="../meshes/cube.obj" scale="0.05 0.05 0.05"/></geometry></visual>
  </link>
  <joint name="yaw" type="revolute"><parent link="base"/><child link="arm"/><origin xyz="0 0 0.2"/>
    <axis xyz="0 0 1"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="slide" type="prismatic"><parent link="arm"/><child link="tip"/><origin xyz="0.9 0 0.05" rpy="0.3 0 0"/>
    <axis xyz="1 0 0"/><limit lower="0" upper="0.3" effort="1" velocity="1"/></joint>
</robot>
"""


MIMIC_URDF = """<robot name="gripper">
  <link name="palm">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="a">
    <inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b">
    <inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="left" type="prismatic"><parent link="palm"/><child link="a"/><origin xyz="0 0.05 0.1"/>
    <axis xyz="0 1 0"/></joint>
  <joint name="right" type="prismatic"><parent link="palm"/><child link="b"/><origin xyz="0 -0.05 0.1"/>
    <axis xyz="0 1 0"/>
    <mimic joint="left" multiplier="-1.5" offset="0.01"/></joint>
</robot>
"""


@pytest.fixture(scope="module")
def urdf(tmp_path_factory):
    root = tmp_path_factory.mktemp("packages") / "testbot"
    root.mkdir()
    (root / "meshes").mkdir()
    data = b"binary".ljust(80, b" ") + struct.pack("<I", len(CUBE_TRIANGLES))
    for t in CUBE_TRIANGLES:
        data += struct.pack("<12f", 0, 0, 0, *CUBE[list(t)].ravel()) + b"\0\0"
    (root / "meshes" / "cube.stl").write_bytes(data)
    (root / "meshes" / "cube.obj").write_text("".join(f"v {x} {y} {z}\n" for x, y, z in CUBE)
                                              + "".join(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in CUBE_TRIANGLES))
    (root / "urdf").mkdir()
    path = root / "urdf" / "testbot.urdf"
    path.write_text(URDF)
    return path


def red(image):
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    return (r > g + 60) & (r > b + 60)


def blue(image):
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    return (b > r + 50) & (b > g + 30)


def test_urdf_visuals_are_read(urdf):
    # compared with the file: shapes, sizes, colours, meshes found through package:// (in the
    # given package folder, or by walking up from the URDF's folder) and relative to the URDF
    vis = viz.urdf_visuals(urdf, package_dirs=[urdf.parent.parent.parent])
    assert viz.urdf_visuals(urdf).keys() == vis.keys()
    assert [v.type for v in vis["base"]] == ["box"]
    assert vis["base"][0].size == (0.4, 0.4, 0.2) and vis["base"][0].color == (0.2, 0.35, 0.9, 1.0)
    arm, = vis["arm"]
    assert arm.type == "mesh" and arm.scale == (0.8, 0.1, 0.1) and arm.mesh.faces.shape == (12, 3)
    np.testing.assert_allclose(arm.corners().min(axis=0), [0.05, -0.05, 0.0])
    assert [v.type for v in vis["tip"]] == ["sphere", "cylinder", "mesh"]
    # a cylinder along the visual z turned by pitch pi/2 lies along the link x
    np.testing.assert_allclose(np.ptp(vis["tip"][1].corners(), axis=0), [0.2, 0.04, 0.04], atol=1e-7)


def test_missing_mesh_warns_and_is_left_out(tmp_path):
    (tmp_path / "r.urdf").write_text(
        '<robot name="r"><link name="a"><visual><geometry><mesh '
        'filename="package://nowhere/x.stl"/></geometry></visual>'
        '<visual><geometry><sphere radius="1"/></geometry></visual></link></robot>')
    with pytest.warns(UserWarning, match="nowhere/x.stl"):
        vis = viz.urdf_visuals(tmp_path / "r.urdf")
    assert [v.type for v in vis["a"]] == ["sphere"]


def spacecraft():
    # a floating bus with a two-link arm (revolute + prismatic) and a spherical wrist: every joint
    # kind the page's kinematics handles
    b = ModelBuilder(name="sc")
    b.add_body(body("bus", 100.0, inertia=np.diag([20.0, 30.0, 40.0]), ports={"mount": [0.6, 0.2, 0.3]}),
               floating_root("float"))
    b.add_body(body("link1", 5.0, com=[0.5, 0, 0], inertia=np.diag([0.01, 0.4, 0.4]), ports={"end": [1.0, 0, 0]}),
               revolute_joint("shoulder", [0.0, 0.6, 0.8], rotation=np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1.0]])),
               parent="bus", port="mount")
    b.add_body(body("link2", 2.0, com=[0.3, 0, 0], inertia=np.diag([0.005, 0.06, 0.06]), ports={"end": [0.6, 0, 0]}),
               prismatic_joint("extend", [1.0, 0, 0]), parent="link1", port="end")
    b.add_body(body("hand", 1.0, com=[0.05, 0, 0], inertia=np.diag([0.002, 0.003, 0.004])),
               spherical_joint("wrist"), parent="link2", port="end")
    return b.build()


def test_page_kinematics_match_body_poses(browser, urdf, tmp_path):
    # oracle: satdyn.multibody.body_poses (the library's own forward kinematics) at the same q
    model = load_urdf(urdf)
    path = viz.robot(model, urdf=urdf).save(tmp_path / "bot.html")
    sc = spacecraft()
    q = np.array([0.3, -0.2, 0.5, *(np.array([0.1, -0.2, 0.3, 0.9]) / np.linalg.norm([0.1, -0.2, 0.3, 0.9])),
                  0.7, 0.25, *(np.array([0.2, 0.1, -0.3, 0.8]) / np.linalg.norm([0.2, 0.1, -0.3, 0.8]))])
    sc_scene = viz.trajectory(sc, [0.0, 1.0], np.stack([sc.neutral_configuration(), q]))
    sc_path = sc_scene.save(tmp_path / "sc.html")
    q = np.array(sc_scene.data["q"][sc.nq:])      # the q the page got (7 significant digits, for display)
    assert np.abs(q - sc_scene.data["q"][sc.nq:]).max() == 0.0
    # a URDF mimic joint (mimic="coupled"): the follower has no slider and moves with its master
    mimic_urdf = tmp_path / "mimic.urdf"
    mimic_urdf.write_text(MIMIC_URDF)
    coupled = load_urdf(mimic_urdf, mimic="coupled")
    mimic_path = viz.robot(coupled).save(tmp_path / "mimic.html")
    (_, bot), (_, moved), (_, gripper) = browser.render(
        [path, sc_path, mimic_path], ["joint=yaw:0.7,slide:0.1&ui=0", "t=1&ui=0", "joint=left:0.02&ui=0"])
    assert [s["name"] for s in viz.robot(coupled).data["tree"]["sliders"]] == ["left"]
    for state, m, qq in ((bot, model, np.array([0.7, 0.1])), (moved, sc, q),
                         (gripper, coupled.model, coupled.expand(np.array([0.02])))):
        pos, dcm = body_poses(m, qq)
        np.testing.assert_allclose(np.array(state["positions"]), pos, atol=POSE_TOL)
        np.testing.assert_allclose(np.array(state["rotations"]).reshape(-1, 3, 3), dcm, atol=POSE_TOL)


def test_joint_slider_moves_the_link_on_screen(browser, urdf, tmp_path):
    # two hash states of the yaw joint: the red arm must appear inside the pinhole projection of
    # its box at each angle (the blue base stays where it is), and the two pictures differ there;
    # the tip is slid out (0.3 m) so that it hides no corner of the arm
    model = load_urdf(urdf)
    scene = viz.robot(model, urdf=urdf)
    path = scene.save(tmp_path / "bot.html")
    arm = viz.urdf_visuals(urdf)["arm"][0]
    shots = browser.render(path, ["joint=yaw:-0.6,slide:0.3&ui=0", "joint=yaw:1.2,slide:0.3&ui=0"])
    base_boxes = []
    for (image, _state), yaw in zip(shots, (-0.6, 1.2)):
        pos, dcm = body_poses(model, np.array([yaw, 0.3]))
        corners = arm.corners() @ dcm[1].T + pos[1]
        got = pixel_box(red(image))
        assert got is not None, "the arm is not drawn"
        want = projected_box(scene.camera, corners, image)
        assert np.all(np.abs(np.array(got) - np.array(want)) <= PIXELS), (yaw, got, want)
        base_boxes.append(pixel_box(blue(image)))
    assert np.abs(np.array(base_boxes[0]) - np.array(base_boxes[1])).max() <= 2 * PIXELS
    assert (red(shots[0][0]) != red(shots[1][0])).sum() > 500


def test_default_shapes_are_equivalent_inertia_boxes():
    # a uniform box of sides (a, b, c) has I_x = m (b^2 + c^2) / 12: the inverse must return (a, b, c)
    m, (a, b, c) = 3.0, (0.2, 0.5, 1.1)
    inertia = m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    sides, _ = viz.inertia_box(m, inertia)
    np.testing.assert_allclose(sorted(sides), sorted([a, b, c]), rtol=1e-12)
    scene = viz.robot(spacecraft())
    assert len(scene.data["tree"]["sliders"]) == 2          # shoulder (revolute), extend (prismatic)


@pytest.mark.parametrize("call, name", [
    (lambda m: viz.robot(m, q=np.zeros(3)), "q"),
    (lambda m: viz.robot("not a model"), "model"),
    (lambda m: viz.trajectory(m, [0.0, 0.0], np.zeros((2, m.nq))), "t"),
    (lambda m: viz.trajectory(m, [0.0, 1.0], np.zeros((3, m.nq))), "q"),
    (lambda m: viz.robot(m, urdf="/nonexistent.urdf"), "urdf"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(viz.VizInputError, match=f"`{name}`"):
        call(spacecraft())


@pytest.mark.skipif(PANDA is None, reason="example-robot-data is not installed (the test extra)")
def test_real_urdf_finds_every_package_mesh():
    # example-robot-data's Panda names its meshes package://example-robot-data/...: found by
    # walking up from the URDF (no package_dirs), every <visual> mesh of the file is drawn
    import warnings
    import xml.etree.ElementTree as ET
    urdf = PANDA / "urdf" / "panda.urdf"
    expected = sum(1 for v in ET.parse(urdf).getroot().iter("visual") if v.find("geometry/mesh") is not None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)      # load_urdf's note on the mimic finger joint
        model = load_urdf(urdf)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                    # a missing mesh would warn
        scene = viz.robot(model, urdf=urdf)
    drawn = sum(v["type"] == "mesh" for b in scene.data["tree"]["bodies"] for v in b["visuals"])
    assert expected > 5 and drawn == expected
    assert len(scene.data["tree"]["sliders"]) == 9 and scene.data["tree"]["sliders"][0]["max"] == pytest.approx(2.8973)
