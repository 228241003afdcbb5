"""Collision and clearance checks along moves (satdyn.missions.assembly.collision).

Known answers: closed-form distances of capsules and rectangles, postures built to
intersect, paths built to dip below the plane; oracles: brute-force minimisation over a
grid, dense uniform sampling of a path, the paper robot's design clearances.
"""

from pathlib import Path

import numpy as np
import pytest

from satdyn.missions.assembly.collision import (Rectangle, capsule_distance, check_move, path_speed_bound,
                                                posture_clearances, rectangle_distance, segment_distance,
                                                segment_distances)
from satdyn.missions.assembly.poses import reach_pose_table
from satdyn.missions.assembly.reach import WalkingKinematics, urdf_joint_limits
from satdyn.multibody import load_urdf
from satdyn.titop.data import load_robot

URDF = Path(__file__).parent / "data" / "biped_walker.urdf"
FOOT_COLUMNS = ("L_foot", "L_heel", "L_ankle", "R_foot", "R_heel", "R_ankle")


def _biped():
    return WalkingKinematics.from_multibody(load_urdf(URDF), "L_foot", "R_foot", limits=urdf_joint_limits(URDF),
                                            radius=0.04, contact_points=FOOT_COLUMNS)


def test_capsules_at_a_known_distance():
    # crossed capsules: axis along x at z = 0 and along y at z = 0.5: segment distance 0.5,
    # surfaces 0.5 - 0.1 - 0.15 = 0.25; parallel capsules 0.3 apart overlapping by half;
    # end-to-end collinear segments 0.2 apart; a point (degenerate segment) above a segment
    crossed = capsule_distance([-1, 0, 0], [1, 0, 0], 0.1, [0, -1, 0.5], [0, 1, 0.5], 0.15)
    assert crossed == pytest.approx(0.25, abs=1e-15)
    assert segment_distance([0, 0, 0], [1, 0, 0], [0.5, 0.3, 0], [1.5, 0.3, 0]) == pytest.approx(0.3, abs=1e-15)
    assert segment_distance([0, 0, 0], [1, 0, 0], [1.2, 0, 0], [2, 0, 0]) == pytest.approx(0.2, abs=1e-15)
    assert segment_distance([0, 0, 0], [1, 0, 0], [0.4, 0, 0.7], [0.4, 0, 0.7]) == pytest.approx(0.7, abs=1e-15)
    assert capsule_distance([0, 0, 0], [1, 1, 1], 0.05, [1, 0, 0], [0, 1, 1], 0.05) == pytest.approx(-0.1, abs=1e-15)


def test_segment_distance_against_brute_force():
    # random segments (seeded): the closed form is the minimum of |a(s) - b(t)| over the unit
    # square; a 401 x 401 grid finds it to within the grid spacing times the segments'
    # lengths (< 2 x 0.0025 x 2 m = 1e-2) and never below it; the batched version is identical
    rng = np.random.default_rng(2)
    grid = np.linspace(0, 1, 401)
    P = rng.uniform(-1, 1, (12, 4, 3))
    batch = segment_distances(P[:, 0], P[:, 1], P[:, 2], P[:, 3])
    for k, (a0, a1, b0, b1) in enumerate(P):
        d = segment_distance(a0, a1, b0, b1)
        A = a0 + grid[:, None] * (a1 - a0)
        B = b0 + grid[:, None] * (b1 - b0)
        brute = np.linalg.norm(A[:, None] - B[None], axis=2).min()
        assert d <= brute + 1e-12 and brute - d < 1e-2
        assert batch[k] == pytest.approx(d, abs=1e-12)


def test_rectangle_distances():
    # stacked parallel tiles 0.3 apart: 0.3; side by side 0.5 apart: 0.5; a tile piercing
    # another: 0; a vertical segment above a tile: its lower end's height
    A = Rectangle.tile(0, 0, 0.0)
    assert rectangle_distance(A, Rectangle.tile(0.2, 0.1, 0.3)) == pytest.approx(0.3, abs=1e-15)
    assert rectangle_distance(A, Rectangle.tile(1.5, 0.0, 0.0)) == pytest.approx(0.5, abs=1e-15)
    tilted = Rectangle(np.array([0.0, 0.0, 0.0]), np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]]), (0.5, 0.5))
    assert rectangle_distance(A, tilted) == 0.0
    from satdyn.missions.assembly.collision import segment_rectangle_distance
    assert segment_rectangle_distance([0.1, 0.2, 0.4], [0.1, 0.2, 1.0], A) == pytest.approx(0.4, abs=1e-15)


def test_a_posture_that_self_intersects_by_construction():
    # biped: the right leg's hip pitch swings it (in the legs' common x-z plane) across the
    # left leg: the two leg axes cross, segment distance 0, capsules overlap by 2 x 0.04 m
    kin = _biped()
    q = np.zeros(12)
    q[7] = -np.radians(30)                     # R2_pitch: the right foot swings towards +x, through the left leg
    c = posture_clearances(kin, q)
    assert c.self_collision == pytest.approx(-0.08, abs=1e-12)
    assert not check_move(kin, q, q).ok
    assert posture_clearances(kin, np.zeros(12)).self_collision == pytest.approx(0.15 - 0.08, abs=1e-12)


def _crouch_swing():
    """End poses valid; the straight path between them dips below the plane (docstring of the test)."""
    th = -np.radians(30)
    q0 = np.zeros(12)
    q0[1:4] = [th, -2 * th, th]                # left leg crouches, body level, lowered by 0.9 (1 - cos 30)
    q0[6] = np.pi / 2                          # right hip yawed: its pitch swings the leg sideways (y-z)
    q1 = q0.copy()
    q0[7], q1[7] = np.radians(50), -np.radians(50)
    return q0, q1, 0.9 * (1 - np.cos(th))


def test_a_path_that_dips_below_the_plane_between_valid_end_poses():
    # at s = 1/2 the right leg is vertical under a body lowered by 0.9 (1 - cos 30 deg): its
    # foot is that far below the plane.  Conservative sampling may not land on the worst
    # instant but never misses it by more than `resolution`.
    kin = _biped()
    q0, q1, drop = _crouch_swing()
    for q in (q0, q1):
        assert check_move(kin, q, q).ok
    res = 0.01
    c = check_move(kin, q0, q1, resolution=res)
    assert not c.ok and any("below the plane" in f for f in c.failures)
    assert -drop <= c.contact <= -drop + res
    assert abs(c.worst_s["contact"] - 0.5) < 0.05


def test_sampling_bound_against_dense_sampling():
    # the speed bound V exceeds every point's finite-difference speed along the path, and the
    # conservative sampling's minimum is within `resolution` of a 4001-sample minimum
    kin = _biped()
    q0, q1, _ = _crouch_swing()
    V = path_speed_bound(kin, q0, q1)
    s = np.linspace(0, 1, 4001)
    pts = np.array([[p for p in kin.posture(q0 + si * (q1 - q0)).points.values()] for si in s])
    speeds = np.linalg.norm(np.diff(pts, axis=0), axis=2).max() / (s[1] - s[0])
    assert speeds <= V
    z = pts[:, :, 2]
    labels = list(kin.posture(q0).points)
    free = [i for i, lab in enumerate(labels) if lab not in kin.contact_points]
    for res in (0.05, 0.005):
        c = check_move(kin, q0, q1, resolution=res)
        assert c.plane - res <= z[:, free].min() <= c.plane


def test_carried_tile_hits_a_raised_tile():
    # R3 lowers the 1 m tile onto slot (1, 0); a tile raised 2 cm over that slot is in the way:
    # the carried tile, coming from above, must pass through its level -> distance 0 (the
    # sampled minimum is within `resolution` of it).  With the raised tile on the far side
    # (-1.5, 1.5), 1 m up, nothing is touched.
    kin = WalkingKinematics.from_titop_robot(load_robot("Y45"), "r3", 1)
    q1 = reach_pose_table()[("r3", 1, (1, 0))].reshape(-1)
    res = 0.01
    hit = check_move(kin, np.zeros(15), q1, tile_size=(1.0, 1.0), obstacles=[Rectangle.tile(1.0, 0.0, 0.02)],
                     resolution=res, tol=3e-7)
    assert not hit.ok and 0.0 <= hit.obstacles <= res and "tile vs obstacle" in hit.worst_s["obstacles_at"]
    clear = check_move(kin, np.zeros(15), q1, tile_size=(1.0, 1.0), obstacles=[Rectangle.tile(-1.5, 1.5, 1.0)],
                       resolution=res, tol=3e-7)
    assert clear.ok, clear.failures


def test_y45_table_moves_are_clear():
    # the paper robot's 30 moves (22 poses, walks checked from both docked legs): joint points
    # other than the foot columns stay >= 0.225 m up (J2 of the docked column sits at exactly
    # L0 + L1 = 0.225 m, the design minimum), links of different arms >= 0.07 m apart (the rigid
    # J5 pair at the hub is at 0.073 m), the tile above the plane, no foot below it beyond the
    # table's rounding (1.7e-8 rad x 5 joints x 2 m < 3e-7 m)
    robot = load_robot("Y45")
    for key, ref in reach_pose_table().items():
        docks = (1, 2) if key[0] == "walk" else (key[1],)
        for dock in docks:
            kin = WalkingKinematics.from_titop_robot(robot, key[0], dock)
            c = check_move(kin, np.zeros(15), ref.reshape(-1), tile_size=(1.0, 1.0) if key[0] == "r3" else None,
                           tol=3e-7)
            assert c.ok, (key, dock, c.failures)
            assert c.plane == pytest.approx(0.225, abs=3e-7)     # the landing column's J2, rounded table
            assert c.self_collision > 0.07


def test_collision_bad_input():
    kin = _biped()
    with pytest.raises(ValueError, match="`resolution`"):
        check_move(kin, np.zeros(12), np.zeros(12), resolution=0.0)
    with pytest.raises(ValueError, match="`tile_size`"):
        check_move(kin, np.zeros(12), np.zeros(12), tile_size=(1.0, -1.0))
    with pytest.raises(ValueError, match="`obstacles"):
        check_move(kin, np.zeros(12), np.zeros(12), obstacles=[(0, 0, 0)])
    with pytest.raises(ValueError, match="`q`"):
        check_move(kin, np.zeros(12), np.zeros(11))
