"""Graph searches on P_n / Q_n: deterministic BFS (hop count) and Dijkstra (edge weights).

* :func:`bfs_path` — the unweighted baseline of paper 000 (Cormen et al.), with a fixed
  tie-breaking rule: nodes are expanded in the order of their ``index`` attribute
  (2 (j - 1) + (a - 1), sinks last), and a node keeps the first parent that reaches it.
  Among the many equally short paths (760 in the F_27 example) this picks one, always the
  same.
* :func:`dijkstra_path` — the weighted search (networkx), on a weight function that may
  return ``inf`` (an edge removed by a hard constraint).
* :class:`NoPathError` — raised, with the reason, when the target cannot be reached
  (arm parity on a bipartite tile graph, or every path blocked by a hard constraint).
"""

from __future__ import annotations

import math
from collections import deque

import networkx as nx

__all__ = ["NoPathError", "bfs_path", "dijkstra_path", "path_cost", "count_shortest_paths"]


class NoPathError(ValueError):
    """No path from ``source`` to ``target`` (a ValueError: reported as bad input by the CLI)."""


def _check_nodes(graph, source, target):
    if not isinstance(graph, nx.DiGraph):
        raise TypeError(f"`graph` must be a networkx DiGraph; got {type(graph).__name__}")
    for name, node in (("source", source), ("target", target)):
        if node not in graph:
            raise ValueError(f"`{name}` {node!r} is not a node of graph {graph.graph.get('name', '')!r}")


def _order(graph, node):
    return graph.nodes[node].get("index", 0)


def bfs_path(graph: nx.DiGraph, source, target) -> list:
    """Minimum-hop path (node list) with deterministic tie-breaking (module docstring)."""
    _check_nodes(graph, source, target)
    parent = {source: None}
    queue = deque([source])
    while queue:
        u = queue.popleft()
        if u == target:
            break
        for v in sorted(graph.successors(u), key=lambda x: _order(graph, x)):
            if v not in parent:
                parent[v] = u
                queue.append(v)
    if target not in parent:
        raise NoPathError(f"no path from {source!r} to {target!r} in graph {graph.graph.get('name', '')!r} "
                          "(every walk swaps the docked leg: the target's leg may be unreachable)")
    path = [target]
    while parent[path[-1]] is not None:
        path.append(parent[path[-1]])
    return path[::-1]


def dijkstra_path(graph: nx.DiGraph, source, target, weight) -> list:
    """Least-cost path for ``weight(u, v, data) -> float >= 0`` (``inf`` removes the edge)."""
    _check_nodes(graph, source, target)

    def w(u, v, data):
        c = weight(u, v, data)
        if c < 0 or math.isnan(c):
            raise ValueError(f"edge weights must be >= 0 (Dijkstra); got {c!r} on {u!r} -> {v!r}")
        return None if math.isinf(c) else c      # networkx: None hides the edge

    try:
        return nx.dijkstra_path(graph, source, target, weight=w)
    except nx.NetworkXNoPath:
        raise NoPathError(f"no path from {source!r} to {target!r} in graph {graph.graph.get('name', '')!r}: "
                          "unreachable, or every path contains an edge removed by the hard constraint") from None


def path_cost(graph: nx.DiGraph, path, weight) -> float:
    """Sum of ``weight(u, v, data)`` along ``path``."""
    return float(sum(weight(u, v, graph.edges[u, v]) for u, v in zip(path[:-1], path[1:])))


def count_shortest_paths(graph: nx.DiGraph, source, target) -> int:
    """Number of distinct minimum-hop paths (dynamic programming on BFS levels)."""
    _check_nodes(graph, source, target)
    dist = {source: 0}
    count = {source: 1}
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for v in graph.successors(u):
            if v not in dist:
                dist[v] = dist[u] + 1
                count[v] = 0
                queue.append(v)
            if dist[v] == dist[u] + 1:
                count[v] += count[u]
    return count.get(target, 0)
