"""The ``satdyn detumbling`` studies (arXiv:2407.17617), built on :mod:`satdyn.detumbling`.

* :func:`detumbling_study` -- one run of the scenario's controller (controller B on the paper
  scenario), optionally with the experiment.
* :func:`detumbling_experiment` -- B, known-parameter B, A, R and velocity-only B on one scenario, plus the
  hinge-stiffness sweep (stiffness and damping x1, x10, x100) for B and A, which shows when the
  paper's composite controller A works (stiff hinge only).
* :func:`tug_limits_comparison` -- B with ideal tugs (massless, unlimited thrust, as in the
  paper), with the tugs' masses lumped into the links, and with masses and thrust saturation;
  how the settling times and peaks change.
* :func:`gain_sweep` -- settling time and peak torque of B over a grid of gain scales ``K``
  (all three blocks of ``K`` multiplied by one factor) and adaptation gains ``Gamma_pi``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ..detumbling.controllers import CONTROLLER_KINDS
from ..detumbling.metrics import RunMetrics, named_grasps, named_parameters, run_metrics
from ..detumbling.projection import physical_parameter_set
from ..detumbling.scenario import Scenario, load_scenario
from ..detumbling.simulate import DetumblingRun, simulate
from ..detumbling.tugs import TugModel
from ..runtime import limit_blas_threads
from ..runtime import progress as progress_bar

__all__ = ["DetumblingStudy", "detumbling_study", "DetumblingExperiment", "detumbling_experiment", "HINGE_SCALES",
           "EXPERIMENT_KINDS", "TugLimitsComparison", "tug_limits_comparison", "GainSweep",
           "gain_sweep", "SWEEP_GRIDS",
           "DEFAULT_TUG",
           # the vocabulary of the study's options, re-exported for the CLI (defined in satdyn.detumbling)
           "CONTROLLER_KINDS", "load_scenario", "physical_parameter_set"]

HINGE_SCALES = (1.0, 10.0, 100.0)
"""Stiffness/damping multipliers of the hinge sweep of :func:`detumbling_experiment`."""
EXPERIMENT_KINDS = ("B", "known", "A", "R", "velocity")
"""Controllers compared by :func:`detumbling_experiment` at the scenario's hinge."""

DEFAULT_TUG = TugModel(mass=20.0, inertia=np.diag([2.0, 2.0, 2.0]), arm=1.0, max_thrust=20.0)
"""A 20 kg tug (inertia 2 kg m^2 per axis) with 6 thrusters of 20 N on a 1 m arm: at most 40 N per
axis and 40 N m per axis, below the ideal run's peaks (52 N, 126 N m), so it saturates."""

SWEEP_GRIDS = {
    "small": ((0.5, 1.0, 2.0), (10.0, 30.0, 100.0), 10.0),
    "large": ((0.25, 0.5, 1.0, 2.0, 4.0), (3.0, 10.0, 30.0, 100.0, 300.0, 1000.0), 30.0),
}
"""``{name: (K scales, Gamma_pi values, horizon [s])}``: "small" runs 9 10-s simulations (under a
minute on one core), "large" 30 30-s simulations (tens of minutes; large Gamma_pi is stiff)."""


def _label_progress(progress, label):
    return None if progress is None else (lambda t, T: progress(label, t, T))


@dataclass
class TugLimitsComparison:
    """B on one scenario with ideal tugs, with tug masses, and with masses and thrust saturation.

    Attributes
    ----------
    tug : TugModel
        The tug used for both tugs.
    runs : dict
        ``{"ideal": DetumblingRun, "tug mass": ..., "tug mass + saturation": ...}``.
    metrics : dict
        ``{label: RunMetrics}``.
    settling_time_change_s : dict
        ``{label: {"v", "omega1", "omega2"}}``: settling time minus the ideal run's [s]
        (``inf`` when the run does not settle within the horizon).
    """

    tug: TugModel
    runs: dict
    metrics: dict
    settling_time_change_s: dict

    def to_dict(self) -> dict:
        return {"tug": {"mass_kg": self.tug.mass, "inertia_kg_m2": self.tug.inertia.tolist(),
                        "thruster_arm_m": self.tug.arm, "max_thrust_n": self.tug.max_thrust},
                "runs": {label: m.to_dict() for label, m in self.metrics.items()},
                "settling_time_change_s": self.settling_time_change_s}


def tug_limits_comparison(scenario: Scenario, tug: TugModel = DEFAULT_TUG, *, duration: float | None = None,
                          progress=None, reuse: dict | None = None) -> TugLimitsComparison:
    """Run B with ideal tugs, with ``tug``'s mass, and with its mass and thrust limit.

    Parameters
    ----------
    scenario : Scenario
    tug : TugModel
        Both tugs (its ``max_thrust`` must be finite: the third run saturates).
    duration : float, optional
        Horizon [s] (default the scenario's).
    progress : callable ``(label, t, T)``, optional
    reuse : dict, optional
        ``{"ideal": DetumblingRun}`` already computed with B on the same horizon.
    """
    if not isinstance(tug, TugModel):
        raise TypeError(f"`tug` must be a TugModel; got {type(tug).__name__}")
    if not tug.saturates:
        raise ValueError("`tug.max_thrust` must be finite for the saturated run")
    massive = dataclasses.replace(tug, max_thrust=np.inf)
    jobs = {"ideal": None, "tug mass": (massive, massive), "tug mass + saturation": (tug, tug)}
    runs = dict(reuse or {})
    with limit_blas_threads():
        for label, models in jobs.items():
            if label not in runs:
                runs[label] = simulate(scenario, "B", duration=duration, tug_models=models,
                                       progress=_label_progress(progress, label))
    runs = {label: runs[label] for label in jobs}
    metrics = {label: run_metrics(r) for label, r in runs.items()}
    base = metrics["ideal"].settling_time_s
    change = {label: {k: float(m.settling_time_s[k] - base[k]) if np.isfinite(base[k]) else float("nan")
                      for k in base} for label, m in metrics.items() if label != "ideal"}
    return TugLimitsComparison(tug, runs, metrics, change)


@dataclass
class GainSweep:
    """Settling time and peak wrenches of B over a grid of gains.

    Attributes
    ----------
    K_scales : ndarray, shape (nK,)
        Factors multiplying ``K = diag(K_v, K_omega1, K_omega2)`` of the scenario (dimensionless).
    Gamma_pi : ndarray, shape (nG,)
        Parameter adaptation gains (``Gamma_pi I``).
    duration : float
        Horizon of every run [s].
    settling_time_s : ndarray, shape (nK, nG)
        Time after which ``|v|``, ``|omega1|`` and ``|omega2|`` all stay below the settling band
        (the largest of the three) [s]; ``inf``: not within the horizon.
    peak_torque : ndarray, shape (nK, nG)
        Largest tug torque ``|tau_i|`` over both tugs [N m].
    peak_force : ndarray, shape (nK, nG)
        Largest tug force [N].
    metrics : list of list of RunMetrics
        ``metrics[i][j]`` of ``(K_scales[i], Gamma_pi[j])``.
    """

    K_scales: np.ndarray
    Gamma_pi: np.ndarray
    duration: float
    settling_time_s: np.ndarray
    peak_torque: np.ndarray
    peak_force: np.ndarray
    metrics: list

    def to_dict(self) -> dict:
        return {"K_scales": self.K_scales.tolist(), "Gamma_pi": self.Gamma_pi.tolist(), "duration_s": self.duration,
                "settling_time_s": self.settling_time_s.tolist(), "peak_torque_n_m": self.peak_torque.tolist(),
                "peak_force_n": self.peak_force.tolist(),
                "runs": [[m.to_dict() for m in row] for row in self.metrics]}


def _positive_values(values, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float).ravel()
    if arr.size == 0 or not np.all(np.isfinite(arr)) or not np.all(arr > 0):
        raise ValueError(f"`{name}` must be a non-empty sequence of positive finite numbers; got {values!r}")
    return arr


def gain_sweep(scenario: Scenario, K_scales=SWEEP_GRIDS["small"][0], Gamma_pi=SWEEP_GRIDS["small"][1], *,
               duration: float = SWEEP_GRIDS["small"][2], show_progress: bool = True) -> GainSweep:
    """Controller B over the grid ``K_scales x Gamma_pi`` (other gains as in ``scenario``).

    Parameters
    ----------
    scenario : Scenario
    K_scales : sequence of float
        Factors of ``K`` (> 0).
    Gamma_pi : sequence of float
        Adaptation gains (> 0).
    duration : float
        Horizon of every run [s] (> 0).
    show_progress : bool
        One :func:`satdyn.runtime.progress` bar over the runs.

    Returns
    -------
    GainSweep
    """
    ks = _positive_values(K_scales, "K_scales")
    gs = _positive_values(Gamma_pi, "Gamma_pi")
    if not (np.isfinite(duration) and duration > 0):
        raise ValueError(f"`duration` must be a positive finite time [s]; got {duration!r}")
    g0 = scenario.gains
    settle = np.empty((ks.size, gs.size))
    torque = np.empty_like(settle)
    force = np.empty_like(settle)
    metrics: list[list[RunMetrics]] = [[None] * gs.size for _ in ks]
    bar = progress_bar(total=ks.size * gs.size, desc="gain sweep", unit="run") if show_progress else None
    try:
        with limit_blas_threads():
            for i, k in enumerate(ks):
                for j, gamma_pi in enumerate(gs):
                    gains = dataclasses.replace(g0, K_v=k * g0.K_v, K_omega1=k * g0.K_omega1,
                                                K_omega2=k * g0.K_omega2, Gamma_pi=float(gamma_pi))
                    m = run_metrics(simulate(dataclasses.replace(scenario, gains=gains), "B", duration=duration))
                    metrics[i][j] = m
                    settle[i, j] = max(m.settling_time_s.values()) if m.status == "completed" else np.inf
                    torque[i, j] = max(m.peak["torque1"], m.peak["torque2"])
                    force[i, j] = m.peak["force"]
                    if bar is not None:
                        bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return GainSweep(ks, gs, float(duration), settle, torque, force, metrics)


@dataclass
class DetumblingStudy:
    """Result of ``satdyn detumbling``: the scenario's run, its metrics and the optional experiment.

    ``to_dict()`` gives the JSON of the study: ``final``, ``settling_time_s``, ``V0``, ``VT``,
    ``peak`` of the main run (keys of the issue), plus the scenario, the resolutions and the
    experiment's metrics.
    """

    scenario: Scenario
    run: DetumblingRun
    metrics: RunMetrics
    experiment: DetumblingExperiment | None = None
    notes: list = field(default_factory=list)
    tug_limits: object | None = None
    sweep: object | None = None
    projected: bool = False

    def to_dict(self) -> dict:
        m = self.metrics
        sc = self.scenario
        out = {
            "final": m.final, "settling_time_s": m.settling_time_s, "V0": m.V0, "VT": m.VT, "peak": m.peak,
            "controller": m.controller, "status": m.status, "duration_s": m.duration,
            "max_V_increase": m.max_V_increase, "max_hinge_angle": m.max_hinge_angle,
            "max_position_error": m.max_position_error, "wall_time_s": m.wall_time_s,
            "rhs_evaluations": m.rhs_evaluations,
            "scenario": {"name": sc.name, "resolutions": dataclasses.asdict(sc.resolutions),
                         "gains": dataclasses.asdict(sc.gains), "estimate_fraction": sc.estimate_fraction,
                         "parameters_true": named_parameters(sc.client.parameters),
                         "grasps_true_m": named_grasps(sc.client.grasps)},
            "estimates_final": {f"tug{i + 1}": {"parameters": named_parameters(self.run.pi_hat[-1, i]),
                                                "grasp_m": named_grasps(self.run.d_hat[-1, i:i + 1])["tug1"]}
                                for i in range(self.run.pi_hat.shape[1])},
            "notes": list(self.notes),
        }
        out["parameter_projection"] = self.projected
        if self.experiment is not None:
            out["experiment"] = self.experiment.to_dict()
        if self.tug_limits is not None:
            out["tug_limits"] = self.tug_limits.to_dict()
        if self.sweep is not None:
            out["gain_sweep"] = self.sweep.to_dict()
        return out


def detumbling_study(scenario: Scenario, *, experiment: bool = False, duration: float | None = None,
                     progress=None, bounds=None, tug=None, sweep_grid: str | None = None) -> DetumblingStudy:
    """Run the scenario's controller and, with ``experiment=True``, the comparison and sweep.

    Parameters
    ----------
    scenario : Scenario
    experiment : bool
        Also run :func:`detumbling_experiment` (9 runs, reusing the main run when it is B).
    duration : float, optional
        Overrides the scenario horizon [s] (main run only).
    progress : callable ``(label, t, T)``, optional
    bounds : ParameterSet, optional
        Parameter projection of the main run (:mod:`satdyn.detumbling.projection`).
    tug : TugModel, optional
        Also run :func:`tug_limits_comparison` with this tug.
    sweep_grid : {"small", "large"}, optional
        Also run :func:`gain_sweep` on this grid of ``SWEEP_GRIDS``.
    """
    if sweep_grid is not None and sweep_grid not in SWEEP_GRIDS:
        raise ValueError(f"`sweep_grid` must be one of {tuple(SWEEP_GRIDS)}; got {sweep_grid!r}")
    label = scenario.controller
    cb = None if progress is None else (lambda t, T: progress(label, t, T))

    with limit_blas_threads():        # small dense problems: BLAS threads only fight for cores
        run = simulate(scenario, duration=duration, progress=cb, bounds=bounds)
    notes = []
    if run.status != "completed":
        notes.append(f"{label}: stopped at t = {run.t[-1]:.2f} s, |theta*| reached pi - margin")
    exp = None
    if experiment:
        reuse = {label: run} if duration is None else None
        with limit_blas_threads():
            exp = detumbling_experiment(scenario, progress=progress, reuse=reuse)
        for lab, m in exp.metrics.items():
            if m.status != "completed":
                notes.append(f"{lab}: stopped at t = {m.duration:.2f} s, |theta*| reached pi - margin")
    limits = None
    if tug is not None:
        reuse = {"ideal": run} if label == "B" and bounds is None else None
        limits = tug_limits_comparison(scenario, tug, duration=duration, progress=progress, reuse=reuse)
        for lab, m in limits.metrics.items():
            if m.status != "completed":
                notes.append(f"tug limits, {lab}: stopped at t = {m.duration:.2f} s, |theta*| reached pi - margin")
    sweep = None
    if sweep_grid is not None:
        K_scales, Gamma_pi, horizon = SWEEP_GRIDS[sweep_grid]
        sweep = gain_sweep(scenario, K_scales, Gamma_pi, duration=horizon)
    return DetumblingStudy(scenario, run, run_metrics(run), exp, notes, limits, sweep, bounds is not None)


@dataclass
class DetumblingExperiment:
    """Controller comparison and hinge-stiffness sweep on one scenario.

    Attributes
    ----------
    runs : dict
        ``{label: DetumblingRun}``; labels ``"B"``, ``"known"``, ``"A"``, ``"R"``, ``"velocity"`` (hinge ×1) and
        ``"B x10"``, ``"A x10"``, ``"B x100"``, ``"A x100"``.
    metrics : dict
        ``{label: RunMetrics}``.
    hinge_scales : tuple of float
    """

    runs: dict
    metrics: dict
    hinge_scales: tuple = HINGE_SCALES

    def to_dict(self) -> dict:
        return {"hinge_scales": list(self.hinge_scales),
                "runs": {label: m.to_dict() for label, m in self.metrics.items()}}


def _label(kind: str, scale: float) -> str:
    return kind if scale == 1.0 else f"{kind} x{scale:g}"


def detumbling_experiment(scenario: Scenario, *, kinds=EXPERIMENT_KINDS, hinge_scales=HINGE_SCALES,
                          sweep_kinds=("B", "A"), progress=None, reuse: dict | None = None) -> DetumblingExperiment:
    """Run B, known, A, R, velocity at the scenario's hinge and B, A over ``hinge_scales``.

    Parameters
    ----------
    scenario : Scenario
    kinds : sequence of str
        Controllers compared at hinge scale 1.
    hinge_scales : sequence of float
        Stiffness/damping multipliers of the sweep.
    sweep_kinds : sequence of str
        Controllers run at every scale.
    progress : callable ``(label, t, T)``, optional
    reuse : dict, optional
        ``{label: DetumblingRun}`` already computed (e.g. the study's B run); not re-run.

    Returns
    -------
    DetumblingExperiment
    """
    jobs = [(k, 1.0) for k in kinds]
    jobs += [(k, float(s)) for s in hinge_scales if float(s) != 1.0 for k in sweep_kinds]
    runs = dict(reuse or {})
    for kind, scale in jobs:
        label = _label(kind, scale)
        if label in runs:
            continue
        sc = scenario if scale == 1.0 else scenario.with_hinge_scale(scale)
        cb = None if progress is None else (lambda t, T, _l=label: progress(_l, t, T))
        runs[label] = simulate(sc, kind, progress=cb)
    ordered = {_label(k, s): runs[_label(k, s)] for k, s in jobs}
    return DetumblingExperiment(ordered, {label: run_metrics(r) for label, r in ordered.items()},
                                tuple(float(s) for s in hinge_scales))
