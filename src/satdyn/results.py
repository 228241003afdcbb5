"""Conversion of result dataclasses to JSON-ready data (used by the CLI, which alone writes files)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import numpy as np

__all__ = ["to_jsonable"]


def to_jsonable(obj):
    """Recursively convert a result object to JSON-serialisable Python data.

    Dataclasses with a ``to_dict()`` method use it (so a result controls its public keys);
    other dataclasses become dicts of their fields. Arrays become nested lists, complex
    numbers ``{"real": .., "imag": ..}``, and non-finite floats the strings
    ``"inf"``, ``"-inf"``, ``"nan"`` (JSON has no such numbers).
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
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise TypeError(f"cannot convert {type(obj).__name__} to JSON")
