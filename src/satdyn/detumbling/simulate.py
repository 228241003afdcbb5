"""Closed-loop simulation of the client and two tugs (scipy ``solve_ivp``; arXiv:2407.17617).

State vector ``x`` (length ``26 + 2 n``, n = 29 parameters, 10 for controller R)::

    [p(3), q1(4), q2(4), v(3), omega1(3), omega2(3), pi_hat1(n), pi_hat2(n), d_hat1(3), d_hat2(3)]

``q1``, ``q2`` are scalar-last link attitude quaternions (link -> world), renormalised
whenever they are read. The tugs' estimates are integrated with the plant. The run stops
early when ``|theta*|`` comes within ``hinge_angle_margin`` of pi (the log-map spring wraps
there), which is how the documented failure of controller A on the Table-I hinge ends.

:func:`simulate` returns a :class:`DetumblingRun` with every signal of the paper's
Figs. 5-11 on a regular grid: tug wrenches, link rates, velocity of H, ``V(t)`` with its
analytic rate, parameter and grasp estimates, tug (grasp-point) twists, hinge angle and
position error.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from ..spatial import dcm_from_quaternion, quaternion_derivative, so3_log
from .client import ClientParams
from .controllers import DesiredPose, TugController, initial_estimates, make_tugs, measure, true_estimates, tug_command
from .dynamics import damping_matrix, forward_dynamics, generalized_force, grasp_twists, mass_matrix
from .kernel import make_fused_rhs, supports_fused
from .projection import ParameterSet
from .scenario import InitialState, Scenario, SimulationOptions
from .tugs import TugModel, with_tug_masses

__all__ = ["ClosedLoop", "DetumblingRun", "closed_loop", "initial_state_vector", "unpack_state",
           "closed_loop_outputs", "closed_loop_rhs", "simulate", "simulate_free_motion"]


@dataclass(frozen=True)
class ClosedLoop:
    """Plant, desired pose and the two tug controllers of one run (immutable); ``thrusters``, when
    given, are the two tugs' :class:`~satdyn.detumbling.tugs.TugModel` whose thrust limits
    saturate the demanded wrenches (their masses are already part of ``client``)."""

    client: ClientParams
    desired: DesiredPose
    tugs: tuple[TugController, TugController]
    thrusters: tuple | None = None

    @property
    def n_parameters(self) -> int:
        return self.tugs[0].n_parameters

    @property
    def kind(self) -> str:
        return self.tugs[0].kind

    @property
    def n_states(self) -> int:
        return 26 + 2 * self.n_parameters


def closed_loop(scenario: Scenario, kind: str | None = None, bounds: ParameterSet | None = None,
                tug_models: tuple[TugModel, TugModel] | None = None) -> ClosedLoop:
    """The closed loop of ``scenario`` with its controller, or with controller ``kind``; with
    ``bounds`` the tugs project their updates onto that parameter set; with ``tug_models`` the
    tugs' masses join the links and their thrusters saturate."""
    client = scenario.client if tug_models is None else with_tug_masses(scenario.client, tug_models)
    tugs = make_tugs(scenario.controller if kind is None else kind, scenario.gains, client, bounds)
    thrusters = None if tug_models is None or not any(t.saturates for t in tug_models) else tuple(tug_models)
    return ClosedLoop(client, scenario.desired, tugs, thrusters)


def initial_state_vector(system: ClosedLoop, scenario: Scenario) -> np.ndarray:
    """``x(0)`` from the scenario's initial state and initial estimates."""
    ini = scenario.initial
    est = [initial_estimates(t, system.client, scenario.estimate_fraction, scenario.grasp_estimates[t.index])
           for t in system.tugs]
    return np.concatenate([ini.position, ini.attitude1, ini.attitude2, ini.nu,
                           est[0][0], est[1][0], est[0][1], est[1][1]])


@dataclass(frozen=True)
class _State:
    p: np.ndarray
    q1: np.ndarray
    q2: np.ndarray
    R1: np.ndarray
    R2: np.ndarray
    nu: np.ndarray
    pi_hats: tuple
    d_hats: tuple


def unpack_state(system: ClosedLoop, x: np.ndarray) -> _State:
    """Split ``x`` into ``p, q1, q2, R1, R2, nu, pi_hats (2 x n), d_hats (2 x 3)`` (quaternions normalised)."""
    n = system.n_parameters
    q1 = x[3:7] / np.linalg.norm(x[3:7])
    q2 = x[7:11] / np.linalg.norm(x[7:11])
    return _State(x[:3], q1, q2, dcm_from_quaternion(q1), dcm_from_quaternion(q2), x[11:20],
                  (x[20:20 + n], x[20 + n:20 + 2 * n]), (x[20 + 2 * n:23 + 2 * n], x[23 + 2 * n:26 + 2 * n]))


def closed_loop_outputs(system: ClosedLoop, st: _State):
    """Tug wrenches and estimate derivatives at one state.

    Each tug gets the shared measurement and only its own estimates.

    Returns
    -------
    W : ndarray, shape (2, 6)
    pi_dots : tuple of 2 ndarrays (n,)
    d_dots : tuple of 2 ndarrays (3,)
    meas : Measurement
    """
    meas = measure(system.tugs[0], system.desired, st.p, st.R1, st.R2, st.nu)
    out = [tug_command(tug, meas, st.pi_hats[tug.index], st.d_hats[tug.index]) for tug in system.tugs]
    W = np.stack([out[0][0], out[1][0]])
    if system.thrusters is not None:  # what the thrusters can deliver of the demanded wrenches
        W = np.stack([t.deliver(w, R) for t, w, R in zip(system.thrusters, W, (st.R1, st.R2))])
    return W, (out[0][1], out[1][1]), (out[0][2], out[1][2]), meas


def closed_loop_rhs(system: ClosedLoop, t: float, x: np.ndarray) -> np.ndarray:
    """Time derivative of the closed-loop state ``x`` (see the module docstring for the layout)."""
    st = unpack_state(system, x)
    W, pi_dots, d_dots, _ = closed_loop_outputs(system, st)
    Q = generalized_force(system.client, st.R1, st.R2, W[0], W[1])
    nu_dot = forward_dynamics(system.client, st.R1, st.R2, st.nu, Q)
    return np.concatenate([
        st.nu[:3],
        quaternion_derivative(st.q1, st.nu[3:6], frame="inertial"),
        quaternion_derivative(st.q2, st.nu[6:9], frame="inertial"),
        nu_dot, pi_dots[0], pi_dots[1], d_dots[0], d_dots[1]])


@dataclass
class DetumblingRun:
    """Signals of one closed-loop run on the grid ``t`` (N samples).

    Attributes
    ----------
    kind : str
        Controller kind.
    scenario : str
    t : ndarray (N,) [s]
    position : ndarray (N, 3)
        Hinge point H [m].
    R1, R2 : ndarray (N, 3, 3)
        Link attitudes.
    nu : ndarray (N, 9)
        ``[v, omega1, omega2]`` [m/s, rad/s].
    hinge_angle : ndarray (N, 3)
        ``theta*`` [rad].
    wrenches : ndarray (N, 2, 6)
        Tug wrenches ``[f; tau]`` at the grasp points, world frame [N, N m].
    tug_twists : ndarray (N, 2, 6)
        Grasp-point twists ``[v + omega_i x R_i d_i; omega_i]``.
    V, V_rate : ndarray (N,)
        Lyapunov function [J] and its analytic rate ``-s^T (K + D) s`` [W] (meaningful for B/known).
    s : ndarray (N, 9)
        Composite error ``nu - nu_r``.
    pi_hat : ndarray (N, 2, n)
    d_hat : ndarray (N, 2, 3)
    pi_true : ndarray (n,)
    d_true : ndarray (2, 3)
    status : str
        ``"completed"`` or ``"hinge_angle_limit"`` (stopped: ``|theta*|`` near pi).
    n_rhs : int
        Right-hand-side evaluations.
    wall_time : float [s]
    position_error : ndarray (N, 3)
        ``p - p_d`` [m].
    """

    kind: str
    scenario: str
    t: np.ndarray
    position: np.ndarray
    R1: np.ndarray
    R2: np.ndarray
    nu: np.ndarray
    hinge_angle: np.ndarray
    wrenches: np.ndarray
    tug_twists: np.ndarray
    V: np.ndarray
    V_rate: np.ndarray
    s: np.ndarray
    pi_hat: np.ndarray
    d_hat: np.ndarray
    pi_true: np.ndarray
    d_true: np.ndarray
    status: str
    n_rhs: int
    wall_time: float
    position_error: np.ndarray


def _progress_rhs(system, duration, progress, counter, kernel):
    marks = {"next": 0.0}
    if kernel == "fused" and supports_fused(system):
        inner = make_fused_rhs(system)
    else:
        def inner(t, x):
            return closed_loop_rhs(system, t, x)

    def rhs(t, x):
        counter[0] += 1
        if progress is not None and t >= marks["next"]:
            progress(min(t, duration), duration)
            marks["next"] = t + 0.1 * duration
        return inner(t, x)

    return rhs


def simulate(scenario: Scenario, kind: str | None = None, *, duration: float | None = None,
             progress=None, options: SimulationOptions | None = None, kernel: str = "fused",
             bounds: ParameterSet | None = None, tug_models: tuple[TugModel, TugModel] | None = None) -> DetumblingRun:
    """Closed-loop detumbling run.

    Parameters
    ----------
    scenario : Scenario
    kind : {"B", "known", "A", "R", "velocity"}, optional
        Controller (default the scenario's).
    duration : float, optional
        Horizon [s] (default ``scenario.simulation.duration``).
    progress : callable ``(t, T)``, optional
        Called about every 10 % of the horizon.
    options : SimulationOptions, optional
        Overrides ``scenario.simulation``.
    kernel : {"fused", "reference"}
        ``"fused"`` integrates with :func:`satdyn.detumbling.kernel.make_fused_rhs` where it
        applies (log-map spring; same equations, ~5x cheaper per evaluation); ``"reference"``
        always uses :func:`closed_loop_rhs`.
    bounds : ParameterSet, optional
        Parameter projection: both tugs keep their estimates in this convex set
        (:mod:`satdyn.detumbling.projection`).
    tug_models : pair of TugModel, optional
        The tugs' masses (lumped into the links at the grasp points; the true parameters and
        ``V`` then refer to link + tug) and thrust limits (the delivered wrenches, logged in
        ``wrenches``, saturate; :mod:`satdyn.detumbling.tugs`).

    Returns
    -------
    DetumblingRun
    """
    if kernel not in ("fused", "reference"):
        raise ValueError(f"`kernel` must be 'fused' or 'reference'; got {kernel!r}")
    opts = options if options is not None else scenario.simulation
    T = float(opts.duration if duration is None else duration)
    if not T > 0:
        raise ValueError(f"`duration` must be positive; got {T}")
    if bounds is not None and not isinstance(bounds, ParameterSet):
        raise TypeError(f"`bounds` must be a ParameterSet or None; got {type(bounds).__name__}")
    if tug_models is not None:
        if len(tug_models) != 2 or not all(isinstance(t, TugModel) for t in tug_models):
            raise TypeError("`tug_models` must be a pair of TugModel or None")
    system = closed_loop(scenario, kind, bounds, tug_models)
    x0 = initial_state_vector(system, scenario)
    counter = [0]
    rhs = _progress_rhs(system, T, progress, counter, kernel)
    limit = np.pi - opts.hinge_angle_margin

    def hinge_limit(t, x):
        q1, q2 = x[3:7], x[7:11]
        # |theta*| = 2 acos(|<q1, q2>|) for unit quaternions (q1^-1 q2 has scalar part <q1, q2>)
        c = abs(float(q1 @ q2)) / (np.linalg.norm(q1) * np.linalg.norm(q2))
        return limit - 2.0 * np.arccos(min(1.0, c))

    hinge_limit.terminal = True
    t_eval = np.arange(0.0, T + 0.5 * opts.sample_dt, opts.sample_dt)
    t_eval = t_eval[t_eval <= T]
    start = time.perf_counter()
    if opts.method == "RK4":
        t_out, X, stopped = _fixed_step_rk4(rhs, x0, T, opts.fixed_step, opts.sample_dt, hinge_limit)
    else:
        sol = solve_ivp(rhs, (0.0, T), x0, method=opts.method, rtol=opts.rtol, atol=opts.atol,
                        max_step=opts.max_step, t_eval=t_eval, events=hinge_limit)
        if sol.status == -1:
            raise RuntimeError(f"integration failed: {sol.message}")
        t_out, X, stopped = sol.t, sol.y.T, sol.status == 1
    wall = time.perf_counter() - start
    if progress is not None:
        progress(float(t_out[-1]), T)
    status = "hinge_angle_limit" if stopped else "completed"
    return _log(system, scenario, t_out, X, status, counter[0], wall)


def _fixed_step_rk4(rhs, x0, T, h, sample_dt, event):
    """Classical RK4 with step ``h``; states every ``sample_dt``; stops after the step where ``event < 0``."""
    n_steps = int(round(T / h))
    every = int(round(sample_dt / h))
    x = x0.copy()
    ts, xs = [0.0], [x0.copy()]
    for k in range(n_steps):
        t = k * h
        k1 = rhs(t, x)
        k2 = rhs(t + 0.5 * h, x + 0.5 * h * k1)
        k3 = rhs(t + 0.5 * h, x + 0.5 * h * k2)
        k4 = rhs(t + h, x + h * k3)
        x = x + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        if (k + 1) % every == 0 or k + 1 == n_steps:
            ts.append((k + 1) * h)
            xs.append(x.copy())
        if event(t + h, x) < 0:
            if ts[-1] != (k + 1) * h:
                ts.append((k + 1) * h)
                xs.append(x.copy())
            return np.array(ts), np.array(xs), True
    return np.array(ts), np.array(xs), False


def _log(system: ClosedLoop, scenario: Scenario, t: np.ndarray, X: np.ndarray, status: str, n_rhs: int,
         wall: float) -> DetumblingRun:
    """Signals on the solver's output grid (rotations batched; V as in controllers.lyapunov)."""
    N = t.size
    n = system.n_parameters
    c, d = system.client, system.desired
    tugs = system.tugs
    g = tugs[0].gains
    q1 = X[:, 3:7] / np.linalg.norm(X[:, 3:7], axis=1, keepdims=True)
    q2 = X[:, 7:11] / np.linalg.norm(X[:, 7:11], axis=1, keepdims=True)
    R1, R2 = dcm_from_quaternion(q1), dcm_from_quaternion(q2)
    nu = X[:, 11:20]
    pi_hat = np.stack([X[:, 20:20 + n], X[:, 20 + n:20 + 2 * n]], axis=1)
    d_hat = np.stack([X[:, 20 + 2 * n:23 + 2 * n], X[:, 23 + 2 * n:26 + 2 * n]], axis=1)
    truth = [true_estimates(tug, c) for tug in tugs]
    wrenches = np.empty((N, 2, 6))
    twists = np.empty((N, 2, 6))
    V, V_rate, s_all = np.empty(N), np.empty(N), np.empty((N, 9))
    for k in range(N):
        st = _State(X[k, :3], q1[k], q2[k], R1[k], R2[k], nu[k], tuple(pi_hat[k]), tuple(d_hat[k]))
        W, _, _, meas = closed_loop_outputs(system, st)
        wrenches[k] = W
        twists[k] = grasp_twists(c, R1[k], R2[k], nu[k])
        s = nu[k] - meas.nu_r
        s_all[k] = s
        V[k] = 0.5 * s @ mass_matrix(c, R1[k], R2[k]) @ s
        V_rate[k] = -(s @ (g.K * s) + s @ damping_matrix(c, R1[k]) @ s)
    if system.kind != "known":
        # estimate terms of V (controllers.lyapunov), vectorised over the samples
        for i, (pi_true, d_true) in enumerate(truth):
            V += 0.5 * (np.sum((pi_hat[:, i] - pi_true) ** 2, axis=1) / g.Gamma_pi
                        + np.sum((d_hat[:, i] - d_true) ** 2, axis=1) / g.Gamma_d)
    position = X[:, :3]
    return DetumblingRun(kind=system.kind, scenario=scenario.name, t=t, position=position, R1=R1, R2=R2, nu=nu,
                         hinge_angle=so3_log(np.swapaxes(R1, -1, -2) @ R2), wrenches=wrenches, tug_twists=twists,
                         V=V, V_rate=V_rate, s=s_all, pi_hat=pi_hat, d_hat=d_hat, pi_true=truth[0][0],
                         d_true=c.grasps, status=status, n_rhs=n_rhs, wall_time=wall,
                         position_error=position - d.position)


def simulate_free_motion(client: ClientParams, initial: InitialState, duration: float, *,
                         rtol: float = 1e-10, atol: float = 1e-12, t_eval=None, method: str = "DOP853"):
    """Uncontrolled motion of the client (``Q = 0``).

    Returns
    -------
    t : ndarray (N,)
    p : ndarray (N, 3)
    R1, R2 : ndarray (N, 3, 3)
    nu : ndarray (N, 9)
    """
    if not isinstance(client, ClientParams):
        raise TypeError(f"`client` must be a ClientParams; got {type(client).__name__}")
    if not isinstance(initial, InitialState):
        raise TypeError(f"`initial` must be an InitialState; got {type(initial).__name__}")
    if not (np.isfinite(duration) and duration > 0):
        raise ValueError(f"`duration` must be a positive finite time [s]; got {duration!r}")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"`{name}` must be a positive tolerance; got {value!r}")

    def rhs(t, x):
        q1, q2 = x[3:7] / np.linalg.norm(x[3:7]), x[7:11] / np.linalg.norm(x[7:11])
        R1, R2 = dcm_from_quaternion(q1), dcm_from_quaternion(q2)
        nu = x[11:20]
        return np.concatenate([nu[:3], quaternion_derivative(q1, nu[3:6], frame="inertial"),
                               quaternion_derivative(q2, nu[6:9], frame="inertial"),
                               forward_dynamics(client, R1, R2, nu)])

    x0 = np.concatenate([initial.position, initial.attitude1, initial.attitude2, initial.nu])
    sol = solve_ivp(rhs, (0.0, duration), x0, method=method, rtol=rtol, atol=atol, t_eval=t_eval)
    X = sol.y.T
    q1 = X[:, 3:7] / np.linalg.norm(X[:, 3:7], axis=1, keepdims=True)
    q2 = X[:, 7:11] / np.linalg.norm(X[:, 7:11], axis=1, keepdims=True)
    return sol.t, X[:, :3], dcm_from_quaternion(q1), dcm_from_quaternion(q2), X[:, 11:20]
