"""`satdyn control`: robust LPV control of the two-link arm (paper arXiv:2109.00407 section 6.4, Fig. 7)."""

from __future__ import annotations

from ..plotting import plot_arm_control
from ..studies.arm_problem import ARM_STRUCTURES
from ..studies.control import (FULL_ITERATIONS, FULL_ROUNDS, GEOMETRIES, QUICK_ITERATIONS, QUICK_ROUNDS,
                               RETUNE_FRACTION, arm_control_study)
from . import output_folder, positive_float, positive_int, seed

HELP = ("robust LPV controller of the two-link arm under gravity (structured H-infinity tuning over the "
        "angle domain and five uncertain parameters, certified worst case, Fig. 7)")


def add_arguments(parser) -> None:
    parser.add_argument("--geometry", choices=GEOMETRIES, default="hanging",
                        help="zero configuration of the arm (paper Fig. 3 is missing; default hanging)")
    parser.add_argument("--quick", action="store_true",
                        help="reduced run (< 1 min): nominal training grid, small budgets, coarse certification")
    parser.add_argument("--iterations", type=positive_int, default=None, metavar="N",
                        help=f"BFGS iterations of the first tune of each phase; later rounds re-tune with "
                             f"{RETUNE_FRACTION:g} of it (default {QUICK_ITERATIONS} quick, {FULL_ITERATIONS} full). "
                             "Budgets are counts: the same command gives the same numbers on any load")
    parser.add_argument("--rounds", type=positive_int, default=None, metavar="N",
                        help=f"maximum robust rounds per phase (default {QUICK_ROUNDS} quick, {FULL_ROUNDS} full)")
    parser.add_argument("--time-limit", type=positive_float, default=None, metavar="S",
                        help="optional wall-clock safety limit [s]: stops the run early and says so "
                             "(the numbers then depend on the machine); default none")
    parser.add_argument("--starts", type=seed, default=None, metavar="N", help="random starts of the first tune")
    parser.add_argument("--hard-margin", type=positive_float, default=0.9, metavar="M",
                        help="training bound of the hard goal (default 0.9)")
    parser.add_argument("--wcgain", type=int, choices=(0, 1), default=None, metavar="N",
                        help="skew-mu worst-case-gain certificates (0 or 1; default 1 full, 0 quick)")
    parser.add_argument("--checkpoint", type=output_folder, default=None, metavar="DIR",
                        help="folder of resumable robust-loop checkpoints (created if missing; a corrupted "
                             "checkpoint in it is an error naming the file)")
    parser.add_argument("--add", type=positive_int, default=6, metavar="N",
                        help="worst-case points added to the training set per robust round (default 6)")
    parser.add_argument("--structure", choices=ARM_STRUCTURES, default="tridiag",
                        help="controller structure: tridiagonal A (default) or two integrators + one tuned pole")
    parser.add_argument("--seed", type=seed, default=0, help="random seed of the starts (default 0)")


def run(args):
    # every option is validated by its argparse type before this runs
    return arm_control_study(args.geometry, quick=args.quick, iterations=args.iterations, time_limit_s=args.time_limit,
                             hard_margin=args.hard_margin, rounds=args.rounds, starts=args.starts,
                             wcgain_points=args.wcgain, seed=args.seed, checkpoint_dir=args.checkpoint,
                             structure=args.structure, add_per_round=args.add)


def figures(result):
    return plot_arm_control(result)


def summary(result) -> str:
    w1 = ", ".join(f"{k}={v:.3g}" for k, v in result.gamma1_where.items())
    lines = [
        f"two-link arm, {result.geometry} geometry, {result.mode} run, design from phase '{result.phase}' "
        f"({result.time_s:.0f} s wall, {result.cpu_time_s:.0f} s CPU, load {result.load_average:.1f}), "
        f"structure {result.structure}, budgets {result.iterations}/{result.retune_iterations} BFGS iterations "
        f"(first tune / re-tune), {result.rounds} rounds per phase",
        f"certified worst case over {result.certification_points} scenarios (+ local search): "
        f"gamma1 = {result.gamma1:.3f} (hard, <= 1 {'met' if result.hard_satisfied else 'NOT met'}), "
        f"gamma2 = {result.gamma2:.3f}; paper: gamma1 = {result.paper_gamma1}, gamma2 = {result.paper_gamma2}",
        f"gamma1 worst at {w1}, {result.gamma1_frequency:.3g} rad/s",
    ]
    for d in result.designs:
        mu = (f" (skew-mu bounds [{d['gamma1_mu_lower']:.3f}, {d['gamma1_mu_upper']:.3f}])"
              if "gamma1_mu_upper" in d else "")
        lines.append(f"  certified design: {d['phase']}, round {d['round']}, {d['training_points']} training points, "
                     f"gamma1 = {d['gamma1']:.3f}{mu}, gamma2 = {d['gamma2']:.3f} at {d['time_s']:.0f} s")
    for wc in result.wcgain:
        lines.append(f"skew-mu worst-case gain of the hard goal at {wc['values']}: "
                     f"[{wc['lower']:.3f}, {wc['upper']:.3f}]")
    if result.stopped_early:
        lines.append(f"STOPPED EARLY: {result.stopped_early}")
    return "\n".join(lines)
