"""Parameters: normalisation maps, transforms, validation (reference: the defining
three-point property of the bilinear map and direct formulas; exact to rounding)."""

import math
import warnings

import numpy as np
import pytest

from satdyn.lfr import LFR, OutOfRangeWarning, ureal, vreal


def test_ureal_percent_plusminus_range():
    assert ureal("m", 2.0, percent=10).range == pytest.approx((1.8, 2.2))
    assert ureal("m", -2.0, percent=10).range == pytest.approx((-2.2, -1.8))
    assert ureal("m", 2.0, plusminus=0.5).range == (1.5, 2.5)
    assert ureal("m", 2.0, plusminus=(-0.5, 1.0)).range == (1.5, 3.0)
    p = ureal("m", 2.0, range=(1.0, 4.0))
    assert (p.kind, p.transform) == ("uncertain", None)
    assert vreal("t", 0.1, range=(-1, 1)).kind == "varying"


@pytest.mark.parametrize(
    "param",
    [
        ureal("sym", 2.0, percent=20),
        ureal("asym", 2.0, range=(1.0, 5.0)),
        vreal("half", 0.4, range=(-2.5, 3.0), transform="tan_half"),
        vreal("quarter", -1.0, range=(-6.0, 5.0), transform="tan_quarter"),
        ureal("R1.alpha3", 1.0, range=(0.9, 1.05)),
    ],
)
def test_normalisation_three_points_and_inverse(param):
    # Defining property: delta = 0 at the nominal, -1 / +1 at the range ends.
    lo, hi = param.range
    assert param.normalize(param.nominal) == pytest.approx(0.0, abs=1e-14)
    assert param.normalize(lo) == pytest.approx(-1.0, abs=1e-12)
    assert param.normalize(hi) == pytest.approx(1.0, abs=1e-12)
    x = np.linspace(lo, hi, 7)
    assert np.allclose(param.denormalize(param.normalize(x)), x, rtol=1e-12, atol=1e-12)
    d = np.linspace(-1, 1, 9)
    assert np.all(np.diff(param.denormalize(d)) > 0)  # monotone on [-1, 1]


def test_parameter_lfr_is_its_variable():
    # The 1x1 LFR of a parameter evaluates to its LFR variable (tan(a/4) for tan_quarter).
    p = vreal("q", 0.3, range=(-5.0, 5.0), transform="tan_quarter")
    for a in (-4.0, 0.3, 2.2):
        assert p.lfr.evaluate({"q": a})[0, 0] == pytest.approx(math.tan(a / 4), rel=1e-13)
    assert p.lfr.ndelta == 1
    m = ureal("m", 3.0, range=(2.0, 7.0))
    assert (m * 2.0).evaluate({"m": 6.5})[0, 0] == pytest.approx(13.0, rel=1e-13)


def test_out_of_range_warns_but_evaluates():
    m = ureal("m", 3.0, percent=10)
    with pytest.warns(OutOfRangeWarning, match="'m'"):
        value = m.lfr.evaluate({"m": 5.0})
    assert value[0, 0] == pytest.approx(5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.lfr.evaluate({"m": 3.1})


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: ureal("m", 1.0), "exactly one"),
        (lambda: ureal("m", 1.0, percent=10, range=(0, 2)), "exactly one"),
        (lambda: ureal("m", 0.0, percent=10), "non-zero nominal"),
        (lambda: ureal("m", 1.0, range=(2.0, 3.0)), "low < nominal < high"),
        (lambda: ureal("", 1.0, percent=5), "non-empty"),
        (lambda: vreal("a", 0.0, range=(-4.0, 1.0), transform="tan_half"), "inside"),
        (lambda: vreal("a", 0.0, range=(-1.0, 1.0), transform="tan_third"), "transform"),
        (lambda: vreal("a", 0.0), "range"),
        (lambda: ureal("m", float("nan"), percent=5), "finite"),
    ],
)
def test_bad_parameters(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()


def test_conflicting_parameter_data_is_an_error():
    a1 = ureal("a", 1.0, percent=10)
    a2 = ureal("a", 1.0, percent=20)
    with pytest.raises(ValueError, match="two parameters named 'a'"):
        a1 + a2
    # The same data under one name is one parameter: a + a is 2 a, one channel.
    s = a1 + ureal("a", 1.0, percent=10)
    assert [(b.name, b.size) for b in s.blocks] == [("a", 1)]


def test_blocks_report_kind_range_transform_size():
    a = vreal("R1.alpha3", 0.1, range=(-1, 1), transform="tan_half")
    m = ureal("m", 2.0, percent=5)
    X = m * a * np.ones((1, 1)) + m
    info = {b.name: (b.kind, b.range, b.transform, b.size) for b in X.blocks}
    assert info["R1.alpha3"] == ("varying", (-1.0, 1.0), "tan_half", 1)
    assert info["m"][0:3] == ("uncertain", pytest.approx((1.9, 2.1)), None)
    assert isinstance(X, LFR)
