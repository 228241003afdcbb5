"""`satdyn demo`: composite inertia of a small spacecraft (hub + two rotating panels), two routes."""

from __future__ import annotations

import numpy as np

from ..demo import load_rigid_spacecraft, rigid_spacecraft_inertia
from ..plotting import plot_rigid_spacecraft_inertia

HELP = "composite inertia of a hub with two panels at several panel angles, checked by two routes"


def add_arguments(parser) -> None:
    parser.add_argument("--angles", type=float, nargs="+", metavar="DEG",
                        help="panel angles in degrees (default: the scenario's list, 0..180 by 15)")
    parser.add_argument("--scenario", metavar="FILE",
                        help="rigid spacecraft scenario (JSON, layout of satdyn/data/demo_spacecraft.json)")


def run(args):
    spacecraft = load_rigid_spacecraft(args.scenario)
    angles = None if args.angles is None else np.deg2rad(args.angles)
    return rigid_spacecraft_inertia(spacecraft, angles)


def figures(result):
    return plot_rigid_spacecraft_inertia(result)


def summary(result) -> str:
    deg = np.rad2deg(result.panel_angles)
    lines = [
        f"{result.scenario}{' (synthetic data)' if result.synthetic else ''}",
        f"total mass {result.total_mass:.3f} kg; {deg.size} panel angles from {deg.min():g} to {deg.max():g} deg",
        "angle [deg]   principal moments at system CoM [kg m^2]   CoM shift [mm]",
    ]
    for a, pm, c in zip(deg, result.principal_moments, result.com):
        lines.append(f"{a:10.1f}   {pm[0]:10.3f} {pm[1]:10.3f} {pm[2]:10.3f}   {1e3 * np.linalg.norm(c):8.3f}")
    lines.append(f"6x6 transport route vs classical parallel-axis route: max relative difference "
                 f"{result.route_discrepancy:.2e}")
    return "\n".join(lines)
