"""Compiled explicit Runge-Kutta integration of a tree's motion (numba), one or many trajectories.

The right-hand side of a simulation costs microseconds once compiled
(:mod:`~satdyn.multibody.compiled`); ``scipy.integrate.solve_ivp`` then spends most of the
time in its own Python step logic (~10 us per stage). This module runs the embedded
Runge-Kutta pairs of scipy -- ``RK45`` (Dormand-Prince 5(4)) and ``DOP853`` (Dormand-Prince
8(5,3)), with the Butcher tables read from scipy's classes -- and scipy's step-size control
(same error norms, safety factor 0.9, step factors in [0.2, 10], initial step of Hairer,
Norsett & Wanner, Solving ODEs I, §II.4) inside compiled code. The solution therefore follows
``solve_ivp`` with the same method and tolerances to within those tolerances (the steps
differ only where this integrator lands exactly on an output time instead of interpolating).

``integrate_segment`` advances one state to the next output time; ``integrate_many`` runs many
initial conditions through all output times in one compiled loop (each trajectory with its
own step-size control, as separate ``solve_ivp`` calls).
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import DOP853, RK45

from .compiled import _jit, _state_derivative

__all__ = ["TABLEAUS", "integrate_segment", "integrate_many"]

_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0


def _tableau(method):
    """(A (s, s), B (s,), C (s,), E3 (s+1,), E5 (s+1,), error order, DOP853 flag) of scipy's class."""
    s = method.n_stages
    A = np.zeros((s, s))
    A[:, :method.A.shape[1]] = method.A
    if method is DOP853:
        return A, method.B.copy(), method.C.copy(), method.E3.copy(), method.E5.copy(), 7, True
    return A, method.B.copy(), method.C.copy(), np.zeros(s + 1), method.E.copy(), 4, False


TABLEAUS = {"RK45": _tableau(RK45), "DOP853": _tableau(DOP853)}


@_jit
def _rms(x):
    return np.sqrt(np.sum(x * x) / x.size)


@_jit
def _initial_step(x, f0, t_span, max_step, order, rtol, atol, tau, nq, ints, geom, inertia, root, ew):
    """scipy's select_initial_step (Hairer, Norsett & Wanner §II.4)."""
    scale = atol + np.abs(x) * rtol
    d0 = _rms(x / scale)
    d1 = _rms(f0 / scale)
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
    h0 = min(h0, t_span)
    f1 = np.empty(x.size)
    _state_derivative(x + h0 * f0, tau, nq, ints, geom, inertia, root, ew, f1)
    d2 = _rms((f1 - f0) / scale) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / (order + 1))
    return min(100.0 * h0, h1, t_span, max_step)


@_jit
def _segment(x, f, t, t_end, h_abs, max_step, rtol, atol, A, B, C, E3, E5, order, dop853,
             tau, nq, ints, geom, inertia, root, ew, K):
    """Advance (x, f = dx/dt) from t to t_end in place; returns (h_abs, n_evaluations, ok)."""
    n = x.size
    s = B.size
    exponent = -1.0 / (order + 1)
    nfev = 0
    x_new = np.empty(n)
    xs = np.empty(n)
    while t < t_end:
        min_step = 10.0 * (np.nextafter(t, np.inf) - t)
        h_abs = min(max(h_abs, min_step), max_step)
        rejected = False
        while True:
            if h_abs < min_step:
                return h_abs, nfev, False
            h = h_abs
            clamped = t + h >= t_end
            if clamped:
                h = t_end - t
            for k in range(n):
                K[0, k] = f[k]
            for i in range(1, s):
                for k in range(n):
                    acc = 0.0
                    for j in range(i):
                        acc += A[i, j] * K[j, k]
                    xs[k] = x[k] + h * acc
                _state_derivative(xs, tau, nq, ints, geom, inertia, root, ew, K[i])
            for k in range(n):
                acc = 0.0
                for j in range(s):
                    acc += B[j] * K[j, k]
                x_new[k] = x[k] + h * acc
            _state_derivative(x_new, tau, nq, ints, geom, inertia, root, ew, K[s])
            nfev += s
            e5 = 0.0
            e3 = 0.0
            for k in range(n):
                scale = atol + max(abs(x[k]), abs(x_new[k])) * rtol
                a5 = 0.0
                a3 = 0.0
                for j in range(s + 1):
                    a5 += E5[j] * K[j, k]
                    a3 += E3[j] * K[j, k]
                e5 += (a5 / scale) ** 2
                e3 += (a3 / scale) ** 2
            if dop853:   # scipy's DOP853 norm: combines the 5th- and 3rd-order estimates
                denominator = e5 + 0.01 * e3
                error = 0.0 if denominator == 0.0 else abs(h) * e5 / np.sqrt(denominator * n)
            else:
                error = abs(h) * np.sqrt(e5 / n)
            if error < 1.0:
                factor = _MAX_FACTOR if error == 0.0 else min(_MAX_FACTOR, _SAFETY * error ** exponent)
                if rejected:
                    factor = min(1.0, factor)
                # A step shortened to land on t_end says nothing against the proposed size.
                h_abs = max(h_abs, h * factor) if clamped else h * factor
                break
            h_abs = h * max(_MIN_FACTOR, _SAFETY * error ** exponent)
            rejected = True
        t = t_end if clamped else t + h
        for k in range(n):
            x[k] = x_new[k]
            f[k] = K[s, k]
    return h_abs, nfev, True


@_jit
def _many(X0, taus, times, max_step, rtol, atol, A, B, C, E3, E5, order, dop853,
          nq, ints, geom, inertia, root, ew, out, status):
    """All trajectories X0 (M, n) through all output times (T,) -> out (M, T, n); status (M,) nfev or -1."""
    n = X0.shape[1]
    K = np.empty((B.size + 1, n))
    for m in range(X0.shape[0]):
        x = X0[m].copy()
        f = np.empty(n)
        _state_derivative(x, taus[m], nq, ints, geom, inertia, root, ew, f)
        h_abs = _initial_step(x, f, times[-1] - times[0], max_step, order, rtol, atol, taus[m], nq,
                              ints, geom, inertia, root, ew)
        total = 2
        out[m, 0] = x
        ok = True
        for i in range(1, times.size):
            h_abs, nfev, ok = _segment(x, f, times[i - 1], times[i], h_abs, max_step, rtol, atol, A, B, C, E3, E5,
                                       order, dop853, taus[m], nq, ints, geom, inertia, root, ew, K)
            total += nfev
            if not ok:
                break
            out[m, i] = x
        status[m] = total if ok else -1


def integrate_many(compiled, X0, taus, times, method="DOP853", rtol=1e-10, atol=1e-10, max_step=np.inf):
    """Trajectories of many initial states (trusted inputs; see :func:`~satdyn.multibody.simulate_batch`).

    Returns ``(states (M, T, nq + nv), nfev (M,))``; ``nfev = -1`` marks a trajectory whose step
    size fell below the floating-point resolution (its states after that are not set).
    """
    A, B, C, E3, E5, order, dop853 = TABLEAUS[method]
    out = np.full((X0.shape[0], times.size, X0.shape[1]), np.nan)
    status = np.zeros(X0.shape[0], dtype=np.int64)
    _many(np.ascontiguousarray(X0, dtype=float), np.ascontiguousarray(taus, dtype=float), times, float(max_step),
          float(rtol), float(atol), A, B, C, E3, E5, order, dop853, compiled.nq, *compiled._packed, out, status)
    return out, status


def integrate_segment(compiled, state, method, rtol, atol, max_step, tau, t, t_end):
    """Advance ``state = [x, f, h_abs]`` (a list, updated) from t to t_end; returns (nfev, ok)."""
    A, B, C, E3, E5, order, dop853 = TABLEAUS[method]
    x, f, h_abs = state
    K = np.empty((B.size + 1, x.size))
    h_abs, nfev, ok = _segment(x, f, t, t_end, h_abs, float(max_step), float(rtol), float(atol), A, B, C, E3, E5,
                               order, dop853, tau, compiled.nq, *compiled._packed, K)
    state[2] = h_abs
    return nfev, ok


def start_segments(compiled, x0, tau, duration, method, rtol, atol, max_step):
    """``[x, f, h_abs]`` at the start: the state, its derivative and scipy's initial step."""
    order = TABLEAUS[method][5]
    x = np.array(x0, dtype=float)
    f = compiled.state_derivative(x, tau)
    h_abs = _initial_step(x, f, float(duration), float(max_step), order, float(rtol), float(atol), tau,
                          compiled.nq, *compiled._packed)
    return [x, f, h_abs]
