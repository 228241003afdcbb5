"""`satdyn freefloating`: the paper's example maneuvers on the substitute systems P4S and S6S (Figs. 5-8)."""

from __future__ import annotations

import argparse
import os

import numpy as np

from ..plotting import plot_freefloating
from ..studies.freefloating import load_example, run_freefloating_study
from . import MAX_RECORDED_SAMPLES, SimulationProgress, check_size, json_file, nonnegative_float, positive_float

MIN_RTOL = 1e-13
"""Smallest ``--rtol``: DOP853 (scipy) raises anything below 100 x machine epsilon (2.2e-14) to that."""

HELP = ("free-floating spacecraft-manipulators (GJM): one-joint-at-a-time maneuvers of the substitute systems "
        "P4S and S6S, Figs. 5-8")


def add_arguments(parser) -> None:
    parser.add_argument("--systems", type=_system, nargs="+", default=["p4s", "s6s"], metavar="NAME",
                        help="example systems: p4s, s6s or JSON files of the same layout (default: p4s s6s)")
    parser.add_argument("--settle", type=nonnegative_float, default=None, metavar="S",
                        help="rest after the last joint cycle [s] (default: the data file's, 24 s)")
    parser.add_argument("--sample-dt", type=positive_float, default=0.1, metavar="S",
                        help=f"recording step [s] (default 0.1); at most {MAX_RECORDED_SAMPLES:.0e} recorded "
                             "samples per system (maneuver + settle over the step)")
    parser.add_argument("--rtol", type=_rtol, default=1e-10,
                        help=f"DOP853 relative tolerance, in [{MIN_RTOL:g}, 0.1] (default 1e-10; "
                             "atol = min(1e-12, rtol/100))")


def _rtol(text: str) -> float:
    value = positive_float(text)
    if not MIN_RTOL <= value <= 0.1:
        raise argparse.ArgumentTypeError(f"expected a relative tolerance in [{MIN_RTOL:g}, 0.1]; got {text!r}")
    return value


def _system(text: str) -> str:
    # a shipped name, or a JSON file (checked now: a malformed file is named before the run)
    # (os.path.exists, unlike Path.exists, answers False for a name too long to exist)
    if text.lower() in ("p4s", "s6s") or not (text.endswith(".json") or os.path.exists(text)):
        return text
    json_file(text)
    return text


def check(args) -> None:
    """Refuse a recording step or a settle time that would record more than
    :data:`~satdyn.cli.MAX_RECORDED_SAMPLES` samples of one system (the maneuver's length is the data's)."""
    for name in args.systems:
        command = load_example(name).command
        settle = command.settle if args.settle is None else args.settle
        horizon = command.duration - command.settle + settle
        option = "--sample-dt" if args.settle is None else "--settle / --sample-dt"
        check_size(option, horizon / args.sample_dt, MAX_RECORDED_SAMPLES,
                   f"recorded samples for {name} ({horizon:g} s every {args.sample_dt:g} s)")


def run(args):
    bars = SimulationProgress("simulate")
    try:
        return run_freefloating_study(args.systems, settle=args.settle, sample_dt=args.sample_dt, rtol=args.rtol,
                                      atol=min(1e-12, args.rtol * 1e-2), progress=bars)
    finally:
        bars.close()


def figures(result):
    return plot_freefloating(result)


def summary(result) -> str:
    lines = ["Substitute systems P4S and S6S (NOT the paper's unpublished Tables 3-6; Front. Robot. AI 5:41, 2018); "
             "floating mode, "
             "computed torque K_P = K_D = 1."]
    for run in result.runs:
        pose = run.final_base_pose
        lines.append(f"{run.name}: {run.simulation.t[-1]:.0f} s, max |P| {run.max_momentum_error['linear']:.1e} N s, "
                     f"max |L| {run.max_momentum_error['angular']:.1e} N m s, CoM drift {run.max_com_drift_m:.1e} m")
        lines.append("  final base Euler (phi, theta, psi) [deg] = "
                     + ", ".join(f"{x:+.5f}" for x in pose["euler_deg"])
                     + "; r0 [m] = " + ", ".join(f"{x:+.2e}" for x in pose["position_m"]))
        for c in run.cycles:
            rng = np.vstack([c.euler_min_deg, c.euler_max_deg])
            lines.append(f"  joint {c.joint}: psi {rng[0, 2]:+8.3f} .. {rng[1, 2]:+8.3f} deg, "
                         f"theta {rng[0, 1]:+8.3f} .. {rng[1, 1]:+8.3f} deg, psi(end) {c.euler_end_deg[2]:+.5f} deg")
    return "\n".join(lines)
