"""The tangent program of the min-max SQP, solved through its dual on the simplex.

Primal: ``min_d max_k (a_k + g_k^T d) + 1/2 d^T H d`` (H positive definite).
Dual:   ``max_{lam in simplex} a^T lam - 1/2 lam^T G^T H^-1 G lam``, ``d = -H^-1 G lam``.

Large programs (more than ``LARGE`` pieces: a robust loop with many scenarios) go to the
Clarabel interior-point solver on the primal form (its multipliers are the dual ``lam``).
Otherwise the dual is solved by accelerated projected gradient (projection on the simplex by
sorting), then polished by an active-set step: the KKT system on the support of ``lam``,
accepted when it is primal-dual optimal (``lam >= 0`` and no inactive piece predicts a
larger value). Sizes here are small (tens to a few hundred pieces).
"""

from __future__ import annotations

import numpy as np

__all__ = ["project_simplex", "simplex_qp", "tangent_step"]


def project_simplex(v):
    """Euclidean projection of v (m,) on the unit simplex."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.arange(1, len(v) + 1)
    cond = u - css / k > 0
    r = k[cond][-1]
    return np.maximum(v - css[r - 1] / r, 0.0)


def simplex_qp(Q, a, lam0=None, iterations=30, tol=1e-13):
    """Minimise ``1/2 lam^T Q lam - a^T lam`` over the unit simplex; returns lam (m,)."""
    m = len(a)
    if m == 1:
        return np.ones(1)
    if lam0 is not None and len(lam0) == m and np.all(np.isfinite(lam0)) and lam0.sum() > 0:
        # warm start (same pieces, nearby metric): the active-set method from the previous
        # support needs a few steps; the projected-gradient phase would only blur the support
        return _active_set(Q, a, project_simplex(np.asarray(lam0, float)))
    L = max(np.linalg.eigvalsh(Q)[-1], 1e-300)
    lam = project_simplex(np.full(m, 1.0 / m) if lam0 is None else lam0)
    y, t = lam.copy(), 1.0
    for _ in range(iterations):
        new = project_simplex(y - (Q @ y - a) / L)
        t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        y = new + ((t - 1.0) / t_new) * (new - lam)
        done = np.max(np.abs(new - lam)) < tol
        lam, t = new, t_new
        if done:
            break
    return _active_set(Q, a, lam)


def _active_set(Q, a, lam, max_steps=None):
    """Primal active-set method on the simplex from a feasible ``lam`` (exact to rounding)."""
    m = len(a)
    S = list(np.flatnonzero(lam > 1e-12))
    if not S:
        S = [int(np.argmax(a))]
        lam = np.zeros(m)
        lam[S[0]] = 1.0
    scale = 1.0 + np.abs(Q).max() + np.abs(a).max()
    ridge = 1e-13 * (1.0 + np.abs(Q).max())
    for _ in range(max_steps or 20 * m + 20):
        k = len(S)
        K = np.zeros((k + 1, k + 1))
        # a tiny ridge keeps the KKT matrix regular when the support's gradients are
        # linearly dependent (more pieces than parameters, repeated pieces)
        K[:k, :k] = Q[np.ix_(S, S)] + ridge * np.eye(k)
        K[:k, k] = K[k, :k] = 1.0
        rhs = np.concatenate([a[S], [1.0]])
        try:  # the KKT matrix is regular unless the support's gradients are degenerate
            sol = np.linalg.solve(K, rhs)
            if not np.all(np.isfinite(sol)):
                raise np.linalg.LinAlgError
        except np.linalg.LinAlgError:
            sol = np.linalg.lstsq(K, rhs, rcond=1e-13)[0]
        target = sol[:k]
        p = target - lam[S]
        neg = p < -1e-15
        alpha = 1.0
        block = None
        if np.any(neg):
            ratios = -lam[S][neg] / p[neg]
            r = int(np.argmin(ratios))
            if ratios[r] < 1.0:
                alpha = max(ratios[r], 0.0)
                block = np.flatnonzero(neg)[r]
        lam[S] = lam[S] + alpha * p
        if block is not None:
            lam[S[block]] = 0.0
            S.pop(block)
            continue
        g = Q @ lam - a
        if not S:
            break
        nu = np.mean(g[S])
        inside = np.zeros(m, bool)
        inside[S] = True
        out = np.flatnonzero(~inside)
        if not out.size:
            break
        viol = g[out] - nu
        j = int(np.argmin(viol))
        if viol[j] >= -1e-13 * scale:
            break
        S.append(int(out[j]))
    lam = np.maximum(lam, 0.0)
    total = lam.sum()
    if not total > 0:
        lam = np.zeros(m)
        lam[int(np.argmax(a))] = 1.0
        return lam
    return lam / total


LARGE = 200  # pieces above which the interior-point solver is used (benchmarks/bench_tuning.py,
# 75 parameters: active set 2x faster at 120 pieces, Clarabel 7x at 300 and 77x at 750)


def _interior_point(a, G, Hinv):
    """Primal tangent program ``min t + 1/2 d^T H d`` s.t. ``a_k + g_k^T d <= t`` by Clarabel
    (interior point); returns ``(d, lam)`` or None when it does not report success."""
    try:
        import clarabel
        import scipy.sparse as sp
    except ImportError:  # pragma: no cover - clarabel ships with cvxpy
        return None
    P, m = G.shape
    H = np.linalg.inv(Hinv)
    H = 0.5 * (H + H.T)
    Pm = sp.block_diag([sp.csc_matrix(np.triu(H)), sp.csc_matrix((1, 1))], format="csc")
    A = sp.csc_matrix(np.hstack([G.T, -np.ones((m, 1))]))
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = 1e-12
    sol = clarabel.DefaultSolver(Pm, np.r_[np.zeros(P), 1.0], A, -np.asarray(a, float),
                                 [clarabel.NonnegativeConeT(m)], settings).solve()
    if str(sol.status) not in ("Solved", "SolverStatus.Solved", "AlmostSolved", "SolverStatus.AlmostSolved"):
        return None
    lam = np.maximum(np.asarray(sol.z, float), 0.0)
    if not lam.sum() > 0:
        return None
    return np.asarray(sol.x, float)[:P], lam / lam.sum()


def tangent_step(a, G, Hinv, lam0=None):
    """Solve the tangent program. a (m,), G (P, m), Hinv (P, P).

    Returns
    -------
    d : ndarray (P,)
    lam : ndarray (m,)
    theta : float
        Optimal value ``max_k (a_k + g_k^T d) + 1/2 d^T H d`` (<= max a; < 0 predicts progress).
    """
    HG = Hinv @ G
    Q = G.T @ HG
    Q = 0.5 * (Q + Q.T)
    ip = _interior_point(a, G, Hinv) if len(a) > LARGE else None
    if ip is not None:
        lam = ip[1]
    else:
        lam = simplex_qp(Q, a, lam0)
    d = -HG @ lam
    model = np.max(a + G.T @ d)
    theta = model + 0.5 * lam @ Q @ lam
    return d, lam, float(theta)
