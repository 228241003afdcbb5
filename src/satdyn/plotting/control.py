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
    ax.legend(fontsize=7)
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
    axes[0].legend(fontsize=7)
    figs["step_responses"] = fig

    fig = Figure(figsize=(9.5, 4))
    fig.subplots_adjust(left=0.1, right=0.7, bottom=0.13)
    ax = fig.add_subplot(111)
    k = 0
    for phase in result.phases:
        rounds = phase["rounds"]
        idx = np.arange(k, k + len(rounds))
        line, = ax.plot(idx, [r["searched_gamma1"] for r in rounds], "-", label=f"{phase['name']}: gamma1, search")
        ax.plot(idx, [r["certified_gamma1"] for r in rounds], "o", color=line.get_color(),
                label=f"{phase['name']}: gamma1, certified")
        ax.plot(idx, [r["certified_gamma2"] for r in rounds], "s", mfc="none", color=line.get_color(),
                label=f"{phase['name']}: gamma2, certified")
        k += len(rounds)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.axhline(result.paper_gamma2, color="r", lw=0.8, ls=":", label="paper gamma2 = 0.69")
    ax.set_yscale("log")
    ax.set_xlabel("robust round (certified when the search stays <= 1)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # rounds are whole numbers
    ax.set_ylabel("worst case over the box")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    ax.grid(True, which="both", alpha=0.3)
    figs["convergence"] = fig
    return figs
