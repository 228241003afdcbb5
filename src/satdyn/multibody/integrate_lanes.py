"""Lock-step Runge-Kutta integration of many trajectories, LANES at a time (numba, SIMD over states).

:func:`~satdyn.multibody.integrate.integrate_many` integrates trajectories one after the other
with the single-state kernel. Here LANES (:data:`~satdyn.multibody.compiled_lanes.LANES`)
trajectories advance together: every stage of the Runge-Kutta pair is one call of the
batch-last kernel :func:`~satdyn.multibody.compiled_lanes.lanes_state_derivative` and the
stage combinations, error norms and updates run over the lanes in vector loops. Each lane
keeps its own time, step size, error norm, acceptance or rejection, and writes its own output
times by dense output: the rules and the arithmetic are those of
:mod:`~satdyn.multibody.integrate` (scipy's step control, same Butcher tables, same operation
order; the lane kernel equals the single-state kernel bit for bit), so every lane takes the
steps its single run takes and the trajectories equal ``integrate_many``'s -- and follow
``solve_ivp`` to rounding.

One lock-step iteration is one step attempt of every busy lane. A lane whose trajectory ends
(or fails: step size below the floating-point resolution) is refilled with the next pending
initial condition (a work queue), so a batch of M >> LANES keeps the lanes busy; idle lanes
(queue empty) repeat harmless arithmetic on their last state, and once at most LANES / 4 lanes
are busy they finish one after the other in the single-state integrator (``integrate._advance``,
from their step boundary: the same steps). DOP853's dense output needs three more stages on a
step that holds an output time: such steps are queued (their stages copied to a slot) and the
extra stages of LANES of them evaluated in one lane call each; they count for the lanes that
used them, as in the single run. RK45's interpolant needs no extra stage.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .compiled import _jit, _state_derivative, numba
from .compiled_lanes import _L, LANES, _lanes_jit, lane_workspace, lanes_state_derivative
from .integrate import (
    _MAX_FACTOR, _MIN_FACTOR, _SAFETY, TABLEAUS, _advance, _dense_from_stages, _initial_step, _interpolate,
)

__all__ = ["integrate_lanes"]

# When the queue is empty and at most this many lanes are still busy, they finish one after the
# other with the single-state kernel (a lane call costs about LANES / 4 single-state calls).
_TAIL = LANES // 4


@_lanes_jit
def _combine(x, h, K, coefficients, n_terms, out):
    """out = x + h (sum_j coefficients[j] K[j]) lane by lane (the stage sums of integrate._advance,
    same order): x, out (n, LANES), h (LANES,), K (stages, n, LANES)."""
    n = x.shape[0]
    for k in range(n):
        for l in range(_L):
            out[k, l] = 0.0
    for j in range(n_terms):
        a = coefficients[j]
        for k in range(n):
            for l in range(_L):
                out[k, l] += a * K[j, k, l]
    for k in range(n):
        for l in range(_L):
            out[k, l] = x[k, l] + h[l] * out[k, l]


@_lanes_jit
def _error_norms(x, x_new, K, E3, E5, rtol, atol, dop853, h, e3, e5, a3, a5, scale, error):
    """The error norm of integrate._advance, lane by lane, into error (LANES,)."""
    n = x.shape[0]
    for l in range(_L):
        e3[l] = 0.0
        e5[l] = 0.0
    for k in range(n):
        for l in range(_L):
            scale[l] = atol + max(abs(x[k, l]), abs(x_new[k, l])) * rtol
            a3[l] = 0.0
            a5[l] = 0.0
        for j in range(E5.size):
            c5, c3 = E5[j], E3[j]
            for l in range(_L):
                a5[l] += c5 * K[j, k, l]
                a3[l] += c3 * K[j, k, l]
        for l in range(_L):
            e5[l] += (a5[l] / scale[l]) ** 2
            e3[l] += (a3[l] / scale[l]) ** 2
    for l in range(_L):
        if dop853:   # scipy's DOP853 norm: combines the 5th- and 3rd-order estimates
            denominator = e5[l] + 0.01 * e3[l]
            error[l] = 0.0 if denominator == 0.0 else abs(h[l]) * e5[l] / np.sqrt(denominator * n)
        else:
            error[l] = abs(h[l]) * np.sqrt(e5[l] / n)


@_lanes_jit
def _accept(x, f, x_new, f_new, accepted):
    """x, f <- x_new, f_new in the lanes whose step was accepted."""
    for k in range(x.shape[0]):
        for l in range(_L):
            if accepted[l]:
                x[k, l] = x_new[k, l]
                f[k, l] = f_new[k, l]


@_jit
def _load(lane, m, X0, taus, times, max_step, order, rtol, atol, nq, ints, geom, inertia, root, ew,
          x, f, TAU, t, h_abs, i_out, nfev, fresh, lane_m, out):
    """Start trajectory m in a lane: its state, f = dx/dt and scipy's initial step (single-state
    kernel: the same arithmetic as the lane kernel)."""
    n = X0.shape[1]
    x0 = X0[m].copy()
    f0 = np.empty(n)
    _state_derivative(x0, taus[m], nq, ints, geom, inertia, root, ew, f0)
    h_abs[lane] = _initial_step(x0, f0, times[-1] - times[0], max_step, order, rtol, atol, taus[m], nq,
                                ints, geom, inertia, root, ew)
    for k in range(n):
        x[k, lane] = x0[k]
        f[k, lane] = f0[k]
        out[m, 0, k] = x0[k]
    for k in range(taus.shape[1]):
        TAU[k, lane] = taus[m, k]
    t[lane] = times[0]
    i_out[lane] = 1
    nfev[lane] = 2
    fresh[lane] = True
    lane_m[lane] = m


@_jit
def _release(lane, result, next_m, X0, taus, times, max_step, order, rtol, atol, nq, ints, geom, inertia, root, ew,
             x, f, TAU, t, h_abs, i_out, nfev, fresh, lane_m, out, status):
    """Record the result of a lane's trajectory (nfev, or -1 on failure) and refill the lane from
    the queue; returns (next_m, change of the number of busy lanes: 0 or -1)."""
    status[lane_m[lane]] = result
    lane_m[lane] = -1
    if next_m < X0.shape[0]:
        _load(lane, next_m, X0, taus, times, max_step, order, rtol, atol, nq, ints, geom, inertia, root, ew,
              x, f, TAU, t, h_abs, i_out, nfev, fresh, lane_m, out)
        return next_m + 1, 0
    return next_m, -1


@_lanes_jit
def _dense_coefficients_lanes(x_old, x_new, h, K, Dense, s1, F):
    """DOP853's dense-output coefficients of LANES steps (integrate._dense_from_stages, lane by
    lane): F (3 + 4, n, LANES) from K (16, n, LANES) with f_old = K[0], f_new = K[s1 - 1]."""
    n = x_old.shape[0]
    for k in range(n):
        for l in range(_L):
            dy = x_new[k, l] - x_old[k, l]
            F[0, k, l] = dy
            F[1, k, l] = h[l] * K[0, k, l] - dy
            F[2, k, l] = 2.0 * dy - h[l] * (K[s1 - 1, k, l] + K[0, k, l])
    for r in range(Dense.shape[0]):
        for k in range(n):
            for l in range(_L):
                F[3 + r, k, l] = 0.0
        for j in range(Dense.shape[1]):
            d = Dense[r, j]
            for k in range(n):
                for l in range(_L):
                    F[3 + r, k, l] += d * K[j, k, l]
        for k in range(n):
            for l in range(_L):
                F[3 + r, k, l] = h[l] * F[3 + r, k, l]


@_lanes_jit
def _interpolate_lanes(F, theta, y):
    """y = DOP853 interpolant minus x_old at theta (LANES,) (integrate._interpolate, lane by lane)."""
    rows, n = F.shape[0], F.shape[1]
    for k in range(n):
        for l in range(_L):
            y[k, l] = 0.0
    for i in range(rows):
        r = rows - 1 - i
        for k in range(n):
            for l in range(_L):
                y[k, l] += F[r, k, l]
                y[k, l] *= theta[l] if i % 2 == 0 else 1.0 - theta[l]


@_jit
def _flush_dense(pending, Kp, xp_old, xp_new, hp, TAUp, pm, pt, pt_new, pj, times, A_extra, Dense,
                 nq, ints, geom, inertia, root, ew, ws, xs, Fp, y, theta, active, out):
    """Dense output of the pending DOP853 steps: their three extra stages in one lane call each,
    then the interpolants of all slots (integrate._dense_from_stages and integrate._interpolate, lane
    by lane in the same operation order) at their output times strictly inside their steps."""
    used = pending[0]
    for slot in range(used, LANES):   # empty slots: a copy of slot 0, zero step (finite arithmetic)
        xp_old[:, slot] = xp_old[:, 0]
        TAUp[:, slot] = TAUp[:, 0]
        hp[slot] = 0.0
        Kp[:, :, slot] = Kp[:, :, 0]
    s1 = Kp.shape[0] - A_extra.shape[0]
    for e in range(A_extra.shape[0]):
        _combine(xp_old, hp, Kp, A_extra[e], s1 + e, xs)
        lanes_state_derivative(xs, TAUp, nq, ints, geom, inertia, root, ew, Kp[s1 + e], ws)
    _dense_coefficients_lanes(xp_old, xp_new, hp, Kp, Dense, s1, Fp)
    cursor = pj.copy()
    while True:   # round r: the r-th interior output time of every slot that has one
        some = False
        for slot in range(LANES):
            active[slot] = False
            theta[slot] = 0.0
            if slot < used:
                while cursor[slot] < times.size and times[cursor[slot]] == pt_new[slot]:
                    cursor[slot] += 1   # the step's end: written when the step was accepted
                if cursor[slot] < times.size and times[cursor[slot]] < pt_new[slot]:
                    theta[slot] = (times[cursor[slot]] - pt[slot]) / hp[slot]
                    active[slot] = True
                    some = True
        if not some:
            break
        _interpolate_lanes(Fp, theta, y)
        for slot in range(used):
            if active[slot]:
                row = out[pm[slot], cursor[slot]]
                for k in range(row.size):
                    row[k] = xp_old[k, slot] + y[k, slot]
                cursor[slot] += 1
    pending[0] = 0


@_jit
def _lanes(X0, taus, times, max_step, rtol, atol, A, B, C, E3, E5, order, dop853, A_extra, C_extra, Dense,
           nq, ints, geom, inertia, root, ew, ws, out, status):
    """All trajectories X0 (M, n) through the output times (T,) -> out (M, T, n), status (M,)
    (nfev, or -1 on failure), LANES at a time in lock step (see module doc)."""
    M, n = X0.shape
    nv = taus.shape[1]
    s = B.size
    n_extra = A_extra.shape[0]
    t_bound = times[-1]
    exponent = -1.0 / (order + 1)
    x = np.zeros((n, LANES))
    f = np.zeros((n, LANES))
    x_new = np.zeros((n, LANES))
    xs = np.zeros((n, LANES))
    TAU = np.zeros((nv, LANES))
    K = np.zeros((s + 1 + n_extra, n, LANES))
    t = np.zeros(LANES)
    h = np.zeros(LANES)
    h_abs = np.zeros(LANES)
    min_step = np.zeros(LANES)
    error = np.zeros(LANES)
    e3, e5, a3, a5, scale = np.zeros(LANES), np.zeros(LANES), np.zeros(LANES), np.zeros(LANES), np.zeros(LANES)
    i_out = np.zeros(LANES, dtype=np.int64)
    nfev = np.zeros(LANES, dtype=np.int64)
    lane_m = np.full(LANES, -1, dtype=np.int64)
    fresh = np.zeros(LANES, dtype=np.bool_)
    rejected = np.zeros(LANES, dtype=np.bool_)
    clamped = np.zeros(LANES, dtype=np.bool_)
    accepted = np.zeros(LANES, dtype=np.bool_)
    dense = np.zeros(LANES, dtype=np.bool_)
    F = np.zeros((3 + Dense.shape[0] if dop853 else Dense.shape[0], n))
    x_old = np.empty(n)
    K_single = np.zeros((s + 1 + n_extra, n))
    # DOP853 steps waiting for their dense output (slots): stages, states, step, trajectory, times
    pending = np.zeros(1, dtype=np.int64)
    Kp = np.zeros((s + 1 + n_extra, n, LANES))
    xp_old = np.zeros((n, LANES))
    xp_new = np.zeros((n, LANES))
    TAUp = np.zeros((nv, LANES))
    hp = np.zeros(LANES)
    pm = np.zeros(LANES, dtype=np.int64)
    pt = np.zeros(LANES)
    pt_new = np.zeros(LANES)
    pj = np.zeros(LANES, dtype=np.int64)
    Fp = np.zeros((3 + Dense.shape[0], n, LANES))
    y = np.zeros((n, LANES))
    theta_p = np.zeros(LANES)
    active_p = np.zeros(LANES, dtype=np.bool_)
    next_m = 0
    for lane in range(LANES):
        if next_m < M:
            _load(lane, next_m, X0, taus, times, max_step, order, rtol, atol, nq, ints, geom, inertia, root, ew,
                  x, f, TAU, t, h_abs, i_out, nfev, fresh, lane_m, out)
            next_m += 1
    busy = min(M, LANES)
    for lane in range(busy, LANES):   # idle from the start: a copy of lane 0 (finite arithmetic)
        x[:, lane] = x[:, 0]
        f[:, lane] = f[:, 0]
        TAU[:, lane] = TAU[:, 0]
    while busy > 0:
        # Step size of this attempt, lane by lane (integrate._advance's outer and inner loops).
        for lane in range(LANES):
            h[lane] = 0.0
            while lane_m[lane] >= 0:
                if fresh[lane]:
                    min_step[lane] = 10.0 * (np.nextafter(t[lane], np.inf) - t[lane])
                    h_abs[lane] = min(max(h_abs[lane], min_step[lane]), max_step)
                    rejected[lane] = False
                    fresh[lane] = False
                if h_abs[lane] >= min_step[lane]:
                    h[lane] = h_abs[lane]
                    clamped[lane] = t[lane] + h[lane] >= t_bound
                    if clamped[lane]:
                        h[lane] = t_bound - t[lane]
                    break
                # step size below the resolution: this trajectory fails
                next_m, change = _release(lane, -1, next_m, X0, taus, times, max_step, order, rtol, atol, nq, ints,
                                          geom, inertia, root, ew, x, f, TAU, t, h_abs, i_out, nfev, fresh, lane_m,
                                          out, status)
                busy += change
        if busy == 0:
            break
        # One Runge-Kutta attempt of every lane (idle lanes: h = 0, harmless).
        K[0, :, :] = f
        for i in range(1, s):
            _combine(x, h, K, A[i], i, xs)
            lanes_state_derivative(xs, TAU, nq, ints, geom, inertia, root, ew, K[i], ws)
        _combine(x, h, K, B, s, x_new)
        lanes_state_derivative(x_new, TAU, nq, ints, geom, inertia, root, ew, K[s], ws)
        _error_norms(x, x_new, K, E3, E5, rtol, atol, dop853, h, e3, e5, a3, a5, scale, error)
        for lane in range(LANES):
            accepted[lane] = False
            dense[lane] = False
            if lane_m[lane] < 0:
                continue
            nfev[lane] += s
            err = error[lane]
            if err < 1.0:
                factor = _MAX_FACTOR if err == 0.0 else min(_MAX_FACTOR, _SAFETY * err ** exponent)
                if rejected[lane]:
                    factor = min(1.0, factor)
                h_abs[lane] = h[lane] * factor
                accepted[lane] = True
                t_new = t_bound if clamped[lane] else t[lane] + h[lane]
                j = i_out[lane]
                while j < times.size and times[j] <= t_new:
                    if times[j] != t_new:
                        dense[lane] = True
                    j += 1
            else:
                h_abs[lane] = h[lane] * max(_MIN_FACTOR, _SAFETY * err ** exponent)
                rejected[lane] = True
        for lane in range(LANES):
            if not accepted[lane]:
                continue
            m = lane_m[lane]
            t_new = t_bound if clamped[lane] else t[lane] + h[lane]
            if dense[lane]:
                nfev[lane] += n_extra
                if dop853:   # deferred: the extra stages of LANES such steps in one lane call
                    if pending[0] == LANES:
                        _flush_dense(pending, Kp, xp_old, xp_new, hp, TAUp, pm, pt, pt_new, pj, times, A_extra, Dense,
                                     nq, ints, geom, inertia, root, ew, ws, xs, Fp, y, theta_p, active_p, out)
                    slot = pending[0]
                    pending[0] += 1
                    Kp[:s + 1, :, slot] = K[:s + 1, :, lane]
                    xp_old[:, slot] = x[:, lane]
                    xp_new[:, slot] = x_new[:, lane]
                    TAUp[:, slot] = TAU[:, lane]
                    hp[slot] = h[lane]
                    pm[slot] = m
                    pt[slot] = t[lane]
                    pt_new[slot] = t_new
                    pj[slot] = i_out[lane]
                else:   # RK45: the interpolant is free
                    for k in range(n):
                        x_old[k] = x[k, lane]
                    _dense_from_stages(x_old, x_new[:, lane], f[:, lane], K[s, :, lane], h[lane], Dense, dop853,
                                       K[:, :, lane], F)
            while i_out[lane] < times.size and times[i_out[lane]] <= t_new:
                j = i_out[lane]
                if times[j] == t_new:
                    for k in range(n):
                        out[m, j, k] = x_new[k, lane]
                elif not dop853:
                    _interpolate(x_old, h[lane], F, (times[j] - t[lane]) / h[lane], dop853, out[m, j])
                i_out[lane] += 1
            t[lane] = t_new
            fresh[lane] = True
        _accept(x, f, x_new, K[s], accepted)
        for lane in range(LANES):   # finished trajectories: record, refill from the queue
            m = lane_m[lane]
            if m >= 0 and accepted[lane] and not (t[lane] < t_bound and i_out[lane] < times.size):
                next_m, change = _release(lane, nfev[lane], next_m, X0, taus, times, max_step, order, rtol, atol, nq,
                                          ints, geom, inertia, root, ew, x, f, TAU, t, h_abs, i_out, nfev, fresh,
                                          lane_m, out, status)
                busy += change
        if next_m >= M and 0 < busy <= _TAIL:
            # The tail: the few busy lanes would run with mostly idle lanes; each finishes in the
            # single-state integrator from its step boundary (the same steps and arithmetic).
            for lane in range(LANES):
                m = lane_m[lane]
                if m < 0 or not fresh[lane]:
                    continue
                x_lane = x[:, lane].copy()
                f_lane = f[:, lane].copy()
                _, _, _, n_more, ok = _advance(x_lane, f_lane, t[lane], t_bound, h_abs[lane], times, i_out[lane],
                                               times.size, out[m], max_step, rtol, atol, A, B, C, E3, E5, order,
                                               dop853, A_extra, C_extra, Dense, TAU[:, lane].copy(), nq, ints, geom,
                                               inertia, root, ew, K_single, F)
                status[m] = nfev[lane] + n_more if ok else -1
                lane_m[lane] = -1
                busy -= 1
    if pending[0] > 0:
        _flush_dense(pending, Kp, xp_old, xp_new, hp, TAUp, pm, pt, pt_new, pj, times, A_extra, Dense,
                     nq, ints, geom, inertia, root, ew, ws, xs, Fp, y, theta_p, active_p, out)


def integrate_lanes(compiled, X0, taus, times, method="DOP853", rtol=1e-10, atol=1e-10, max_step=np.inf,
                    threads=False):
    """Trajectories of many initial states in lock-step lanes (trusted inputs; the interface and
    results of :func:`~satdyn.multibody.integrate.integrate_many`).

    ``threads``: split the trajectories into one contiguous chunk per numba thread
    (``numba.get_num_threads()``; at least LANES trajectories per chunk), each chunk integrated
    in its own lanes by a Python thread (the compiled loop releases the GIL); each trajectory is
    computed exactly as without.

    Returns ``(states (M, T, nq + nv), nfev (M,))``; ``nfev = -1`` marks a failed trajectory
    (its states after the failure are NaN).
    """
    X0 = np.ascontiguousarray(X0, dtype=float)
    taus = np.ascontiguousarray(taus, dtype=float)
    out = np.full((X0.shape[0], times.size, X0.shape[1]), np.nan)
    status = np.zeros(X0.shape[0], dtype=np.int64)
    nb = compiled._packed[0].shape[0]
    args = (times, float(max_step), float(rtol), float(atol), *TABLEAUS[method], compiled.nq, *compiled._packed)
    # one chunk per thread, but no chunk smaller than LANES (a chunk fills its own lanes)
    chunks = max(1, min(numba.get_num_threads(), X0.shape[0] // LANES)) if threads else 1
    bounds = [(c * X0.shape[0]) // chunks for c in range(chunks + 1)]

    def run(c):   # _lanes releases the GIL (nogil): the chunks run in parallel threads
        lo, hi = bounds[c], bounds[c + 1]
        _lanes(X0[lo:hi], taus[lo:hi], *args, lane_workspace(nb), out[lo:hi], status[lo:hi])

    if chunks > 1:
        with ThreadPoolExecutor(chunks) as pool:
            list(pool.map(run, range(chunks)))   # list(): re-raise a chunk's exception here
    else:
        run(0)
    return out, status
