"""Reach poses of the walking robot and the joint trajectories sampled along every edge.

Paper 000 (arXiv:2409.06017) moves the joints of the three arms on fifth-order polynomial
trajectories between the home pose (all angles 0) and a reach pose, and freezes the model
at z = 7 equally spaced waypoints of each half-edge.  The paper gives neither the arm
geometry nor the reach poses; satdyn ships the reconstruction of its "Y45" arm
(:func:`satdyn.titop.data.load_arm_geometry`) and the 22 distinct reach poses behind all
8672 edges, solved by the structured IK of :mod:`.ik` (file
``satdyn/data/missions/reach_poses_y45.json``, angles in degrees at 1e-6 deg).

Pose keys (see :class:`~.graphs.HalfEdge`):

* ``("walk", (dx, dy))``: foot of R2 minus foot of R1, in tiles; the same 15 angles serve
  both docked legs (joint angles are relative rotations);
* ``("r3", a, (dx, dy))``: R3's foot (with the carried tile) at C_port + (dx, dy), leg R_a
  docked.

Time law: rest-to-rest quintic s(t) = 10 t^3 - 15 t^4 + 6 t^5 sampled at t_l = l / (z - 1),
l = 0..z-1 (both ends included, so the switching pose appears in both halves); the return
half is the outbound half reversed (s(1 - t) = 1 - s(t)).

Other robots and tiles: :mod:`.reach` solves reach poses of any walking robot given as
kinematic chains (the paper's robot or a URDF) and :mod:`.collision` checks the straight
joint path of each move (plane, self-collision, carried tile, raised tiles); a
:class:`PoseProvider` takes any ``{key: angles}`` table built with them.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

__all__ = ["quintic", "waypoint_fractions", "PoseProvider", "reach_pose_table", "half_edge_angles",
           "angle_values"]


def quintic(t):
    """Rest-to-rest quintic s(t) = 10 t^3 - 15 t^4 + 6 t^5 (s, s', s'' = 0, 0, 0 at t = 0 and 1, 0, 0 at t = 1)."""
    t = np.asarray(t, dtype=float)
    return t ** 3 * (10.0 - 15.0 * t + 6.0 * t * t)


def waypoint_fractions(z: int = 7) -> np.ndarray:
    """Path fractions s(t_l) of the z waypoints (uniform in time, both ends included)."""
    if isinstance(z, bool) or not isinstance(z, (int, np.integer)) or z < 2:
        raise ValueError(f"`z` (waypoints per half-edge) must be an integer >= 2; got {z!r}")
    return quintic(np.linspace(0.0, 1.0, int(z)))


@lru_cache(maxsize=None)
def reach_pose_table(name: str = "Y45") -> dict:
    """The shipped reach poses {key: angles (3, 5) [rad] of R1, R2, R3} for arm geometry ``name``."""
    if name != "Y45":
        raise ValueError(f"`arm_geometry`: shipped reach poses exist for 'Y45' only; got {name!r} "
                         "(solve others with satdyn.missions.assembly.ik.solve_reach_poses)")
    raw = json.loads(resources.files("satdyn.data.missions").joinpath("reach_poses_y45.json").read_text())
    table = {}
    for key, entry in raw.items():
        k = ast.literal_eval(key)
        k = (k[0], tuple(k[1])) if k[0] == "walk" else (k[0], int(k[1]), tuple(k[2]))
        angles = np.deg2rad(np.array([entry["alpha_deg"][str(a)] for a in (1, 2, 3)], dtype=float))
        angles.setflags(write=False)
        table[k] = angles
    return table


@dataclass(frozen=True)
class PoseProvider:
    """Joint angles of the three arms along the half-edges (module docstring).

    Attributes
    ----------
    poses : dict
        {pose key: angles (3, 5) [rad]}; default the shipped Y45 table.
    z : int
        Waypoints per half-edge (paper: 7).
    """

    poses: dict
    z: int = 7

    @classmethod
    def default(cls, z: int = 7, arm_geometry: str = "Y45") -> "PoseProvider":
        waypoint_fractions(z)
        return cls(reach_pose_table(arm_geometry), int(z))

    def reach(self, key) -> np.ndarray:
        """Angles (3, 5) [rad] of the reach pose ``key``."""
        try:
            return self.poses[key]
        except KeyError:
            raise ValueError(f"no reach pose for key {key!r}; known: {sorted(self.poses, key=str)}") from None

    def half_edge(self, half) -> np.ndarray:
        """Angles (z, 3, 5) [rad] at the z waypoints of ``half`` (a :class:`~.graphs.HalfEdge`)."""
        return half_edge_angles(self.reach(half.pose), half.outbound, self.z)


def half_edge_angles(reach, outbound: bool, z: int = 7) -> np.ndarray:
    """(z, 3, 5) joint angles: home -> ``reach`` (outbound) or ``reach`` -> home."""
    s = waypoint_fractions(z)
    if not outbound:
        s = s[::-1]
    return s[:, None, None] * np.asarray(reach, dtype=float)[None]


def angle_values(angles) -> dict:
    """{"R<k>.alpha<j>": (N,) [rad]} from angles (N, 3, 5): the LFR parameter values of the arms."""
    a = np.asarray(angles, dtype=float)
    if a.ndim != 3 or a.shape[1:] != (3, 5):
        raise ValueError(f"`angles` must have shape (N, 3, 5) [rad]; got {a.shape}")
    return {f"R{k + 1}.alpha{j + 1}": a[:, k, j] for k in range(3) for j in range(5)}
