"""Structured meshes of identical square shell elements and their vectorised sparse assembly.

A mesh is a set of rectangular *cells* (tiles, or a whole plate) on one lattice of spacing
``a``: cell c covers lattice indices ``ix0 .. ix0 + nx``, ``iy0 .. iy0 + ny``.  Cells are joined

* ``"continuous"``: every coincident node is merged (one node per lattice point);
* ``"points"``: each cell keeps its own nodes, except those on a cell edge at the given edge
  fractions (and the cell corners if 0 or 1 is among them), which are merged across cells
  (the paper's "clamping points" between tiles).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .element import DOF_PER_NODE

__all__ = ["ShellMesh", "structured_mesh", "assemble"]

JOINTS = ("continuous", "points")


@dataclass(frozen=True)
class ShellMesh:
    """Nodes and 4-node elements of a structured shell mesh.

    Attributes
    ----------
    side : float                 element side a [m]
    coords : (n_nodes, 2)        node coordinates x, y [m] (z = 0)
    elements : (n_elements, 4)   node indices, counter-clockwise from the lower-left corner
    element_cell : (n_elements,) index of the cell each element belongs to
    """

    side: float
    coords: np.ndarray
    elements: np.ndarray
    element_cell: np.ndarray

    @property
    def n_nodes(self) -> int:
        return len(self.coords)

    @property
    def n_dofs(self) -> int:
        return DOF_PER_NODE * len(self.coords)

    def nodes_in_box(self, centre, half_widths, atol: float = 1e-9) -> np.ndarray:
        """Indices of the nodes with ``|x - cx| <= hx`` and ``|y - cy| <= hy``."""
        d = np.abs(self.coords - np.asarray(centre, dtype=float)[:2])
        return np.flatnonzero(np.all(d <= np.asarray(half_widths, dtype=float) + atol, axis=1))

    def nearest_node(self, point) -> int:
        return int(np.argmin(np.sum((self.coords - np.asarray(point, dtype=float)[:2]) ** 2, axis=1)))


def structured_mesh(cells, side: float, joints: str = "continuous", join_fractions=(0.25, 0.75)) -> ShellMesh:
    """Mesh of rectangular cells ``(ix0, iy0, nx, ny)`` (lattice units) on a lattice of ``side``.

    Parameters
    ----------
    cells : sequence of (ix0, iy0, nx, ny) int
    side : float
        Element side a [m]; node (ix, iy) sits at (ix a, iy a).
    joints : {"continuous", "points"}
    join_fractions : sequence of float in [0, 1]
        Edge fractions of the merged nodes when ``joints == "points"``; each fraction times the
        edge's element count must be an integer.
    """
    keys, local = [], []
    for c, (ix0, iy0, nx, ny) in enumerate(cells):
        gx, gy = np.meshgrid(np.arange(nx + 1), np.arange(ny + 1), indexing="ij")
        gx, gy = gx.ravel(), gy.ravel()
        owner = np.full(gx.shape, c)
        if joints == "points":
            shared = np.zeros(gx.shape, dtype=bool)
            for f in join_fractions:
                fx, fy = f * nx, f * ny
                on_x = np.isclose(gx, fx) & ((gy == 0) | (gy == ny))     # points along the bottom/top edges
                on_y = np.isclose(gy, fy) & ((gx == 0) | (gx == nx))     # points along the left/right edges
                shared |= on_x | on_y
            owner[shared] = -1
        elif joints == "continuous":
            owner[:] = -1
        else:
            raise ValueError(f"`joints` must be one of {JOINTS}; got {joints!r}")
        keys.append(np.stack([owner, gx + ix0, gy + iy0], axis=1))
        local.append((nx, ny))
    allkeys = np.concatenate(keys)
    uniq, inverse = np.unique(allkeys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    coords = uniq[:, 1:].astype(float) * side
    elements, element_cell = [], []
    start = 0
    for c, (nx, ny) in enumerate(local):
        idx = inverse[start:start + (nx + 1) * (ny + 1)].reshape(nx + 1, ny + 1)
        start += (nx + 1) * (ny + 1)
        e = np.stack([idx[:-1, :-1], idx[1:, :-1], idx[1:, 1:], idx[:-1, 1:]], axis=-1).reshape(-1, 4)
        elements.append(e)
        element_cell.append(np.full(len(e), c))
    return ShellMesh(side=float(side), coords=coords, elements=np.concatenate(elements),
                     element_cell=np.concatenate(element_cell))


def element_dofs(elements: np.ndarray) -> np.ndarray:
    """(n_elements, 20) global DOF indices in the element's DOF order."""
    return (DOF_PER_NODE * elements[:, :, None] + np.arange(DOF_PER_NODE)).reshape(len(elements), -1)


def assemble(mesh: ShellMesh, element_matrix: np.ndarray) -> sp.csc_matrix:
    """Global sparse matrix of identical element matrices (vectorised COO assembly)."""
    dofs = element_dofs(mesh.elements)
    ne, nd = dofs.shape
    rows = np.repeat(dofs, nd, axis=1).ravel()
    cols = np.tile(dofs, (1, nd)).ravel()
    data = np.broadcast_to(element_matrix.ravel(), (ne, nd * nd)).ravel()
    return sp.csc_matrix((data, (rows, cols)), shape=(mesh.n_dofs, mesh.n_dofs))
