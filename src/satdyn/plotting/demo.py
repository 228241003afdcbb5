"""Figures of the `satdyn demo` study."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_rigid_spacecraft_inertia", "plot_flagship"]


def plot_rigid_spacecraft_inertia(result) -> dict[str, Figure]:
    """Principal moments, inertia components and centre of mass versus panel angle.

    Parameters
    ----------
    result : satdyn.studies.demo.RigidSpacecraftInertia

    Returns
    -------
    dict
        ``{"inertia_vs_angle": Figure, "com_vs_angle": Figure}``
    """
    deg = np.rad2deg(result.panel_angles)
    fig = Figure(figsize=(8, 4.5), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    for i, label in enumerate(("I_min", "I_mid", "I_max")):
        ax1.plot(deg, result.principal_moments[:, i], marker="o", label=label)
    ax1.set(xlabel="panel angle [deg]", ylabel="principal moment [kg m$^2$]", title="Principal inertia at system CoM")
    ax1.legend()
    # Changes from the first angle: the panels move a few kg m^2 on a ~400 kg m^2 hub.
    change = result.inertia - result.inertia[0]
    for (i, j), label in {(0, 0): "J_xx", (1, 1): "J_yy", (2, 2): "J_zz", (0, 2): "J_xz"}.items():
        ax2.plot(deg, change[:, i, j], marker=".", label=label)
    ax2.set(xlabel="panel angle [deg]", ylabel="[kg m$^2$]",
            title=f"Change from {deg[0]:g} deg, hub frame")
    ax2.legend()
    title = result.scenario + (" (synthetic data)" if result.synthetic else "")
    fig.suptitle(f"{title}\nroutes 6x6 vs classical agree to {result.route_discrepancy:.1e}", fontsize=9)

    fig_com = Figure(figsize=(5, 4), layout="constrained")
    ax = fig_com.subplots()
    for i, label in enumerate("xyz"):
        ax.plot(deg, 1e3 * result.com[:, i], marker="o", label=label)
    ax.set(xlabel="panel angle [deg]", ylabel="system CoM from hub CoM [mm]", title="Centre of mass shift")
    ax.legend()
    return {"inertia_vs_angle": fig, "com_vs_angle": fig_com}


def plot_flagship(result) -> dict[str, Figure]:
    """Figures of the flagship study (every frequency in Hz).

    Parameters
    ----------
    result : satdyn.studies.demo.FlagshipResult

    Returns
    -------
    dict
        ``{"singular_values": ..., "robust_analysis": ..., "modes_vs_array_angle": ...}``
    """
    f = result.frequencies_hz
    rs, wc = result.robust_stability, result.worst_case_gain
    hz = 1.0 / (2.0 * np.pi)
    gain_unit = "[(rad/s$^2$)/(N m)]"
    box = f"first array frequencies $\\pm${result.percent:g} %"

    fig1 = Figure(figsize=(8.5, 5), layout="constrained")
    ax = fig1.subplots()
    for k, row in enumerate(result.sigma_max_samples):
        ax.loglog(f, row, color="0.75", lw=0.5,
                  label=(f"$\\bar\\sigma$, {result.sigma_max_samples.shape[0]} uniform samples of the box"
                         if k == 0 else None))
    styles = ("-", "--", ":")
    for i in range(result.sigma_nominal.shape[1]):
        ax.loglog(f, result.sigma_nominal[:, i], "C0", ls=styles[i % 3], lw=1.4, label=f"nominal $\\sigma_{i + 1}$")
    ax.loglog(f, result.sigma_max_worst, "C3", lw=1.2, label="$\\bar\\sigma$ at the worst-case parameters")
    ax.axhline(wc.upper, color="C3", ls="--", lw=0.9, label=f"worst-case gain (upper bound) {wc.upper:.3g}")
    ax.axhline(wc.nominal_gain, color="C0", ls="-.", lw=0.9, label=f"nominal H$_\\infty$ {wc.nominal_gain:.3g}")
    ax.set(xlabel="frequency [Hz]", ylabel=f"gain {gain_unit}",
           title="CLOSED loop: torque disturbance -> hub angular acceleration\n"
                 f"{box}; array angle {result.array_angle_deg:g} deg; synthetic data")
    ax.set_ylim(bottom=max(1e-6, 0.5 * np.nanmin(result.sigma_nominal[:, -1])))
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="lower right")

    fig2 = Figure(figsize=(12, 4.8), layout="constrained")
    a1, a2 = fig2.subplots(1, 2)
    a1.semilogx(rs.frequencies * hz, rs.mu_upper, "C2", lw=1.2, label="$\\mu$ upper bound")
    a1.axhline(1.0, color="k", ls=":", lw=0.8, label="$\\mu$ = 1: instability inside the box")
    a1.axhline(1.0 / rs.lower, color="C2", ls="--", lw=0.8, label=f"1 / margin = {1.0 / rs.lower:.3g}")
    a1.set(xlabel="frequency [Hz]", ylabel="$\\mu$ (1 = the uncertainty box) [-]",
           title=f"Robust stability: margin [{rs.lower:.3g}, {rs.upper:.3g}] x box\n"
                 f"(stable while each first array frequency stays within $\\pm${result.percent * rs.lower:.1f} %)")
    a1.grid(alpha=0.3, which="both")
    a1.legend(fontsize=8)
    a2.semilogx(wc.frequencies * hz, wc.gain_upper, "C3", lw=1.2, label="worst-case gain, upper bound per frequency")
    a2.semilogx(f, result.sigma_nominal[:, 0], "C0", lw=1.0, label="nominal $\\bar\\sigma$")
    a2.axhline(wc.lower, color="C3", ls="--", lw=0.8, label=f"achieved worst case {wc.lower:.3g}")
    a2.set(xlabel="frequency [Hz]", ylabel=f"gain {gain_unit}",
           title=f"Worst-case gain [{wc.lower:.3g}, {wc.upper:.3g}] = {wc.lower / wc.nominal_gain:.2f} x nominal\n"
                 "closed loop, torque -> hub angular acceleration")
    a2.grid(alpha=0.3, which="both")
    a2.legend(fontsize=8)
    fig2.suptitle(f"Robust analysis, {box} (synthetic data)", fontsize=10)

    fig3 = Figure(figsize=(8, 4.8), layout="constrained")
    ax3 = fig3.subplots()
    for j in range(result.modes_vs_angle_hz.shape[1]):
        ax3.plot(result.angles_deg, result.modes_vs_angle_hz[:, j], marker="o", ms=2.5, lw=1.2,
                 label=result.mode_labels[j] if j < len(result.mode_labels) else f"mode {j + 1}")
    ax3.set(xlabel="array drive angle [deg]", ylabel="free-free modal frequency [Hz]",
            title="Flexible modes versus array angle (nominal; each curve follows one mode shape)")
    ax3.grid(alpha=0.3)
    ax3.legend(fontsize=8, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.15))
    return {"singular_values": fig1, "robust_analysis": fig2, "modes_vs_array_angle": fig3}
