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


#: Deepest nesting of mappings and lists accepted (a model file needs fewer than 10 levels).
MAX_DEPTH = 64
#: Most values that aliases (``*name``) may add to a document when expanded: refuses
#: "billion laughs" files (1 KB of nested aliases expanding to 1e9 values) before anything
#: walks the expanded document.
MAX_ALIAS_VALUES = 100_000


class _Refused(Exception):
    """A document refused while composing: 1-based line, what was expected, key path."""

    def __init__(self, line, expected, path=()):
        super().__init__(expected)
        self.line, self.expected, self.path = line, expected, path


class _ComposingLoader(_Loader):
    """The loader above with a bound on nesting (PyYAML's composer recurses once per level)."""

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Refused(self.peek_event().start_mark.line + 1,
                               f"mappings and lists nested at most {MAX_DEPTH} deep; this one is deeper")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _children(node):
    if isinstance(node, yaml.MappingNode):
        return [child for pair in node.value for child in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_aliases(root):
    """Refuse aliases that would expand the document by more than :data:`MAX_ALIAS_VALUES` values,
    nest it deeper than :data:`MAX_DEPTH` (an alias of an alias of ...), or contain themselves.
    The expanded size and depth of every node are counted once (memoized), so the check is
    linear in the file, whatever the expansion."""
    size, depth, distinct, on_path = {}, {}, 0, set()
    recursive = "no alias inside the node it names (a recursive alias)"
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            children = _children(node)
            size[key] = 1 + sum(size[id(c)] for c in children)
            depth[key] = 1 + max((depth[id(c)] for c in children), default=0) if children else 0
            if depth[key] > MAX_DEPTH:
                raise _Refused(node.start_mark.line + 1, f"mappings and lists nested at most {MAX_DEPTH} deep; "
                                                         "the aliases here nest them deeper")
            continue
        if key in size:
            continue
        distinct += 1
        on_path.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in on_path:
                raise _Refused(child.start_mark.line + 1, recursive)
            if id(child) not in size:
                stack.append((child, False))
    if size[id(root)] - distinct > MAX_ALIAS_VALUES:
        # name the first node whose expansion alone is too large
        worst = min((n for n in _all_nodes(root) if size[id(n)] > MAX_ALIAS_VALUES), key=lambda n: size[id(n)])
        raise _Refused(worst.start_mark.line + 1,
                       f"aliases that add at most {MAX_ALIAS_VALUES} values to the document; the aliases here "
                       f"expand it to {size[id(root)]} values (a YAML alias bomb?)")


def _all_nodes(root):
    """Every distinct node once (aliases not followed twice)."""
    seen, stack, out = set(), [root], []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        stack.extend(_children(node))
    return out


def _key_identity(key):
    return (key.tag, key.value) if isinstance(key, yaml.ScalarNode) else None


def _lines(root):
    """``{key path: line}`` of every key and item, without expanding aliases (a node reached a second
    time through an alias gives its path the line of the anchored node, not its content's lines).
    A key given twice in one mapping is refused, naming both lines."""
    out, visited = {(): root.start_mark.line + 1}, set()
    stack = [((), root)]
    while stack:
        path, node = stack.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first = {}
            for key, value in node.value:
                identity = _key_identity(key)
                child_path = path + (key.value,)
                if identity is not None and identity in first:
                    # PyYAML (and JSON readers) keep the last value silently: an uncertain mass
                    # replaced by a number two lines below, a port redefined
                    raise _Refused(key.start_mark.line + 1, f"each key once in a mapping; {key.value!r} is "
                                   f"given on line {first[identity]} and again on line {key.start_mark.line + 1}",
                                   child_path)
                if identity is not None:
                    first[identity] = key.start_mark.line + 1
                out.setdefault(child_path, key.start_mark.line + 1)
                stack.append((child_path, value))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                out.setdefault(path + (i,), item.start_mark.line + 1)
                stack.append((path + (i,), item))
    return out


def load_yaml(text: str, file: str = "<string>"):
    """Parse YAML ``text``; returns ``(document, lines)`` with ``lines[key_path] = line``.

    Syntax errors, a key given twice in one mapping, nesting deeper than :data:`MAX_DEPTH`,
    aliases expanding beyond :data:`MAX_ALIAS_VALUES` values and characters YAML forbids
    become :class:`ModelFileError` with the line of the problem, before the document is built.
    """
    loader = None
    try:
        loader = _ComposingLoader(text)   # the reader refuses forbidden characters here
        node = loader.get_single_node()
        lines: dict = {}
        if node is not None:
            _check_aliases(node)
            lines = _lines(node)
        document = loader.construct_document(node) if node is not None else None
    except _Refused as exc:
        raise ModelFileError(file, exc.path, exc.expected, exc.line) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise ModelFileError(file, "<root>", f"invalid YAML: {exc.problem}",
                             None if mark is None else mark.line + 1) from None
    except yaml.reader.ReaderError as exc:   # a character YAML forbids (NUL, other control characters)
        line = text.count("\n", 0, exc.position) + 1
        raise ModelFileError(file, "<root>", f"text without control characters; character #x{exc.character:04x} "
                                             "is not allowed in YAML/JSON (a binary file?)", line) from None
    finally:
        if loader is not None:
            loader.dispose()
    return document, lines


def read_document(path):
    """Read a YAML (``.yaml``/``.yml``) or JSON file, UTF-8 text: ``(document, lines)``."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ModelFileError(p, "<root>", f"cannot read the file ({exc.strerror})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ModelFileError(p, "<root>", f"UTF-8 text (a YAML or JSON model file); byte 0x{data[exc.start]:02x} "
                                          "is not UTF-8 (a binary file, or text saved as Latin-1?)", line) from None
    if p.suffix.lower() == ".json":
        # a literal tab in valid JSON is whitespace (tabs inside strings are written \t), but YAML
        # refuses tab indentation: same text, same lines, for the one parser below
        text = text.replace("\t", " ")
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
