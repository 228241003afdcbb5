"""Static output feedback (SOF) H-infinity on COMPleib problems (satdyn.examples.sof).

References, all independent of satdyn's tuner and of its H-infinity norm:

* brute force: the SOF objective ``||T_zw(K)||_inf`` by slycot's ab13dd (python-control
  ``linfnorm``) on a signed-logarithmic grid of the gain plane, the best cells polished by
  scipy's Nelder-Mead (2-parameter problems: the whole plane is covered, |K_ij| in
  [1e-2, 1e4] and 0);
* lower bound: the full-order H-infinity optimum by the Gahinet-Apkarian LMIs (projection
  lemma), solved by cvxpy/Clarabel and bracketed: an upper level whose X, Y are re-checked in
  numpy, a lower level whose LMI margin is negative beyond the solver's stopping tolerance
  (:func:`full_order_bracket`; HE1's infimum is not attained and the direct minimisation ends
  "optimal_inaccurate"). Every SOF value is >= it (a static gain is a full-order controller
  with zero dynamics). The Riccati (DGKF) bisection of tests/control/dgkf.py checks the LMI
  oracle on regular plants but does not apply here: the plants are singular (D21 = 0: AC17,
  HE1, HE2, REA1, REA2) or not in the normalised form it assumes (AC4: D11 != 0, D12' C1 != 0, D12' D12 = 9).

The closed-loop algebra (SOFProblem.closed_loop, the tuner's GenPlant.close) is itself checked
against python-control's name-based interconnection below.

No published SOF table is quoted: the papers that tabulate COMPleib SOF values (HIFOO,
hinfstruct benchmarks) could not be read here, so the references are computed.

The 2-parameter problems are in the default suite (AC4, AC17: attained optima; HE1: the
infimum is approached only as |K| -> infinity); HE2, REA1, REA2 are ``slow``.
"""

import control
import cvxpy as cp
import numpy as np
import pytest
import scipy.linalg
import scipy.optimize

from satdyn.control import TuneOptions, systune
from satdyn.examples.sof import SOFProblem, sof_data_provenance, sof_problem, sof_problem_names


def sof_norm_ab13dd(problem: SOFProblem, k):
    """||T_zw(K)||_inf by slycot ab13dd (+inf if the closed loop is not stable); k: K row-major."""
    A, B, C, D = problem.closed_loop(np.reshape(k, (problem.nu, problem.ny)))
    if np.max(np.linalg.eigvals(A).real) >= 0:
        return np.inf
    return float(control.linfnorm(control.ss(A, B, C, D))[0])


def brute_force_2d(problem: SOFProblem, n_polish=3):
    """Best SOF value over the gain plane of a 2-parameter problem (grid + Nelder-Mead).

    Returns (value, k) with k the gain, row-major."""
    assert problem.nu * problem.ny == 2
    ax = np.concatenate([-np.logspace(-2, 4, 25)[::-1], [0.0], np.logspace(-2, 4, 25)])
    grid = np.array([(a, b) for a in ax for b in ax])
    vals = np.array([sof_norm_ab13dd(problem, g) for g in grid])
    best = []
    for j in np.argsort(vals)[:n_polish]:
        r = scipy.optimize.minimize(lambda k: sof_norm_ab13dd(problem, k), grid[j], method="Nelder-Mead",
                                    options=dict(xatol=1e-8, fatol=1e-10, maxiter=4000))
        best.append((r.fun, r.x))
    return min(best, key=lambda b: b[0])


def brute_force_multistart(problem: SOFProblem, n_grid=5, n_polish=5):
    """Best SOF value for problems with more gain entries: signed-log grid (n_grid per sign
    and 0, per entry, or 20,000 seeded random points above 4 entries), Nelder-Mead (adaptive)
    from the n_polish best points. Returns (value, k)."""
    m = problem.nu * problem.ny
    if m <= 4:
        ax = np.concatenate([-np.logspace(-2, 2, n_grid)[::-1], [0.0], np.logspace(-2, 2, n_grid)])
        grid = np.array(np.meshgrid(*[ax] * m, indexing="ij")).reshape(m, -1).T
    else:
        rng = np.random.default_rng(0)
        grid = rng.standard_normal((20000, m)) * 10 ** rng.uniform(-2, 2, (20000, m))
    vals = np.array([sof_norm_ab13dd(problem, g) for g in grid])
    best = []
    for j in np.argsort(vals)[:n_polish]:
        r = scipy.optimize.minimize(lambda k: sof_norm_ab13dd(problem, k), grid[j], method="Nelder-Mead",
                                    options=dict(xatol=1e-8, fatol=1e-10, maxiter=20000, maxfev=20000,
                                                 adaptive=True))
        best.append((r.fun, r.x))
    return min(best, key=lambda b: b[0])


# Clarabel's default stopping tolerances (clarabel.DefaultSettings: tol_feas, tol_gap_abs and
# tol_gap_rel are all 1e-8), used below to bound how far a reported LMI margin can be off
_CLARABEL_TOL = 1e-8


def _lmi_blocks(p: SOFProblem, X, Y, g, bmat):
    """The three blocks of the Gahinet-Apkarian characterisation at level g, each ``< 0``:
    No'[A'X+XA, XB1, C1'; B1'X, -gI, D11'; C1, D11, -gI]No, Nc'[AY+YA', YC1', B1; C1Y, -gI, D11;
    B1', D11', -gI]Nc and -[X I; I Y], with No, Nc bases of ker [C2 D21] and ker [B2' D12']
    (padded by identities). ``bmat``: cvxpy.bmat (variables) or numpy.block (values)."""
    No = scipy.linalg.block_diag(scipy.linalg.null_space(np.hstack([p.C2, p.D21])), np.eye(p.nz))
    Nc = scipy.linalg.block_diag(scipy.linalg.null_space(np.hstack([p.B2.T, p.D12.T])), np.eye(p.nw))
    MX = bmat([[p.A.T @ X + X @ p.A, X @ p.B1, p.C1.T], [p.B1.T @ X, -g * np.eye(p.nw), p.D11.T],
               [p.C1, p.D11, -g * np.eye(p.nz)]])
    MY = bmat([[p.A @ Y + Y @ p.A.T, Y @ p.C1.T, p.B1], [p.C1 @ Y, -g * np.eye(p.nz), p.D11],
               [p.B1.T, p.D11.T, -g * np.eye(p.nw)]])
    return [No.T @ MX @ No, Nc.T @ MY @ Nc, -bmat([[X, np.eye(p.nx)], [np.eye(p.nx), Y]])]


def _solve_quietly(prob):
    """Clarabel on ``prob``; False when the solver fails outright (its status is judged by the caller)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "solution may be inaccurate": the callers check the answer
        try:
            prob.solve(solver="CLARABEL")
        except cp.error.SolverError:
            return False
    return True


def full_order_bracket(problem: SOFProblem, max_steps=40):
    """Bracket ``(lower, upper)`` of the optimal full-order H-infinity level (an infimum): level g
    is achievable by a full-order controller iff X, Y make the blocks of :func:`_lmi_blocks`
    negative definite (Gahinet & Apkarian 1994). Solver: cvxpy/Clarabel.

    Minimising g directly is ill-posed when the infimum is not attained (HE1: X, Y grow without
    bound and Clarabel ends "optimal_inaccurate"). Instead, at fixed g, the bounded problem
    ``max t s.t. every block <= -t I, t <= 1`` is solved (t*(g) > 0 iff g is achievable) and its
    answer is checked independently of the solver's status:

    * ``upper``: a level whose returned X, Y make every block negative definite when
      re-evaluated in numpy (largest eigenvalue below -64 eps times the block's largest entry,
      so rounding cannot flip the sign);
    * ``lower``: a level whose reported margin t is negative by more than the solver's stopping
      rule allows: each constraint entry's residual is at most tol_feas (1 + |b| + |x| + |s|)
      (Clarabel's rule, scaled by the inf-norms of data, variables and slacks), which moves an
      eigenvalue of an n x n block by at most n times that; plus tol_gap_abs + tol_gap_rel |t|.

    From the value of the direct minimisation (status not trusted), the two levels move away
    geometrically (relative offsets 1e-7 x 2^k) until each is established.
    """
    p = problem
    # starting level: the direct minimisation of g
    Xv, Yv = (cp.Variable((p.nx, p.nx), symmetric=True) for _ in range(2))
    gv = cp.Variable()
    start = cp.Problem(cp.Minimize(gv), [b << 0 for b in _lmi_blocks(p, Xv, Yv, gv, cp.bmat)])
    g0 = float(gv.value) if _solve_quietly(start) and gv.value is not None and gv.value > 0 else 1.0
    # margin problem at a fixed level
    X, Y = (cp.Variable((p.nx, p.nx), symmetric=True) for _ in range(2))
    g = cp.Parameter(nonneg=True)
    t = cp.Variable()
    blocks = _lmi_blocks(p, X, Y, g, cp.bmat)
    margin_problem = cp.Problem(cp.Maximize(t), [b << -t * np.eye(b.shape[0]) for b in blocks] + [t <= 1])
    data = max(np.abs(M).max() for M in (p.A, p.B1, p.C1, p.D11, p.B2, p.C2))
    eps = np.finfo(float).eps

    def classify(level):
        """(verified achievable, certainly not achievable) at g = level."""
        g.value = level
        if not _solve_quietly(margin_problem) or margin_problem.status not in ("optimal", "optimal_inaccurate"):
            return False, False
        values = _lmi_blocks(p, X.value, Y.value, level, np.block)  # numpy, not cvxpy's values
        achievable = all(np.linalg.eigvalsh(0.5 * (V + V.T))[-1] < -64 * eps * max(np.abs(V).max(), 1.0)
                         for V in values)
        if margin_problem.status != "optimal":
            return achievable, False
        size = max(np.abs(X.value).max(), np.abs(Y.value).max(), abs(t.value), *(np.abs(V).max() for V in values))
        n = max(V.shape[0] for V in values)
        slack = n * _CLARABEL_TOL * (1 + max(data, level) + size) + _CLARABEL_TOL * (1 + abs(t.value))
        return achievable, t.value + slack < 0

    lower = upper = None
    for k in range(max_steps):
        step = 1e-7 * 2.0 ** k
        if upper is None and classify(g0 * (1 + step))[0]:
            upper = g0 * (1 + step)
        if lower is None and (step >= 1 or classify(g0 * (1 - step))[1]):
            lower = g0 * max(1 - step, 0.0)  # 0 is a lower bound of any norm
        if lower is not None and upper is not None:
            return lower, upper
    raise AssertionError(f"no LMI bracket within {max_steps} steps: lower {lower}, upper {upper}")


def tune(problem: SOFProblem, starts=3, seed=0):
    """systune on the problem's StaticGain from K = 0 with seeded random starts (one process)."""
    return systune(problem.plant(), [problem.gain_block()], soft=[problem.goal()],
                   options=TuneOptions(random_starts=starts, n_jobs=1, seed=seed, max_iter=1000))


def tuned_gain(problem: SOFProblem, res):
    """The tuned K (nu, ny) as the D matrix of the returned controller (a static system)."""
    Kss = res.controller()
    assert Kss.nstates == 0
    return np.asarray(Kss.D)


@pytest.fixture(scope="module")
def results():
    """The tuner's result per default-suite problem (computed once)."""
    return {name: tune(sof_problem(name)) for name in ("AC4", "AC17", "HE1")}


@pytest.mark.parametrize("name", ["AC4", "AC17"])
def test_attained_sof_optimum_matches_brute_force(results, name):
    # AC4 and AC17 have an attained optimum in the gain plane (the brute force polishes to a
    # finite K); both sides stop at a stationary point of the same nonsmooth function: the
    # Nelder-Mead polish to fatol 1e-10, the SQP on the relative-progress stall 1e-7, norms to
    # 1e-10 -> 1e-6 relative
    problem = sof_problem(name)
    ref, kref = brute_force_2d(problem)
    assert np.all(np.abs(kref) < 1e3)  # attained: the minimiser is finite
    res = results[name]
    assert res.soft == pytest.approx(ref, rel=1e-6)


def test_ac17_sof_reaches_the_full_order_optimum(results):
    # for AC17 the static gain is as good as any full-order controller: the SOF optimum lies in
    # the bracket of the full-order optimum (a certificate of global optimality). Its upper
    # end is a verified LMI solution 1e-7 (relative) above the solver's minimum, the SQP stops
    # on the relative-progress stall 1e-7 -> 1e-6 relative above; below, the SOF value can
    # never be under the bracket's lower end (1e-6: the norm tolerances)
    lower, upper = full_order_bracket(sof_problem("AC17"))
    assert upper - lower <= 1e-4 * upper  # the bracket is informative
    assert lower * (1 - 1e-6) <= results["AC17"].soft <= upper * (1 + 1e-6)


def test_he1_approaches_the_infimum_from_above(results):
    # HE1's SOF infimum is approached only as |K| -> infinity along a ray (the brute force's
    # polish walks to |K| ~ 1e12); a finite stopping point is above it. The tuner must come
    # within 0.1 % (4 significant digits, the precision SOF values are usually tabulated in),
    # never below by more than the norm tolerances (1e-6), and above the full-order bound
    problem = sof_problem("HE1")
    ref, kref = brute_force_2d(problem)
    assert np.abs(kref).max() > 1e6  # not attained: the polish runs away
    res = results["HE1"]
    assert ref * (1 - 1e-6) <= res.soft <= ref * 1.001
    lower, _ = full_order_bracket(problem)
    assert res.soft >= lower * (1 - 1e-6)


@pytest.mark.parametrize("name", ["AC4", "AC17", "HE1"])
def test_tuned_gain_is_stabilising_and_its_norm_is_reported(results, name):
    # the returned gain closes a stable loop, and the reported value is its H-infinity norm
    # recomputed by slycot ab13dd (different algorithm): both converge to 1e-10 relative; 1e-6
    # leaves room for the conditioning of HE1's high-gain loop (|K| ~ 1e3)
    problem = sof_problem(name)
    res = results[name]
    K = tuned_gain(problem, res)
    assert K.shape == (problem.nu, problem.ny)
    assert np.max(np.linalg.eigvals(problem.closed_loop(K)[0]).real) < 0
    assert res.soft == pytest.approx(sof_norm_ab13dd(problem, K.ravel()), rel=1e-6)


@pytest.mark.parametrize("seed", [2, 5])
def test_lmi_bracket_contains_the_riccati_optimum(seed):
    # the LMI oracle itself, on a regular (DGKF-normalised) plant where the optimal full-order
    # level is also the bisection of the two Riccati equations + coupling (tests/control/dgkf.py,
    # to 1e-7 relative, an independent algorithm): it must lie inside the bracket, up to that
    # bisection tolerance
    import types

    from dgkf import optimal_gamma, random_plant

    A, B1, B2, C1, C2 = random_plant(seed)
    nz, nw = C1.shape[0], B1.shape[1]
    D12 = np.zeros((nz, 1))
    D12[-1, 0] = 1.0
    D21 = np.zeros((1, nw))
    D21[0, -1] = 1.0
    plant = types.SimpleNamespace(A=A, B1=B1, B2=B2, C1=C1, C2=C2, D11=np.zeros((nz, nw)), D12=D12, D21=D21,
                                  nx=A.shape[0], nz=nz, nw=nw)
    gamma = optimal_gamma(A, B1, B2, C1, C2)
    lower, upper = full_order_bracket(plant)
    assert lower * (1 - 1e-7) <= gamma <= upper * (1 + 1e-7)


_UNBOUNDED_VALLEY = "the tuner stops in a local minimum / early in the unbounded valley: "


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "REA2",
    pytest.param("REA1", marks=pytest.mark.xfail(strict=True, reason=_UNBOUNDED_VALLEY + "0.9008 (|K| ~ 4e2) against "
                                                 "0.868 at |K| ~ 5e6; method='bfgs' reaches 0.8972")),
    pytest.param("HE2", marks=pytest.mark.xfail(strict=True, reason=_UNBOUNDED_VALLEY + "4.2492 (|K| < 1, every start "
                                                "and method) against 3.922 at |K| ~ 2e6")),
])
def test_sof_within_one_percent_of_brute_force(name):
    # HE2, REA1, REA2 (4, 6, 4 gain entries): the best values of the brute force sit at
    # |K| >> 1 (infima approached at unbounded gains, as for HE1); the tuner from K = 0 with 7
    # seeded starts must be within 1 % of the brute force (a budget: the valley is flat, the
    # distance walked along it decides the last digits) and above the full-order LMI bound
    problem = sof_problem(name)
    ref, _ = brute_force_multistart(problem)
    res = tune(problem, starts=7)
    lower, _ = full_order_bracket(problem)
    assert lower * (1 - 1e-6) <= res.soft <= ref * 1.01


def test_data_dimensions_and_licence():
    # the shipped data: six problems, dimensions consistent with COMPleib's (nx, nu, ny) for
    # each (COMPleib 1.1 problem list), D22 = 0 by construction, licence notice kept (BSD-3)
    dims = {"AC4": (4, 1, 2), "AC17": (4, 1, 2), "HE1": (4, 2, 1), "HE2": (4, 2, 2), "REA1": (4, 2, 3),
            "REA2": (4, 2, 2)}
    assert sof_problem_names() == tuple(dims)
    for name, (nx, nu, ny) in dims.items():
        p = sof_problem(name)
        assert (p.nx, p.nu, p.ny) == (nx, nu, ny)
        P = p.plant()
        assert P.ninputs == p.nw + p.nu and P.noutputs == p.nz + p.ny
        assert np.all(P.D[p.nz:, p.nw:] == 0)
        assert p.original_source
    prov = sof_data_provenance()
    assert prov["licence"]["spdx"] == "BSD-3-Clause"
    assert "Redistributions of source code must retain" in prov["licence"]["notice"]
    assert len(prov["provenance"]["commit"]) == 40


def test_closed_loop_matches_python_control_interconnection():
    # closed_loop() against python-control's interconnection of the named plant with the static
    # gain by signal names (control.interconnect), on HE2 (D21 = 0) and AC4 (D11, D21 != 0);
    # the same algebra done two ways -> 1e-12
    for name in ("HE2", "AC4"):
        p = sof_problem(name)
        K = np.random.default_rng(3).standard_normal((p.nu, p.ny))
        Kss = control.ss([], [], [], K, inputs=p.measurements, outputs=p.controls, name="K")
        ref = control.interconnect([p.plant(), Kss], inplist=p.disturbances, outlist=p.performance)
        A, B, C, D = p.closed_loop(K)
        w = 1j * np.array([0.1, 1.0, 10.0])
        mine = control.ss(A, B, C, D)(w)
        assert np.allclose(mine, ref(w), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("call, exc, word", [
    (lambda: sof_problem(3), TypeError, "name"),
    (lambda: sof_problem("AC99"), ValueError, "name"),
    (lambda: sof_problem("HE1").closed_loop(np.zeros((1, 2))), ValueError, "K"),
    (lambda: sof_problem("HE1").closed_loop([[np.nan], [0.0]]), ValueError, "K"),
])
def test_errors_name_the_argument(call, exc, word):
    with pytest.raises(exc, match=word):
        call()
