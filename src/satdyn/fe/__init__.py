"""satdyn.fe: finite-element flat shells on structured grids and their TITOP port data.

A flat 4-node shell (MITC4 Reissner-Mindlin plate + QM6 membrane, 5 DOF per node, consistent
mass) on grids of identical squares; the tile structures F_1 ... F_28 of the on-orbit
assembly of arXiv:2409.06017 (corner-latch clamp, calibrated synthetic property sets S5/S4)
and user plates; modal reduction to the inputs of :func:`satdyn.titop.flexible_body`:

    >>> from satdyn import fe
    >>> from satdyn.titop import flexible_body
    >>> body = flexible_body(**fe.tile_structure(n=17).port_data(ports=[13], n_modes=10))

``tile_family()`` generates (and caches on disk) the data of all 28 structures.
Imports :mod:`satdyn.spatial` only; see docs/fe.md.
"""

from .element import shell_element
from .family import FE_CODE_VERSION, CacheWarning, TileFamily, cache_dir, tile_family
from .mesh import ShellMesh, structured_mesh
from .reduction import PORT_MODELS, PortData, ResidualMassError, check_residual_mass, port_data, port_operator
from .structure import Clamp, Modes, ShellMaterial, ShellStructure
from .tiles import (
    LAYOUTS, N_TILES, PROPERTY_SETS, LatchStiffness, TileProperties, plate, resolve_tile_properties, tile_layout,
    tile_properties, tile_structure,
)

__all__ = [
    "shell_element", "ShellMesh", "structured_mesh", "ShellMaterial", "Clamp", "Modes", "ShellStructure",
    "TileProperties", "LatchStiffness", "tile_properties", "tile_layout", "tile_structure", "plate",
    "PROPERTY_SETS", "LAYOUTS", "N_TILES", "PortData", "port_data", "port_operator", "PORT_MODELS",
    "ResidualMassError", "check_residual_mass", "TileFamily", "tile_family", "cache_dir", "FE_CODE_VERSION",
    "CacheWarning", "resolve_tile_properties",
]
