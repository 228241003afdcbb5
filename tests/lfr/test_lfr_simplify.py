"""Automatic simplification of LFR operations (satdyn.lfr.simplify).

References, independent of the simplification code:
* the same model built with ``auto_simplify(False)`` (every operation keeps all channels)
  and evaluated at the same random parameter points: the simplification treats the states
  as external signals, so A, B, C, D must be equal entry by entry, not only the transfer;
* a plain-float interpreter of the same scalar expressions (numpy), for the entries of A.

Tolerance: entries are rational functions of parameters kept away from poles (ranges
positive, divisions by parameters only), evaluated through loop solves whose matrices
have condition numbers below ~1e3; the merges add ``c * column`` with |c| <= ~1e2, so both
paths agree to ~1e-13 relative.  We allow 1e-9 relative to max(1, |entry|), far above
that round-off on any BLAS and far below any change a wrong merge would cause (O(1)).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from satdyn.lfr import (LFR, as_lfr, auto_simplify, feedback, hstack, interconnect, lft, reduce, simplify,
                        ss, ureal, vstack)

PARAMS = [
    ureal("a", 1.0, percent=50),                 # symmetric: no self-loop
    ureal("b", 1.5, range=(1.0, 3.0)),           # asymmetric: bilinear, self-loop
    ureal("c", 3.0, range=(2.0, 4.0)),
]


def _physical(rng):
    return {p.name: float(p.denormalize(rng.uniform(-1, 1))) for p in PARAMS}


# --- scalar expression recipes, interpreted twice ------------------------------------------
@st.composite
def scalar_recipes(draw, depth=3):
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        if draw(st.booleans()):
            return ("p", draw(st.integers(0, 2)))
        return ("k", draw(st.sampled_from([0.0, 1.0, -2.0, 0.5, 3.0])))
    op = draw(st.sampled_from(["+", "-", "*", "/", "neg"]))
    left = draw(scalar_recipes(depth=depth - 1))
    if op == "neg":
        return ("neg", left)
    if op == "/":
        return ("/", left, ("p", draw(st.integers(0, 2))))  # divisions by a parameter (never 0)
    return (op, left, draw(scalar_recipes(depth=depth - 1)))


def _as_lfr(recipe):
    kind = recipe[0]
    if kind == "p":
        return PARAMS[recipe[1]].lfr
    if kind == "k":
        return as_lfr(recipe[1])
    if kind == "neg":
        return -_as_lfr(recipe[1])
    a, b = _as_lfr(recipe[1]), _as_lfr(recipe[2])
    return _apply(kind, a, b)


def _as_float(recipe, values):
    kind = recipe[0]
    if kind == "p":
        return values[PARAMS[recipe[1]].name]
    if kind == "k":
        return recipe[1]
    if kind == "neg":
        return -_as_float(recipe[1], values)
    a, b = _as_float(recipe[1], values), _as_float(recipe[2], values)
    return _apply(kind, a, b)


def _apply(kind, a, b):
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    return a / b


@st.composite
def models(draw):
    """An ss model whose entries are drawn (with repeats and sign flips) from a small
    pool of expressions -- as users write rows like -k/m, k/m, 1/m -- then wrapped by a
    random user-level operation."""
    pool = [draw(scalar_recipes()) for _ in range(draw(st.integers(1, 4)))]
    n = draw(st.integers(1, 3))

    def entry():
        choice = draw(st.integers(-1, len(pool) - 1))
        if choice < 0:
            return ("k", draw(st.sampled_from([0.0, 1.0])))
        return pool[choice] if draw(st.booleans()) else ("neg", pool[choice])

    A = [[entry() for _ in range(n)] for _ in range(n)]
    B = [[entry()] for _ in range(n)]
    C = [[entry() for _ in range(n)]]
    wrap = draw(st.sampled_from(["none", "feedback", "stack", "product", "zero", "difference", "select",
                                 "inverse", "interconnect", "lft"]))
    return A, B, C, wrap


def _build(recipe_model):
    A, B, C, wrap = recipe_model

    def lfr(rows):
        return [[_as_lfr(e) for e in row] for row in rows]

    G = ss(lfr(A), lfr(B), lfr(C), [[0.0]])
    if wrap == "feedback":
        return feedback(G, 0.3)
    if wrap == "stack":
        return vstack([G, G, -G])
    if wrap == "product":
        return G @ hstack([G, 2.0 * G])[:, :1] if G.ninputs == 1 else G
    if wrap == "zero":
        return 0.0 * G + G
    if wrap == "difference":
        return vstack([G - G, G])
    if wrap == "select":
        return vstack([G, 0.5 * G])[1, :]
    if wrap == "inverse":
        return (G + 2.0).inv()
    if wrap == "interconnect":  # unity feedback by signal names
        summer = as_lfr(np.array([[1.0, -1.0]])).rename(inputs=["r", "y"], outputs="e")
        return interconnect([G.rename(inputs="e", outputs="y"), summer], inputs=["r"], outputs=["y"])
    if wrap == "lft":  # lower LFT of [[G, G], [G, G]] closed by 0.2
        return lft(vstack([hstack([G, G]), hstack([G, G])]), as_lfr(0.2))
    return G


def _abcd(sys_or_array):
    return [np.asarray(getattr(sys_or_array, k)) for k in "ABCD"]


def _close(x, y):
    return np.allclose(x, y, rtol=1e-9, atol=1e-9 * max(1.0, float(np.abs(y).max(initial=0.0))))


@given(models(), st.integers(0, 2**31))
def test_simplified_model_has_the_same_state_space_matrices(recipe_model, seed):
    simplified = _build(recipe_model)
    with auto_simplify(False):
        raw = _build(recipe_model)
    assert simplified.ndelta <= raw.ndelta and simplified.nstates == raw.nstates
    rng = np.random.default_rng(seed)
    for _ in range(3):
        values = _physical(rng)
        got = _abcd(simplified.evaluate(values, strict=False))
        ref = _abcd(raw.evaluate(values, strict=False))
        assert all(_close(g, r) for g, r in zip(got, ref))


@given(models(), st.integers(0, 2**31))
def test_entries_of_A_match_plain_float_evaluation(recipe_model, seed):
    A, B, C, _ = recipe_model
    G = _build((A, B, C, "none"))
    values = _physical(np.random.default_rng(seed))
    A_ref = np.array([[_as_float(e, values) for e in row] for row in A])
    assert _close(np.asarray(G.evaluate(values, strict=False).A), A_ref)


# --- the cases named in the issue -----------------------------------------------------------
def test_zero_times_parameter_is_the_constant_zero():
    m = ureal("m", 2.0, percent=10)
    Z = 0 * m
    assert Z.ndelta == 0 and Z.occurrences == {} and np.array_equal(Z.evaluate({}), np.zeros((1, 1)))
    # and it stays zero inside larger expressions: no dead channels are carried along
    X = 0.0 * (m * np.ones((2, 2))) + np.eye(2)
    assert X.ndelta == 0


def test_cancelling_and_repeated_expressions_share_channels():
    m, k = ureal("m", 2.0, percent=10), ureal("k", 5.0, range=(4.0, 7.0))
    assert (m - m).ndelta == 0
    assert vstack([m, m]).ndelta == 1                     # the same expression fed by one input
    row = hstack([-k / m, k / m, 1 / m])                  # a typical acceleration row
    assert row.occurrences == {"m": 1, "k": 1}
    x = np.array([0.3, -1.1, 0.7])
    for v in ({"m": 1.9, "k": 4.2}, {"m": 2.15, "k": 6.9}):
        expect = (-v["k"] * x[0] + v["k"] * x[1] + x[2]) / v["m"]
        assert np.isclose((row.evaluate(v) @ x)[0], expect, rtol=1e-12)


def test_two_mass_servo_entries_reach_the_minimal_three_channels():
    m1, m2, k = ureal("m1", 1, percent=20), ureal("m2", 1, percent=20), ureal("k", 1, percent=20)
    A = [[0, 0, 1, 0], [0, 0, 0, 1], [-k / m1, k / m1, 0, 0], [k / m2, -k / m2, 0, 0]]
    P = ss(A, [[0], [0], [1 / m1], [0]], [[0, 1, 0, 0]], [[0]])
    with auto_simplify(False):
        raw = ss(A, [[0], [0], [1 / m1], [0]], [[0, 1, 0, 0]], [[0]])
    assert raw.ndelta == 9 and P.occurrences == {"m1": 1, "k": 1, "m2": 1}
    v = {"m1": 0.85, "m2": 1.13, "k": 1.19}
    A_ref = np.array([[0, 0, 1, 0], [0, 0, 0, 1], [-v["k"] / v["m1"], v["k"] / v["m1"], 0, 0],
                      [v["k"] / v["m2"], -v["k"] / v["m2"], 0, 0]])
    S = P.evaluate(v)
    assert np.allclose(S.A, A_ref, rtol=1e-12) and np.allclose(S.B.ravel(), [0, 0, 1 / v["m1"], 0])


def test_occurrences_and_simplify_on_a_raw_realisation():
    m = ureal("m", 2.0, percent=10)
    N = m.lfr_matrix
    # Raw constructor: two identical copies of m's channel feeding the output (kept as given).
    M = np.array([[N[0, 0], 0, N[0, 1]], [0, N[0, 0], N[0, 1]], [N[1, 0], N[1, 0], 2 * N[1, 1]]])
    X = LFR(np.zeros((0, 0)), np.zeros((0, 3)), np.zeros((3, 0)), M, blocks=[(m, 2)])
    assert X.occurrences == {"m": 2}
    Y = simplify(X)
    assert Y.occurrences == {"m": 1}
    assert np.allclose(Y.evaluate({"m": 2.1}), X.evaluate({"m": 2.1}), rtol=1e-13)
    assert np.isclose(float(X.evaluate({"m": 2.1})[0, 0]), 2 * 2.1)


def test_auto_simplify_context_restores_the_setting():
    m = ureal("m", 2.0, percent=10)
    with auto_simplify(False):
        assert (m - m).ndelta == 2
    assert (m - m).ndelta == 0


# --- reduce(states=False), evaluate_batch / sample -------------------------------------------
def test_delta_only_reduction_keeps_channels_acting_on_unobservable_states():
    p = ureal("p", 2.0, percent=20)
    # The state is unobservable (C = 0): the I/O reduction removes it and p; the Delta-only
    # reduction must keep p, which sets A.
    G = ss([[-p]], [[1.0]], [[0.0]], [[1.0]])
    assert reduce(G).ndelta == 0
    R = reduce(G, states=False)
    assert R.occurrences == {"p": 1} and R.nstates == 1
    batch = G.evaluate_batch({"p": np.array([1.7, 2.3])})
    assert np.allclose(batch.A[:, 0, 0], [-1.7, -2.3], rtol=1e-13)


def test_evaluate_batch_and_sample_reduce_first_without_changing_values():
    m, k = ureal("m", 2.0, percent=10), ureal("k", 5.0, range=(4.0, 7.0))
    with auto_simplify(False):
        G = ss([[0, 1], [-k / m, -0.1 * k / m]], [[0], [1 / m]], [[1, 0]], [[0]])
    assert G.ndelta == 5  # k/m twice (k and m channels each) and 1/m (one m channel)
    values = {"m": np.array([1.85, 2.0, 2.2]), "k": np.array([4.1, 5.0, 6.8])}
    reduced, plain = G.evaluate_batch(values), G.evaluate_batch(values, reduce=False)
    for a, b in zip(_abcd(reduced), _abcd(plain)):
        assert _close(a, b)
    assert G._cache["delta_reduced"].ndelta < G.ndelta
    s1, s2 = G.sample(4, 7), G.sample(4, 7, reduce=False)
    assert all(np.array_equal(s1.values[n], s2.values[n]) for n in ("m", "k"))
    assert _close(s1.systems.A, s2.systems.A)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda G: G.evaluate_batch({}, reduce="yes"), "reduce"),
        (lambda G: G.sample(2, 0, reduce=1), "reduce"),
        (lambda G: reduce(G, states="no"), "states"),
        (lambda G: simplify(np.eye(2)), "simplify"),
    ],
)
def test_bad_flags_raise_type_errors_naming_the_argument(call, name):
    G = ss([[-ureal("p", 1.0, percent=10)]], [[1.0]], [[1.0]], [[0.0]])
    with pytest.raises(TypeError, match=name):
        call(G)


def test_auto_simplify_rejects_a_non_bool():
    with pytest.raises(TypeError, match="enabled"):
        with auto_simplify(1):
            pass


def test_modal_row_shares_the_outer_frequency():
    # -omega^2 and -2 zeta omega: one-parameter factors are nested in name order, so both
    # entries have omega outermost and share it: omega x 2 (the minimum, spec 000a 2.6.3), zeta x 1.
    w, z = ureal("omega", 8.0, percent=20), ureal("zeta", 0.005, range=(0.002, 0.01))
    G = ss([[0.0, 1.0], [-(w * w), -2 * z * w]], [[0.0], [1.0]], [[1.0, 0.0]], [[0.0]])
    assert G.occurrences == {"omega": 2, "zeta": 1}
    v = {"omega": 7.1, "zeta": 0.009}
    assert np.allclose(G.evaluate(v).A, [[0, 1], [-7.1**2, -2 * 0.009 * 7.1]], rtol=1e-12)
