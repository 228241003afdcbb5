"""The `satdyn fe` study: modes and TITOP data of one tile structure F_n.

``fe_study(n, ...)`` builds F_n (:func:`~satdyn.fe.tile_structure`), reduces it to TITOP
data at the chosen tile ports (:func:`~satdyn.fe.reduction.port_data`) and returns an
:class:`FEStudy` (modes table, TITOP data, and the nodal mode shapes the figures draw).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..fe.family import tile_family
from ..fe.reduction import PortData
from ..fe.tiles import N_TILES, resolve_tile_properties, tile_structure
from ..runtime import limit_blas_threads

__all__ = ["FEStudy", "fe_study", "N_TILES"]  # N_TILES re-exported for the CLI (defined in satdyn.fe.tiles)


@dataclass(frozen=True)
class FEStudy:
    """Result of :func:`fe_study`.

    Attributes
    ----------
    n_tiles : int
    description : str                 structure, property set, layout, joints, mesh
    properties : dict                 the property set's values (``synthetic`` flag included)
    frequencies_hz : (m,)             clamped-free frequencies [Hz]
    mode_types : tuple of str         "in-plane" / "out-of-plane"
    titop : PortData                  the ``flexible_body`` input (D_P, frequencies [rad/s], L_P, Phi_C ...)
    node_coords : (n_nodes, 2)        mesh node coordinates [m] (figures only)
    node_shapes : (n_nodes, 3, m)     nodal translations u, v, w of each mass-normalised mode (figures only)
    tile_centres : (n, 2)             [m]
    family_frequencies_hz : tuple or None
        with ``family=True``: the first clamped-free frequencies [Hz] of F_1 ... F_28 (same
        options, from the disk cache of :func:`~satdyn.fe.tile_family`)
    """

    n_tiles: int
    description: str
    properties: dict
    frequencies_hz: np.ndarray
    mode_types: tuple
    titop: PortData
    node_coords: np.ndarray
    node_shapes: np.ndarray
    tile_centres: np.ndarray
    family_frequencies_hz: tuple | None = None

    def to_dict(self) -> dict:
        """JSON content: modes table and TITOP data (the nodal shapes stay out)."""
        t = self.titop
        return {
            "n_tiles": self.n_tiles,
            "description": self.description,
            "properties": self.properties,
            "modes": [{"mode": i + 1, "frequency_hz": float(f), "type": ty}
                      for i, (f, ty) in enumerate(zip(self.frequencies_hz, self.mode_types))],
            "titop": {
                "name": t.name, "frame": t.frame, "port_model": t.port_model,
                "D_P": t.D_P, "frequencies_rad_s": t.frequencies, "damping": t.damping, "L_P": t.L_P,
                "children": {k: {"r_PC": r, "Phi_C": phi} for k, (r, phi) in t.children.items()},
                "residual_mass_eigenvalues": t.residual_eigenvalues,
            },
            "family_frequencies_hz": None if self.family_frequencies_hz is None else
            {f"F{n + 1}": f for n, f in enumerate(self.family_frequencies_hz)},
        }


def fe_study(n: int, *, properties="S5", layout: str = "B", joints: str = "continuous",
             elements_per_edge: int = 8, n_modes=10, ports=None, port_model: str = "rbe3",
             foot_radius: float = 0.125, family: bool = False) -> FEStudy:
    """Modes and TITOP data of F_n (arguments as :func:`~satdyn.fe.tile_structure` and
    :func:`~satdyn.fe.reduction.port_data`; ``ports`` None: every tile centre).
    ``family=True`` adds the first frequencies of every F_1 ... F_28 (cached family)."""
    with limit_blas_threads():
        s = tile_structure(n, properties=properties, layout=layout, joints=joints,
                           elements_per_edge=elements_per_edge)
        data = s.port_data(ports, n_modes=n_modes, port_model=port_model, foot_radius=foot_radius)
        modes = s.modes(len(data.frequencies))
        shapes = s.full_shapes(modes)[:, :3, :]

    fam = None
    if family:
        f = tile_family(properties, layout=layout, joints=joints, elements_per_edge=elements_per_edge,
                        port_model=port_model, foot_radius=foot_radius)
        fam = tuple(f.frequencies_hz(k)[:len(data.frequencies)] for k in range(1, f.n_structures + 1))
    props = resolve_tile_properties(properties)
    prop_dict = {"name": props.name, "synthetic": props.synthetic, "description": props.description, **props.key()}
    return FEStudy(n_tiles=n, description=s.description, properties=prop_dict,
                   frequencies_hz=data.frequencies_hz, mode_types=data.mode_types, titop=data,
                   node_coords=s.mesh.coords.copy(), node_shapes=shapes,
                   tile_centres=np.array([s.ports[f"C{j}"] for j in range(1, n + 1)]),
                   family_frequencies_hz=fam)
