"""YAML text with the line of every key path (for error messages that point into the file)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from .errors import ModelFileError

__all__ = ["load_yaml", "read_document", "dump_yaml"]


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader reading ``5e9`` and ``5.0e9`` as floats (YAML 1.2, as JSON does);
    YAML 1.1 would read them as strings and a modulus would fail validation."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
                |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
                |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
                |[-+]?\.(?:inf|Inf|INF)
                |\.(?:nan|NaN|NAN))$""", re.X),
    list("-+0123456789."))


def _lines(node, path, out):
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            k = key.value
            out[path + (k,)] = key.start_mark.line + 1
            _lines(value, path + (k,), out)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out[path + (i,)] = item.start_mark.line + 1
            _lines(item, path + (i,), out)


def load_yaml(text: str, file: str = "<string>"):
    """Parse YAML ``text``; returns ``(document, lines)`` with ``lines[key_path] = line``.

    Syntax errors become :class:`ModelFileError` with the line of the problem.
    """
    try:
        node = yaml.compose(text, Loader=_Loader)
        document = yaml.load(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise ModelFileError(file, "<root>", f"invalid YAML: {exc.problem}",
                             None if mark is None else mark.line + 1) from None
    lines: dict = {}
    if node is not None:
        _lines(node, (), lines)
    return document, lines


def read_document(path):
    """Read a YAML (``.yaml``/``.yml``) or JSON file: ``(document, lines)``."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise ModelFileError(p, "<root>", f"cannot read the file ({exc.strerror})") from None
    # JSON is YAML 1.2 for the data we accept; one parser gives lines for both.
    return load_yaml(text, str(p))


class _Dumper(yaml.SafeDumper):
    pass


def _represent_list(dumper, data):
    flow = all(isinstance(x, (int, float, str, bool)) or x is None for x in data) and len(data) <= 12
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_Dumper.add_representer(list, _represent_list)


def plain(value):
    """Plain Python data (dict, list, float, int, str, bool, None) from numpy-bearing data."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "tolist"):
        return plain(value.tolist())
    return value


def dump_yaml(document) -> str:
    """YAML text of a document: block style, short numeric rows in flow style, keys in order."""
    return yaml.dump(plain(document), Dumper=_Dumper, sort_keys=False, width=120, default_flow_style=False)
