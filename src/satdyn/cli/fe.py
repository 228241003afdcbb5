"""`satdyn fe`: FE model of a tile structure F_n -- modes table, mode-shape figures, TITOP data."""

from __future__ import annotations

from ..fe.study import fe_study
from ..plotting.fe import plot_fe

HELP = ("flexible tile structure F_n of the on-orbit assembly (arXiv:2409.06017) from a flat-shell FE model: "
        "modes, mode shapes and TITOP port data (synthetic properties calibrated to the paper's F1/F26)")


def _modes(text: str):
    return text if text == "auto" else int(text)


def add_arguments(parser) -> None:
    parser.add_argument("--tiles", type=int, default=26, metavar="N", help="number of tiles n, 1..28 (default 26)")
    parser.add_argument("--properties", default="S5", choices=["S5", "S4"],
                        help="property set (default S5: synthetic, calibrated to the paper's F1/F26 frequencies)")
    parser.add_argument("--layout", default="B", choices=["B", "A"], help="tile assembly order (default B)")
    parser.add_argument("--joints", default="continuous", choices=["continuous", "points"],
                        help="tiles merged along edges or at clamping points (default continuous)")
    parser.add_argument("--elements-per-edge", type=int, default=8, metavar="K", help="mesh density (default 8)")
    parser.add_argument("--modes", type=_modes, default=10, metavar="M",
                        help="modes kept: a count (3 = the paper's setting) or 'auto' (below 20 Hz, 6..20); default 10")
    parser.add_argument("--ports", type=int, nargs="+", default=None, metavar="J",
                        help="child ports (tile numbers); default every tile")
    parser.add_argument("--port-model", default="rbe3", choices=["rbe3", "node"], help="port model (default rbe3)")
    parser.add_argument("--family", action="store_true",
                        help="also the first frequencies of every F_1..F_28 (generated once, then read from the cache)")


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
