"""Reach poses and quintic waypoints of the walking robot (Y45 arm geometry).

Oracle: the robot's forward kinematics of satdyn.titop.kinematics (an independent numeric
chain, not the IK that produced the table).  The shipped angles are rounded to 1e-6 deg
(1.7e-8 rad); with lever arms below 2 m (arm length sum 1.29 m plus the hub) the foot
positions can be off by < 2 x 1.7e-8 x 5 joints ~ 2e-7 m, hence the 3e-7 m tolerance;
foot orientations by < 5 x 1.7e-8 rad, hence 1e-7.
"""

import numpy as np
import pytest

from satdyn.missions.assembly.graphs import assembly_graphs
from satdyn.missions.assembly.layout import tile_layout
from satdyn.missions.assembly.poses import (PoseProvider, angle_values, half_edge_angles, quintic,
                                            reach_pose_table, waypoint_fractions)
from satdyn.titop.data import load_robot
from satdyn.titop.kinematics import robot_pose

POS_TOL, ORI_TOL = 3e-7, 1e-7


def _rz(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def test_quintic_boundary_conditions():
    # s(0)=0, s(1)=1, zero velocity and acceleration at both ends; central differences with
    # h = 1e-4 have truncation error s''' h^2 / 6 = 10 h^2 = 1e-7 (velocity) and
    # s'''' h^2 / 12 <= 3e-7 (acceleration), plus rounding eps / h^2 ~ 2e-8
    h = 1e-4
    for t in (0.0, 1.0):
        ds = (quintic(t + h) - quintic(t - h)) / (2 * h)
        dds = (quintic(t + h) - 2 * quintic(t) + quintic(t - h)) / h ** 2
        assert abs(ds) < 2e-7 and abs(dds) < 1e-6
    assert quintic(0.0) == 0.0 and quintic(1.0) == 1.0
    s = waypoint_fractions(7)
    assert s.size == 7 and s[0] == 0.0 and s[-1] == 1.0
    np.testing.assert_allclose(s, [0, 0.0355, 0.2099, 0.5, 0.7901, 0.9645, 1], atol=5e-5)   # spec 000d table
    # the return half is the outbound half reversed (s(1 - t) = 1 - s(t))
    q = reach_pose_table()[("walk", (1, 0))]
    np.testing.assert_array_equal(half_edge_angles(q, False), half_edge_angles(q, True)[::-1])


def test_reach_poses_feet_on_tile_centres():
    robot = load_robot("Y45")
    table = reach_pose_table()
    assert len(table) == 22
    for key, angles in table.items():
        assert np.all(np.abs(angles) <= np.pi + 1e-12)
        if key[0] == "walk":
            d = np.array(key[1] + (0,), float)
            for dock in (1, 2):
                pose = robot_pose(robot, angles, dock)
                moving = 2 - dock                     # index of the other leg
                target = d if dock == 1 else -d
                assert np.abs(pose.points[moving][0] - target).max() < POS_TOL
                assert np.abs(pose.dcms[moving][0] - np.eye(3)).max() < ORI_TOL      # docking: P_l0/f = I
        else:
            _, dock, d = key
            pose = robot_pose(robot, angles, dock)
            assert np.abs(pose.points[2][0] - np.array(d + (0,), float)).max() < POS_TOL
            P = pose.dcms[2][0]
            # tile flat and its yaw a multiple of 90 deg (the square tile's symmetry)
            assert np.abs(P[:, 2] - [0, 0, 1]).max() < ORI_TOL
            yaw = np.arctan2(P[1, 0], P[0, 0])
            assert abs(np.sin(2 * yaw)) < ORI_TOL


def test_docking_continuity():
    # the hub pose at the switching instant is the same rooted at R1 on C_i and at R2 on C_j
    robot = load_robot("Y45")
    for key, angles in reach_pose_table().items():
        if key[0] != "walk":
            continue
        d = np.array(key[1] + (0,), float)
        p1 = robot_pose(robot, angles, 1)
        p2 = robot_pose(robot, angles, 2)
        # rooted at R2 (its foot frame = structure frame at C_j = C_i + d)
        np.testing.assert_allclose(p2.hub_com + d, p1.hub_com, atol=POS_TOL)
        np.testing.assert_allclose(p2.hub_dcm, p1.hub_dcm, atol=ORI_TOL)
        np.testing.assert_allclose(p2.points + d, p1.points, atol=POS_TOL)


def test_clearance_along_trajectories():
    # no joint point goes below the structure plane, and every joint point other than the
    # two foot columns (J0-J1) stays >= 0.22 m above it along the quintic (41 samples; the
    # design minimum is 0.225 m, at J2 of a foot column; sampling can only raise a minimum)
    robot = load_robot("Y45")
    s = quintic(np.linspace(0, 1, 41))
    for key, angles in reach_pose_table().items():
        docks = (1, 2) if key[0] == "walk" else (key[1],)
        for dock in docks:
            moving = (2 - dock) if key[0] == "walk" else 2
            for si in s:
                pose = robot_pose(robot, si * angles, dock)
                z = pose.points[:, :, 2].copy()
                z[dock - 1, 0] = np.inf                # docked foot
                if si > 0.999:
                    z[moving, 0] = np.inf              # the arriving foot lands
                assert z.min() > -1e-9
                z[dock - 1, :2] = np.inf               # foot columns J0-J1 of both feet
                z[moving, :2] = np.inf
                assert z.min() >= 0.22


def test_every_edge_has_a_pose():
    # all 8672 edges of the 56 graphs map to one of the 22 poses
    provider = PoseProvider.default()
    count = 0
    for P, Q in assembly_graphs(tile_layout()):
        for g in (P, Q):
            for _, _, d in g.edges(data=True):
                for h in d["spec"].halves:
                    assert provider.half_edge(h).shape == (7, 3, 5)
                count += 1
    assert count == 8672


def test_mirror_symmetry():
    # targets (dx, dy) and (dx, -dy) have the same pitches and opposite rolls (y-mirror)
    table = reach_pose_table()
    for key, a in table.items():
        if key[0] != "walk" or key[1][1] == 0:
            continue
        b = table[("walk", (key[1][0], -key[1][1]))]
        np.testing.assert_allclose(a[:, 1:4], b[:, 1:4], atol=1e-7)


def test_pose_errors():
    with pytest.raises(ValueError, match="`z`"):
        waypoint_fractions(1)
    with pytest.raises(ValueError, match="`arm_geometry`"):
        reach_pose_table("spec-M1")
    with pytest.raises(ValueError, match="no reach pose"):
        PoseProvider.default().reach(("walk", (3, 3)))
    with pytest.raises(ValueError, match="`angles`"):
        angle_values(np.zeros((3, 5)))


def test_heading_and_end_roll_reproduce_the_table():
    # with the table's planar pitches, the structured heading and end-roll steps rebuild all
    # 22 poses (rolls are exact multiples of 45 deg: compared to 1e-9 rad; pitches are the
    # given ones); the result lands on the target by forward kinematics
    from satdyn.missions.assembly.ik import solve_reach_pose

    for key, ref in reach_pose_table().items():
        kind = key[0]
        d, m = (0, 1) if kind == "walk" else (key[1] - 1, 2)
        planar = np.concatenate([ref[d, 1:4], ref[m, 1:4]])
        got = solve_reach_pose(key, planar=planar)
        np.testing.assert_allclose(got[:, 0], ref[:, 0], atol=1e-9, err_msg=str(key))


@pytest.mark.slow
def test_planar_ik_reproduces_the_shipped_poses():
    # the multistart min-norm planar IK finds the shipped pitches of all 6 sub-problems; the
    # table is rounded to 1e-6 deg and SLSQP stops at ~1e-7 rad: tolerance 1e-6 rad
    from satdyn.missions.assembly.ik import solve_reach_poses

    table = reach_pose_table()
    got = solve_reach_poses(list(table))
    for key, ref in table.items():
        np.testing.assert_allclose(got[key], ref, atol=1e-6, err_msg=str(key))


def test_ik_bad_input():
    from satdyn.missions.assembly.ik import solve_planar, solve_reach_pose

    with pytest.raises(ValueError, match="`kind`"):
        solve_planar("jump", 1, 1.0)
    with pytest.raises(ValueError, match="`dock`"):
        solve_planar("walk", 3, 1.0)
    with pytest.raises(ValueError, match="`rho`"):
        solve_planar("walk", 1, -1.0)
    with pytest.raises(ValueError, match="`key`"):
        solve_reach_pose(("hop", (1, 0)))
