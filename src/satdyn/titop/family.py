"""Structured batched evaluation of an assembly: static sub-models (arms) evaluated apart.

``split_assembly(models, connections, separate=..., external=..., free=..., disturbances=...)``
returns a :class:`SplitAssembly`: the same interconnection as :func:`connect`, but the
``separate`` models (static port models, e.g. the three 80-channel arms) are kept out of the
global LFR.  ``SplitAssembly.evaluate_batch(values)`` evaluates each separate model's LFR with
its own parameters (80 Delta channels each instead of 240 together), the rest of the assembly
(states and the other parameters), and closes the cut connections numerically, vectorised
over the N points: with the rest ``[y1; y2] = [[D11, D12], [D21, D22]] [u1; u2]`` (+ states)
and the separate gains ``u2 = K y2``,

    x' = (A + B2 K Z C2) x + (B1 + B2 K Z D21) u1,   y1 = (C1 + D12 K Z C2) x + (D11 + D12 K Z D21) u1,

``Z = (I - D22 K)^-1``.  The result equals ``connect(...).lfr.evaluate_batch(values)``
(same state coordinates: the rest keeps the global states).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..lfr import StateSpaceBatch
from .connect import PortConnectionError, _lookup, connect
from .ports import PortModel, port_signals

__all__ = ["SplitAssembly", "split_assembly"]


@dataclass(frozen=True)
class SplitAssembly:
    """An assembly whose static ``separate`` models are evaluated apart (module docstring)."""

    rest: PortModel
    separate: tuple          # PortModels
    n_ext_in: int
    n_ext_out: int
    cut_in: tuple            # rest input index (u2) <- (separate model index, output row)
    cut_out: tuple           # separate model input (model index, column) <- rest output index (y2)

    def _parameters(self, lfr, values):
        names = {b.name for b in lfr.blocks}
        return {k: v for k, v in (values or {}).items() if k in names}

    def evaluate_batch(self, values=None) -> StateSpaceBatch:
        """Evaluate at N points (dict name -> array (N,) of physical values)."""
        values = dict(values or {})
        sizes = {np.size(v) for v in values.values()}
        N = max(sizes) if sizes else 1
        rest = self.rest.lfr
        rb = rest.evaluate_batch({k: np.broadcast_to(v, (N,)) for k, v in self._parameters(rest, values).items()}
                                 or None)
        if not isinstance(rb, StateSpaceBatch):
            raise ValueError("split_assembly: the rest of the assembly must have states")
        if len(rb) != N:
            rb = StateSpaceBatch(*(np.broadcast_to(getattr(rb, k), (N,) + getattr(rb, k).shape[1:]) for k in "ABCD"),
                                 rb.input_names, rb.output_names)
        m2, p2 = len(self.cut_in), len(self.cut_out)
        K = np.zeros((N, m2, p2))
        gains = []
        for model in self.separate:
            params = self._parameters(model.lfr, values)
            if params:
                g = model.lfr.evaluate_batch({k: np.broadcast_to(v, (N,)) for k, v in params.items()})
            else:
                g = np.broadcast_to(model.lfr.nominal(), (N,) + model.lfr.shape)
            gains.append(g)
        # u2[i] = sum over the separate model's output row r of G[r, c] * y2[j] where the
        # model's input c is fed by y2[j]
        for i, (k, r) in enumerate(self.cut_in):
            for j, (k2, c) in enumerate(self.cut_out):
                if k2 == k:
                    K[:, i, j] = gains[k][:, r, c]
        A, B, C, D = rb.A, rb.B, rb.C, rb.D
        m1, p1 = self.n_ext_in, self.n_ext_out
        B1, B2 = B[:, :, :m1], B[:, :, m1:]
        C1, C2 = C[:, :p1], C[:, p1:]
        D11, D12, D21, D22 = D[:, :p1, :m1], D[:, :p1, m1:], D[:, p1:, :m1], D[:, p1:, m1:]
        Z = np.linalg.solve(np.eye(p2) - D22 @ K, np.concatenate([C2, D21], axis=2))
        KZ = K @ Z
        KZC, KZD = KZ[:, :, :C2.shape[2]], KZ[:, :, C2.shape[2]:]
        return StateSpaceBatch(A + B2 @ KZC, B1 + B2 @ KZD, C1 + D12 @ KZC, D11 + D12 @ KZD,
                               rb.input_names[:m1], rb.output_names[:p1], rb.valid)


def split_assembly(models, connections=(), *, separate=(), external=(), free=(), disturbances=None,
                   name: str = "system") -> SplitAssembly:
    """Prepare the structured evaluation of ``connect(models, connections, ...)`` (module docstring).

    ``separate``: names of static models to evaluate apart.  Their ports may only be
    connected to the rest of the assembly or free.
    """
    models = list(models)
    by_name = {m.name: m for m in models}
    sep = [by_name[s] for s in separate]
    if any(not m.lfr.is_static for m in sep):
        raise ValueError("split_assembly: `separate` models must be static")
    sep_names = set(separate)
    rest_models = [m for m in models if m.name not in sep_names]
    inner, cut_ports = [], []          # cut_ports: (rest port, separate port)
    for parent_key, child_key in connections:
        pm, cm = parent_key.split(".", 1)[0], child_key.split(".", 1)[0]
        if pm in sep_names and cm in sep_names:
            raise PortConnectionError(f"split_assembly: {parent_key!r} -> {child_key!r} joins two separate models")
        if pm in sep_names:
            cut_ports.append((_lookup(by_name, child_key), _lookup(by_name, parent_key)))
        elif cm in sep_names:
            cut_ports.append((_lookup(by_name, parent_key), _lookup(by_name, child_key)))
        else:
            inner.append((parent_key, child_key))
    rest_free = [f for f in free if f.split(".", 1)[0] not in sep_names]
    sep_free = {_lookup(by_name, f).key for f in free if f.split(".", 1)[0] in sep_names}
    for m in sep:
        for p in m.ports.values():
            if p.key not in sep_free and not any(sp.key == p.key for _, sp in cut_ports):
                raise PortConnectionError(f"split_assembly: port {p.key!r} of a separate model is neither cut nor free")
    rest = connect(rest_models, inner, external=list(external) + [rp.key for rp, _ in cut_ports],
                   free=rest_free, disturbances=disturbances, name=name)
    ext_ports = [_lookup(by_name, e) for e in external]
    u1 = [s for p in ext_ports for s in port_signals(p.model, p.name, p.input_quantity)]
    u1 += [f"{d}[{i}]" for d in (disturbances or {}).values() for i in range(6)]
    y1 = [s for p in ext_ports for s in port_signals(p.model, p.name, p.output_quantity)]
    u2, y2, cut_in, cut_out = [], [], [], []
    index = {m.name: k for k, m in enumerate(sep)}
    for rp, sp in cut_ports:
        k = index[sp.model]
        lfr = sep[k].lfr
        # the rest port's input is fed by the separate port's output, and vice versa
        u2 += list(port_signals(rp.model, rp.name, rp.input_quantity))
        y2 += list(port_signals(rp.model, rp.name, rp.output_quantity))
        cut_in += [(k, lfr.output_names.index(x)) for x in port_signals(sp.model, sp.name, sp.output_quantity)]
        cut_out += [(k, lfr.input_names.index(x)) for x in port_signals(sp.model, sp.name, sp.input_quantity)]
    ordered = PortModel.__new__(PortModel)
    for attr, value in (("name", rest.name), ("lfr", rest.lfr[y1 + y2, u1 + u2]), ("ports", rest.ports),
                        ("extra_inputs", ()), ("extra_outputs", ())):
        object.__setattr__(ordered, attr, value)
    return SplitAssembly(ordered, tuple(sep), len(u1), len(y1), tuple(cut_in), tuple(cut_out))
