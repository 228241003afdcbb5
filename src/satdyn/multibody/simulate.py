"""Time simulation of a multibody tree on scipy's ``solve_ivp``.

``simulate(model, t_span, x0, efforts=None, *, t_eval=None, method="DOP853", rtol=1e-10,
atol=1e-10, max_step=inf, progress=None, compiled=True, derived=True)``:

* ``model`` -- :class:`~satdyn.multibody.model.Model`;
* ``t_span`` -- ``(t0, tf)`` [s];
* ``x0`` -- ``(q0, v0)`` with q0 (model.nq,), v0 (model.nv,), or one array (nq + nv,);
* ``efforts`` -- actuator efforts: None (zero), a constant (model.nv,), or a callable
  ``efforts(t, q, v) -> (model.nv,)`` (joint springs and dampers are in the model already);
* ``t_eval`` -- output times (default: 201 points over ``t_span``);
* ``method``, ``rtol``, ``atol``, ``max_step`` -- passed to ``solve_ivp``; use ``"Radau"`` or
  ``"BDF"`` for stiff penalty loop closures (arXiv:2505.03248 §3.5);
* ``progress`` -- optional ``progress(t, tf)`` callback, called as the integration advances
  (at most about 100 times);
* ``compiled`` -- use the compiled kernels where they apply (default True; False: the numpy
  paths, e.g. to compare);
* ``derived`` -- provide the derived outputs (accelerations, body poses, interface wrenches,
  energy, momenta, centre of mass) at the output times (default True): they are computed after
  the integration, from the stored trajectory, on first access of any of them (a run whose
  caller reads only ``q`` and ``v`` does not pay for them); False leaves them empty (T rows).

Paths, fastest first: when numba is installed and the model is in the scope of
:mod:`~satdyn.multibody.compiled` (revolute / prismatic / weld joints, fixed or quaternion root,
constant loads: every URDF model), constant efforts and ``method`` RK45 or DOP853, the whole
integration runs compiled (:mod:`~satdyn.multibody.integrate`: scipy's Runge-Kutta pairs and
step control, dense output at the output times). With callable efforts or another method,
``solve_ivp`` calls the compiled right-hand side. Otherwise the numpy single-state sweep of
:mod:`~satdyn.multibody.lean_rhs` or the general batched path.

A run that cannot finish keeps what it computed: the result holds the samples reached, with
``success = False`` and the reason in ``message`` (solver failure, or an Euler-angle root
reaching gimbal lock, where the run stops just before the singularity).

The state is ``x = [q, v]``; ``dq/dt`` follows each joint's kinematics (quaternions with a
norm-restoring term; the dynamics use normalised quaternions) and ``dv/dt`` is
:func:`~satdyn.multibody.forward_dynamics` (evaluated by the single-state sweep of
:mod:`~satdyn.multibody.lean_rhs` when the model allows it, else by the batched one). Returns a
:class:`SimulationResult` with named outputs: body poses, joint coordinates, interface wrenches,
energy and momenta.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
from scipy.integrate import solve_ivp

from .._validation import as_batch_of, as_float_array
from ..spatial import euler_from_dcm
from .compiled_model import compile_model
from .energy import center_of_mass, mechanical_energy, momentum
from .forward_dynamics import _aba
from .integrate import TABLEAUS, advance, integrate_many, start_run
from .inverse_dynamics import interface_wrenches
from .joints import configuration_derivative
from .kinematics import forward_kinematics
from .lean_rhs import lean_state_derivative
from .model import Model

__all__ = ["simulate", "SimulationResult", "state_derivative"]

_GIMBAL_MARGIN = 1e-3  # |cos(pitch)| at which an Euler-root simulation stops


_DERIVED = ("a", "body_positions", "body_dcms", "root_euler", "joint_wrenches", "child_on_parent", "energy",
            "linear_momentum", "angular_momentum", "center_of_mass")


def _derived_property(name):
    return property(lambda self: self._derived()[name], doc=f"``{name}`` (computed on first access; see class doc)")


@dataclass
class SimulationResult:
    """Trajectory of a multibody simulation (T output times).

    Attributes
    ----------
    t : ndarray, shape (T,)
    q : ndarray, shape (T, nq)   (quaternions normalised)
    v : ndarray, shape (T, nv)
    q_names, v_names, body_names : list of str
    success : bool; message : str; nfev : int

    Derived outputs, computed from (t, q, v) at the output times on first access of any of them
    (not during the integration; with ``derived=False`` they are empty arrays with T rows):

    a : ndarray, shape (T, nv)     accelerations ``dv/dt``
    body_positions : ndarray, shape (T, n_bodies, 3)   origins, inertial frame [m]
    body_dcms : ndarray, shape (T, n_bodies, 3, 3)     ``P_{a/i}``
    root_euler : ndarray, shape (T, 3)   root attitude, Euler 3-2-1 (phi, theta, psi) [rad], principal values
    joint_wrenches : ndarray, shape (T, n_bodies, 6)   by the parent on each body, body origin, body frame
    child_on_parent : ndarray, shape (T, n_bodies, 6)  arXiv:2505.03248's ``[W_{A/B,P0}]_b``
    energy : ndarray, shape (T,)   mechanical energy [J] (see :func:`mechanical_energy`)
    linear_momentum, angular_momentum : ndarray, shape (T, 3)   inertial frame, about the origin
    center_of_mass : ndarray, shape (T, 3)
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    q_names: list = field(default_factory=list)
    v_names: list = field(default_factory=list)
    body_names: list = field(default_factory=list)
    success: bool = True
    message: str = ""
    nfev: int = 0
    compute_derived: object = field(default=None, repr=False, compare=False)  # () -> dict of the derived outputs
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def _derived(self) -> dict:
        if not self._cache:
            self._cache.update(self.compute_derived())
        return self._cache

    a = _derived_property("a")
    body_positions = _derived_property("body_positions")
    body_dcms = _derived_property("body_dcms")
    root_euler = _derived_property("root_euler")
    joint_wrenches = _derived_property("joint_wrenches")
    child_on_parent = _derived_property("child_on_parent")
    energy = _derived_property("energy")
    linear_momentum = _derived_property("linear_momentum")
    angular_momentum = _derived_property("angular_momentum")
    center_of_mass = _derived_property("center_of_mass")

    def coordinate(self, name: str) -> np.ndarray:
        """Trajectory (T,) of the joint coordinate named ``name`` (see ``q_names``)."""
        if name not in self.q_names:
            raise ValueError(f"no coordinate {name!r}; coordinates: {self.q_names}")
        return self.q[:, self.q_names.index(name)]

    def rate(self, name: str) -> np.ndarray:
        """Trajectory (T,) of the rate named ``name`` (see ``v_names``)."""
        if name not in self.v_names:
            raise ValueError(f"no rate {name!r}; rates: {self.v_names}")
        return self.v[:, self.v_names.index(name)]

    def body_position(self, name: str) -> np.ndarray:
        """Inertial position (T, 3) of the origin of body ``name``."""
        if name not in self.body_names:
            raise ValueError(f"no body {name!r}; bodies: {self.body_names}")
        return self.body_positions[:, self.body_names.index(name)]

    def to_dict(self) -> dict:
        out = {"t": self.t, "energy": self.energy, "linear_momentum": self.linear_momentum,
               "angular_momentum": self.angular_momentum, "center_of_mass": self.center_of_mass,
               "root_euler": self.root_euler, "success": self.success, "message": self.message,
               "nfev": self.nfev}
        out["coordinates"] = {n: self.q[:, k] for k, n in enumerate(self.q_names)}
        out["rates"] = {n: self.v[:, k] for k, n in enumerate(self.v_names)}
        out["body_positions"] = {n: self.body_positions[:, k] for k, n in enumerate(self.body_names)}
        out["interface_wrenches"] = {n: self.child_on_parent[:, k] for k, n in enumerate(self.body_names) if k}
        return out


def _effort_function(model, efforts):
    if efforts is None:
        zero = np.zeros(model.nv)
        return lambda t, q, v: zero
    if callable(efforts):
        def checked(t, q, v):
            e = np.asarray(efforts(t, q, v), dtype=float)
            if e.shape != (model.nv,):
                raise ValueError(f"`efforts(t, q, v)` must return shape ({model.nv},); got {e.shape}")
            return e
        return checked
    const = as_batch_of(efforts, (model.nv,), "efforts")
    if const.shape != (model.nv,):
        raise ValueError(f"`efforts` must have shape ({model.nv},) or be callable; got {const.shape}")
    return lambda t, q, v: const


def _configuration_rate(model, q, v, root_rotation=None):
    out = np.empty_like(q)
    for i, joint in enumerate(model.joints):
        if joint.nq:
            out[:, model.q_slice(i)] = configuration_derivative(joint, q[:, model.q_slice(i)], v[:, model.v_slice(i)],
                                                                root_rotation if i == 0 else None)
    return out


def state_derivative(model, t, x, efforts=None):
    """``dx/dt`` (nq + nv,) of the state ``x = [q, v]`` at time ``t`` (the ODE right-hand side)."""
    fn = _effort_function(model, efforts)
    return _rhs(model, fn, t, np.asarray(x, dtype=float))


def _normalised(model, q):
    q = q.copy()
    for i, joint in enumerate(model.joints):
        sl = model.q_slice(i)
        if joint.kind == "spherical":
            q[:, sl] /= np.linalg.norm(q[:, sl], axis=-1, keepdims=True)
        elif joint.kind == "floating":
            quat = q[:, sl.start + 3:sl.stop]
            q[:, sl.start + 3:sl.stop] = quat / np.linalg.norm(quat, axis=-1, keepdims=True)
    return q


def _rhs(model, effort_fn, t, x):
    q = x[None, :model.nq]
    v = x[None, model.nq:]
    qn = _normalised(model, q)
    tau = effort_fn(t, qn[0], v[0])[None]
    kin = forward_kinematics(model, qn, v, t)
    a = _aba(model, qn, v, tau, None, t, kin)
    return np.concatenate([_configuration_rate(model, q, v, kin.R_world[0])[0], a[0]])


_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")  # solve_ivp's method names


def simulate(model, t_span, x0, efforts=None, *, t_eval=None, method="DOP853", rtol=1e-10, atol=1e-10,
             max_step=np.inf, progress=None, compiled=True, derived=True) -> SimulationResult:
    """Integrate the tree's motion (see module doc)."""
    if not isinstance(model, Model):
        raise TypeError(f"`model` must be a satdyn.multibody.Model; got {type(model).__name__}")
    t0, tf = (float(x) for x in as_float_array(t_span, "t_span").reshape(-1)[:2])
    if not tf > t0:
        raise ValueError(f"`t_span` must be (t0, tf) with tf > t0; got {t_span}")
    if isinstance(x0, (tuple, list)) and len(x0) == 2:
        q0 = as_batch_of(x0[0], (model.nq,), "x0[0] (q0)").reshape(model.nq)
        v0 = as_batch_of(x0[1], (model.nv,), "x0[1] (v0)").reshape(model.nv)
        x_init = np.concatenate([q0, v0])
    else:
        x_init = as_batch_of(x0, (model.nq + model.nv,), "x0").reshape(-1)
    for value, label in ((rtol, "rtol"), (atol, "atol")):
        tol = as_float_array(value, label)
        if np.any(tol <= 0.0):
            raise ValueError(f"`{label}` must be positive; got {value!r}")
    if not (isinstance(method, type) or method in _METHODS):
        raise ValueError(f"`method` must be one of {list(_METHODS)} or an OdeSolver class; got {method!r}")
    t_eval = np.linspace(t0, tf, 201) if t_eval is None else as_float_array(t_eval, "t_eval").reshape(-1)
    if t_eval.size == 0 or t_eval.min() < t0 or t_eval.max() > tf:
        raise ValueError(f"`t_eval` must hold times within t_span = ({t0}, {tf}); got {t_eval.size} times")
    effort_fn = _effort_function(model, efforts)
    last = [t0]

    kernels = compile_model(model) if compiled else None
    if kernels is not None and not callable(efforts) and method in TABLEAUS:
        # Whole integration compiled (scipy's Runge-Kutta pair and step control, see .integrate).
        sol = _compiled_run(kernels, x_init, effort_fn(t0, None, None), t0, tf, t_eval, method, rtol, atol,
                            max_step, progress)
        return _outputs(model, sol, effort_fn, derived)
    # Single-state right-hand side: compiled kernels, else the lean numpy sweep, else the general path.
    lean = kernels.state_derivative if kernels is not None else lean_state_derivative(model)
    nq = model.nq
    quat = slice(3, 7) if model.root.kind == "floating" else None

    def rhs(t, x):
        if progress is not None and (t - last[0] >= 0.01 * (tf - t0) or t >= tf):
            last[0] = t
            progress(t, tf)
        if lean is None:
            return _rhs(model, effort_fn, t, x)
        q = x[:nq]
        if quat is not None:   # efforts see the normalised quaternion, as in _rhs
            q = q.copy()
            q[quat] /= np.sqrt(q[quat] @ q[quat])
        return lean(x, effort_fn(t, q, x[nq:]))

    events = None
    if model.root.kind == "floating_euler":
        # Stop cleanly (keeping the trajectory so far) before the Euler 3-2-1 singularity at pitch +-90 deg.
        # cos(pitch) -/+ margin change sign when |cos(pitch)| falls below the margin (no abs(): a step
        # may jump over the whole narrow window around the singularity).
        def lock_from_above(t, x):
            return np.cos(x[4]) - _GIMBAL_MARGIN

        def lock_from_below(t, x):
            return np.cos(x[4]) + _GIMBAL_MARGIN
        lock_from_above.terminal = lock_from_below.terminal = True
        events = [lock_from_above, lock_from_below]
    sol = solve_ivp(rhs, (t0, tf), x_init, method=method, t_eval=t_eval, rtol=rtol, atol=atol, max_step=max_step,
                    events=events)
    if progress is not None:
        progress(sol.t[-1] if sol.t.size else t0, tf)
    if sol.status == 1:
        t_stop = min(te[0] for te in sol.t_events if len(te))
        sol.message = (f"stopped at t = {t_stop:.6g} s: the Euler-angle root is near gimbal lock "
                       "(pitch +-90 deg); use floating_root (quaternion) for this motion")
        sol.success = False
    return _outputs(model, sol, effort_fn, derived)


def _compiled_run(kernels, x_init, tau, t0, tf, t_eval, method, rtol, atol, max_step, progress):
    """solve_ivp-like result of the compiled integrator (dense output at the output times)."""
    times = np.unique(np.concatenate([[t0], t_eval]))
    if progress is None:   # one compiled call for the whole run
        states, nfev = integrate_many(kernels, x_init[None], tau[None], times, method, rtol, atol, max_step)
        states, nfev, ok = states[0], int(nfev[0]), nfev[0] >= 0
    else:   # the same steps, reported at about 100 output times on the way
        run = start_run(kernels, x_init, tau, times, method, rtol, atol, max_step)
        nfev, ok = 2, True
        for i_stop in np.unique(np.linspace(1, times.size, min(times.size - 1, 100)).astype(int)):
            n, ok = advance(kernels, run, tau, times, i_stop, method, rtol, atol, max_step)
            nfev += n
            if not ok:
                break
            progress(times[i_stop - 1], tf)
        states = run[5]
    reached = times.size if ok else int(np.isfinite(states[:, 0]).sum())
    keep = np.isin(times[:reached], t_eval)
    message = "The solver successfully reached the end of the integration interval." if ok else \
        f"Required step size is less than spacing between numbers (at t = {times[reached - 1]:.6g} s)."
    return SimpleNamespace(t=times[:reached][keep], y=states[:reached][keep].T, success=ok, message=message,
                           nfev=abs(nfev))


def _outputs(model, sol, effort_fn, derived=True) -> SimulationResult:
    x = sol.y.T
    q = _normalised(model, x[:, :model.nq])
    v = x[:, model.nq:]
    t = sol.t
    if derived:
        def compute():
            return _derived_outputs(model, t, q, v, effort_fn)
    else:
        T = x.shape[0]

        def compute():
            return dict(a=np.zeros((T, 0)), body_positions=np.zeros((T, 0, 3)), body_dcms=np.zeros((T, 0, 3, 3)),
                        root_euler=np.zeros((T, 0)), joint_wrenches=np.zeros((T, 0, 6)),
                        child_on_parent=np.zeros((T, 0, 6)), energy=np.full(T, np.nan),
                        linear_momentum=np.zeros((T, 0)), angular_momentum=np.zeros((T, 0)),
                        center_of_mass=np.zeros((T, 0)))
    return SimulationResult(t=t, q=q, v=v, q_names=model.q_names, v_names=model.v_names,
                            body_names=[b.name for b in model.bodies], success=bool(sol.success),
                            message=str(sol.message), nfev=int(sol.nfev), compute_derived=compute)


def _derived_outputs(model, t, q, v, effort_fn) -> dict:
    """The derived outputs (see :class:`SimulationResult`) at the output times."""
    tau = np.array([effort_fn(tk, qk, vk) for tk, qk, vk in zip(t, q, v)]).reshape(len(t), model.nv)
    time_dependent = any(not ew.is_constant for ew in model.external_wrenches) or model.root.kind == "prescribed"
    if time_dependent:
        # Loads depend on t: evaluate sample by sample.
        a = np.concatenate([_aba(model, q[k:k + 1], v[k:k + 1], tau[k:k + 1], None, tk) for k, tk in enumerate(t)])
        iw = [interface_wrenches(model, q[k], v[k], a[k], t=tk) for k, tk in enumerate(t)]
        jw = np.stack([w.joint_wrenches for w in iw]) if iw else np.zeros((0, model.n_bodies, 6))
        cw = np.stack([w.child_on_parent for w in iw]) if iw else np.zeros((0, model.n_bodies, 6))
        energy = np.array([mechanical_energy(model, q[k], v[k], tk) for k, tk in enumerate(t)])
    else:
        a = _aba(model, q, v, tau, None, 0.0) if len(t) else np.zeros((0, model.nv))
        w = interface_wrenches(model, q, v, a)
        jw, cw = w.joint_wrenches, w.child_on_parent
        energy = mechanical_energy(model, q, v)
    kin = forward_kinematics(model, q, np.zeros_like(v))
    positions = np.stack(kin.r_world, 1)
    dcms = np.stack([np.broadcast_to(R, (len(t), 3, 3)) for R in kin.R_world], 1)
    lin, ang = momentum(model, q, v)
    return dict(a=a, body_positions=positions, body_dcms=dcms,
                root_euler=euler_from_dcm(dcms[:, 0]) if len(t) else np.zeros((0, 3)),
                joint_wrenches=jw, child_on_parent=cw, energy=energy, linear_momentum=lin, angular_momentum=ang,
                center_of_mass=center_of_mass(model, q))
