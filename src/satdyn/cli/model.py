"""`satdyn model FILE`: build a user's model file and show it -- summary, singular values with
uncertain samples and, when the file names a controller, closed-loop robust analysis."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ..plotting.uncertain import plot_loop_margins, plot_uncertain_sigma
from ..runtime import is_quiet
from ..studies.model import model_study
from . import bounded_int, finite_float, input_file, seed

MAX_SAMPLES = 100_000
"""Cap of ``--samples`` (5000 x the default): each sample is a frequency response of the model on a
160-point grid (and a margin analysis with a controller), batched in memory."""

MAX_GRID = 100
"""Cap of ``--grid``: the closed-loop analyses run once per point of a grid of ``N ** k`` points
(k varying parameters); 100 points per parameter already resolve any drive angle to 3.6 deg."""

HELP = ("a model file (YAML/JSON: bodies, joints, modal data, parameters, ports): mass properties, modes "
        "with effective masses, Delta channels, singular values over the uncertainty and, with a "
        "controller, robust stability, worst-case pointing and loop margins")


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", type=input_file,
                        help="model file (.yaml, .yml or .json; format: docs/io.md)")
    parser.add_argument("--samples", type=bounded_int(0, MAX_SAMPLES, "the cap on uncertain samples"), default=20,
                        metavar="N", help=f"uncertain samples for the singular values and margins, at most "
                                          f"{MAX_SAMPLES} (default 20)")
    parser.add_argument("--grid", type=bounded_int(1, MAX_GRID, "the cap on grid points per parameter"), default=1,
                        metavar="N", help=f"points per varying parameter in the closed-loop robust analyses, at "
                                          f"most {MAX_GRID} (default 1: the nominal value)")
    parser.add_argument("--at", type=_name_value, action="append", default=[], metavar="NAME=VALUE",
                        help="value of a varying parameter (physical units, angles in rad) for the "
                             "singular values, margins and the closed loop; repeat for several")
    parser.add_argument("--seed", type=seed, default=0, help="random seed, >= 0 (default 0)")


def run(args):
    step = [0]

    def progress(message):
        step[0] += 1
        if not is_quiet():  # --quiet (added by the CLI frame) or SATDYN_QUIET
            print(f"[{step[0]}] {message}", file=sys.stderr, flush=True)

    try:
        return model_study(str(args.file), n_samples=args.samples, seed=args.seed, grid=args.grid, at=dict(args.at),
                           progress=progress)
    except UnicodeDecodeError as exc:    # the reader names the file itself; this is the frame's safety net
        raise ValueError(f"{str(args.file)!r} is not UTF-8 text (byte {exc.start}: "
                         f"{exc.object[exc.start:exc.start + 1]!r})") from None
    except RecursionError:
        raise ValueError(f"{str(args.file)!r} is nested too deeply to be a model file") from None


def _name_value(text: str) -> tuple[str, float]:
    """Option type of ``--at``: ``NAME=VALUE`` with a finite number."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE; got {text!r}")
    try:
        return name.strip(), finite_float(value.strip())
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE with a finite number; got {text!r}") from None


def figures(result):
    figs = {}
    figs["sigma_main_channel"] = plot_uncertain_sigma(result.sigma)["sigma"]
    if result.pointing is not None:
        fig = plot_uncertain_sigma(result.pointing)["sigma"]
        fig.axes[0].set_title("closed loop: disturbance torque -> attitude")
        figs["sigma_pointing"] = fig
    if result.margins is not None:
        figs["loop_margins"] = plot_loop_margins(result.margins)["loop_margins"]
    return figs


def _first(result_or_grid):
    """The result of a robust analysis, or the worst one over a grid of varying parameters."""
    results = getattr(result_or_grid, "results", None)
    if results is None:
        return result_or_grid, None
    return results, result_or_grid.grid_values


def summary(result) -> str:
    lines = [f"model {result.name!r} ({result.file})" + (" -- SYNTHETIC data" if result.synthetic else "")]
    if np.isfinite(result.mass):
        J = result.inertia
        lines.append(f"mass {result.mass:.6g} kg; CoM {np.array2string(result.com, precision=4)} m from {result.port}; "
                     f"inertia at CoM diag {np.array2string(np.diag(J), precision=5)} kg m^2")
    else:
        lines.append(f"mass properties at {result.port}: not static (free joint or no port mass matrix)")
    for body, m in result.appendage_modes.items():
        eff = m["effective_masses"][:, :3].sum(axis=1) / m["body_mass"]
        modes = ", ".join(f"{f:.3g} Hz ({100 * e:.0f} %)" for f, e in zip(m["frequencies_hz"], eff))
        lines.append(f"  {body}: modes {modes}  [translational effective mass / body mass]")
    if result.system_modes_hz.size:
        lines.append("system modes (nominal): " + ", ".join(f"{f:.4g}" for f in result.system_modes_hz[:8]) + " Hz")
    total = sum(c["occurrences"] for c in result.delta_channels.values())
    lines.append(f"{result.n_states} states, {total} Delta channels: " +
                 ", ".join(f"{k} x{c['occurrences']} ({c['kind']})" for k, c in result.delta_channels.items()))
    wc = result.sigma.worst_case_upper
    if wc is not None:
        lines.append(f"main channel peak gain: nominal {result.sigma.nominal_sv[:, 0].max():.4g}, "
                     f"worst case <= {np.max(wc):.4g}")
    if result.closed_loop is not None:
        rs, grid = _first(result.closed_loop["robust_stability"])
        wcg, _ = _first(result.closed_loop["worst_case_gain"])
        rs_list = rs if isinstance(rs, tuple) else (rs,)
        wc_list = wcg if isinstance(wcg, tuple) else (wcg,)
        lines.append("closed loop: robust stability margin in "
                     f"[{min(r.lower for r in rs_list):.4g}, {min(r.upper for r in rs_list):.4g}] (1 = the stated "
                     "ranges)")
        lines.append(f"worst-case pointing gain {result.closed_loop['channel']}: "
                     f"[{max(r.lower for r in wc_list):.4g}, {max(r.upper for r in wc_list):.4g}] rad/(N m)")
        w = result.margins.worst
        lines.append(f"loop margins at the plant input (worst over samples): disk {w['disk_input']:.3g} "
                     f"(multiloop {w['multiloop_disk_input']:.3g}), phase {w['phase_margin_input']:.3g} deg")
    return "\n".join(lines)
