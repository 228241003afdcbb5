"""Cross-check with MuJoCo (spec 004 §5.3, §8 item 7), a second, independent engine.

MuJoCo rejects the paper's balloon inertia (triangle inequality) and exactly zero point-mass
inertias, so both engines get the same *modified* example 𝓖: balloon off-diagonal -2 instead
of -7 and point-mass inertias 1e-12 (spec §5.3). Conventions: MuJoCo's free-joint qvel is
[world linear velocity, body angular velocity] and its qacc linear part is the classical world
acceleration; satdyn's is the body-frame spatial acceleration: ``v_dot_b = R^T a_w - w_b x v_b``.
Tolerance 1e-9 relative (the spec measured 1e-11).
"""

import numpy as np
import pytest

import satdyn.multibody as mb
from satdyn.spatial import dcm_from_quaternion, quaternion_to_wxyz

mujoco = pytest.importorskip("mujoco")

TINY = 1e-12
G = np.array([0.0, -9.81, 0.0])

MJCF = f"""
<mujoco>
  <option gravity="0 -9.81 0"/>
  <worldbody>
    <body name="balloon">
      <freejoint/>
      <inertial pos="0 0 0" mass="10" fullinertia="5 10 10 0 0 -2"/>
      <body name="slider" pos="0 -2 0">
        <joint name="p" type="slide" axis="1 0 -1"/>
        <inertial pos="0 0 0" mass="1" diaginertia="{TINY} {TINY} {TINY}"/>
        <body name="pendulum1">
          <joint name="theta1" type="hinge" axis="0 0 1"/>
          <inertial pos="0 -1.2 0" mass="2" diaginertia="{TINY} {TINY} {TINY}"/>
          <body name="pendulum2" pos="0 -1.2 0">
            <joint name="theta2" type="hinge" axis="0 0 1"/>
            <inertial pos="0 -1.6 0" mass="3" diaginertia="{TINY} {TINY} {TINY}"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def modified_example_g():
    b = mb.ModelBuilder(gravity=G)
    tiny = TINY * np.eye(3)
    b.add_body(mb.body("balloon", 10.0, inertia=[[5, 0, 0], [0, 10, -2], [0, -2, 10]], ports={"C": [0, -2, 0]}),
               mb.floating_root("balloon"))
    b.add_body(mb.body("slider", 1.0, inertia=tiny), mb.prismatic_joint("p", [1, 0, -1]), parent="balloon", port="C")
    b.add_body(mb.body("pendulum1", 2.0, com=[0, -1.2, 0], inertia=tiny, ports={"P1": [0, -1.2, 0]}),
               mb.revolute_joint("theta1", [0, 0, 1]), parent="slider")
    b.add_body(mb.body("pendulum2", 3.0, com=[0, -1.6, 0], inertia=tiny),
               mb.revolute_joint("theta2", [0, 0, 1]), parent="pendulum1", port="P1")
    b.add_external_wrench("balloon", np.r_[-16.0 * G, 0, 0, 0], frame="inertial")   # buoyancy at B
    return b.build()


def test_forward_dynamics_matches_mujoco():
    model = modified_example_g()
    mj = mujoco.MjModel.from_xml_string(MJCF)
    data = mujoco.MjData(mj)
    rng = np.random.default_rng(12)
    for _ in range(5):
        quat = rng.normal(size=4)
        quat /= np.linalg.norm(quat)
        q = np.r_[rng.normal(size=3), quat, rng.normal(size=3)]
        v = rng.normal(size=9)
        tau = rng.normal(size=9)
        R = dcm_from_quaternion(quat)
        data.qpos[:] = np.r_[q[:3], quaternion_to_wxyz(quat), q[7:]]
        data.qvel[:] = np.r_[R @ v[:3], v[3:]]
        # the satdyn root effort is a body-frame wrench at B; MuJoCo's free-joint generalized force
        # is [world force, body torque]
        data.qfrc_applied[:] = np.r_[R @ tau[:3], tau[3:]]
        data.xfrc_applied[1] = np.r_[-16.0 * G, 0, 0, 0]
        mujoco.mj_forward(mj, data)
        a_mj = data.qacc.copy()
        expected = np.r_[R.T @ a_mj[:3] - np.cross(v[3:6], v[:3]), a_mj[3:]]
        a = mb.forward_dynamics(model, q, v, tau)
        assert np.abs(a - expected).max() / np.abs(expected).max() < 1e-9
