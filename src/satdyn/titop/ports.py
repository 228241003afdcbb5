"""Ports and port models: the data model of satdyn.titop.

A *port* is a connection point of a body or joint model: a named pair of 6-signal groups
of the model's LFR, one input and one output, with a frame label.

* direct port   (``kind="direct"``):  input = acceleration twist ``[a; w']`` of the point,
  output = wrench ``[F; T]`` applied *by the model on its parent* (moment at the point);
* inverse port  (``kind="inverse"``): input = wrench applied *by the child on the model*,
  output = acceleration twist of the point.

A port is referred to as ``"<model>.<port>"``.  Its signal names are
``"<model>:<port>:acc[i]"`` and ``"<model>:<port>:W[i]"`` (i = 0..5, 6-vectors
``[linear; angular]``; ':' because python-control forbids '.' in signal names); the groups
``"<model>:<port>:acc"`` and ``"<model>:<port>:W"`` are the 6-signal groups of the LFR.  Connection
rule (arXiv:2409.06017): a parent's *inverse* port feeds its acceleration to a child's *direct* port,
whose wrench comes back unchanged; both must be in the same frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..lfr import LFR, as_lfr

__all__ = ["Port", "PortModel", "ACC", "WRENCH", "port_signals", "make_port_model", "rename_ports"]

ACC = "acc"
WRENCH = "W"
_KINDS = ("direct", "inverse")


def port_signals(model: str, port: str, quantity: str) -> tuple[str, ...]:
    """The 6 signal names of a port quantity (``"acc"`` or ``"W"``)."""
    return tuple(f"{model}:{port}:{quantity}[{i}]" for i in range(6))


@dataclass(frozen=True)
class Port:
    """A port: ``name``, ``kind`` ("direct" | "inverse"), ``frame`` label, owning ``model``."""

    model: str
    name: str
    kind: str
    frame: str

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"port `kind` must be one of {_KINDS}; got {self.kind!r}")

    @property
    def key(self) -> str:
        """``"<model>.<port>"``: how ``connect`` refers to the port."""
        return f"{self.model}.{self.name}"

    @property
    def prefix(self) -> str:
        """``"<model>:<port>"``: prefix of the port's signal names (python-control forbids '.')."""
        return f"{self.model}:{self.name}"

    @property
    def input_quantity(self) -> str:
        return ACC if self.kind == "direct" else WRENCH

    @property
    def output_quantity(self) -> str:
        return WRENCH if self.kind == "direct" else ACC

    @property
    def input_group(self) -> str:
        return f"{self.prefix}:{self.input_quantity}"

    @property
    def output_group(self) -> str:
        return f"{self.prefix}:{self.output_quantity}"

    def flipped(self) -> "Port":
        return Port(self.model, self.name, "inverse" if self.kind == "direct" else "direct", self.frame)


@dataclass(frozen=True)
class PortModel:
    """A linear port model: an :class:`~satdyn.lfr.LFR` plus the description of its ports.

    Attributes
    ----------
    name : str
        Model name (prefix of its signal names).
    lfr : LFR
        Inputs/outputs are the ports' 6-signal groups (plus any ``extra`` signals).
    ports : dict[str, Port]
        By port name.
    extra_inputs, extra_outputs : tuple[str, ...]
        Signals that belong to no port (joint torque, joint angle, ...).
    """

    name: str
    lfr: LFR
    ports: dict = field(default_factory=dict)
    extra_inputs: tuple = ()
    extra_outputs: tuple = ()

    def __post_init__(self):
        ins, outs = set(self.lfr.input_names), set(self.lfr.output_names)
        for p in self.ports.values():
            for group, names in ((p.input_group, ins), (p.output_group, outs)):
                q = group.rsplit(":", 1)[1]
                missing = [s for s in port_signals(p.model, p.name, q) if s not in names]
                if missing:
                    raise ValueError(f"port model {self.name!r}: port {p.key!r} lacks signals {missing[:2]}...")

    def port(self, name: str) -> Port:
        """The port ``name`` (or ``"<model>.<name>"``)."""
        short = name.split(".", 1)[1] if name.startswith(self.name + ".") else name
        try:
            return self.ports[short]
        except KeyError:
            raise KeyError(f"model {self.name!r} has no port {name!r}; ports: {sorted(self.ports)}") from None

    def __repr__(self) -> str:
        desc = ", ".join(f"{p.name}({p.kind}, {p.frame})" for p in self.ports.values())
        return f"<PortModel {self.name!r}: ports [{desc}]; {self.lfr!r}>"


def make_port_model(name, lfr_matrix_or_lfr, ports, inputs, outputs, extra_inputs=(), extra_outputs=()):
    """Name an LFR's signals after its ports.

    ``inputs``/``outputs`` are lists of ``(port_name, quantity)`` or plain extra signal
    names, in the LFR's input/output order.
    """
    def spec(items):
        out = []
        for item in items:
            if isinstance(item, tuple):
                port, q = item
                out.append((f"{name}:{port}:{q}", list(port_signals(name, port, q))))
            else:
                out.append(f"{name}:{item}")
        return out

    lfr = as_lfr(lfr_matrix_or_lfr)
    lfr = lfr.rename(inputs=spec(inputs), outputs=spec(outputs))
    port_objs = {p: Port(name, p, kind, frame) for p, (kind, frame) in ports.items()}
    return PortModel(name, lfr, port_objs, tuple(f"{name}:{s}" for s in extra_inputs),
                     tuple(f"{name}:{s}" for s in extra_outputs))


def rename_ports(model: PortModel, name: str, mapping: dict) -> PortModel:
    """A copy of ``model`` named ``name`` whose ports ``mapping`` (old key -> new port name)
    become ``"<name>.<new>"`` (signals ``"<name>.<new>.acc[i]"`` / ``".W[i]"``).

    Ports not in ``mapping`` keep their keys; their signals are unchanged.
    """
    from ._lfrtools import names_spec

    ports = {}
    sig_map = {}
    for key, p in model.ports.items():
        old_key, old = p.key, p.prefix
        if old_key in mapping or key in mapping:
            new = mapping.get(old_key, mapping.get(key))
            for q in (ACC, WRENCH):
                for i in range(6):
                    sig_map[f"{old}:{q}[{i}]"] = f"{name}:{new}:{q}[{i}]"
                sig_map[f"{old}:{q}"] = f"{name}:{new}:{q}"
            ports[new] = Port(name, new, p.kind, p.frame)
        else:
            ports[key] = p

    def spec(names, groups):
        out = []
        for item in names_spec(names, groups):
            if isinstance(item, tuple):
                out.append((sig_map.get(item[0], item[0]), [sig_map.get(s, s) for s in item[1]]))
            else:
                out.append(sig_map.get(item, item))
        return out

    lfr = model.lfr.rename(inputs=spec(model.lfr.input_names, model.lfr.input_groups),
                           outputs=spec(model.lfr.output_names, model.lfr.output_groups))
    obj = PortModel.__new__(PortModel)
    for attr, value in (("name", name), ("lfr", lfr), ("ports", ports),
                        ("extra_inputs", model.extra_inputs), ("extra_outputs", model.extra_outputs)):
        object.__setattr__(obj, attr, value)
    return obj
