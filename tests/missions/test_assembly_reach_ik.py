"""General reach IK of walking robots (satdyn.missions.assembly.reach).

Oracles: the paper robot's forward kinematics (satdyn.titop.kinematics.robot_pose), the
multibody forward kinematics (satdyn.multibody.body_poses) of a URDF robot, the shipped
Y45 reach-pose table (solved by the structured IK of satdyn.missions.assembly.ik), central
finite differences.
"""

from pathlib import Path

import numpy as np
import pytest

from satdyn.missions.assembly.collision import check_move
from satdyn.missions.assembly.poses import reach_pose_table
from satdyn.missions.assembly.reach import (ReachTarget, WalkingKinematics, reverse_chain, solve_reach,
                                            urdf_joint_limits)
from satdyn.multibody import body_poses, load_urdf
from satdyn.titop.data import load_robot
from satdyn.titop.kinematics import robot_pose

URDF = Path(__file__).parent / "data" / "biped_walker.urdf"
FOOT_COLUMNS = ("L_foot", "L_heel", "L_ankle", "R_foot", "R_heel", "R_ankle")


def _y45(kind, dock, **kw):
    return WalkingKinematics.from_titop_robot(load_robot("Y45"), kind, dock, **kw)


def _structured_active(key):
    """Joints the paper's gait moves: rolls and pitches (1-4) of the docked and the moving arm."""
    d, m = (0, 1) if key[0] == "walk" else (key[1] - 1, 2)
    return [5 * d + i for i in range(4)] + [5 * m + i for i in range(4)]


def test_chains_match_the_robot_forward_kinematics():
    # every joint point of the three arms and the moving foot's frame agree with robot_pose
    # (an independent composition of the same rotations); ~40 3x3 products: rounding < 1e-14
    robot = load_robot("Y45")
    rng = np.random.default_rng(3)
    for kind in ("walk", "r3"):
        for dock in (1, 2):
            kin = _y45(kind, dock)
            a = rng.uniform(-3, 3, (3, 5))
            ref = robot_pose(robot, a, dock)
            post = kin.posture(a.reshape(-1))
            for k in range(3):
                for i in range(7):
                    np.testing.assert_allclose(post.points[f"R{k + 1}.J{i}"], ref.points[k][i], atol=1e-14)
            m = (2 - dock) if kind == "walk" else 2
            R, p = kin.end_pose(a.reshape(-1))
            np.testing.assert_allclose(R, ref.dcms[m][0], atol=1e-14)
            np.testing.assert_allclose(post.body[1], ref.hub_com, atol=1e-14)


def test_reverse_chain_is_the_inverse():
    # a chain followed by its reverse is the identity (to rounding)
    kin = _y45("walk", 1)
    q = np.random.default_rng(0).uniform(-2, 2, 15)
    from satdyn.missions.assembly.reach import _walk
    R, p = _walk(kin.docked, q, np.eye(3), np.zeros(3))
    R2, p2 = _walk(reverse_chain(kin.docked), q, R, p)
    np.testing.assert_allclose(R2, np.eye(3), atol=1e-14)
    np.testing.assert_allclose(p2, 0.0, atol=1e-14)


def test_jacobian_matches_finite_differences():
    # central differences, h = 1e-6: truncation |p'''| h^2 / 6 < 1e-11 (lever arms < 3 m),
    # rounding eps |p| / h ~ 1e-10: tolerance 1e-8
    h = 1e-6
    for kin in (_y45("r3", 2), WalkingKinematics.from_multibody(load_urdf(URDF), "L_foot", "R_foot")):
        q = np.random.default_rng(5).uniform(-1.5, 1.5, kin.n_q)
        R, p, Jv, Jw = kin.jacobian(q)
        for j in range(kin.n_q):
            e = np.zeros(kin.n_q)
            e[j] = h
            (Rp, pp), (Rm, pm) = kin.end_pose(q + e), kin.end_pose(q - e)
            np.testing.assert_allclose((pp - pm) / (2 * h), Jv[:, j], atol=1e-8)
            W = (Rp - Rm) / (2 * h) @ R.T                      # skew(omega)
            np.testing.assert_allclose([W[2, 1], W[0, 2], W[1, 0]], Jw[:, j], atol=1e-8)


def test_general_ik_reproduces_the_22_table_poses():
    # The general solver, started from the table's angles (rounded to 1e-6 deg = 1.7e-8 rad)
    # with the closest-to-seed rule and the gait's active joints, lands every foot / tile
    # centre on its target to 1e-9 m (Gauss-Newton polish: ~1e-15 reached), flat, yaw a
    # multiple of 90 deg (R3, square tile) or 0 (legs), and moves the angles by no more than
    # the table's rounding (1e-7 rad: the closest point of the manifold is within a few
    # rounding units of a point off it by < 5 x 1.7e-8 rad x lever arm).
    worst = 0.0
    for key, ref in reach_pose_table().items():
        if key[0] == "walk":
            kin, target = _y45("walk", 1), ReachTarget(np.array(key[1] + (0,), float), 0.0, 1)
        else:
            kin, target = _y45("r3", key[1]), ReachTarget(np.array(key[2] + (0,), float), 0.0, 4)
        sol = solve_reach(kin, target, active=_structured_active(key), q_ref=ref.reshape(-1), seeds=1)
        R, p = kin.end_pose(sol.q)
        worst = max(worst, np.abs(p - target.position).max())
        assert np.abs(p - target.position).max() < 1e-9, key
        assert abs(R[2, 2] - 1) < 1e-12 and abs(np.sin(4 * np.arctan2(R[1, 0], R[0, 0]))) < 1e-9
        np.testing.assert_allclose(sol.q, ref.reshape(-1), atol=1e-7, err_msg=str(key))
    assert worst < 1e-12


# The minimum-norm rule with the path filter (the table's selection rule) is exercised by
# tests/missions/test_assembly_poses.py::test_planar_ik_reproduces_the_shipped_poses (slow):
# ik.solve_planar now runs solve_reach + check_move and selects the table's pitches in all
# 6 sub-problems (to <= 2.4e-8 rad, the table's rounding).


def _biped(**kw):
    return WalkingKinematics.from_multibody(load_urdf(URDF), "L_foot", "R_foot", limits=urdf_joint_limits(URDF),
                                            radius=0.04, contact_points=FOOT_COLUMNS, **kw)


def test_multibody_chains_match_body_poses():
    # the moving foot's pose in the docked foot's frame equals the multibody FK's (oracle)
    model = load_urdf(URDF)
    kin = _biped()
    iL, iR = model.body_index("L_foot"), model.body_index("R_foot")
    for q in np.random.default_rng(7).uniform(-2, 2, (5, 12)):
        pos, dcm = body_poses(model, q)
        R, p = kin.end_pose(q)
        np.testing.assert_allclose(R, dcm[iL].T @ dcm[iR], atol=1e-14)
        np.testing.assert_allclose(p, dcm[iL].T @ (pos[iR] - pos[iL]), atol=1e-14)
    assert urdf_joint_limits(URDF)["L3_pitch"] == (-3.0, 3.0)
    np.testing.assert_array_equal(kin.lower, -3.0)


def test_urdf_biped_walks_on_rectangular_tiles():
    # 0.6 m x 1.2 m tiles (symmetry 2): from a lifted home pose, the biped's free foot reaches
    # the neighbouring tile centres flat with its yaw along the tile (0 or pi), joint limits
    # respected, on a path check_move passes; landing to 1e-9 m (Gauss-Newton polish).
    kin = _biped()
    home = solve_reach(kin, ReachTarget([-0.3, 0.0, 0.3], 0.0), seeds=4).q
    assert check_move(kin, home, home).ok
    for target in ((-0.6, 0.0), (0.0, 1.2), (-0.6, 1.2)):
        t = ReachTarget([target[0], target[1], 0.0], 0.0, symmetry=2)
        sol = solve_reach(kin, t, q_ref=home, seeds=6, accept=lambda q: check_move(kin, home, q).ok)
        R, p = kin.end_pose(sol.q)
        assert np.abs(p - t.position).max() < 1e-9
        assert abs(R[2, 2] - 1) < 1e-12 and abs(R[1, 0]) < 1e-9           # yaw 0 or pi
        assert np.all(sol.q >= kin.lower) and np.all(sol.q <= kin.upper)
        # selection rule: no other candidate is closer to the reference posture
        dists = [np.linalg.norm(c - home) for c in sol.candidates]
        assert np.linalg.norm(sol.q - home) <= min(dists) + 1e-12 or sol.rejected > 0


def test_y45_places_a_rectangular_tile():
    # R3 carries a 0.6 m x 1.2 m tile (symmetry 2) to a slot centred at (1.2, 0.6) m; the
    # selected pose is min-norm over the gait's joints and its path keeps the tile above the
    # structure and clear of the robot's links
    kin = _y45("r3", 1)
    key = ("r3", 1, (0, 0))
    t = ReachTarget([1.2, 0.6, 0.0], 0.0, symmetry=2)
    sol = solve_reach(kin, t, active=_structured_active(key), seeds=6,
                      accept=lambda q: check_move(kin, np.zeros(15), q, tile_size=(0.6, 1.2)).ok)
    R, p = kin.end_pose(sol.q)
    assert np.abs(p - t.position).max() < 1e-9 and abs(R[1, 0]) < 1e-9 and R[2, 2] > 1 - 1e-12


def test_tool_and_per_link_radii():
    # a tool offset moves the end by R_foot p (oracle: the foot pose without the tool); a
    # per-link radius dict sets the capsule ending at that link, others 0
    p_tool = np.array([0.1, -0.2, 0.05])
    q = np.random.default_rng(9).uniform(-1, 1, 15)
    R0, p0 = _y45("r3", 1).end_pose(q)
    R1, p1 = _y45("r3", 1, tool=(np.eye(3), p_tool)).end_pose(q)
    np.testing.assert_allclose(p1, p0 + R0 @ p_tool, atol=1e-15)
    kin = WalkingKinematics.from_multibody(load_urdf(URDF), "L_foot", "R_foot", radius={"R_shin": 0.07})
    radii = {(a, b): r for a, b, r, _ in kin.capsules}
    assert radii[("R_thigh", "R_shin")] == 0.07 and radii[("L_thigh", "L_shin")] == 0.0


def test_deterministic():
    # fixed seeds: the same call gives the same bits
    kin = _biped()
    t = ReachTarget([-0.3, 0.0, 0.3], 0.0)
    a, b = solve_reach(kin, t, seeds=2, seed=11), solve_reach(kin, t, seeds=2, seed=11)
    np.testing.assert_array_equal(a.q, b.q)


def test_reach_bad_input():
    kin = _y45("walk", 1)
    with pytest.raises(ValueError, match="`kind`"):
        _y45("jump", 1)
    with pytest.raises(ValueError, match="`dock`"):
        _y45("walk", 3)
    with pytest.raises(ValueError, match="`position`"):
        ReachTarget([1.0, 0.0])
    with pytest.raises(ValueError, match="`symmetry`"):
        ReachTarget([1.0, 0.0, 0.0], 0.0, 0)
    with pytest.raises(ValueError, match="`active`"):
        solve_reach(kin, ReachTarget([1.0, 0.0, 0.0]), active=[99])
    with pytest.raises(ValueError, match="`q`"):
        kin.end_pose(np.zeros(3))
    with pytest.raises(ValueError, match="`model`"):
        WalkingKinematics.from_multibody(load_urdf(URDF, floating=True), "L_foot", "R_foot")
    with pytest.raises(ValueError, match="unknown body"):
        WalkingKinematics.from_multibody(load_urdf(URDF), "L_foot", "nose")
    with pytest.raises(ValueError, match="`tool`"):
        _y45("r3", 1, tool=(np.eye(2), np.zeros(3)))
    with pytest.raises(ValueError, match="`radius`"):
        WalkingKinematics.from_multibody(load_urdf(URDF), "L_foot", "R_foot", radius={"nose": 0.1})
    with pytest.raises(ValueError, match="`seed`"):
        solve_reach(kin, ReachTarget([1.0, 0.0, 0.0]), seed=1.5)
    with pytest.raises(ValueError, match="`accept`"):
        solve_reach(kin, ReachTarget([1.0, 0.0, 0.0]), accept=True)
    with pytest.raises(ValueError, match="no acceptable reach pose"):
        solve_reach(kin, ReachTarget([9.0, 0.0, 0.0]), seeds=2)      # out of reach
