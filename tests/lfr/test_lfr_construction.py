"""Construction, names and groups, parameter arithmetic (references: the same numbers
computed directly with numpy)."""

import numpy as np
import pytest

from satdyn.lfr import LFR, Block, as_lfr, blockdiag, hstack, integrator, ss, ureal, vreal, vstack


def test_parameter_arithmetic_matches_numbers():
    p = ureal("p", 2.0, range=(1.0, 4.0))
    v = {"p": 3.3}
    cases = {
        "p + 1": (p + 1, 4.3), "1 - p": (1 - p, -2.3), "p / 2": (p / 2, 1.65),
        "2 / p": (2 / p, 2 / 3.3), "p ** 2": (p**2, 3.3**2), "-p": (-p, -3.3),
        "p * p": (p * p, 3.3**2), "p @ [[2]]": (p @ np.array([[2.0]]), 6.6),
    }
    for name, (expr, ref) in cases.items():
        assert expr.evaluate(v)[0, 0] == pytest.approx(ref, rel=1e-13), name
    assert (p * p).ndelta == 2 and (p + 1).ndelta == 1


def test_constructor_validates_and_merges_blocks():
    a = ureal("a", 1.0, percent=10)
    b = ureal("b", 1.0, percent=10)
    D = np.arange(16.0).reshape(4, 4) * 0.01
    # Channels given as a, b, a: merged into a x2, b x1 with the matrix permuted.
    X = LFR(np.zeros((0, 0)), np.zeros((0, 4)), np.zeros((4, 0)), D, [(a, 1), Block(b, 1), (a, 1)])
    assert [(blk.name, blk.size) for blk in X.blocks] == [("a", 2), ("b", 1)]
    Y = LFR(np.zeros((0, 0)), np.zeros((0, 4)), np.zeros((4, 0)), D, [(a, 1), (b, 1), (a, 1)])
    assert np.allclose(X.evaluate({"a": 1.05, "b": 0.95}), Y.evaluate({"a": 1.05, "b": 0.95}))
    with pytest.raises(TypeError, match="blocks"):
        LFR(np.zeros((0, 0)), np.zeros((0, 2)), np.zeros((2, 0)), np.eye(2), ["a"])
    with pytest.raises(ValueError, match="declare"):
        LFR(np.zeros((0, 0)), np.zeros((0, 2)), np.zeros((2, 0)), np.eye(2), [(a, 3)])
    with pytest.raises(ValueError, match="square"):
        LFR(np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((2, 1)), np.eye(2))
    with pytest.raises(TypeError, match="numeric"):
        LFR("x", np.zeros((0, 1)), np.zeros((1, 0)), np.eye(1))


def test_names_and_groups():
    X = as_lfr(np.eye(6)).rename(inputs=[("W_C", 6)], outputs="acc")
    assert X.input_groups == {"W_C": tuple(f"W_C[{i}]" for i in range(6))}
    assert X.output_groups == {"acc": tuple(f"acc[{i}]" for i in range(6))}
    G = X.with_groups(inputs={"force": ["W_C[0]", "W_C[1]", "W_C[2]"]})
    assert G.input_index("force") == [0, 1, 2]
    with pytest.raises(ValueError, match="unknown signals"):
        X.with_groups(inputs={"bad": ["nope"]})
    with pytest.raises(ValueError, match="duplicate"):
        as_lfr(np.eye(2)).rename(inputs=["a", "a"])
    with pytest.raises(ValueError, match="expected 2 names"):
        as_lfr(np.eye(2)).rename(inputs=["a"])
    # Stacking keeps unique names and falls back to defaults on repetition.
    H = hstack([X, X.rename(inputs=[("W_D", 6)])])
    assert H.input_names[6] == "W_D[0]" and set(H.input_groups) == {"W_C", "W_D"}
    assert hstack([X, X]).input_names[0] == "u[0]"
    V = vstack([X, X.rename(outputs="acc2")])
    assert V.output_names[-1] == "acc2[5]"
    # Transpose and inverse swap input and output names.
    assert X.T.input_names == X.output_names and X.inv().input_names == X.output_names


def test_ss_and_integrator():
    k = ureal("k", 4.0, percent=10)
    G = ss([[0.0, 1.0], [-k, -0.2]], [[0.0], [1.0]], np.eye(2), np.zeros((2, 1)), inputs="f", outputs=[("x", 2)])
    S = G.evaluate({"k": 4.2})
    assert np.allclose(S.A, [[0.0, 1.0], [-4.2, -0.2]]) and list(S.input_labels) == ["f"]
    with pytest.raises(ValueError, match="static"):
        ss(G[0, 0], [[1.0]], [[1.0]], [[0.0]])
    with pytest.raises(ValueError, match="incompatible"):
        ss(np.eye(2), np.ones((3, 1)), np.eye(2), np.zeros((2, 1)))
    I3 = integrator(3)
    S = I3.nominal()
    assert np.allclose(S.A, 0) and np.allclose(S.B, np.eye(3)) and np.allclose(S.C, np.eye(3))
    with pytest.raises(ValueError, match="positive"):
        integrator(0)


def test_blockdiag_of_transforms_and_counts():
    a = vreal("a", 0.1, range=(-1, 1), transform="tan_half")
    m = ureal("m", 1.0, percent=10)
    X = blockdiag([a, m, a])
    assert {b.name: b.size for b in X.blocks} == {"a": 2, "m": 1}
    assert np.allclose(np.diag(X.evaluate({"a": 0.4, "m": 1.05})), [np.tan(0.2), 1.05, np.tan(0.2)])


def test_lfr_pickles_for_parallel_workers():
    import pickle

    a = vreal("a", 0.1, range=(-3, 3), transform="tan_quarter")
    X = blockdiag([a, ureal("m", 1.0, percent=5)])
    X.evaluate_batch({"a": np.ones(3)})  # populate the structure cache
    Y = pickle.loads(pickle.dumps(X))
    assert Y.blocks == X.blocks
    assert np.array_equal(Y.evaluate({"a": 1.0}), X.evaluate({"a": 1.0}))


def test_rename_keeps_names_that_look_like_defaults():
    """`rename` keeps what the user asked for, even names of the default pattern.

    Operations renumber default names (a selection of y[1], y[2] gives y[0], y[1], as
    python-control does); an explicit rename is not such an operation. Before the fix,
    outputs renamed to u[i] (or inputs to y[i]) silently came back as y[i] / u[i].
    """
    import numpy as np

    from satdyn.lfr import as_lfr

    gain = as_lfr(np.ones((3, 6)))
    assert gain.rename(outputs=["u[0]", "u[1]", "u[2]"]).output_names == ("u[0]", "u[1]", "u[2]")
    assert gain.rename(inputs=[f"y[{i}]" for i in range(6)]).input_names == tuple(f"y[{i}]" for i in range(6))
    # an operation on the renamed system still renumbers defaults as before
    assert gain[1:3, :].output_names == ("y[0]", "y[1]")
