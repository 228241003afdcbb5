"""Figures of the `satdyn freefloating` study: the paper's Figs. 5-8 from a FreeFloatingStudy.

For each system (first P4S → Figs. 5/6, then S6S → Figs. 7/8, as in Front. Robot. AI 5:41 (2018) §8.2):
* motion figure: (A) joint rates with the base angular velocity, (B) joint angles with the
  base CoM position deviation;
* momentum figure: (A) linear and (B) angular momentum of base, manipulator and total.
Titles say that the systems are substitutes, not the paper's.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_freefloating"]


def _title(run):
    return f"{run.name}" + (" — substitute system, NOT the paper's tables" if run.synthetic else "")


def _motion(run, fig_no):
    sim = run.simulation
    fig = Figure(figsize=(10, 7), layout="constrained")
    (a1, a2), (b1, b2) = fig.subplots(2, 2, sharex=True)
    for j in range(sim.q.shape[1]):
        a1.plot(sim.t, sim.qdot[:, j], label=f"$\\dot q_{j + 1}$")
        b1.plot(sim.t, sim.q[:, j], label=f"$q_{j + 1}$")
    for i, c in enumerate("xyz"):
        a2.plot(sim.t, np.rad2deg(sim.base_twist[:, 3 + i]), label=f"$\\omega_{{0{c}}}$")
        b2.plot(sim.t, 1e3 * (sim.base_position[:, i] - sim.base_position[0, i]), label=f"$r_{{0{c}}}$")
    a1.set(ylabel="joint rate [rad/s]", title=f"Fig. {fig_no}A: joint rates")
    a2.set(ylabel="base angular velocity [deg/s]", title=f"Fig. {fig_no}A: base angular velocity (inertial)")
    b1.set(xlabel="t [s]", ylabel="joint angle [rad]", title=f"Fig. {fig_no}B: joint angles")
    b2.set(xlabel="t [s]", ylabel="base CoM displacement [mm]", title=f"Fig. {fig_no}B: base position")
    for ax in (a1, a2, b1, b2):
        ax.legend(fontsize=7, ncol=2)
        ax.grid(alpha=0.3)
    fig.suptitle(_title(run), fontsize=9)
    return fig


def _momentum(run, fig_no):
    sim = run.simulation
    fig = Figure(figsize=(10, 7), layout="constrained")
    axes = fig.subplots(2, 3, sharex=True)
    parts = [("linear", sim.base_linear_momentum, sim.manipulator_linear_momentum, sim.linear_momentum, "P", "N s"),
             ("angular", sim.base_angular_momentum, sim.manipulator_angular_momentum, sim.angular_momentum, "L",
              "N m s")]
    for row, (_kind, base, manip, total, sym, unit) in enumerate(parts):
        for i, c in enumerate("xyz"):
            ax = axes[row, i]
            ax.plot(sim.t, base[:, i], label="base")
            ax.plot(sim.t, manip[:, i], "--", label="manipulator")
            ax.plot(sim.t, total[:, i], "k", lw=1.5, label="total")
            ax.set(title=f"Fig. {fig_no}{'AB'[row]}: ${sym}_{c}$", ylabel=f"[{unit}]")
            ax.grid(alpha=0.3)
            if row == 1:
                ax.set_xlabel("t [s]")
    axes[0, 0].legend(fontsize=7)
    err = run.max_momentum_error
    fig.suptitle(f"{_title(run)}\nmax |total P| = {err['linear']:.1e} N s, max |total L| = {err['angular']:.1e} N m s "
                 f"(about the inertial origin), CoM drift {run.max_com_drift_m:.1e} m", fontsize=9)
    return fig


def plot_freefloating(result) -> dict[str, Figure]:
    """The paper's Figs. 5-8 (motion and momentum per system) as ``{name: Figure}``.

    Parameters
    ----------
    result : satdyn.studies.freefloating.FreeFloatingStudy
    """
    figures = {}
    for k, run in enumerate(result.runs):
        a, b = 5 + 2 * k, 6 + 2 * k
        figures[f"fig{a}_{run.key}_motion"] = _motion(run, a)
        figures[f"fig{b}_{run.key}_momentum"] = _momentum(run, b)
    return figures
