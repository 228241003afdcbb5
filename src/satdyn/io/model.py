"""Model files: a declarative description of a spacecraft -> satdyn.titop blocks -> one LFR.

``load_model(path)`` reads and validates a YAML/JSON model file (schema:
:data:`satdyn.io.schema.MODEL_SCHEMA`, format in docs/io.md) into a :class:`ModelSpec`;
``build_model(spec)`` makes the parameters (``ureal``/``vreal``), one TITOP block per body
and joint, and ``connect``\\ s them into a :class:`BuiltModel` whose ``lfr`` has the named
signals of the external ports. ``save_model(spec, path)`` writes the description back
(model -> file -> model is the identity on the document and on the LFR).

Every problem is a :class:`~satdyn.io.errors.ModelFileError` (a ``ValueError``) naming the
file, the key path, the line when known, and what was expected; it is raised before any
block is built.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..lfr import ureal, vreal
from ..spatial import rigid_mass_matrix
from .errors import ModelFileError, format_key_path
from .schema import line_of, validate_document
from .yamlsrc import dump_yaml, load_yaml, plain, read_document

__all__ = ["ModelSpec", "BuiltModel", "load_model", "loads_model", "save_model", "build_model", "model_from_dict"]


@dataclass(frozen=True)
class ModelSpec:
    """A validated model description.

    Attributes
    ----------
    document : dict
        The file's content (plain data: dicts, lists, numbers, strings).
    file : str
        Where it came from (``"<string>"`` for text / dicts).
    base_dir : Path
        Folder against which ``modal_file`` / ``nastran.file`` paths are resolved.
    lines : dict
        Key path (tuple) -> 1-based line in the file (empty for dicts).
    """

    document: dict
    file: str = "<string>"
    base_dir: Path = field(default_factory=Path.cwd)
    lines: dict = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        return self.document["name"]

    def error(self, path, expected: str) -> ModelFileError:
        return ModelFileError(self.file, path, expected, line_of(self.lines, path))


@dataclass(frozen=True)
class BuiltModel:
    """A model file turned into blocks and one LFR.

    Attributes
    ----------
    spec : ModelSpec
    system : satdyn.titop.PortModel
        The connected model (``system.lfr`` is the LFR, ``system.ports`` the external ports).
    blocks : dict
        name -> PortModel of every body and joint.
    parameters : dict
        name -> :class:`satdyn.lfr.Parameter`.
    modal : dict
        flexible body name -> :class:`satdyn.io.modal.ModalTable` (SI, as used).
    """

    spec: ModelSpec
    system: object
    blocks: dict
    parameters: dict
    modal: dict

    @property
    def lfr(self):
        return self.system.lfr


def model_from_dict(document: dict, *, file: str = "<string>", base_dir=None, lines=None) -> ModelSpec:
    """Validate a description given as plain data; returns a :class:`ModelSpec`."""
    if not isinstance(document, dict):
        raise ModelFileError(file, "<root>", f"a mapping (the model description); got {type(document).__name__}")
    validate_document(document, file, lines)
    spec = ModelSpec(copy.deepcopy(document), str(file), Path(base_dir) if base_dir is not None else Path.cwd(),
                     dict(lines or {}))
    _check_semantics(spec)
    return spec


def loads_model(text: str, *, file: str = "<string>", base_dir=None) -> ModelSpec:
    """Parse and validate model-file text (YAML or JSON)."""
    document, lines = load_yaml(text, file)
    return model_from_dict(document, file=file, base_dir=base_dir, lines=lines)


def load_model(path) -> ModelSpec:
    """Read and validate a model file (``.yaml``, ``.yml`` or ``.json``)."""
    p = Path(path)
    if p.suffix.lower() not in (".yaml", ".yml", ".json"):
        raise ModelFileError(p, "<root>", f"a .yaml, .yml or .json model file; got {p.suffix!r}")
    document, lines = read_document(p)
    return model_from_dict(document, file=str(p), base_dir=p.parent, lines=lines)


def save_model(spec, path) -> None:
    """Write a :class:`ModelSpec` (or a description dict) as YAML or JSON (by suffix)."""
    document = spec.document if isinstance(spec, ModelSpec) else spec
    p = Path(path)
    if p.suffix.lower() == ".json":
        p.write_text(json.dumps(plain(document), indent=1) + "\n")
    elif p.suffix.lower() in (".yaml", ".yml"):
        p.write_text(dump_yaml(document))
    else:
        raise ValueError(f"`path` must end in .yaml, .yml or .json; got {str(p)!r}")


# ----------------------------------------------------------------------------- checks
def _where(spec, path) -> str:
    """``"bodies[0].mass (line 12)"``: a second place named in a message."""
    line = line_of(spec.lines, path)
    return format_key_path(path) + (f" (line {line})" if line else "")


def _parameter(p):
    """The :class:`~satdyn.lfr.Parameter` of one ``parameters`` entry (ValueError/TypeError if impossible)."""
    if p["kind"] == "uncertain":
        rng = {k: p[k] for k in ("percent", "plusminus", "range") if k in p}
        for key in ("plusminus", "range"):
            if isinstance(rng.get(key), list):
                rng[key] = tuple(rng[key])
        return ureal(p["name"], p["nominal"], **rng)
    return vreal(p["name"], p["nominal"], range=tuple(p["range"]), transform=p.get("transform"))


def _positive_range(spec, params, path, value, quantity, unit):
    """A parameter used as a mass or a frequency: positive over its whole range, ends included."""
    if not isinstance(value, str):
        return
    i, parameter = params[value]
    low, high = parameter.range
    if low <= 0.0:
        source = next(k for k in ("range", "percent", "plusminus") if k in spec.document["parameters"][i])
        given = spec.document["parameters"][i][source]
        raise spec.error(("parameters", i, source),
                         f"a range inside {quantity} > 0 [{unit}] for {value!r}, used at {_where(spec, path)}; "
                         f"{source} = {given} about the nominal {parameter.nominal} gives [{low:g}, {high:g}]")


def _damping_ratios(spec, i, path, values):
    """Modal damping ratios in [0, 1) unless the body says ``allow_overdamped_modes: true``."""
    body = spec.document["bodies"][i]
    ratios = np.atleast_1d(np.asarray(values, float))
    if body.get("allow_overdamped_modes", False) or not np.any(ratios >= 1.0):
        return
    worst = float(ratios[np.argmax(ratios)])
    raise spec.error(path, f"damping ratios in [0, 1) (0.01 is 1 %); got {worst:g} -- a percentage given as a "
                           "ratio? (set `allow_overdamped_modes: true` on the body for ratios >= 1)")


def _check_semantics(spec: ModelSpec) -> None:
    """What the schema cannot express: unique names, parameter references and their physical ranges,
    sizes, damping ratios, plate proportions."""
    doc = spec.document
    params = {}
    for i, p in enumerate(doc.get("parameters", [])):
        if p["name"] in params:
            first = params[p["name"]][0]
            raise spec.error(("parameters", i, "name"), f"a unique parameter name; {p['name']!r} is also the name "
                                                        f"of {_where(spec, ('parameters', first, 'name'))}")
        lo_hi = p.get("range")
        if lo_hi is not None and not lo_hi[0] < p["nominal"] < lo_hi[1]:
            raise spec.error(("parameters", i, "range"), f"[low, high] with low < nominal ({p['nominal']}) < high")
        if p["kind"] == "varying" and "range" not in p:
            raise spec.error(("parameters", i), "a 'range' for a varying parameter")
        try:
            params[p["name"]] = (i, _parameter(p))
        except (TypeError, ValueError) as exc:
            raise spec.error(("parameters", i), str(exc)) from None
    seen = {}
    for section in ("bodies", "joints"):
        for i, b in enumerate(doc.get(section, [])):
            if b["name"] in seen:
                raise spec.error((section, i, "name"), f"a unique block name; {b['name']!r} is also the name of "
                                                       f"{_where(spec, seen[b['name']])}")
            seen[b["name"]] = (section, i, "name")

    def ref(path, value, *, angle=False):
        if isinstance(value, str):
            if value not in params:
                raise spec.error(path, f"a number or the name of a declared parameter; {value!r} is not in "
                                       f"`parameters` ({sorted(params)})")
            transform = params[value][1].transform
            if angle and transform is None:
                raise spec.error(path, f"an angle parameter with transform 'tan_quarter' or 'tan_half'; "
                                       f"{value!r} has none")
            if not angle and transform is not None:
                raise spec.error(path, f"a parameter without transform; {value!r} has one")

    for i, b in enumerate(doc["bodies"]):
        if b["type"] == "rigid":
            ref(("bodies", i, "mass"), b["mass"])
            _positive_range(spec, params, ("bodies", i, "mass"), b["mass"], "mass", "kg")
            for key in ("direct",):
                if b.get(key) is not None and b[key] not in b["ports"]:
                    raise spec.error(("bodies", i, key), f"one of the body's ports {sorted(b['ports'])}")
            continue
        modes = b.get("modes")
        if modes is not None:
            freqs = modes.get("frequencies", modes.get("frequencies_hz"))
            key = "frequencies" if "frequencies" in modes else "frequencies_hz"
            n = len(freqs)
            for j, w in enumerate(freqs):
                ref(("bodies", i, "modes", key, j), w)
                _positive_range(spec, params, ("bodies", i, "modes", key, j), w, "frequency", "rad/s")
            _damping_ratios(spec, i, ("bodies", i, "modes", "damping"), modes["damping"])
            if len(modes["L_P"]) != n:
                raise spec.error(("bodies", i, "modes", "L_P"), f"{n} rows of 6 (one per mode); got "
                                                                f"{len(modes['L_P'])}")
            if isinstance(modes["damping"], list) and len(modes["damping"]) != n:
                raise spec.error(("bodies", i, "modes", "damping"), f"one damping ratio or {n}; got "
                                                                    f"{len(modes['damping'])}")
            for c, child in (modes.get("children") or {}).items():
                if any(len(row) != n for row in child["Phi"]):
                    raise spec.error(("bodies", i, "modes", "children", c, "Phi"),
                                     f"6 rows of {n} (one column per mode)")
        if "nastran" in b and "damping" in b["nastran"]:
            _damping_ratios(spec, i, ("bodies", i, "nastran", "damping"), b["nastran"]["damping"])
        plate = b.get("fe_plate")
        if plate is not None and plate["thickness"] >= min(plate["length"], plate["width"]):
            raise spec.error(("bodies", i, "fe_plate", "thickness"),
                             f"a plate thickness below its in-plane dimensions (length {plate['length']} m, width "
                             f"{plate['width']} m); got {plate['thickness']} m")
        for m, name in (b.get("frequency_parameters") or {}).items():
            ref(("bodies", i, "frequency_parameters", m), name)
            _positive_range(spec, params, ("bodies", i, "frequency_parameters", m), name, "frequency", "rad/s")
            if modes is not None and int(m) > len(modes.get("frequencies", modes.get("frequencies_hz"))):
                raise spec.error(("bodies", i, "frequency_parameters", m), "a mode number within the body's modes")
    for i, j in enumerate(doc.get("joints", [])):
        if "angle" in j:
            ref(("joints", i, "angle"), j["angle"], angle=True)
    blocks = {b["name"]: b for b in doc["bodies"] + doc.get("joints", [])}
    used = {}
    for section in ("connections", "external", "free"):
        for i, item in enumerate(doc.get(section, [])):
            for k, key in enumerate(item if section == "connections" else [item]):
                model = key.split(".", 1)[0]
                path = (section, i, k) if section == "connections" else (section, i)
                if model not in blocks:
                    raise spec.error(path, f"a port '<block>.<port>' of a declared body or joint; "
                                           f"{model!r} is not one ({sorted(blocks)})")
                if key in used:
                    raise spec.error(path, f"each port wired once (connected, external or free); {key!r} is "
                                           f"also at {_where(spec, used[key])}")
                used[key] = path
    ctrl = doc.get("controller")
    if ctrl is not None and ctrl["port"] not in doc.get("external", []):
        raise spec.error(("controller", "port"), f"one of the external ports {doc.get('external', [])}")


# ----------------------------------------------------------------------------- build
def _parameters(doc) -> dict:
    return {p["name"]: _parameter(p) for p in doc.get("parameters", [])}


def _value(params, v):
    return params[v] if isinstance(v, str) else float(v)


def flexible_data(spec: ModelSpec, i: int):
    """The :class:`ModalTable` (SI) of flexible body ``bodies[i]`` from whichever source it names."""
    from .modal import ModalTable, read_modal_table

    b = spec.document["bodies"][i]
    if "modes" in b:
        m = b["modes"]
        hz = "frequencies_hz" in m
        freqs = m["frequencies_hz"] if hz else m["frequencies"]
        nominal = [float(w) * (2 * np.pi if hz else 1.0) if not isinstance(w, str) else np.nan for w in freqs]
        n = len(freqs)
        children = {c: {"r": np.asarray(v["r"], float), "Phi": np.asarray(v["Phi"], float)}
                    for c, v in (m.get("children") or {}).items()}
        table = ModalTable(np.asarray(nominal), np.broadcast_to(np.asarray(m["damping"], float), (n,)).copy(),
                           np.asarray(m["L_P"], float), b.get("frame", b["name"]), children, None, spec.file)
    elif "modal_file" in b:
        table = read_modal_table(spec.base_dir / b["modal_file"])
    elif "fe_plate" in b:
        from .. import fe

        q = dict(b["fe_plate"])
        opts = {k: q.pop(k) for k in ("n_modes", "damping", "ports") if k in q}
        structure = fe.plate(**q, name=b["name"])
        data = fe.port_data(structure, opts.get("ports", []), n_modes=opts.get("n_modes", 10),
                            damping=opts.get("damping"), frame=b.get("frame", b["name"]))
        table = ModalTable(data.frequencies, data.damping, data.L_P, data.frame,
                           {k: {"r": r, "Phi": phi} for k, (r, phi) in data.children.items()}, data.D_P,
                           f"satdyn.fe.plate ({structure.description})")
    else:
        from .nastran import modal_table_from_nastran

        nas = b["nastran"]
        table = modal_table_from_nastran(spec.base_dir / nas["file"], nas["interface_grid"], ports=nas.get("ports"),
                                         modes=nas.get("modes"), damping=nas.get("damping", 0.0),
                                         subcase=nas.get("subcase"), frame=nas.get("frame", b.get("frame")),
                                         length_unit=nas.get("length_unit", "m"),
                                         mass_unit=nas.get("mass_unit", "kg"))
    source = next(k for k in ("modes", "modal_file", "fe_plate", "nastran") if k in b)
    if source in ("modal_file", "nastran"):   # inline ratios were checked with the file; fe.plate checks its own
        _damping_ratios(spec, i, ("bodies", i, source), table.damping)
    if "D_P" in b:
        D_P = np.asarray(b["D_P"], float)
    elif "mass_properties" in b:
        mp = b["mass_properties"]
        D_P = rigid_mass_matrix(mp["mass"], np.asarray(mp["inertia_at_com"], float), np.asarray(mp["r_P_com"], float))
    elif table.D_P is not None:
        D_P = table.D_P
    else:
        raise spec.error(("bodies", i), "'D_P' or 'mass_properties' (the modal source gives no rigid mass matrix)")
    return ModalTable(table.frequencies, table.damping, table.L_P, table.frame, table.ports, D_P, table.source)


def build_model(spec: ModelSpec) -> BuiltModel:
    """Build the blocks of a validated description and connect them (module docstring)."""
    from .modal import ModalTable
    from ..titop import (PortConnectionError, actuated_revolute_joint, connect, flexible_body, frame_change,
                         prismatic_joint, revolute_joint, rigid_body)

    if not isinstance(spec, ModelSpec):
        raise TypeError(f"`spec` must be a ModelSpec (from load_model / loads_model); got {type(spec).__name__}")
    doc = spec.document
    params = _parameters(doc)
    blocks, modal = {}, {}
    for i, b in enumerate(doc["bodies"]):
        try:
            if b["type"] == "rigid":
                blocks[b["name"]] = rigid_body(
                    b["name"], _value(params, b["mass"]), np.asarray(b["inertia"], float),
                    {k: np.asarray(v, float) for k, v in b["ports"].items()}, direct=b.get("direct"),
                    com_port=b.get("com_port", "G"), frame=b.get("frame"))
                continue
            table = flexible_data(spec, i)
            freqs = list(table.frequencies)
            m = b.get("modes", {})
            for j, w in enumerate(m.get("frequencies", [])):
                if isinstance(w, str):
                    freqs[j] = params[w]
            for mode, pname in (b.get("frequency_parameters") or {}).items():
                if int(mode) > len(freqs):
                    raise spec.error(("bodies", i, "frequency_parameters", mode),
                                     f"a mode number in 1..{len(freqs)}")
                freqs[int(mode) - 1] = params[pname]
            nominal = np.array([w.nominal if hasattr(w, "nominal") else w for w in freqs], float)
            table = ModalTable(nominal, table.damping, table.L_P, table.frame, table.ports, table.D_P, table.source)
            modal[b["name"]] = table
            blocks[b["name"]] = flexible_body(b["name"], table.D_P, freqs, table.damping, table.L_P,
                                              table.children(), parent=b.get("parent", "P"),
                                              frame=b.get("frame"), strict=b.get("strict", False))
        except ModelFileError:
            raise
        except ValueError as exc:
            raise spec.error(("bodies", i), str(exc)) from None
    for i, j in enumerate(doc.get("joints", [])):
        frames = tuple(j["frames"]) if "frames" in j else None
        offset = np.asarray(j["offset"], float) if "offset" in j else None
        try:
            t = j["type"]
            if t == "frame_change":
                blk = frame_change(j["name"], np.asarray(j["P_cp"], float), frames=frames)
            elif t in ("locked", "revolute"):
                blk = revolute_joint(j["name"], j["axis"], _value(params, j["angle"]), offset=offset, frames=frames,
                                     reverse=j.get("reverse", False))
            elif t == "actuated_revolute":
                blk = actuated_revolute_joint(
                    j["name"], j["axis"], _value(params, j.get("angle", 0.0)), offset=offset,
                    rotor_inertia=j.get("rotor_inertia", 0.0), stiffness=j.get("stiffness", 0.0),
                    damping=j.get("damping", 0.0), causality=j.get("causality", "torque"), frames=frames)
            else:
                blk = prismatic_joint(j["name"], j["axis"], offset=offset, slider_mass=j.get("slider_mass", 0.0),
                                      stiffness=j.get("stiffness", 0.0), damping=j.get("damping", 0.0),
                                      causality=j.get("causality", "force"), frames=frames)
        except ValueError as exc:
            raise spec.error(("joints", i), str(exc)) from None
        blocks[j["name"]] = blk
    try:
        system = connect(list(blocks.values()), [tuple(c) for c in doc.get("connections", [])],
                         external=doc.get("external", []), free=doc.get("free", []),
                         inputs=doc.get("inputs", []), outputs=doc.get("outputs", []),
                         disturbances=doc.get("disturbances"), name=doc["name"])
    except PortConnectionError as exc:
        raise spec.error(_connection_path(doc, str(exc)), str(exc)) from None
    except ValueError as exc:
        raise spec.error("connections", str(exc)) from None
    return BuiltModel(spec, system, blocks, params, modal)


def _connection_path(doc, message):
    """Key path of the first port named in a ``connect`` error message."""
    for section in ("connections", "external", "free"):
        for i, item in enumerate(doc.get(section, [])):
            for k, key in enumerate(item if section == "connections" else [item]):
                model, port = key.split(".", 1)
                if repr(key) in message or (repr(model) in message and repr(port) in message):
                    return (section, i, k) if section == "connections" else (section, i)
    return ("connections",)
