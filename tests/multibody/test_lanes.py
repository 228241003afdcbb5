"""The batch-last (SIMD lanes) kernel and the lock-step integrator against the single-state paths
and Pinocchio (issue 21: batched simulation).

* Lane kernel vs the single-state kernel ``compiled._state_derivative``: the same IEEE
  operations in the same order, no fast-math and no contraction into fused multiply-adds
  (numba's default), the same libm sin / cos / sqrt: equal. The bound (1e-14 relative)
  admits only a rounding-level difference and would catch any wrong index, lane mix-up or
  missing term (those are O(1)).
* Lane kernel vs Pinocchio's ``aba``: the same equations in a different order; 1e-11 relative,
  as test_compiled (a few hundred ulps through a 12-body recursion).
* Lock-step integration vs ``integrate_many`` (one trajectory after the other): every lane takes
  its single run's steps with the same arithmetic, so the states and evaluation counts are
  equal -- exactly, not to a tolerance (any difference in a step decision would show as an
  O(1e-10) difference or a different count).
* Against ``solve_ivp`` over ``pin.aba`` and a 1e-13 reference: tolerances derived in
  test_compiled_speed_paths (global error <= steps x 1e-10 x e^(lambda t) over 0.5 s: 1e-6 to the
  reference, 2e-6 between the two integrators).
"""

import numpy as np
import pinocchio as pin
import pytest

import satdyn.multibody as mb
from satdyn.multibody import compiled as compiled_module
from satdyn.multibody.compiled_lanes import LANES, lane_workspace, lanes_state_derivative
from satdyn.multibody.compiled_model import compile_model
from satdyn.multibody.integrate import integrate_many
from satdyn.multibody.integrate_lanes import integrate_lanes

from .pin_oracle import random_tree
from .test_compiled import _pin_solution, with_constant_loads
from .test_urdf import _pin_q, write_urdf

pytestmark = pytest.mark.skipif(not compiled_module.HAVE_NUMBA, reason="numba is not installed")

KINDS = ("revolute", "prismatic", "weld")


def _states(rng, model, n):
    X = np.concatenate([rng.uniform(-1.0, 1.0, (n, model.nq)), rng.normal(size=(n, model.nv))], axis=1)
    if model.is_floating:
        X[:, 3:7] /= np.linalg.norm(X[:, 3:7], axis=1, keepdims=True)
    return X


def _lanes_derivative(kernels, X, taus):
    """dx/dt of the rows of X (LANES, nx) by the lane kernel."""
    out = np.empty((X.shape[1], LANES))
    lanes_state_derivative(np.ascontiguousarray(X.T), np.ascontiguousarray(taus.T), kernels.nq, *kernels._packed,
                           out, lane_workspace(kernels._packed[0].shape[0]))
    return out.T


@pytest.mark.parametrize("floating", [False, True])
def test_lane_kernel_equals_the_single_state_kernel(floating):
    rng = np.random.default_rng(60 + floating)
    model = with_constant_loads(rng, random_tree(rng, 12, floating=floating, gravity=rng.normal(size=3) * 5.0,
                                                 kinds=KINDS, damping=True)[0])
    kernels = compile_model(model)
    X = _states(rng, model, LANES)
    if floating:
        X[::2, 3:7] *= 1.01   # off the unit sphere in half the lanes: the norm-restoring term
    taus = rng.normal(size=(LANES, model.nv))
    got = _lanes_derivative(kernels, X, taus)
    for lane in range(LANES):
        expected = kernels.state_derivative(X[lane], taus[lane])
        assert np.abs(got[lane] - expected).max() <= 1e-14 * np.abs(expected).max()


@pytest.mark.parametrize("floating", [False, True])
def test_lane_kernel_matches_pinocchio(floating):
    rng = np.random.default_rng(70 + floating)
    model, pm = random_tree(rng, 12, floating=floating, gravity=rng.normal(size=3) * 5.0, kinds=KINDS)[:2]
    pd = pm.createData()
    X = _states(rng, model, LANES)
    taus = rng.normal(size=(LANES, model.nv))
    got = _lanes_derivative(compile_model(model), X, taus)
    for lane in range(LANES):
        a_pin = pin.aba(pm, pd, X[lane, :model.nq], X[lane, model.nq:], taus[lane]).copy()
        assert np.abs(got[lane, model.nq:] - a_pin).max() <= 1e-11 * max(1.0, np.abs(a_pin).max())


@pytest.mark.parametrize("floating", [False, True])
def test_lane_kernel_on_a_urdf_tree_matches_pinocchio(tmp_path, floating):
    """The same URDF file read by satdyn and Pinocchio (revolute, continuous, prismatic and fixed
    joints with rpy origins, a massless link, a branching tree): 1e-11 relative, as above."""
    rng = np.random.default_rng(75 + floating)
    path = write_urdf(tmp_path / "arm.urdf", rng)
    g = np.array([0.0, 0.0, -9.81])
    model = mb.load_urdf(path, floating=floating, gravity=g)
    pm = pin.buildModelFromUrdf(str(path), *([pin.JointModelFreeFlyer()] if floating else []))
    pm.gravity = pin.Motion(g, np.zeros(3))
    pd = pm.createData()
    X = _states(rng, model, LANES)
    taus = rng.normal(size=(LANES, model.nv))
    got = _lanes_derivative(compile_model(model), X, taus)
    for lane in range(LANES):
        q, v = X[lane, :model.nq], X[lane, model.nq:]
        a_pin = pin.aba(pm, pd, _pin_q(model, pm, q), v, taus[lane]).copy()
        assert np.abs(got[lane, model.nq:] - a_pin).max() <= 1e-11 * max(1.0, np.abs(a_pin).max())


@pytest.mark.parametrize("M", [1, 5, 33, 70])
@pytest.mark.parametrize("floating", [False, True])
def test_lock_step_lanes_equal_the_single_state_loop(M, floating):
    """M = 1 and 5 (< LANES: idle lanes), 33 (one refill), 70 (several refills, a scalar tail);
    trajectories of different lengths (velocities of different sizes)."""
    rng = np.random.default_rng(80 + M + floating)
    model = random_tree(rng, 6, floating=floating, gravity=[0.0, 0.0, -9.81],
                        kinds=("revolute", "revolute", "prismatic", "weld"), damping=True)[0]
    kernels = compile_model(model)
    X0 = _states(rng, model, M)
    X0[:, model.nq:] *= 10.0 ** rng.uniform(-1.0, 1.3, (M, 1))
    taus = rng.normal(size=(M, model.nv))
    times = np.linspace(0.0, 1.0, 11)
    expected, nfev_expected = integrate_many(kernels, X0, taus, times)
    got, nfev = integrate_lanes(kernels, X0, taus, times)
    assert (nfev_expected > 0).all()
    assert np.array_equal(got, expected) and np.array_equal(nfev, nfev_expected)
    if M > 5:
        assert np.unique(nfev).size > 3   # the lanes did finish at different times


def test_lock_step_rk45_with_max_step_equals_the_single_state_loop():
    rng = np.random.default_rng(91)
    model = random_tree(rng, 6, floating=True, gravity=[0.0, 0.0, -9.81], kinds=KINDS)[0]
    kernels = compile_model(model)
    X0 = _states(rng, model, 40)
    taus = np.zeros((40, model.nv))
    times = np.linspace(0.0, 0.2, 5)
    # max_step caps the steps (0.02 s: about ten per trajectory at the least)
    expected, nfev_expected = integrate_many(kernels, X0, taus, times, method="RK45", max_step=0.02)
    got, nfev = integrate_lanes(kernels, X0, taus, times, method="RK45", max_step=0.02)
    assert np.array_equal(got, expected) and np.array_equal(nfev, nfev_expected)


@pytest.mark.parametrize("floating", [False, True])
def test_simulate_batch_lanes_follow_pinocchio_integration(floating):
    rng = np.random.default_rng(95 + floating)
    model, pm = random_tree(rng, 9, floating=floating, gravity=[0.0, 0.0, -9.81],
                            kinds=("revolute", "revolute", "prismatic"))[:2]
    X0 = _states(rng, model, 10)
    t_eval = np.linspace(0.0, 0.5, 26)
    batch = mb.simulate_batch(model, (0.0, 0.5), X0, t_eval=t_eval, lanes=True)
    single = mb.simulate_batch(model, (0.0, 0.5), X0, t_eval=t_eval, lanes=False)
    assert batch.success.all() and np.array_equal(batch.t, t_eval)
    assert np.array_equal(batch.q, single.q) and np.array_equal(batch.nfev, single.nfev)
    tau = np.zeros(model.nv)
    for m in (0, 4, 9):
        reference = _pin_solution(model, pm, X0[m], tau, t_eval, "DOP853", 1e-13)
        peer = _pin_solution(model, pm, X0[m], tau, t_eval, "DOP853", 1e-10)
        got = np.concatenate([batch.q[m], batch.v[m]], axis=1)
        assert np.abs(got - reference).max() < 1e-6
        assert np.abs(got - peer).max() < 2e-6


def test_a_failing_lane_is_reported_and_the_others_are_unaffected():
    """An effort of 1e300 overflows the accelerations: the step size collapses below the
    floating-point resolution (as scipy's solve_ivp fails); that trajectory gets success False,
    nfev -1 and NaN states after its start, the others their normal trajectories."""
    rng = np.random.default_rng(99)
    model = random_tree(rng, 4, floating=False, gravity=[0.0, 0.0, -9.81], kinds=("revolute", "prismatic"))[0]
    X0 = _states(rng, model, 40)
    taus = np.zeros((40, model.nv))
    taus[7] = 1e300
    t_eval = np.linspace(0.0, 0.2, 5)
    batch = mb.simulate_batch(model, (0.0, 0.2), X0, taus, t_eval=t_eval, lanes=True)
    assert not batch.success[7] and batch.nfev[7] == -1
    assert np.array_equal(batch.q[7, 0], X0[7, :model.nq]) and np.isnan(batch.q[7, 1:]).all()
    others = np.arange(40) != 7
    assert batch.success[others].all()
    for m in (0, 8, 39):
        single = mb.simulate(model, (0.0, 0.2), X0[m], taus[m], t_eval=t_eval, derived=False)
        assert np.array_equal(batch.v[m], single.v) and batch.nfev[m] == single.nfev


def test_threaded_lanes_equal_one_thread():
    rng = np.random.default_rng(101)
    model = random_tree(rng, 5, floating=True, gravity=[0.0, 0.0, -9.81], kinds=KINDS)[0]
    X0 = _states(rng, model, 2 * LANES + 3)   # two chunks of at least LANES
    t_eval = np.linspace(0.0, 0.2, 3)
    one = mb.simulate_batch(model, (0.0, 0.2), X0, t_eval=t_eval, lanes=True)
    two = mb.simulate_batch(model, (0.0, 0.2), X0, t_eval=t_eval, lanes=True, threads=True)
    assert np.array_equal(one.q, two.q) and np.array_equal(one.v, two.v) and np.array_equal(one.nfev, two.nfev)


@pytest.mark.parametrize("name, make", [
    ("x0", lambda nx, nv: (np.zeros((3, nx + 1)), None)),             # wrong state width
    ("x0", lambda nx, nv: (np.zeros(nx), None)),                      # one state, not a batch
    ("x0", lambda nx, nv: (np.zeros((2, 3, nx)), None)),              # a 3-D batch
    ("efforts", lambda nx, nv: (np.zeros((3, nx)), np.zeros((4, nv)))),       # a row too many
    ("efforts", lambda nx, nv: (np.zeros((3, nx)), np.zeros((3, nv + 1)))),   # wrong width
])
def test_bad_batch_shapes_raise_value_error_naming_the_argument(name, make):
    model = random_tree(np.random.default_rng(0), 3, floating=False, kinds=("revolute",))[0]
    x0, efforts = make(model.nq + model.nv, model.nv)
    with pytest.raises(ValueError, match=f"`{name}`"):
        mb.simulate_batch(model, (0.0, 0.1), x0, efforts)


def test_lanes_must_be_none_or_a_bool():
    model = random_tree(np.random.default_rng(0), 3, floating=False, kinds=("revolute",))[0]
    with pytest.raises(TypeError, match="lanes"):
        mb.simulate_batch(model, (0.0, 0.1), np.zeros((2, model.nq + model.nv)), lanes="yes")


def test_polynomial_sine_and_cosine_are_within_two_ulp_of_the_exact_values():
    """The kernels' sin / cos (a polynomial, vectorised in the lanes) against mpmath at 200 bits.
    Derivation of the bound: the Taylor truncation is < 1e-19 (below 0.001 ulp), the reduction
    r = x - k pi/2 is exact to ~1e-37 |k| for |x| < 8e5 rad, and the last two roundings (the
    Horner tail is below a tenth of the result) give < 1.5 ulp; beyond 8e5 rad libm is used."""
    import mpmath

    from satdyn.multibody.compiled_trig import _PIO2_1, _PIO2_2, _PIO2_3, _SINCOS_MAX, _sin_cos

    mpmath.mp.prec = 200
    # the split of pi/2: two 33-bit parts (k * part exact for |k| < 2^20) and a residual of 1e-37
    assert abs(mpmath.mpf(_PIO2_1) + mpmath.mpf(_PIO2_2) + mpmath.mpf(_PIO2_3) - mpmath.pi / 2) < 1e-36
    for part in (_PIO2_1, _PIO2_2):
        mantissa = int(float.hex(part).split(".")[1].split("p")[0], 16)
        assert mantissa % (1 << 20) == 0
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-4.0, 4.0, 400), rng.uniform(-1e4, 1e4, 200), rng.uniform(-1e6, 1e6, 50),
                        np.arange(-20, 21) * (np.pi / 4), [0.0, 1e-300, 0.5 * _SINCOS_MAX, 2.0 * _SINCOS_MAX]])
    for value in x:
        s, c = _sin_cos(value)
        exact_s, exact_c = float(mpmath.sin(mpmath.mpf(value))), float(mpmath.cos(mpmath.mpf(value)))
        assert abs(s - exact_s) <= 2.0 * np.spacing(abs(exact_s)) + 1e-300
        assert abs(c - exact_c) <= 2.0 * np.spacing(abs(exact_c)) + 1e-300
