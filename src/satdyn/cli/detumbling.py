"""`satdyn detumbling`: two tugs detumble a non-rigid satellite (Gao, Danielson, Fierro 2024, arXiv:2407.17617)."""

from __future__ import annotations

import dataclasses

from ..plotting import plot_detumbling_study
from ..studies.detumbling import (CONTROLLER_KINDS, DEFAULT_TUG, SWEEP_GRIDS, detumbling_study, load_scenario,
                                  physical_parameter_set)
from . import MAX_RECORDED_SAMPLES, SimulationProgress, bounded_float, check_size, json_file, positive_float

HELP = ("adaptive detumbling of a two-link satellite by two decentralized tugs "
        "(paper scenario, or --scenario FILE); --experiment compares B, A, R, known, velocity-only and the hinge "
        "sweep; --tug-limits adds tug mass and thrust saturation; --sweep the gain sensitivity")

# option attribute -> flag, for the options that only --tug-limits / --sweep use
_TUG_OPTIONS = {"tug_mass": "--tug-mass", "max_thrust": "--max-thrust", "thruster_arm": "--thruster-arm"}
_SWEEP_OPTIONS = {"sweep_grid": "--sweep-grid"}


# physically sane tug ranges: far beyond them the closed-loop dynamics overflow (a 1e300 kg tug) or
# stiffen without end (a 1e-300 N thruster saturates every step), which no study needs
_tug_mass = bounded_float(0.0, 1e6, "kg")
_max_thrust = bounded_float(1e-3, 1e6, "N")
_thruster_arm = bounded_float(1e-3, 1e3, "m")


def add_arguments(parser) -> None:
    parser.add_argument("--scenario", type=json_file, metavar="FILE",
                        help="scenario (JSON, layout of satdyn/data/detumbling/paper_table1.json)")
    parser.add_argument("--controller", choices=CONTROLLER_KINDS, default=None,
                        help="controller of the main run (default: the scenario's, B; velocity: velocity-only)")
    parser.add_argument("--duration", type=positive_float, default=None, metavar="S",
                        help="horizon of the main run [s] (default: the scenario's, 30); at most "
                             f"{MAX_RECORDED_SAMPLES:.0e} recording steps (simulation.sample_dt, 0.01 s)")
    parser.add_argument("--experiment", action="store_true",
                        help="also run B, known, A, R, velocity-only B and the hinge-stiffness sweep x1, x10, x100 "
                             "(9 runs, minutes)")
    parser.add_argument("--projection", action="store_true",
                        help="main run with parameter projection (estimates kept in a physical set: masses > 0, "
                             "inertias positive definite, hinge terms >= 0)")
    parser.add_argument("--tug-limits", action="store_true",
                        help="also run B with the tugs' masses, and with their masses and thrust saturation "
                             "(3 runs of the main run's horizon)")
    parser.add_argument("--tug-mass", type=_tug_mass, default=None, metavar="KG",
                        help=f"--tug-limits: mass of each tug [kg], in [0, 1e6] (default {DEFAULT_TUG.mass:g})")
    parser.add_argument("--max-thrust", type=_max_thrust, default=None, metavar="N",
                        help=f"--tug-limits: largest force of each of a tug's 6 thrusters [N], in [1e-3, 1e6] "
                             f"(default {DEFAULT_TUG.max_thrust:g})")
    parser.add_argument("--thruster-arm", type=_thruster_arm, default=None, metavar="M",
                        help=f"--tug-limits: lever arm of the thrusters [m], in [1e-3, 1e3] "
                             f"(default {DEFAULT_TUG.arm:g})")
    parser.add_argument("--sweep", action="store_true",
                        help="also sweep controller B over K scales x Gamma_pi: settling time and peak torque "
                             "(default grid: 9 runs of 10 s, under a minute)")
    parser.add_argument("--sweep-grid", choices=tuple(SWEEP_GRIDS), default=None,
                        help="--sweep: 'small' (3 x 3, 10 s runs, default) or 'large' (5 x 6, 30 s runs, tens of "
                             "minutes)")


def check(args) -> None:
    """Refuse options whose study is not requested (they would be silently ignored), a bad scenario
    and a horizon with more recorded samples than :data:`~satdyn.cli.MAX_RECORDED_SAMPLES`."""
    for enabled, options, mode in ((args.tug_limits, _TUG_OPTIONS, "--tug-limits"),
                                   (args.sweep, _SWEEP_OPTIONS, "--sweep")):
        if enabled:
            continue
        for attribute, flag in options.items():
            if getattr(args, attribute) is not None:
                raise ValueError(f"{flag} applies only with {mode}")
    scenario = load_scenario(args.scenario)
    options = scenario.simulation
    horizon = options.duration if args.duration is None else args.duration
    option = ("--duration" if args.duration is not None else
              f"--scenario {str(args.scenario or 'paper')!r} (simulation.duration)")
    check_size(option, horizon / options.sample_dt, MAX_RECORDED_SAMPLES,
               f"recorded samples (horizon {horizon:g} s / simulation.sample_dt {options.sample_dt:g} s)")


def _tug(args):
    if not args.tug_limits:
        return None
    changes = {name: value for name, value in (("mass", args.tug_mass), ("max_thrust", args.max_thrust),
                                               ("arm", args.thruster_arm)) if value is not None}
    return dataclasses.replace(DEFAULT_TUG, **changes)


def run(args):
    scenario = load_scenario(args.scenario)
    if args.controller is not None:
        scenario = dataclasses.replace(scenario, controller=args.controller)
    bars = SimulationProgress("simulate")
    try:
        return detumbling_study(scenario, experiment=args.experiment, duration=args.duration, progress=bars,
                                bounds=physical_parameter_set() if args.projection else None, tug=_tug(args),
                                sweep_grid=(args.sweep_grid or "small") if args.sweep else None)
    finally:
        bars.close()


def figures(result):
    return plot_detumbling_study(result)


def summary(result) -> str:
    m = result.metrics
    f, st, pk = m.final, m.settling_time_s, m.peak
    projection = ", parameter projection" if result.projected else ""
    lines = [
        f"{result.scenario.name}: controller {m.controller}{projection}, {m.status} at t = {m.duration:.2f} s "
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
    if result.tug_limits is not None:
        lines.append("tug limits              settle w1/w2/v [s]     peaks |f| / |tau1| / |tau2|")
        for label, e in result.tug_limits.metrics.items():
            s, p = e.settling_time_s, e.peak
            lines.append(f"{label:23s} {s['omega1']:.2f}/{s['omega2']:.2f}/{s['v']:.2f}       "
                         f"{p['force']:.1f} / {p['torque1']:.1f} / {p['torque2']:.1f}")
    if result.sweep is not None:
        sw = result.sweep
        lines.append(f"gain sweep ({sw.duration:g} s runs): settling time [s] (rows K scale, columns Gamma_pi "
                     + " ".join(f"{g:g}" for g in sw.Gamma_pi) + ")")
        for k, row in zip(sw.K_scales, sw.settling_time_s):
            lines.append(f"  K x{k:<5g} " + " ".join(f"{v:7.2f}" for v in row))
    lines.extend(result.notes)
    return "\n".join(lines)
