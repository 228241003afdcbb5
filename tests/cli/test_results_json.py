"""satdyn.results: JSON without float noise (12 significant digits, shortest repr)."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from satdyn.results import SIGNIFICANT_DIGITS, clean_float, to_jsonable


def test_float_noise_is_removed():
    # 15 deg after a rad -> deg round trip is 14.999999999999998 in binary64
    noisy = float(np.rad2deg(np.deg2rad(15.0)) - 2e-15)
    assert noisy != 15.0
    assert json.dumps(to_jsonable({"angle_deg": noisy})) == '{"angle_deg": 15.0}'
    assert to_jsonable(np.float64(0.1) + np.float64(0.2)) == 0.3
    assert to_jsonable(np.array([1 / 3])) == [0.333333333333]


@given(st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=False).filter(lambda x: x != 0.0))
def test_rounding_keeps_twelve_significant_digits(x):
    # Independent bound: rounding to d significant digits moves a number by at most half a unit
    # in its d-th digit, i.e. relative 0.5e-(d-1) (plus one binary64 rounding of the result).
    y = clean_float(x)
    assert abs(y - x) <= 0.5 * 10.0 ** (1 - SIGNIFICANT_DIGITS) * abs(x) * (1 + 1e-15) + 2 * math.ulp(x)
    assert clean_float(y) == y                                   # idempotent


@pytest.mark.parametrize("value, text", [(math.inf, "inf"), (-math.inf, "-inf"), (math.nan, "nan")])
def test_non_finite_values_become_strings(value, text):
    assert to_jsonable(value) == text


def test_integers_and_bools_are_untouched():
    assert to_jsonable({"n": 123456789012345678, "ok": True}) == {"n": 123456789012345678, "ok": True}
