"""Nonsmooth SQP min-max with a progress function (Apkarian-Noll), and a stabilisation phase.

Problem: minimise ``f(x) = max(soft goal values)`` subject to ``c(x) = max(hard) - 1 <= 0``.
At the iterate x the progress function is

    F(y; x) = max( f(y) - f(x) - mu c(x)_+ ,  c(y) - c(x)_+ )           (F(x; x) = 0)

and its tangent model is the max of the pieces' linearisations (local peaks of every
goal on every scenario, spectral pieces), offset as in F. One iteration:

1. tangent program ``min_d max_k(a_k + g_k^T d) + 1/2 d^T H d`` (dual on the simplex,
   :mod:`satdyn.control.qp`); pieces with repeated singular values add **cutting planes**
   from the exact 2x2 first-order model (top eigenvector of ``diag(s) + Herm(sum d_p G_p)``),
   up to 8 rounds;
2. **Levenberg-Marquardt radius**: ``H + delta I`` with ``delta`` chosen so that
   ``|d| <= radius`` (radius doubled after a full step, else set to ``alpha |d|``) —
   without it, BFGS learns the flat similarity directions of a state-space controller
   and proposes huge steps (pitfall P4);
3. Armijo backtracking on the *true* F; an unstable trial point has F = +inf (barrier);
4. damped BFGS of the multiplier-weighted piece gradients, each piece re-tracked at the
   new point (envelope gradient, pitfall P3).

The optimiser works on the scaled free parameters ``z = x_free / scale``.
"""

from __future__ import annotations

import time

import numpy as np

from .evaluation import evaluate
from .qp import tangent_step

__all__ = ["sqp_minmax", "stabilize", "objective_parts"]


def objective_parts(problem, values):
    """``(f, c)``: largest soft value (0 without soft goals) and largest hard value minus 1."""
    hard = np.array([g.hard for g in problem.goals])
    f = float(np.max(values[~hard])) if np.any(~hard) else 0.0
    c = float(np.max(values[hard]) - 1.0) if np.any(hard) else -np.inf
    return f, c


def budget_stop(t0, max_time, target, f, c):
    """Stop reason shared by the optimisers at the top of an iteration, or None.

    ``"max_time"`` once ``max_time`` seconds have passed since ``t0`` (``time.perf_counter``):
    a wall-clock *safety* limit, off by default, that the caller must report (the iterate then
    depends on the machine's speed); ``"target"`` once every hard goal is met (``c <= 0``) and
    the soft value ``f <= target``. The budgets that decide a result are counts
    (``max_iter``), checked by the loops themselves.
    """
    if max_time is not None and time.perf_counter() - t0 > max_time:
        return "max_time"
    if target is not None and c <= 0 and f <= target:
        return "target"
    return None


def _progress(f_new, c_new, f, c, mu):
    cp = max(c, 0.0)
    if not (np.isfinite(f_new) and (np.isfinite(c_new) or c_new == -np.inf)):
        return np.inf
    return max(f_new - f - mu * cp, c_new - cp)


def _piece_data(problem, ev, f, c, mu):
    hard = np.array([g.hard for g in problem.goals])
    cp = max(c, 0.0)
    a, G, clusters = [], [], []
    for p in ev.pieces:
        off = (f + mu * cp) if not hard[p.goal] else (1.0 + cp)
        a.append(p.value - off)
        G.append(p.grad)
        clusters.append((p.cluster, off))
    return np.array(a), np.array(G).T, clusters


def _solve_with_cuts(a, G, clusters, Hinv, rounds=8, lam0=None):
    """Tangent program with cutting planes for clustered singular values."""
    a, G = a.copy(), G.copy()
    for _ in range(rounds + 1):
        d, lam, theta = tangent_step(a, G, Hinv, lam0)
        added = False
        model = np.max(a + G.T @ d)
        for cl, off in clusters:
            if cl is None:
                continue
            sig, Gp = cl
            M = np.diag(sig).astype(complex) + np.tensordot(d, Gp, axes=1)
            M = 0.5 * (M + M.conj().T)
            w, V = np.linalg.eigh(M)
            if w[-1] - off > model + 1e-12 * (1 + abs(model)):
                q = V[:, -1]
                a = np.append(a, float(np.real(q.conj() @ np.diag(sig) @ q)) - off)
                g = np.real(np.einsum("a,pab,b->p", q.conj(), 0.5 * (Gp + np.conj(np.swapaxes(Gp, 1, 2))), q))
                G = np.column_stack([G, g])
                added = True
        if not added:
            break
        lam0 = np.append(lam, np.zeros(G.shape[1] - len(lam)))
    return d, lam, theta, a, G


def _lm_step(a, G, clusters, H, radius):
    """Tangent step with the LM-regularised metric H + delta I and |d| <= radius."""
    w, U = np.linalg.eigh(H)
    # the damped BFGS matrix is positive definite in exact arithmetic; rounding can leave a
    # zero or slightly negative eigenvalue, which would make H + 0 I singular
    w = np.maximum(w, 1e-12 * max(float(np.max(np.abs(w))), 1.0))

    warm = [None]  # the dual solution of the previous delta: the support barely changes

    def solve(delta, rounds=8):
        Hinv = (U / (w + delta)) @ U.T
        out = _solve_with_cuts(a, G, clusters, Hinv, rounds=rounds, lam0=warm[0])
        warm[0] = out[1][: len(a)]
        return out

    out = solve(0.0)
    if np.linalg.norm(out[0]) <= radius:
        return out
    # the radius search runs without cutting planes (they barely change |d|); the final
    # step at the chosen delta has them. The radius is a heuristic safeguard: |d| within
    # [radius / 2, radius] is enough (fewer QPs per iteration; they dominated the run time)
    lo, hi = 0.0, max(w.max(), 1.0)
    while np.linalg.norm(solve(hi, 0)[0]) > radius and hi < 1e12:
        lo, hi = hi, hi * 10.0
    for _ in range(12):
        mid = np.sqrt(max(lo, 1e-12 * hi) * hi)
        norm = np.linalg.norm(solve(mid, 0)[0])
        if norm > radius:
            lo = mid
        else:
            hi = mid
            if norm >= 0.5 * radius:
                break
    return solve(hi)


def _match(old, new_pieces):
    """Gradient at the new point of the piece that continues ``old`` (same goal, scenario,
    nearest frequency); None if there is none."""
    best, dist = None, np.inf
    for p in new_pieces:
        if p.goal != old.goal or p.scenario != old.scenario:
            continue
        if np.isnan(old.omega) and np.isnan(p.omega):
            dd = 0.0
        elif np.isinf(old.omega) or np.isinf(p.omega):
            dd = 0.0 if old.omega == p.omega else np.inf
        else:
            dd = abs(np.log((p.omega + 1e-12) / (old.omega + 1e-12)))
        if dd < dist:
            best, dist = p, dd
    return best.grad if best is not None and dist < 0.3 else None


def sqp_minmax(problem, x0, *, max_iter=300, max_time=None, mu=1.0, rho=0.8, tol=1e-7,
               stall_iter=15, stationarity=1e-12, target=None, history=None):
    """Run the SQP from the full parameter vector ``x0``.

    Parameters
    ----------
    problem : TuningProblem
    x0 : ndarray (P,)
    max_iter : int
        Iteration budget (decides the result).
    max_time : float or None
        Wall-clock safety limit [s]: stops early with ``reason="max_time"``.
    mu : float
        Weight of the hard-constraint violation in the progress function.
    rho : float
        Piece selection level (see :func:`satdyn.control.evaluation.evaluate`).
    tol, stall_iter : float, int
        Stop when the objective improved less than ``tol`` (relative) over ``stall_iter``
        iterations.
    stationarity : float
        Stop when the tangent program with the identity metric predicts less than
        ``stationarity`` relative progress (it is quadratic in the gradient: 1e-12 means a
        gradient of ~1e-6).
    target : float, optional
        Stop as soon as the point is feasible with ``f <= target``.
    history : list, optional
        Receives ``(iteration, f, c + 1, evaluations, time)`` per iteration.

    Returns
    -------
    dict
        ``x``, ``values``, ``peaks``, ``f``, ``c``, ``iterations``, ``evaluations``, ``reason``.
    """
    ctrl = problem.controller
    t0 = time.perf_counter()
    x = ctrl.project(np.asarray(x0, float))
    z = ctrl.z_of_x(x)
    ev = evaluate(problem, x, pieces=True, rho=rho)
    f, c = objective_parts(problem, ev.values)
    if not np.isfinite(f) or not (np.isfinite(c) or c == -np.inf):
        return dict(x=x, values=ev.values, peaks=ev.peaks, f=f, c=c, iterations=0, evaluations=1,
                    reason="unstable start")
    P = len(z)
    H = np.eye(P)
    radius = 1.0
    nev = 1
    recent = []
    reason = "max_iter"
    it = 0
    for it in range(1, max_iter + 1):
        stop = budget_stop(t0, max_time, target, f, c)
        if stop is not None:
            reason = stop
            break
        a, G, clusters = _piece_data(problem, ev, f, c, mu)
        # stationarity with the identity metric (a large BFGS H would hide it)
        _, _, theta_id, _, _ = _solve_with_cuts(a, G, clusters, np.eye(P), rounds=2)
        scale = 1.0 + abs(f) + max(c, 0.0)
        if -theta_id < stationarity * scale:
            reason = "stationary"
            break
        d, lam, theta, a_cut, G_cut = _lm_step(a, G, clusters, H, radius)
        if theta >= 0:
            reason = "no descent"
            break
        alpha, accepted = 1.0, False
        for _ in range(30):
            xt = ctrl.project(ctrl.x_of_z(z + alpha * d, x))
            # with pieces: most steps are accepted at alpha = 1, and the accepted point's
            # pieces are then already there (one evaluation per iteration instead of two)
            evt = evaluate(problem, xt, pieces=True, rho=rho)
            nev += 1
            ft, ct = objective_parts(problem, evt.values)
            Ft = _progress(ft, ct, f, c, mu)
            if Ft <= 0.1 * alpha * theta:
                accepted = True
                break
            alpha *= 0.5
        if not accepted:
            if radius < 1e-10:
                reason = "line search"
                break
            radius *= 0.1
            continue
        zt = ctrl.z_of_x(xt)
        evn = evt
        # envelope BFGS: multiplier-weighted gradient difference of re-tracked pieces
        s = zt - z
        y = np.zeros(P)
        for k, p in enumerate(ev.pieces):  # cutting planes (k >= len(pieces)) only shape the step
            if k < len(lam) and lam[k] > 1e-10:
                g_new = _match(p, evn.pieces)
                if g_new is not None:
                    y += lam[k] * (g_new - p.grad)
        sHs = s @ H @ s
        if sHs > 0:
            sy = s @ y
            if sy < 0.2 * sHs:
                th = 0.8 * sHs / (sHs - sy)
                y = th * y + (1 - th) * (H @ s)
                sy = s @ y
            Hs = H @ s
            H = H - np.outer(Hs, Hs) / sHs + np.outer(y, y) / sy
            H = 0.5 * (H + H.T)
        radius = 2.0 * radius if alpha == 1.0 else max(alpha * np.linalg.norm(d), 1e-12)
        z, x, ev = zt, xt, evn
        f, c = objective_parts(problem, ev.values)
        if history is not None:
            history.append((it, f, c + 1.0, nev, time.perf_counter() - t0))
        obj = f if c <= 0 else f + 1e3 * c
        recent.append(obj)
        if len(recent) > stall_iter and recent[-stall_iter - 1] - obj < tol * (1 + abs(obj)):
            reason = "stalled"
            break
    return dict(x=x, values=ev.values, peaks=ev.peaks, f=f, c=c, iterations=it, evaluations=nev, reason=reason)


def stabilize(problem, x0, *, margin=1e-7, max_iter=200, max_time=None):
    """Stabilisation phase: minimise the largest closed-loop pole real part of every scenario
    (pieces: the rightmost poles) until it is ``< -margin`` [rad/s].

    Returns the dict of :func:`sqp_minmax` on the spectral sub-problem.
    """
    from .goals import Poles

    sub = problem.spectral_problem(Poles(min_decay=margin, decay_scale=1.0, hard=False))
    return sqp_minmax(sub, x0, max_iter=max_iter, max_time=max_time, target=1.0 - 1e-9, rho=0.0)
