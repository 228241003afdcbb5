"""satdyn.missions.assembly: path planning of the on-orbit assembly of a large flexible structure.

Paper 000 (arXiv:2409.06017) section 3: a three-arm walking robot builds a 28-tile
structure next to a spacecraft; pick and assemble graphs (:mod:`.graphs`) are weighted by
closed-loop metrics of the whole spacecraft frozen along every move (:mod:`.models`,
:mod:`.closedloop`, :mod:`.costs`); the studies comparing Dijkstra with BFS live in
:mod:`satdyn.studies.assembly`.
See docs/assembly.md.
"""

from .costs import COST_LABELS, COSTS
from .evaluation import DESIGN_CONFIGURATION, HalfEdgeEvaluator, HalfMetrics
from .execution import CacheWarning, EvaluationStats, SchedulerUnreachableError, evaluate_halves
from .graphs import SLOT, STACK, EdgeSpec, HalfEdge, assemble_graph, assembly_graphs, edge_counts, pick_graph
from .layout import TileLayout, tile_layout
from .models import NodeModelProvider, fe_family
from .poses import PoseProvider, quintic, reach_pose_table, waypoint_fractions
from .search import NoPathError, bfs_path, count_shortest_paths, dijkstra_path

__all__ = [
    "COSTS", "COST_LABELS",
    "TileLayout", "tile_layout", "HalfEdge", "EdgeSpec", "STACK", "SLOT",
    "pick_graph", "assemble_graph", "assembly_graphs", "edge_counts",
    "bfs_path", "dijkstra_path", "count_shortest_paths", "NoPathError",
    "PoseProvider", "quintic", "waypoint_fractions", "reach_pose_table",
    "NodeModelProvider", "fe_family", "HalfEdgeEvaluator", "HalfMetrics", "DESIGN_CONFIGURATION",
    "evaluate_halves", "EvaluationStats", "CacheWarning", "SchedulerUnreachableError",
]
