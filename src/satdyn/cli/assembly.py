"""`satdyn assembly`: path planning of the on-orbit assembly with H-inf/H2/mu edge costs (paper 000, Figs. 11-17)."""

from __future__ import annotations

import math
import os
from pathlib import Path

from ..plotting.assembly import plot_assembly
from ..studies.assembly import (CONNECT_TIMEOUT, COSTS, LAYOUTS, PAPER, HalfEdgeEvaluator, NodeModelProvider,
                                check_scheduler, full_assembly, walk_example)
from . import folder
from . import workers as workers_option

HELP = ("on-orbit assembly by a walking robot (arXiv:2409.06017 section 3): BFS vs Dijkstra over the "
        "pick/assemble graphs with H-inf, H2, input-sensitivity and mu edge costs")


def add_arguments(parser) -> None:
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--example", action="store_true",
                      help="the F_27 walk, tile 2 on R1 -> tile 27 on R2 (default)")
    mode.add_argument("--full", action="store_true", help="the whole 28-tile plan, P_n then Q_n for n = 1..27")
    parser.add_argument("--last", type=int, default=None, metavar="N",
                        help="with --full: stop after placing tile N+1 (default 27: the whole assembly)")
    parser.add_argument("--cost", action="append", choices=COSTS + ("all",), default=None,
                        help="edge cost (repeatable; default all four)")
    parser.add_argument("--workers", type=workers_option, default=None, metavar="N",
                        help="local worker processes (default: the number of CPUs; not with --scheduler)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="run the edge costs on this Dask cluster (tcp://host:port) instead; checked first "
                             f"(unreachable within {SCHEDULER_TIMEOUT:g} s: error)")
    parser.add_argument("--cache", type=folder, default=None, metavar="DIR",
                        help="on-disk cache of edge metrics (default: <out>/cache; an interrupted run resumes)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    parser.add_argument("--hard", action="append", default=[], metavar="COST=VALUE",
                        help="hard constraint: a grid point above VALUE removes the edge (linear units, "
                             "or decibels with a 'dB' suffix, e.g. hinf_wrench=-12dB; mu=1 forbids mu > 1)")
    parser.add_argument("--layout", choices=LAYOUTS, default="B",
                        help="tile assembly order, for the graphs and the models alike (default B)")


SCHEDULER_TIMEOUT = CONNECT_TIMEOUT      # seconds to reach a --scheduler address (as the study itself)


def _thresholds(items):
    """{cost: threshold in linear units} from COST=VALUE items; a value that would switch the
    constraint off (nan, inf) or that no metric can meet (<= 0) is refused."""
    out = {}
    for item in items:
        name, _, value = item.partition("=")
        if name not in COSTS:
            raise ValueError(f"--hard must be COST=VALUE with COST in {COSTS}; got {item!r}")
        if name in out:
            raise ValueError(f"--hard {item!r}: {name} is constrained twice; give one value")
        text = value.strip()
        db = text.lower().endswith("db")
        try:
            number = float(text[:-2] if db else text)
        except ValueError:
            raise ValueError(f"--hard {item!r}: VALUE must be a number (optionally with a dB suffix)") from None
        linear = 10.0 ** (number / 20.0) if db and math.isfinite(number) else number
        if not (math.isfinite(number) and math.isfinite(linear) and linear > 0):
            raise ValueError(f"--hard {item!r}: VALUE must be a finite positive number in linear units or a finite "
                             "number of dB (nan or inf would switch the constraint off)")
        out[name] = linear
    return out


def check(args) -> None:
    """Refuse options that would be ignored or cannot work, before any computation."""
    if args.last is not None and not args.full:
        raise ValueError("--last applies only to --full")
    if args.cache is not None and args.no_cache:
        raise ValueError("--cache and --no-cache contradict each other; give one")
    if args.scheduler is not None and args.workers is not None:
        raise ValueError("--workers applies to the local pool only; with --scheduler the Dask cluster's workers "
                         "run the edge costs")
    _thresholds(args.hard)
    if args.scheduler is not None:
        check_scheduler(args.scheduler, SCHEDULER_TIMEOUT)


def run(args):
    costs = COSTS if not args.cost or "all" in args.cost else tuple(dict.fromkeys(args.cost))
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    cache = None
    if not args.no_cache:
        base = args.out if args.out is not None else Path("satdyn-out") / "assembly"
        cache = args.cache if args.cache is not None else base / "cache"
    evaluator = HalfEdgeEvaluator(models=NodeModelProvider(layout=args.layout), costs=costs)
    options = dict(costs=costs, layout=args.layout, workers=workers, scheduler=args.scheduler, cache_dir=cache,
                   thresholds=_thresholds(args.hard))

    if args.full:
        return full_assembly(evaluator, last=args.last, **options)
    return walk_example(evaluator, sigma_points=200, **options)


def figures(result):
    return plot_assembly(result)


def summary(result) -> str:
    what = ("F_27 walk (2, R1) -> (27, R2)" if result.mode == "example"
            else f"sequential assembly P_1, Q_1, ... until {result.target}")
    ev = result.evaluation
    lines = [f"{what}, layout {result.layout}: {result.edges_evaluated} edges, {result.closed_loops} frozen closed "
             f"loops ({ev['computed']} half-edges computed, {ev['cached']} from the cache, {ev['engine']}), "
             f"{result.seconds:.1f} s"]
    for c in result.comparisons.values():
        if c.weighted is None:
            lines.append(f"  {c.label}: {c.message}")
            continue
        paper = "" if c.paper_percent is None else f" (paper {c.paper_percent:g} %)"
        lines.append(f"  {c.label}: {c.bfs.hops} / {c.weighted.hops} moves, BFS {c.bfs.cumulative:.5g} vs weighted "
                     f"{c.weighted.cumulative:.5g}: BFS {c.percent_higher:+.2f} % higher{paper}")
        if "max_mu_weighted" in c.extras:
            lines.append(f"    max mu along the weighted path {c.extras['max_mu_weighted']:.4f} "
                         f"(paper {PAPER['mu_max_weighted']:g})")
        if "modulus_margin" in c.extras:
            lines.append(f"    worst grid point: modulus margin {c.extras['modulus_margin']:.3f}, phase margin >= "
                         f"{c.extras['phase_margin_deg']:.1f} deg")
    lines.append("Paper numbers are targets reported beside ours: our FE structures, arm geometry and reach poses "
                 "are reconstructions (docs/assembly.md).")
    return "\n".join(lines)
