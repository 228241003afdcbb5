"""Acceptance of the tuner on problems with known answers (design note section 4):

* H-infinity PID on 1/(s+1)^3 against a brute-force optimum computed here (grid +
  Nelder-Mead on slycot's ab13dd norm, an independent norm code);
* full-order H-infinity on random plants against the Riccati (DGKF) optimum by bisection
  (tests/control/dgkf.py), not slycot's hinfsyn (pitfall P7);
* reduced order monotone above full order;
* a multi-model case whose optimum is known by construction (closed form / scalar root).
"""

import control
import numpy as np
import pytest
import scipy.optimize

from satdyn.control import PID, Gain, StaticGain, TunableSS, TuneOptions, systune

from dgkf import optimal_gamma, random_plant


def pid_plant():
    """Inputs r, u; outputs e = r - G u, uo = u; G = 1/(s+1)^3."""
    G = control.ss(control.tf(1, [1, 3, 3, 1]))
    A, B, C = G.A, G.B, G.C
    return control.ss(A, np.hstack([np.zeros_like(B), B]), np.vstack([-C, np.zeros_like(C)]),
                      np.array([[1.0, 0.0], [0.0, 1.0]]), inputs=["r", "u"], outputs=["e", "uo"])


def pid_weight():
    WS = control.ss(control.tf([0.5, 0.5], [1, 0.005]))
    return control.append(WS, control.ss([], [], [], [[0.1]]))


def _pid_closed_loop():
    """Generalized plant of the PID benchmark written out by hand (not through satdyn):
    states [G (3); W_S (1)], inputs [r; u], outputs [W_S e; 0.1 u; e]."""
    G = control.ss(control.tf(1, [1, 3, 3, 1]))
    WS = control.ss(control.tf([0.5, 0.5], [1, 0.005]))
    n = G.nstates
    A = np.block([[G.A, np.zeros((n, 1))], [-WS.B @ G.C, WS.A]])
    B = np.block([[np.zeros((n, 1)), G.B], [WS.B, np.zeros((1, 1))]])
    C = np.block([[-WS.D @ G.C, WS.C], [np.zeros((1, n + 1))], [-G.C, np.zeros((1, 1))]])
    D = np.array([[WS.D[0, 0], 0.0], [0.0, 0.1], [1.0, 0.0]])
    return A, B, C, D


_PG = _pid_closed_loop()


def _pid_objective_ab13dd(x):
    """||Fl(P, K)||_inf by slycot ab13dd with K = Kp + Ki/s + Kd s/(0.1 s + 1) (2 states)."""
    Kp, Ki, Kd = x
    Ak = np.array([[0.0, 0.0], [0.0, -10.0]])
    Bk = np.array([[1.0], [1.0]])
    Ck = np.array([[Ki, -100.0 * Kd]])
    Dk = np.array([[Kp + 10.0 * Kd]])
    A, B, C, D = _PG
    B1, B2, C1, C2, D11, D12, D21 = B[:, :1], B[:, 1:], C[:2], C[2:], D[:2, :1], D[:2, 1:], D[2:, :1]
    Acl = np.block([[A + B2 @ Dk @ C2, B2 @ Ck], [Bk @ C2, Ak]])
    Bcl = np.vstack([B1 + B2 @ Dk @ D21, Bk @ D21])
    Ccl = np.hstack([C1 + D12 @ Dk @ C2, D12 @ Ck])
    Dcl = D11 + D12 @ Dk @ D21
    if np.max(np.linalg.eigvals(Acl).real) >= 0:
        return np.inf
    return float(control.linfnorm(control.ss(Acl, Bcl, Ccl, Dcl))[0])


@pytest.fixture(scope="module")
def pid_reference():
    """Brute-force optimum of ||[W_S S; 0.1 K S]||_inf over (Kp, Ki, Kd), Tf = 0.1: the best
    of a 7^3 grid, polished by Nelder-Mead, every norm by slycot ab13dd (independent of
    satdyn's norm and of the tuner)."""
    grid = [(kp, ki, kd) for kp in np.linspace(0.8, 2.0, 7) for ki in np.linspace(0.2, 0.8, 7)
            for kd in np.linspace(0.3, 1.0, 7)]
    vals = [_pid_objective_ab13dd(np.array(g)) for g in grid]
    best = np.array(grid[int(np.argmin(vals))])
    res = scipy.optimize.minimize(lambda x: _pid_objective_ab13dd(x), best, method="Nelder-Mead",
                                  options=dict(xatol=1e-6, fatol=1e-9, maxiter=2000))
    return res.fun, res.x


@pytest.mark.parametrize("method", ["sqp", "bfgs"])
def test_hinf_pid_within_0p3_percent_of_brute_force(pid_reference, method):
    # acceptance bound of the issue (0.3 %); the objective is a max of smooth functions with a
    # flat valley (design note: Kp in [1.36, 1.41] within 0.2 %), so a local method stops at
    # a kink a little above the minimum; the brute force is an upper bound on the optimum
    ref, xref = pid_reference
    blk = PID("K", "e", "u", Kp=1.0, Ki=0.3, Kd=0.3, Tf=0.1)
    res = systune(pid_plant(), [blk], soft=[Gain("r", ["e", "uo"], weight_out=pid_weight())],
                  options=TuneOptions(method=method, random_starts=2, n_jobs=1, max_iter=300))
    assert res.feasible
    assert res.soft <= ref * 1.003
    # the value reported is the true norm at the returned gains (ab13dd, 1e-6 relative)
    assert res.soft == pytest.approx(_pid_objective_ab13dd(res.x[:3]), rel=1e-6)
    assert len(res.starts) == 3 and res.history


def _dgkf_problem(seed):
    A, B1, B2, C1, C2 = random_plant(seed)
    n, nw, nz = A.shape[0], B1.shape[1], C1.shape[0]
    D12 = np.zeros((nz, 1))
    D12[-1, 0] = 1.0
    D21 = np.zeros((1, nw))
    D21[0, -1] = 1.0
    P = control.ss(A, np.hstack([B1, B2]), np.vstack([C1, C2]),
                   np.block([[np.zeros((nz, nw)), D12], [D21, np.zeros((1, 1))]]),
                   inputs=[f"w{i}" for i in range(nw)] + ["u"], outputs=[f"z{i}" for i in range(nz)] + ["y"])
    Kc = control.lqr(A, B2, C1.T @ C1, np.eye(1))[0]
    L = control.lqe(A, B1, C2, np.eye(nw), np.eye(1))[0]
    K0 = (A - B2 @ Kc - L @ C2, L, -Kc, np.zeros((1, 1)))  # LQG: a stabilising start
    goal = Gain([f"w{i}" for i in range(nw)], [f"z{i}" for i in range(nz)])
    return P, K0, goal, optimal_gamma(A, B1, B2, C1, C2), n


def test_full_order_reaches_the_dgkf_optimum():
    # acceptance bound of the issue: within 0.5 % of the Riccati optimum (bisection to 1e-7);
    # a full-order controller can reach it exactly, so the tuner may only be above by its
    # stopping tolerance, and never below by more than the bisection tolerance
    P, K0, goal, gamma, n = _dgkf_problem(2)
    res = systune(P, [TunableSS("K", n, "y", "u", structure="tridiag", init=K0)], soft=[goal],
                  options=TuneOptions(random_starts=1, n_jobs=1, max_iter=400))
    assert gamma * (1 - 1e-6) <= res.soft <= gamma * 1.005


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_full_order_reaches_the_dgkf_optimum_harder_plants(seed):
    # same bound; these plants need several starts (the spread between starts is large)
    P, K0, goal, gamma, n = _dgkf_problem(seed)
    res = systune(P, [TunableSS("K", n, "y", "u", structure="tridiag", init=K0)], soft=[goal],
                  options=TuneOptions(random_starts=3, max_iter=400))
    assert gamma * (1 - 1e-6) <= res.soft <= gamma * 1.005


def test_reduced_order_is_monotone_above_full_order():
    # any nk-state controller is also an (nk+1)-state one (add an unobservable state), so the
    # optimum can only decrease with nk, and never beats the full-order DGKF optimum;
    # local optima may violate strict monotonicity by the stopping tolerance only, hence 1e-4
    P, K0, goal, gamma, n = _dgkf_problem(2)
    values = []
    for nk in (1, 2, n):
        if nk == n:
            init = K0
        else:
            init = control.balred(control.ss(*K0), nk, method="truncate")
        blk = TunableSS("K", nk, "y", "u", structure="tridiag", init=init)
        res = systune(P, [blk], soft=[goal], options=TuneOptions(random_starts=1, n_jobs=1, max_iter=300))
        values.append(res.soft)
    assert all(v >= gamma * (1 - 1e-6) for v in values)
    # (two comparisons: a chained `a >= b (1 - tol) >= c (1 - tol)` would demand b >= c exactly)
    assert values[0] >= values[1] * (1 - 1e-4)
    assert values[1] >= values[2] * (1 - 1e-4)


def _first_order(a, b, r=0.5):
    """x' = -a x + w + b u; z = [x; r u]; y = x."""
    return control.ss([[-a]], [[1.0, b]], [[1.0], [0.0], [1.0]], [[0, 0], [0, r], [0, 0]],
                      inputs=["w", "u"], outputs=["z1", "z2", "y"])


def _f(K, a, b, r=0.5):
    # H-inf of w -> [x; r u] with u = K x: first-order low-pass, peak at DC:
    # sqrt(1 + r^2 K^2) / (a - b K) for a - b K > 0
    return np.sqrt(1 + (r * K) ** 2) / (a - b * K)


def test_multi_model_optimum_known_by_construction():
    # three models; the min-max is where two of the f_i cross (found here by a scalar root,
    # verified to be the minimum of the max by a dense 1-D scan); tolerance 1e-6 relative:
    # the SQP stops when the tangent program predicts < 1e-7 relative progress
    models = [(1.0, 1.0), (2.0, 0.3), (0.5, 2.0)]
    plants = [_first_order(a, b) for a, b in models]
    Ks = np.linspace(-4.0, 0.2, 200001)
    F = np.max([_f(Ks, a, b) for a, b in models], axis=0)
    k0 = Ks[np.argmin(F)]
    ref = F.min()
    pairs = [(i, j) for i in range(3) for j in range(i + 1, 3)]
    roots = []
    for i, j in pairs:
        def g(K, i=i, j=j):  # called only within this iteration (brentq below); defaults bind i, j
            return _f(K, *models[i]) - _f(K, *models[j])

        lo, hi = k0 - 0.01, k0 + 0.01
        if g(lo) * g(hi) < 0:
            roots.append(scipy.optimize.brentq(g, lo, hi, xtol=1e-14))
    assert roots, "construction: the optimum is at a crossing of two models"
    kstar = min(roots, key=lambda K: np.max([_f(K, a, b) for a, b in models]))
    fstar = np.max([_f(kstar, a, b) for a, b in models])
    assert fstar <= ref + 1e-9
    res = systune(plants, [StaticGain("K", "y", "u", init=[[-0.5]])], soft=[Gain("w", ["z1", "z2"])],
                  options=TuneOptions(n_jobs=1))
    assert res.values.shape == (1, 3)
    assert res.soft == pytest.approx(fstar, rel=1e-6)
    assert res.x[0] == pytest.approx(kstar, abs=1e-4)


def test_hard_goal_is_enforced_at_its_bound():
    # minimise the worst model subject to a hard bound on ||w -> c u|| of model 0:
    # h(K) = c |K| / (a0 - b0 K) <= 1 cuts the unconstrained optimum off, so the solution is
    # on the constraint, K = -a0 / (c - b0), known in closed form
    models = [(1.0, 1.0), (2.0, 0.3)]
    plants = [_first_order(a, b) for a, b in models]
    c = 3.0
    hard = Gain("w", "z2", weight_out=c / 0.5)  # z2 = 0.5 u
    a0, b0 = models[0]
    k_bound = -a0 / (c - b0)
    res = systune(plants, [StaticGain("K", "y", "u", init=[[-0.1]])], soft=[Gain("w", ["z1", "z2"])],
                  hard=[hard], options=TuneOptions(n_jobs=1))
    assert res.feasible
    assert res.x[0] == pytest.approx(k_bound, rel=1e-5)
    assert res.hard == pytest.approx(1.0, abs=1e-6)


def test_docs_quick_start_runs():
    # docs/control.md's first example is executed so that it cannot drift from the code; its
    # value is the brute-force optimum of the same problem (see the PID test's tolerance)
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "control.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    ns = {}
    exec(compile(code, "docs/control.md", "exec"), ns)
    assert ns["res"].soft == pytest.approx(0.941092, rel=3e-3)
