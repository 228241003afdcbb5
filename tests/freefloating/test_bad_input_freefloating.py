"""Bad input to satdyn.freefloating's public boundary: a clear error naming what is wrong.

Each case asserts the exception type and that the message names the offending argument (in
backticks). Contracts of the public API, checked before any work (no oracle needed).
"""

import numpy as np
import pytest

from oracle import random_model
from satdyn import freefloating as ff
from satdyn import multibody as mb

MODEL = random_model(3, seed=0)


def _manipulator(**changes):
    fields = dict(base_mass=MODEL.base_mass, base_inertia=MODEL.base_inertia, joint_placements=MODEL.joint_placements,
                  link_masses=MODEL.link_masses, link_coms=MODEL.link_coms, link_inertias=MODEL.link_inertias,
                  ee_placement=MODEL.ee_placement)
    fields.update(changes)
    return ff.SpacecraftManipulator(**fields)


def _scaled_rotation():
    P = MODEL.joint_placements.copy()
    P[0, :3, :3] *= 2.0
    return P


def _bad_last_row():
    E = MODEL.ee_placement.copy()
    E[3, 0] = 1.0
    return E


def _with_inertia(k, J):
    inertias = MODEL.link_inertias.copy()
    inertias[k] = J
    return inertias


def _dh(**changes):
    args = dict(base_mass=100.0, base_inertia=10 * np.eye(3), mount_position=[0.5, 0, 0], d=[0.1, 0.2],
                alpha=[0.0, 0.5], a=[0.3, 0.3], b=[0.2, 0.2], masses=[2.0, 1.0],
                inertias=np.stack([0.1 * np.eye(3)] * 2))
    args.update(changes)
    return ff.from_dh(**args)


def _tree(gravity=None, root=mb.floating_root, base_mass=10.0):
    b = mb.ModelBuilder(gravity=gravity)
    b.add_body(mb.body("base", base_mass, inertia=np.eye(3) if base_mass else None), root("base"))
    b.add_body(mb.body("link", 1.0, inertia=0.1 * np.eye(3)), mb.revolute_joint("q1", [0, 0, 1]), parent="base")
    return b.build()


_COMMAND = ff.JointSequenceCommand(n_joints=3)
_ZERO3 = np.zeros(3)

CASES = [
    # (id, call, exception, text the message must contain)
    ("base_mass zero", lambda: _manipulator(base_mass=0.0), ValueError, "`base_mass`"),
    ("base_mass not numeric", lambda: _manipulator(base_mass="heavy"), TypeError, "`base_mass`"),
    ("base_inertia negative", lambda: _manipulator(base_inertia=-np.eye(3)), ValueError, "`base_inertia`"),
    ("base_inertia shape", lambda: _manipulator(base_inertia=np.eye(2)), ValueError, "`base_inertia`"),
    ("base_inertia triangle", lambda: _manipulator(base_inertia=np.diag([1.0, 1.0, 5.0])),
     ValueError, "`base_inertia`"),
    ("joint_placements not rotations", lambda: _manipulator(joint_placements=_scaled_rotation()),
     ValueError, "`joint_placements`"),
    ("joint_placements shape", lambda: _manipulator(joint_placements=np.eye(4)), ValueError, "`joint_placements`"),
    ("link_masses negative", lambda: _manipulator(link_masses=[-1.0, 1.0, 1.0]), ValueError, "`link_masses`"),
    ("link_masses count", lambda: _manipulator(link_masses=[1.0, 1.0]), ValueError, "`link_masses`"),
    ("link_coms shape", lambda: _manipulator(link_coms=np.zeros((3, 2))), ValueError, "`link_coms`"),
    ("link_inertias triangle", lambda: _manipulator(link_inertias=_with_inertia(1, np.diag([1.0, 1.0, 5.0]))),
     ValueError, "`link_inertias`"),
    ("link_inertias indefinite", lambda: _manipulator(link_inertias=_with_inertia(0, np.diag([1.0, -1.0, 1.0]))),
     ValueError, "`link_inertias`"),
    ("massless tail", lambda: _manipulator(link_masses=[1.0, 0.0, 0.0],
                                           link_inertias=_with_inertia(2, np.zeros((3, 3)))[[0, 2, 2]]),
     ValueError, "`link_masses`"),
    ("ee_placement last row", lambda: _manipulator(ee_placement=_bad_last_row()), ValueError, "`ee_placement`"),
    ("from_dh d 2-D", lambda: _dh(d=np.zeros((2, 2))), ValueError, "`d`"),
    ("from_dh alpha count", lambda: _dh(alpha=[0.0]), ValueError, "`alpha`"),
    ("from_dh b shape", lambda: _dh(b=np.zeros((2, 2))), ValueError, "`b`"),
    ("from_dh inertias shape", lambda: _dh(inertias=np.eye(3)), ValueError, "`inertias`"),
    ("from_dh mount_position", lambda: _dh(mount_position=[0.0, 0.0]), ValueError, "`mount_position`"),
    ("from_dh vector b without c", lambda: _dh(b=np.zeros((2, 3))), ValueError, "`c`"),
    ("generalized_inertia model", lambda: ff.generalized_inertia("model", _ZERO3), TypeError, "`model`"),
    ("generalized_inertia q", lambda: ff.generalized_inertia(MODEL, np.zeros(2)), ValueError, "`q`"),
    ("base_attitude shape", lambda: ff.generalized_inertia(MODEL, _ZERO3, base_attitude=np.eye(2)),
     ValueError, "`base_attitude`"),
    ("generalized_jacobian q nan", lambda: ff.generalized_jacobian(MODEL, [np.nan] * 3), ValueError, "`q`"),
    ("reduced_forward_dynamics tau", lambda: ff.reduced_forward_dynamics(MODEL, _ZERO3, _ZERO3, np.zeros(4)),
     ValueError, "`tau`"),
    ("reduced_forward_dynamics qdot", lambda: ff.reduced_forward_dynamics(MODEL, _ZERO3, np.zeros(2), _ZERO3),
     ValueError, "`qdot`"),
    ("base_twist_from_momentum", lambda: ff.base_twist_from_momentum(MODEL, _ZERO3, _ZERO3, momentum=np.zeros(5)),
     ValueError, "`momentum`"),
    ("forward_kinematics_quaternion", lambda: ff.forward_kinematics_quaternion(MODEL, _ZERO3, base_quaternion=_ZERO3),
     ValueError, "`base_quaternion`"),
    ("from_multibody model", lambda: ff.from_multibody("model"), TypeError, "`model`"),
    ("from_multibody gravity", lambda: ff.from_multibody(_tree(gravity=[0, 0, -9.81])), ValueError, "`model`"),
    ("from_multibody fixed root", lambda: ff.from_multibody(_tree(root=mb.fixed_root)), ValueError, "`model`"),
    ("from_multibody massless base", lambda: ff.from_multibody(_tree(base_mass=0.0)), ValueError, "`model`"),
    ("from_multibody end_effector type", lambda: ff.from_multibody(_tree(), end_effector=1), TypeError,
     "`end_effector`"),
    ("from_urdf end_effector type", lambda: ff.from_urdf("arm.urdf", end_effector=1), TypeError, "`end_effector`"),
    ("from_urdf missing file", lambda: ff.from_urdf("/nonexistent/arm.urdf"), ValueError, "`path`"),
    ("controller kp", lambda: ff.ComputedTorqueController(_COMMAND, kp=-1.0), ValueError, "`kp`"),
    ("controller kd", lambda: ff.ComputedTorqueController(_COMMAND, kd=[[1.0]]), ValueError, "`kd`"),
    ("controller command", lambda: ff.ComputedTorqueController("go"), TypeError, "`command`"),
    ("simulate model", lambda: ff.simulate("model", t_final=1.0), TypeError, "`model`"),
    ("simulate t_final", lambda: ff.simulate(MODEL, t_final=-1.0), ValueError, "`t_final`"),
    ("simulate rtol", lambda: ff.simulate(MODEL, t_final=1.0, rtol=-1.0), ValueError, "`rtol`"),
    ("simulate sample_dt", lambda: ff.simulate(MODEL, t_final=1.0, sample_dt=0.0), ValueError, "`sample_dt`"),
    ("simulate q0", lambda: ff.simulate(MODEL, t_final=1.0, q0=np.zeros(2)), ValueError, "`q0`"),
]


@pytest.mark.parametrize("call, exception, text", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input(call, exception, text):
    with pytest.raises(exception) as info:
        call()
    assert text in str(info.value)
