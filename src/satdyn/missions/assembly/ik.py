"""Structured inverse kinematics of the walking robot's reach poses.

The reach pose of a move puts the moving arm's foot (a leg, or R3 with the tile) on a
target tile centre at horizontal offset d = (dx, dy), |d| = rho in {1, sqrt 2} tiles, with
its sole flat, while the docked foot stays on its tile.  The solver is structured
(all angles relative; joint 5 is not used):

1. **planar sub-problem** (all rolls 0, everything in the docked foot's x-z plane): the
   pitches (alpha2, alpha3, alpha4) of the docked and of the moving arm put the moving
   foot at (u, 0, 0) with its z axis vertical, u = -rho for a leg (the free leg's side)
   and +rho for R3.  Least squares from a fixed set of seeds (the first is 0), each
   refined to its local minimum-norm solution (SLSQP), de-duplicated, sorted by norm; the
   first solution whose straight joint-space path keeps every joint point above the
   structure (all but the two feet columns by ``clearance``) is kept;
2. **heading**: the docked arm's roll turns that plane towards the target,
   alpha1 = wrap(phi - atan2(0, u)), phi = atan2(dy, dx);
3. **end roll**: the moving arm's roll aligns the foot with the tile (yaw 0 for legs; for
   R3 the multiple of 90 deg, the tile being square, that needs the smallest roll).

Angles are wrapped to (-pi, pi].  Oracle in the tests: the forward kinematics
(:func:`satdyn.titop.kinematics.robot_pose`) and the shipped pose table.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import least_squares, minimize

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


def _residual(robot, q, dock, d, m, u):
    pose = robot_pose(robot, _angles(q, d, m), dock)
    p, P = pose.points[m][0], pose.dcms[m][0]
    return np.array([p[0] - u, p[2], P[0, 2]])


def _path_ok(robot, angles, dock, moving, clearance, samples=21):
    for s in np.linspace(0.0, 1.0, samples):
        pose = robot_pose(robot, s * angles, dock)
        z = pose.points[:, :, 2].copy()
        z[dock - 1, 0] = np.inf
        if s == 1.0:
            z[moving, 0] = np.inf
        if z.min() < -1e-9:
            return False
        z[dock - 1, :2] = np.inf
        z[moving, :2] = np.inf
        if z.min() < clearance:
            return False
    return True


def solve_planar(kind: str, dock: int, rho: float, *, robot=None, seeds: int = 24, clearance: float = 0.1,
                 seed: int = 0) -> np.ndarray:
    """Pitches (6,) [rad] (docked arm, moving arm) of the planar sub-problem (module docstring)."""
    if kind not in ("walk", "r3"):
        raise ValueError(f"`kind` must be 'walk' or 'r3'; got {kind!r}")
    if dock not in (1, 2):
        raise ValueError(f"`dock` must be 1 or 2; got {dock!r}")
    if not (np.isfinite(rho) and rho > 0):
        raise ValueError(f"`rho` must be a positive distance [m]; got {rho!r}")
    robot = load_robot("Y45") if robot is None else robot
    d, m = _indices(kind, dock)
    u = -rho if kind == "walk" else rho
    rng = np.random.default_rng(seed)
    starts = np.vstack([np.zeros(6), rng.uniform(-np.pi / 2, np.pi / 2, (seeds - 1, 6))])
    fun = lambda q: _residual(robot, q, dock, d, m, u)
    found = []
    for q0 in starts:
        ls = least_squares(fun, q0, bounds=(-np.pi, np.pi), method="trf", xtol=1e-14, ftol=1e-14, gtol=1e-14)
        if np.linalg.norm(ls.fun) > 1e-8:
            continue
        opt = minimize(lambda q: q @ q, ls.x, jac=lambda q: 2 * q, method="SLSQP",
                       constraints=[{"type": "eq", "fun": fun}], bounds=[(-np.pi, np.pi)] * 6,
                       options={"ftol": 1e-15, "maxiter": 300})
        q = opt.x if np.linalg.norm(fun(opt.x)) < 1e-9 else ls.x
        pose = robot_pose(robot, _angles(q, d, m), dock)
        if pose.dcms[m][0][2, 2] <= 0:                       # sole upside down
            continue
        if not any(np.allclose(q, f, atol=1e-6) for f in found):
            found.append(q)
    for q in sorted(found, key=lambda x: float(x @ x)):
        ok = _path_ok(robot, _angles(q, d, m), dock, m, clearance)
        if ok and kind == "walk":                             # the reverse path, other leg docked
            ok = _path_ok(robot, _angles(q, d, m), 3 - dock, d, clearance)
        if ok:
            return q
    raise ValueError(f"no valid planar reach pose for {kind!r}, dock {dock}, rho {rho:g} m "
                     f"({len(found)} solutions, none with a clear path)")


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
