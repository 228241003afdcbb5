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
from dataclasses import dataclass

import numpy as np

from .client import PARAMETER_NAMES
from .scenario import Scenario
from .simulate import DetumblingRun, simulate

__all__ = ["RunMetrics", "run_metrics", "DetumblingExperiment", "detumbling_experiment", "SETTLING_THRESHOLD",
           "HINGE_SCALES", "EXPERIMENT_KINDS"]

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
