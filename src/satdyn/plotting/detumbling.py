"""Figures of the `satdyn detumbling` study (the paper's Figs. 5-11 and the controller comparison)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_detumbling_run", "plot_detumbling_experiment", "plot_detumbling_study"]

_XYZ = ("x", "y", "z")


def _title(run) -> str:
    extra = "" if run.status == "completed" else f" -- stopped at {run.t[-1]:.2f} s ({run.status})"
    return f"controller {run.kind}{extra}"


def _components(ax, t, values, label, unit):
    for k, axis in enumerate(_XYZ):
        ax.plot(t, values[:, k], lw=1.0, label=f"${label}$ {axis}")
    ax.plot(t, np.linalg.norm(values, axis=1), "k--", lw=0.8, label=f"$|{label}|$")
    ax.set(xlabel="t [s]", ylabel=f"${label}$ [{unit}]")
    ax.legend(fontsize=7, ncol=4)
    ax.grid(alpha=0.3)


def plot_detumbling_run(run) -> dict[str, Figure]:
    """Figures of one closed-loop run (:class:`satdyn.detumbling.DetumblingRun`).

    Returns
    -------
    dict
        ``tug1_wrench`` (Fig. 5), ``tug2_wrench`` (Fig. 6), ``link_rates`` (Fig. 7),
        ``lyapunov`` (Fig. 8 with the rate check), ``parameter_estimates`` (Fig. 9a),
        ``position_estimates`` (Fig. 9b), ``tug_velocities`` (Figs. 10-11), ``hinge_and_pose``.
    """
    t = run.t
    figs = {}
    for i in range(2):
        fig = Figure(figsize=(9, 3.6), layout="constrained")
        ax_f, ax_t = fig.subplots(1, 2)
        _components(ax_f, t, run.wrenches[:, i, :3], "f", "N")
        _components(ax_t, t, run.wrenches[:, i, 3:], r"\tau", "N m")
        fig.suptitle(f"Tug {i + 1} (grasps Link-{i + 1}): force and torque at the grasp point, world frame; "
                     + _title(run), fontsize=9)
        figs[f"tug{i + 1}_wrench"] = fig

    fig = Figure(figsize=(12, 3.6), layout="constrained")
    axes = fig.subplots(1, 3)
    _components(axes[0], t, run.nu[:, 3:6], r"\omega_1", "rad/s")
    _components(axes[1], t, run.nu[:, 6:9], r"\omega_2", "rad/s")
    _components(axes[2], t, run.nu[:, :3], "v", "m/s")
    axes[0].set_title("Link-1 angular velocity", fontsize=9)
    axes[1].set_title("Link-2 angular velocity", fontsize=9)
    axes[2].set_title("velocity of the hinge point H", fontsize=9)
    fig.suptitle(_title(run), fontsize=9)
    figs["link_rates"] = fig

    fig = Figure(figsize=(9, 3.6), layout="constrained")
    ax_v, ax_r = fig.subplots(1, 2)
    ax_v.plot(t, run.V, lw=1.2)
    ax_v.set(xlabel="t [s]", ylabel="V [J]", title="Lyapunov function")
    ax_v.grid(alpha=0.3)
    ax_r.plot(t, run.V_rate, lw=1.2, label=r"$-s^T(K+D)s$")
    ax_r.plot(t[1:-1], (run.V[2:] - run.V[:-2]) / (t[2:] - t[:-2]), "--", lw=1.0, label="dV/dt (differences)")
    ax_r.set(xlabel="t [s]", ylabel="[W]", title="rate of V")
    ax_r.legend(fontsize=7)
    ax_r.grid(alpha=0.3)
    fig.suptitle(_title(run), fontsize=9)
    figs["lyapunov"] = fig

    n = run.pi_hat.shape[2]
    fig = Figure(figsize=(10, 4.2), layout="constrained")
    axes = fig.subplots(1, 2)
    names = (["m1", "m2"] if n > 10 else ["m1"])
    mass_idx = [0, 10] if n > 10 else [0]
    for ax, i in zip(axes, range(2)):
        for name, j in zip(names, mass_idx):
            line, = ax.plot(t, run.pi_hat[:, i, j], lw=1.0, label=f"{name} est.")
            ax.axhline(run.pi_true[j], color=line.get_color(), ls=":", lw=0.8)
        # each tug adapts the inertia of the link it holds (the other link's j has zero regressor rows)
        own = ((4, "J1xx"), (5, "J1yy"), (6, "J1zz")) if (i == 0 or n <= 10) else ((14, "J2xx"), (15, "J2yy"),
                                                                                   (16, "J2zz"))
        for j, label in own:
            line, = ax.plot(t, run.pi_hat[:, i, j], lw=1.0, label=f"{label} est.")
            ax.axhline(run.pi_true[j], color=line.get_color(), ls=":", lw=0.8)
        if n > 20:
            for j, label in ((20, "k_x"), (23, "xi_x")):
                line, = ax.plot(t, run.pi_hat[:, i, j], lw=1.0, label=f"{label} est.")
                ax.axhline(run.pi_true[j], color=line.get_color(), ls=":", lw=0.8)
        ax.set(xlabel="t [s]", ylabel="estimate [SI]", title=f"tug {i + 1} parameter estimates (dotted: truth)")
        ax.legend(fontsize=7, ncol=2)
        ax.grid(alpha=0.3)
    figs["parameter_estimates"] = fig

    fig = Figure(figsize=(10, 4.2), layout="constrained")
    ax_c, ax_d = fig.subplots(1, 2)
    for i in range(2):
        for link, (m_idx, h_idx) in enumerate(((0, slice(1, 4)), (10, slice(11, 14)))[: (2 if n > 10 else 1)]):
            m_hat = run.pi_hat[:, i, m_idx]
            with np.errstate(divide="ignore", invalid="ignore"):
                c_hat = run.pi_hat[:, i, h_idx] / m_hat[:, None]
            ax_c.plot(t, np.linalg.norm(c_hat, axis=1), lw=1.0, label=f"tug {i + 1}: |c{link + 1}| est.")
    for link, (m_idx, h_idx) in enumerate(((0, slice(1, 4)), (10, slice(11, 14)))[: (2 if n > 10 else 1)]):
        ax_c.axhline(np.linalg.norm(run.pi_true[h_idx] / run.pi_true[m_idx]), color="k", ls=":", lw=0.8)
    ax_c.set(xlabel="t [s]", ylabel="[m]", title="CoM offsets h/m (dotted: truth)")
    ax_c.legend(fontsize=7)
    ax_c.grid(alpha=0.3)
    for i in range(2):
        for k, axis in enumerate(_XYZ):
            line, = ax_d.plot(t, run.d_hat[:, i, k], lw=1.0, label=f"$\\hat d_{{{i + 1}{axis}}}$")
            ax_d.axhline(run.d_true[i, k], color=line.get_color(), ls=":", lw=0.8)
    ax_d.set(xlabel="t [s]", ylabel="[m]", title="grasp-point estimates (dotted: truth)")
    ax_d.legend(fontsize=7, ncol=3)
    ax_d.grid(alpha=0.3)
    figs["position_estimates"] = fig

    fig = Figure(figsize=(9, 6.4), layout="constrained")
    axes = fig.subplots(2, 2)
    for i in range(2):
        _components(axes[i, 0], t, run.tug_twists[:, i, :3], f"v_{{tug{i + 1}}}", "m/s")
        _components(axes[i, 1], t, run.tug_twists[:, i, 3:], f"\\omega_{{tug{i + 1}}}", "rad/s")
    fig.suptitle("Tug velocities (grasp-point twists); " + _title(run), fontsize=9)
    figs["tug_velocities"] = fig

    fig = Figure(figsize=(9, 3.6), layout="constrained")
    ax_h, ax_p = fig.subplots(1, 2)
    _components(ax_h, t, run.hinge_angle, r"\theta_*", "rad")
    ax_h.set_title("hinge angle (Link-2 relative to Link-1)", fontsize=9)
    _components(ax_p, t, run.position_error, "p - p_d", "m")
    ax_p.set_title("position error of H", fontsize=9)
    figs["hinge_and_pose"] = fig
    return figs


def plot_detumbling_experiment(experiment) -> dict[str, Figure]:
    """Controller comparison and hinge sweep (:class:`satdyn.detumbling.DetumblingExperiment`).

    Returns
    -------
    dict
        ``experiment_rates`` (|omega_1|, |omega_2|, |v| of every run, log scale) and
        ``experiment_lyapunov`` (V of every run).
    """
    fig = Figure(figsize=(12, 4), layout="constrained")
    axes = fig.subplots(1, 3)
    fig_v = Figure(figsize=(6, 4), layout="constrained")
    ax_v = fig_v.subplots()
    for label, run in experiment.runs.items():
        style = "-" if "x" not in label else "--"
        for ax, sl in zip(axes, (slice(3, 6), slice(6, 9), slice(0, 3))):
            ax.semilogy(run.t, np.maximum(np.linalg.norm(run.nu[:, sl], axis=1), 1e-12), style, lw=1.0, label=label)
        ax_v.semilogy(run.t, np.maximum(run.V, 1e-12), style, lw=1.0, label=label)
    for ax, name in zip(axes, (r"$|\omega_1|$ [rad/s]", r"$|\omega_2|$ [rad/s]", "|v| [m/s]")):
        ax.set(xlabel="t [s]", ylabel=name)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.suptitle("B (full chain), known, A (paper composite), R (rigid); xN: hinge stiffness and damping scaled "
                 "(runs ending early stopped at |theta*| -> pi)", fontsize=9)
    ax_v.set(xlabel="t [s]", ylabel="V [J]", title="V (a Lyapunov function for B/known only)")
    ax_v.legend(fontsize=7)
    ax_v.grid(alpha=0.3)
    return {"experiment_rates": fig, "experiment_lyapunov": fig_v}


def plot_detumbling_study(study) -> dict[str, Figure]:
    """All figures of a :class:`satdyn.detumbling.DetumblingStudy`."""
    figs = plot_detumbling_run(study.run)
    if study.experiment is not None:
        figs.update(plot_detumbling_experiment(study.experiment))
    return figs
