"""Collision and clearance checks of a walking robot along a move.

A move is the straight joint-space path ``q(s) = q0 + s (q1 - q0)``, s in [0, 1] (the
rest-to-rest quintic of :mod:`.poses` only re-times it).  At each sampled posture
(:meth:`.reach.WalkingKinematics.posture`):

* **plane**: every joint point is at z >= ``plane_margin`` above the structure plane
  (z = 0 of the docked foot frame), except the ``contact_points`` (the feet) which only
  must not go below it (z >= -``tol``);
* **self-collision**: links are capsules (segment between two joint points, radius);
  every pair from different chains, or from the same chain more than ``min_gap`` links
  apart, not sharing a point, is >= ``self_margin`` apart (surface to surface);
* **carried tile**: a ``tile_size`` (a, b) rectangle centred on the moving end (x, y axes
  of its frame) stays above the plane (its lowest point is a corner) and
  >= ``obstacle_margin`` from every obstacle rectangle (e.g. a raised tile);
* **obstacles**: every capsule stays >= ``obstacle_margin`` from the obstacle rectangles.

**Sampling bound (Lipschitz).**  A joint j turns every point P after it about an axis
through the joint point O_j, so ``|dP/dq_j| <= |P - O_j| <= l_jP``, the sum of the link
offsets between O_j and P along the chain (independent of q; for tile points add the
tile's half-diagonal).  Along the path ``|dP/ds| <= V = max_P sum_j |q1_j - q0_j| l_jP``.
A height moves at most V per unit s, a distance between two moving capsules (or the
tile and a link or obstacle) at most 2 V.  :func:`check_move` samples by conservative
advancement: after a sample where a clearance c exceeds its margin m, the next sample is
``(c - m + resolution) / (k V)`` further (k = 1 for heights, 2 for distances; at least
``resolution / (k V)``), so on the interval in between that clearance cannot fall below
``m - resolution``: no violation deeper than ``resolution`` [m] can be missed between
samples.  Uniform sampling with the same guarantee would need ``2 V / resolution``
intervals; a posture with large slack lets the step grow accordingly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .reach import ReachError, WalkingKinematics

__all__ = ["segment_distance", "segment_distances", "capsule_distance", "segment_rectangle_distance",
           "rectangle_distance", "Rectangle", "Clearances", "MoveCheck", "posture_clearances",
           "path_speed_bound", "point_speed_bounds", "check_move"]


def segment_distance(a0, a1, b0, b1) -> float:
    """Closest distance [m] between segments a0-a1 and b0-b1 (3-D; degenerate segments allowed).

    Closed form: minimise |a0 + s da - b0 - t db| over the unit square, interior stationary
    point clamped, then the four edges (Ericson, Real-Time Collision Detection, 5.1.9).
    """
    a0, a1, b0, b1 = (np.asarray(v, dtype=float) for v in (a0, a1, b0, b1))
    da, db, r = a1 - a0, b1 - b0, a0 - b0
    A, E, F = da @ da, db @ db, db @ r
    eps = 1e-300
    if A <= eps and E <= eps:
        return float(np.linalg.norm(r))
    if A <= eps:
        s, t = 0.0, min(max(F / E, 0.0), 1.0)
    else:
        C = da @ r
        if E <= eps:
            t, s = 0.0, min(max(-C / A, 0.0), 1.0)
        else:
            B = da @ db
            den = A * E - B * B
            s = min(max((B * F - C * E) / den, 0.0), 1.0) if den > 1e-14 * A * E else 0.0
            t = (B * s + F) / E
            if t < 0.0:
                t, s = 0.0, min(max(-C / A, 0.0), 1.0)
            elif t > 1.0:
                t, s = 1.0, min(max((B - C) / A, 0.0), 1.0)
    return float(np.linalg.norm(a0 + s * da - b0 - t * db))


def segment_distances(a0, a1, b0, b1) -> np.ndarray:
    """Batched :func:`segment_distance`: arrays (N, 3) -> (N,) [m] (same clamping, vectorised)."""
    a0, a1, b0, b1 = (np.asarray(v, dtype=float).reshape(-1, 3) for v in (a0, a1, b0, b1))
    da, db, r = a1 - a0, b1 - b0, a0 - b0
    A, E = np.einsum("ij,ij->i", da, da), np.einsum("ij,ij->i", db, db)
    B, C, F = np.einsum("ij,ij->i", da, db), np.einsum("ij,ij->i", da, r), np.einsum("ij,ij->i", db, r)
    tiny = 1e-300
    Ap, Ep = np.where(A > tiny, A, 1.0), np.where(E > tiny, E, 1.0)
    den = A * E - B * B
    ok = den > 1e-14 * A * E
    s = np.where(ok & (A > tiny) & (E > tiny), np.clip((B * F - C * E) / np.where(ok, den, 1.0), 0.0, 1.0), 0.0)
    s = np.where((A > tiny) & (E <= tiny), np.clip(-C / Ap, 0.0, 1.0), s)
    t = np.where(E > tiny, (B * s + F) / Ep, 0.0)
    low, high = t < 0.0, t > 1.0
    s = np.where(low & (A > tiny), np.clip(-C / Ap, 0.0, 1.0), s)
    s = np.where(high & (A > tiny), np.clip((B - C) / Ap, 0.0, 1.0), s)
    s = np.where(A > tiny, s, 0.0)
    t = np.clip(t, 0.0, 1.0)
    t = np.where((A <= tiny) & (E > tiny), np.clip(F / Ep, 0.0, 1.0), t)
    return np.linalg.norm(r + s[:, None] * da - t[:, None] * db, axis=1)


def capsule_distance(a0, a1, ra, b0, b1, rb) -> float:
    """Surface distance [m] of two capsules (negative: penetration depth)."""
    return segment_distance(a0, a1, b0, b1) - ra - rb


@dataclass(frozen=True)
class Rectangle:
    """A flat rectangle: centre (3,) [m], frame R (3, 3) (x, y in its plane), size (a, b) [m] along x, y."""

    centre: np.ndarray
    R: np.ndarray
    size: tuple

    @classmethod
    def tile(cls, x, y, z=0.0, yaw=0.0, size=(1.0, 1.0)) -> "Rectangle":
        """A horizontal tile (top face at height z) centred at (x, y), yawed by ``yaw`` [rad]."""
        c, s = math.cos(yaw), math.sin(yaw)
        R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        return cls(np.array([x, y, z], float), R, tuple(float(v) for v in size))

    def corners(self) -> np.ndarray:
        """(4, 3) corners, counter-clockwise."""
        a, b = self.size[0] / 2, self.size[1] / 2
        local = np.array([[a, b], [-a, b], [-a, -b], [a, -b]])
        return self.centre + local @ self.R[:, :2].T

    def closest(self, p) -> np.ndarray:
        """The rectangle's point closest to p."""
        d = np.asarray(p, float) - self.centre
        u = np.clip(d @ self.R[:, 0], -self.size[0] / 2, self.size[0] / 2)
        v = np.clip(d @ self.R[:, 1], -self.size[1] / 2, self.size[1] / 2)
        return self.centre + u * self.R[:, 0] + v * self.R[:, 1]

    def contains_projection(self, p, tol=0.0) -> bool:
        d = np.asarray(p, float) - self.centre
        return abs(d @ self.R[:, 0]) <= self.size[0] / 2 + tol and abs(d @ self.R[:, 1]) <= self.size[1] / 2 + tol


def segment_rectangle_distance(p0, p1, rect: Rectangle) -> float:
    """Distance [m] between segment p0-p1 and a rectangle (0 if the segment pierces it)."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    n = rect.R[:, 2]
    h0, h1 = (p0 - rect.centre) @ n, (p1 - rect.centre) @ n
    if h0 * h1 <= 0.0 and h0 != h1:
        x = p0 + (h0 / (h0 - h1)) * (p1 - p0)
        if rect.contains_projection(x):
            return 0.0
    best = min(np.linalg.norm(p - rect.closest(p)) for p in (p0, p1))
    c = rect.corners()
    for k in range(4):
        best = min(best, segment_distance(p0, p1, c[k], c[(k + 1) % 4]))
    return float(best)


def rectangle_distance(A: Rectangle, B: Rectangle) -> float:
    """Distance [m] between two rectangles in space (convex polygons: 0 if they intersect).

    Two disjoint convex polygons reach their minimum distance on an edge of one of them, so
    it is the least segment-rectangle distance over the 8 edges (exact).
    """
    best = math.inf
    for P, Q in ((A, B), (B, A)):
        c = P.corners()
        for k in range(4):
            best = min(best, segment_rectangle_distance(c[k], c[(k + 1) % 4], Q))
    return float(best)


@dataclass(frozen=True)
class Clearances:
    """Minimum clearances [m] of one posture (inf where nothing is checked) and where they occur."""

    plane: float
    plane_at: str
    contact: float
    self_collision: float
    self_pair: tuple
    tile_plane: float
    obstacles: float
    obstacles_at: str


def _pairs(kin: WalkingKinematics, min_gap: int):
    caps = kin.capsules
    index = {}
    for i, cap in enumerate(caps):
        index.setdefault(cap[3], []).append(i)
    out = []
    for i in range(len(caps)):
        for j in range(i + 1, len(caps)):
            a, b = caps[i], caps[j]
            if {a[0], a[1]} & {b[0], b[1]}:
                continue
            if a[3] == b[3] and abs(index[a[3]].index(i) - index[b[3]].index(j)) <= min_gap:
                continue
            out.append((i, j))
    return out


def posture_clearances(kin: WalkingKinematics, q, *, tile_size=None, obstacles=(), min_gap: int = 2) -> Clearances:
    """Clearances of posture ``q`` (module docstring); ``tile_size`` (a, b) [m] of the carried tile or None."""
    return _clearances(kin, q, tile_size, obstacles, _pairs(kin, min_gap))[0]


def _clearances(kin, q, tile_size, obstacles, pairs, speeds=None, margins=None, resolution=None):
    """(Clearances, safe advance in s): the advance keeps every item >= its margin - resolution
    given each item's speed bound (``speeds`` {label: V_P}, "tile": V of the tile's points)."""
    post = kin.posture(q)
    pts = post.points
    step = math.inf

    def advance(value, margin, speed):
        nonlocal step
        if speeds is not None and speed > 0 and math.isfinite(value):
            step = min(step, max(value - margin + resolution, resolution) / speed)

    plane, plane_at, contact = math.inf, "", math.inf
    for label, p in pts.items():
        z = float(p[2])
        if label in kin.contact_points:
            contact = min(contact, z)
            advance(z, 0.0, speeds[label] if speeds else 0.0)
        else:
            if z < plane:
                plane, plane_at = z, label
            advance(z, margins["plane"] if margins else 0.0, speeds[label] if speeds else 0.0)
    caps = kin.capsules
    cap_speed = [max(speeds[c[0]], speeds[c[1]]) for c in caps] if speeds else [0.0] * len(caps)
    self_min, self_pair = math.inf, ()
    if pairs:
        I, J = np.array(pairs).T
        ends = np.array([[pts[c[0]], pts[c[1]]] for c in caps])
        radii = np.array([c[2] for c in caps])
        d = segment_distances(ends[I, 0], ends[I, 1], ends[J, 0], ends[J, 1]) - radii[I] - radii[J]
        k = int(np.argmin(d))
        a, b = caps[I[k]], caps[J[k]]
        self_min, self_pair = float(d[k]), (f"{a[0]}-{a[1]}", f"{b[0]}-{b[1]}")
        if speeds is not None:
            v = np.array(cap_speed)
            vp = v[I] + v[J]
            live = vp > 0
            if np.any(live):
                step = min(step, float(np.min(np.maximum(d[live] - margins["self"] + resolution, resolution)
                                              / vp[live])))
    tile_plane, obst, obst_at = math.inf, math.inf, ""
    tile = None
    if tile_size is not None:
        R, p = post.end
        tile = Rectangle(p, R, tuple(tile_size))
        tile_plane = float(tile.corners()[:, 2].min())
        advance(tile_plane, 0.0, speeds["tile"] if speeds else 0.0)
    for k, rect in enumerate(obstacles):
        if tile is not None:
            d = rectangle_distance(tile, rect)
            advance(d, margins["obstacles"] if margins else 0.0, speeds["tile"] if speeds else 0.0)
            if d < obst:
                obst, obst_at = d, f"tile vs obstacle {k}"
        for i, a in enumerate(caps):
            if a[0] in kin.contact_points or a[1] in kin.contact_points:
                continue                 # foot columns may stand on or next to tiles
            d = segment_rectangle_distance(pts[a[0]], pts[a[1]], rect) - a[2]
            advance(d, margins["obstacles"] if margins else 0.0, cap_speed[i])
            if d < obst:
                obst, obst_at = d, f"{a[0]}-{a[1]} vs obstacle {k}"
    return Clearances(plane, plane_at, contact, self_min, self_pair, tile_plane, obst, obst_at), step


def _lever_arms(kin: WalkingKinematics) -> dict:
    """{point label: {joint: l_jP}}: chain-length bounds of |P - O_j| (module docstring)."""
    out = {}

    def walk(steps, acc):
        acc = dict(acc)
        for step in steps:
            if step[0] == "fixed":
                n = float(np.linalg.norm(step[2]))
                acc = {j: l + n for j, l in acc.items()}
            elif step[0] == "rot":
                acc.setdefault(step[2], 0.0)
            else:
                out[step[1]] = dict(acc)
        return acc

    body = walk(kin.docked, {})
    walk(kin.moving, body)
    for chain in kin.passive:
        walk(chain, body)
    return out


def point_speed_bounds(kin: WalkingKinematics, q0, q1, tile_size=None) -> dict:
    """{label: V_P} [m per unit s]: bound on each point's speed along q0 -> q1 ("tile": any tile point)."""
    dq = np.abs(kin._q(q1) - kin._q(q0))
    arms = _lever_arms(kin)
    out = {label: float(sum(dq[j] * l for j, l in lv.items())) for label, lv in arms.items()}
    if tile_size is not None:
        half = 0.5 * math.hypot(*tile_size)
        end = arms[[s[1] for s in kin.moving if s[0] == "point"][-1]]
        out["tile"] = float(sum(dq[j] * (l + half) for j, l in end.items()))
    return out


def path_speed_bound(kin: WalkingKinematics, q0, q1, tile_size=None) -> float:
    """V [m per unit s]: bound on the speed of every point (and tile point) along q0 -> q1."""
    return max(point_speed_bounds(kin, q0, q1, tile_size).values(), default=0.0)


@dataclass(frozen=True)
class MoveCheck:
    """Result of :func:`check_move`: ``ok``, the worst clearances over the samples, where (s), why not."""

    ok: bool
    plane: float
    contact: float
    self_collision: float
    tile_plane: float
    obstacles: float
    worst_s: dict
    samples: int
    speed_bound: float
    resolution: float
    failures: tuple


def check_move(kin: WalkingKinematics, q0, q1, *, plane_margin: float = 0.1, self_margin: float = 0.03,
               tile_size=None, obstacles=(), obstacle_margin: float = 0.03, resolution: float = 0.01,
               min_gap: int = 2, tol: float = 1e-9, max_samples: int = 20000) -> MoveCheck:
    """Check the straight joint path q0 -> q1 (module docstring for the rules and the sampling bound).

    Parameters
    ----------
    kin : WalkingKinematics
    q0, q1 : (n_q,) end postures [rad]
    plane_margin, self_margin, obstacle_margin : required clearances [m]
    tile_size : (a, b) [m] of the carried tile (centred on the moving end), or None
    obstacles : sequence of :class:`Rectangle` (raised tiles, ...)
    resolution : largest violation [m] that may be missed between samples (sets the count)
    min_gap : capsules of one chain closer than this many links are not paired
    tol : how far below the plane a contact point may go [m] (rounding)
    """
    q0, q1 = kin._q(q0), kin._q(q1)
    for name, v in (("plane_margin", plane_margin), ("self_margin", self_margin),
                    ("obstacle_margin", obstacle_margin)):
        if not np.isfinite(v):
            raise ReachError(f"`{name}` must be a finite distance [m]; got {v!r}")
    if not (np.isfinite(resolution) and resolution > 0):
        raise ReachError(f"`resolution` must be a positive distance [m]; got {resolution!r}")
    if tile_size is not None:
        tile_size = tuple(float(v) for v in tile_size)
        if len(tile_size) != 2 or min(tile_size) <= 0:
            raise ReachError(f"`tile_size` must be two positive lengths (a, b) [m]; got {tile_size!r}")
    for k, o in enumerate(obstacles):
        if not isinstance(o, Rectangle):
            raise ReachError(f"`obstacles[{k}]` must be a Rectangle; got {type(o).__name__}")
    speeds = point_speed_bounds(kin, q0, q1, tile_size)
    V = max(speeds.values(), default=0.0)
    pairs = _pairs(kin, min_gap)
    margins = {"plane": plane_margin, "self": self_margin, "obstacles": obstacle_margin}
    worst = {"plane": math.inf, "contact": math.inf, "self_collision": math.inf, "tile_plane": math.inf,
             "obstacles": math.inf}
    where = {}
    s, n = 0.0, 0
    while True:
        c, step = _clearances(kin, q0 + s * (q1 - q0), tile_size, obstacles, pairs, speeds, margins, resolution)
        n += 1
        for key in worst:
            v = getattr(c, key)
            if v < worst[key]:
                worst[key], where[key] = v, float(s)
                label = {"plane": c.plane_at, "self_collision": " / ".join(c.self_pair),
                         "obstacles": c.obstacles_at}.get(key)
                if label is not None:
                    where[key + "_at"] = label
        if s >= 1.0:
            break
        if n >= max_samples:
            raise ReachError(f"the move needs more than `max_samples` = {max_samples} samples for `resolution` "
                             f"{resolution} m (speed bound {V:.3g} m per unit path)")
        s = min(1.0, s + step)
    failures = []
    if worst["plane"] < plane_margin:
        failures.append(f"{where['plane_at']} at {worst['plane']:.4g} m above the plane (s = {where['plane']:.4g})")
    if worst["contact"] < -tol:
        failures.append(f"a foot goes {-worst['contact']:.3g} m below the plane (s = {where['contact']:.4g})")
    if worst["self_collision"] < self_margin:
        failures.append(f"self-collision {where['self_collision_at']}: {worst['self_collision']:.4g} m "
                        f"(s = {where['self_collision']:.4g})")
    if worst["tile_plane"] < -tol:
        failures.append(f"the carried tile goes {-worst['tile_plane']:.3g} m below the plane "
                        f"(s = {where['tile_plane']:.4g})")
    if worst["obstacles"] < obstacle_margin:
        failures.append(f"{where['obstacles_at']}: {worst['obstacles']:.4g} m (s = {where['obstacles']:.4g})")
    return MoveCheck(not failures, worst["plane"], worst["contact"], worst["self_collision"], worst["tile_plane"],
                     worst["obstacles"], where, n, V, float(resolution), tuple(failures))
