"""Assembly path planning studies: the F_27 walk example and the whole 28-tile assembly.

Paper 000 (arXiv:2409.06017) section 3.2, Algorithm 1: every edge of the pick/assemble
graphs is weighted by the sum, over its 2z = 14 frozen closed loops, of one metric
(:mod:`satdyn.missions.assembly.costs`); Dijkstra then gives the weighted path and BFS the minimum-hop baseline;
"the unweighted path is X % higher" is (J_BFS - J_Dijkstra) / J_Dijkstra.

* :func:`walk_example` — F_27 carrying the last tile (the walking edges of Q_27), from
  tile 2 docked by R1 to tile 27 docked by R2 (7 moves, 98 grid points);
* :func:`full_assembly` — the sequential plan P_1 -> Q_1 -> P_2 -> ... -> Q_27 from tile 1
  docked by R1, each phase planned on its own (the paper's greedy chaining), once with BFS
  and once with Dijkstra per cost.

The paper's percentages are reported beside ours (``PAPER``), never asserted: our FE
structures, arm geometry and reach poses are reconstructions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from ..missions.assembly.costs import COST_LABELS, COSTS, edge_cost, sensitivity_margins
from ..missions.assembly.evaluation import HalfEdgeEvaluator
from ..missions.assembly.execution import CONNECT_TIMEOUT, check_scheduler, evaluate_halves
from ..missions.assembly.graphs import SLOT, STACK, assemble_graph, is_sink, pick_graph
from ..missions.assembly.layout import LAYOUTS, tile_layout
from ..missions.assembly.models import NodeModelProvider
from ..missions.assembly.search import NoPathError, bfs_path, dijkstra_path

__all__ = ["PAPER", "PathResult", "CostComparison", "AssemblyStudy", "walk_example", "full_assembly",
           "path_trace", "percent_higher",
           # the vocabulary of the study's options, re-exported for the CLI (defined in satdyn.missions.assembly)
           "COSTS", "LAYOUTS", "HalfEdgeEvaluator", "NodeModelProvider", "CONNECT_TIMEOUT", "check_scheduler"]

PAPER = {
    "example": {"hinf_wrench": 11.5, "h2_wrench": 32.7, "hinf_sensitivity": 2.2, "mu": 4.3},
    "full": {"hinf_wrench": 12.0},
    "mu_max_weighted": 0.2,
}


@dataclass(frozen=True)
class PathResult:
    """One planned path (or plan: concatenated phases).

    Attributes
    ----------
    nodes : list of list   node sequence of each phase (one phase for a walk)
    graphs : list of str   graph of each phase ("Q27", "P1", ...)
    hops : int             number of edges
    trace : ndarray (14 hops,)   the metric at every grid point, in path order
    cumulative : float     sum of ``trace`` (= sum of the edge weights)
    """

    nodes: list
    graphs: list
    hops: int
    trace: np.ndarray
    cumulative: float


@dataclass(frozen=True)
class CostComparison:
    """BFS against Dijkstra for one cost.

    Attributes
    ----------
    cost, label : str
    bfs, weighted : PathResult or None (None: no path, see ``message``)
    percent_higher : float        (J_BFS - J_W) / J_W x 100
    paper_percent : float or None the paper's number for the same comparison
    min_hop_range : (float, float) or None   min and max cumulative cost over every
                                  minimum-hop path (the BFS figure depends on tie-breaking)
    threshold : float or None     hard constraint used
    extras : dict                 cost-specific numbers (max mu, margins)
    message : str
    """

    cost: str
    label: str
    bfs: PathResult | None
    weighted: PathResult | None
    percent_higher: float
    paper_percent: float | None
    min_hop_range: tuple | None = None
    threshold: float | None = None
    extras: dict = field(default_factory=dict)
    message: str = ""


@dataclass(frozen=True)
class AssemblyStudy:
    """Result of :func:`walk_example` or :func:`full_assembly` (all four costs, or a subset)."""

    mode: str
    layout: str
    start: tuple
    target: object
    comparisons: dict
    design_inertia: np.ndarray
    edges_evaluated: int
    closed_loops: int
    evaluation: dict
    seconds: float
    paper: dict = field(default_factory=lambda: dict(PAPER))
    centres: np.ndarray | None = None
    stack: np.ndarray | None = None
    sigma: dict = field(default_factory=dict)


def percent_higher(j_bfs: float, j_weighted: float) -> float:
    """(J_BFS - J_W) / J_W in per cent."""
    return float(100.0 * (j_bfs - j_weighted) / j_weighted) if j_weighted > 0 else float("nan")


def _edge_trace(graph, u, v, metrics, cost):
    h1, h2 = graph.edges[u, v]["spec"].halves
    return np.concatenate([metrics[h1].values[cost], metrics[h2].values[cost]])


def _weight(metrics, cost, threshold):
    def w(u, v, data):
        h1, h2 = data["spec"].halves
        return edge_cost(np.concatenate([metrics[h1].values[cost], metrics[h2].values[cost]]), threshold)
    return w


def path_trace(graph, path, metrics, cost) -> np.ndarray:
    """Per-grid-point metric along ``path`` (14 values per edge)."""
    parts = [_edge_trace(graph, u, v, metrics, cost) for u, v in zip(path[:-1], path[1:])]
    return np.concatenate(parts) if parts else np.zeros(0)


def _path_result(phases, metrics, cost) -> PathResult:
    traces = [path_trace(g, p, metrics, cost) for g, p in phases]
    trace = np.concatenate(traces) if traces else np.zeros(0)
    return PathResult([list(p) for _, p in phases], [g.graph["name"] for g, _ in phases],
                      sum(len(p) - 1 for _, p in phases), trace, float(trace.sum()))


def _halves(graphs, skip_sink_edges=False):
    out = []
    for g in graphs:
        for _u, v, d in g.edges(data=True):
            if skip_sink_edges and is_sink(v):
                continue
            out += list(d["spec"].halves)
    return out


def _extras(cost, metrics, phases_w):
    extras = {}
    if cost == "mu":
        tr = np.concatenate([path_trace(g, p, metrics, "mu") for g, p in phases_w]) if phases_w else np.zeros(0)
        extras["max_mu_weighted"] = float(tr.max()) if tr.size else float("nan")
    if cost == "hinf_sensitivity" and phases_w:
        tr = np.concatenate([path_trace(g, p, metrics, cost) for g, p in phases_w])
        m = sensitivity_margins(tr[np.isfinite(tr)].max())
        extras.update({k: float(v) for k, v in m.items()})
    return extras


def _evaluate(evaluator, graphs, workers, scheduler, cache_dir, skip_sink_edges):
    halves = _halves(graphs, skip_sink_edges)
    metrics, stats = evaluate_halves(evaluator, halves, workers=workers, scheduler=scheduler, cache_dir=cache_dir)
    edges = sum(1 for g in graphs for u, v in g.edges if not (skip_sink_edges and is_sink(v)))
    return metrics, stats, edges


def _evaluator(evaluator, costs, layout):
    """The evaluator of a study: a new one on ``layout``'s models, or the given one if its
    models use the same layout (graphs and models must place every tile alike)."""
    if evaluator is None:
        return HalfEdgeEvaluator(models=NodeModelProvider(layout=layout), costs=costs)
    if not isinstance(evaluator, HalfEdgeEvaluator):
        raise TypeError(f"`evaluator` must be a HalfEdgeEvaluator or None; got {type(evaluator).__name__}")
    model_layout = getattr(evaluator.models, "layout", None)
    if model_layout != layout:
        raise ValueError(f"`layout` {layout!r} differs from the layout of the evaluator's models "
                         f"({model_layout!r}): the graphs and the models must place every tile alike; build the "
                         f"evaluator with NodeModelProvider(layout={layout!r})")
    return evaluator


def _check_costs(costs):
    costs = tuple(costs)
    bad = [c for c in costs if c not in COSTS]
    if bad or not costs:
        raise ValueError(f"`costs` must be a non-empty subset of {COSTS}; got {list(costs)}")
    return costs


def walk_example(evaluator: HalfEdgeEvaluator | None = None, *, costs=COSTS, n: int = 27, start=(2, 1),
                 target=(27, 2), layout: str = "B", workers: int = 1, scheduler=None, cache_dir=None,
                 thresholds: dict | None = None, enumerate_min_hop: bool = True,
                 sigma_points: int = 0) -> AssemblyStudy:
    """The F_n walk example (default: the paper's F_27, tile 2 on R1 -> tile 27 on R2).

    The walking edges of the assemble graph Q_n (a tile is carried) are weighted per cost;
    BFS and Dijkstra paths, per-grid-point traces and cumulative costs are compared.
    ``layout`` ("B" or "A") places the tiles for the graph and the models alike (a given
    ``evaluator`` must model the same layout).
    ``thresholds`` {cost: value}: hard constraints (a grid point above it removes the edge).
    ``sigma_points`` > 0: also sample sigma_max(W -> omega'_G) of every grid point of both
    H-infinity paths on that many log-spaced frequencies in [1e-3, 1e3] rad/s (Fig. 11).
    """
    t0 = time.perf_counter()
    costs = _check_costs(costs)
    lay = tile_layout(layout)
    evaluator = _evaluator(evaluator, costs, layout)
    g = assemble_graph(lay, n)
    g.remove_node(SLOT)                        # a walk: the place edges are not used
    for name, node in (("start", start), ("target", target)):
        if node not in g or is_sink(node):
            raise ValueError(f"`{name}` must be a tile node (tile, arm) of F_{n}; got {node!r}")
    thresholds = dict(thresholds or {})
    metrics, stats, edges = _evaluate(evaluator, [g], workers, scheduler, cache_dir, False)
    comparisons = {}
    bfs = bfs_path(g, start, target)
    min_hop = list(nx.all_simple_paths(g, start, target, cutoff=len(bfs) - 1)) if enumerate_min_hop else []
    min_hop = [p for p in min_hop if len(p) == len(bfs)]
    for cost in costs:
        thr = thresholds.get(cost)
        w = _weight(metrics, cost, thr)
        b = _path_result([(g, bfs)], metrics, cost)
        try:
            p = dijkstra_path(g, start, target, w)
            wr, msg = _path_result([(g, p)], metrics, cost), ""
            pct = percent_higher(b.cumulative, wr.cumulative)
        except NoPathError as exc:
            wr, msg, pct = None, str(exc), float("nan")
        rng = None
        if min_hop:
            vals = [float(path_trace(g, q, metrics, cost).sum()) for q in min_hop]
            rng = (min(vals), max(vals))
        comparisons[cost] = CostComparison(cost, COST_LABELS[cost], b, wr, pct, PAPER["example"].get(cost), rng, thr,
                                           _extras(cost, metrics, [(g, wr.nodes[0])] if wr else []), msg)
    ctl = evaluator.get_controller()
    sigma = {}
    if sigma_points and "hinf_wrench" in comparisons and comparisons["hinf_wrench"].weighted is not None:
        omega = np.geomspace(1e-3, 1e3, int(sigma_points))
        sigma["omega"] = omega
        for name in ("bfs", "weighted"):
            nodes = getattr(comparisons["hinf_wrench"], name).nodes[0]
            halves = [h for u, v in zip(nodes[:-1], nodes[1:]) for h in g.edges[u, v]["spec"].halves]
            sigma[name] = evaluator.sigma_max(halves, omega)
    return AssemblyStudy("example", layout, start, target, comparisons, ctl.inertia, edges, 14 * edges,
                         {"halves": stats.halves, "cached": stats.cached, "computed": stats.computed,
                          "tasks": stats.tasks, "engine": stats.engine, "min_hop_paths": len(min_hop)},
                         time.perf_counter() - t0, centres=lay.centres, stack=lay.stack, sigma=sigma)


def _sequential(graphs, weight, start):
    """Greedy chaining P_1 -> Q_1 -> ... ; ``weight`` None: BFS.  Returns [(graph, path)]."""
    node, phases = start, []
    for P, Q in graphs:
        for g, sink in ((P, STACK), (Q, SLOT)):
            p = bfs_path(g, node, sink) if weight is None else dijkstra_path(g, node, sink, weight)
            phases.append((g, p))
            node = p[-2]              # the robot stays where it picked / placed
    return phases


def full_assembly(evaluator: HalfEdgeEvaluator | None = None, *, costs=COSTS, layout: str = "B",
                  workers: int = 1, scheduler=None, cache_dir=None, last: int | None = None,
                  thresholds: dict | None = None) -> AssemblyStudy:
    """The whole assembly: P_n then Q_n for n = 1..last (default N - 1 = 27), from (1, R1).

    ``layout`` places the tiles for the graphs and the models alike (see :func:`walk_example`)."""
    t0 = time.perf_counter()
    costs = _check_costs(costs)
    lay = tile_layout(layout)
    evaluator = _evaluator(evaluator, costs, layout)
    last = lay.n_tiles - 1 if last is None else last
    if isinstance(last, bool) or not isinstance(last, int) or not 1 <= last <= lay.n_tiles - 1:
        raise ValueError(f"`last` must be an integer in 1..{lay.n_tiles - 1}; got {last!r}")
    graphs = [(pick_graph(lay, n), assemble_graph(lay, n)) for n in range(1, last + 1)]
    flat = [g for pair in graphs for g in pair]
    metrics, stats, edges = _evaluate(evaluator, flat, workers, scheduler, cache_dir, False)
    thresholds = dict(thresholds or {})
    start = (1, 1)
    bfs_phases = _sequential(graphs, None, start)
    comparisons = {}
    for cost in costs:
        thr = thresholds.get(cost)
        b = _path_result(bfs_phases, metrics, cost)
        try:
            ph = _sequential(graphs, _weight(metrics, cost, thr), start)
            wr, msg = _path_result(ph, metrics, cost), ""
            pct = percent_higher(b.cumulative, wr.cumulative)
        except NoPathError as exc:
            ph, wr, msg, pct = [], None, str(exc), float("nan")
        comparisons[cost] = CostComparison(cost, COST_LABELS[cost], b, wr, pct, PAPER["full"].get(cost), None, thr,
                                           _extras(cost, metrics, ph), msg)
    ctl = evaluator.get_controller()
    return AssemblyStudy("full", layout, start, f"tile {last + 1} placed", comparisons, ctl.inertia, edges,
                         14 * edges, {"halves": stats.halves, "cached": stats.cached, "computed": stats.computed,
                                      "tasks": stats.tasks, "engine": stats.engine},
                         time.perf_counter() - t0, centres=lay.centres, stack=lay.stack)
