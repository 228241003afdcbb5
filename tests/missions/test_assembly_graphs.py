"""Pick/assemble graphs, edge counts and the graph searches (paper 000 section 3.1, Fig. 7).

The reference numbers are the paper's (M = 8672 edges over 56 graphs; 7 moves from tile 2 on
R1 to tile 27 on R2) and counts derived independently of the builder (the closed form
M = sum_n [8 E(n) + 2 #stack-neighbours + 2 #slot-neighbours] from the tile adjacency,
brute-force path enumeration, scipy.sparse.csgraph).  Exact integer comparisons: no
tolerance is involved.
"""

import itertools

import networkx as nx
import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

from satdyn.missions.assembly.graphs import (PICK, PLACE, SLOT, STACK, WALK, assemble_graph, assembly_graphs,
                                             edge_counts, pick_graph)
from satdyn.missions.assembly.layout import TileLayout, tile_layout
from satdyn.missions.assembly.search import (NoPathError, bfs_path, count_shortest_paths, dijkstra_path,
                                             path_cost)

# paper-derived regression table (per n: edges of P_n + Q_n), spec reconstruction of Fig. 7 rules
TOTALS = [4, 14, 22, 34, 58, 84, 114, 138, 162, 188, 218, 242, 266, 292, 322, 346, 370, 396, 426, 450,
          474, 500, 530, 554, 578, 604, 634, 652]


@pytest.mark.parametrize("layout", ["A", "B"])
def test_edge_counts_total_8672(layout):
    # M = 8672 is the paper's number; the per-n totals are the regression table
    rows = edge_counts(tile_layout(layout))
    assert [r["total"] for r in rows] == TOTALS
    assert sum(r["total"] for r in rows) == 8672
    assert [r["pick"] for r in rows] == [2] + [4] * 27


@pytest.mark.parametrize("layout", ["A", "B"])
def test_edge_count_closed_form(layout):
    # independent count from the tile adjacency alone (no graph builder)
    lay = tile_layout(layout)
    c = lay.centres

    def adj(p, q):
        return np.all(np.abs(p - q) <= 1 + 1e-9) and np.any(np.abs(p - q) > 1e-9)

    M = 0
    for n in range(1, 29):
        E = sum(adj(c[i], c[j]) for i, j in itertools.combinations(range(n), 2))
        S = sum(adj(c[i], lay.stack) for i in range(n))
        T = sum(adj(c[i], c[n]) for i in range(n)) if n < 28 else 0
        M += 8 * E + 2 * S + 2 * T
    assert M == 8672


def test_graph_structure_rules():
    # every walk flips the leg, no self-loops, sinks have no out-edges, Q_N has no slot edges,
    # and the adjacency is (2n+1) x (2n+1)
    lay = tile_layout()
    for P, Q in assembly_graphs(lay):
        n = P.graph["n"]
        for g, sink in ((P, STACK), (Q, SLOT)):
            assert g.number_of_nodes() == 2 * n + 1
            assert nx.number_of_selfloops(g) == 0
            assert g.out_degree(sink) == 0
            for u, v, d in g.edges(data=True):
                if d["spec"].kind == WALK:
                    assert u[1] == 3 - v[1] and u[0] != v[0]
                else:
                    assert v == sink
    assert assemble_graph(lay, 28).in_degree(SLOT) == 0


def test_fig7_edge_lists():
    # Fig. 7 (n = 3) under the reconstructed layout (exact edge lists)
    lay = tile_layout()
    walks = {((1, 1), (2, 2)), ((1, 2), (2, 1)), ((2, 1), (1, 2)), ((2, 2), (1, 1)),
             ((1, 1), (3, 2)), ((1, 2), (3, 1)), ((3, 1), (1, 2)), ((3, 2), (1, 1))}
    P, Q = pick_graph(lay, 3), assemble_graph(lay, 3)
    assert set(P.edges) == walks | {((1, 1), STACK), ((1, 2), STACK), ((2, 1), STACK), ((2, 2), STACK)}
    assert set(Q.edges) == walks | {((3, 1), SLOT), ((3, 2), SLOT)}
    # parity: the tile graph of F_3 is bipartite, (1, 2) is unreachable from (1, 1)
    with pytest.raises(NoPathError, match="no path"):
        bfs_path(P, (1, 1), (1, 2))
    with pytest.raises(NoPathError, match="no path"):
        dijkstra_path(P, (1, 1), (1, 2), lambda u, v, d: 1.0)


@pytest.mark.parametrize("layout, count", [("A", 760), ("B", 782)])
def test_f27_example_hops(layout, count):
    # paper: 7 sub-steps from (2, R1) to (27, R2); 760 equally short paths under layout A
    # (the number quoted for the reconstruction); the same parity target (27, R1) needs 6
    Q = assemble_graph(tile_layout(layout), 27)
    p = bfs_path(Q, (2, 1), (27, 2))
    assert len(p) - 1 == 7
    assert count_shortest_paths(Q, (2, 1), (27, 2)) == count
    assert len(bfs_path(Q, (2, 1), (27, 1))) - 1 == 6
    # brute force: the number of simple paths with 7 edges equals the DP count
    assert sum(1 for q in nx.all_simple_paths(Q, (2, 1), (27, 2), cutoff=7) if len(q) == 8) == count


def test_bfs_deterministic_and_matches_networkx_hops():
    lay = tile_layout()
    Q = assemble_graph(lay, 20)
    for s, t in [((1, 1), (20, 2)), ((4, 2), (17, 1)), ((10, 1), SLOT)]:
        p = bfs_path(Q, s, t)
        assert p == bfs_path(Q, s, t)
        assert len(p) - 1 == nx.shortest_path_length(Q, s, t)


def _random_layout(rng, n):
    cells = [(x, y) for x in range(3) for y in range(3)]
    order = rng.permutation(len(cells))[:n]
    # grow a connected set: keep tiles in an order where each touches an earlier one
    chosen = [cells[order[0]]]
    rest = [cells[k] for k in order[1:]]
    while len(chosen) < n and rest:
        for c in list(rest):
            if any(max(abs(c[0] - d[0]), abs(c[1] - d[1])) == 1 for d in chosen):
                chosen.append(c)
                rest.remove(c)
                break
        else:
            break
    centres = np.array(chosen, dtype=float) + 0.5
    return TileLayout("custom", centres, np.array([3.5, 0.5]))


@pytest.mark.parametrize("seed", range(6))
def test_brute_force_equals_dijkstra_and_csgraph(seed):
    # random small layouts, random asymmetric non-negative weights: the minimum over all
    # simple paths (enumeration) equals networkx Dijkstra and scipy csgraph (Bellman-Ford
    # and Dijkstra); costs are sums of the same doubles, compared to 1e-12 relative
    rng = np.random.default_rng(seed)
    lay = _random_layout(rng, 6)
    g = assemble_graph(lay, lay.n_tiles - 1)
    weights = {e: float(rng.uniform(0.1, 2.0)) for e in g.edges}

    def w(u, v, d):
        return weights[(u, v)]

    nodes = list(g.nodes)
    idx = {v: k for k, v in enumerate(nodes)}
    mat = np.zeros((len(nodes), len(nodes)))
    for (u, v), c in weights.items():
        mat[idx[u], idx[v]] = c
    dist_d = shortest_path(csr_matrix(mat), method="D")
    dist_bf = shortest_path(csr_matrix(mat), method="BF")
    src = (1, 1)
    for tgt in nodes:
        if tgt == src:
            continue
        simple = list(nx.all_simple_paths(g, src, tgt))
        if not simple:
            with pytest.raises(NoPathError):
                dijkstra_path(g, src, tgt, w)
            assert np.isinf(dist_d[idx[src], idx[tgt]])
            continue
        best = min(path_cost(g, p, w) for p in simple)
        got = path_cost(g, dijkstra_path(g, src, tgt, w), w)
        assert got == pytest.approx(best, rel=1e-12)
        assert dist_d[idx[src], idx[tgt]] == pytest.approx(best, rel=1e-12)
        assert dist_bf[idx[src], idx[tgt]] == pytest.approx(best, rel=1e-12)
        # unit weights: the Dijkstra cost is the BFS hop count
        unit = path_cost(g, dijkstra_path(g, src, tgt, lambda *a: 1.0), lambda *a: 1.0)
        assert unit == len(bfs_path(g, src, tgt)) - 1
        # scaling every weight by c > 0 keeps the optimum's cost ratio (and the path when unique)
        scaled = dijkstra_path(g, src, tgt, lambda u, v, d: 3.7 * weights[(u, v)])
        assert path_cost(g, scaled, w) == pytest.approx(best, rel=1e-12)


def test_hard_constraint_removes_edges():
    # inf weights hide edges: the optimum avoids them; blocking every way out is "no path"
    lay = tile_layout()
    Q = assemble_graph(lay, 8)
    blocked = {((1, 1), (2, 2))}

    def w(u, v, d):
        return np.inf if (u, v) in blocked else 1.0

    p = dijkstra_path(Q, (1, 1), (2, 2), w)
    assert ((1, 1), (2, 2)) not in set(zip(p[:-1], p[1:]))

    def everything(u, v, d):
        return np.inf if u == (1, 1) else 1.0

    with pytest.raises(NoPathError, match="hard constraint"):
        dijkstra_path(Q, (1, 1), (2, 2), everything)


@pytest.mark.parametrize("bad, match", [(0, "`n`"), (29, "`n`"), (2.0, "`n`")])
def test_graph_bad_n(bad, match):
    with pytest.raises(ValueError, match=match):
        pick_graph(tile_layout(), bad)


def test_bad_inputs():
    with pytest.raises(ValueError, match="`layout`"):
        tile_layout("C")
    with pytest.raises(TypeError, match="`layout`"):
        pick_graph("B", 3)
    with pytest.raises(ValueError, match="`source`"):
        bfs_path(pick_graph(tile_layout(), 3), (9, 1), STACK)
    with pytest.raises(ValueError, match="`centres`"):
        TileLayout("x", np.zeros((3, 3)), np.zeros(2))
    with pytest.raises(ValueError, match=">= 0"):
        dijkstra_path(pick_graph(tile_layout(), 3), (1, 1), STACK, lambda *a: -1.0)


def test_edge_specs_halves():
    # pick: second half carries the tile; place: second half on F_{n+1} without the tile
    lay = tile_layout()
    P, Q = pick_graph(lay, 5), assemble_graph(lay, 5)
    for _, _, d in P.edges(data=True):
        s = d["spec"]
        if s.kind == PICK:
            assert (s.halves[0].carry, s.halves[1].carry) == (False, True)
            assert s.halves[0].n == s.halves[1].n == 5
    for _, _, d in Q.edges(data=True):
        s = d["spec"]
        if s.kind == PLACE:
            assert (s.halves[0].n, s.halves[1].n) == (5, 6)
            assert (s.halves[0].carry, s.halves[1].carry) == (True, False)
        else:
            h1, h2 = s.halves
            assert (h1.port, h1.dock, h2.port, h2.dock) == (s.source[0], s.source[1], s.target[0], s.target[1])
