"""Frozen node models, the PD attitude loop and the four metrics.

Oracles: rigid-body composition of the whole spacecraft (satdyn.spatial + the robot's
forward kinematics) for the DC gains; python-control's ``feedback`` for the closed loop;
closed forms for a rigid plant and for norms; the exact real-parameter margin for mu.
"""

import control
import numpy as np
import pytest

from satdyn.lfr import StateSpaceBatch
from satdyn.missions.assembly.closedloop import AttitudeController, closed_loop, dc_gain, design_inertia
from satdyn.missions.assembly.costs import (_certified_below, _frequency_response, _real_spectral_radius,
                                            _spectral_radius, edge_cost, exact_mu_peak, grid_metrics, mu_peak,
                                            sensitivity_margins, subsystem)
from satdyn.robust import modal_frequency_grid, mussv
from satdyn.missions.assembly.layout import tile_layout
from satdyn.missions.assembly.models import NodeModelProvider, PlantChannels
from satdyn.missions.assembly.poses import reach_pose_table
from satdyn.spatial import rigid_mass_matrix, transport_mass_matrix
from satdyn.titop.data import structure_mass_matrix
from satdyn.titop.kinematics import robot_mass_matrix

PROVIDER = NodeModelProvider()


def _composite_mass_at_G(d, key, angles, centres=None):
    """6x6 rigid mass matrix of every body at G; ``centres`` (N, 3): where the tiles are
    (default: the data's own tile centres)."""
    n, port, dock, carry = key
    centres = d.tile_centres if centres is None else centres
    M = rigid_mass_matrix(d.hub_mass, d.hub_inertia)
    M = M + transport_mass_matrix(d.array_D_P1, -d.r_G_P[0], d.P_a_b.T)
    M = M + transport_mass_matrix(structure_mass_matrix(n, centres, d.tile_mass, d.robot.tile_inertia),
                                  -d.r_G_P[1], d.P_f_b.T)
    k = d.n_tiles_total - n - int(carry)
    if k:
        M = M + transport_mass_matrix(rigid_mass_matrix(d.tile_mass * k, d.robot.tile_inertia * k),
                                      -(d.r_G_P[2] + d.r_P3_C0))
    M = M + transport_mass_matrix(robot_mass_matrix(d.robot, angles, dock, carry),
                                  -(d.r_G_P[1] + centres[port - 1]), d.P_f_b.T)
    return M


@pytest.mark.parametrize("key", [(27, 22, 1, True), (5, 3, 2, False), (1, 1, 1, False), (14, 9, 2, True)])
def test_dc_gain_is_inverse_composite_inertia(key):
    # DC gain of W_G -> x''_G of every frozen model = inverse 6x6 rigid mass matrix of all
    # bodies at G (free-floating).  Measured agreement 5e-8..2e-7 relative: the FE
    # structures' residual mass is nearly singular about z (eigenvalue ~1e-6 of ~1e3 kg m^2,
    # spec 000c), so the static condensation loses ~7 digits; 1e-6 keeps a margin and still
    # catches any frame or sign error (>= 1e-3).
    angles = np.stack([0.6 * reach_pose_table()[("walk", (1, 1))], reach_pose_table()[("walk", (0, 1))]])
    plant, ch = PROVIDER.frozen(key, angles)
    G0 = dc_gain(plant)[:, ch.r:, ch.r:ch.r + 6]
    for k in range(2):
        M = _composite_mass_at_G(PROVIDER.data, key, angles[k])
        assert np.abs(np.linalg.inv(M) - G0[k]).max() <= 1e-6 * np.abs(G0[k]).max()


@pytest.mark.parametrize("layout", ["A", "B"])
def test_model_puts_every_tile_where_the_graph_of_its_layout_does(layout, tmp_path, monkeypatch):
    # Layouts A and B differ in tiles 25..28.  The node model of F_27 on a given layout must
    # place the FE structure's ports and the robot where the graph (tile_layout) of the SAME
    # layout puts the tiles.  Oracle 1: the FE port C_j position = the graph's centre of tile j
    # (both are exact multiples of 0.5 m: 1e-12 m).  Oracle 2: the DC gain = inverse rigid mass
    # matrix of all bodies at G composed with the GRAPH's centres (tolerance of
    # test_dc_gain_is_inverse_composite_inertia); the other layout's centres move tiles and
    # robot by 1-3 m and miss by far more.
    monkeypatch.setenv("SATDYN_CACHE_DIR", str(tmp_path))        # layout A: the FE family generated here
    graph = tile_layout(layout)
    other = tile_layout("B" if layout == "A" else "A")
    centres = np.column_stack([graph.centres, np.zeros(graph.n_tiles)])
    wrong = np.column_stack([other.centres, np.zeros(other.n_tiles)])
    provider = NodeModelProvider(layout=layout)
    n = 27
    for port in range(1, n + 1):
        r = provider.structure(n, port)["children"][f"C{port}"][0]
        np.testing.assert_allclose(r[:2], graph.centre(port), atol=1e-12)
    angles = np.stack([0.6 * reach_pose_table()[("walk", (1, 1))]])
    for port in (25, 27):
        key = (n, port, 1, True)
        plant, ch = provider.frozen(key, angles)
        G0 = dc_gain(plant)[0, ch.r:, ch.r:ch.r + 6]
        right = np.linalg.inv(_composite_mass_at_G(provider.data, key, angles[0], centres))
        assert np.abs(right - G0).max() <= 1e-6 * np.abs(G0).max()
        miss = np.linalg.inv(_composite_mass_at_G(provider.data, key, angles[0], wrong))
        assert np.abs(miss - G0).max() > 1e-3 * np.abs(G0).max()


def test_plant_channels_and_unavailable_model():
    plant, ch = PROVIDER.frozen((3, 2, 1, False), np.zeros((1, 3, 5)))
    assert ch.r == 2 and plant.D.shape == (1, 8, 14)
    assert plant.input_names[:2] == ("w_omega[0]", "w_omega[1]")
    old = NodeModelProvider(builder=lambda data, n, dock, carry_tile, split_arms: None)
    with pytest.raises(ValueError, match="F_5"):
        old.frozen((5, 3, 1, False), np.zeros((1, 3, 5)))


def _rigid_plant(J, r=0):
    """omega' = J^-1 T (no states); channels [w (r); W_G (6); W_C (6)] -> [z (r); x''_G]."""
    Minv = np.linalg.inv(rigid_mass_matrix(100.0, J))
    D = np.zeros((1, r + 6, r + 12))
    D[0, r:, r:r + 6] = Minv
    D[0, r:, r + 6:] = Minv              # the wrench at C_j acts at G
    return StateSpaceBatch(np.zeros((1, 0, 0)), np.zeros((1, 0, r + 12)), np.zeros((1, r + 6, 0)), D)


def test_rigid_plant_closed_loop_closed_forms():
    # rigid plant: each axis s^2 + 2 w s + w^2 (double pole at -w_att), S_i = s^2/(s + w)^2 I,
    # ||S_i||_inf = 1 (reached as w -> inf); the H2 norm W -> Theta is finite
    J = np.diag([500.0, 300.0, 700.0])
    ctl = AttitudeController(J)
    cl, cch = closed_loop(_rigid_plant(J), PlantChannels(0), ctl)
    poles = np.sort_complex(np.linalg.eigvals(cl.A[0]))
    # a double pole is sensitive to rounding: |error| ~ sqrt(eps) w = 1e-9, tolerance 1e-6
    np.testing.assert_allclose(poles, -ctl.omega * np.ones(6), atol=1e-6)
    m = grid_metrics(cl, cch, ["hinf_sensitivity", "h2_wrench", "hinf_wrench"])
    assert m.values["hinf_sensitivity"][0] == pytest.approx(1.0, rel=1e-8)
    assert np.isfinite(m.values["h2_wrench"][0])
    # S_i(jw) at w_att: (jw)^2 / (jw + w)^2 has modulus 1/2
    G = control.ss(*(x[0] for x in (cl.A, cl.B[:, :, cch.d], cl.C[:, cch.e], cl.D[:, cch.e, cch.d])))
    assert abs(G(1j * ctl.omega)[0, 0]) == pytest.approx(0.5, rel=1e-10)


def test_closed_loop_matches_python_control_feedback():
    # an independent closed loop: python-control interconnection of the plant's T -> omega'
    # channel with the PD law as a state-space controller on double integrators
    plant, ch = PROVIDER.frozen((4, 2, 1, True), reach_pose_table()[("walk", (1, 0))][None] * 0.5)
    J = design_inertia(plant, ch)
    ctl = AttitudeController(J)
    cl, cch = closed_loop(plant, ch, ctl)
    A, B, C, D = plant.A[0], plant.B[0], plant.C[0], plant.D[0]
    G = control.ss(A, B[:, ch.torque_G], C[ch.omega_dot], D[ch.omega_dot, ch.torque_G])
    # controller: u = k theta + c omega with theta'' = omega'  ->  K(s) = (k + c s) / s^2
    K = control.ss(np.block([[np.zeros((3, 3)), np.eye(3)], [np.zeros((3, 6))]]),
                   np.vstack([np.zeros((3, 3)), np.eye(3)]), np.hstack([ctl.k, ctl.c]), np.zeros((3, 3)))
    # input sensitivity e = (I - K G)^-1 d (positive feedback of the paper's sign convention)
    Si = control.feedback(control.ss([], [], [], np.eye(3)), K * G, sign=1)
    mine = control.ss(cl.A[0], cl.B[0][:, cch.d], cl.C[0][cch.e], cl.D[0][cch.e, cch.d])
    for w in (1e-3, 0.0628, 1.0, 8.07, 30.0):
        # two realisations of one transfer: agreement to ~1e-9 relative (conditioning of the
        # resolvents near the lightly damped modes, xi ~ 0.005)
        np.testing.assert_allclose(mine(1j * w), Si(1j * w), rtol=1e-8, atol=1e-10)


def test_norms_closed_forms_and_structure():
    # ||1/(s+a)||_2 = 1/sqrt(2a); ||w^2/(s^2+2 z w s+w^2)||_inf = 1/(2 z sqrt(1-z^2)); the H2
    # norm of a block-diagonal system is the root-sum-square, the H-inf norm the maximum
    from satdyn.robust import h2norm, hinfnorm
    a, z, w = 3.0, 0.05, 2.0
    A = np.array([[-a, 0, 0], [0, 0, 1], [0, -w * w, -2 * z * w]])
    B = np.array([[1.0, 0], [0, 0], [0, w * w]])
    C = np.array([[1.0, 0, 0], [0, 1, 0]])
    sys = StateSpaceBatch(A[None], B[None], C[None], np.zeros((1, 2, 2)))
    h_first = 1 / np.sqrt(2 * a)
    peak = 1 / (2 * z * np.sqrt(1 - z * z))
    assert hinfnorm(subsystem(sys, slice(1, 2), slice(1, 2))).value[0] == pytest.approx(peak, rel=1e-8)
    assert h2norm(subsystem(sys, slice(0, 1), slice(0, 1)))[0] == pytest.approx(h_first, rel=1e-10)
    h2_second = h2norm(subsystem(sys, slice(1, 2), slice(1, 2)))[0]
    assert h2norm(sys)[0] == pytest.approx(np.hypot(h_first, h2_second), rel=1e-10)
    assert hinfnorm(sys).value[0] == pytest.approx(max(peak, 1 / a), rel=1e-8)


def test_sensitivity_margins_formulas():
    m = sensitivity_margins([1.0, 2.0])
    np.testing.assert_allclose(m["modulus_margin"], [1.0, 0.5])
    np.testing.assert_allclose(m["gain_margin_low"], [0.5, 2 / 3])
    assert m["gain_margin_high"][0] == np.inf and m["gain_margin_high"][1] == pytest.approx(2.0)
    np.testing.assert_allclose(m["phase_margin_deg"], [60.0, np.degrees(2 * np.arcsin(0.25))])
    with pytest.raises(ValueError, match="`gamma`"):
        sensitivity_margins([0.5])


def _f27_loops():
    key = (27, 22, 2, True)
    angles = reach_pose_table()[("walk", (-1, 1))][None] * np.array([0.0, 0.4, 1.0])[:, None, None]
    plant, ch = PROVIDER.frozen(key, angles)
    ctl = AttitudeController(design_inertia(plant, ch))
    return closed_loop(plant, ch, ctl)


@pytest.mark.parametrize("setup", ["f6", "f27"])
def test_mu_upper_bound_against_exact_margin(setup):
    # mu peak >= the exact sup over frequency (1/k*, real eigenvalue sweep + the omega = 0 and
    # infinity touch points); both see delta = -1/r = -5 (array mode stiffness vanishes at
    # omega = 0), so the exact value is 1/5 = 0.2 to the bisection's resolution (1e-3 / 2^50).
    # On F_27 M(0) is a 2 x 2 Jordan block that rounding splits into a complex pair
    # (imaginary parts ~1e-8): the exact value must still be 0.2.  The peak is exact at
    # omega = 0 and every other grid row is proved below it, or bounded by the D-G descent
    # (accuracy 1e-3), so it lies within 0.1 % of the exact value.  The eigenvalue sweep
    # reaches 0.2 only to 1e-6 relative (the pole approaches s = 0 linearly in delta + 5
    # and counts as crossing within the sweep's stability tolerance), hence up >= exact
    # up to that same 1e-6
    if setup == "f6":
        plant, ch = PROVIDER.frozen((6, 4, 2, True),
                                    reach_pose_table()[("walk", (-1, 1))][None] * np.array([0.3, 1.0])[:, None, None])
        cl, cch = closed_loop(plant, ch, AttitudeController(design_inertia(plant, ch)))
    else:
        cl, cch = _f27_loops()
    up, where = mu_peak(cl, cch)
    exact = exact_mu_peak(cl, cch)
    np.testing.assert_allclose(exact, 0.2, rtol=1e-6)
    assert np.all(up >= exact * (1 - 1e-6))
    assert np.all(up <= exact * 1.001)
    assert np.all(np.isfinite(where))


def test_mu_peak_pruning_keeps_the_dg_sweep_peak():
    # independent route: the D-G bound of satdyn.robust.mussv (fast descent) at EVERY grid
    # frequency, exact mu at omega = 0 -- the unpruned sweep.  Pruning only replaces bounds
    # by smaller valid ones, so the pruned peak is <= the sweep's peak and >= the exact mu
    # at omega = 0 (0.2); the sweep itself is >= 0.2 by validity
    cl, cch = _f27_loops()
    up, _ = mu_peak(cl, cch, rounds=0)
    for i in range(cl.A.shape[0]):
        w = modal_frequency_grid(cl.A[i], 30)
        M = _frequency_response(cl.A[i], cl.B[i][:, cch.w], cl.C[i][cch.z], cl.D[i][cch.z, cch.w], w)
        dg = mussv(M[1:], [[-2, 0]], lower=False, refine=False, accuracy=1e-3, iterations=20).upper
        sweep = max(float(dg.max()), float(_real_spectral_radius(M[0].real)))
        # the fall-back rows' descent may stop elsewhere in a different batch: its relative
        # accuracy 1e-3 bounds that difference
        assert 0.2 * (1 - 1e-9) <= up[i] <= sweep * (1 + 1e-3)


def test_real_spectral_radius_defective_and_complex():
    # a Jordan block at -0.2 with a rounding-size entry below the diagonal (eigenvalues
    # -0.2 +/- 1e-8 i): delta = -5 makes I - delta M singular to 1e-14, so mu = 0.2; a
    # genuine complex pair a +/- 1e-3 i has no real eigenvalue: mu = 0 (|x I - M| = 1e-3,
    # ten orders above the 1e-10 relative test)
    jordan = np.array([[-0.2, -0.025], [4e-15, -0.2]])
    pair = np.array([[0.3, -1e-3], [1e-3, 0.3]])
    np.testing.assert_allclose(_real_spectral_radius(np.stack([jordan, pair, np.diag([0.5, -0.7])])), [0.2, 0.0, 0.7])


def test_certified_below_against_brute_force():
    # seeded random complex 2 x 2 matrices; independent oracle: the exact repeated-real mu is
    # 1/|delta| for real delta with det(I - delta M) = 0, so a certified row must have
    # min over a dense delta grid of |det(I - delta M)| > 0 and mu (largest |real eigenvalue|)
    # below beta.  Matrices with a real eigenvalue above beta (built as V diag(lam, z) V^-1)
    # must never be certified; those whose converged D-G bound (mussv, method of centres) is
    # below 0.9 beta are clearly below and must be certified (the 1e-10 margin is tiny)
    rng = np.random.default_rng(7)
    R, beta = 60, 0.5
    M = (rng.standard_normal((R, 2, 2)) + 1j * rng.standard_normal((R, 2, 2))) * 0.3
    V = rng.standard_normal((R, 2, 2)) + 1j * rng.standard_normal((R, 2, 2))
    lam = rng.uniform(0.55, 2.0, R) * rng.choice([-1, 1], R)
    other = rng.standard_normal(R) + 1j * rng.standard_normal(R)
    real_eig = V @ (np.stack([np.diag([a, b]) for a, b in zip(lam, other)]) @ np.linalg.inv(V))
    assert not _certified_below(real_eig, np.full(R, beta)).any()
    proved = _certified_below(M, np.full(R, beta))
    deltas = np.linspace(-1 / beta, 1 / beta, 20001)
    t = np.trace(M, axis1=1, axis2=2)
    d = np.linalg.det(M)
    dense = np.abs(1 - t[:, None] * deltas + d[:, None] * deltas ** 2).min(axis=1)
    assert np.all(dense[proved] > 0)
    assert np.all(_real_spectral_radius(M[proved]) < beta)
    dg = mussv(M, [[-2, 0]], lower=False, refine=True, accuracy=1e-4).upper
    assert np.all(proved[dg < 0.9 * beta])
    assert np.all(_spectral_radius(M) >= _real_spectral_radius(M))


def test_unstable_loop_costs_infinite_and_hard_constraint():
    # a destabilising gain sign: every metric of an unstable loop is +inf; edge costs sum
    # linear values and a threshold violation makes the edge infinite
    J = np.diag([500.0, 300.0, 700.0])
    bad = AttitudeController(J, omega=0.1)
    object.__setattr__(bad, "inertia", -J)
    cl, cch = closed_loop(_rigid_plant(J), PlantChannels(0), bad)
    m = grid_metrics(cl, cch, ["hinf_wrench", "h2_wrench", "hinf_sensitivity"])
    assert not m.stable[0] and all(np.isinf(v[0]) for v in m.values.values())
    assert edge_cost([1.0, 2.0]) == 3.0
    assert edge_cost([1.0, 2.0], threshold=1.5) == np.inf


@pytest.mark.parametrize("kwargs, match", [
    (dict(inertia=np.eye(2)), "`inertia`"),
    (dict(inertia=-np.eye(3)), "`inertia`"),
    (dict(inertia=np.eye(3), omega=-1.0), "`omega`"),
    (dict(inertia=np.eye(3), damping=0.0), "`damping`"),
])
def test_controller_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        AttitudeController(**kwargs)


def test_grid_metrics_bad_cost():
    J = np.eye(3)
    cl, cch = closed_loop(_rigid_plant(J), PlantChannels(0), AttitudeController(J))
    with pytest.raises(ValueError, match="`costs`"):
        grid_metrics(cl, cch, ["hinf"])


def test_open_parameter_channels_is_the_upper_lft():
    # closing the opened channels with delta I_r (upper LFT, evaluated by hand at one
    # frequency) gives the original LFR evaluated at the physical value of that delta
    # (the other parameter at its nominal value); two evaluations of one rational
    # function: agreement to 1e-10 relative
    from satdyn.lfr import ss, ureal
    from satdyn.missions.assembly.models import open_parameter_channels

    k = ureal("k", 4.0, percent=20)
    c = ureal("c", 0.3, percent=10)
    G = ss([[0, 1], [-k, -c]], [[0], [1]], [[1, 0]], [[0]])
    opened, r = open_parameter_channels(G, "k")
    assert r == 1
    s = 1j * 1.7
    A, B, C, D = opened.A, opened.B, opened.C, opened.D
    M = C @ np.linalg.solve(s * np.eye(A.shape[0]) - A, B) + D
    delta = 0.6
    M11, M12, M21, M22 = M[:r, :r], M[:r, r:], M[r:, :r], M[r:, r:]
    closed = M22 + M21 * delta @ np.linalg.solve(np.eye(r) - M11 * delta, M12)
    ref = G.freqresp(np.array([1.7]), values={"k": k.denormalize(delta)})[0]
    np.testing.assert_allclose(closed, ref, rtol=1e-10)
    with pytest.raises(ValueError, match="no uncertain parameter"):
        open_parameter_channels(G, "m")
