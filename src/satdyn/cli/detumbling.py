"""`satdyn detumbling`: two tugs detumble a non-rigid satellite (Gao, Danielson, Fierro 2024, arXiv:2407.17617)."""

from __future__ import annotations

import dataclasses

from ..detumbling import CONTROLLER_KINDS, detumbling_study, load_scenario
from ..plotting import plot_detumbling_study
from . import SimulationProgress, json_file, positive_float

HELP = ("adaptive detumbling of a two-link satellite by two decentralized tugs "
        "(paper scenario, or --scenario FILE); --experiment compares B, A, R, known, velocity-only and the hinge sweep")


def add_arguments(parser) -> None:
    parser.add_argument("--scenario", type=json_file, metavar="FILE",
                        help="scenario (JSON, layout of satdyn/data/detumbling/paper_table1.json)")
    parser.add_argument("--controller", choices=CONTROLLER_KINDS, default=None,
                        help="controller of the main run (default: the scenario's, B)")
    parser.add_argument("--duration", type=positive_float, default=None, metavar="S",
                        help="horizon of the main run [s] (default: the scenario's, 30)")
    parser.add_argument("--experiment", action="store_true",
                        help="also run B, known, A, R, velocity-only B and the hinge-stiffness sweep x1, x10, x100 (9 runs, minutes)")


def run(args):
    scenario = load_scenario(args.scenario)
    if args.controller is not None:
        scenario = dataclasses.replace(scenario, controller=args.controller)
    bars = SimulationProgress("simulate")
    try:
        return detumbling_study(scenario, experiment=args.experiment, duration=args.duration, progress=bars)
    finally:
        bars.close()


def figures(result):
    return plot_detumbling_study(result)


def summary(result) -> str:
    m = result.metrics
    f, st, pk = m.final, m.settling_time_s, m.peak
    lines = [
        f"{result.scenario.name}: controller {m.controller}, {m.status} at t = {m.duration:.2f} s "
        f"({m.rhs_evaluations} right-hand sides, {m.wall_time_s:.1f} s)",
        f"final |v| {f['v']:.2e} m/s, |omega1| {f['omega1']:.2e}, |omega2| {f['omega2']:.2e} rad/s, "
        f"|p - p_d| {f['position_error']:.2e} m, |theta*| {f['hinge_angle']:.2e} rad",
        f"settling (< 0.05): v {st['v']:.2f} s, omega1 {st['omega1']:.2f} s, omega2 {st['omega2']:.2f} s",
        f"V {m.V0:.2f} -> {m.VT:.2f} J (largest increase {m.max_V_increase:.1e}); peaks |f| {pk['force']:.1f} N, "
        f"|tau1| {pk['torque1']:.1f} N m, |tau2| {pk['torque2']:.1f} N m",
    ]
    if result.experiment is not None:
        lines.append("run          status             |omega1|(T) |omega2|(T)  |v|(T)     settle w1/w2/v [s]")
        for label, e in result.experiment.metrics.items():
            s = e.settling_time_s
            lines.append(f"{label:12s} {e.status:18s} {e.final['omega1']:.2e}    {e.final['omega2']:.2e}    "
                         f"{e.final['v']:.2e}   {s['omega1']:.2f}/{s['omega2']:.2f}/{s['v']:.2f}")
    lines.extend(result.notes)
    return "\n".join(lines)
