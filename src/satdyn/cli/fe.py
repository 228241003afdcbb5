"""`satdyn fe`: FE model of a tile structure F_n -- modes table, mode-shape figures, TITOP data."""

from __future__ import annotations

from ..plotting.fe import plot_fe
from ..studies.fe import N_TILES, fe_study
from . import bounded_int

HELP = ("flexible tile structure F_n of the on-orbit assembly (arXiv:2409.06017) from a flat-shell FE model: "
        "modes, mode shapes and TITOP port data (synthetic properties calibrated to the paper's F1/F26)")


MAX_ELEMENTS_PER_EDGE = 32
"""Cap of ``--elements-per-edge``: 32 x 32 shell elements per tile give F_26 about 170000 degrees of
freedom (the default 8: about 10000); the sparse eigen-solve grows faster than that."""

MAX_MODES = 100
"""Cap of ``--modes``: the TITOP data keep the first modes (the paper keeps 3; 'auto' at most 20)."""

_count_of_modes = bounded_int(1, MAX_MODES, "the cap on kept modes")


def _modes(text: str):
    return text if text == "auto" else _count_of_modes(text)


def add_arguments(parser) -> None:
    parser.add_argument("--tiles", type=bounded_int(1, N_TILES), default=26, metavar="N",
                        help=f"number of tiles n, 1..{N_TILES} (default 26)")
    parser.add_argument("--properties", default="S5", choices=["S5", "S4"],
                        help="property set (default S5: synthetic, calibrated to the paper's F1/F26 frequencies)")
    parser.add_argument("--layout", default="B", choices=["B", "A"], help="tile assembly order (default B)")
    parser.add_argument("--joints", default="continuous", choices=["continuous", "points"],
                        help="tiles merged along edges or at clamping points (default continuous)")
    parser.add_argument("--elements-per-edge", type=bounded_int(1, MAX_ELEMENTS_PER_EDGE, "the cap on mesh density"),
                        default=8, metavar="K", help=f"mesh density, 1..{MAX_ELEMENTS_PER_EDGE} (default 8)")
    parser.add_argument("--modes", type=_modes, default=10, metavar="M",
                        help=f"modes kept: a count 1..{MAX_MODES} (3 = the paper's setting) or 'auto' (below 20 Hz, "
                             "6..20); default 10")
    parser.add_argument("--ports", type=bounded_int(1, N_TILES), nargs="+", default=None, metavar="J",
                        help="child ports (tile numbers, at most --tiles); default every tile")
    parser.add_argument("--port-model", default="rbe3", choices=["rbe3", "node"], help="port model (default rbe3)")
    parser.add_argument("--family", action="store_true",
                        help="also the first frequencies of every F_1..F_28 (generated once, then read from the cache)")


def check(args) -> None:
    """Refuse ports beyond the structure's tiles (found now, not after the mesh is built)."""
    beyond = [j for j in args.ports or () if j > args.tiles]
    if beyond:
        raise ValueError(f"--ports {beyond}: F_{args.tiles} has tiles 1..{args.tiles} only")


def run(args):
    return fe_study(args.tiles, properties=args.properties, layout=args.layout, joints=args.joints,
                    elements_per_edge=args.elements_per_edge, n_modes=args.modes, ports=args.ports,
                    port_model=args.port_model, family=args.family)


def figures(result):
    return plot_fe(result)


def summary(result) -> str:
    lines = [result.description + (" -- SYNTHETIC properties" if result.properties["synthetic"] else ""),
             " mode   f [Hz]      type"]
    for i, (f, t) in enumerate(zip(result.frequencies_hz, result.mode_types)):
        lines.append(f" {i + 1:4d}  {f:9.4f}   {t}")
    lam = result.titop.residual_eigenvalues
    lines.append(f"mass {result.titop.D_P[0, 0]:.4f} kg; residual mass eigenvalues {lam[0]:.3g} ... {lam[-1]:.3g} "
                 f"(positive definite); ports: {', '.join(result.titop.children)}")
    if result.family_frequencies_hz is not None:
        lines.append("family:  n   f1 [Hz]   f2 [Hz]   f3 [Hz]")
        for n, f in enumerate(result.family_frequencies_hz, start=1):
            lines.append(f"        {n:2d}  " + "  ".join(f"{x:8.3f}" for x in f[:3]))
    return "\n".join(lines)
