"""Free-floating models read from URDF through satdyn.multibody's reader.

Oracle: Pinocchio loading the same file with a free-flyer root. The quantities compared do not
depend on how the base velocity is parametrised: the reduced inertia H = Hm − H0mᵀ H0⁻¹ H0m
(a Schur complement, invariant under a change of base-velocity coordinates) and the
end-effector twist of a zero-momentum motion (base velocity from momentum conservation).
Tolerance 1e-10: a few hundred ulps of O(1..100) quantities through two kinematic chains.
"""

import numpy as np
import pinocchio as pin
import pytest

from satdyn import freefloating as ff
from satdyn.spatial import dcm_from_euler

URDF_HEADER = '<?xml version="1.0"?>\n<robot name="random_arm">\n'


def _inertial(rng, mass):
    xyz = rng.normal(size=3) * 0.1
    a, b, c = rng.uniform(0.1, 0.6, size=3)  # a solid box: physical principal moments
    moments = mass / 12.0 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    return (f'<inertial><origin xyz="{xyz[0]} {xyz[1]} {xyz[2]}" rpy="0.3 -0.2 0.1"/>'
            f'<mass value="{mass}"/><inertia ixx="{moments[0]}" ixy="0" ixz="0" iyy="{moments[1]}" '
            f'iyz="0" izz="{moments[2]}"/></inertial>')


def random_arm_urdf(rng, n_joints, *, massless_gimbals=(), massless_tool=False):
    """Base link, a welded camera on the base, n revolute links with random axes and origins,
    a welded link in the middle of the chain and a welded tool at the tip.

    ``massless_gimbals``: indices k of links written without ``<inertial>`` (a gimbal between
    joints k and k + 1); ``massless_tool``: the tool is a bare ``<link name="tool"/>`` frame
    (the usual URDF idiom for a tool frame)."""
    links = [f'<link name="base">{_inertial(rng, 300.0)}</link>',
             f'<link name="camera">{_inertial(rng, 5.0)}</link>']
    joints = ['<joint name="a_camera" type="fixed"><parent link="base"/><child link="camera"/>'
              '<origin xyz="0.3 0.2 -0.4" rpy="0.1 0.2 0.3"/></joint>']
    parent = "base"
    for k in range(n_joints):
        name = f"link{k + 1}"
        mass = rng.uniform(2.0, 8.0)
        links.append(f'<link name="{name}"/>' if k in massless_gimbals else
                     f'<link name="{name}">{_inertial(rng, mass)}</link>')
        xyz = rng.normal(size=3) * 0.5
        rpy = rng.uniform(-1.0, 1.0, size=3)
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        joints.append(f'<joint name="j{k + 1}" type="revolute"><parent link="{parent}"/><child link="{name}"/>'
                      f'<origin xyz="{xyz[0]} {xyz[1]} {xyz[2]}" rpy="{rpy[0]} {rpy[1]} {rpy[2]}"/>'
                      f'<axis xyz="{axis[0]} {axis[1]} {axis[2]}"/>'
                      '<limit lower="-3" upper="3" effort="10" velocity="1"/></joint>')
        parent = name
        if k == n_joints // 2:  # a welded sub-link in the middle of the chain
            links.append(f'<link name="{name}_bracket">{_inertial(rng, 1.5)}</link>')
            joints.append(f'<joint name="j{k + 1}_bracket" type="fixed"><parent link="{name}"/>'
                          f'<child link="{name}_bracket"/><origin xyz="0.1 0 0.2" rpy="0 0.4 0"/></joint>')
    links.append('<link name="tool"/>' if massless_tool else f'<link name="tool">{_inertial(rng, 0.8)}</link>')
    joints.append(f'<joint name="tool_mount" type="fixed"><parent link="{parent}"/><child link="tool"/>'
                  '<origin xyz="0.05 0.02 0.3" rpy="0.2 0.1 -0.3"/></joint>')
    return URDF_HEADER + "\n".join(links + joints) + "\n</robot>\n"


@pytest.mark.parametrize("n_joints, seed, gimbals, bare_tool", [
    (1, 0, (), False), (3, 1, (), False), (6, 2, (), False),
    # issue 15: massless frames -- a bare tool frame, massless gimbal links between two joints
    (2, 3, (), True), (4, 4, (0, 2), True), (5, 5, (1,), False), (3, 6, (0, 1), True)])
def test_urdf_model_matches_pinocchio(tmp_path, n_joints, seed, gimbals, bare_tool):
    rng = np.random.default_rng(seed)
    path = tmp_path / "arm.urdf"
    path.write_text(random_arm_urdf(rng, n_joints, massless_gimbals=gimbals, massless_tool=bare_tool))
    model = ff.from_urdf(path, end_effector="tool")
    assert model.n_joints == n_joints

    compare_with_pinocchio(path, model, "tool", rng)


def compare_with_pinocchio(path, model, ee_frame, rng, n_samples=4):
    """H and the zero-momentum end-effector twist of ``model`` against Pinocchio on the same file."""
    n_joints = model.n_joints
    pm = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    pm.gravity = pin.Motion.Zero()
    data = pm.createData()
    tool = pm.getFrameId(ee_frame)
    total_mass = sum(inertia.mass for inertia in pm.inertias)
    assert model.total_mass == pytest.approx(total_mass, rel=1e-12)

    for _ in range(n_samples):
        q = rng.uniform(-2.0, 2.0, size=n_joints)
        qdot = rng.normal(size=n_joints)
        base_R = dcm_from_euler(rng.uniform(-1, 1, size=3))
        # continuous joints are (cos, sin) in Pinocchio
        arm = [[np.cos(x), np.sin(x)] if j.nq == 2 else [x] for x, j in zip(q, list(pm.joints)[2:])]
        q_pin = np.r_[rng.normal(size=3), pin.Quaternion(base_R).coeffs(), np.concatenate(arm)]
        M = pin.crba(pm, data, q_pin)
        M = np.triu(M) + np.triu(M, 1).T
        H_oracle = M[6:, 6:] - M[6:, :6] @ np.linalg.solve(M[:6, :6], M[:6, 6:])
        assert np.allclose(ff.generalized_inertia(model, q), H_oracle, rtol=1e-10, atol=1e-10)

        # Zero total momentum: base velocity from M_bb v_b + M_bm qdot = 0.
        v = np.r_[-np.linalg.solve(M[:6, :6], M[:6, 6:] @ qdot), qdot]
        pin.forwardKinematics(pm, data, q_pin, v)
        pin.updateFramePlacements(pm, data)
        twist = pin.getFrameVelocity(pm, data, tool, pin.LOCAL_WORLD_ALIGNED).vector
        # satdyn's inertial frame is Pinocchio's world frame up to the base pose; compare in base axes.
        R_world_base = data.oMi[1].rotation
        expected = np.r_[R_world_base.T @ twist[:3], R_world_base.T @ twist[3:]]
        ours = ff.generalized_jacobian(model, q) @ qdot   # base at identity attitude
        assert np.allclose(ours, expected, rtol=1e-10, atol=1e-10)


def test_urdf_errors_name_the_problem(tmp_path):
    rng = np.random.default_rng(5)
    path = tmp_path / "arm.urdf"
    path.write_text(random_arm_urdf(rng, 2))
    with pytest.raises(ValueError, match="`end_effector`"):
        ff.from_urdf(path, end_effector="camera")
    branched = random_arm_urdf(rng, 2).replace(
        "</robot>", '<link name="second_arm">' + _inertial(rng, 1.0) + '</link><joint name="k1" type="revolute">'
        '<parent link="base"/><child link="second_arm"/><axis xyz="0 0 1"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>')
    path.write_text(branched)
    with pytest.raises(ValueError, match="branches"):
        ff.from_urdf(path)


def test_fixed_root_or_gravity_is_refused():
    from satdyn import multibody as mb

    b = mb.ModelBuilder(gravity=[0.0, 0.0, -9.81])
    b.add_body(mb.body("base", 10.0, inertia=np.eye(3)), mb.floating_root("base"))
    b.add_body(mb.body("link", 1.0, inertia=np.eye(3) * 0.1), mb.revolute_joint("q1", [0, 0, 1]), parent="base")
    with pytest.raises(ValueError, match="gravity"):
        ff.from_multibody(b.build())
    b = mb.ModelBuilder()
    b.add_body(mb.body("base", 10.0, inertia=np.eye(3)), mb.fixed_root())
    b.add_body(mb.body("link", 1.0, inertia=np.eye(3) * 0.1), mb.revolute_joint("q1", [0, 0, 1]), parent="base")
    with pytest.raises(ValueError, match="floating"):
        ff.from_multibody(b.build())
