"""Interconnection: python-control as oracle on numeric systems, closed-form LFT /
Redheffer formulas on evaluated matrices, and inversion identities.  Tolerances
1e-10: a handful of solves with well-conditioned matrices."""

import control
import numpy as np
import pytest

from satdyn.lfr import (
    as_lfr,
    feedback,
    interconnect,
    invert_channels,
    lft,
    ss,
    star,
    ureal,
)

W = np.array([0.05, 0.3, 1.0, 4.0, 20.0])


def _freq(sys, w=W):
    return np.array([np.atleast_2d(sys(1j * x)) for x in w])


def _systems(seed=3):
    rng = np.random.default_rng(seed)
    P = control.rss(3, 2, 2, strictly_proper=False)
    P = control.ss(P.A - 2 * np.eye(3), rng.normal(size=(3, 2)), rng.normal(size=(2, 3)),
                   np.array([[0.0, 0.0], [0.3, -0.2]]), inputs=["u", "d"], outputs=["y", "z"])
    # y has no feedthrough: python-control's interconnect cannot solve algebraic loops.
    C = control.ss([[-1.0]], [[1.0]], [[2.0]], [[0.5]], inputs="e", outputs="u")
    F = control.ss([[-3.0]], [[3.0]], [[1.0]], [[0.0]], inputs="y", outputs="yf")
    return P, C, F


@pytest.mark.filterwarnings("ignore:Unused output")
def test_interconnect_matches_python_control():
    P, C, F = _systems()
    S = control.ss([], [], [], [[1.0, -1.0]], inputs=["r", "y"], outputs="e")
    ref = control.interconnect([P, C, F, S], inplist=["r", "d"], outlist=["y", "yf", "z"])
    # 'y' feeds two blocks (the summing junction and the filter).
    ours = interconnect([P, C, F, S], inputs=["r", "d"], outputs=["y", "yf", "z"])
    assert ours.input_names == ("r", "d") and ours.output_names == ("y", "yf", "z")
    assert np.allclose(_freq(ours.nominal()), _freq(ref), rtol=1e-10, atol=1e-12)
    # Explicit connections with a negated source instead of the summing block.
    G = interconnect([P, C, F], connections=[("e", "-y"), ("u", "u"), ("y", "y")], inputs=["d"], outputs=["yf"])
    ref2 = control.interconnect([P, C, F, control.ss([], [], [], [[-1.0]], inputs="y", outputs="e")],
                                inplist=["d"], outlist=["yf"])
    assert np.allclose(_freq(G.nominal()), _freq(ref2), rtol=1e-10, atol=1e-12)


def test_interconnect_groups_connect_element_wise():
    rng = np.random.default_rng(0)
    k = ureal("k", 1.0, percent=20)
    A = as_lfr(rng.normal(size=(3, 2))).rename(inputs=["f", "g"], outputs=[("acc", 3)])
    B = (k * rng.normal(size=(3, 3))).rename(inputs=[("acc_in", 3)], outputs=[("W", 3)])
    T = interconnect([A, B], connections=[("acc_in", "acc")], inputs=["f", "g"], outputs=["W"])
    assert T.output_names == ("W[0]", "W[1]", "W[2]") and T.output_groups == {"W": T.output_names}
    v = {"k": 1.1}
    assert np.allclose(T.evaluate(v), B.evaluate(v) @ A.evaluate({}), rtol=1e-12)


@pytest.mark.filterwarnings("ignore:Unused")
def test_interconnect_errors():
    P, C, F = _systems()
    with pytest.raises(ValueError, match="dangling connection source"):
        interconnect([P, C], connections=[("e", "nope")], inputs=["d", "u"], outputs=["y"])
    with pytest.raises(ValueError, match="dangling connection input"):
        interconnect([P, C], connections=[("nope", "y")], inputs=["d"], outputs=["y"])
    with pytest.raises(ValueError, match="dangling external input"):
        interconnect([P, C], inputs=["r"], outputs=["y"])
    with pytest.raises(ValueError, match="dangling external output"):
        interconnect([P, C], inputs=["d", "e"], outputs=["w"])
    with pytest.raises(ValueError, match=r"\['d'\] are neither connected nor external"):
        interconnect([P, C], inputs=["e"], outputs=["y"])
    with pytest.raises(ValueError, match="more than one block"):
        interconnect([P, P], inputs=["u", "d"], outputs=["y"])
    # check_unused=False sets the free input to zero
    G = interconnect([P, C], inputs=["e"], outputs=["y"], check_unused=False)
    assert G.shape == (1, 1)
    with pytest.raises(ValueError, match="algebraic loop"):
        one = as_lfr(np.eye(1)).rename(inputs="a", outputs="b")
        two = as_lfr(np.eye(1)).rename(inputs="b", outputs="a")
        interconnect([one, two], inputs=[], outputs=["a"])


def test_feedback_matches_python_control():
    P, C, _ = _systems()
    k = ureal("k", 0.8, percent=25)
    K = k * np.array([[1.0, 0.2], [0.0, 0.5]])
    L = feedback(P, K)
    Kn = 0.9 * np.array([[1.0, 0.2], [0.0, 0.5]])
    ref = control.feedback(P, control.ss([], [], [], Kn))
    assert np.allclose(_freq(L.evaluate({"k": 0.9})), _freq(ref), rtol=1e-10, atol=1e-12)
    pos = feedback(P, Kn, sign=+1)
    assert np.allclose(_freq(pos.nominal()), _freq(control.feedback(P, control.ss([], [], [], Kn), sign=1)), rtol=1e-10)


def test_lft_and_star_formulas():
    rng = np.random.default_rng(7)
    a = ureal("a", 1.0, percent=30)
    Pm = rng.normal(size=(4, 4)) * 0.4
    P = as_lfr(Pm) + a * np.diag([0.1, 0.0, 0.2, 0.0])
    Km = rng.normal(size=(2, 2)) * 0.3
    K = as_lfr(Km)
    v = {"a": 1.2}
    Pv = P.evaluate(v)
    P11, P12, P21, P22 = Pv[:2, :2], Pv[:2, 2:], Pv[2:, :2], Pv[2:, 2:]
    Fl = P11 + P12 @ Km @ np.linalg.solve(np.eye(2) - P22 @ Km, P21)
    Fu = P22 + P21 @ Km @ np.linalg.solve(np.eye(2) - P11 @ Km, P12)
    assert np.allclose(lft(P, K).evaluate(v), Fl, rtol=1e-10)
    assert np.allclose(lft(P, K, upper=True).evaluate(v), Fu, rtol=1e-10)
    # Redheffer star product with partial channels: the closed-loop equations, solved directly.
    Q = rng.normal(size=(3, 3)) * 0.5
    S = star(P, Q, nu=1, ny=1).evaluate(v)
    # unknowns: P inputs (4), Q inputs (3); P's last output -> Q's first input; Q's first output -> P's last input
    def direct(r):  # r = [P free inputs (3), Q free inputs (2)]
        # P in = [r0 r1 r2, uq0]; Q in = [yp3, r3, r4]; solve uq0 = Q[0] @ qin, yp3 = Pv[3] @ pin
        Amat = np.array([[1.0, -Q[0, 0]], [-Pv[3, 3], 1.0]])
        rhs = np.array([Q[0, 1:] @ r[3:], Pv[3, :3] @ r[:3]])
        uq0, yp3 = np.linalg.solve(Amat, rhs)
        pin = np.r_[r[:3], uq0]
        qin = np.r_[yp3, r[3:]]
        return np.r_[(Pv @ pin)[:3], (Q @ qin)[1:]]
    ref = np.column_stack([direct(e) for e in np.eye(5)])
    assert np.allclose(S, ref, rtol=1e-10, atol=1e-12)


def test_invert_channels():
    rng = np.random.default_rng(11)
    m = ureal("m", 2.0, percent=20)
    G = (as_lfr(rng.normal(size=(3, 3)) + 3 * np.eye(3)) + m * np.diag([1.0, 0.0, 0.5])).rename(
        inputs=["W", "f", "g"], outputs=["acc", "p", "q"]
    )
    v = {"m": 2.3}
    Gv = G.evaluate(v)
    # Full inversion equals the inverse.
    full = invert_channels(G, ["W", "f", "g"], ["acc", "p", "q"])
    assert np.allclose(full.evaluate(v), np.linalg.inv(Gv), rtol=1e-10)
    # Partial: swap input W with output acc; the new map must be consistent with G.
    H = invert_channels(G, "W", "acc")
    assert H.input_names == ("acc", "f", "g") and H.output_names == ("W", "p", "q")
    x = rng.normal(size=3)  # [acc, f, g]
    out = H.evaluate(v) @ x  # [W, p, q]
    back = Gv @ np.r_[out[0], x[1:]]
    assert np.allclose(back, np.r_[x[0], out[1:]], rtol=1e-10)
    with pytest.raises(ValueError, match="singular"):
        invert_channels(as_lfr(np.array([[0.0, 1.0], [1.0, 0.0]])), 0, 0)
    with pytest.raises(ValueError, match="as many"):
        invert_channels(G, ["W", "f"], "acc")


def test_statespace_round_trip_keeps_names():
    P, _, _ = _systems()
    X = as_lfr(P)
    assert X.input_names == ("u", "d") and X.output_names == ("y", "z")
    back = X.nominal()
    assert list(back.input_labels) == ["u", "d"] and list(back.output_labels) == ["y", "z"]
    for key in "ABCD":
        assert np.array_equal(getattr(back, key), getattr(P, key))
    with pytest.raises(ValueError, match="continuous"):
        as_lfr(control.ss([[0.5]], [[1]], [[1]], [[0]], dt=0.1))
    Xs = ss(P.A, P.B, P.C, P.D, inputs=["u", "d"], outputs=["y", "z"])
    assert np.allclose(_freq(Xs.nominal()), _freq(P))


def test_rigid_two_port_inversion_matches_spec_formula():
    # Spec 000a §2.5: [[0, T], [T^T, -D]]^-1 = [[T^-T D T^-1, T^-T], [T^-1, 0]] for a rigid
    # two-port (inputs [W_C; acc_P], outputs [acc_C; W_P]).  T = tau(r) with an uncertain
    # length, D a mass matrix with an uncertain mass; ports are groups of 6.
    from satdyn.spatial import rigid_mass_matrix, skew, tau

    L = ureal("L", 0.8, percent=10)
    m = ureal("m", 5.0, percent=20)
    N = np.zeros((6, 6))
    N[:3, 3:] = skew(np.array([1.0, 0.0, 0.0]))
    T = np.eye(6) + L * N
    D_unit = rigid_mass_matrix(1.0, np.diag([0.1, 0.2, 0.3]), np.array([0.1, 0.0, 0.05]))
    D = m * D_unit
    Z = as_lfr([[np.zeros((6, 6)), T], [T.T, -D]]).rename(
        inputs=[("W_C", 6), ("acc_P", 6)], outputs=[("acc_C", 6), ("W_P", 6)]
    )
    v = {"L": 0.85, "m": 4.5}
    Tn = tau(np.array([0.85, 0.0, 0.0]))
    Dn = 4.5 * D_unit
    Ti = np.linalg.inv(Tn)
    ref = np.block([[Ti.T @ Dn @ Ti, Ti.T], [Ti, np.zeros((6, 6))]])
    full = invert_channels(Z, ["W_C", "acc_P"], ["acc_C", "W_P"])
    assert np.allclose(full.evaluate(v), ref, rtol=1e-12, atol=1e-12)
    assert full.input_groups == {"acc_C": Z.output_groups["acc_C"], "W_P": Z.output_groups["W_P"]}
    assert np.allclose(Z.inv().evaluate(v), ref, rtol=1e-12, atol=1e-12)
