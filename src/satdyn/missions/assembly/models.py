"""Frozen node models: the assembly spacecraft evaluated in batch at the waypoint angles.

A node model (n, port, dock, carry) is the TITOP model of the whole spacecraft
(:func:`satdyn.titop.models.assembly_spacecraft`: hub, solar array, stack, structure F_n
with the robot docked by leg R_dock at C_port, tile carried by R3 when ``carry``).  Its
three arms are kept apart (``split_arms=True``: :class:`satdyn.titop.family.SplitAssembly`)
so that a batch of joint-angle vectors costs one small evaluation per arm.

The uncertain first mode of the solar array (parameter ``"A.omega1"``, +/- 20 %) is kept
*open*: its r Delta channels become the first inputs/outputs (w_omega / z_omega) of the
frozen plant, as the paper's closed loop C(s) keeps Delta_omega outside.  Any other
uncertain parameter is set to its nominal value.

Layout: one ``layout`` ("B" default, or "A") fixes where every tile is, for the graphs
(:func:`.layout.tile_layout`), the spacecraft data and the FE structures F_n alike
(:func:`fe_family`: the FE family of the same layout, passed to the builder as the modal
data of F_n with its port C_j), so the robot docked at tile j sits where the graph puts
tile j.

Frozen plant channels (a :class:`~satdyn.lfr.StateSpaceBatch`, N systems):

* inputs  ``[w_omega (r); W_ext/B,G (6) = [F; T]; W_ext at C_port (6)]``;
* outputs ``[z_omega (r); x''_G (6) = [a_G; omega'_G]]``.
"""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np

from ...lfr import LFR, StateSpaceBatch
from ...titop.data import load_assembly_spacecraft
from ...titop.models import assembly_spacecraft
from ...titop.models.assembly import FE_FAMILY_FILE
from .layout import LAYOUTS
from .poses import angle_values

__all__ = ["NodeModelProvider", "open_parameter_channels", "PlantChannels", "fe_family"]

UNCERTAIN = "A.omega1"
SHIPPED_FAMILY_LAYOUT = "B"      # layout of the shipped FE family file (satdyn/data/fe)


def fe_family(layout: str = "B"):
    """The FE tile family F_1..F_28 (property set S5, RBE3 feet, 20 modes) of ``layout``.

    Layout "B": the shipped file ``satdyn/data/fe/tile_family_S5.npz`` (the one the titop
    builder reads by default; the fe tests check it equals the generated family).  Other
    layouts: :func:`satdyn.fe.tile_family` with the same inputs and that layout (generated
    once, a few seconds, then read from the FE disk cache).

    Returns
    -------
    satdyn.fe.TileFamily
    """
    from importlib import resources

    from ...fe import TileFamily, tile_family

    if layout not in LAYOUTS:
        raise ValueError(f"`layout` must be one of {LAYOUTS}; got {layout!r}")
    if layout == SHIPPED_FAMILY_LAYOUT:
        with resources.files("satdyn.data.fe").joinpath(FE_FAMILY_FILE).open("rb") as fh:
            family = TileFamily.load(fh)
    else:
        family = tile_family("S5", layout=layout, show_progress=False)
    if family.inputs.get("layout") != layout:
        raise ValueError(f"the FE family for layout {layout!r} was generated with layout "
                         f"{family.inputs.get('layout')!r}")
    return family


@dataclasses.dataclass(frozen=True)
class PlantChannels:
    """Index slices of a frozen plant's channels (r = size of the open Delta block)."""

    r: int

    @property
    def w(self):
        return slice(0, self.r)

    @property
    def torque_G(self):
        return slice(self.r + 3, self.r + 6)

    @property
    def wrench_C(self):
        return slice(self.r + 6, self.r + 12)

    @property
    def z(self):
        return slice(0, self.r)

    @property
    def omega_dot(self):
        return slice(self.r + 3, self.r + 6)


def open_parameter_channels(lfr: LFR, name: str, prefix: str = "omega") -> tuple[LFR, int]:
    """The LFR with parameter ``name``'s Delta channels turned into leading inputs/outputs.

    Other parameters are substituted at their nominal values.  Returns (lfr, r).
    """
    others = {b.name: b.parameter.nominal for b in lfr.blocks if b.name != name}
    if others:
        lfr = lfr.subs(others)
    blocks = [b for b in lfr.blocks if b.name == name]
    if len(blocks) != 1 or len(lfr.blocks) != 1:
        raise ValueError(f"the model has no uncertain parameter {name!r} to keep open; blocks: "
                         f"{[b.name for b in lfr.blocks]}")
    r = blocks[0].size
    opened = LFR(lfr.A, lfr.B, lfr.C, lfr.D, blocks=(),
                 inputs=[(f"w_{prefix}", r)] + list(lfr.input_names),
                 outputs=[(f"z_{prefix}", r)] + list(lfr.output_names))
    return opened, r


class NodeModelProvider:
    """Frozen plants of the node models of the assembly family (module docstring).

    Parameters
    ----------
    reading, layout, arm_geometry : str
        Data options of :func:`satdyn.titop.data.load_assembly_spacecraft`; ``layout`` also
        selects the FE family of the structures (:func:`fe_family`), passed to a builder that
        takes ``structure`` (unless ``builder_options`` gives one).
    builder : callable, optional
        ``builder(data=..., n=..., dock=..., carry_tile=..., split_arms=True[, port=...])``
        returning a SplitAssembly; default :func:`satdyn.titop.models.assembly_spacecraft`.
        When the builder has no ``port`` argument, only the (n, port) pairs of the
        shipped data exist (the paper tabulates F_1 at C_1 and F_26 at C_25).
    uncertain : str
        Name of the parameter kept open (default "A.omega1").
    """

    def __init__(self, *, reading: str = "interpreted", layout: str = "B", arm_geometry: str = "Y45",
                 builder=None, uncertain: str = UNCERTAIN, builder_options: dict | None = None):
        if layout not in LAYOUTS:
            raise ValueError(f"`layout` must be one of {LAYOUTS}; got {layout!r}")
        self.reading, self.layout, self.arm_geometry = reading, layout, arm_geometry
        self.builder = assembly_spacecraft if builder is None else builder
        if not callable(self.builder):
            raise TypeError(f"`builder` must be callable; got {type(self.builder).__name__}")
        self.uncertain = uncertain
        self.builder_options = dict(builder_options or {})
        self._cache = {}
        self._data = None
        self._family = None

    def __getstate__(self):          # process pools: ship the options (and the FE family), rebuild caches there
        state = dict(self.__dict__)
        state["_cache"], state["_data"] = {}, None
        return state

    @property
    def family(self):
        """The FE family of ``layout`` (:func:`fe_family`), loaded on first use."""
        if self._family is None:
            self._family = fe_family(self.layout)
        return self._family

    @property
    def passes_structure(self) -> bool:
        """True when the FE family of ``layout`` is given to the builder as ``structure``."""
        return "structure" in inspect.signature(self.builder).parameters and "structure" not in self.builder_options

    def structure(self, n: int, port: int):
        """Modal data of F_n with port C_port given to the builder (a
        :class:`satdyn.fe.PortData` of the layout's FE family), or None (builder's own)."""
        if not self.passes_structure:
            return None
        return self.family.port_data(n, [port], n_modes=self.builder_options.get("n_modes", 10))

    @property
    def data(self):
        if self._data is None:
            self._data = load_assembly_spacecraft(self.reading, layout=self.layout, arm_geometry=self.arm_geometry)
        return self._data

    @property
    def takes_port(self) -> bool:
        return "port" in inspect.signature(self.builder).parameters

    def available(self, key) -> bool:
        """True when the node model ``key = (n, port, dock, carry)`` can be built."""
        n, port = key[0], key[1]
        if self.takes_port:
            return True
        st = self.data.structures.get(n)
        return st is not None and st.port == port

    def identity(self) -> dict:
        """What the frozen models depend on besides the node key (for cache keys)."""
        return {"reading": self.reading, "layout": self.layout, "arm_geometry": self.arm_geometry,
                "builder": f"{self.builder.__module__}.{self.builder.__qualname__}",
                "structures": self.family.inputs if self.passes_structure else "builder",
                "uncertain": self.uncertain, "options": sorted((k, repr(v)) for k, v in self.builder_options.items())}

    def fingerprint(self, key) -> str:
        """Hash of the node model's matrices (the open rest and the three arm LFRs): cache
        entries computed on another version of the models never match."""
        import hashlib

        split, r = self.split(key)
        h = hashlib.sha256()
        for lfr in [split.rest.lfr] + [m.lfr for m in split.separate]:
            h.update(np.ascontiguousarray(lfr.M).tobytes())
            h.update(repr([(b.name, b.size) for b in lfr.blocks]).encode())
        return h.hexdigest()[:24]

    def split(self, key):
        """(SplitAssembly with the uncertain channels open, r) of node ``key``; cached."""
        if key in self._cache:
            return self._cache[key]
        n, port, dock, carry = key
        if not self.available(key):
            have = sorted((k, s.port) for k, s in self.data.structures.items())
            raise ValueError(f"node model (n={n}, port={port}) needs the structure F_{n} with a port at tile "
                             f"{port}; the shipped data has (n, port) in {have} only (the FE generator of "
                             "satdyn.fe provides every F_n)")
        kwargs = dict(data=self.data, n=n, dock=dock, carry_tile=bool(carry), split_arms=True,
                      **self.builder_options)
        if self.takes_port:
            kwargs["port"] = port
        structure = self.structure(n, port)
        if structure is not None:
            kwargs["structure"] = structure
        split = self.builder(**kwargs)
        lfr, r = open_parameter_channels(split.rest.lfr, self.uncertain)
        rest = dataclasses.replace(split.rest, lfr=lfr) if dataclasses.is_dataclass(split.rest) else split.rest
        if rest is split.rest:
            raise TypeError("the builder's SplitAssembly.rest must be a dataclass with an `lfr` field")
        opened = dataclasses.replace(split, rest=rest, n_ext_in=split.n_ext_in + r, n_ext_out=split.n_ext_out + r)
        self._cache[key] = (opened, r)
        return self._cache[key]

    def frozen(self, key, angles) -> tuple[StateSpaceBatch, PlantChannels]:
        """Frozen plants at joint angles (N, 3, 5) [rad] of node ``key``; see module docstring."""
        split, r = self.split(key)
        batch = split.evaluate_batch(angle_values(angles))
        if batch.D.shape[1:] != (r + 6, r + 12):
            raise ValueError(f"frozen plant of node {key} has shape {batch.D.shape[1:]}; expected "
                             f"{(r + 6, r + 12)} ([w; W_G; W_C] -> [z; x''_G])")
        if not np.all(batch.valid):
            raise ValueError(f"node {key}: ill-posed model at {int(np.sum(~batch.valid))} waypoints")
        return batch, PlantChannels(r)
