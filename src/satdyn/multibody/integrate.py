"""Compiled explicit Runge-Kutta integration of a tree's motion (numba), one or many trajectories.

The right-hand side of a simulation costs microseconds once compiled
(:mod:`~satdyn.multibody.compiled`); ``scipy.integrate.solve_ivp`` then spends most of the
time in its own Python step logic (~10 us per stage). This module runs the embedded
Runge-Kutta pairs of scipy -- ``RK45`` (Dormand-Prince 5(4)) and ``DOP853`` (Dormand-Prince
8(5,3)), with the Butcher tables read from scipy's classes -- with scipy's step-size control
(same error norms, safety factor 0.9, step factors in [0.2, 10], initial step of Hairer,
Norsett & Wanner, Solving ODEs I, §II.4) and scipy's dense output (the continuous extension of
each pair: free for RK45, three more stages for DOP853, computed only on steps that contain an
output time) inside compiled code. The steps are those ``solve_ivp`` takes with the same method
and tolerances (the output times do not shorten them), so the solution follows ``solve_ivp``
to rounding -- and both follow the exact flow to the tolerances.

``integrate_many`` runs many initial conditions through all output times in one compiled loop
(each trajectory with its own step-size control, as separate ``solve_ivp`` calls);
``start_run`` / ``advance`` split one run into chunks (for a progress callback).
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import DOP853, RK45

from .kernel_cache import cached_njit
from .compiled import HAVE_NUMBA, _jit, _state_derivative, numba

__all__ = ["TABLEAUS", "advance", "integrate_many", "start_run"]

_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0


def _tableau(method):
    """Coefficients of scipy's class: A (s, s), B (s,), C (s,), E3 (s+1,), E5 (s+1,), error order,
    DOP853 flag, and the dense output: A_extra (3, 16), C_extra (3,) and D (4, 16) for DOP853, or
    P^T (4, s+1) for RK45 (y(t_old + x h) = y_old + h sum_r (K^T P)_r x^(r+1))."""
    s = method.n_stages
    A = np.zeros((s, s))
    A[:, :method.A.shape[1]] = method.A
    if method is DOP853:
        return (A, method.B.copy(), method.C.copy(), method.E3.copy(), method.E5.copy(), 7, True,
                method.A_EXTRA.copy(), method.C_EXTRA.copy(), method.D.copy())
    return (A, method.B.copy(), method.C.copy(), np.zeros(s + 1), method.E.copy(), 4, False,
            np.zeros((0, s + 1)), np.zeros(0), np.ascontiguousarray(method.P.T))


TABLEAUS = {"RK45": _tableau(RK45), "DOP853": _tableau(DOP853)}
TABLEAU_ORDER = {name: tab[5] for name, tab in TABLEAUS.items()}


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
    # h0 = 0 when f0 overflows (d1 = inf): d2 = inf, h = 0, and the run fails at its first step
    # (scipy divides by zero here too and fails the same way)
    d2 = _rms((f1 - f0) / scale) / h0 if h0 > 0.0 else np.inf
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / (order + 1))
    return min(100.0 * h0, h1, t_span, max_step)



@_jit
def _dense_coefficients(x_old, x_new, f_old, f_new, t_old, h, A_extra, C_extra, Dense, dop853,
                        tau, nq, ints, geom, inertia, root, ew, K, F):
    """F: scipy's dense-output coefficients of the step (DOP853: 3 more stages into K[13:16])."""
    if dop853:
        n = x_old.size
        xs = np.empty(n)
        s0 = K.shape[0] - A_extra.shape[0]
        for e in range(A_extra.shape[0]):
            for k in range(n):
                acc = 0.0
                for j in range(s0 + e):
                    acc += A_extra[e, j] * K[j, k]
                xs[k] = x_old[k] + h * acc
            _state_derivative(xs, tau, nq, ints, geom, inertia, root, ew, K[s0 + e])
    _dense_from_stages(x_old, x_new, f_old, f_new, h, Dense, dop853, K, F)
    return A_extra.shape[0] if dop853 else 0


@_jit
def _dense_from_stages(x_old, x_new, f_old, f_new, h, Dense, dop853, K, F):
    """F from the step's stages K (rows: stages, columns: state entries; DOP853: extra stages included)."""
    n = x_old.size
    first = 3 if dop853 else 0
    if dop853:
        for k in range(n):
            dy = x_new[k] - x_old[k]
            F[0, k] = dy
            F[1, k] = h * f_old[k] - dy
            F[2, k] = 2.0 * dy - h * (f_new[k] + f_old[k])
    for r in range(Dense.shape[0]):
        for k in range(n):
            acc = 0.0
            for j in range(Dense.shape[1]):
                acc += Dense[r, j] * K[j, k]
            F[first + r, k] = h * acc if dop853 else acc


@_jit
def _interpolate(x_old, h, F, theta, dop853, out):
    """The dense output at t_old + theta h (scipy's Dop853DenseOutput / RkDenseOutput)."""
    n = x_old.size
    if dop853:
        for k in range(n):
            y = 0.0
            for i in range(F.shape[0]):
                y += F[F.shape[0] - 1 - i, k]
                y *= theta if i % 2 == 0 else 1.0 - theta
            out[k] = x_old[k] + y
    else:
        for k in range(n):
            acc = 0.0
            p = 1.0
            for r in range(F.shape[0]):
                p *= theta
                acc += F[r, k] * p
            out[k] = x_old[k] + h * acc


@_jit
def _advance(x, f, t, t_bound, h_abs, times, i_out, i_stop, out, max_step, rtol, atol, A, B, C, E3, E5, order, dop853,
             A_extra, C_extra, Dense, tau, nq, ints, geom, inertia, root, ew, K, F):
    """Advance (x, f = dx/dt) from t towards t_bound in place, writing out[i] for the output times
    times[i_out:] on the way (dense output), until t_bound or until out[i_stop - 1] is written (the
    step that passed it completed: the step sequence does not depend on i_stop).
    Returns (t, h_abs, i_out, n_evaluations, ok)."""
    n = x.size
    s = B.size
    exponent = -1.0 / (order + 1)
    nfev = 0
    x_new = np.empty(n)
    xs = np.empty(n)
    while t < t_bound and i_out < i_stop:
        min_step = 10.0 * (np.nextafter(t, np.inf) - t)
        h_abs = min(max(h_abs, min_step), max_step)
        rejected = False
        while True:
            if h_abs < min_step:
                return t, h_abs, i_out, nfev, False
            h = h_abs
            clamped = t + h >= t_bound
            if clamped:
                h = t_bound - t
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
                h_abs = h * factor
                break
            h_abs = h * max(_MIN_FACTOR, _SAFETY * error ** exponent)
            rejected = True
        t_new = t_bound if clamped else t + h
        have_dense = False
        while i_out < times.size and times[i_out] <= t_new:
            if times[i_out] == t_new:
                for k in range(n):
                    out[i_out, k] = x_new[k]
            else:
                if not have_dense:
                    nfev += _dense_coefficients(x, x_new, f, K[s], t, h, A_extra, C_extra, Dense, dop853,
                                                tau, nq, ints, geom, inertia, root, ew, K, F)
                    have_dense = True
                _interpolate(x, h, F, (times[i_out] - t) / h, dop853, out[i_out])
            i_out += 1
        t = t_new
        for k in range(n):
            x[k] = x_new[k]
            f[k] = K[s, k]
    return t, h_abs, i_out, nfev, True


def _buffers(method, n):
    """Stage buffer K and dense-output coefficients F for ``method`` and a state of n entries."""
    tab = TABLEAUS[method]
    K = np.zeros((tab[1].size + 1 + tab[7].shape[0], n))
    F = np.zeros((3 + tab[9].shape[0] if tab[6] else tab[9].shape[0], n))
    return K, F


@_jit
def _trajectory(m, X0, taus, times, max_step, rtol, atol, A, B, C, E3, E5, order, dop853, A_extra, C_extra, Dense,
                nq, ints, geom, inertia, root, ew, K, F, out, status):
    """Trajectory m of X0 through all output times into out[m]; status[m] = nfev, or -1 on failure."""
    x = X0[m].copy()
    f = np.empty(x.size)
    _state_derivative(x, taus[m], nq, ints, geom, inertia, root, ew, f)
    h_abs = _initial_step(x, f, times[-1] - times[0], max_step, order, rtol, atol, taus[m], nq,
                          ints, geom, inertia, root, ew)
    out[m, 0] = x
    _, _, _, nfev, ok = _advance(x, f, times[0], times[-1], h_abs, times, 1, times.size, out[m], max_step, rtol, atol,
                                 A, B, C, E3, E5, order, dop853, A_extra, C_extra, Dense, taus[m], nq,
                                 ints, geom, inertia, root, ew, K, F)
    status[m] = nfev + 2 if ok else -1


@_jit
def _many(X0, taus, times, max_step, rtol, atol, A, B, C, E3, E5, order, dop853, A_extra, C_extra, Dense,
          nq, ints, geom, inertia, root, ew, K, F, out, status):
    """All trajectories X0 (M, n) through all output times (T,) -> out (M, T, n), one after the other."""
    for m in range(X0.shape[0]):
        _trajectory(m, X0, taus, times, max_step, rtol, atol, A, B, C, E3, E5, order, dop853, A_extra, C_extra,
                    Dense, nq, ints, geom, inertia, root, ew, K, F, out, status)


def _many_threads(X0, taus, times, max_step, rtol, atol, A, B, C, E3, E5, order, dop853, A_extra, C_extra, Dense,
                  nq, ints, geom, inertia, root, ew, K, F, out, status):
    """As _many, the trajectories shared among numba's threads (independent: same results)."""
    for m in numba.prange(X0.shape[0]):
        _trajectory(m, X0, taus, times, max_step, rtol, atol, A, B, C, E3, E5, order, dop853, A_extra, C_extra,
                    Dense, nq, ints, geom, inertia, root, ew, K.copy(), F.copy(), out, status)


if HAVE_NUMBA:
    _many_threads = cached_njit(parallel=True, nogil=True)(_many_threads)


def integrate_many(compiled, X0, taus, times, method="DOP853", rtol=1e-10, atol=1e-10, max_step=np.inf,
                   threads=False):
    """Trajectories of many initial states (trusted inputs; see :func:`~satdyn.multibody.simulate_batch`).

    ``threads``: share the trajectories among numba's threads (``numba.set_num_threads``,
    ``NUMBA_NUM_THREADS``); each trajectory is computed exactly as without.

    ``times`` (T,) starts at the initial time. Returns ``(states (M, T, nq + nv), nfev (M,))``;
    ``nfev = -1`` marks a trajectory whose step size fell below the floating-point resolution
    (its states after that are NaN).
    """
    K, F = _buffers(method, X0.shape[1])
    out = np.full((X0.shape[0], times.size, X0.shape[1]), np.nan)
    status = np.zeros(X0.shape[0], dtype=np.int64)
    run = _many_threads if threads and X0.shape[0] > 1 else _many
    run(np.ascontiguousarray(X0, dtype=float), np.ascontiguousarray(taus, dtype=float), times, float(max_step),
          float(rtol), float(atol), *TABLEAUS[method], compiled.nq, *compiled._packed, K, F, out, status)
    return out, status


def start_run(compiled, x0, tau, times, method, rtol, atol, max_step):
    """State of a chunked run: ``[x, f, t, h_abs, i_out, out (T, n), K, F]`` at times[0] (scipy's initial step)."""
    order = TABLEAU_ORDER[method]
    x = np.array(x0, dtype=float)
    f = compiled.state_derivative(x, tau)
    h_abs = _initial_step(x, f, float(times[-1] - times[0]), float(max_step), order, float(rtol), float(atol), tau,
                          compiled.nq, *compiled._packed)
    out = np.full((times.size, x.size), np.nan)
    out[0] = x
    return [x, f, float(times[0]), h_abs, 1, out, *_buffers(method, x.size)]


def advance(compiled, run, tau, times, i_stop, method, rtol, atol, max_step):
    """Advance a chunked run (see :func:`start_run`, updated in place) until out[i_stop - 1] is
    written; returns (nfev, ok). The steps are those of one uninterrupted run."""
    x, f, t, h_abs, i_out, out, K, F = run
    t, h_abs, i_out, nfev, ok = _advance(x, f, t, float(times[-1]), h_abs, times, i_out, int(i_stop), out,
                                         float(max_step), float(rtol), float(atol), *TABLEAUS[method], tau,
                                         compiled.nq, *compiled._packed, K, F)
    run[2:5] = [t, h_abs, i_out]
    return nfev, ok
