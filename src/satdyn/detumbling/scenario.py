"""Detumbling scenarios: client, initial state, desired pose, controller and solver settings.

A scenario file is JSON with the layout of the shipped paper scenario
``satdyn/data/detumbling/paper_table1.json`` (sections ``table_i``, ``resolutions``,
``initial_conditions``, ``desired``, ``controller``, ``simulation``). Missing optional
entries take the arXiv:2407.17617 defaults; a missing or malformed required entry raises a
one-line ``ValueError`` naming the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, replace
from importlib import resources
from pathlib import Path

import numpy as np

from ..spatial import dcm_from_quaternion
from .client import ClientParams, TableResolutions, client_from_table
from .controllers import CONTROLLER_KINDS, ControllerGains, DesiredPose

__all__ = ["InitialState", "SimulationOptions", "Scenario", "load_scenario", "paper_scenario", "scenario_from_dict",
           "PAPER_SCENARIO_FILE"]

PAPER_SCENARIO_FILE = "data/detumbling/paper_table1.json"


@dataclass(frozen=True)
class InitialState:
    """Initial configuration and velocity: ``position`` of H [m], link ``attitude1/2`` quaternions
    (scalar-last, link -> world), ``velocity`` of H [m/s], ``omega1/2`` world frame [rad/s]."""

    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    attitude1: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 0.0, 1.0]))
    attitude2: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 0.0, 1.0]))
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    omega1: np.ndarray = field(default_factory=lambda: np.zeros(3))
    omega2: np.ndarray = field(default_factory=lambda: np.zeros(3))

    def __post_init__(self):
        for f in fields(self):
            n = 4 if f.name.startswith("attitude") else 3
            value = np.asarray(getattr(self, f.name), dtype=float)
            if value.shape != (n,) or not np.all(np.isfinite(value)):
                raise ValueError(f"`{f.name}` must be {n} finite numbers; got {getattr(self, f.name)!r}")
            if n == 4:
                norm = np.linalg.norm(value)
                if norm < 1e-9:
                    raise ValueError(f"`{f.name}` must be a nonzero quaternion")
                value = value / norm
            object.__setattr__(self, f.name, value)

    @property
    def nu(self) -> np.ndarray:
        return np.concatenate([self.velocity, self.omega1, self.omega2])

    @property
    def R1(self) -> np.ndarray:
        return dcm_from_quaternion(self.attitude1)

    @property
    def R2(self) -> np.ndarray:
        return dcm_from_quaternion(self.attitude2)


@dataclass(frozen=True)
class SimulationOptions:
    """Integrator settings (arXiv:2407.17617): horizon ``duration`` [s]; ``method`` a ``solve_ivp`` method
    with ``rtol``, ``atol``, ``max_step`` [s], or ``"RK4"``: classical fixed-step Runge-Kutta with step
    ``fixed_step`` [s] (2 ms, a MuJoCo-like step; ``sample_dt`` must be a multiple of it); logging grid
    ``sample_dt`` [s]; the run stops when ``|theta*|`` comes within ``hinge_angle_margin`` [rad] of pi
    (the log-map spring wraps there)."""

    duration: float = 30.0
    method: str = "DOP853"
    rtol: float = 1e-8
    atol: float = 1e-10
    max_step: float = 0.05
    sample_dt: float = 0.01
    hinge_angle_margin: float = 0.05
    fixed_step: float = 0.002

    def __post_init__(self):
        for name in ("duration", "rtol", "atol", "max_step", "sample_dt", "hinge_angle_margin", "fixed_step"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and np.isfinite(value) and value > 0):
                raise ValueError(f"`simulation.{name}` must be a positive number; got {value!r}")
        if self.method not in ("RK45", "DOP853", "RK23", "Radau", "BDF", "LSODA", "RK4"):
            raise ValueError(f"`simulation.method` must be a solve_ivp method name or 'RK4'; got {self.method!r}")
        ratio = self.sample_dt / self.fixed_step
        if self.method == "RK4" and abs(ratio - round(ratio)) > 1e-9 * ratio:
            raise ValueError(f"`simulation.sample_dt` ({self.sample_dt}) must be a multiple of "
                             f"`simulation.fixed_step` ({self.fixed_step}) for RK4")


@dataclass(frozen=True)
class Scenario:
    """Everything one closed-loop detumbling run needs.

    Attributes
    ----------
    name : str
    client : ClientParams
    resolutions : TableResolutions
        How the client was built from Table I (recorded for the report).
    initial : InitialState
    desired : DesiredPose
    controller : str
        One of ``"B"``, ``"known"``, ``"A"``, ``"R"``, ``"velocity"``.
    gains : ControllerGains
    estimate_fraction : float
        ``pi_hat(0) = estimate_fraction * pi`` (0.5 by default; ignored by "known").
    grasp_estimates : ndarray, shape (2, 3)
        ``d_hat_i(0)`` [m] (default zeros: each tug believes it sits at H).
    simulation : SimulationOptions
    """

    name: str
    client: ClientParams
    resolutions: TableResolutions
    initial: InitialState
    desired: DesiredPose
    controller: str = "B"
    gains: ControllerGains = field(default_factory=ControllerGains)
    estimate_fraction: float = 0.5
    grasp_estimates: np.ndarray = field(default_factory=lambda: np.zeros((2, 3)))
    simulation: SimulationOptions = field(default_factory=SimulationOptions)

    def __post_init__(self):
        if self.controller not in CONTROLLER_KINDS:
            raise ValueError(f"`controller.kind` must be one of {CONTROLLER_KINDS}; got {self.controller!r}")
        d = np.asarray(self.grasp_estimates, dtype=float)
        if d.shape != (2, 3):
            raise ValueError(f"`grasp_estimates` must have shape (2, 3); got {d.shape}")
        object.__setattr__(self, "grasp_estimates", d)

    def with_hinge_scale(self, scale: float) -> "Scenario":
        """The scenario with hinge stiffness and damping multiplied by ``scale``."""
        return replace(self, client=self.client.with_hinge(self.client.hinge.scaled(scale)),
                       resolutions=replace(self.resolutions, hinge_scale=self.resolutions.hinge_scale * scale),
                       name=f"{self.name} (hinge x{scale:g})")


def _get(raw, key, where, default=None, required=False):
    if not isinstance(raw, dict):
        raise ValueError(f"scenario field `{where.rstrip('.')}` must be an object")
    if key not in raw:
        if required:
            raise ValueError(f"scenario field `{where}{key}` is missing")
        return default
    return raw[key]


def _array(raw, key, where, shape, default=None, required=False):
    value = _get(raw, key, where, default, required)
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"scenario field `{where}{key}` must be numbers of shape {shape}; got {value!r}") from None
    if array.shape != shape or not np.all(np.isfinite(array)):
        raise ValueError(f"scenario field `{where}{key}` must be finite numbers of shape {shape}; got {value!r}")
    return array


def _scalar(raw, key, where, default, kind=float):
    value = _get(raw, key, where, default)
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"scenario field `{where}{key}` must be true or false; got {value!r}")
        return value
    if kind is str:
        if not isinstance(value, str):
            raise ValueError(f"scenario field `{where}{key}` must be a string; got {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        raise ValueError(f"scenario field `{where}{key}` must be a number; got {value!r}")
    return float(value)


def _wrap(section: str, fn, *args, **kwargs):
    """Re-raise a dataclass validation error with the scenario section in front."""
    try:
        return fn(*args, **kwargs)
    except ValueError as exc:
        msg = str(exc)
        if msg.startswith("scenario field"):
            raise
        raise ValueError(f"scenario section `{section}`: {msg}") from None


_KNOWN_FIELDS = {
    "": {"name", "source", "synthetic", "table_i", "resolutions", "initial_conditions", "desired", "controller",
         "simulation", "_doc"},
    "resolutions": {f.name for f in fields(TableResolutions)},
    "initial_conditions": {"position", "attitude1_xyzw", "attitude2_xyzw", "velocity", "omega1", "omega2"},
    "desired": {"position", "attitude_xyzw"},
    "controller": {"kind", "gamma", "K_v", "K_omega1", "K_omega2", "K_composite", "Gamma_pi", "Gamma_d",
                   "workload_c", "initial_estimate_fraction", "initial_grasp_estimate1", "initial_grasp_estimate2"},
    "simulation": {f.name for f in fields(SimulationOptions)},
}


def _check_known(raw: dict) -> None:
    """Reject misspelt fields (a typo would otherwise silently fall back to a default)."""
    for section, known in _KNOWN_FIELDS.items():
        node = raw if section == "" else raw.get(section, {})
        if not isinstance(node, dict):
            raise ValueError(f"scenario field `{section}` must be an object")
        for key in node:
            if key not in known:
                where = f"{section}.{key}" if section else key
                raise ValueError(f"scenario field `{where}` is not known (expected one of {sorted(known)})")


def scenario_from_dict(raw: dict) -> Scenario:
    """Build a :class:`Scenario` from the parsed JSON of a scenario file."""
    if not isinstance(raw, dict):
        raise ValueError("scenario file must contain a JSON object")
    _check_known(raw)
    table = _get(raw, "table_i", "", required=True)
    r = _get(raw, "resolutions", "", {})
    d = TableResolutions()
    w = "resolutions."
    res = _wrap("resolutions", TableResolutions,
                d_s_y=_scalar(r, "d_s_y", w, d.d_s_y),
                link1_includes_panel1=_scalar(r, "link1_includes_panel1", w, d.link1_includes_panel1, bool),
                com_from_d=_scalar(r, "com_from_d", w, d.com_from_d, str),
                hinge_z_stiffness=_scalar(r, "hinge_z_stiffness", w, d.hinge_z_stiffness),
                hinge_z_damping=_scalar(r, "hinge_z_damping", w, d.hinge_z_damping),
                rotor_inertia_z=_scalar(r, "rotor_inertia_z", w, d.rotor_inertia_z),
                xi_is_ratio=_scalar(r, "xi_is_ratio", w, d.xi_is_ratio, bool),
                friction=tuple(_array(r, "friction", w, (3,), d.friction)),
                friction_eps=_scalar(r, "friction_eps", w, d.friction_eps),
                spring_model=_scalar(r, "spring_model", w, d.spring_model, str),
                hinge_scale=_scalar(r, "hinge_scale", w, d.hinge_scale))
    name = _scalar(raw, "name", "", "detumbling scenario", str)
    client = _wrap("table_i", client_from_table, table, res, name=name)

    ic = _get(raw, "initial_conditions", "", {})
    w = "initial_conditions."
    initial = _wrap("initial_conditions", InitialState,
                    position=_array(ic, "position", w, (3,), np.zeros(3)),
                    attitude1=_array(ic, "attitude1_xyzw", w, (4,), [0, 0, 0, 1]),
                    attitude2=_array(ic, "attitude2_xyzw", w, (4,), [0, 0, 0, 1]),
                    velocity=_array(ic, "velocity", w, (3,), required=True),
                    omega1=_array(ic, "omega1", w, (3,), required=True),
                    omega2=_array(ic, "omega2", w, (3,), required=True))
    de = _get(raw, "desired", "", {})
    q_d = _array(de, "attitude_xyzw", "desired.", (4,), [0, 0, 0, 1])
    if np.linalg.norm(q_d) < 1e-9:
        raise ValueError("scenario field `desired.attitude_xyzw` must be a nonzero quaternion")
    desired = DesiredPose(_array(de, "position", "desired.", (3,), np.zeros(3)), dcm_from_quaternion(q_d))

    c = _get(raw, "controller", "", {})
    w = "controller."
    g0 = ControllerGains()
    gains = _wrap("controller", ControllerGains,
                  gamma=_scalar(c, "gamma", w, g0.gamma), K_v=_scalar(c, "K_v", w, g0.K_v),
                  K_omega1=_scalar(c, "K_omega1", w, g0.K_omega1), K_omega2=_scalar(c, "K_omega2", w, g0.K_omega2),
                  K_composite=tuple(_array(c, "K_composite", w, (2,), g0.K_composite)),
                  Gamma_pi=_scalar(c, "Gamma_pi", w, g0.Gamma_pi), Gamma_d=_scalar(c, "Gamma_d", w, g0.Gamma_d),
                  workload=_scalar(c, "workload_c", w, g0.workload))
    s = _get(raw, "simulation", "", {})
    w = "simulation."
    s0 = SimulationOptions()
    sim = _wrap("simulation", SimulationOptions,
                duration=_scalar(s, "duration", w, s0.duration), method=_scalar(s, "method", w, s0.method, str),
                rtol=_scalar(s, "rtol", w, s0.rtol), atol=_scalar(s, "atol", w, s0.atol),
                max_step=_scalar(s, "max_step", w, s0.max_step), sample_dt=_scalar(s, "sample_dt", w, s0.sample_dt),
                hinge_angle_margin=_scalar(s, "hinge_angle_margin", w, s0.hinge_angle_margin),
                fixed_step=_scalar(s, "fixed_step", w, s0.fixed_step))
    return _wrap("controller", Scenario,
                 name=name, client=client, resolutions=res, initial=initial, desired=desired,
                 controller=_scalar(c, "kind", w, "B", str), gains=gains,
                 estimate_fraction=_scalar(c, "initial_estimate_fraction", "controller.", 0.5),
                 grasp_estimates=np.stack([
                     _array(c, "initial_grasp_estimate1", "controller.", (3,), np.zeros(3)),
                     _array(c, "initial_grasp_estimate2", "controller.", (3,), np.zeros(3))]),
                 simulation=sim)


def load_scenario(path: str | Path | None = None) -> Scenario:
    """Read a scenario file (JSON); default: the paper scenario with satdyn's resolutions (docs/detumbling.md).

    Parameters
    ----------
    path : str or Path, optional
        A JSON file with the layout of ``satdyn/data/detumbling/paper_table1.json``.

    Raises
    ------
    ValueError
        Unreadable file, invalid JSON, or a missing/malformed field (named in the message).
    """
    if path is None:
        text = resources.files("satdyn").joinpath(PAPER_SCENARIO_FILE).read_text()
    else:
        try:
            text = Path(path).read_text()
        except OSError as exc:
            raise ValueError(f"`scenario`: cannot read {str(path)!r}: {exc.strerror}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"`scenario`: not valid JSON ({exc})") from None
    return scenario_from_dict(raw)


def paper_scenario(**changes) -> Scenario:
    """The shipped paper scenario, optionally with fields replaced (``dataclasses.replace``)."""
    scenario = load_scenario()
    return replace(scenario, **changes) if changes else scenario
