"""Simulation of many initial conditions of one tree at once.

``simulate_batch(model, t_span, x0, efforts=None, *, t_eval=None, method="DOP853", rtol=1e-10,
atol=1e-10, max_step=inf, compiled=True, threads=False) -> BatchSimulationResult``:

* ``x0`` (M, nq + nv) -- M initial states ``[q, v]``;
* ``efforts`` -- None (zero), one constant (nv,) for all, or (M, nv): one per trajectory;
* ``t_eval`` (T,) -- output times (default 201 over ``t_span``); ``method`` "RK45" or "DOP853";
* ``threads`` -- on the compiled path, share the trajectories among numba's threads
  (``numba.set_num_threads`` / ``NUMBA_NUM_THREADS``; with lanes, chunks of at least 32; each
  trajectory is computed exactly as with ``threads=False``, the default);
* ``lanes`` -- on the compiled path: True runs the trajectories LANES (32) at a time in lock
  step (:mod:`~satdyn.multibody.integrate_lanes`: SIMD over the states), False one after the
  other with the single-state kernel; None (default) picks the lanes from M >= 8 on (below,
  most lanes would idle). Same trajectories either way (bit for bit).

Each trajectory has its own step-size control, as M separate ``solve_ivp`` calls with the same
method and tolerances (no shared error norm that would let one trajectory's error hide behind
the others). With numba and a model in the scope of :mod:`~satdyn.multibody.compiled`, all M
trajectories run in one compiled call (:func:`~satdyn.multibody.integrate_lanes.integrate_lanes`
or :func:`~satdyn.multibody.integrate.integrate_many`); otherwise each is integrated by
``solve_ivp`` over the numpy right-hand side.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from .._validation import as_batch_of, as_float_array
from .compiled_model import compile_model
from .integrate import TABLEAUS, integrate_many
from .integrate_lanes import LANES, integrate_lanes
from .model import Model

__all__ = ["BatchSimulationResult", "simulate_batch"]

# A lane-kernel call costs about a quarter of LANES single-state calls (measured: 3.8-5.5x per
# state): from M = LANES / 4 trajectories on the lanes are not slower even when most idle.
_LANES_FROM = LANES // 4


@dataclass(frozen=True)
class BatchSimulationResult:
    """Trajectories of M initial conditions.

    Attributes
    ----------
    t : ndarray, shape (T,)   output times [s]
    q : ndarray, shape (M, T, nq)   configurations (NaN after a failed trajectory stopped)
    v : ndarray, shape (M, T, nv)   velocities
    success : ndarray of bool, shape (M,)
    nfev : ndarray of int, shape (M,)   right-hand-side evaluations per trajectory
    q_names, v_names : list of str
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    success: np.ndarray
    nfev: np.ndarray
    q_names: list
    v_names: list


def simulate_batch(model, t_span, x0, efforts=None, *, t_eval=None, method="DOP853", rtol=1e-10, atol=1e-10,
                   max_step=np.inf, compiled=True, threads=False, lanes=None) -> BatchSimulationResult:
    """Integrate M initial conditions (see module doc)."""
    if not isinstance(model, Model):
        raise TypeError(f"`model` must be a satdyn.multibody.Model; got {type(model).__name__}")
    t0, tf = (float(x) for x in as_float_array(t_span, "t_span").reshape(-1)[:2])
    if not tf > t0:
        raise ValueError(f"`t_span` must be (t0, tf) with tf > t0; got {t_span}")
    nx = model.nq + model.nv
    X0 = as_batch_of(x0, (nx,), "x0")
    if X0.ndim != 2:
        raise ValueError(f"`x0` must have shape (M, {nx}); got {X0.shape}")
    M = X0.shape[0]
    taus = np.zeros((M, model.nv)) if efforts is None else as_batch_of(efforts, (model.nv,), "efforts")
    if taus.ndim > 2 or (taus.ndim == 2 and taus.shape[0] != M):
        raise ValueError(f"`efforts` must have shape ({model.nv},) or ({M}, {model.nv}); got {taus.shape}")
    taus = np.ascontiguousarray(np.broadcast_to(taus, (M, model.nv)))
    if not isinstance(threads, (bool, np.bool_)):
        raise TypeError(f"`threads` must be True or False; got {threads!r}")
    if lanes is not None and not isinstance(lanes, (bool, np.bool_)):
        raise TypeError(f"`lanes` must be None, True or False; got {lanes!r}")
    if method not in TABLEAUS:
        raise ValueError(f"`method` must be one of {sorted(TABLEAUS)}; got {method!r}")
    for value, label in ((rtol, "rtol"), (atol, "atol"), (max_step, "max_step")):
        if not float(value) > 0.0:
            raise ValueError(f"`{label}` must be positive; got {value!r}")
    times = np.linspace(t0, tf, 201) if t_eval is None else np.unique(as_float_array(t_eval, "t_eval").reshape(-1))
    if times.size == 0 or times[0] < t0 or times[-1] > tf:
        raise ValueError(f"`t_eval` must hold times within t_span = ({t0}, {tf})")
    if times[0] > t0:
        times = np.concatenate([[t0], times])
    kernels = compile_model(model) if compiled else None
    if kernels is not None:
        use_lanes = M >= _LANES_FROM if lanes is None else bool(lanes)
        run = integrate_lanes if use_lanes else integrate_many
        states, nfev = run(kernels, X0, taus, times, method, rtol, atol, max_step, threads=bool(threads))
    else:
        states, nfev = _solve_ivp_loop(model, X0, taus, times, method, rtol, atol, max_step)
    keep = np.isin(times, times if t_eval is None else t_eval)
    states = states[:, keep]
    return BatchSimulationResult(t=times[keep], q=states[..., :model.nq], v=states[..., model.nq:],
                                 success=nfev >= 0, nfev=nfev, q_names=model.q_names, v_names=model.v_names)


def _solve_ivp_loop(model, X0, taus, times, method, rtol, atol, max_step):
    from .simulate import state_derivative  # the general numpy right-hand side

    states = np.full((X0.shape[0], times.size, X0.shape[1]), np.nan)
    nfev = np.zeros(X0.shape[0], dtype=np.int64)
    for m, (x0, tau) in enumerate(zip(X0, taus)):
        sol = solve_ivp(lambda t, x, tau=tau: state_derivative(model, t, x, tau), (times[0], times[-1]), x0,
                        method=method, t_eval=times, rtol=rtol, atol=atol, max_step=max_step)
        states[m, :sol.y.shape[1]] = sol.y.T
        nfev[m] = sol.nfev if sol.success else -1
    return states, nfev
