"""Structured inverse kinematics of the walking robot's reach poses.

The reach pose of a move puts the moving arm's foot (a leg, or R3 with the tile) on a
target tile centre at horizontal offset d = (dx, dy), |d| = rho in {1, sqrt 2} tiles, with
its sole flat, while the docked foot stays on its tile.  The solver is structured
(all angles relative; joint 5 is not used):

1. **planar sub-problem** (all rolls 0, everything in the docked foot's x-z plane): the
   pitches (alpha2, alpha3, alpha4) of the docked and of the moving arm put the moving
   foot at (u, 0, 0) with its z axis vertical, u = -rho for a leg (the free leg's side)
   and +rho for R3.  Solved by the general reach IK of :mod:`.reach` (least squares from
   a fixed set of seeds, the first 0, each moved to its local minimum-norm solution,
   de-duplicated, sorted by norm); the first solution whose straight joint-space path
   passes :func:`.collision.check_move` (every joint point but the two feet columns
   ``clearance`` above the structure, links 3 cm apart) is kept;
2. **heading**: the docked arm's roll turns that plane towards the target,
   alpha1 = wrap(phi - atan2(0, u)), phi = atan2(dy, dx);
3. **end roll**: the moving arm's roll aligns the foot with the tile (yaw 0 for legs; for
   R3 the multiple of 90 deg, the tile being square, that needs the smallest roll).

Angles are wrapped to (-pi, pi].  Oracle in the tests: the forward kinematics
(:func:`satdyn.titop.kinematics.robot_pose`) and the shipped pose table.  Robots other
than the paper's (a URDF, other tiles): :mod:`.reach` and :mod:`.collision` directly.
"""

from __future__ import annotations

import numpy as np
from ...titop.data import load_robot
from ...titop.kinematics import robot_pose

__all__ = ["solve_planar", "solve_reach_pose", "solve_reach_poses", "wrap_angle"]


def wrap_angle(a):
    """Wrap to (-pi, pi]."""
    a = np.asarray(a, dtype=float)
    w = np.mod(a + np.pi, 2 * np.pi) - np.pi
    return np.where(np.isclose(w, -np.pi, atol=1e-12), np.pi, w)


def _indices(kind, dock):
    d = dock - 1
    return d, (1 - d) if kind == "walk" else 2


def _angles(q, d, m):
    a = np.zeros((3, 5))
    a[d, 1:4], a[m, 1:4] = q[:3], q[3:]
    return a


def _robot_kinematics(robot, kind, dock):
    from .reach import WalkingKinematics
    return WalkingKinematics.from_titop_robot(robot, kind, dock, limit=np.pi)


def solve_planar(kind: str, dock: int, rho: float, *, robot=None, seeds: int = 24, clearance: float = 0.1,
                 seed: int = 0) -> np.ndarray:
    """Pitches (6,) [rad] (docked arm, moving arm) of the planar sub-problem (module docstring).

    Solved by the general reach IK (:func:`.reach.solve_reach`: rolls locked, sole flat, yaw
    free, minimum norm) with the path test :func:`.collision.check_move` (plane margin
    ``clearance``, 3 cm between links), for walks also along the reverse path with the other
    leg docked.
    """
    from .collision import check_move
    from .reach import ReachError, ReachTarget, solve_reach

    if kind not in ("walk", "r3"):
        raise ValueError(f"`kind` must be 'walk' or 'r3'; got {kind!r}")
    if dock not in (1, 2):
        raise ValueError(f"`dock` must be 1 or 2; got {dock!r}")
    if not (np.isfinite(rho) and rho > 0):
        raise ValueError(f"`rho` must be a positive distance [m]; got {rho!r}")
    robot = load_robot("Y45") if robot is None else robot
    d, m = _indices(kind, dock)
    u = -rho if kind == "walk" else rho
    kins = [_robot_kinematics(robot, kind, dock)]
    if kind == "walk":                                        # the reverse path, other leg docked
        kins.append(_robot_kinematics(robot, kind, 3 - dock))
    active = [5 * d + i for i in (1, 2, 3)] + [5 * m + i for i in (1, 2, 3)]

    def clear(q):
        return all(check_move(k, np.zeros(15), q, plane_margin=clearance).ok for k in kins)

    try:
        sol = solve_reach(kins[0], ReachTarget([u, 0.0, 0.0], None), active=active, seeds=seeds, seed=seed,
                          accept=clear)
    except ReachError as exc:
        raise ValueError(f"no valid planar reach pose for {kind!r}, dock {dock}, rho {rho:g} m ({exc})") from None
    return np.concatenate([sol.q[5 * d + 1:5 * d + 4], sol.q[5 * m + 1:5 * m + 4]])


def solve_reach_pose(key, *, robot=None, planar=None) -> np.ndarray:
    """Angles (3, 5) [rad] of reach pose ``key`` = ("walk", (dx, dy)) or ("r3", dock, (dx, dy))."""
    robot = load_robot("Y45") if robot is None else robot
    if key[0] == "walk":
        kind, dock, off = "walk", 1, key[1]
    elif key[0] == "r3":
        kind, dock, off = "r3", int(key[1]), key[2]
    else:
        raise ValueError(f"`key` must start with 'walk' or 'r3'; got {key!r}")
    dx, dy = (float(v) for v in off)
    rho = float(np.hypot(dx, dy))
    q = planar if planar is not None else solve_planar(kind, dock, rho, robot=robot)
    d, m = _indices(kind, dock)
    u = -rho if kind == "walk" else rho
    angles = _angles(q, d, m)
    angles[d, 0] = wrap_angle(np.arctan2(dy, dx) - np.arctan2(0.0, u))
    pose = robot_pose(robot, angles, dock)
    P = pose.dcms[m][0]
    yaw0 = np.arctan2(P[1, 0], P[0, 0])
    targets = [0.0] if kind == "walk" else [0.0, np.pi / 2, np.pi, -np.pi / 2]
    best = None
    for target in targets:
        for sign in (1.0, -1.0):
            a1 = float(wrap_angle(sign * (yaw0 - target)))
            trial = angles.copy()
            trial[m, 0] = a1
            Pm = robot_pose(robot, trial, dock).dcms[m][0]
            err = np.abs(Pm[:2, :2] - np.array([[np.cos(target), -np.sin(target)],
                                                [np.sin(target), np.cos(target)]])).max()
            if err < 1e-9 and (best is None or abs(a1) < abs(best) - 1e-12):
                best = a1
    if best is None:
        raise ValueError(f"reach pose {key!r}: no end roll aligns the foot with the tile")
    angles[m, 0] = best
    return angles


def solve_reach_poses(keys, *, robot=None) -> dict:
    """{key: angles (3, 5)} for many keys; the planar sub-problems are solved once each."""
    robot = load_robot("Y45") if robot is None else robot
    planar = {}
    out = {}
    for key in keys:
        kind, dock, off = ("walk", 1, key[1]) if key[0] == "walk" else ("r3", int(key[1]), key[2])
        sub = (kind, dock, round(float(np.hypot(*off)), 12))
        if sub not in planar:
            planar[sub] = solve_planar(kind, dock, sub[2], robot=robot)
        out[key] = solve_reach_pose(key, robot=robot, planar=planar[sub])
    return out
