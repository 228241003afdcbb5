"""Pick and assemble graphs P_n and Q_n of the on-orbit assembly (paper 000 section 3.1, Fig. 7).

For every structure F_n (n = 1..N) two directed simple graphs (networkx ``DiGraph``):

* nodes ``(j, a)``: the robot docked at the centre C_j of tile j (j = 1..n) by leg R_a
  (a = 1, 2), plus one sink: ``STACK`` in the pick graph P_n, ``SLOT`` (the slot of tile
  n+1) in the assemble graph Q_n;
* walk edges ``(i, a) -> (j, 3-a)`` between distinct 8-neighbour tiles: the free leg
  docks on the new tile, so every step swaps the docked leg (no same-tile swap);
* pick edges ``(i, a) -> STACK`` (P_n) from tiles next to the stack, and place edges
  ``(i, a) -> SLOT`` (Q_n, n < N) from tiles next to the slot of tile n+1; the sinks
  have no out-edges.

These rules are not printed in the paper; they are the variant that reproduces its total
edge count M = 8672 over the 2N = 56 graphs (:func:`edge_counts`).

Each edge carries an :class:`EdgeSpec` (attribute ``"spec"``): its two half-trajectories,
each with the node model it runs on (structure n, docking port, docked leg, tile carried)
and its reach pose; the weights are computed elsewhere (:mod:`.costs`).
Node index (for deterministic tie-breaking): 2 (j - 1) + (a - 1) for (j, a), 2n for the sink.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from .layout import TileLayout

__all__ = ["STACK", "SLOT", "HalfEdge", "EdgeSpec", "pick_graph", "assemble_graph", "assembly_graphs",
           "edge_counts", "node_index", "is_sink", "WALK", "PICK", "PLACE"]

STACK = "stack"
SLOT = "slot"
WALK, PICK, PLACE = "walk", "pick", "place"


def is_sink(node) -> bool:
    """True for the stack and slot nodes."""
    return node in (STACK, SLOT)


def node_index(node, n: int) -> int:
    """Index 2 (j - 1) + (a - 1) of a tile node, 2n for a sink (deterministic order)."""
    if is_sink(node):
        return 2 * n
    j, a = node
    return 2 * (j - 1) + (a - 1)


@dataclass(frozen=True)
class HalfEdge:
    """One half-trajectory of an edge: the node model it runs on and its joint motion.

    Attributes
    ----------
    n : int            structure F_n of the node model
    port : int         docking tile j (port C_j of F_n)
    dock : int         docked leg a in {1, 2}
    carry : bool       delta: R3 carries a tile
    pose : tuple       reach-pose key: ("walk", (dx, dy)) with (dx, dy) = foot of R2 - foot of R1
                       in tiles, or ("r3", a, (dx, dy)) with (dx, dy) = target - C_port
    outbound : bool    True: home -> reach pose (first half); False: reach pose -> home
    """

    n: int
    port: int
    dock: int
    carry: bool
    pose: tuple
    outbound: bool

    @property
    def model_key(self) -> tuple:
        """(n, port, dock, carry): the node model this half is frozen on."""
        return (self.n, self.port, self.dock, self.carry)


@dataclass(frozen=True)
class EdgeSpec:
    """One edge of P_n / Q_n: kind ("walk", "pick", "place"), graph ("P"/"Q"), n, ends, halves."""

    kind: str
    graph: str
    n: int
    source: object
    target: object
    halves: tuple

    @property
    def key(self) -> tuple:
        """What the edge's weight depends on (its two halves); equal keys have equal costs."""
        return self.halves


def _walk_halves(layout: TileLayout, n, i, a, j, carry):
    b = 3 - a
    d = layout.offset(layout.centre(i), layout.centre(j))
    # pose key: foot of R2 minus foot of R1
    if a == 2:
        d = (-d[0], -d[1])
    pose = (WALK, d)
    return (HalfEdge(n, i, a, carry, pose, True), HalfEdge(n, j, b, carry, pose, False))


def _tile_nodes(g, n):
    for j in range(1, n + 1):
        for a in (1, 2):
            g.add_node((j, a), index=node_index((j, a), n))


def _add_walks(g, layout, n, carry, graph):
    for i in range(1, n + 1):
        for j in layout.neighbours(layout.centre(i), n):
            for a in (1, 2):
                spec = EdgeSpec(WALK, graph, n, (i, a), (j, 3 - a), _walk_halves(layout, n, i, a, j, carry))
                g.add_edge((i, a), (j, 3 - a), spec=spec)


def _check_n(layout: TileLayout, n) -> int:
    if not isinstance(layout, TileLayout):
        raise TypeError(f"`layout` must be a TileLayout; got {type(layout).__name__}")
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= layout.n_tiles:
        raise ValueError(f"`n` must be an integer in 1..{layout.n_tiles}; got {n!r}")
    return n


def _walk_graph(layout, n, kind, sink, carry):
    _check_n(layout, n)
    g = nx.DiGraph(name=f"{kind}{n}", kind=kind, n=n)
    _tile_nodes(g, n)
    g.add_node(sink, index=2 * n)
    _add_walks(g, layout, n, carry, kind)
    return g


def pick_graph(layout: TileLayout, n: int) -> nx.DiGraph:
    """Pick graph P_n: walks with no tile carried and pick edges into ``STACK``."""
    g = _walk_graph(layout, n, "P", STACK, False)
    for i in layout.neighbours(layout.stack, n):
        d = layout.offset(layout.centre(i), layout.stack)
        for a in (1, 2):
            pose = ("r3", a, d)
            halves = (HalfEdge(n, i, a, False, pose, True), HalfEdge(n, i, a, True, pose, False))
            g.add_edge((i, a), STACK, spec=EdgeSpec(PICK, "P", n, (i, a), STACK, halves))
    return g


def assemble_graph(layout: TileLayout, n: int) -> nx.DiGraph:
    """Assemble graph Q_n: walks carrying a tile and place edges into ``SLOT`` (none for n = N)."""
    g = _walk_graph(layout, n, "Q", SLOT, True)
    slot = layout.slot(n)
    if slot is not None:
        for i in layout.neighbours(slot, n):
            d = layout.offset(layout.centre(i), slot)
            for a in (1, 2):
                pose = ("r3", a, d)
                # the second half runs on the new structure F_{n+1}, tile placed (delta = 0)
                halves = (HalfEdge(n, i, a, True, pose, True), HalfEdge(n + 1, i, a, False, pose, False))
                g.add_edge((i, a), SLOT, spec=EdgeSpec(PLACE, "Q", n, (i, a), SLOT, halves))
    return g


def assembly_graphs(layout: TileLayout) -> list[tuple[nx.DiGraph, nx.DiGraph]]:
    """[(P_n, Q_n) for n = 1..N]: the 2N graphs of the whole assembly."""
    return [(pick_graph(layout, n), assemble_graph(layout, n)) for n in range(1, layout.n_tiles + 1)]


def edge_counts(layout: TileLayout) -> list[dict]:
    """Per n: walk edges per graph W_n, pick edges, place edges and the total of P_n + Q_n."""
    rows = []
    for P, Q in assembly_graphs(layout):
        kinds = [d["spec"].kind for _, _, d in P.edges(data=True)] + [d["spec"].kind for _, _, d in Q.edges(data=True)]
        w = kinds.count(WALK) // 2
        rows.append({"n": P.graph["n"], "walk": w, "pick": kinds.count(PICK), "place": kinds.count(PLACE),
                     "total": P.number_of_edges() + Q.number_of_edges()})
    return rows
