"""Real scalar parameters of an LFR: uncertain (``ureal``) and varying (``vreal``).

A parameter carries physical data (``name``, ``nominal``, ``range``), a ``kind``
("uncertain" or "varying"; "decision" is reserved) and an optional ``transform``
of an angle ``a`` [rad] into its LFR variable ``v``:

    transform None           v = a
    transform "tan_half"     v = tan(a/2)     (Cayley DCM, valid on |a| < pi)
    transform "tan_quarter"  v = tan(a/4)     (valid on |a| < 2 pi)

The LFR works with the *normalised* variable ``delta``: 0 at the nominal, -1 / +1 at
the range ends.  The map ``delta -> v`` is the Moebius (bilinear) map through the
three points (-1, v_lo), (0, v_nom), (1, v_hi):

    v = (a0 + b0 delta) / (1 + c0 delta),   c0 = (2 v_nom - v_hi - v_lo) / (v_hi - v_lo)

which is affine (c0 = 0) when the range is symmetric in ``v`` and whose pole
``delta = -1/c0`` lies outside [-1, 1] because the nominal is strictly inside the range.
As an upper LFT, ``v = Fu([[-c0, 1], [b0 - a0 c0, a0]], delta)``: one occurrence.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import cached_property

import numpy as np

__all__ = ["Parameter", "Block", "ureal", "vreal", "OutOfRangeWarning", "KINDS", "TRANSFORMS"]

KINDS = ("uncertain", "varying", "decision")
TRANSFORMS = (None, "tan_half", "tan_quarter")
_TRANSFORM_LIMIT = {"tan_half": math.pi, "tan_quarter": 2.0 * math.pi}
_TRANSFORM_DIVISOR = {"tan_half": 2.0, "tan_quarter": 4.0}


class OutOfRangeWarning(UserWarning):
    """A parameter value lies outside its declared range (allowed, but reported)."""


@dataclass(frozen=True)
class Parameter:
    """A real scalar parameter of an LFR (immutable).

    Attributes
    ----------
    name : str
        Plain name; scoped names such as ``"R1.alpha3"`` are ordinary names.
    nominal : float
        Nominal value, physical units (radians for an angle with a transform).
    range : tuple of float
        ``(low, high)`` physical range with ``low < nominal < high``.
    kind : str
        ``"uncertain"``, ``"varying"`` (scheduling) or ``"decision"``.
    transform : str or None
        ``None``, ``"tan_half"`` or ``"tan_quarter"``.
    """

    name: str
    nominal: float
    range: tuple[float, float]
    kind: str = "uncertain"
    transform: str | None = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"parameter `name` must be a non-empty str; got {self.name!r}")
        if self.kind not in KINDS:
            raise ValueError(f"parameter `kind` must be one of {KINDS}; got {self.kind!r}")
        if self.transform not in TRANSFORMS:
            raise ValueError(f"parameter `transform` must be one of {TRANSFORMS}; got {self.transform!r}")
        nominal = _finite_float(self.nominal, "nominal")
        low, high = (_finite_float(v, "range") for v in _pair(self.range, "range"))
        if not low < nominal < high:
            raise ValueError(
                f"parameter {self.name!r}: `range` must satisfy low < nominal < high; "
                f"got range ({low}, {high}) with nominal {nominal}"
            )
        if self.transform is not None:
            limit = _TRANSFORM_LIMIT[self.transform]
            if not (-limit < low and high < limit):
                raise ValueError(
                    f"parameter {self.name!r}: transform {self.transform!r} needs the range inside "
                    f"(-{limit:.6g}, {limit:.6g}) rad; got ({low}, {high})"
                )
        object.__setattr__(self, "nominal", nominal)
        object.__setattr__(self, "range", (low, high))

    # --- maps between physical value, LFR variable and normalised delta -------------
    def variable(self, value):
        """LFR variable ``v`` of a physical value (``tan(a/2)``, ``tan(a/4)`` or the value)."""
        value = np.asarray(value, dtype=float)
        if self.transform is None:
            return value
        return np.tan(value / _TRANSFORM_DIVISOR[self.transform])

    def physical(self, variable):
        """Inverse of :meth:`variable`."""
        variable = np.asarray(variable, dtype=float)
        if self.transform is None:
            return variable
        return _TRANSFORM_DIVISOR[self.transform] * np.arctan(variable)

    @cached_property
    def moebius(self) -> tuple[float, float, float]:
        """Coefficients ``(a0, b0, c0)`` of ``v = (a0 + b0 delta) / (1 + c0 delta)``."""
        v_lo, v_hi = (float(v) for v in self.variable(np.array(self.range)))
        a0 = float(self.variable(self.nominal))
        c0 = (2.0 * a0 - v_hi - v_lo) / (v_hi - v_lo)
        b0 = v_hi * (1.0 + c0) - a0
        return a0, b0, c0

    @property
    def lfr_matrix(self) -> np.ndarray:
        """2x2 matrix ``N`` with ``v = Fu(N, delta)`` (one occurrence of delta)."""
        a0, b0, c0 = self.moebius
        return np.array([[-c0, 1.0], [b0 - a0 * c0, a0]])

    def normalize(self, value, *, warn: bool = True):
        """Normalised ``delta`` of a physical value (vectorised); warns outside the range."""
        value = np.asarray(value, dtype=float)
        if warn:
            self.check_range(value)
        v = self.variable(value)
        a0, b0, c0 = self.moebius
        with np.errstate(divide="ignore", invalid="ignore"):
            return (v - a0) / (b0 - v * c0)

    def denormalize(self, delta):
        """Physical value of a normalised ``delta`` (vectorised)."""
        delta = np.asarray(delta, dtype=float)
        a0, b0, c0 = self.moebius
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.physical((a0 + b0 * delta) / (1.0 + c0 * delta))

    def check_range(self, value) -> None:
        """Warn (:class:`OutOfRangeWarning`) if any value lies outside the range."""
        value = np.asarray(value, dtype=float)
        low, high = self.range
        outside = (value < low) | (value > high)
        if np.any(outside):
            sample = float(np.asarray(value)[outside].ravel()[0])
            warnings.warn(
                f"parameter {self.name!r}: value {sample:.6g} outside its range ({low:.6g}, {high:.6g})"
                + (f" ({int(np.count_nonzero(outside))} values)" if value.ndim else ""),
                OutOfRangeWarning,
                stacklevel=3,
            )

    # --- a parameter is also a 1x1 LFR (of its LFR variable) ---------------------------
    @property
    def lfr(self):
        """This parameter's LFR variable as a 1x1 static LFR (one occurrence)."""
        from .lfr import LFR

        return LFR._from_parameter(self)

    __array_ufunc__ = None

    def __add__(self, other):
        return self.lfr + other

    def __radd__(self, other):
        return other + self.lfr

    def __sub__(self, other):
        return self.lfr - other

    def __rsub__(self, other):
        return other - self.lfr

    def __mul__(self, other):
        return self.lfr * other

    def __rmul__(self, other):
        return other * self.lfr

    def __matmul__(self, other):
        return self.lfr @ other

    def __rmatmul__(self, other):
        return other @ self.lfr

    def __truediv__(self, other):
        return self.lfr / other

    def __rtruediv__(self, other):
        return other / self.lfr

    def __neg__(self):
        return -self.lfr

    def __pow__(self, exponent):
        return self.lfr**exponent


@dataclass(frozen=True)
class Block:
    """One repeated real block ``delta I_size`` of an LFR's Delta."""

    parameter: Parameter
    size: int

    @property
    def name(self) -> str:
        return self.parameter.name

    @property
    def kind(self) -> str:
        return self.parameter.kind

    @property
    def range(self) -> tuple[float, float]:
        return self.parameter.range

    @property
    def transform(self) -> str | None:
        return self.parameter.transform

    @property
    def nominal(self) -> float:
        return self.parameter.nominal


def ureal(name: str, nominal: float, *, percent=None, plusminus=None, range=None) -> Parameter:
    """Uncertain real parameter (as MATLAB's ``ureal``).

    Exactly one of ``percent`` (e.g. 20 for +/-20 % of ``nominal``), ``plusminus``
    (``d`` for +/-d, or ``(d_low, d_high)`` with ``d_low < 0 < d_high``) or
    ``range`` (``(low, high)``) gives the range.
    """
    given = [k for k, v in (("percent", percent), ("plusminus", plusminus), ("range", range)) if v is not None]
    if len(given) != 1:
        raise TypeError(f"ureal({name!r}): give exactly one of percent=, plusminus=, range=; got {given or 'none'}")
    nominal = _finite_float(nominal, "nominal")
    if percent is not None:
        percent = _finite_float(percent, "percent")
        if percent <= 0 or nominal == 0:
            raise ValueError(f"ureal({name!r}): `percent` needs percent > 0 and a non-zero nominal")
        half = abs(nominal) * percent / 100.0
        bounds = (nominal - half, nominal + half)
    elif plusminus is not None:
        if np.ndim(plusminus) == 0:
            d = _finite_float(plusminus, "plusminus")
            bounds = (nominal - abs(d), nominal + abs(d))
        else:
            d_low, d_high = (_finite_float(v, "plusminus") for v in _pair(plusminus, "plusminus"))
            bounds = (nominal + d_low, nominal + d_high)
    else:
        bounds = _pair(range, "range")
    return Parameter(name, nominal, tuple(bounds), "uncertain", None)


def vreal(name: str, nominal: float, range=None, transform: str | None = None) -> Parameter:
    """Varying (scheduling) real parameter; an angle [rad] may use ``transform``
    ``"tan_half"`` (|a| < pi) or ``"tan_quarter"`` (|a| < 2 pi)."""
    if range is None:
        raise TypeError(f"vreal({name!r}): `range=(low, high)` is required")
    return Parameter(name, nominal, _pair(range, "range"), "varying", transform)


def _finite_float(value, what: str) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"`{what}` must be a real number; got {value!r}") from None
    if not math.isfinite(out):
        raise ValueError(f"`{what}` must be finite; got {value!r}")
    return out


def _pair(value, what: str) -> tuple:
    try:
        items = tuple(value)
    except TypeError:
        raise TypeError(f"`{what}` must be a pair (low, high); got {value!r}") from None
    if len(items) != 2:
        raise ValueError(f"`{what}` must be a pair (low, high); got {value!r}")
    return items
