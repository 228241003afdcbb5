"""Result dataclasses as files: rounded JSON for reading, lossless JSON + NPZ for reuse.

- :func:`to_jsonable` — rounded, human-readable data (the CLI's ``results.json``);
- :func:`save` / :func:`load` — every field back bit for bit (structure in ``<stem>.json``,
  arrays in ``<stem>.npz``); :func:`to_dict` / :func:`from_dict` — the same tree in memory.
  Loading builds only classes of the ``satdyn`` package (or classes the caller passes).
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import json
import math
import os
import pathlib
import struct
import sys
from collections.abc import Mapping

import numpy as np

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "SIGNIFICANT_DIGITS",
    "ResultsFileError",
    "UnsupportedValueError",
    "clean_float",
    "from_dict",
    "load",
    "save",
    "to_dict",
    "to_jsonable",
]

SIGNIFICANT_DIGITS = 12
"""Significant digits kept in results files: far beyond any study's accuracy, and enough to
drop the last-bit noise of floating-point arithmetic (``14.999999999999998`` -> ``15.0``)."""


def clean_float(value: float, digits: int = SIGNIFICANT_DIGITS) -> float:
    """``value`` rounded to ``digits`` significant digits (Python then prints its shortest repr).

    Non-finite values and zero are returned unchanged.
    """
    if value == 0.0 or not math.isfinite(value):
        return value
    return float(f"{value:.{digits}g}")


def to_jsonable(obj):
    """Recursively convert a result object to JSON-serialisable Python data.

    Dataclasses with a ``to_dict()`` method use it (so a result controls its public keys);
    other dataclasses become dicts of their fields. Arrays become nested lists, complex
    numbers ``{"real": .., "imag": ..}``, and non-finite floats the strings
    ``"inf"``, ``"-inf"``, ``"nan"`` (JSON has no such numbers). Finite floats are rounded to
    :data:`SIGNIFICANT_DIGITS` significant digits (:func:`clean_float`), so that the file shows
    ``15.0`` rather than ``14.999999999999998``.
    """
    if hasattr(obj, "to_dict") and dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return to_jsonable(obj.to_dict())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return [to_jsonable(x) for x in obj.tolist()] if obj.ndim else to_jsonable(obj.item())
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(x) for x in obj]
    if isinstance(obj, np.generic):
        return to_jsonable(obj.item())
    if isinstance(obj, complex):
        return {"real": to_jsonable(obj.real), "imag": to_jsonable(obj.imag)}
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, float):
        return clean_float(obj)
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    raise TypeError(f"cannot convert {type(obj).__name__} to JSON")


# ---------------------------------------------------------------------------------------------
# Lossless save / load of result dataclasses (issue 30).
#
# The rounded ``to_jsonable`` above serves the CLI's human-readable results.json; what follows
# keeps every bit: the structure goes to JSON (floats are written with Python's shortest
# round-trip repr), arrays to an NPZ file beside it at their own dtype.

FORMAT_NAME = "satdyn-result"
"""Value of the ``"format"`` key of a results file written by :func:`save`."""

FORMAT_VERSION = 1
"""Version of the layout of :func:`to_dict` and of the files of :func:`save`; :func:`load`
refuses any other."""

_TRUSTED_ROOT = "satdyn"
_TAG = "__satdyn__"   # key marking an encoded node (a plain dict holding it is stored as items)


class ResultsFileError(ValueError):
    """A results file (or a :func:`to_dict` tree) cannot be read back: missing array, class
    outside the ``satdyn`` namespace, unknown class or field, wrong format version."""


class UnsupportedValueError(TypeError, ValueError):
    """A value inside a result has no lossless stored form (a function, an open file, ...);
    raised by :func:`save` / :func:`to_dict` before anything is written."""


def _is_instance(obj) -> bool:
    return dataclasses.is_dataclass(obj) and not isinstance(obj, type)


def _class_path(cls) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


# --- adapters for classes whose state is not just their fields -------------------------------

def _materialise_multibody_simulation(result):
    # satdyn.multibody.simulate.SimulationResult computes its derived outputs lazily through a
    # closure over the model (``compute_derived``), which cannot be stored; computing them now
    # fills ``_cache``, after which the closure is never called again, so the loaded result
    # (closure None, cache full) answers every property with the same arrays. (Filling the
    # cache is what the first access of any derived property does anyway.)
    result._derived()
    return {"compute_derived": None}


# class path -> function(result) preparing it and returning {field: value stored instead}
_BEFORE_SAVE = {
    "satdyn.multibody.simulate:SimulationResult": _materialise_multibody_simulation,
}


class _Encoder:
    """Turns a value into JSON-ready nodes; arrays go to ``self.arrays`` (or inline)."""

    def __init__(self, inline_arrays: bool, trusted: tuple = ()):
        self.inline, self.trusted = inline_arrays, trusted
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, value: np.ndarray, where: str, scalar: bool = False) -> dict:
        node = {_TAG: "scalar" if scalar else "ndarray", "dtype": value.dtype.str, "shape": list(value.shape)}
        if value.dtype.hasobject:
            if scalar:
                raise UnsupportedValueError(f"{where}: numpy object scalar cannot be stored")
            node[_TAG] = "object_array"
            node.pop("dtype")
            node["items"] = [self.encode(v, f"{where}[{k}]") for k, v in enumerate(value.ravel(order="C"))]
            return node
        if value.dtype.kind == "V" or value.dtype.names is not None:
            raise UnsupportedValueError(f"{where}: structured numpy arrays (dtype {value.dtype}) are not supported")
        if not scalar and isinstance(value, np.ndarray) and not value.flags.writeable:
            node["writeable"] = False
        if self.inline:
            node["data"] = np.array(value, copy=True)
        else:
            key = f"a{len(self.arrays)}"
            self.arrays[key] = np.asarray(value)
            node["key"] = key
        return node

    def encode(self, obj, where: str):
        if obj is None or type(obj) in (bool, str):
            return obj
        if isinstance(obj, enum.Enum):
            _check_trusted_class(type(obj), where, self.trusted)
            return {_TAG: "enum", "class": _class_path(type(obj)), "name": obj.name}
        if type(obj) is int:
            return obj
        if type(obj) is float:
            if math.isfinite(obj):
                return obj      # json writes repr(float): the shortest string that reads back exactly
            # JSON has no such numbers; the bit pattern keeps a nan's sign and payload too
            return {_TAG: "float", "value": "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf"),
                    "bits": struct.pack(">d", obj).hex()}
        if type(obj) is complex:
            return {_TAG: "complex", "real": self.encode(obj.real, where), "imag": self.encode(obj.imag, where)}
        if isinstance(obj, np.ndarray):
            return self.array(obj, where)
        if isinstance(obj, np.generic):
            return self.array(np.asarray(obj), where, scalar=True)
        if _is_instance(obj):
            return self.dataclass(obj, where)
        if type(obj) is tuple:
            return {_TAG: "tuple", "items": [self.encode(v, f"{where}[{k}]") for k, v in enumerate(obj)]}
        if type(obj) is list:
            return [self.encode(v, f"{where}[{k}]") for k, v in enumerate(obj)]
        if type(obj) in (set, frozenset):
            items = [self.encode(v, f"{where}{{}}") for v in obj]
            items.sort(key=lambda node: json.dumps(node, sort_keys=True, default=repr))  # hash-seed free order
            return {_TAG: type(obj).__name__, "items": items}
        if type(obj) is dict:
            return self.mapping(obj, where)
        if isinstance(obj, pathlib.PurePath):
            return {_TAG: "path", "value": str(obj)}
        kind = _special_kind(obj)
        if kind == "lfr":
            return self.lfr(obj, where)
        if kind == "statespace":
            return self.statespace(obj, where)
        if kind == "transferfunction":
            return self.transferfunction(obj, where)
        raise UnsupportedValueError(
            f"{where}: cannot store a value of type {type(obj).__module__}.{type(obj).__qualname__} "
            "losslessly (supported: dataclasses, numpy arrays and scalars, python scalars, str, None, enums, "
            "list/tuple/dict/set, pathlib paths, control.StateSpace/TransferFunction, satdyn LFR)")

    def mapping(self, obj: dict, where: str):
        if all(type(k) is str for k in obj) and _TAG not in obj:
            return {k: self.encode(v, f"{where}.{k}") for k, v in obj.items()}
        return {_TAG: "dict", "items": [[self.encode(k, f"{where}<key>"), self.encode(v, f"{where}[{k!r}]")]
                                        for k, v in obj.items()]}

    def dataclass(self, obj, where: str) -> dict:
        cls = type(obj)
        _check_trusted_class(cls, where, self.trusted)
        path = _class_path(cls)
        replaced = _BEFORE_SAVE[path](obj) if path in _BEFORE_SAVE else {}
        fields = {}
        for f in dataclasses.fields(obj):
            value = replaced[f.name] if f.name in replaced else getattr(obj, f.name)
            if callable(value) and not isinstance(value, type) and not _is_instance(value) \
                    and _special_kind(value) is None:
                raise UnsupportedValueError(
                    f"{where}.{f.name}: field of {cls.__qualname__} holds a function ({value!r}), "
                    "which cannot be stored; results with callables are not reusable from a file")
            fields[f.name] = self.encode(value, f"{where}.{f.name}")
        return {_TAG: "dataclass", "class": path, "fields": fields}

    def lfr(self, obj, where: str) -> dict:
        node = {_TAG: "lfr", "class": _class_path(type(obj)),
                "A": self.array(obj.A, f"{where}.A"), "B": self.array(obj.B, f"{where}.B"),
                "C": self.array(obj.C, f"{where}.C"), "D": self.array(obj.D, f"{where}.D"),
                "blocks": self.encode(list(obj.blocks), f"{where}.blocks"),
                "inputs": list(obj.input_names), "outputs": list(obj.output_names),
                "input_groups": {k: list(v) for k, v in obj.input_groups.items()},
                "output_groups": {k: list(v) for k, v in obj.output_groups.items()}}
        # The documented constructor re-orders into its canonical form; an LFR built by internal
        # operations could in principle be in another order. Rebuild now and refuse rather than
        # write a file that would load as a different (if equivalent) LFR.
        rebuilt = _build_lfr(type(obj), np.array(obj.A), np.array(obj.B), np.array(obj.C), np.array(obj.D),
                             list(obj.blocks), node["inputs"], node["outputs"],
                             node["input_groups"], node["output_groups"])
        if not _same_lfr(rebuilt, obj):
            raise UnsupportedValueError(
                f"{where}: this LFR is not rebuilt identically by LFR(A, B, C, D, blocks, inputs=, outputs=) "
                "(its channels are not in the constructor's canonical order), so it cannot be stored losslessly")
        return node

    def statespace(self, obj, where: str) -> dict:
        return {_TAG: "statespace", "A": self.array(obj.A, f"{where}.A"), "B": self.array(obj.B, f"{where}.B"),
                "C": self.array(obj.C, f"{where}.C"), "D": self.array(obj.D, f"{where}.D"),
                "dt": self.encode(obj.dt, f"{where}.dt"), "inputs": list(obj.input_labels),
                "outputs": list(obj.output_labels), "states": list(obj.state_labels), "name": obj.name}

    def transferfunction(self, obj, where: str) -> dict:
        def polys(table, label):
            return [[self.array(np.asarray(p), f"{where}.{label}[{i}][{j}]") for j, p in enumerate(row)]
                    for i, row in enumerate(table)]
        return {_TAG: "transferfunction", "num": polys(obj.num, "num"), "den": polys(obj.den, "den"),
                "dt": self.encode(obj.dt, f"{where}.dt"), "inputs": list(obj.input_labels),
                "outputs": list(obj.output_labels), "name": obj.name}


def _special_kind(obj):
    """"lfr", "statespace", "transferfunction" or None; imports nothing that is not loaded yet."""
    lfr_module = sys.modules.get("satdyn.lfr.lfr")
    if lfr_module is not None and isinstance(obj, lfr_module.LFR):
        return "lfr"
    control = sys.modules.get("control")
    if control is not None:
        if isinstance(obj, control.StateSpace):
            return "statespace"
        if isinstance(obj, control.TransferFunction):
            return "transferfunction"
    return None


_LFR_CLASS = "satdyn.lfr.lfr:LFR"


def _build_lfr(cls, A, B, C, D, blocks, inputs, outputs, input_groups, output_groups):
    # ``cls`` is satdyn's LFR, found like any stored class (this bottom-layer module imports no
    # satdyn package itself): the documented constructor, then the documented group setter.
    lfr = cls(A, B, C, D, blocks, inputs=list(inputs), outputs=list(outputs))
    if input_groups or output_groups:
        lfr = lfr.with_groups(inputs=input_groups, outputs=output_groups)
    return lfr


def _same_lfr(a, b) -> bool:
    return (a.M.shape == b.M.shape and np.array_equal(a.M, b.M) and a.nstates == b.nstates
            and tuple(a.blocks) == tuple(b.blocks) and a.input_names == b.input_names
            and a.output_names == b.output_names and a.input_groups == b.input_groups
            and a.output_groups == b.output_groups)


# --- trusted classes -----------------------------------------------------------------------------

def _check_trusted_class(cls, where: str, trusted=()):
    if cls in trusted:
        return
    module = cls.__module__ or ""
    if not (module == _TRUSTED_ROOT or module.startswith(_TRUSTED_ROOT + ".")) or "<locals>" in cls.__qualname__:
        raise UnsupportedValueError(
            f"{where}: class {module}.{cls.__qualname__} is outside the satdyn namespace; load() would refuse "
            "it (pass it in `classes=` to to_dict/from_dict/save/load to trust it explicitly)")


def _resolve_class(path, where: str, trusted: dict):
    """The class named ``module:qualname``, imported only from the satdyn namespace (or trusted)."""
    if not isinstance(path, str) or path.count(":") != 1:
        raise ResultsFileError(f"{where}: class must be written 'module:qualname'; got {path!r}")
    if path in trusted:
        return trusted[path]
    module_name, qualname = path.split(":")
    if not (module_name == _TRUSTED_ROOT or module_name.startswith(_TRUSTED_ROOT + ".")) \
            or not all(part.isidentifier() for part in module_name.split(".") + qualname.split(".")):
        raise ResultsFileError(
            f"{where}: refusing class {path!r}: results files may only name classes of the satdyn package "
            "(pass trusted classes in `classes=`)")
    try:
        obj = importlib.import_module(module_name)
    except ImportError:
        raise ResultsFileError(f"{where}: unknown module {module_name!r} (class {path!r})") from None
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise ResultsFileError(f"{where}: unknown class {path!r}")
    if not isinstance(obj, type):
        raise ResultsFileError(f"{where}: {path!r} is not a class")
    return obj


# --- decoding ------------------------------------------------------------------------------------

class _Decoder:
    def __init__(self, arrays, source: str, trusted: dict):
        self.arrays, self.source, self.trusted = arrays, source, trusted

    def fail(self, where: str, message: str):
        raise ResultsFileError(f"{self.source}: key {where!r}: {message}")

    def decode(self, node, where: str):
        if node is None or type(node) in (bool, int, float, str):
            return node
        if isinstance(node, list):
            return [self.decode(v, f"{where}[{k}]") for k, v in enumerate(node)]
        if not isinstance(node, dict):
            self.fail(where, f"unexpected value of type {type(node).__name__}")
        if _TAG not in node:
            return {k: self.decode(v, f"{where}.{k}") for k, v in node.items()}
        kind = node[_TAG]
        handler = getattr(self, f"_{kind}", None) if isinstance(kind, str) else None
        if handler is None:
            self.fail(where, f"unknown node kind {kind!r}")
        try:
            return handler(node, where)
        except KeyError as missing:
            self.fail(where, f"missing entry {missing.args[0]!r} in a {kind!r} node")

    def _float(self, node, where):
        if node["value"] not in ("nan", "inf", "-inf"):
            self.fail(where, f"non-finite float must be 'nan', 'inf' or '-inf'; got {node['value']!r}")
        if "bits" in node:
            try:
                return struct.unpack(">d", bytes.fromhex(node["bits"]))[0]
            except (ValueError, TypeError, struct.error):
                self.fail(where, f"'bits' must be 16 hexadecimal digits; got {node['bits']!r}")
        return float(node["value"])

    def _complex(self, node, where):
        return complex(self.decode(node["real"], where), self.decode(node["imag"], where))

    def _tuple(self, node, where):
        return tuple(self.decode(v, f"{where}[{k}]") for k, v in enumerate(node["items"]))

    def _set(self, node, where):
        return {self.decode(v, f"{where}{{}}") for v in node["items"]}

    def _frozenset(self, node, where):
        return frozenset(self._set(node, where))

    def _dict(self, node, where):
        return {self.decode(k, f"{where}<key>"): self.decode(v, f"{where}[{k!r}]") for k, v in node["items"]}

    def _path(self, node, where):
        return pathlib.Path(node["value"])

    def _ndarray(self, node, where):
        if "data" in node:
            value = np.array(node["data"], copy=True)
        else:
            key = node["key"]
            if self.arrays is None:
                self.fail(where, f"array {key!r} is stored outside the tree but no arrays were given")
            if key not in self.arrays:
                self.fail(where, f"array {key!r} missing from the arrays file")
            value = np.array(self.arrays[key], copy=True)
        if value.dtype.str != node["dtype"] or list(value.shape) != list(node["shape"]):
            self.fail(where, f"array has dtype {value.dtype.str} and shape {list(value.shape)}; "
                             f"the structure says {node['dtype']} {node['shape']}")
        if node.get("writeable", True) is False:
            value.setflags(write=False)
        return value

    def _scalar(self, node, where):
        return self._ndarray(node, where)[()]

    def _object_array(self, node, where):
        items = [self.decode(v, f"{where}[{k}]") for k, v in enumerate(node["items"])]
        value = np.empty(len(items), dtype=object)
        for k, item in enumerate(items):   # item by item: a list item must not be broadcast
            value[k] = item
        return value.reshape(node["shape"])

    def _enum(self, node, where):
        cls = _resolve_class(node["class"], f"{self.source}: key {where!r}", self.trusted)
        if not issubclass(cls, enum.Enum) or node["name"] not in cls.__members__:
            self.fail(where, f"{node['class']!r} has no enum member {node['name']!r}")
        return cls[node["name"]]

    def _dataclass(self, node, where):
        cls = _resolve_class(node["class"], f"{self.source}: key {where!r}", self.trusted)
        if not dataclasses.is_dataclass(cls):
            self.fail(where, f"{node['class']!r} is not a dataclass")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        stored = node["fields"]
        unknown = sorted(set(stored) - set(fields))
        if unknown:
            self.fail(where, f"{node['class']!r} has no field(s) {unknown} (written by another satdyn version?)")
        values = {name: self.decode(value, f"{where}.{name}") for name, value in stored.items()}
        missing = [name for name, f in fields.items() if name not in values and f.init
                   and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        if missing:
            self.fail(where, f"{node['class']!r} needs field(s) {missing}, absent from the file")
        # The class's own __init__ (so __post_init__ checks the values and builds any derived
        # state) gets the init fields; then every stored field is set as written, init=False ones
        # included (object.__setattr__, as a frozen dataclass's own __init__ does), so that a
        # __post_init__ that normalises its input cannot change what was saved.
        if cls.__dataclass_params__.init:
            try:
                obj = cls(**{name: v for name, v in values.items() if fields[name].init})
            except (TypeError, ValueError) as exc:
                self.fail(where, f"{node['class']!r} refused the stored fields: {exc}")
        else:   # a hand-written __init__ of unknown signature: the fields are the state
            obj = cls.__new__(cls)
        for name, value in values.items():
            object.__setattr__(obj, name, value)
        return obj

    def _lfr(self, node, where):
        if node["class"] != _LFR_CLASS:
            self.fail(where, f"an 'lfr' node must name {_LFR_CLASS!r}; got {node['class']!r}")
        cls = _resolve_class(node["class"], f"{self.source}: key {where!r}", {})
        blocks = self.decode(node["blocks"], f"{where}.blocks")
        mats = [self._ndarray(node[k], f"{where}.{k}") for k in "ABCD"]
        return _build_lfr(cls, *mats, blocks, node["inputs"], node["outputs"], node["input_groups"],
                          node["output_groups"])

    def _statespace(self, node, where):
        import control  # a satdyn dependency, imported only when a file holds one (seconds of import time)
        mats = [self._ndarray(node[k], f"{where}.{k}") for k in "ABCD"]
        return control.ss(*mats, self.decode(node["dt"], f"{where}.dt"), inputs=node["inputs"],
                          outputs=node["outputs"], states=node["states"], name=node["name"])

    def _transferfunction(self, node, where):
        import control  # as above
        num = [[self._ndarray(p, f"{where}.num") for p in row] for row in node["num"]]
        den = [[self._ndarray(p, f"{where}.den") for p in row] for row in node["den"]]
        return control.tf(num, den, self.decode(node["dt"], f"{where}.dt"), inputs=node["inputs"],
                          outputs=node["outputs"], name=node["name"])


# --- public functions ----------------------------------------------------------------------------

def _trusted_map(classes) -> dict:
    classes = tuple(classes or ())
    for cls in classes:
        if not isinstance(cls, type):
            raise TypeError(f"`classes` must hold classes; got {cls!r}")
    return {_class_path(cls): cls for cls in classes}


def _encode_root(result, inline: bool, classes):
    trusted = tuple(classes or ())
    _trusted_map(trusted)
    if not _is_instance(result):
        raise TypeError(f"`result` must be a dataclass instance; got {type(result).__name__}")
    encoder = _Encoder(inline, trusted)
    return encoder.encode(result, "result"), encoder.arrays


def to_dict(result, *, classes=()) -> dict:
    """Lossless tree of plain Python data describing a result dataclass.

    Parameters
    ----------
    result : dataclass instance
        Any satdyn result (nested dataclasses, arrays, LFRs, ``control`` systems, ...).
    classes : sequence of type, optional
        Dataclasses and enums from outside the ``satdyn`` namespace to accept (your own).

    Returns
    -------
    dict
        ``{"format", "version", "result"}``; every node is JSON data, except that arrays are
        kept as numpy arrays (copies) under ``"data"``, so nothing is rounded. :func:`from_dict`
        rebuilds an equal object; :func:`save` writes the same tree with the arrays moved to NPZ.
    """
    node, _ = _encode_root(result, True, classes)
    return {"format": FORMAT_NAME, "version": FORMAT_VERSION, "result": node}


def from_dict(data: dict, *, arrays=None, classes=(), source: str = "<dict>"):
    """Rebuild the result stored by :func:`to_dict` (or read from a file written by :func:`save`).

    Parameters
    ----------
    data : dict
        Tree with keys ``"format"``, ``"version"`` and ``"result"``.
    arrays : mapping of str to ndarray, optional
        Arrays referenced by key (the NPZ file of :func:`save`).
    classes : sequence of type, optional
        Classes from outside the ``satdyn`` namespace to trust; any other such class is refused.
    source : str
        Name used in error messages (the file).
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
        raise ResultsFileError(f"{source}: key 'format': not a satdyn results file (expected {FORMAT_NAME!r})")
    if data.get("version") != FORMAT_VERSION:
        raise ResultsFileError(f"{source}: key 'version': format version {data.get('version')!r} is not "
                               f"supported (this satdyn reads version {FORMAT_VERSION})")
    if "result" not in data:
        raise ResultsFileError(f"{source}: key 'result' missing")
    return _Decoder(arrays, source, _trusted_map(classes)).decode(data["result"], "result")


def _paths(path) -> tuple[pathlib.Path, pathlib.Path]:
    path = pathlib.Path(path)
    if path.suffix == ".json":
        return path, path.with_suffix(".npz")
    if path.suffix == ".npz":
        raise ValueError(f"`path` must be a folder or a '<stem>.json' file; got the arrays file {str(path)!r}")
    return path / "result.json", path / "result.npz"


def save(result, path, *, classes=()) -> pathlib.Path:
    """Write ``result`` losslessly: structure in JSON, arrays in NPZ at their own dtype.

    Parameters
    ----------
    result : dataclass instance
    path : str or path-like
        ``"<stem>.json"`` writes ``<stem>.json`` and ``<stem>.npz``; any other path is a folder
        (created if needed) receiving ``result.json`` and ``result.npz``.
    classes : sequence of type, optional
        Classes from outside the ``satdyn`` namespace to accept (see :func:`to_dict`).

    Returns
    -------
    pathlib.Path
        The JSON file (what :func:`load` takes, as does the folder).
    """
    json_path, npz_path = _paths(path)
    node, arrays = _encode_root(result, False, classes)
    document = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "arrays": npz_path.name, "result": node}
    text = json.dumps(document, indent=1, allow_nan=False)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    # Arrays first, structure last, each through a temporary file: a JSON file present means a
    # complete pair (an interrupted save leaves the previous pair or an orphan NPZ, never half).
    tmp = npz_path.with_name(npz_path.name + ".tmp")
    with open(tmp, "wb") as handle:
        np.savez(handle, **arrays)
    os.replace(tmp, npz_path)
    tmp = json_path.with_name(json_path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, json_path)
    return json_path


def load(path, *, classes=()):
    """Read a result written by :func:`save` (the JSON file or its folder).

    Only classes of the ``satdyn`` package (and those passed in ``classes``) are imported and
    built; arrays are read without pickle. Errors name the file and the key.
    """
    json_path, npz_path = _paths(path)
    if not json_path.is_file():
        raise ResultsFileError(f"{json_path}: no such results file")
    try:
        document = json.loads(json_path.read_text())
    except json.JSONDecodeError as exc:
        raise ResultsFileError(f"{json_path}: not valid JSON ({exc})") from None
    if not isinstance(document, dict):
        raise ResultsFileError(f"{json_path}: not a satdyn results file (top level is not an object)")
    if document.get("arrays") != npz_path.name:
        raise ResultsFileError(f"{json_path}: key 'arrays': expected {npz_path.name!r}; got {document.get('arrays')!r}")
    if not npz_path.is_file():
        raise ResultsFileError(f"{json_path}: key 'arrays': arrays file {npz_path} is missing")
    with np.load(npz_path, allow_pickle=False) as npz:
        arrays = {key: npz[key] for key in npz.files}
    return from_dict(document, arrays=arrays, classes=classes, source=str(json_path))
