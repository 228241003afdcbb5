"""Real arms of example-robot-data mounted on a spacecraft base, read by ``freefloating.from_urdf``.

Each arm's file gets a 500 kg spacecraft link welded under its root link (the arm's own base
and world links are massless frames, its tool frames too: UR5's ``world``, ``base``, ``ee_link``
and ``tool0`` -- the idiom of issue 15). Oracle: Pinocchio with a free-flyer root on the same
file: the reduced inertia H and the zero-momentum end-effector twist, as in test_from_urdf
(same tolerance and reason: 1e-10, a few hundred ulps of O(1..100) quantities).
"""

import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from example_robots import ROBOTS, SKIP_REASON, robot_file
from satdyn import freefloating as ff
from test_from_urdf import compare_with_pinocchio

pytestmark = pytest.mark.skipif(ROBOTS is None, reason=SKIP_REASON)

SPACECRAFT = ('<link name="spacecraft"><inertial><origin xyz="0.1 -0.05 0.2" rpy="0 0 0"/><mass value="500"/>'
              '<inertia ixx="220" ixy="3" ixz="-2" iyy="260" iyz="1" izz="300"/></inertial></link>')


def mounted(relative, tmp_path):
    """The arm's file with a spacecraft link welded under its root link."""
    tree = ET.parse(robot_file(relative))
    robot = tree.getroot()
    children = {j.find("child").get("link") for j in robot.findall("joint")}
    (arm_root,) = [link.get("name") for link in robot.findall("link") if link.get("name") not in children]
    robot.append(ET.fromstring(SPACECRAFT))
    robot.append(ET.fromstring(f'<joint name="spacecraft_mount" type="fixed"><parent link="spacecraft"/>'
                               f'<child link="{arm_root}"/><origin xyz="0.9 0.1 0.6" rpy="0.2 -0.1 0.4"/></joint>'))
    out = tmp_path / "mounted.urdf"
    tree.write(out)
    return out


@pytest.mark.parametrize("relative, end_effector, n_joints", [
    ("ur_description/urdf/ur5_robot.urdf", "tool0", 6),
    ("kinova_description/robots/kinova.urdf", "j2s6s200_end_effector", 6),
    ("xarm_description/urdf/xarm7.urdf", "link_eef", 7),
    ("z1_description/urdf/z1.urdf", None, 7),
])
def test_real_arm_on_a_spacecraft_matches_pinocchio(relative, end_effector, n_joints, tmp_path):
    path = mounted(relative, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # these arms need no projection, mimic or massless-inertia warning
        model = ff.from_urdf(path, end_effector=end_effector)
    assert model.n_joints == n_joints
    last_link = {"z1_description/urdf/z1.urdf": "gripperMover"}.get(relative, end_effector)
    compare_with_pinocchio(path, model, last_link, np.random.default_rng(n_joints), n_samples=3)
