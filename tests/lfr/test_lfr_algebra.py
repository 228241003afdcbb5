"""LFR algebra against numpy / python-control computed on the evaluated matrices.

Reference: random expressions built from + - @ * inverse, stacking, transpose and
feedback are evaluated two ways -- as one LFR evaluated at random parameter values,
and as the same operations on numpy matrices (transfer matrices at a fixed complex
frequency s0 for dynamic terms) built from the evaluated leaves.  The two paths share
no code.  Tolerance 1e-9 relative: a few products/inverses of well-conditioned 2x2
matrices (condition guard 1e6) lose at most ~1e-10.
"""

import control
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from satdyn.lfr import LFR, as_lfr, blockdiag, feedback, hstack, reduce, ss, ureal, vreal, vstack

PARAMS = [
    ureal("a", 1.5, percent=30),
    ureal("b", -0.7, range=(-1.2, 0.1)),
    vreal("R1.alpha3", 0.2, range=(-2.0, 2.5), transform="tan_half"),
]
S0 = 0.4 + 1.3j


def _var(p, values):
    return float(p.variable(values[p.name]))


def _tf(sysobj):
    """Transfer matrix at S0 of a control.StateSpace, or the matrix itself."""
    if isinstance(sysobj, np.ndarray):
        return sysobj.astype(complex)
    A, B, C, D = (np.asarray(getattr(sysobj, k)) for k in "ABCD")
    return C @ np.linalg.solve(S0 * np.eye(A.shape[0]) - A, B) + D


def _leaf(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    kind = draw(st.sampled_from(["const", "param", "param", "dyn"]))
    C1, C2 = rng.normal(size=(2, 2)), rng.normal(size=(2, 2))
    if kind == "const":
        return as_lfr(C1 + 2 * np.eye(2)), lambda v: (C1 + 2 * np.eye(2)).astype(complex)
    p = PARAMS[draw(st.integers(0, 2))]
    if kind == "param":
        return p * C1 + C2, lambda v: _var(p, v) * C1 + C2
    # dynamic leaf: x' = A(p) x + B u with A depending on the parameter

    def A_num(v):
        return np.array([[0.0, 1.0], [-2.0 - _var(p, v) ** 2, -0.5]])

    X = ss([[0.0, 1.0], [-2.0 - p * p, -0.5]], np.eye(2), C1, C2)
    return X, lambda v: C1 @ np.linalg.solve(S0 * np.eye(2) - A_num(v), np.eye(2)) + C2


@st.composite
def expressions(draw, depth=3):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return _leaf(draw)
    op = draw(st.sampled_from(["+", "-", "@", "*", "inv", "stack", "T", "feedback", "neg"]))
    X, fx = draw(expressions(depth=depth - 1))
    if op == "inv":
        return X.inv(), lambda v: np.linalg.inv(fx(v))
    if op == "T":
        return X.T, lambda v: fx(v).T
    if op == "neg":
        return -X, lambda v: -fx(v)
    if op == "*":
        p = PARAMS[draw(st.integers(0, 2))]
        c = draw(st.floats(-2, 2))
        if draw(st.booleans()):
            return p * X * c, lambda v: _var(p, v) * c * fx(v)
        return X * p.lfr, lambda v: fx(v) * _var(p, v)
    Y, fy = draw(expressions(depth=depth - 1))
    if op == "+":
        return X + Y, lambda v: fx(v) + fy(v)
    if op == "-":
        return X - Y, lambda v: fx(v) - fy(v)
    if op == "@":
        return X @ Y, lambda v: fx(v) @ fy(v)
    if op == "feedback":
        return feedback(X, Y), lambda v: np.linalg.solve(np.eye(2) + fx(v) @ fy(v), fx(v))
    # stack: [X, Y] @ [Y; X] brings it back to 2x2
    H, V = hstack([X, Y]), vstack([Y, X])
    return H @ V, lambda v: np.hstack([fx(v), fy(v)]) @ np.vstack([fy(v), fx(v)])


def _points(seed, n):
    rng = np.random.default_rng(seed)
    return [{p.name: float(p.denormalize(rng.uniform(-1, 1))) for p in PARAMS} for _ in range(n)]


@given(expressions(), st.integers(0, 10_000))
def test_random_expressions_match_numpy(expr, seed):
    try:
        X, f = expr
    except ValueError:  # pragma: no cover
        raise
    points = _points(seed, 3)
    for values in points:
        ref = f(values)
        assume(np.all(np.isfinite(ref)) and np.linalg.cond(ref) < 1e6)
        used = {k: v for k, v in values.items() if k in X.parameters}
        got = _tf(X.evaluate(used))
        scale = max(1.0, np.abs(ref).max())
        assert np.allclose(got, ref, rtol=1e-9, atol=1e-9 * scale)


@given(expressions(), st.integers(0, 10_000))
def test_batch_equals_pointwise_and_reduce_preserves(expr, seed):
    # evaluate_batch vs evaluate (same numbers, different code path: vectorised chunks
    # vs N=1): 1e-12.  reduce(): the evaluated function must not change (1e-9: the
    # projections are orthogonal, so only rounding of a few products enters).
    X, f = expr
    points = _points(seed, 4)
    values = {k: np.array([p[k] for p in points]) for k in X.parameters}
    batch = X.evaluate_batch(values)
    R = reduce(X)
    assert R.ndelta <= X.ndelta and R.nstates <= X.nstates
    for i, pt in enumerate(points):
        used = {k: v for k, v in pt.items() if k in X.parameters}
        try:
            single = X.evaluate(used)
        except ValueError:
            assert not (batch.valid[i] if not X.is_static else np.all(np.isfinite(batch[i])))
            continue
        if not X.parameters:
            i = 0  # no parameter: a batch of one point
        if X.is_static:
            assert np.allclose(batch[i], single, rtol=1e-12, atol=1e-12 * max(1, np.abs(single).max()))
        else:
            for key in "ABCD":
                a, b = getattr(batch, key)[i], getattr(single, key)
                assert np.allclose(a, b, rtol=1e-12, atol=1e-12 * max(1, np.abs(b).max()))
        ref = _tf(single)
        assume(np.linalg.cond(ref) < 1e8)
        red = _tf(R.evaluate(used))
        assert np.allclose(red, ref, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(ref).max()))


def test_mul_rules_and_array_ufunc():
    a = ureal("a", 1.0, percent=10)
    X = a * np.ones((2, 3))
    assert X.shape == (2, 3) and X.ndelta == 1  # min(p, m) copies, merged: a * ones is rank 1 in a
    with pytest.raises(TypeError, match=r"only with scalars or 1x1"):
        X * X.T
    with pytest.raises(TypeError, match=r"only with scalars or 1x1"):
        np.ones((3, 2)) * X
    # __array_ufunc__ = None: ndarray @ LFR is an LFR, never an object array
    Y = np.ones((4, 2)) @ X
    assert isinstance(Y, LFR) and Y.shape == (4, 3)
    assert isinstance(np.float64(2.0) * X, LFR)
    assert np.allclose((2 * X).evaluate({"a": 1.05}), 2.1 * np.ones((2, 3)))


def test_shape_errors():
    X = as_lfr(np.ones((2, 3)))
    with pytest.raises(ValueError, match="cannot add"):
        X + as_lfr(np.ones((3, 2)))
    with pytest.raises(ValueError, match="do not align"):
        X @ X
    with pytest.raises(ValueError, match="square"):
        X.inv()
    with pytest.raises(ValueError, match="same number of outputs"):
        hstack([X, np.ones((3, 3))])
    with pytest.raises(ValueError, match="same number of inputs"):
        vstack([X, np.ones((3, 2))])
    with pytest.raises(ValueError, match="singular"):
        as_lfr(np.zeros((2, 2))).inv()
    with pytest.raises(ValueError, match="2-D"):
        as_lfr(np.ones(3))
    with pytest.raises(ValueError, match=r"`D` must have shape"):
        LFR(np.zeros((1, 1)), np.zeros((1, 2)), np.zeros((2, 1)), np.zeros((3, 3)))


def test_statespace_products_both_orders_and_names():
    # Reference: python-control's own series connection on the evaluated system.
    G = control.ss([[-1.0, 0.3], [0.0, -2.0]], [[1.0], [0.5]], [[1.0, 1.0]], [[0.1]], inputs="e", outputs="v")
    k = ureal("k", 2.0, percent=20)
    for left in (True, False):
        X = (G @ k.lfr) if left else (k.lfr @ G)
        gain = control.ss([], [], [], [[2.3]])
        ref = control.series(gain, G) if left else control.series(G, gain)
        S = X.evaluate({"k": 2.3})
        for w in (0.1, 1.0, 7.0):
            assert np.allclose(S(1j * w), ref(1j * w), rtol=1e-12)
    assert (G @ k.lfr).output_names == ("v",)
    assert (k.lfr @ G).input_names == ("e",)


def test_selection_by_index_and_names():
    G = ss(-np.eye(3), np.eye(3), np.eye(3), np.zeros((3, 3)), inputs=[("W", 2), "f"], outputs=["p", ("acc", 2)])
    assert G.input_groups == {"W": ("W[0]", "W[1]")}
    S = G["acc", "W"]
    assert S.shape == (2, 2) and S.input_names == ("W[0]", "W[1]") and S.output_groups == {"acc": ("acc[0]", "acc[1]")}
    assert np.allclose(G[1:, 0:2].nominal().D, G["acc", ["W[0]", "W[1]"]].nominal().D)
    with pytest.raises(KeyError, match="unknown output signal 'nope'"):
        G["nope", 0]
    with pytest.raises(IndexError):
        G[5, 0]


def test_power_division_and_blockdiag():
    a = ureal("a", 2.0, percent=10)
    X = a * np.array([[1.0, 0.5], [0.0, 1.0]]) + np.eye(2)
    v = {"a": 2.1}
    Xn = 2.1 * np.array([[1.0, 0.5], [0.0, 1.0]]) + np.eye(2)
    assert np.allclose((X**2).evaluate(v), Xn @ Xn)
    assert np.allclose((X**-1).evaluate(v), np.linalg.inv(Xn))
    assert np.allclose((X / a).evaluate(v), Xn / 2.1)
    assert np.allclose((1.0 / a).evaluate(v), 1 / 2.1)
    B = blockdiag([X, a])
    assert np.allclose(B.evaluate(v), np.block([[Xn, np.zeros((2, 1))], [np.zeros((1, 2)), 2.1]]))
