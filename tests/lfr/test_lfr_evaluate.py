"""Evaluation paths: ill-posed points, partial substitution, sampling, frequency
response (python-control's own frequency response is the oracle), input errors."""

import control
import numpy as np
import pytest

from satdyn.lfr import LFR, IllPosedError, StateSpaceBatch, as_lfr, ss, ureal, vreal


def _ill_posed():
    # Fu([[1, 1], [1, 0]], delta) = delta / (1 - delta): singular at delta = 1.
    a = ureal("a", 0.0, plusminus=1.0)
    return LFR(np.zeros((0, 0)), np.zeros((0, 2)), np.zeros((2, 0)), [[1.0, 1.0], [1.0, 0.0]], [(a, 1)])


def test_ill_posed_batch_is_nan_with_mask_and_point_raises():
    X = _ill_posed()
    vals = np.array([0.5, 1.0, -0.5])
    out = X.evaluate_batch({"a": vals})
    assert np.allclose(out[[0, 2], 0, 0], vals[[0, 2]] / (1 - vals[[0, 2]]), rtol=1e-14)
    assert np.all(np.isnan(out[1]))
    with pytest.raises(IllPosedError, match=r"ill posed.*'a': 1.0"):
        X.evaluate({"a": 1.0})
    # Dynamic: StateSpaceBatch.valid marks the row.
    D = ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]]) @ X
    batch = D.evaluate_batch({"a": vals})
    assert batch.valid.tolist() == [True, False, True]
    assert np.all(np.isnan(batch.A[1])) and np.all(np.isfinite(batch.A[0]))
    # Near-singular points (rcond below RCOND_TOL) are flagged too.
    near = X.evaluate_batch({"a": np.array([1.0 - 1e-15])})
    assert np.all(np.isnan(near))


def test_subs_partial_substitution():
    m = ureal("m", 2.0, percent=20)
    k = ureal("k", 5.0, range=(4.0, 7.0))
    t = vreal("t", 0.1, range=(-1.0, 1.0), transform="tan_half")
    G = ss([[0.0, 1.0], [-k / m, -0.1 * (t * t + 1)]], [[0.0], [1.0 / m]], [[1.0, 0.0]], [[0.0]])
    H = G.subs({"k": 6.0, "t": 0.7})
    # With k fixed, -6/m x1 and 1/m u share m's channel (automatic simplification): m x 1.
    assert set(H.parameters) == {"m"} and H.ndelta == 1 <= dict((b.name, b.size) for b in G.blocks)["m"]
    full = G.evaluate({"k": 6.0, "t": 0.7, "m": 2.3})
    part = H.evaluate({"m": 2.3})
    for key in "ABCD":
        assert np.allclose(getattr(full, key), getattr(part, key), rtol=1e-12, atol=1e-14)
    with pytest.raises(ValueError, match="unknown parameter"):
        G.subs({"q": 1.0})


def test_sample_within_box_and_kinds():
    m = ureal("m", 2.0, percent=20)
    t = vreal("t", 0.0, range=(-1.0, 1.0))
    G = ss([[-m * 1.0]], [[1.0]], [[1.0]], [[t]])
    s = G.sample(200, rng=1)
    assert isinstance(s.systems, StateSpaceBatch) and len(s.systems) == 200
    assert np.all((s.values["m"] >= 1.6) & (s.values["m"] <= 2.4))
    assert np.allclose(s.systems.A[:, 0, 0], -s.values["m"], rtol=1e-13)
    only = G.sample(5, rng=2, kinds=("uncertain",))
    assert set(only.values) == {"m"} and np.allclose(only.systems.D[:, 0, 0], 0.0)


def test_freqresp_matches_python_control():
    m = ureal("m", 2.0, percent=20)
    G = ss([[0.0, 1.0], [-4.0 / m, -0.3]], [[0.0], [1.0]], [[1.0, 0.0], [0.0, 1.0]], [[0.0], [0.1]])
    w = np.logspace(-1, 1, 7)
    values = np.array([1.7, 2.0, 2.35])
    F = G.freqresp(w, {"m": values})
    assert F.shape == (3, 7, 2, 1)
    for i, v in enumerate(values):
        ref = G.evaluate({"m": v}).frequency_response(w)
        assert np.allclose(F[i], np.moveaxis(ref.complex, -1, 0), rtol=1e-10)
    assert G.freqresp(w).shape == (7, 2, 1)


def test_statespace_batch_indexing_and_contract():
    m = ureal("m", 2.0, percent=20)
    G = ss([[-m]], [[1.0]], [[1.0]], [[0.0]], inputs="f", outputs="x")
    B = G.evaluate_batch({"m": np.array([1.8, 2.0, 2.2])})
    assert len(B) == 3 and B.A.shape == (3, 1, 1) and B.valid.all()
    S = B[1]
    assert isinstance(S, control.StateSpace) and list(S.input_labels) == ["f"]
    assert len(B[1:]) == 2 and B.poles().shape == (3, 1)
    with pytest.raises(ValueError, match="must have shape"):
        StateSpaceBatch(np.zeros((2, 1, 1)), np.zeros((2, 1, 1)), np.zeros((2, 1, 1)), np.zeros((3, 1, 1)))


def test_value_errors():
    m = ureal("m", 2.0, percent=20)
    k = ureal("k", 1.0, percent=20)
    X = m * k * np.eye(2)
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['q'\]"):
        X.evaluate({"q": 1.0})
    with pytest.raises(ValueError, match="same length"):
        X.evaluate_batch({"m": np.ones(3) * 2, "k": np.ones(4)})
    with pytest.raises(ValueError, match="scalar for evaluate"):
        X.evaluate({"m": np.ones(2)})
    with pytest.raises(TypeError, match="dict"):
        X.evaluate([1.0])
    with pytest.raises(ValueError, match="finite"):
        X.evaluate({"m": np.nan})
    assert np.allclose(X.nominal(), 2.0 * np.eye(2))
    assert np.allclose(as_lfr(3.0).evaluate_batch({}), 3.0)


def _direct_fu(Mfull, d):
    """Reference: the upper-LFT formula D + C Delta (I - A Delta)^{-1} B with numpy."""
    nd = d.size
    A, B, C, D = Mfull[:nd, :nd], Mfull[:nd, nd:], Mfull[nd:, :nd], Mfull[nd:, nd:]
    return D + C @ np.diag(d) @ np.linalg.solve(np.eye(nd) - A @ np.diag(d), B)


@pytest.mark.parametrize("structure", ["dense", "triangular_2x2", "mixed"])
def test_structured_batch_solver_matches_direct_formula(structure):
    # The batch solver orders channels by strongly connected components; every path
    # (free channels, 2x2 closed form, batched inverse for larger loops, low-rank and
    # dense couplings) must agree with the plain formula.  1e-11: condition-guarded.
    rng = np.random.default_rng({"dense": 0, "triangular_2x2": 1, "mixed": 2}[structure])
    params = [ureal(f"p{i}", 1.0, percent=40) for i in range(4)]
    sizes = [3, 2, 4, 3]
    nd = sum(sizes)
    A = 0.3 * rng.normal(size=(nd, nd))
    if structure == "triangular_2x2":
        A = np.triu(A)
        for i in range(0, nd - 1, 2):
            A[i + 1, i] = 0.4  # 2x2 loops on the diagonal
        A[np.arange(0, nd, 3), np.arange(0, nd, 3)] = 0.0
    elif structure == "mixed":
        A = np.triu(A)
        A[5:9, 5:9] = 0.3 * rng.normal(size=(4, 4))  # one 4x4 loop
    Mfull = np.block([[A, rng.normal(size=(nd, 2))], [rng.normal(size=(3, nd)), rng.normal(size=(3, 2))]])
    X = LFR(np.zeros((0, 0)), np.zeros((0, nd + 2)), np.zeros((nd + 3, 0)), Mfull, list(zip(params, sizes)))
    values = {p.name: p.denormalize(rng.uniform(-1, 1, 40)) for p in params}
    seen = []
    out = X.evaluate_batch(values, chunk=16, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(16, 40), (32, 40), (40, 40)]
    for i in range(40):
        d = np.concatenate([np.full(s, p.normalize(values[p.name][i])) for p, s in zip(params, sizes)])
        ref = _direct_fu(Mfull, d)
        assert np.allclose(out[i], ref, rtol=1e-11, atol=1e-11 * np.abs(ref).max())
