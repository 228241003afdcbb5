"""Figures of the `satdyn demo` study."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_rigid_spacecraft_inertia"]


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
