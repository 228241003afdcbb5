"""DOT export of a block diagram (drawn like arXiv:2505.03248 Fig. 16): every block, port and signal present."""

import re

import numpy as np
import pytest

from satdyn.multibody.blocks import LoopClosureBlock
from satdyn.multibody.diagram_dot import render_svg

from .test_p004_assembly import assemble_by_hand
from .pin_oracle import random_tree


def _diagram():
    rng = np.random.default_rng(3)
    model, *_ = random_tree(rng, 6, floating=True, kinds=("revolute", "prismatic", "weld"))
    d = assemble_by_hand(model)
    leaf_a, leaf_b = list(d.blocks)[-2:]
    d.add_loop_closure("tip", LoopClosureBlock(np.eye(6), np.eye(6)), (leaf_a, "P"), (leaf_b, "P"))
    d.add_external_wrench(d.root, np.ones(6))
    return d


def _expected_edges(d):
    edges = set()
    for child, (parent, _) in d.parent.items():
        edges |= {(parent, child), (child, parent)}
    for j in d.joint_blocks:
        edges |= {(j, f"law_{j}"), (f"law_{j}", j)}
    for name, (_, a, b) in d.closures.items():
        for blk, _ in (a, b):
            edges |= {(blk, f"closure_{name}"), (f"closure_{name}", blk)}
    for k, (blk, port, _) in enumerate(d.external):
        edges.add((f"ext{k}_{blk}_{port}", blk))
    return edges


def test_dot_structure_written_check():
    # A structural check written independently of the exporter: each block a record node whose
    # ports are referenced by the edges, each tree edge a motion edge down and a wrench edge up.
    d = _diagram()
    dot = d.to_dot()
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert dot.count("{") == dot.count("}") - dot.count("\\}") + dot.count("\\{")
    nodes = dict(re.findall(r'^  "([^"]+)" \[(?:shape=record, )?label="(.*)"\];$', dot, re.M))
    for name in d.blocks:
        assert name in nodes
    edges = re.findall(r'^  "([^"]+)"(?::(\w+))? -> "([^"]+)"(?::(\w+))? \[label="([^"]*)"', dot, re.M)
    assert {(a, b) for a, _, b, _, _ in edges} == _expected_edges(d)
    for a, pa, b, pb, _ in edges:   # every referenced port is declared in its record
        for node, port in ((a, pa), (b, pb)):
            if port:
                assert f"<{port}>" in nodes[node], (node, port)
    down = [e for e in edges if e[4] == "m (18)"]
    up = [e for e in edges if e[4] == "W (6)" and e[0] in d.blocks]
    assert len(down) == len(up) == len(d.parent)


def test_dot_parses_with_pydot_and_networkx():
    # An independent DOT parser (pydot, test-only dependency) reads the same nodes and edges.
    pydot = pytest.importorskip("pydot")
    nx = pytest.importorskip("networkx")
    d = _diagram()
    (graph,) = pydot.graph_from_dot_data(d.to_dot())
    g = nx.nx_pydot.from_pydot(graph)
    names = {n.strip('"') for n in g.nodes}
    assert set(d.blocks) <= names

    def node(end):   # '"b0":out_m_b1' -> 'b0' (networkx keeps the port)
        return end.strip('"').split('":')[0]

    assert {(node(a), node(b)) for a, b, _ in g.edges} == _expected_edges(d)
    assert len(g.edges) == len(graph.get_edges())


def test_svg_rendering_when_available():
    svg = render_svg(_diagram().to_dot())
    if svg is None:
        pytest.skip("neither the dot program nor the graphviz package is installed")
    assert "<svg" in svg


def test_render_svg_rejects_non_text():
    with pytest.raises(TypeError, match="dot_text"):
        render_svg(b"digraph {}")
