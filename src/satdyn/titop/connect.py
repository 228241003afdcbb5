"""``connect``: assemble port models into one LFR (arXiv:2409.06017).

Arguments
---------
models : sequence of PortModel      the blocks (names unique)
connections : sequence of (parent, child) port keys "<model>.<port>"
                                    parent: an inverse port (acceleration out, wrench in);
                                    child: a direct port (acceleration in, wrench out);
                                    same frame label.  Wiring: parent acc -> child acc input,
                                    child wrench -> parent wrench input (no sign change).
external : sequence of port keys    ports kept as ports of the result (their two 6-signal groups
                                    become the result's inputs/outputs)
free : sequence of port keys        ports left open: input 0 (a free end: no wrench / no
                                    motion imposed), output discarded
inputs : sequence of str            extra (non-port) input signals kept as inputs
outputs : sequence of str           extra outputs: any block output signal or group (e.g. the
                                    acceleration of an internal port, "F:C:acc")
disturbances : dict port key -> name
                                    add an external wrench input (6, group ``name``) to an inverse
                                    port's wrench input (e.g. W_ext/Fn,Cj at the docking port)
name : str                          name of the result (its ports keep their original keys)

Every port must be connected exactly once, external or free: ``connect`` refuses
dangling ports, ports used twice, acceleration-to-wrench wiring (two direct or two
inverse ports) and frame mismatches, naming them.
"""

from __future__ import annotations

import numpy as np

from .._validation import SatdynInputError
from ..lfr import as_lfr, interconnect
from .ports import ACC, WRENCH, PortModel, port_signals

__all__ = ["connect", "PortConnectionError"]


class PortConnectionError(SatdynInputError):
    """A port wiring that violates the connection rule."""


def _lookup(models: dict, key: str):
    if not isinstance(key, str) or "." not in key:
        raise PortConnectionError(f"port reference must be '<model>.<port>'; got {key!r}")
    mname, pname = key.split(".", 1)
    if mname not in models:
        raise PortConnectionError(f"unknown model {mname!r} in port reference {key!r}; models: {sorted(models)}")
    m = models[mname]
    if pname not in m.ports:
        raise PortConnectionError(f"model {mname!r} has no port {pname!r}; ports: {sorted(m.ports)}")
    return m.ports[pname]


def connect(models, connections=(), *, external=(), free=(), inputs=(), outputs=(),
            disturbances=None, name: str = "system") -> PortModel:
    """Interconnect port models (see the module docstring). Returns a :class:`PortModel`."""
    models = list(models)
    if not models:
        raise ValueError("connect: `models` is empty")
    by_name = {}
    for m in models:
        if not isinstance(m, PortModel):
            raise TypeError(f"connect: models must be PortModel; got {type(m).__name__}")
        if m.name in by_name:
            raise PortConnectionError(f"connect: two models named {m.name!r}")
        by_name[m.name] = m
    used: dict[str, str] = {}

    def use(key, how):
        p = _lookup(by_name, key)
        if p.key in used:
            raise PortConnectionError(f"port {p.key!r} is used twice ({used[p.key]} and {how})")
        used[p.key] = how
        return p

    wiring = []
    for item in connections:
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise TypeError(f"connect: each connection must be (parent port, child port); got {item!r}")
        parent = use(item[0], f"connection {tuple(item)}")
        child = use(item[1], f"connection {tuple(item)}")
        if parent.kind != "inverse" or child.kind != "direct":
            raise PortConnectionError(
                f"cannot connect {parent.key!r} ({parent.kind}: outputs "
                f"{'acceleration' if parent.kind == 'inverse' else 'wrench'}) to {child.key!r} "
                f"({child.kind}: expects {'acceleration' if child.kind == 'direct' else 'wrench'}): "
                "a parent's inverse port (acceleration out) must drive a child's direct port "
                "(acceleration in); acceleration -> wrench wiring is refused")
        if parent.frame != child.frame:
            raise PortConnectionError(
                f"frame mismatch: {parent.key!r} is in frame {parent.frame!r} but {child.key!r} in "
                f"{child.frame!r}; insert a frame_change block")
        for i in range(6):
            wiring.append((f"{child.prefix}:{ACC}[{i}]", [f"{parent.prefix}:{ACC}[{i}]"]))
            wiring.append((f"{parent.prefix}:{WRENCH}[{i}]", [f"{child.prefix}:{WRENCH}[{i}]"]))
    ext_ports = [use(k, "external") for k in external]
    free_ports = [use(k, "free") for k in free]
    dangling = [p.key for m in models for p in m.ports.values() if p.key not in used]
    if dangling:
        raise PortConnectionError(f"dangling ports (neither connected, external nor free): {dangling}")

    blocks = [m.lfr for m in models]
    ext_in, ext_out, dist_in = [], [], []
    disturbances = dict(disturbances or {})
    for key, dname in disturbances.items():
        p = _lookup(by_name, key)
        if p.input_quantity != WRENCH:
            raise PortConnectionError(f"disturbance at {p.key!r}: only an inverse port has a wrench input")
        if used.get(p.key) == "free":
            raise PortConnectionError(f"disturbance at {p.key!r}: the port is free")
        src = as_lfr(np.eye(6)).rename(inputs=[(dname, 6)], outputs=[(f"{dname}:through", 6)])
        blocks.append(src)
        dist_in.append(dname)
        targets = [f"{p.prefix}:{WRENCH}[{i}]" for i in range(6)]
        existing = {dst: srcs for dst, srcs in wiring}
        for i, t in enumerate(targets):
            if t in existing:
                existing[t].append(f"{dname}:through[{i}]")
            else:
                wiring.append((t, [f"{dname}:through[{i}]"]))
    for p in ext_ports:
        ext_in.append(p.input_group)
        ext_out.append(p.output_group)
    ext_in.extend(dist_in)
    ext_in.extend(inputs)
    ext_out.extend(outputs)
    lfr = interconnect(blocks, wiring, inputs=ext_in, outputs=ext_out, check_unused=False)
    # every remaining unconnected input must be a free port (or a disturbance-free extra input)
    allowed_zero = {s for p in free_ports for s in port_signals(p.model, p.name, p.input_quantity)}
    connected = {dst for dst, _ in wiring} | {s for g in ext_in for s in _members(blocks, g)}
    for m in models:
        for s in m.lfr.input_names:
            if s not in connected and s not in allowed_zero:
                raise PortConnectionError(f"input signal {s!r} of model {m.name!r} is not driven; "
                                      "list it in `inputs` or connect its port")
    ports = {}
    for p in ext_ports:
        ports[p.key] = p
    return _Assembled(name, lfr, ports)


def _members(blocks, group):
    for b in blocks:
        if group in b.input_groups:
            return list(b.input_groups[group])
        if group in b.input_names:
            return [group]
    return [group]


def _Assembled(name, lfr, ports):
    # Ports of an assembly keep their original signal names "<model>.<port>.*": store them
    # under their full key so that PortModel's checks find "<key>.<q>[i]" signals.
    from .ports import Port

    obj = PortModel.__new__(PortModel)
    object.__setattr__(obj, "name", name)
    object.__setattr__(obj, "lfr", lfr)
    object.__setattr__(obj, "ports", {k: Port(p.model, p.name, p.kind, p.frame) for k, p in ports.items()})
    object.__setattr__(obj, "extra_inputs", ())
    object.__setattr__(obj, "extra_outputs", ())
    return obj
