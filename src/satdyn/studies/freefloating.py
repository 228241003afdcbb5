"""The `satdyn freefloating` study: the paper's two example maneuvers on the substitute systems.

Paper Front. Robot. AI 5:41 (2018) §8 / spec §8.4: P4S (planar 4-link) and S6S (spatial 6-link) — **substitutes for
the unpublished Tables 3-6, not the paper's systems** — each moving one joint at a time with
the computed-torque controller (K_P = K_D = 1, no feed-forward), floating mode, zero momentum,
integrated with DOP853 (rtol 1e-10, atol 1e-12) piecewise between command breakpoints.
The result feeds the paper's Figs. 5-8 (``satdyn.plotting.plot_freefloating``) and
``results.json``.

Arguments: ``systems`` (sequence of example names or JSON paths), ``settle`` [s] rest after
the last joint (default: the data file's, 24 s), ``sample_dt`` [s], ``rtol``, ``atol``,
``progress(system, t_done, t_final)``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..freefloating.control import JointSequenceCommand
from ..freefloating.examples import load_example
from ..freefloating.simulate import SimulationResult, simulate

__all__ = ["CycleSummary", "SystemRun", "FreeFloatingStudy", "run_freefloating_study",
           "load_example"]  # re-exported for the CLI (defined in satdyn.freefloating.examples)


@dataclasses.dataclass(frozen=True)
class CycleSummary:
    """Base motion during one joint cycle (spec §8.4 table rows).

    Attributes
    ----------
    joint : int (1-based)
    t_start, t_end : float [s]
    euler_min_deg, euler_max_deg : ndarray (3,)
        Ranges of (ϕ, θ, ψ) [deg] (paper's Euler "1-2-3" = satdyn 3-2-1 matrix).
    position_min, position_max : ndarray (3,) [m]
    euler_end_deg : ndarray (3,)
        Base Euler angles at the end of the cycle [deg].
    """

    joint: int
    t_start: float
    t_end: float
    euler_min_deg: np.ndarray
    euler_max_deg: np.ndarray
    position_min: np.ndarray
    position_max: np.ndarray
    euler_end_deg: np.ndarray


@dataclasses.dataclass(frozen=True)
class SystemRun:
    """One example system's simulation and its summary numbers."""

    key: str
    name: str
    synthetic: bool
    note: str
    simulation: SimulationResult
    cycles: tuple
    max_momentum_error: dict
    max_com_drift_m: float
    final_base_pose: dict
    joint_peaks: list

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "synthetic": self.synthetic,
            "note": self.note,
            "max_momentum_error": self.max_momentum_error,
            "max_com_drift_m": self.max_com_drift_m,
            "final_base_pose": self.final_base_pose,
            "joint_peaks": self.joint_peaks,
            "cycles": [dataclasses.asdict(c) for c in self.cycles],
            "duration_s": float(self.simulation.t[-1]),
            "function_evaluations": self.simulation.nfev,
        }


@dataclasses.dataclass(frozen=True)
class FreeFloatingStudy:
    """Result of :func:`run_freefloating_study`; ``to_dict`` gives the results.json layout."""

    runs: tuple
    integrator: dict

    def to_dict(self) -> dict:
        return {"systems": {r.key: r.to_dict() for r in self.runs}, "integrator": self.integrator,
                "substitute_systems": "P4S/S6S are reconstruction notes docs/spec-map/001-gjm-free-floating.md §8.4 "
                                      "substitutes, NOT the paper's (unpublished) Tables 3-6"}


def _cycles(sim: SimulationResult, command: JointSequenceCommand):
    out = []
    euler = np.rad2deg(sim.base_euler)
    for j, t0, t1 in command.cycle_windows():
        sel = (sim.t >= t0 - 1e-9) & (sim.t <= t1 + 1e-9)
        end = int(np.argmin(np.abs(sim.t - t1)))
        out.append(CycleSummary(j + 1, float(t0), float(t1), euler[sel].min(0), euler[sel].max(0),
                                sim.base_position[sel].min(0), sim.base_position[sel].max(0), euler[end]))
    return tuple(out)


def _summarise(ex, sim: SimulationResult) -> SystemRun:
    peaks = []
    for j in range(ex.model.n_joints):
        iq, iv = int(np.argmax(np.abs(sim.q[:, j]))), int(np.argmax(np.abs(sim.qdot[:, j])))
        peaks.append({"joint": j + 1, "max_abs_q_rad": float(abs(sim.q[iq, j])), "t_max_abs_q_s": float(sim.t[iq]),
                      "max_abs_qdot_rad_s": float(abs(sim.qdot[iv, j])), "t_max_abs_qdot_s": float(sim.t[iv]),
                      "max_abs_tau_Nm": float(np.abs(sim.tau[:, j]).max())})
    pose = {"t_s": float(sim.t[-1]), "position_m": sim.base_position[-1].tolist(),
            "quaternion_xyzw": sim.base_quaternion[-1].tolist(),
            "euler_deg": np.rad2deg(sim.base_euler[-1]).tolist(),
            "euler_convention": "(phi, theta, psi), R0 = Rz(psi) Ry(theta) Rx(phi): the paper's '1-2-3'"}
    return SystemRun(
        key=ex.key, name=ex.model.name, synthetic=ex.model.synthetic, note=ex.note, simulation=sim,
        cycles=_cycles(sim, ex.command),
        max_momentum_error={"linear": float(np.abs(sim.linear_momentum).max()),
                            "angular": float(np.abs(sim.angular_momentum).max())},
        max_com_drift_m=float(sim.com_drift.max()), final_base_pose=pose, joint_peaks=peaks)


def run_freefloating_study(systems=("p4s", "s6s"), settle=None, sample_dt=0.1, rtol=1e-10, atol=1e-12,
                           progress=None) -> FreeFloatingStudy:
    """Simulate each example system through its one-joint-at-a-time maneuver (floating mode).

    Returns
    -------
    FreeFloatingStudy
    """
    if not systems:
        raise ValueError("`systems` must name at least one example")
    if settle is not None and settle < 0:
        raise ValueError(f"`settle` must be non-negative; got {settle}")
    runs = []
    for name in systems:
        ex = load_example(name)
        if settle is not None:
            cmd = dataclasses.replace(ex.command, settle=float(settle))
            ex = dataclasses.replace(ex, command=cmd, controller=dataclasses.replace(ex.controller, command=cmd))
        cb = None if progress is None else (lambda t, tf, key=ex.key: progress(key, t, tf))
        sim = simulate(ex.model, controller=ex.controller, sample_dt=sample_dt, rtol=rtol, atol=atol, progress=cb)
        runs.append(_summarise(ex, sim))
    return FreeFloatingStudy(tuple(runs), {"method": "DOP853", "rtol": rtol, "atol": atol, "sample_dt_s": sample_dt,
                                           "piecewise": "between command breakpoints"})

