"""`satdyn demo`: the flagship study, the F_27 walk of the on-orbit assembly (arXiv:2409.06017
section 3: BFS vs Dijkstra under the four closed-loop costs, the same study as
`satdyn assembly --example`); `satdyn demo --hub-arrays`: hub + two flexible solar arrays with
PD attitude control and robust analysis; `satdyn demo --rigid`: composite inertia of a hub
with two rigid panels, two routes."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from ..plotting import plot_flagship, plot_rigid_spacecraft_inertia
from ..studies.assembly import AssemblyStudy
from ..studies.demo import (FlagshipResult, assembly_flagship_study, flagship_study, load_rigid_spacecraft,
                            rigid_spacecraft_inertia)
from . import assembly as assembly_cli
from . import bounded_float, bounded_int, finite_float, folder, json_file, seed, workers

HELP = ("on-orbit assembly by a walking robot (arXiv:2409.06017 section 3), the F_27 walk: BFS vs Dijkstra "
        "under H-infinity, H2, input-sensitivity and mu edge costs of the flexible spacecraft "
        "(--hub-arrays: hub + two flexible solar arrays with PD attitude control, robust stability margin and "
        "worst-case gain; --rigid: composite inertia of a rigid hub with two panels)")


_FLAGSHIP_OPTIONS = {"array_angle": "--array-angle", "bandwidth": "--bandwidth", "rolloff": "--rolloff",
                     "samples": "--samples", "seed": "--seed"}
_RIGID_OPTIONS = {"angles": "--angles", "scenario": "--scenario"}
_ASSEMBLY_OPTIONS = {"workers": "--workers"}
_STUDIES = {"assembly": ("the default flagship study (the F_27 assembly walk)", _ASSEMBLY_OPTIONS),
            "hub_arrays": ("--hub-arrays", _FLAGSHIP_OPTIONS), "rigid": ("--rigid", _RIGID_OPTIONS)}


MAX_SAMPLES = 10_000
"""Cap of ``--samples`` (50 x the default): each sample is a closed-loop frequency response on the
study's ~400-point grid, batched in memory."""

# the study's frequency grid spans 0.01-10 Hz; a controller far outside [1e-4, 100] Hz overflows
# its gains (w^2 J) or divides by a vanishing filter frequency
_frequency_hz = bounded_float(1e-4, 100.0, "Hz")


def _angle(text: str) -> float:
    value = finite_float(text)
    if abs(value) > 180.0:
        raise argparse.ArgumentTypeError(f"expected an angle in [-180, 180] deg; got {text!r}")
    return value


def add_arguments(parser) -> None:
    study = parser.add_mutually_exclusive_group()
    study.add_argument("--hub-arrays", action="store_true",
                       help="run the hub + two flexible solar arrays study (PD attitude control, robust analysis) "
                            "instead of the assembly flagship")
    study.add_argument("--rigid", action="store_true",
                       help="run the rigid composite-inertia study instead of the assembly flagship")
    parser.add_argument("--workers", type=workers, default=None, metavar="N",
                        help="assembly flagship: local worker processes (default: the number of CPUs, at most 4 x "
                             "that); edge metrics are cached in <out>/cache, so a second run reads them back")
    parser.add_argument("--array-angle", type=_angle, default=None, metavar="DEG",
                        help="--hub-arrays: drive angle of both solar arrays in degrees, in [-180, 180] (default 0)")
    parser.add_argument("--bandwidth", type=_frequency_hz, default=None, metavar="HZ",
                        help="--hub-arrays: attitude controller bandwidth in Hz, in [1e-4, 100] (default 0.02)")
    parser.add_argument("--rolloff", type=_frequency_hz, default=None, metavar="HZ",
                        help="--hub-arrays: corner frequency of the roll-off filter on the torque command in Hz, "
                             "in [1e-4, 100] (default 0.3)")
    parser.add_argument("--samples", type=bounded_int(1, MAX_SAMPLES, "the cap on uncertain samples"),
                        default=None, metavar="N",
                        help=f"--hub-arrays: uncertain samples for the singular values, at most {MAX_SAMPLES} "
                             "(default 200)")
    parser.add_argument("--seed", type=seed, default=None, help="--hub-arrays: random seed, >= 0 (default 0)")
    parser.add_argument("--angles", type=finite_float, nargs="+", metavar="DEG",
                        help="--rigid only: panel angles in degrees (default: the scenario's list, 0..180 by 15)")
    parser.add_argument("--scenario", type=json_file, metavar="FILE",
                        help="--rigid only: rigid spacecraft scenario (JSON, layout of "
                             "satdyn/data/demo_spacecraft.json)")


def _study(args) -> str:
    return "rigid" if args.rigid else ("hub_arrays" if args.hub_arrays else "assembly")


def _cache_dir(args) -> Path:
    """Edge-metric cache of the assembly flagship: ``<out>/cache``."""
    return (args.out if args.out is not None else Path("satdyn-out") / "demo") / "cache"


def check(args) -> None:
    """Refuse options the chosen study would ignore, and a cache path that cannot be a folder."""
    chosen = _study(args)
    if chosen == "assembly":
        try:
            folder(str(_cache_dir(args)))
        except argparse.ArgumentTypeError as exc:
            raise ValueError(f"--out: the edge-metric cache {exc}") from None
    for name, (mode, options) in _STUDIES.items():
        if name == chosen:
            continue
        for attribute, flag in options.items():
            if getattr(args, attribute) is not None:
                raise ValueError(f"{flag} applies only to {mode}")


def run(args):
    if args.rigid:
        spacecraft = load_rigid_spacecraft(args.scenario)
        angles = None if args.angles is None else np.deg2rad(args.angles)
        return rigid_spacecraft_inertia(spacecraft, angles)
    if not args.hub_arrays:
        return assembly_flagship_study(workers=args.workers, cache_dir=_cache_dir(args))
    defaults = {"array_angle": 0.0, "bandwidth": 0.02, "rolloff": 0.3, "samples": 200, "seed": 0}
    value = {k: (defaults[k] if getattr(args, k) is None else getattr(args, k)) for k in defaults}
    return flagship_study(array_angle_deg=value["array_angle"], bandwidth_hz=value["bandwidth"],
                          rolloff_hz=value["rolloff"], n_samples=value["samples"], seed=value["seed"])


def figures(result):
    if isinstance(result, AssemblyStudy):
        return assembly_cli.figures(result)
    if isinstance(result, FlagshipResult):
        return plot_flagship(result)
    return plot_rigid_spacecraft_inertia(result)


def summary(result) -> str:
    if isinstance(result, AssemblyStudy):
        return assembly_cli.summary(result)
    if isinstance(result, FlagshipResult):
        rs, wc = result.robust_stability, result.worst_case_gain
        hz = 1.0 / (2.0 * np.pi)
        def named(values):   # "array_plus_y.omega1" -> "array_plus_y f1" (the value is printed in Hz)
            return ", ".join(f"{k.replace('.omega', ' f')} = {v * hz:.4g} Hz" for k, v in values.items())

        rv, gv = named(rs.worst_case_values), named(wc.worst_case_values)
        box = ", ".join(f"{k.replace('.omega', ' f')} {nom:.3g} Hz +/-{result.percent:g} %"
                        for k, (nom, _, _) in result.uncertainty.items())
        gain = "(rad/s^2)/(N m)"
        return "\n".join([
            "hub + two flexible solar arrays (synthetic data), PD attitude control "
            f"(bandwidth {result.bandwidth_hz:g} Hz) with roll-off filter at {result.rolloff_hz:g} Hz, "
            f"array angle {result.array_angle_deg:g} deg",
            f"uncertain: {box}",
            "flexible modes of the nominal plant [Hz]: " + ", ".join(f"{m:.3f}" for m in result.modes_hz),
            f"closed loop, torque disturbance -> hub angular acceleration: nominal H-inf {result.hinf:.4g} {gain} "
            f"at {result.hinf_peak_hz:.3f} Hz",
            f"robust stability margin [{rs.lower:.3f}, {rs.upper:.3f}] x the box, i.e. stable while each first "
            f"array frequency stays within +/-{result.percent * rs.lower:.1f} % of nominal; unstable at {rv}",
            f"worst-case gain [{wc.lower:.4g}, {wc.upper:.4g}] {gain} ({wc.lower / wc.nominal_gain:.2f} x nominal) "
            f"at {wc.critical_frequency * hz:.3f} Hz, reached at {gv}",
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
