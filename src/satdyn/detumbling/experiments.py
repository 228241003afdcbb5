"""Detumbling studies: metrics of a run, the paper study, the controller comparison and the hinge sweep.

* :func:`run_metrics` -- final norms, settling times (``|.| < threshold`` for good), ``V(0)``,
  ``V(T)``, peak wrenches, largest increase of ``V``.
* :func:`detumbling_study` -- one run of the scenario's controller (controller B on the paper
  scenario), optionally with the experiment.
* :func:`detumbling_experiment` -- B, known-parameter B, A, R and velocity-only B on one scenario, plus the
  hinge-stiffness sweep (stiffness and damping ×1, ×10, ×100) for B and A, which shows when the
  paper's composite controller A works (stiff hinge only).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from .client import PARAMETER_NAMES
from .scenario import Scenario
from .simulate import DetumblingRun, simulate

__all__ = ["RunMetrics", "run_metrics", "DetumblingExperiment", "detumbling_experiment", "DetumblingStudy",
           "detumbling_study", "SETTLING_THRESHOLD", "HINGE_SCALES", "EXPERIMENT_KINDS"]

SETTLING_THRESHOLD = 0.05
"""Settling band of ``|v|`` [m/s] and ``|omega_i|`` [rad/s] (arXiv:2407.17617)."""
HINGE_SCALES = (1.0, 10.0, 100.0)
EXPERIMENT_KINDS = ("B", "known", "A", "R", "velocity")


def _named_parameters(values) -> dict:
    """``{name: value}`` of a parameter vector (the first ``len(values)`` of :data:`PARAMETER_NAMES`).

    Units: m [kg], h [kg m], J [kg m^2], k [N m/rad], xi [N m s/rad], fc [N m] (the hinge).
    """
    values = np.asarray(values, dtype=float)
    return {name: float(v) for name, v in zip(PARAMETER_NAMES, values)}


def _named_grasps(grasps) -> dict:
    """``{"tug1": {"x": .., "y": .., "z": ..}, ...}`` of grasp points (k, 3) [m]."""
    return {f"tug{i + 1}": dict(zip("xyz", map(float, g))) for i, g in enumerate(np.asarray(grasps, dtype=float))}


def _settling_time(t: np.ndarray, norms: np.ndarray, threshold: float) -> float:
    """First time after which ``norms`` stays below ``threshold`` (inf if it never settles)."""
    above = np.flatnonzero(norms >= threshold)
    if above.size == 0:
        return 0.0
    last = above[-1]
    return float(t[last + 1]) if last + 1 < t.size else float("inf")


@dataclass(frozen=True)
class RunMetrics:
    """Scalar summary of a :class:`DetumblingRun`.

    ``final`` holds norms at the last sample: ``v`` [m/s], ``omega1``, ``omega2`` [rad/s],
    ``position_error`` [m], ``hinge_angle`` [rad]; ``settling_time_s`` the times after which
    ``|v|``, ``|omega1|``, ``|omega2|`` stay below :data:`SETTLING_THRESHOLD` (inf: never);
    ``peak`` the largest ``|f_i|`` over both tugs [N] and ``|tau_1|``, ``|tau_2|`` [N m];
    ``max_V_increase`` the largest increase of ``V`` between samples [J].
    """

    controller: str
    scenario: str
    status: str
    duration: float
    final: dict
    settling_time_s: dict
    V0: float
    VT: float
    peak: dict
    max_V_increase: float
    max_hinge_angle: float
    max_position_error: float
    wall_time_s: float
    rhs_evaluations: int

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def run_metrics(run: DetumblingRun, threshold: float = SETTLING_THRESHOLD) -> RunMetrics:
    """Metrics of one run (see :class:`RunMetrics`)."""
    if not isinstance(run, DetumblingRun):
        raise TypeError(f"`run` must be a DetumblingRun; got {type(run).__name__}")
    if not (np.isfinite(threshold) and threshold > 0):
        raise ValueError(f"`threshold` must be positive [m/s, rad/s]; got {threshold!r}")
    norm = np.linalg.norm
    v, w1, w2 = norm(run.nu[:, :3], axis=1), norm(run.nu[:, 3:6], axis=1), norm(run.nu[:, 6:9], axis=1)
    return RunMetrics(
        controller=run.kind, scenario=run.scenario, status=run.status, duration=float(run.t[-1]),
        final={"v": float(v[-1]), "omega1": float(w1[-1]), "omega2": float(w2[-1]),
               "position_error": float(norm(run.position_error[-1])),
               "hinge_angle": float(norm(run.hinge_angle[-1]))},
        settling_time_s={"v": _settling_time(run.t, v, threshold), "omega1": _settling_time(run.t, w1, threshold),
                         "omega2": _settling_time(run.t, w2, threshold)},
        V0=float(run.V[0]), VT=float(run.V[-1]),
        peak={"force": float(norm(run.wrenches[:, :, :3], axis=2).max()),
              "torque1": float(norm(run.wrenches[:, 0, 3:], axis=1).max()),
              "torque2": float(norm(run.wrenches[:, 1, 3:], axis=1).max())},
        max_V_increase=float(max(0.0, np.diff(run.V).max(initial=0.0))),
        max_hinge_angle=float(norm(run.hinge_angle, axis=1).max()),
        max_position_error=float(norm(run.position_error, axis=1).max()),
        wall_time_s=run.wall_time, rhs_evaluations=run.n_rhs,
    )


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
                         "parameters_true": _named_parameters(sc.client.parameters),
                         "grasps_true_m": _named_grasps(sc.client.grasps)},
            "estimates_final": {f"tug{i + 1}": {"parameters": _named_parameters(self.run.pi_hat[-1, i]),
                                                "grasp_m": _named_grasps(self.run.d_hat[-1, i:i + 1])["tug1"]}
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
        Also run :func:`satdyn.detumbling.studies.tug_limits_comparison` with this tug.
    sweep_grid : {"small", "large"}, optional
        Also run :func:`satdyn.detumbling.studies.gain_sweep` on this grid of ``SWEEP_GRIDS``.
    """
    from ..runtime import limit_blas_threads
    from .studies import SWEEP_GRIDS, gain_sweep, tug_limits_comparison

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
