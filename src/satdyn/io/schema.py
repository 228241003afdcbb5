"""JSON schema of satdyn model files and its validation with located error messages.

A model file is YAML (or JSON) with the keys described in docs/io.md. ``validate_document``
checks it against :data:`MODEL_SCHEMA` (jsonschema, Draft 2020-12) and raises
:class:`~satdyn.io.errors.ModelFileError` naming the file, the key path, the line (when the
document came from YAML text) and what was expected.
"""

from __future__ import annotations

import jsonschema
import numpy as np

from .errors import ModelFileError

__all__ = ["MODEL_SCHEMA", "FORMAT_VERSION", "validate_document"]

FORMAT_VERSION = 1

_NUM = {"type": "number"}
_NAME = {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$"}
_PORT_NAME = {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$"}
_PORT_KEY = {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_.]*$"}
_PARAM_REF = {"type": "string", "minLength": 1}
_NUM_OR_PARAM = {"anyOf": [_NUM, _PARAM_REF]}
_VEC3 = {"type": "array", "items": _NUM, "minItems": 3, "maxItems": 3}
_MAT3 = {"type": "array", "items": _VEC3, "minItems": 3, "maxItems": 3}
_VEC6 = {"type": "array", "items": _NUM, "minItems": 6, "maxItems": 6}
_MAT6 = {"type": "array", "items": _VEC6, "minItems": 6, "maxItems": 6}
_FRAMES = {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 2, "maxItems": 2}
_NONNEG = {"type": "number", "minimum": 0}
_POS = {"type": "number", "exclusiveMinimum": 0}

_PARAMETER = {
    "type": "object",
    "required": ["name", "kind", "nominal"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_.]*$"},
        "kind": {"enum": ["uncertain", "varying"]},
        "nominal": _NUM,
        "percent": _POS,
        "plusminus": {"anyOf": [_POS, {"type": "array", "items": _NUM, "minItems": 2, "maxItems": 2}]},
        "range": {"type": "array", "items": _NUM, "minItems": 2, "maxItems": 2},
        "transform": {"enum": ["tan_half", "tan_quarter"]},
        "description": {"type": "string"},
    },
    "oneOf": [{"required": ["percent"]}, {"required": ["plusminus"]}, {"required": ["range"]}],
}

_CHILD = {
    "type": "object",
    "required": ["r", "Phi"],
    "additionalProperties": False,
    "properties": {"r": _VEC3, "Phi": {"type": "array", "items": {"type": "array", "items": _NUM},
                                       "minItems": 6, "maxItems": 6}},
}

_INLINE_MODES = {
    "type": "object",
    "additionalProperties": False,
    "required": ["damping", "L_P"],
    "properties": {
        "frequencies": {"type": "array", "items": {"anyOf": [_POS, _PARAM_REF]}, "minItems": 1},
        "frequencies_hz": {"type": "array", "items": _POS, "minItems": 1},
        "damping": {"anyOf": [_NONNEG, {"type": "array", "items": _NONNEG, "minItems": 1}]},
        "L_P": {"type": "array", "items": _VEC6, "minItems": 1},
        "children": {"type": "object", "additionalProperties": _CHILD},
        "mode_names": {"type": "array", "items": {"type": "string"}},
    },
    "oneOf": [{"required": ["frequencies"]}, {"required": ["frequencies_hz"]}],
}

_MASS_PROPS = {
    "type": "object",
    "additionalProperties": False,
    "required": ["mass", "r_P_com", "inertia_at_com"],
    "properties": {"mass": _POS, "r_P_com": _VEC3, "inertia_at_com": _MAT3},
}

_NASTRAN = {
    "type": "object",
    "additionalProperties": False,
    "required": ["file", "interface_grid"],
    "properties": {
        "file": {"type": "string", "pattern": r"(?i)\.(f06|op2)$"},
        "interface_grid": {"type": "integer", "minimum": 1},
        "ports": {"type": "object", "additionalProperties": {
            "type": "object", "additionalProperties": False, "required": ["grid", "r"],
            "properties": {"grid": {"type": "integer", "minimum": 1}, "r": _VEC3}}},
        "length_unit": {"enum": ["m", "mm"]},
        "mass_unit": {"enum": ["kg", "t"]},
        "frame": {"type": "string", "minLength": 1},
        "modes": {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1},
        "damping": {"anyOf": [_NONNEG, {"type": "array", "items": _NONNEG, "minItems": 1}]},
        "subcase": {"type": "integer", "minimum": 1},
    },
}

_FE_PLATE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["length", "width", "thickness", "youngs_modulus", "poisson_ratio", "density", "element_size"],
    "properties": {
        "length": _POS, "width": _POS, "thickness": _POS, "youngs_modulus": _POS,
        "poisson_ratio": {"type": "number", "minimum": 0, "exclusiveMaximum": 0.5}, "density": _POS,
        "element_size": _POS, "n_modes": {"type": "integer", "minimum": 1, "maximum": 40},
        "damping": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
        "ports": {"type": "array", "items": {"type": "string"}},
    },
}

_RIGID = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "type", "mass", "inertia", "ports"],
    "properties": {
        "name": _NAME, "type": {"const": "rigid"}, "description": {"type": "string"},
        "mass": {"anyOf": [_POS, _PARAM_REF]},
        "inertia": _MAT3,
        "ports": {"type": "object", "propertyNames": _PORT_NAME, "additionalProperties": _VEC3},
        "direct": {"anyOf": [_PORT_NAME, {"type": "null"}]},
        "com_port": {"anyOf": [_PORT_NAME, {"type": "null"}]},
        "frame": {"type": "string", "minLength": 1},
    },
}

_FLEXIBLE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "type"],
    "properties": {
        "name": _NAME, "type": {"const": "flexible"}, "description": {"type": "string"},
        "D_P": _MAT6,
        "mass_properties": _MASS_PROPS,
        "modes": _INLINE_MODES,
        "modal_file": {"type": "string", "pattern": r"(?i)\.(csv|json)$"},
        "nastran": _NASTRAN,
        "fe_plate": _FE_PLATE,
        "frequency_parameters": {"type": "object", "propertyNames": {"pattern": r"^[1-9][0-9]*$"},
                                 "additionalProperties": _PARAM_REF},
        "parent": _PORT_NAME,
        "frame": {"type": "string", "minLength": 1},
        "strict": {"type": "boolean"},
        "allow_overdamped_modes": {"type": "boolean"},
    },
    "allOf": [
        {"oneOf": [{"required": ["modes"]}, {"required": ["modal_file"]}, {"required": ["nastran"]},
                   {"required": ["fe_plate"]}]},
        {"oneOf": [{"required": ["D_P"]}, {"required": ["mass_properties"]}, {"required": ["nastran"]},
                   {"required": ["fe_plate"]}]},
    ],
}

_JOINT_COMMON = {"name": _NAME, "description": {"type": "string"}, "frames": _FRAMES,
                 "offset": _MAT3}

_JOINTS = {
    "frame_change": {"required": ["P_cp"], "properties": {"P_cp": _MAT3}},
    "locked": {"required": ["axis", "angle"],
               "properties": {"axis": _VEC3, "angle": _NUM, "reverse": {"type": "boolean"}}},
    "revolute": {"required": ["axis", "angle"],
                 "properties": {"axis": _VEC3, "angle": _NUM_OR_PARAM, "reverse": {"type": "boolean"}}},
    "actuated_revolute": {"required": ["axis"], "properties": {
        "axis": _VEC3, "angle": _NUM_OR_PARAM, "rotor_inertia": _NONNEG, "stiffness": _NONNEG,
        "damping": _NONNEG, "causality": {"enum": ["torque", "angle"]}}},
    "prismatic": {"required": ["axis"], "properties": {
        "axis": _VEC3, "slider_mass": _NONNEG, "stiffness": _NONNEG, "damping": _NONNEG,
        "causality": {"enum": ["force", "acceleration"]}}},
}


def _joint_schema(kind, spec):
    props = dict(_JOINT_COMMON)
    props.update(spec["properties"])
    props["type"] = {"const": kind}
    if kind == "frame_change":
        props.pop("offset")
    return {"type": "object", "additionalProperties": False, "required": ["name", "type", *spec["required"]],
            "properties": props}


_CONTROLLER = {
    "type": "object",
    "additionalProperties": False,
    "required": ["type", "port", "kp", "kd"],
    "properties": {
        "type": {"const": "attitude_pid"},
        "port": _PORT_KEY,
        "kp": {"type": "array", "items": _NONNEG, "minItems": 3, "maxItems": 3},
        "kd": {"type": "array", "items": _NONNEG, "minItems": 3, "maxItems": 3},
        "ki": {"type": "array", "items": _NONNEG, "minItems": 3, "maxItems": 3},
    },
}

MODEL_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "satdyn model file",
    "type": "object",
    "additionalProperties": False,
    "required": ["satdyn_model", "name", "bodies"],
    "properties": {
        "satdyn_model": {"const": FORMAT_VERSION},
        "name": _NAME,
        "description": {"type": "string"},
        "synthetic": {"type": "boolean"},
        "parameters": {"type": "array", "items": _PARAMETER},
        "bodies": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["type"],
            "properties": {"type": {"enum": ["rigid", "flexible"]}},
            "if": {"properties": {"type": {"const": "rigid"}}}, "then": _RIGID, "else": _FLEXIBLE}},
        "joints": {"type": "array", "items": {
            "type": "object", "required": ["type"],
            "properties": {"type": {"enum": sorted(_JOINTS)}},
            "allOf": [{"if": {"properties": {"type": {"const": k}}}, "then": _joint_schema(k, s)}
                      for k, s in _JOINTS.items()]}},
        "connections": {"type": "array", "items": {"type": "array", "items": _PORT_KEY, "minItems": 2, "maxItems": 2}},
        "external": {"type": "array", "items": _PORT_KEY},
        "free": {"type": "array", "items": _PORT_KEY},
        "inputs": {"type": "array", "items": {"type": "string"}},
        "outputs": {"type": "array", "items": {"type": "string"}},
        "disturbances": {"type": "object", "additionalProperties": _NAME},
        "controller": _CONTROLLER,
    },
}

_VALIDATOR = jsonschema.Draft202012Validator(MODEL_SCHEMA)


def _describe(error) -> str:
    """A short statement of what was expected, from a jsonschema error."""
    v = error.validator
    if v == "required":
        return error.message.replace("is a required property", "is required")
    if v == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        return f"{error.message}; allowed keys: {allowed}"
    if v in ("oneOf", "anyOf") and error.context:
        reqs = [c for c in error.context if c.validator == "required"]
        if reqs and v == "oneOf":
            keys = sorted({c.validator_value[0] for c in reqs})
            return f"exactly one of the keys {keys} is required"
        best = jsonschema.exceptions.best_match(error.context)
        return f"{best.message} (expected {_expected(error.schema)})"
    if v == "oneOf":
        return f"exactly one of the alternatives is allowed: {error.message}"
    return f"{error.message} (expected {_expected(error.schema)})"


def _expected(schema) -> str:
    if "const" in schema:
        return repr(schema["const"])
    if "enum" in schema:
        return f"one of {schema['enum']}"
    if "anyOf" in schema:
        return " or ".join(_expected(s) for s in schema["anyOf"])
    t = schema.get("type")
    if t == "array":
        n = schema.get("minItems"), schema.get("maxItems")
        size = f" of {n[0]}" if n[0] == n[1] and n[0] is not None else ""
        inner = _expected(schema.get("items", {}))
        return f"a list{size} of {inner}"
    if t == "number":
        bounds = [f"> {schema['exclusiveMinimum']}" if "exclusiveMinimum" in schema else "",
                  f">= {schema['minimum']}" if "minimum" in schema else ""]
        return "a number " + " ".join(b for b in bounds if b) if any(bounds) else "a number"
    if t == "string" and schema.get("minLength") == 1 and "pattern" not in schema:
        return "a parameter name (string)"
    if t == "string" and "pattern" in schema:
        return f"a string matching {schema['pattern']}"
    return t or "a valid value"


def _leaves(error):
    """The specific errors under if/then/else and allOf branches (not under anyOf/oneOf)."""
    if error.context and error.validator in ("allOf", "then", "else", "if"):
        for sub in error.context:
            yield from _leaves(sub)
    else:
        yield error


_SPECIFIC = ("enum", "const", "type", "minimum", "exclusiveMinimum", "pattern", "minItems", "maxItems")


def _pick(errors):
    """The most useful error: the deepest key path, then a value error over a missing-key error."""
    leaves = [leaf for e in errors for leaf in _leaves(e)]
    return max(leaves, key=lambda e: (len(e.absolute_path), e.validator in _SPECIFIC))


def _non_finite(document):
    """Key path of the first NaN or infinite number (JSON schema bounds let them through: nan > 0 is False
    but so is nan <= 0), or None. Iterative: the document may be deep."""
    stack = [((), document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, float) and not np.isfinite(value):
            return path, value
        if isinstance(value, dict):
            stack.extend((path + (k,), v) for k, v in reversed(list(value.items())))
        elif isinstance(value, list):
            stack.extend((path + (i,), v) for i, v in reversed(list(enumerate(value))))
    return None


def validate_document(document, file: str = "<string>", lines: dict | None = None) -> None:
    """Validate a loaded model document; raise :class:`ModelFileError` at the first problem.

    ``lines`` maps key paths (tuples) to 1-based line numbers (from :func:`satdyn.io.yamlsrc.load_yaml`).
    """
    bad = _non_finite(document)
    if bad is not None:
        path, value = bad
        raise ModelFileError(file, path, f"a finite number; got {value}", line_of(lines, path))
    errors = list(_VALIDATOR.iter_errors(document))
    if not errors:
        return
    error = _pick(errors)
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        # point at the unknown key itself (the first one in the file), not at its mapping
        allowed = error.schema.get("properties", {})
        unknown = [k for k in error.instance if k not in allowed]
        if unknown:
            key = min(unknown, key=lambda k: line_of(lines, path + (k,)) or 0)
            path = path + (key,)
            raise ModelFileError(file, path, f"a known key; {key!r} is not one (nothing reads it; allowed keys: "
                                             f"{sorted(allowed)})", line_of(lines, path))
    raise ModelFileError(file, path, _describe(error), line_of(lines, path))


def line_of(lines: dict | None, path) -> int | None:
    """Line of the deepest prefix of ``path`` known in ``lines``."""
    if not lines:
        return None
    path = tuple(path)
    while path not in lines and path:
        path = path[:-1]
    return lines.get(path)
