"""The study behind ``satdyn model FILE``: what a user wants to see of their model file.

``model_study(path)`` builds the model and returns a :class:`ModelStudy`:

* summary -- mass, centre of mass and inertia (the rigid mass matrix seen at the first
  external port at zero frequency, all modes quasi-static), the appendages' modes with
  their effective masses, the assembled system's modes, the Delta channels per parameter;
* singular values of the main channel (the first external port: wrench -> acceleration,
  or acceleration -> wrench for a direct port) with uncertain samples and the worst case;
* when the file names a controller (``controller: {type: attitude_pid, port, kp, kd, ki}``):
  the closed loop from a torque disturbance to the attitude, its robust stability margin and
  worst-case gain (:mod:`satdyn.robust`), and the loop margins at the plant input.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..io.model import build_model, load_model

__all__ = ["ModelStudy", "model_study", "attitude_pid_controller", "attitude_closed_loop", "mass_summary"]


@dataclass(frozen=True)
class ModelStudy:
    """Result of :func:`model_study` (module docstring).

    Attributes
    ----------
    name, file : str; synthetic : bool
    port : str                          the main port ("<model>.<port>")
    mass : float [kg]; com : (3,) [m] from the port point; inertia : (3, 3) [kg m^2] at the CoM
        (port frame; NaN when the model has free joints and no static mass matrix)
    appendage_modes : dict body -> {"frequencies_hz", "damping", "effective_masses" (n, 6)}
    system_modes_hz, system_damping : (k,)   assembled system at nominal parameters
    delta_channels : dict name -> {"kind", "occurrences"}; n_states : int
    sigma : satdyn.robust.UncertainFrequencyResponse   main channel
    closed_loop : dict or None          robust stability / worst-case gain of the attitude loop
    margins : satdyn.robust.LoopMarginsResult or None
    pointing : satdyn.robust.UncertainFrequencyResponse or None   disturbance torque -> attitude
    """

    name: str
    file: str
    synthetic: bool
    port: str
    mass: float
    com: np.ndarray
    inertia: np.ndarray
    appendage_modes: dict
    system_modes_hz: np.ndarray
    system_damping: np.ndarray
    delta_channels: dict
    n_states: int
    sigma: object = field(repr=False)
    closed_loop: dict | None = None
    margins: object = field(default=None, repr=False)
    pointing: object = field(default=None, repr=False)

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def mass_summary(lfr, port) -> tuple:
    """(mass, com, inertia) from the zero-frequency mass matrix at ``port`` (NaN if singular)."""
    from ..spatial import mass_properties

    sub = lfr[port.output_group, port.input_group]
    try:
        G0 = sub.nominal().dcgain() if sub.nstates else np.asarray(sub.nominal(), float)
        # inverse port: acc = D^-1 W; direct port: the wrench on the parent is -D acc
        D = -np.asarray(G0, float) if port.kind == "direct" else np.linalg.inv(np.asarray(G0, float))
        if not np.all(np.isfinite(D)):
            raise np.linalg.LinAlgError
        m, com, J = mass_properties(0.5 * (D + D.T))
        return float(m), np.asarray(com), np.asarray(J)
    except (np.linalg.LinAlgError, ValueError):
        return float("nan"), np.full(3, np.nan), np.full((3, 3), np.nan)


def attitude_pid_controller(kp, kd, ki=None):
    """PID attitude controller from angular acceleration (3) to torque (3), ``u = -K(s) acc``.

    ``torque = -(kp theta + kd omega + ki int theta)`` with omega, theta the integrals of the
    measured angular acceleration; returns a control.StateSpace with K(s) = (kd s^2 + kp s + ki)/s^3
    per axis (states omega, theta and, with ``ki``, int theta).
    """
    import control

    kp, kd = np.asarray(kp, float), np.asarray(kd, float)
    ki = np.zeros(3) if ki is None else np.asarray(ki, float)
    if kp.shape != (3,) or kd.shape != (3,) or ki.shape != (3,):
        raise ValueError("`kp`, `kd`, `ki` must have 3 entries (one per axis)")
    I, Z = np.eye(3), np.zeros((3, 3))
    A = np.block([[Z, Z, Z], [I, Z, Z], [Z, I, Z]])
    B = np.vstack([I, Z, Z])
    C = np.hstack([np.diag(kd), np.diag(kp), np.diag(ki)])
    if not np.any(ki):
        A, B, C = A[:6, :6], B[:6], C[:, :6]
    return control.ss(A, B, C, np.zeros((3, 3)))


def attitude_closed_loop(plant, port, kp, kd, ki=None):
    """Closed attitude loop at ``port`` (an inverse port: torque in, angular acceleration out).

    Returns an LFR with inputs ``d[0..2]`` (disturbance torque [N m]) and outputs
    ``theta[0..2]`` (attitude [rad], small angles); forces at the port stay zero.
    """
    from ..lfr import as_lfr, interconnect

    K = attitude_pid_controller(kp, kd, ki)
    pre = f"{port.model}:{port.name}" if "." not in port.prefix else port.prefix
    acc = [f"{pre}:acc[{i}]" for i in range(3, 6)]
    torque = [f"{pre}:W[{i}]" for i in range(3, 6)]
    d = [f"d[{i}]" for i in range(3)]
    u = [f"u[{i}]" for i in range(3)]
    th = [f"theta[{i}]" for i in range(3)]
    nk = K.nstates
    # controller states [omega, theta, (int theta)]: theta is states 3..5
    Cth = np.zeros((3, nk))
    Cth[:, 3:6] = np.eye(3)
    ctrl = as_lfr(__import__("control").ss(K.A, K.B, np.vstack([-K.C, Cth]), np.zeros((6, 3)))).rename(
        inputs=acc, outputs=u + th)
    summ = as_lfr(np.hstack([np.eye(3), np.eye(3)])).rename(inputs=d + u, outputs=torque)
    return interconnect([plant, ctrl, summ], None, inputs=d, outputs=th, check_unused=False)


def _main_port(built):
    ports = list(built.system.ports.values())
    if not ports:
        raise ValueError(f"model {built.spec.name!r} has no external port: list one under `external`")
    return ports[0]


def model_study(path, *, n_samples: int = 20, seed: int = 0, grid: int = 3, at=None, progress=None) -> ModelStudy:
    """Build a model file and analyse it (module docstring).

    Parameters
    ----------
    path : model file (.yaml / .json)
    n_samples : int       uncertain samples in the singular-value and margin studies
    seed : int
    grid : int            points per varying parameter in the closed-loop robust analyses
                          (1: the value of ``at`` or the nominal only)
    at : dict, optional   values of varying parameters (physical units) for the singular
                          values, margins and pointing response (default: nominal)
    progress : callable(message), optional
    """
    from ..robust import loop_margins, robust_stability, uncertain_frequency_response, worst_case_gain

    if not isinstance(n_samples, (int, np.integer)) or n_samples < 0:
        raise ValueError(f"`n_samples` must be an integer >= 0; got {n_samples!r}")
    if not isinstance(grid, (int, np.integer)) or grid < 1:
        raise ValueError(f"`grid` must be a positive integer; got {grid!r}")
    say = progress or (lambda message: None)
    built = build_model(load_model(path))
    lfr, doc = built.lfr, built.spec.document
    say(f"model built: {lfr.nstates} states, {lfr.ndelta} Delta channels")
    port = _main_port(built)
    mass, com, J = mass_summary(lfr, port)
    modes = {}
    for name, table in built.modal.items():
        modes[name] = {"frequencies_hz": table.frequencies_hz, "damping": table.damping,
                       "effective_masses": table.effective_masses, "body_mass": float(table.D_P[0, 0])}
    nominal = lfr.nominal()
    ev = np.linalg.eigvals(nominal.A) if lfr.nstates else np.zeros(0)
    ev = ev[ev.imag > 1e-9]
    order = np.argsort(np.abs(ev))
    ev = ev[order]
    sys_hz = np.abs(ev) / (2 * np.pi)
    sys_zeta = -ev.real / np.maximum(np.abs(ev), 1e-300)
    counts = {}
    for b in lfr.blocks:
        c = counts.setdefault(b.name, {"kind": b.parameter.kind, "occurrences": 0})
        c["occurrences"] += b.size
    positive = sys_hz[sys_hz > 0]
    lo, hi = (positive.min() / 20, positive.max() * 5) if positive.size else (1e-2, 1e2)
    w = 2 * np.pi * np.geomspace(lo, hi, 160)
    at = dict(at or {})
    sigma = uncertain_frequency_response(lfr, w, inputs=port.input_group, outputs=port.output_group,
                                         n_samples=int(n_samples), seed=seed, at=at,
                                         input_unit="N, N m" if port.kind == "inverse" else "m/s^2, rad/s^2",
                                         output_unit="m/s^2, rad/s^2" if port.kind == "inverse" else "N, N m")
    say(f"singular values: nominal and {n_samples} uncertain samples, worst case per frequency")
    closed, margins, pointing = None, None, None
    ctrl = doc.get("controller")
    if ctrl is not None:
        if port.kind != "inverse":
            raise ValueError(f"controller.port {ctrl['port']!r} must be an inverse port (torque in, acceleration out)")
        loop = attitude_closed_loop(lfr, port, ctrl["kp"], ctrl["kd"], ctrl.get("ki"))
        varying = {b.name: b.parameter for b in loop.blocks if b.parameter.kind == "varying"}
        gridspec = {k: [at.get(k, p.nominal)] for k, p in varying.items()} if grid == 1 else grid
        rs = robust_stability(loop, grid=gridspec, seed=seed)
        wc = worst_case_gain(loop, grid=gridspec, seed=seed)
        closed = {"robust_stability": rs, "worst_case_gain": wc,
                  "channel": "disturbance torque [N m] -> attitude [rad], closed loop"}
        say("closed loop: robust stability and worst-case gain")
        K = attitude_pid_controller(ctrl["kp"], ctrl["kd"], ctrl.get("ki"))
        pre = port.prefix
        plant_rot = lfr[[f"{pre}:acc[{i}]" for i in range(3, 6)], [f"{pre}:W[{i}]" for i in range(3, 6)]]
        margins = loop_margins(plant_rot, K, n_samples=min(int(n_samples), 10), seed=seed, at=at)
        wl = 2 * np.pi * np.geomspace(lo / 10, hi, 160)
        pointing = uncertain_frequency_response(loop, wl, n_samples=int(n_samples), seed=seed, worst_case=False, at=at,
                                                input_unit="N m", output_unit="rad")
        say("loop margins at the plant input")
    return ModelStudy(doc["name"], built.spec.file, bool(doc.get("synthetic", False)), port.key, mass, com, J,
                      modes, sys_hz, sys_zeta, counts, lfr.nstates, sigma, closed, margins, pointing)
