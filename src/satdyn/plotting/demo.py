"""Figures of the `satdyn demo` study."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_rigid_spacecraft_inertia", "plot_flagship"]


def plot_rigid_spacecraft_inertia(result) -> dict[str, Figure]:
    """Principal moments, inertia components and centre of mass versus panel angle.

    Parameters
    ----------
    result : satdyn.demo.RigidSpacecraftInertia

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
    """Figures of the flagship study.

    Parameters
    ----------
    result : satdyn.demo.FlagshipResult

    Returns
    -------
    dict
        ``{"singular_values": ..., "robust_analysis": ..., "modes_vs_array_angle": ...}``
    """
    f = result.frequencies_hz
    fig1 = Figure(figsize=(8, 4.8), layout="constrained")
    ax = fig1.subplots()
    for k, row in enumerate(result.sigma_max_samples):
        ax.loglog(f, row, color="0.7", lw=0.5, label="largest singular value, uncertain samples" if k == 0 else None)
    for i in range(result.sigma_nominal.shape[1]):
        ax.loglog(f, result.sigma_nominal[:, i], lw=1.5, label=f"nominal sigma_{i + 1}")
    for m in result.modes_hz:
        ax.axvline(m, color="k", ls=":", lw=0.6)
    ax.set(xlabel="frequency [Hz]", ylabel="gain [rad s$^{-2}$ / N m]",
           title=f"Torque -> hub angular acceleration ({result.sigma_max_samples.shape[0]} samples, "
                 f"array angle {result.array_angle_deg:g} deg; synthetic data)")
    ax.legend(fontsize=8)

    rs, wc = result.robust_stability, result.worst_case_gain
    fig2 = Figure(figsize=(9, 4.2), layout="constrained")
    a1, a2 = fig2.subplots(1, 2)
    a1.semilogx(rs.frequencies / (2 * np.pi), rs.mu_upper, lw=1)
    a1.set(xlabel="frequency [Hz]", ylabel="mu upper bound",
           title=f"Robust stability: margin in [{rs.lower:.3g}, {rs.upper:.3g}]")
    a2.semilogx(wc.frequencies / (2 * np.pi), wc.gain_upper, lw=1, label="worst-case gain (upper bound)")
    a2.axhline(wc.nominal_gain, color="k", ls="--", lw=0.8, label=f"nominal H-inf {wc.nominal_gain:.3g}")
    a2.set(xlabel="frequency [Hz]", ylabel="gain [rad s$^{-2}$ / N m]",
           title=f"Worst-case gain in [{wc.lower:.3g}, {wc.upper:.3g}]")
    a2.legend(fontsize=8)

    fig3 = Figure(figsize=(6.5, 4.2), layout="constrained")
    ax3 = fig3.subplots()
    for j in range(result.modes_vs_angle_hz.shape[1]):
        ax3.plot(result.angles_deg, result.modes_vs_angle_hz[:, j], marker="o", ms=3)
    ax3.set(xlabel="array drive angle [deg]", ylabel="free-free mode [Hz]",
            title="Flexible modes versus array angle (nominal frequencies)")
    return {"singular_values": fig1, "robust_analysis": fig2, "modes_vs_array_angle": fig3}
