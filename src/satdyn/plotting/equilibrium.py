"""Figures of the `satdyn equilibrium` study (paper Figs. 5 and 6)."""

from __future__ import annotations

import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure

__all__ = ["plot_equilibrium_study"]


def plot_equilibrium_study(result) -> dict[str, Figure]:
    """Relative-error map over (theta1, theta2) and singular values at the Fig. 6 point.

    Parameters
    ----------
    result : satdyn.studies.equilibrium.EquilibriumStudy

    Returns
    -------
    dict
        ``{"fig5_relative_error": Figure, "fig6_singular_values": Figure}``
    """
    fig5 = Figure(figsize=(6.4, 5.0), layout="constrained")
    ax = fig5.subplots()
    err = np.clip(result.relative_error, 1e-16, None)
    mesh = ax.pcolormesh(result.theta1_deg, result.theta2_deg, err, shading="nearest",
                         norm=LogNorm(vmin=max(err.min(), 1e-14), vmax=max(err.max(), 1e-13)), cmap="viridis")
    fig5.colorbar(mesh, ax=ax, label=r"$\|(G_1 - G_2) G_2^{-1}\|_\infty$")
    soft = result.stiffness_sigma_min <= result.stiffness_threshold
    if soft.any():
        t1, t2 = np.meshgrid(result.theta1_deg, result.theta2_deg)
        ax.plot(t1[soft], t2[soft], "x", color="w", ms=4,
                label=rf"$\sigma_{{min}}(K) \leq {result.stiffness_threshold:g}$ N m/rad")
        ax.legend(loc="upper right", fontsize=7)
    ax.set(xlabel=r"$\bar\theta_1$ [deg]", ylabel=r"$\bar\theta_2$ [deg]",
           title=f"LFT model vs numerical trim + linearisation ({result.geometry})\n"
                 f"max {np.nanmax(result.relative_error):.1e}; where stiff: {result.max_error_stiff:.1e}")
    ax.title.set_fontsize(9)

    fig6 = Figure(figsize=(6.4, 4.5), layout="constrained")
    ax = fig6.subplots()
    w = result.frequencies
    n = result.sigma_samples.shape[0]
    for k, s in enumerate(result.sigma_samples):
        ax.loglog(w, s[:, 0], color="0.75", lw=0.5, label=f"{n} uncertain samples" if k == 0 else None)
        ax.loglog(w, s[:, 1], color="0.75", lw=0.5)
    ax.loglog(w, result.sigma_nominal, color="C0", lw=2)
    ax.lines[-2].set_label("LFT model, nominal")
    ax.loglog(w, result.sigma_comparator, "--", color="C3", lw=1.2)
    ax.lines[-2].set_label("numerical trim + linearisation")
    p = result.fig6_point_deg
    ax.set(xlabel=r"$\omega$ [rad/s]", ylabel=r"$\sigma(G(j\omega))$ [rad/(N m)]",
           title=rf"$\delta T \to \delta\theta$ at $\bar\theta$ = ({p[0]:g}, {p[1]:g}) deg, {result.geometry}")
    ax.legend(fontsize=8)
    return {"fig5_relative_error": fig5, "fig6_singular_values": fig6}
