"""`satdyn equilibrium`: the LFT arm model against numerical trim + linearisation (Figs. 5-6)."""

from __future__ import annotations

import argparse
import math

import numpy as np

from .. import runtime

from ..plotting import plot_equilibrium_study
from ..studies.equilibrium import GEOMETRIES, equilibrium_study
from . import bounded_float, bounded_int, seed

MAX_SAMPLES = 100_000
"""Cap of ``--samples`` (over 300 x the default): each sample is one evaluation of the LFT model,
batched in memory."""

# the error map runs one numerical trim + linearisation per grid point: a 1 deg step is already
# 341 x 341 = 116281 of them (95 x the default's work); a finer step only multiplies hours
_STEP_WHY = "1 deg: 341 x 341 trim + linearisation points, 95 x the default's work"

HELP = ("two-link arm under gravity: one LFT model for every configuration vs numerical trim + "
        "linearisation at each (error map, singular values with uncertain samples)")


def add_arguments(parser) -> None:
    parser.add_argument("--geometry", choices=GEOMETRIES, default="hanging",
                        help="zero configuration of the arm (paper Fig. 3 is missing; default hanging)")
    parser.add_argument("--g0", type=_g0, default=None, metavar="G",
                        help="gravity [m/s^2], in (0, 1000], or 'paper' (9.81, default) / 'standard' (9.80665)")
    parser.add_argument("--step", type=bounded_float(1.0, 170.0, "deg", _STEP_WHY), default=10.0, metavar="DEG",
                        help="grid step of the (theta1, theta2) error map over [-170, 170] deg, in [1, 170] "
                             "(default 10)")
    parser.add_argument("--samples", type=bounded_int(1, MAX_SAMPLES, "the cap on uncertain samples"), default=300,
                        metavar="N", help=f"uncertain samples at (70, 30) deg, at most {MAX_SAMPLES} (default 300)")
    parser.add_argument("--option", choices=("A", "B"), default="B", help="assembly route (default B)")
    parser.add_argument("--seed", type=seed, default=0, help="seed of the uncertain samples, >= 0 (default 0)")


def _g0(text):
    if text in ("paper", "standard"):
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number [m/s^2] or 'paper'/'standard'; got {text!r}") from None
    if not (math.isfinite(value) and 0 < value <= 1000.0):
        # up to 100 g, a documented sane range: 1e300 m/s^2 overflows the gravity terms of the model
        raise argparse.ArgumentTypeError(f"expected a gravity in (0, 1000] m/s^2; got {text!r}")
    return value


def run(args):
    bar = None

    def progress(done, total):
        nonlocal bar
        if bar is None:
            bar = runtime.progress(total=total, desc="trim + linearisation", unit="config")
        bar.update(done - bar.n)

    try:
        return equilibrium_study(args.geometry, args.g0, grid_step_deg=args.step, n_samples=args.samples,
                                 option=args.option, seed=args.seed, progress=progress)
    finally:
        if bar is not None:
            bar.close()


def figures(result):
    return plot_equilibrium_study(result)


def summary(result) -> str:
    err = result.relative_error
    i2, i1 = np.unravel_index(np.nanargmax(err), err.shape)
    blocks = ", ".join(f"{k}:{v}" for k, v in result.lfr_blocks.items())
    n = result.theta1_deg.size * result.theta2_deg.size
    lines = [
        f"two-link arm, {result.geometry}, g0 = {result.g0:g} m/s^2, option {result.option}",
        f"LFT model: 4 states, Delta of size {result.lfr_ndelta} ({blocks}); built in {result.build_seconds:.2f} s",
        f"{n} configurations: LFT batch {result.lfr_seconds:.3f} s, numerical trim + linearisation "
        f"{result.comparator_seconds:.2f} s",
        f"relative error ||(G1-G2)G2^-1||_inf: max {err.max():.2e} at ({result.theta1_deg[i1]:g}, "
        f"{result.theta2_deg[i2]:g}) deg; where sigma_min(K) > {result.stiffness_threshold:g} N m/rad: "
        f"{result.max_error_stiff:.2e}",
        f"sigma(G(j{result.frequencies[0]:g})) at ({result.fig6_point_deg[0]:g}, {result.fig6_point_deg[1]:g}) deg: "
        "nominal "
        f"{result.sigma_nominal[0, 0]:.4f} / {result.sigma_nominal[0, 1]:.4f}, "
        f"{result.sigma_samples.shape[0]} samples {result.sigma_samples[:, 0, 0].min():.4f}..."
        f"{result.sigma_samples[:, 0, 0].max():.4f}",
    ]
    return "\n".join(lines)
