"""Shipped models: arm, assembly spacecraft (model 3), hub + two arrays (model 1).

Oracles: forward kinematics + 6x6 rigid composition (satdyn.titop.kinematics, written
independently of the port blocks), the second-order (M, C, K) reference of spec 000a
2.6.5 (numpy, no LFR), and the spec's derived numbers.  Tolerances: 1e-9 relative between
block and reference models (spec 000a reports ~1e-11 on its prototype), 1e-10 between
two assembly orders of the same blocks.
"""

from dataclasses import replace

import numpy as np
import pytest

from satdyn.spatial import frame_change_matrix, tau
from satdyn.titop.data import load_arm_geometry, load_assembly_spacecraft
from satdyn.titop.kinematics import arm_chain_up, arm_mass_matrix_at_foot
from satdyn.titop.models import assembly_spacecraft, hub_two_arrays, robotic_arm
from satdyn.titop.reference import assembly_reference

W = 2 * np.pi * np.array([0.005, 0.3, 0.93, 1.28, 2.2, 6.6, 18.0, 45.0])


@pytest.fixture(scope="module")
def data():
    return load_assembly_spacecraft()


@pytest.fixture(scope="module")
def model3(data):
    return {(1, False): assembly_spacecraft(data=data, structure="table", n=26, dock=1, carry_tile=False),
            (2, True): assembly_spacecraft(data=data, structure="table", n=26, dock=2, carry_tile=True)}


def _values(angles, d_omega, data):
    v = {f"R{k + 1}.alpha{j + 1}": angles[k, j] for k in range(3) for j in range(5)}
    v["A.omega1"] = data.array_modes.omega[0] * (1 + 0.2 * d_omega)
    return v


def _tit(G, model, name):
    """Reorder an arm's 12x12 gain into the TITOP layout [child; parent] (spec 000a 2.5)."""
    lfr = model.lfr
    child, parent = ("J6", "J0") if name == "fwd" else ("J0", "J6")
    m = model.name
    rows = lfr.output_index([f"{m}:{child}:acc", f"{m}:{parent}:W"])
    cols = lfr.input_index([f"{m}:{child}:W", f"{m}:{parent}:acc"])
    return G[np.ix_(rows, cols)]


@pytest.mark.parametrize("geometry", ["Y45", "spec-M1"])
def test_arm_chain_matches_forward_kinematics(geometry):
    # spec 000a test 9: direct model at J0 with J6 free = -D_arm(alpha); kinematic block
    # x''_J6 / x''_J0 = (P_{l5/l0}^x2)^T tau_{J6 J0}; 80 Delta channels.
    arm = load_arm_geometry(geometry)
    Z = robotic_arm("R", geometry)
    assert [b.size for b in Z.lfr.blocks] == [16] * 5
    rng = np.random.default_rng(7)
    for alpha in rng.uniform(-np.pi, np.pi, (3, 5)):
        G = _tit(Z.lfr.evaluate({f"R.alpha{k + 1}": alpha[k] for k in range(5)}), Z, "fwd")
        np.testing.assert_allclose(G[6:, 6:], -arm_mass_matrix_at_foot(arm, alpha), atol=1e-11)
        points, dcms = arm_chain_up(arm, alpha, np.zeros(3), np.eye(3))
        kin = frame_change_matrix(dcms[5]).T @ tau(points[0] - points[6])
        np.testing.assert_allclose(G[:6, 6:], kin, atol=1e-12)
        np.testing.assert_allclose(G[:6, :6], 0, atol=1e-12)


def test_reversed_arm_is_Q_inverse_Q():
    # spec 000a test 10: Z_rev = Q Z^-1 Q, Q = [[0, I], [-I, 0]], Z built from J6 down.
    Zf, Zr = robotic_arm("R", "Y45"), robotic_arm("R", "Y45", reverse=True)
    Q = np.block([[np.zeros((6, 6)), np.eye(6)], [-np.eye(6), np.zeros((6, 6))]])
    alpha = np.random.default_rng(8).uniform(-3, 3, 5)
    vals = {f"R.alpha{k + 1}": alpha[k] for k in range(5)}
    Gf = _tit(Zf.lfr.evaluate(vals), Zf, "fwd")
    Gr = _tit(Zr.lfr.evaluate(vals), Zr, "rev")
    np.testing.assert_allclose(Gr, Q @ np.linalg.inv(Gf) @ Q, atol=1e-10)


def test_assembly_occurrence_counts(model3):
    m = model3[(1, False)].lfr
    assert m.ndelta == 242 and m.nstates == 10
    sizes = {b.name: b.size for b in m.blocks}
    assert sizes["A.omega1"] == 2 and all(sizes[f"R{k}.alpha{j}"] == 16 for k in (1, 2, 3) for j in range(1, 6))
    assert [b.name for b in m.blocks][:2] == ["A.omega1", "R1.alpha1"]


@pytest.mark.parametrize("key, seed", [((1, False), 0), ((2, True), 1)])
def test_block_model_equals_second_order_reference(data, model3, key, seed):
    # spec 000a test 13: both input channels, random angles and delta_omega.
    dock, carry = key
    rng = np.random.default_rng(seed)
    angles = rng.uniform(-np.pi, np.pi, (3, 5))
    d_omega = rng.uniform(-1, 1)
    G = model3[key].lfr.freqresp(W, _values(angles, d_omega, data))
    ref = assembly_reference(data, n=26, dock=dock, carry_tile=carry, robot_angles=angles, delta_omega=d_omega)
    R = ref.frequency_response(1j * W)
    np.testing.assert_allclose(G, R, rtol=0, atol=1e-9 * np.abs(R).max())


@pytest.mark.parametrize("n, dock, carry", [(1, 1, True), (1, 2, False)])
def test_F1_configurations(data, n, dock, carry):
    angles = np.random.default_rng(n + dock).uniform(-np.pi, np.pi, (3, 5))
    m = assembly_spacecraft(data=data, structure="table", n=n, dock=dock, carry_tile=carry, angles=angles,
                            uncertain_array=False)
    ref = assembly_reference(data, n=n, dock=dock, carry_tile=carry, robot_angles=angles)
    R = ref.frequency_response(1j * W)
    np.testing.assert_allclose(m.lfr.freqresp(W), R, rtol=0, atol=1e-9 * np.abs(R).max())
    # spec 000a test 14: DC gain = inverse total rigid mass matrix at G; total mass invariant.
    dc = m.lfr.nominal().dcgain()[:, :6]
    np.testing.assert_allclose(np.linalg.inv(dc), ref.M[:6, :6], rtol=1e-9, atol=1e-9)
    assert np.linalg.inv(dc)[0, 0] == pytest.approx(554.1144, abs=1e-8)
    # spec 000a test 15: high-frequency gain = the (1, 1) 6x6 block of M^-1 (residual masses)
    np.testing.assert_allclose(m.lfr.nominal().D[:, :6], np.linalg.inv(ref.M)[:6, :6], rtol=1e-9, atol=1e-12)


def test_total_mass_in_every_sampled_configuration(data, model3):
    rng = np.random.default_rng(11)
    N = 20
    vals = {f"R{k}.alpha{j}": rng.uniform(-np.pi, np.pi, N) for k in (1, 2, 3) for j in range(1, 6)}
    for m in model3.values():
        batch = m.lfr.evaluate_batch(vals)
        dc = batch.D - batch.C @ np.linalg.solve(batch.A, batch.B)
        masses = np.linalg.inv(dc[:, :, :6])[:, 0, 0]
        np.testing.assert_allclose(masses, 554.1144, atol=1e-7)


def test_two_assembly_orders_agree(data):
    # spec 000a tests 11-12: robot condensed to a one-port first, then attached, vs one connect.
    angles = np.random.default_rng(3).uniform(-np.pi, np.pi, (3, 5))
    a = assembly_spacecraft(data=data, structure="table", n=26, dock=2, carry_tile=True, angles=angles)
    b = assembly_spacecraft(data=data, structure="table", n=26, dock=2, carry_tile=True, angles=angles,
                            robot_as_block=True)
    Ga, Gb = a.lfr.freqresp(W), b.lfr.freqresp(W)
    np.testing.assert_allclose(Ga, Gb, rtol=0, atol=1e-10 * np.abs(Ga).max())


def test_antiresonances_are_cantilever_frequencies(data):
    # spec 000a test 16: transmission zeros of W_ext,G -> x''_G = clamped-hub frequencies.
    angles = np.random.default_rng(5).uniform(-1, 1, (3, 5))
    m = assembly_spacecraft(data=data, structure="table", n=26, angles=angles, uncertain_array=False)
    ss = m.lfr.nominal()
    A, B, C, D = ss.A, ss.B[:, :6], ss.C, ss.D[:, :6]
    zeros = np.linalg.eigvals(A - B @ np.linalg.solve(D, C))
    ref = assembly_reference(data, n=26, robot_angles=angles)
    expected = ref.cantilever_frequencies_hz()
    got = np.sort(np.abs(zeros)) / (2 * np.pi)
    np.testing.assert_allclose(np.unique(np.round(got, 6))[: len(expected)], np.sort(expected), rtol=2e-3)


def test_hub_array_frequencies_from_the_block_model(data):
    # spec 000a test 4/17: poles of the block model = free-free 3.744 / 18.342 Hz; 2.995 / 4.493.
    from satdyn.lfr import ureal
    from satdyn.titop import connect, flexible_body, frame_change, rigid_body
    am = data.array_modes
    w1 = ureal("A.omega1", am.omega[0], percent=20)
    blocks = [rigid_body("B", data.hub_mass, data.hub_inertia, {"P1": data.r_G_P[0]}, frame="b"),
              frame_change("K", data.P_a_b, frames=("b", "a")),
              flexible_body("A", data.array_D_P1, [w1, am.omega[1]], am.damping, am.L_P, frame="a")]
    m = connect(blocks, [("B.P1", "K.parent"), ("K.child", "A.P")], external=["B.G"])
    for d, first in ((0, 3.744), (-1, 2.995), (1, 4.493)):
        poles = m.lfr.evaluate({"A.omega1": am.omega[0] * (1 + 0.2 * d)}).poles()
        f = np.sort(np.unique(np.round(np.abs(poles) / (2 * np.pi), 4)))
        assert f[0] == pytest.approx(first, abs=6e-4)
        assert f[1] == pytest.approx(18.342, abs=6e-4)


def test_lfr_at_samples_equals_model_built_at_those_values(data, model3):
    # issue test: evaluating the LFR at sampled parameters == the numeric model built directly.
    rng = np.random.default_rng(21)
    N = 3
    vals = {f"R{k}.alpha{j}": rng.uniform(-np.pi, np.pi, N) for k in (1, 2, 3) for j in range(1, 6)}
    vals["A.omega1"] = data.array_modes.omega[0] * (1 + 0.2 * rng.uniform(-1, 1, N))
    batch = model3[(1, False)].lfr.evaluate_batch(vals)
    for i in range(N):
        angles = np.array([[vals[f"R{k}.alpha{j}"][i] for j in range(1, 6)] for k in (1, 2, 3)])
        am = data.array_modes
        omega = am.omega.copy()
        omega[0] = vals["A.omega1"][i]
        d2 = replace(data, array_modes=replace(am, omega=omega))
        built = assembly_spacecraft(data=d2, structure="table", n=26, angles=angles,
                                    uncertain_array=False).lfr.nominal()
        Gi = batch[i]
        for s in 1j * W[1:5]:
            np.testing.assert_allclose(np.asarray(Gi(s)), np.asarray(built(s)), rtol=0,
                                       atol=1e-9 * np.abs(np.asarray(built(s))).max())


def test_hub_two_arrays_model():
    m = hub_two_arrays()
    sizes = {b.name: b.size for b in m.lfr.blocks}
    assert sizes == {"array_angle": 32, "array_plus_y.omega1": 2, "array_minus_y.omega1": 2}
    # symmetric W -> acc transfer (reciprocity, spec 000a test 3) and DC = inverse rigid mass
    G = m.lfr.evaluate({"array_angle": 0.7})
    for s in (0.2j, 3j):
        H = np.asarray(G(s))
        np.testing.assert_allclose(H, H.T, atol=1e-12 * np.abs(H).max())
    assert np.linalg.inv(G.dcgain())[0, 0] == pytest.approx(1100 + 2 * 45.0)


def test_split_assembly_equals_the_global_lfr(data, model3):
    # structured evaluation (arms apart, cut connections closed numerically) == one LFR
    split = assembly_spacecraft(data=data, structure="table", n=26, dock=2, carry_tile=True, split_arms=True)
    rng = np.random.default_rng(31)
    vals = {f"R{k}.alpha{j}": rng.uniform(-np.pi, np.pi, 3) for k in (1, 2, 3) for j in range(1, 6)}
    vals["A.omega1"] = data.array_modes.omega[0] * (1 + 0.2 * rng.uniform(-1, 1, 3))
    a = model3[(2, True)].lfr.evaluate_batch(vals).freqresp(W)
    b = split.evaluate_batch(vals).freqresp(W)
    np.testing.assert_allclose(b, a, rtol=0, atol=1e-10 * np.abs(a).max())


def test_hub_two_arrays_uncertain_modes():
    # each listed mode of each array becomes one uncertain frequency, +/- the given percent of
    # the data's frequency (the box is read back from the parameters: exact arithmetic)
    from satdyn.titop.data import load_hub_two_arrays

    d = load_hub_two_arrays()
    m = hub_two_arrays(uncertain_modes=(0, 2), frequency_percent=10.0)
    params = m.lfr.parameters
    assert {n for n in params if ".omega" in n} == {f"{a}.omega{j}" for a in d.array_names for j in (1, 3)}
    p = params[f"{d.array_names[0]}.omega3"]
    assert p.nominal == d.array_modes.omega[2]
    np.testing.assert_allclose(p.range, [0.9 * p.nominal, 1.1 * p.nominal], rtol=1e-15)
    with pytest.raises(ValueError, match="uncertain_modes"):
        hub_two_arrays(uncertain_modes=(3,))
    with pytest.raises(ValueError, match="frequency_percent"):
        hub_two_arrays(frequency_percent=150.0)
