"""Bad input to satdyn.multibody's public boundary: a clear error naming what is wrong.

Each case asserts the exception type and that the message names the offending argument (in
backticks), the URDF file, or the URDF element (link / joint name and attribute). No oracle is
needed: these are contracts of the public API (ARCHITECTURE: validation before any work).
"""

import numpy as np
import pytest

import satdyn.multibody as mb


def _model():
    b = mb.ModelBuilder()
    b.add_body(mb.body("base", 10.0, inertia=np.eye(3)), mb.fixed_root())
    b.add_body(mb.body("link", 1.0, inertia=0.1 * np.eye(3)), mb.revolute_joint("q1", [0, 0, 1]), parent="base")
    return b.build()


def _floating_builder():
    b = mb.ModelBuilder()
    b.add_body(mb.body("base", 1.0, inertia=np.eye(3)), mb.floating_root())
    return b


MODEL = _model()

API_CASES = [
    # (id, call, exception, text the message must contain)
    ("body mass not numeric", lambda: mb.body("b", "heavy"), TypeError, "`mass`"),
    ("body mass negative", lambda: mb.body("b", -1.0), ValueError, "`mass`"),
    ("body name not str", lambda: mb.body(3, 1.0), TypeError, "`name`"),
    ("body com shape", lambda: mb.body("b", 1.0, com=[1.0, 2.0]), ValueError, "`com`"),
    ("body inertia shape", lambda: mb.body("b", 1.0, inertia=np.eye(2)), ValueError, "`inertia`"),
    ("body inertia asymmetric", lambda: mb.body("b", 1.0, inertia=[[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]),
     ValueError, "`inertia`"),
    ("body inertia indefinite", lambda: mb.body("b", 1.0, inertia=np.diag([1.0, -1.0, 1.0])), ValueError, "`inertia`"),
    ("body inertia nan", lambda: mb.body("b", 1.0, inertia=np.full((3, 3), np.nan)), ValueError, "`inertia`"),
    ("body port shape", lambda: mb.body("b", 1.0, ports={"tip": [1.0, 2.0]}), ValueError, "`ports['tip']`"),
    ("revolute axis zero", lambda: mb.revolute_joint("j", [0, 0, 0]), ValueError, "`axis`"),
    ("prismatic axis shape", lambda: mb.prismatic_joint("j", [0, 1]), ValueError, "`axis`"),
    ("joint rotation not a rotation", lambda: mb.revolute_joint("j", [0, 0, 1], rotation=2 * np.eye(3)),
     ValueError, "`rotation`"),
    ("joint stiffness negative", lambda: mb.revolute_joint("j", [0, 0, 1], stiffness=-1.0), ValueError, "`stiffness`"),
    ("joint damping nan", lambda: mb.prismatic_joint("j", [0, 0, 1], damping=np.nan), ValueError, "`damping`"),
    ("fixed root position shape", lambda: mb.fixed_root(position=[0, 0]), ValueError, "`position`"),
    ("prescribed motion not callable", lambda: mb.prescribed_root(3.0), TypeError, "`motion`"),
    ("builder gravity shape", lambda: mb.ModelBuilder(gravity=[0.0, 9.81]), ValueError, "`gravity`"),
    ("add_body not a Body", lambda: mb.ModelBuilder().add_body("b", mb.fixed_root()), TypeError, "`new_body`"),
    ("add_body not a Joint", lambda: mb.ModelBuilder().add_body(mb.body("b", 1.0), "fixed"), TypeError, "`joint`"),
    ("external wrench frame", lambda: _floating_builder().add_external_wrench("base", np.zeros(6), frame="world"),
     ValueError, "`frame`"),
    ("external wrench shape", lambda: _floating_builder().add_external_wrench("base", np.zeros(3)),
     ValueError, "`wrench`"),
    ("loop closure stiffness shape", lambda: _floating_builder().add_loop_closure(
        "c", "base", "base", stiffness=np.eye(3), damping=np.eye(6)), ValueError, "`stiffness`"),
    ("forward_dynamics model", lambda: mb.forward_dynamics("model", np.zeros(1), np.zeros(1)), TypeError, "`model`"),
    ("forward_dynamics q shape", lambda: mb.forward_dynamics(MODEL, np.zeros(2), np.zeros(1)), ValueError, "`q`"),
    ("forward_dynamics v shape", lambda: mb.forward_dynamics(MODEL, np.zeros(1), np.zeros(3)), ValueError, "`v`"),
    ("forward_dynamics tau shape", lambda: mb.forward_dynamics(MODEL, np.zeros(1), np.zeros(1), np.zeros(2)),
     ValueError, "`tau`"),
    ("inverse_dynamics a shape", lambda: mb.inverse_dynamics(MODEL, np.zeros(1), np.zeros(1), np.zeros(4)),
     ValueError, "`a`"),
    ("mass_matrix q nan", lambda: mb.mass_matrix(MODEL, [np.nan]), ValueError, "`q`"),
    ("energy v shape", lambda: mb.mechanical_energy(MODEL, np.zeros(1), np.zeros(5)), ValueError, "`v`"),
    ("simulate model", lambda: mb.simulate("model", (0, 1), np.zeros(2)), TypeError, "`model`"),
    ("simulate x0 shape", lambda: mb.simulate(MODEL, (0, 1), np.zeros(3)), ValueError, "`x0`"),
    ("simulate t_span reversed", lambda: mb.simulate(MODEL, (1, 0), np.zeros(2)), ValueError, "`t_span`"),
    ("simulate rtol negative", lambda: mb.simulate(MODEL, (0, 1), np.zeros(2), rtol=-1.0), ValueError, "`rtol`"),
    ("simulate atol zero", lambda: mb.simulate(MODEL, (0, 1), np.zeros(2), atol=0.0), ValueError, "`atol`"),
    ("simulate method", lambda: mb.simulate(MODEL, (0, 1), np.zeros(2), method="Euler"), ValueError, "`method`"),
    ("linearize step", lambda: mb.linearize(MODEL, np.zeros(1), step=-1.0), ValueError, "`step`"),
    ("linearize q shape", lambda: mb.linearize(MODEL, np.zeros(3)), ValueError, "`q`"),
    ("load_urdf path type", lambda: mb.load_urdf(42), TypeError, "`path`"),
    ("load_urdf floating not bool", lambda: mb.load_urdf("robot.urdf", floating="yes"), TypeError, "`floating`"),
    ("load_urdf mimic mode", lambda: mb.load_urdf("robot.urdf", mimic="merge"), ValueError, "`mimic`"),
    ("load_urdf inertia_tolerance", lambda: mb.load_urdf("robot.urdf", inertia_tolerance=2.0),
     ValueError, "`inertia_tolerance`"),
    ("load_urdf missing file", lambda: mb.load_urdf("/nonexistent/robot.urdf"), ValueError, "`path`"),
]


@pytest.mark.parametrize("call, exception, text", [c[1:] for c in API_CASES], ids=[c[0] for c in API_CASES])
def test_api_bad_input(call, exception, text):
    with pytest.raises(exception) as info:
        call()
    assert text in str(info.value)


_HEAD = '<robot name="r"><link name="a"/><link name="b"/>'
_REV = '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>{}</joint></robot>'

URDF_CASES = [
    # (id, file text, text the message must contain)
    ("not XML", "<robot", "not valid XML"),
    ("not a robot", "<sdf/>", "expected <robot>"),
    ("joint type", _HEAD + '<joint name="j" type="planar"><parent link="a"/><child link="b"/></joint></robot>',
     "joint 'j': type 'planar'"),
    ("no child element", _HEAD + '<joint name="j" type="fixed"><parent link="a"/></joint></robot>', "joint 'j'"),
    ("unknown link", _HEAD + '<joint name="j" type="fixed"><parent link="a"/><child link="z"/></joint></robot>',
     "unknown link 'z'"),
    ("two roots", _HEAD + "</robot>", "exactly one root"),
    ("origin not numeric", _HEAD + _REV.format('<origin xyz="0 zero 0"/>'), "xyz="),
    ("origin too short", _HEAD + _REV.format('<origin rpy="0 0"/>'), "rpy must have 3"),
    ("axis zero", _HEAD + _REV.format('<axis xyz="0 0 0"/>'), "joint 'j': axis"),
    ("negative mass", '<robot name="r"><link name="a"><inertial><mass value="-2"/></inertial></link></robot>',
     "link 'a': mass"),
    ("inertia not numeric", '<robot name="r"><link name="a"><inertial><mass value="1"/>'
     '<inertia ixx="one" iyy="1" izz="1"/></inertial></link></robot>', "link 'a'"),
    ("inertia far from PSD", '<robot name="r"><link name="a"><inertial><mass value="1"/>'
     '<inertia ixx="1" iyy="1" izz="-1"/></inertial></link></robot>', "link 'a': inertia"),
]


@pytest.mark.parametrize("text, message", [c[1:] for c in URDF_CASES], ids=[c[0] for c in URDF_CASES])
def test_urdf_bad_content(tmp_path, text, message):
    path = tmp_path / "bad.urdf"
    path.write_text(text)
    with pytest.raises(ValueError) as info:
        mb.load_urdf(path, strict=True)   # strict: an inertia far from PSD is refused (default: read as Pinocchio)
    assert message in str(info.value)


def test_coupled_model_bad_input():
    with pytest.raises(TypeError, match="`model`"):
        mb.CoupledModel("model", {})
    with pytest.raises(ValueError, match="`mimics`"):
        mb.CoupledModel(MODEL, {"q1": ("nope", 1.0, 0.0)})
