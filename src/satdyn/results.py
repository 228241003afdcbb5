"""Conversion of result dataclasses to JSON-ready data (used by the CLI, which alone writes files)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import numpy as np

__all__ = ["to_jsonable", "clean_float", "SIGNIFICANT_DIGITS"]

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
