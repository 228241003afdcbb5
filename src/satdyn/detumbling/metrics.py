"""Metrics of a detumbling run (arXiv:2407.17617) and the named-entry views of its parameters.

* :func:`run_metrics` -- final norms, settling times (``|.| < threshold`` for good), ``V(0)``,
  ``V(T)``, peak wrenches, largest increase of ``V``.
* :func:`named_parameters`, :func:`named_grasps` -- ``{name: value}`` views of a parameter vector
  and of grasp points, as written to results files.

The studies built on them (the paper study, the controller comparison, the hinge sweep) live in
:mod:`satdyn.studies.detumbling`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .client import PARAMETER_NAMES
from .simulate import DetumblingRun

__all__ = ["RunMetrics", "run_metrics", "SETTLING_THRESHOLD", "named_parameters", "named_grasps"]

SETTLING_THRESHOLD = 0.05
"""Settling band of ``|v|`` [m/s] and ``|omega_i|`` [rad/s] (arXiv:2407.17617)."""


def named_parameters(values) -> dict:
    """``{name: value}`` of a parameter vector (the first ``len(values)`` of :data:`PARAMETER_NAMES`).

    Units: m [kg], h [kg m], J [kg m^2], k [N m/rad], xi [N m s/rad], fc [N m] (the hinge).
    """
    values = np.asarray(values, dtype=float)
    return {name: float(v) for name, v in zip(PARAMETER_NAMES, values)}


def named_grasps(grasps) -> dict:
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
