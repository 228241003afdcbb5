"""Rotation LFRs against Rodrigues (satdyn.spatial.rodrigues, an independent closed
form), occurrence counts, and order reduction reaching the known minima."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from satdyn.lfr import auto_simplify, blockdiag, reduce, rotation_lfr, ss, ureal, vreal
from satdyn.spatial import dcm_from_rotvec, rodrigues


@given(st.integers(0, 2**31), st.sampled_from(["tan_half", "tan_quarter"]))
def test_rotation_equals_rodrigues(seed, transform):
    rng = np.random.default_rng(seed)
    axis = rng.normal(size=3)
    P0 = dcm_from_rotvec(rng.normal(size=3))
    limit = 0.999 * (np.pi if transform == "tan_half" else 2 * np.pi)
    a = vreal("R1.alpha3", rng.uniform(-1, 1), range=(-limit, limit), transform=transform)
    R = rotation_lfr(axis, a, P0)
    assert R.ndelta == (2 if transform == "tan_half" else 4)
    angles = rng.uniform(-limit, limit, size=6)
    batch = R.evaluate_batch({"R1.alpha3": angles})
    for k, ang in enumerate(angles):
        ref = rodrigues(axis, ang) @ P0
        # 1e-12: the Cayley form is a rational function of tan(a/2); near |a| -> pi the
        # tangent grows, so allow a few ulps times its magnitude.
        tol = 1e-12 * max(1.0, np.tan(abs(ang) / (2 if transform == "tan_half" else 4)) ** 2)
        assert np.allclose(R.evaluate({"R1.alpha3": ang}), ref, atol=tol)
        assert np.allclose(batch[k], ref, atol=tol)
    assert reduce(R).ndelta == R.ndelta  # already minimal


def test_rotation_errors_and_constant():
    a = vreal("a", 0.0, range=(-1, 1))
    with pytest.raises(ValueError, match="tan_half"):
        rotation_lfr([0, 0, 1], a)
    with pytest.raises(ValueError, match="non-zero"):
        rotation_lfr([0, 0, 0], vreal("b", 0.0, range=(-1, 1), transform="tan_half"))
    C = rotation_lfr([0, 0, 1], 0.3)
    assert C.ndelta == 0 and np.allclose(C.evaluate({}), rodrigues(np.array([0, 0, 1.0]), 0.3))


def test_frozen_joint_transport_has_16_and_reduction_reaches_minima():
    a = vreal("alpha", 0.2, range=(-6, 6), transform="tan_quarter")
    R = rotation_lfr([0.3, -0.2, 1.0], a)
    # A frozen joint's 6x6 two-port transport uses the DCM four times: 16 channels.
    K = blockdiag([R.T, R.T, R, R])
    assert reduce(K).ndelta == 16
    # Redundant constructions are cut back to the minimum.
    assert reduce(R @ R.T).ndelta == 0  # the identity: constant
    RRtR = R @ R.T @ R
    assert RRtR.ndelta == 12 and reduce(RRtR).ndelta == 4
    v = {"alpha": 4.1}
    assert np.allclose(reduce(RRtR).evaluate(v), R.evaluate(v), atol=1e-12)


def test_modal_uncertainty_reduces_to_two():
    # Spec 000a §2.6.3: omega = omega0 (1 + r delta) appears twice in a minimal LFR.
    # The naive build (omega*omega and 2 xi omega) has 3 occurrences; the automatic
    # simplification already shares the outer omega of the row (-omega, -2 xi) @ (omega, 1).
    w = ureal("omega1", 2 * np.pi * 1.285, percent=20)
    xi = 0.005
    with auto_simplify(False):
        G = ss([[0.0, 1.0], [-(w * w), -2 * xi * w]], [[0.0], [1.0]], [[1.0, 0.0], [0.0, 1.0]], [[0.0], [0.0]])
    assert G.blocks[0].size == 3
    assert ss([[0.0, 1.0], [-(w * w), -2 * xi * w]], [[0.0], [1.0]], [[1.0, 0.0], [0.0, 1.0]],
              [[0.0], [0.0]]).blocks[0].size == 2
    Gr = reduce(G)
    assert Gr.blocks[0].size == 2 and Gr.nstates == 2
    for value in (6.5, 8.07, 9.6):
        A_ref = np.array([[0.0, 1.0], [-value**2, -2 * xi * value]])
        S = Gr.evaluate({"omega1": value})
        # Similarity-invariant check against the reference: same transfer at test points.
        for s in (0.3j, 2.0 + 1j, 8.0j):
            ref = np.linalg.solve(s * np.eye(2) - A_ref, np.array([[0.0], [1.0]]))
            assert np.allclose(S(s), ref, rtol=1e-10)


def test_reduce_removes_unobservable_states():
    G = ss(-np.eye(3), np.ones((3, 1)), [[1.0, 0.0, 0.0]], [[0.0]])
    # x2, x3 do not reach the output; x1 is the only needed state.
    assert reduce(G).nstates == 1
    with pytest.raises(TypeError, match="needs an LFR"):
        reduce(np.eye(2))


def test_reduction_respects_small_physical_scales_and_strict_flag():
    # Tiny but meaningful numbers (1e-9 scale) must survive: the rank threshold is
    # relative to the realisation's norm, not absolute.
    k = ureal("k", 1e-9, percent=10)
    G = ss([[-1e-3]], [[1e-9]], [[1e-9]], [[0.0]]) @ (k * np.ones((1, 1)))
    R = reduce(G)
    assert R.nstates == 1 and R.ndelta == 1
    a = vreal("alpha", 0.2, range=(-3, 3), transform="tan_half")
    Rot = rotation_lfr([0, 0, 1], a)
    identity = reduce(Rot @ Rot.T)
    assert identity.ndelta == 0
    with pytest.raises(ValueError, match="strict=False"):
        identity.evaluate({"alpha": 1.0})
    assert np.allclose(identity.evaluate({"alpha": 1.0}, strict=False), np.eye(3), atol=1e-13)


def test_nd_reduction_removes_a_cycle_between_blocks():
    # Channels a2 and b2 only feed each other: unreachable from the inputs, so w = 0.
    # 1-D reduction treats each one's partner as an external input and keeps both; the
    # structured (n-D) reduction removes both.  Reference: the function is unchanged.
    from satdyn.lfr import LFR

    a = ureal("a", 1.0, percent=30)
    b = ureal("b", 2.0, percent=30)
    rng = np.random.default_rng(4)
    M = np.zeros((4 + 2, 4 + 2))
    M[[0, 2], 4:] = rng.normal(size=(2, 2))  # a1, b1 driven by the inputs
    M[4:, [0, 2]] = rng.normal(size=(2, 2))  # a1, b1 seen at the outputs
    M[0, 2] = 0.3                            # a1 <- b1
    M[1, 3], M[3, 1] = 0.5, 0.5              # a2 <-> b2 cycle, isolated from I/O
    M[4:, 4:] = rng.normal(size=(2, 2))
    # Rotate the channels inside each block (an exact similarity): the matrix becomes
    # dense, so no sparsity argument can find the cycle -- only the numerical n-D test.
    c, s = np.cos(0.7), np.sin(0.7)
    Q = np.array([[c, -s], [s, c]])
    T = np.eye(6)
    T[:2, :2], T[2:4, 2:4] = Q, Q.T
    Tinv = np.eye(6)
    Tinv[:4, :4] = T[:4, :4].T
    M = T @ M @ Tinv
    assert np.all(M[:4, 4:] != 0) and np.all(M[4:, :4] != 0)
    X = LFR(np.zeros((0, 0)), np.zeros((0, 6)), np.zeros((6, 0)), M, [(a, 2), (b, 2)])
    assert reduce(X, method="1d").ndelta == 4
    R = reduce(X)
    assert R.ndelta == 2
    v = {"a": 1.2, "b": 1.7}
    assert np.allclose(R.evaluate(v), X.evaluate(v), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="method"):
        reduce(X, method="2d")


def test_reduction_keeps_the_coordinates_of_blocks_it_does_not_shrink():
    # Regression: rotating full-rank blocks would merge the triangular structure of a
    # chain into large loops (same function, much slower batch evaluation).  Reference:
    # the strongly connected components of D_zw before and after.
    from satdyn.lfr.evaluate import _schedule

    rng = np.random.default_rng(5)
    chain = None
    for k in range(3):
        a = vreal(f"a{k}", 0.0, range=(-3, 3), transform="tan_quarter")
        R = rotation_lfr(rng.normal(size=3), a)
        T = blockdiag([R, R]) @ (np.eye(6) + 0.1 * rng.normal(size=(6, 6)))
        chain = T if chain is None else chain @ T
    w = ureal("w", 2.0, percent=20)
    mode = ss([[0.0, 1.0], [-(w * w), -0.02 * w]], [[0.0], [1.0]], [[1.0, 0.0]], [[0.0]])
    G = chain @ (np.eye(6) + rng.normal(size=(6, 1)) @ mode @ rng.normal(size=(1, 6))) @ chain.T
    R = reduce(G)
    assert {b.name: b.size for b in R.blocks}["w"] == 2
    assert _schedule(R).largest == _schedule(G).largest == 2
    v = {"a0": 1.0, "a1": -2.0, "a2": 0.5, "w": 2.3}
    for s in (0.5j, 3.0j):
        assert np.allclose(R.evaluate(v)(s), G.evaluate(v)(s), rtol=1e-9)
