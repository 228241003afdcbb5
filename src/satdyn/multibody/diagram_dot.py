"""Graphviz DOT export of a :class:`~satdyn.multibody.diagram.BlockDiagram` (drawn like arXiv:2505.03248 Fig. 16).

Each block is a record node: input ports on the left (parent motion ``m``, child-port
wrenches ``W``, drive effort), the block's name and model in the middle, output ports on the
right (emitted wrench, child-port motions ``m``, joint motion ``m_r``). Signals are edges:

* motion vectors go down the tree (``m (18)``, solid);
* emitted wrenches go up (``W (6)``, dashed): they close the algebraic loops of forward dynamics;
* joint laws, external wrenches and loop closures are small nodes with their own edges.

:func:`render_svg` runs the ``dot`` program (or the ``graphviz`` Python package) when one is
installed; the DOT text itself needs nothing.
"""

from __future__ import annotations

import shutil
import subprocess

from .blocks import FloatingBodyBlock, GroundBlock, PrismaticBlock, RevoluteBlock, WeldBlock

__all__ = ["diagram_to_dot", "render_svg"]

_MODEL = {FloatingBodyBlock: "G (floating, 12 states)", GroundBlock: "ground",
          WeldBlock: "R weld", RevoluteBlock: "R,r revolute (2 states)", PrismaticBlock: "R,t prismatic (2 states)"}


def _id(text: str) -> str:
    """A DOT identifier: quoted, with quotes and backslashes escaped."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _field(text: str) -> str:
    """Escape record-label metacharacters."""
    out = str(text)
    for ch in "\\{}|<>\" ":
        out = out.replace(ch, "\\" + ch if ch != " " else "\\ ")
    return out


def _port_id(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def diagram_to_dot(diagram, *, title: str | None = None) -> str:
    """DOT text of ``diagram`` (module docstring). Node ids are the block names."""
    lines = [f"digraph {_id(title or diagram.name)} {{", "  rankdir=TB;",
             '  node [shape=record, fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']
    children_of = {}
    for child, (parent, port) in diagram.parent.items():
        children_of.setdefault(parent, []).append((child, port))
    ext_ports = {(b, p) for b, p, _ in diagram.external}
    cl_ports = {pt for _, a, b in diagram.closures.values() for pt in (a, b)}
    for name, blk in diagram.blocks.items():
        ins, outs = [], []
        if name in diagram.parent:
            ins.append(("in_m", "m P"))
            outs.append(("out_W", "W to parent"))
        used = sorted({port for _, port in children_of.get(name, [])}
                      | {p for b, p in ext_ports | cl_ports if b == name},
                      key=lambda p: (p != "P", p))
        for port in used:
            ins.append((f"in_W_{_port_id(port)}", f"W {port}"))
        for port in ["P", *blk.ports]:
            if port in {p for _, p in children_of.get(name, [])} or (name, port) in cl_ports:
                outs.append((f"out_m_{_port_id(port)}", f"m {port}"))
        if isinstance(blk, (RevoluteBlock, PrismaticBlock)):
            ins.append(("in_effort", "C_m" if isinstance(blk, RevoluteBlock) else "F_m"))
            outs.append(("out_joint", "m_r"))
        left = "|".join(f"<{p}> {_field(t)}" for p, t in ins) or " "
        right = "|".join(f"<{p}> {_field(t)}" for p, t in outs) or " "
        middle = f"{_field(name)}\\n{_field(_MODEL[type(blk)])}"
        lines.append(f"  {_id(name)} [label=\"{{{{{left}}}|{middle}|{{{right}}}}}\"];")
    for child, (parent, port) in diagram.parent.items():
        lines.append(f"  {_id(parent)}:out_m_{_port_id(port)} -> {_id(child)}:in_m [label=\"m (18)\"];")
        lines.append(f"  {_id(child)}:out_W -> {_id(parent)}:in_W_{_port_id(port)} "
                     "[label=\"W (6)\", style=dashed, constraint=false];")
    for name in diagram.joint_blocks:
        law = f"law_{name}"
        lines.append(f"  {_id(law)} [shape=box, style=rounded, label=\"joint law\\n-k (q - q0) - d q_dot + u\"];")
        lines.append(f"  {_id(name)}:out_joint -> {_id(law)} [label=\"m_r\"];")
        lines.append(f"  {_id(law)} -> {_id(name)}:in_effort [label=\"effort\"];")
    for k, (block, port, wrench) in enumerate(diagram.external):
        ext = f"ext{k}_{block}_{port}"
        kind = "W(t, m)" if callable(wrench) else "constant W"
        lines.append(f"  {_id(ext)} [shape=box, style=dashed, label=\"external wrench\\n{kind}\"];")
        lines.append(f"  {_id(ext)} -> {_id(block)}:in_W_{_port_id(port)} [label=\"W (6)\"];")
    for name, (_, a, b) in diagram.closures.items():
        node = f"closure_{name}"
        lines.append(f"  {_id(node)} [shape=box, label=\"L {_field(name)}\\nK, D spring-damper\"];")
        for end, (block, port) in (("a", a), ("b", b)):
            lines.append(f"  {_id(block)}:out_m_{_port_id(port)} -> {_id(node)} [label=\"m {end}\"];")
            lines.append(f"  {_id(node)} -> {_id(block)}:in_W_{_port_id(port)} [label=\"W {end}\", style=dashed];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_svg(dot_text: str) -> str | None:
    """SVG text of ``dot_text`` via the ``dot`` program or the ``graphviz`` package; None if neither exists."""
    if not isinstance(dot_text, str):
        raise TypeError("`dot_text` must be a str (from BlockDiagram.to_dot())")
    exe = shutil.which("dot")
    if exe:
        return subprocess.run([exe, "-Tsvg"], input=dot_text, capture_output=True, text=True, check=True).stdout
    try:
        import graphviz
    except ImportError:
        return None
    return graphviz.Source(dot_text).pipe(format="svg").decode()
