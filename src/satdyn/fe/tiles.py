"""Tile structures F_n of the on-orbit assembly (arXiv:2409.06017) and user plates.

``tile_structure(n, properties="S5", layout="B", joints="continuous", elements_per_edge=8)``
builds F_n: the first n tiles (1 m x 1 m) of the 4 x 7 grid in assembly order, clamped at P2
(the root corner shared by tiles 1 and 3) by the corner latch: a rigid square patch of side
``patch_size`` on each tile touching P2, slaved to an interface node, tied to the hub by the
sum over those tiles of ``[k_t I3, k_d u u^T + k_e e e^T + k_z z z^T]`` (u: in-plane unit
vector P2 -> tile centre, e = z x u).  Child ports "C1" ... "Cn" at the tile centres.

``plate(length, width, thickness, ...)``: any rectangular plate clamped along its root edge
x = 0 (P at the root-edge centre), port "tip" at the tip-edge centre.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from .mesh import JOINTS, structured_mesh
from .structure import Clamp, ShellMaterial, ShellStructure

__all__ = ["TileProperties", "LatchStiffness", "PROPERTY_SETS", "LAYOUTS", "JOINTS",
           "tile_properties", "resolve_tile_properties", "tile_layout", "tile_structure", "plate", "N_TILES"]

PROPERTY_SETS = ("S5", "S4")
LAYOUTS = ("B", "A")
N_TILES = 28


@lru_cache(maxsize=None)
def _read(package: str, name: str) -> dict:
    return json.loads(resources.files(package).joinpath(name).read_text())


@dataclass(frozen=True)
class LatchStiffness:
    """Per-tile corner-latch stiffness: k_t [N/m] (None: rigid), k_d, k_e, k_z [N m/rad]."""

    k_t: float | None
    k_d: float
    k_e: float
    k_z: float

    def __post_init__(self):
        for name in ("k_t", "k_d", "k_e", "k_z"):
            v = getattr(self, name)
            if v is None and name == "k_t":
                continue
            if not (isinstance(v, (int, float, np.floating)) and np.isfinite(v) and v > 0):
                raise ValueError(f"latch stiffness `{name}` must be a positive finite number"
                                 f"{' or None (rigid)' if name == 'k_t' else ''}; got {v!r}")


@dataclass(frozen=True)
class TileProperties:
    """Tile shell and clamp properties (SI).  ``synthetic`` marks the calibrated sets."""

    thickness: float
    youngs_modulus: float
    poisson_ratio: float
    density: float
    latch: LatchStiffness
    patch_size: float = 0.25
    damping: float = 0.005
    tile_side: float = 1.0
    name: str = "user"
    description: str = "user-given properties"
    synthetic: bool = False

    def __post_init__(self):
        ShellMaterial(self.thickness, self.youngs_modulus, self.poisson_ratio, self.density)
        if not isinstance(self.latch, LatchStiffness):
            raise TypeError(f"`latch` must be a LatchStiffness; got {type(self.latch).__name__}")
        if not 0.0 < self.patch_size < self.tile_side:
            raise ValueError(f"`patch_size` must be in (0, tile_side); got {self.patch_size!r}")
        if not 0.0 <= self.damping < 1.0:
            raise ValueError(f"`damping` must be in [0, 1); got {self.damping!r}")

    @property
    def material(self) -> ShellMaterial:
        return ShellMaterial(self.thickness, self.youngs_modulus, self.poisson_ratio, self.density)

    def key(self) -> dict:
        """Plain-data description (the cache key uses it)."""
        return {"thickness": self.thickness, "youngs_modulus": self.youngs_modulus,
                "poisson_ratio": self.poisson_ratio, "density": self.density,
                "latch": [self.latch.k_t, self.latch.k_d, self.latch.k_e, self.latch.k_z],
                "patch_size": self.patch_size, "damping": self.damping, "tile_side": self.tile_side}


def tile_properties(name: str = "S5") -> TileProperties:
    """The calibrated property set "S5" (default) or "S4" (synthetic; see docs/fe.md)."""
    if name not in PROPERTY_SETS:
        raise ValueError(f"`properties` must be one of {PROPERTY_SETS} or a TileProperties; got {name!r}")
    d = _read("satdyn.data.fe", "property_sets.json")
    s = d["sets"][name]
    return TileProperties(
        thickness=s["thickness"], youngs_modulus=s["youngs_modulus"], poisson_ratio=s["poisson_ratio"],
        density=d["areal_mass"] / s["thickness"], latch=LatchStiffness(**s["latch"]),
        patch_size=s["patch_size"], damping=s["damping"], tile_side=d["tile_side"], name=name,
        description=s["description"], synthetic=True)


def tile_layout(layout: str = "B") -> np.ndarray:
    """(28, 2) tile centres [m] in the structure frame (origin P2), assembly order.

    "B" (default): row 7 is filled from x = -0.5 (tile 25 at (-0.5, 6.5) as the paper's port
    vector P2C25 says); "A": every row in the order 0.5, 1.5, -0.5, -1.5."""
    if layout not in LAYOUTS:
        raise ValueError(f"`layout` must be one of {LAYOUTS}; got {layout!r}")
    grid = _read("satdyn.data.titop", "paper000_table2_interpreted.json")["tile_grid"]
    return np.array([[x, y] for y, xs in zip(grid["row_y"], grid["row_x_order"][layout]) for x in xs])


def resolve_tile_properties(properties) -> TileProperties:
    """The :class:`TileProperties` named by ``properties`` (one of :data:`PROPERTY_SETS`) or
    ``properties`` itself when it already is one; ``TypeError`` otherwise."""
    if isinstance(properties, TileProperties):
        return properties
    if isinstance(properties, str):
        return tile_properties(properties)
    raise TypeError(f"`properties` must be one of {PROPERTY_SETS} or a TileProperties; got {type(properties).__name__}")


def _check_int(value, name, lo, hi):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"`{name}` must be an integer in {lo}..{hi}; got {value!r}")
    return int(value)


def latch_clamp(centres: np.ndarray, props: TileProperties, element_side: float) -> Clamp:
    """Corner-latch clamp at the origin for the tiles whose corner is the origin.

    The rigid patch covers at least the corner element (side max(patch_size, element side)),
    so that coarse meshes keep a massive patch (the interface rotation about z needs one)."""
    half = 0.5 * props.tile_side
    touching = [c for c in centres if np.allclose(np.abs(c), half)]
    if not touching:
        raise ValueError("no tile touches the root point P2")
    lt = props.latch
    K = np.zeros((6, 6))
    c = max(props.patch_size, element_side)
    patches = []
    z = np.array([0.0, 0.0, 1.0])
    for ctr in touching:
        u = np.array([ctr[0], ctr[1], 0.0]) / np.hypot(*ctr)
        e = np.cross(z, u)
        if lt.k_t is not None:
            K[:3, :3] += lt.k_t * np.eye(3)
        K[3:, 3:] += lt.k_d * np.outer(u, u) + lt.k_e * np.outer(e, e) + lt.k_z * np.outer(z, z)
        patches.append(((np.sign(ctr[0]) * c / 2, np.sign(ctr[1]) * c / 2), (c / 2, c / 2)))
    rigid = (lt.k_t is None,) * 3 + (False,) * 3
    return Clamp(point=(0.0, 0.0), patches=tuple(patches), stiffness=K, rigid=rigid)


def tile_structure(n: int = 26, *, properties="S5", layout: str = "B", joints: str = "continuous",
                   join_fractions=(0.25, 0.75), elements_per_edge: int = 8) -> ShellStructure:
    """FE model of the tile structure F_n (module docstring).

    Parameters
    ----------
    n : int
        Number of tiles, 1..28.
    properties : {"S5", "S4"} or TileProperties
        Shell and latch properties; "S5" (default) is synthetic, calibrated to the paper's
        F1/F26 frequencies.
    layout : {"B", "A"}
        Assembly order of the 4 x 7 grid (:func:`tile_layout`).
    joints : {"continuous", "points"}
        Tiles merged along their whole edges, or only at the nodes at ``join_fractions``
        of each edge (clamping points).
    elements_per_edge : int
        k, elements per tile edge (k = 8 is within 1.6 % of the converged frequencies).
    """
    n = _check_int(n, "n", 1, N_TILES)
    k = _check_int(elements_per_edge, "elements_per_edge", 1, 256)
    props = resolve_tile_properties(properties)
    if joints not in JOINTS:
        raise ValueError(f"`joints` must be one of {JOINTS}; got {joints!r}")
    fr = np.asarray(join_fractions, dtype=float).ravel()
    if joints == "points" and (fr.size == 0 or np.any((fr < 0) | (fr > 1))
                               or not np.allclose(fr * k, np.round(fr * k))):
        raise ValueError(f"`join_fractions` must be fractions in [0, 1] on the element grid (multiples of 1/{k}); got "
                         f"{join_fractions!r}")
    centres = tile_layout(layout)[:n] * props.tile_side
    side = props.tile_side / k
    cells = [(int(round((cx - props.tile_side / 2) / side)), int(round((cy - props.tile_side / 2) / side)), k, k)
             for cx, cy in centres]
    mesh = structured_mesh(cells, side, joints, tuple(fr))
    ports = {f"C{j + 1}": c for j, c in enumerate(centres)}
    return ShellStructure(mesh, props.material, latch_clamp(centres, props, side), ports, name=f"F{n}",
                          damping=props.damping,
                          description=f"tile structure F_{n} ({props.name}, layout {layout}, {joints}, k = {k})")


def plate(length: float, width: float, thickness: float, youngs_modulus: float, poisson_ratio: float,
          density: float, *, element_size: float, damping: float = 0.005, name: str = "plate") -> ShellStructure:
    """A rectangular plate clamped (rigidly) along its root edge x = 0.

    Parameters
    ----------
    length, width : float
        Plate dimensions along x (away from the root) and y [m]; multiples of ``element_size``.
    thickness, youngs_modulus, poisson_ratio, density : float
        h [m], E [Pa], nu, rho [kg/m^3] (use effective values for a sandwich/laminate).
    element_size : float
        Side of the square elements [m].

    The parent point P is the centre of the root edge; child port "tip" is the centre of the
    tip edge.  ``plate(...).port_data(...)`` gives a :func:`satdyn.titop.flexible_body` input.
    """
    for nm, v in (("length", length), ("width", width), ("element_size", element_size)):
        if not (isinstance(v, (int, float, np.floating)) and np.isfinite(v) and v > 0):
            raise ValueError(f"`{nm}` must be a positive finite number [m]; got {v!r}")
    if not (isinstance(damping, (int, float, np.floating)) and 0.0 <= damping < 1.0):
        raise ValueError(f"`damping` must be a ratio in [0, 1); got {damping!r}")
    nx, ny = length / element_size, width / element_size
    if not (np.isclose(nx, round(nx)) and np.isclose(ny, round(ny))):
        raise ValueError(f"`element_size` must divide length and width; got {element_size!r} for {length!r} x "
                         f"{width!r}")
    nx, ny = int(round(nx)), int(round(ny))
    material = ShellMaterial(thickness, youngs_modulus, poisson_ratio, density)
    mesh = structured_mesh([(0, 0, nx, ny)], float(element_size))
    clamp = Clamp(point=(0.0, width / 2), patches=(((0.0, width / 2), (0.0, width / 2)),))
    return ShellStructure(mesh, material, clamp, {"tip": (length, width / 2)}, name=name, damping=damping,
                          description=f"plate {length} m x {width} m, h = {thickness} m, clamped at x = 0")
