"""`satdyn demo`: the flagship study (flexible spacecraft + PD attitude control, robust analysis);
`satdyn demo --rigid`: composite inertia of a hub with two rigid panels, two routes."""

from __future__ import annotations

import sys

import numpy as np

from ..demo import FlagshipResult, flagship_study, load_rigid_spacecraft, rigid_spacecraft_inertia
from ..plotting import plot_flagship, plot_rigid_spacecraft_inertia

HELP = ("flexible spacecraft (hub + two solar arrays, synthetic data) with PD attitude control: modes, "
        "sampled singular values, H-infinity, robust stability margin, worst-case gain "
        "(--rigid: composite inertia of a rigid hub with two panels)")


def add_arguments(parser) -> None:
    parser.add_argument("--rigid", action="store_true",
                        help="run the rigid composite-inertia study instead of the flagship study")
    parser.add_argument("--array-angle", type=float, default=0.0, metavar="DEG",
                        help="flagship: drive angle of both solar arrays in degrees (default 0)")
    parser.add_argument("--bandwidth", type=float, default=0.01, metavar="HZ",
                        help="flagship: attitude controller bandwidth in Hz (spec 000b: 0.01)")
    parser.add_argument("--samples", type=int, default=200, metavar="N",
                        help="flagship: uncertain samples for the singular values (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="flagship: random seed (default 0)")
    parser.add_argument("--angles", type=float, nargs="+", metavar="DEG",
                        help="--rigid: panel angles in degrees (default: the scenario's list, 0..180 by 15)")
    parser.add_argument("--scenario", metavar="FILE",
                        help="--rigid: rigid spacecraft scenario (JSON, layout of satdyn/data/demo_spacecraft.json)")


def run(args):
    if args.rigid or args.angles is not None or args.scenario is not None:
        spacecraft = load_rigid_spacecraft(args.scenario)
        angles = None if args.angles is None else np.deg2rad(args.angles)
        return rigid_spacecraft_inertia(spacecraft, angles)
    step = [0]

    def progress(message):
        step[0] += 1
        print(f"[{step[0]}/5] {message}", file=sys.stderr, flush=True)

    return flagship_study(array_angle_deg=args.array_angle, bandwidth_hz=args.bandwidth,
                          n_samples=args.samples, seed=args.seed, progress=progress)


def figures(result):
    if isinstance(result, FlagshipResult):
        return plot_flagship(result)
    return plot_rigid_spacecraft_inertia(result)


def summary(result) -> str:
    if isinstance(result, FlagshipResult):
        rs, wc = result.robust_stability, result.worst_case_gain
        wv = ", ".join(f"{k} = {v / (2 * np.pi):.4g} Hz" for k, v in rs.worst_case_values.items())
        gv = ", ".join(f"{k} = {v / (2 * np.pi):.4g} Hz" for k, v in wc.worst_case_values.items())
        return "\n".join([
            "hub + two flexible solar arrays (synthetic data), PD attitude control "
            f"(bandwidth {result.bandwidth_hz:g} Hz), array angle {result.array_angle_deg:g} deg",
            "flexible modes of the nominal plant [Hz]: " + ", ".join(f"{m:.3f}" for m in result.modes_hz),
            f"closed-loop H-inf (torque disturbance -> hub angular acceleration): {result.hinf:.5g} "
            f"at {result.hinf_peak_hz:.3f} Hz",
            f"robust stability margin: [{rs.lower:.4g}, {rs.upper:.4g}] x the +/-20 % box; "
            f"destabilising at {wv}",
            f"worst-case gain: [{wc.lower:.5g}, {wc.upper:.5g}] (nominal {wc.nominal_gain:.5g}) at {gv}",
        ])
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
