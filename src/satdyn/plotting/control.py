"""Figures of the arm control study (paper arXiv:2109.00407 Fig. 7 and companions)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

__all__ = ["plot_arm_control"]


def plot_arm_control(result) -> dict:
    """``{"fig7_controller_sigma", "step_responses", "convergence"}`` from an ArmControlResult."""
    figs = {}
    fig = Figure(figsize=(7, 4.5))
    ax = fig.add_subplot(111)
    import matplotlib

    cmap = matplotlib.colormaps["viridis"]
    n = len(result.fig7_theta2_deg)
    for i, t2 in enumerate(result.fig7_theta2_deg):
        color = cmap(i / max(n - 1, 1))
        for k in range(result.fig7_sigma.shape[2]):
            ax.loglog(result.fig7_frequencies, result.fig7_sigma[i, :, k], color=color,
                      label=f"theta2 = {t2:.0f} deg" if k == 0 else None)
    ax.set_xlabel("frequency [rad/s]")
    ax.set_ylabel("singular values of K(jw, tau) [N m/rad]")
    ax.set_title("Controller singular values, theta1 = 45 deg (cf. Fig. 7)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")  # a fixed place: "best" is searched under a time limit
    figs["fig7_controller_sigma"] = fig

    fig = Figure(figsize=(9, 5))
    axes = fig.subplots(1, 2, sharey=True)
    for j, ax in enumerate(axes):
        for p, (t1, t2) in enumerate(result.step_points_deg):
            ax.plot(result.step_time, result.step_theta[p, :, j, j], label=f"({t1:.0f}, {t2:.0f}) deg")
            ax.plot(result.step_time, result.step_theta[p, :, 1 - j, j], ls=":", color=ax.lines[-1].get_color())
        ax.set_title(f"unit step on reference {j + 1} (dotted: other joint)")
        ax.set_xlabel("time [s]")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("joint angle deviation [rad]")
    axes[0].legend(fontsize=7, loc="lower right")
    figs["step_responses"] = fig

    figs["convergence"] = _convergence(result)
    return figs


def _convergence(result) -> Figure:
    """Left: the training values of every tune per BFGS iteration (the rounds' ``history``),
    phases and rounds one after the other; right: per robust round, the searched and
    certified gamma1 and the certified gamma2. Markers everywhere: a phase of one round is
    one point, which a line alone would not show."""
    fig = Figure(figsize=(12, 4.2))
    fig.subplots_adjust(left=0.07, right=0.78, bottom=0.13, wspace=0.3)
    ax_it, ax = fig.subplots(1, 2)
    colors = ["C0", "C1", "C2", "C3"]
    start, k, plotted = 0, 0, False
    for pi, phase in enumerate(result.phases):
        color = colors[pi % len(colors)]
        for r in phase["rounds"]:
            hist = np.asarray(r.get("history", []), float).reshape(-1, 3)
            if len(hist):
                it = start + hist[:, 0]
                ax_it.plot(it, hist[:, 2], "-", color=color, lw=1.0,
                           label=f"{phase['name']}: hard / margin" if r is phase["rounds"][0] else None)
                if np.any(hist[:, 1] > 0):
                    ax_it.plot(it, hist[:, 1], "--", color=color, lw=1.0,
                               label=f"{phase['name']}: soft" if r is phase["rounds"][0] else None)
                ax_it.axvline(start, color=color, lw=0.5, alpha=0.4)
                start = it[-1]
                plotted = True
        rounds = phase["rounds"]
        idx = np.arange(k, k + len(rounds))
        ax.plot(idx, [r["searched_gamma1"] for r in rounds], "-x", color=color,
                label=f"{phase['name']}: gamma1, search")
        ax.plot(idx, [r["certified_gamma1"] for r in rounds], "o", color=color,
                label=f"{phase['name']}: gamma1, certified")
        ax.plot(idx, [r["certified_gamma2"] for r in rounds], "s", mfc="none", color=color,
                label=f"{phase['name']}: gamma2, certified")
        k += len(rounds)
    for a in (ax_it, ax):
        a.axhline(1.0, color="k", lw=0.8)
        a.set_yscale("log")
        a.grid(True, which="both", alpha=0.3)
    ax_it.set_xlabel("BFGS iteration (all tunes, one after the other)")
    ax_it.set_ylabel("largest goal value on the training points")
    ax_it.set_title("tuning", fontsize=9)
    if not plotted:
        ax_it.text(0.5, 0.5, "no tune recorded (resumed or stopped before a round ended)", ha="center",
                   va="center", transform=ax_it.transAxes, fontsize=8)
    ax.axhline(result.paper_gamma2, color="r", lw=0.8, ls=":", label="paper gamma2 = 0.69")
    ax.set_xlabel("robust round (certified when the search stays <= 1)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # rounds are whole numbers
    ax.set_ylabel("worst case over the box")
    ax.set_title("robust rounds", fontsize=9)
    if k == 0:
        ax.text(0.5, 0.5, "no robust round finished", ha="center", va="center", transform=ax.transAxes, fontsize=8)
    handles = ax_it.get_legend_handles_labels()
    more = ax.get_legend_handles_labels()
    fig.legend(handles[0] + more[0], handles[1] + more[1], fontsize=7, loc="upper left",
               bbox_to_anchor=(0.79, 0.95))
    if getattr(result, "stopped_early", ""):
        fig.suptitle("stopped early by the wall-clock limit: numbers depend on the machine", fontsize=9, color="r")
    return fig
