"""Tile layout of the assembled structure: tile centres, stack, slot of the next tile, adjacency.

The structure of paper 000 (arXiv:2409.06017) is built from N = 28 square 1 m tiles on a
4 x 7 grid in a predefined order; the paper does not print the grid, so the layout is the
reconstruction shipped with :mod:`satdyn.titop` (``tile_centres(layout)``: layout "B", the
default, puts tile 25 at (-0.5, 6.5) as the paper's table prints it; layout "A" uses one row
order for every row).  Both give the paper's total edge count M = 8672.

The stack of remaining tiles acts as a virtual tile: its centre C0 in the structure frame
is G P3 + P3 C0 - G P2 = (1.5, -0.5) m (the frames of the stack and of the structure are
both aligned with the hub frame).

Coordinates are metres in the structure frame R_fn (origin P2), z = 0 on the tiles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...titop.data import TILE_LAYOUTS, load_assembly_spacecraft

__all__ = ["TileLayout", "tile_layout", "LAYOUTS"]

LAYOUTS = TILE_LAYOUTS


@dataclass(frozen=True)
class TileLayout:
    """Tile centres in assembly order and the stack position.

    Attributes
    ----------
    name : str
        Layout name ("B" or "A", or "custom").
    centres : ndarray (N, 2)
        Centre (x, y) of tile j = 1..N (row j-1) in R_fn [m].
    stack : ndarray (2,)
        Centre of the stack C0 in R_fn [m].
    pitch : float
        Tile size [m]; two centres are 8-neighbours when |dx| <= pitch and |dy| <= pitch.
    """

    name: str
    centres: np.ndarray
    stack: np.ndarray
    pitch: float = 1.0

    def __post_init__(self):
        c = np.asarray(self.centres, dtype=float)
        if c.ndim != 2 or c.shape[1] != 2 or c.shape[0] < 1:
            raise ValueError(f"`centres` must have shape (N, 2) [m] with N >= 1; got {c.shape}")
        s = np.asarray(self.stack, dtype=float)
        if s.shape != (2,):
            raise ValueError(f"`stack` must have shape (2,) [m]; got {s.shape}")
        if not (np.all(np.isfinite(c)) and np.all(np.isfinite(s))):
            raise ValueError("`centres` and `stack` must be finite")
        if len(np.unique(np.floor(c / self.pitch + 1e-9).astype(int), axis=0)) != len(c):
            raise ValueError("`centres`: two tiles share a grid cell")
        object.__setattr__(self, "centres", c)
        object.__setattr__(self, "stack", s)

    @property
    def n_tiles(self) -> int:
        """N, the number of tiles of the finished structure."""
        return int(self.centres.shape[0])

    def centre(self, j: int) -> np.ndarray:
        """Centre of tile j (1-based) [m]."""
        return self.centres[j - 1]

    def offset(self, src, dst) -> tuple[int, int]:
        """Grid offset (dx, dy) in tiles from point ``src`` to point ``dst`` (both (2,) [m])."""
        d = (np.asarray(dst, dtype=float) - np.asarray(src, dtype=float)) / self.pitch
        r = np.round(d)
        if not np.allclose(d, r, atol=1e-9):
            raise ValueError(f"points {src} and {dst} are not on one grid")
        return int(r[0]), int(r[1])

    def neighbours(self, point, n: int) -> list[int]:
        """Tiles among the first ``n`` that are 8-neighbours of ``point`` (sorted, 1-based)."""
        d = np.abs(self.centres[:n] - np.asarray(point, dtype=float))
        close = np.all(d <= self.pitch * (1 + 1e-9), axis=1) & np.any(d > 1e-9 * self.pitch, axis=1)
        return [int(k) + 1 for k in np.flatnonzero(close)]

    def slot(self, n: int) -> np.ndarray | None:
        """Centre of the slot of tile n+1, or None when n = N (nothing left to place)."""
        return self.centres[n] if n < self.n_tiles else None


def tile_layout(layout: str = "B") -> TileLayout:
    """The shipped layout "B" (default) or "A" with the stack position of the paper's tables."""
    if layout not in LAYOUTS:
        raise ValueError(f"`layout` must be one of {LAYOUTS}; got {layout!r}")
    data = load_assembly_spacecraft(layout=layout)
    # C0 in R_fn: G P3 + P_s/b P3C0 - G P2, mapped by P_f/b (both frames are the hub's here)
    c0_b = data.r_G_P[2] + data.P_s_b.T @ data.r_P3_C0 - data.r_G_P[1]
    c0_f = data.P_f_b @ c0_b
    return TileLayout(layout, data.tile_centres[:, :2].copy(), c0_f[:2].copy())
