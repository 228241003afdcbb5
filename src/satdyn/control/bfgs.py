"""HANSO-style BFGS on the nonsmooth exact-penalty function (second method).

``phi(x) = f(x) + penalty * max(c(x), 0)`` with ``f`` the largest soft value and ``c`` the
largest hard value minus 1 (without soft goals ``phi = max(hard)``). BFGS on a nonsmooth
function (Lewis & Overton 2013) with the weak-Wolfe bracketing line search: cheap per
iteration, no QP, and it copes with kinks and repeated singular values implicitly. The
gradient is that of the active piece (largest soft piece, plus ``penalty`` times the
largest hard piece when violated). Instability is ``+inf`` in the line search.
"""

from __future__ import annotations

import time

import numpy as np

from .evaluation import evaluate
from .sqp import budget_stop, objective_parts

__all__ = ["bfgs_nonsmooth"]


def _phi_grad(problem, x, penalty, rho=0.999):
    ev = evaluate(problem, x, pieces=True, rho=rho)
    f, c = objective_parts(problem, ev.values)
    hard = np.array([g.hard for g in problem.goals])
    only_hard = not np.any(~hard)
    phi = (c + 1.0) if only_hard else f + penalty * max(c, 0.0)
    if not np.isfinite(phi):
        return np.inf, None, ev, f, c
    g = 0.0
    soft_p = [p for p in ev.pieces if not hard[p.goal]]
    hard_p = [p for p in ev.pieces if hard[p.goal]]
    if soft_p:
        g = g + max(soft_p, key=lambda p: p.value).grad
    if hard_p and (only_hard or c > 0):
        g = g + (1.0 if only_hard else penalty) * max(hard_p, key=lambda p: p.value).grad
    return phi, np.asarray(g, float), ev, f, c


def bfgs_nonsmooth(problem, x0, *, max_iter=300, max_time=None, penalty=10.0, tol=1e-8, history=None,
                   target=None):
    """Minimise the exact penalty function by BFGS with a weak-Wolfe line search.

    ``target``: stop as soon as every hard goal is met and the soft value is ``<= target``.
    Returns the same dict as :func:`satdyn.control.sqp.sqp_minmax`.
    """
    ctrl = problem.controller
    t0 = time.perf_counter()
    x = ctrl.project(np.asarray(x0, float))
    z = ctrl.z_of_x(x)
    phi, g, ev, f, c = _phi_grad(problem, x, penalty)
    nev = 1
    if not np.isfinite(phi):
        return dict(x=x, values=ev.values, peaks=ev.peaks, f=f, c=c, iterations=0, evaluations=1,
                    reason="unstable start")
    P = len(z)
    Hinv = np.eye(P)
    reason, it = "max_iter", 0
    for it in range(1, max_iter + 1):
        stop = budget_stop(t0, max_time, target, f, c)
        if stop is not None:
            reason = stop
            break
        d = -Hinv @ g
        gd = g @ d
        if gd >= 0:
            Hinv = np.eye(P)
            d = -g
            gd = g @ d
        if np.linalg.norm(g) < tol:
            reason = "stationary"
            break
        lo, hi, alpha = 0.0, np.inf, 1.0
        found = False
        for _ in range(40):
            xt = ctrl.project(ctrl.x_of_z(z + alpha * d, x))
            pt, gt, evt, ft, ct = _phi_grad(problem, xt, penalty)
            nev += 1
            if not np.isfinite(pt) or pt > phi + 1e-4 * alpha * gd:
                hi = alpha
            elif gt @ d < 0.5 * gd:
                lo = alpha
            else:
                found = True
                break
            alpha = 0.5 * (lo + hi) if np.isfinite(hi) else 2.0 * alpha
            if hi - lo < 1e-14 * max(alpha, 1.0):
                break
        if not found and not (lo > 0):
            reason = "line search"
            break
        if not found:  # accept the last point with sufficient decrease
            alpha = lo
            xt = ctrl.project(ctrl.x_of_z(z + alpha * d, x))
            pt, gt, evt, ft, ct = _phi_grad(problem, xt, penalty)
            nev += 1
        zt = ctrl.z_of_x(xt)
        s, y = zt - z, gt - g
        sy = s @ y
        if sy > 1e-16 * np.linalg.norm(s) * np.linalg.norm(y):
            r = 1.0 / sy
            V = np.eye(P) - r * np.outer(s, y)
            Hinv = V @ Hinv @ V.T + r * np.outer(s, s)
        improvement = phi - pt
        z, x, phi, g, ev, f, c = zt, xt, pt, gt, evt, ft, ct
        if history is not None:
            history.append((it, f, c + 1.0, nev, time.perf_counter() - t0))
        if improvement < tol * (1 + abs(phi)) and np.linalg.norm(s) < 1e-10 * (1 + np.linalg.norm(z)):
            reason = "stalled"
            break
    return dict(x=x, values=ev.values, peaks=ev.peaks, f=f, c=c, iterations=it, evaluations=nev, reason=reason)
