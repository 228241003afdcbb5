"""Figures of the `satdyn detumbling` study (the paper's Figs. 5-11 and the controller comparison)."""

from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_detumbling_run", "plot_detumbling_experiment", "plot_detumbling_study", "plot_tug_limits",
           "plot_gain_sweep"]

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


# parameter groups of the estimate figures: (title, unit, [(index in pi, label)]) per tug;
# one axis per unit (masses, inertias, hinge stiffness, hinge damping)
def _parameter_groups(n: int, tug: int):
    link = 0 if (tug == 0 or n <= 10) else 1          # each tug adapts the inertia of the link it holds
    base, k = 10 * link, link + 1
    groups = [("masses", "kg", [(0, "$m_1$")] + ([(10, "$m_2$")] if n > 10 else [])),
              (f"Link-{k} inertia about H", "kg m$^2$",
               [(base + 4, f"$J_{{{k},xx}}$"), (base + 5, f"$J_{{{k},yy}}$"), (base + 6, f"$J_{{{k},zz}}$")])]
    if n > 20:
        groups += [("hinge stiffness", "N m/rad", [(20, "$k_x$"), (21, "$k_y$"), (22, "$k_z$")]),
                   ("hinge damping", "N m s/rad", [(23, r"$\xi_x$"), (24, r"$\xi_y$"), (25, r"$\xi_z$")])]
    return groups


def _truth_legend(ax, **kwargs):
    """Legend with the estimate lines and one entry explaining the dotted true values."""
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], color="k", ls=":", lw=1.0))
    labels.append("true value (dotted, same colour)")
    ax.legend(handles, labels, **kwargs)


def _parameter_estimates(run) -> Figure:
    """Estimates of each tug, one axis per physical unit, truth dotted in the same colour."""
    t, n = run.t, run.pi_hat.shape[2]
    n_groups = len(_parameter_groups(n, 0))
    fig = Figure(figsize=(3.6 * n_groups + 1, 6.6), layout="constrained")
    axes = np.atleast_2d(fig.subplots(2, n_groups, squeeze=False))
    for tug in range(2):
        for ax, (title, unit, entries) in zip(axes[tug], _parameter_groups(n, tug)):
            for j, label in entries:
                line, = ax.plot(t, run.pi_hat[:, tug, j], lw=1.2, label=f"{label} estimate")
                ax.axhline(run.pi_true[j], color=line.get_color(), ls=":", lw=1.0)
            ax.set(xlabel="t [s]", ylabel=f"[{unit}]", title=f"tug {tug + 1}: {title}")
            ax.grid(alpha=0.3)
            _truth_legend(ax, fontsize=7)
    fig.suptitle("Parameter estimates (each tug adapts its own copy); " + _title(run), fontsize=10)
    return fig


def _position_estimates(run) -> Figure:
    """Estimated CoM offsets |h/m| of both links and grasp points of both tugs, with their truth."""
    t, n = run.t, run.pi_hat.shape[2]
    fig = Figure(figsize=(13, 4.4), layout="constrained")
    ax_c, *ax_d = fig.subplots(1, 3)
    links = ((0, slice(1, 4)), (10, slice(11, 14)))[: (2 if n > 10 else 1)]
    for link, (m_idx, h_idx) in enumerate(links):
        truth = np.linalg.norm(run.pi_true[h_idx] / run.pi_true[m_idx])
        line = None
        for tug, style in zip(range(2), ("-", "--")):
            m_hat = run.pi_hat[:, tug, m_idx]
            with np.errstate(divide="ignore", invalid="ignore"):
                c_hat = np.linalg.norm(run.pi_hat[:, tug, h_idx] / m_hat[:, None], axis=1)
            line, = ax_c.plot(t, c_hat, style, lw=1.2, color=f"C{link}",
                              label=f"$|c_{link + 1}|$ estimated by tug {tug + 1}")
        ax_c.axhline(truth, color=line.get_color(), ls=":", lw=1.0)
    ax_c.set(xlabel="t [s]", ylabel="[m]", title="CoM offset of each link from H, |h/m|")
    ax_c.grid(alpha=0.3)
    _truth_legend(ax_c, fontsize=7)
    for tug, ax in enumerate(ax_d):
        for k, axis in enumerate(_XYZ):
            line, = ax.plot(t, run.d_hat[:, tug, k], lw=1.2, label=f"$\\hat d_{{{tug + 1}{axis}}}$ estimate")
            ax.axhline(run.d_true[tug, k], color=line.get_color(), ls=":", lw=1.0)
        ax.set(xlabel="t [s]", ylabel="[m]", title=f"tug {tug + 1}: grasp point from H, Link-{tug + 1} frame")
        ax.grid(alpha=0.3)
        _truth_legend(ax, fontsize=7)
    fig.suptitle("Position estimates; " + _title(run), fontsize=10)
    return fig



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
        ax_f.set_title(f"tug {i + 1} force", fontsize=9)
        ax_t.set_title(f"tug {i + 1} torque", fontsize=9)
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
    ax_v.plot(t, run.V, lw=1.2, label="V (tracking + estimate errors)")
    ax_v.set(xlabel="t [s]", ylabel="V [J]", title="Lyapunov function")
    ax_v.legend(fontsize=7)
    ax_v.grid(alpha=0.3)
    ax_r.plot(t, run.V_rate, lw=1.2, label=r"$-s^T(K+D)s$")
    ax_r.plot(t[1:-1], (run.V[2:] - run.V[:-2]) / (t[2:] - t[:-2]), "--", lw=1.0, label="dV/dt (differences)")
    ax_r.set(xlabel="t [s]", ylabel="dV/dt [W]", title="rate of V")
    ax_r.legend(fontsize=7)
    ax_r.grid(alpha=0.3)
    fig.suptitle(_title(run), fontsize=9)
    figs["lyapunov"] = fig

    figs["parameter_estimates"] = _parameter_estimates(run)
    figs["position_estimates"] = _position_estimates(run)

    fig = Figure(figsize=(9, 6.4), layout="constrained")
    axes = fig.subplots(2, 2)
    for i in range(2):
        _components(axes[i, 0], t, run.tug_twists[:, i, :3], f"v_{{tug{i + 1}}}", "m/s")
        _components(axes[i, 1], t, run.tug_twists[:, i, 3:], f"\\omega_{{tug{i + 1}}}", "rad/s")
        axes[i, 0].set_title(f"tug {i + 1} linear velocity", fontsize=9)
        axes[i, 1].set_title(f"tug {i + 1} angular velocity", fontsize=9)
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
    """Controller comparison and hinge sweep (:class:`satdyn.studies.detumbling.DetumblingExperiment`).

    Returns
    -------
    dict
        ``experiment_rates`` (|omega_1|, |omega_2|, |v| of every run, log scale) and
        ``experiment_lyapunov`` (V of every run).
    """
    fig = Figure(figsize=(12, 4), layout="constrained")
    axes = fig.subplots(1, 3)
    runs = experiment.runs
    columns = 4
    rows = -(-len(runs) // columns)
    fig_v = Figure(figsize=(3.2 * columns, 2.8 * rows + 0.6), layout="constrained")
    axes_v = np.atleast_1d(fig_v.subplots(rows, columns, squeeze=False).ravel())
    for label, run in runs.items():
        style = "-" if "x" not in label else "--"
        for ax, sl in zip(axes, (slice(3, 6), slice(6, 9), slice(0, 3))):
            ax.semilogy(run.t, np.maximum(np.linalg.norm(run.nu[:, sl], axis=1), 1e-12), style, lw=1.0, label=label)
    for ax, name in zip(axes, (r"$|\omega_1|$ [rad/s]", r"$|\omega_2|$ [rad/s]", "|v| [m/s]")):
        ax.set(xlabel="t [s]", ylabel=name)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6, ncol=2)
    axes[0].set_title("Link-1 angular rate", fontsize=9)
    axes[1].set_title("Link-2 angular rate", fontsize=9)
    axes[2].set_title("velocity of the hinge point H", fontsize=9)
    fig.suptitle("B (full chain), known, A (paper composite), R (rigid), velocity (velocity-only B); xN: hinge "
                 "stiffness and damping scaled "
                 "(runs ending early stopped at |theta*| -> pi)", fontsize=9)
    # one panel per run: the V of different runs differ by orders of magnitude (their
    # estimate-error terms), so on one axis they overlap into a single band
    for k, (ax, (label, run)) in enumerate(zip(axes_v, runs.items())):
        ax.plot(run.t, run.V, color=f"C{k}", lw=1.2, label=f"V, run {label}")
        ax.set(xlabel="t [s]", ylabel="V [J]")
        status = "" if run.status == "completed" else f" (stopped {run.t[-1]:.2f} s)"
        ax.set_title(f"{label}{status}", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")
    for ax in axes_v[len(runs):]:
        ax.set_visible(False)
    fig_v.suptitle("Lyapunov function V of each run (a Lyapunov function for B, known, velocity only; "
                   "own y-scale per panel)", fontsize=10)
    return {"experiment_rates": fig, "experiment_lyapunov": fig_v}


def plot_tug_limits(comparison) -> dict[str, Figure]:
    """Rates of B with ideal tugs, with tug masses, and with masses and thrust saturation
    (:class:`satdyn.studies.detumbling.TugLimitsComparison`)."""
    fig = Figure(figsize=(12, 4), layout="constrained")
    axes = fig.subplots(1, 3)
    for k, (label, run) in enumerate(comparison.runs.items()):
        st = comparison.metrics[label].settling_time_s
        for ax, sl, key in zip(axes, (slice(3, 6), slice(6, 9), slice(0, 3)), ("omega1", "omega2", "v")):
            ax.semilogy(run.t, np.maximum(np.linalg.norm(run.nu[:, sl], axis=1), 1e-12), color=f"C{k}", lw=1.0,
                        label=f"{label} (settles {st[key]:.1f} s)")
    for ax, name, title in zip(axes, (r"$|\omega_1|$ [rad/s]", r"$|\omega_2|$ [rad/s]", "|v| [m/s]"),
                               ("Link-1 angular rate", "Link-2 angular rate", "velocity of the hinge point H")):
        ax.axhline(0.05, color="grey", ls=":", lw=0.8, label="settling band 0.05")
        ax.set(xlabel="t [s]", ylabel=name)
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    t = comparison.tug
    fig.suptitle(f"controller B with the tugs' limits: {t.mass:g} kg tugs, 6 thrusters of {t.max_thrust:g} N "
                 f"on a {t.arm:g} m arm", fontsize=10)
    return {"tug_limits": fig}


def plot_gain_sweep(sweep) -> dict[str, Figure]:
    """Settling time and peak torque over the (K scale, Gamma_pi) grid
    (:class:`satdyn.studies.detumbling.GainSweep`); cells that do not settle are marked."""
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    axes = fig.subplots(1, 2)
    panels = ((sweep.settling_time_s, "settling time (all rates < 0.05) [s]", "settling time", "viridis"),
              (sweep.peak_torque, "peak tug torque max(|tau_1|, |tau_2|) [N m]", "peak torque", "magma"))
    nK, nG = sweep.settling_time_s.shape
    for ax, (values, unit, title, cmap) in zip(axes, panels):
        shown = np.ma.masked_invalid(np.where(np.isfinite(values), values, np.nan))
        colours = matplotlib.colormaps[cmap].with_extremes(bad="lightgrey")  # not settled: grey
        mesh = ax.pcolormesh(np.arange(nG + 1) - 0.5, np.arange(nK + 1) - 0.5, shown, cmap=colours, shading="flat")
        fig.colorbar(mesh, ax=ax, label=unit)
        for i in range(nK):
            for j in range(nG):
                finite = np.isfinite(values[i, j])
                text = f"{values[i, j]:.1f}" if finite else f"> {sweep.duration:g}"
                dark = not finite or mesh.norm(values[i, j]) > 0.6  # dark text on the bright end of the map
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color="k" if dark else "w")
        ax.set_xticks(range(nG), [f"{g:g}" for g in sweep.Gamma_pi])
        ax.set_yticks(range(nK), [f"{k:g}" for k in sweep.K_scales])
        ax.set(xlabel=r"adaptation gain $\Gamma_\pi$ [parameter units$^2$/(J s)]",
               ylabel=r"gain scale of $K$ (1 = paper's $K$) [-]")
        ax.set_title(title, fontsize=9)
    fig.suptitle(f"controller B: gain sensitivity ({sweep.duration:g} s runs; '> T': not settled within the run)",
                 fontsize=10)
    return {"gain_sweep": fig}


def plot_detumbling_study(study) -> dict[str, Figure]:
    """All figures of a :class:`satdyn.studies.detumbling.DetumblingStudy`."""
    figs = plot_detumbling_run(study.run)
    if study.experiment is not None:
        figs.update(plot_detumbling_experiment(study.experiment))
    if getattr(study, "tug_limits", None) is not None:
        figs.update(plot_tug_limits(study.tug_limits))
    if getattr(study, "sweep", None) is not None:
        figs.update(plot_gain_sweep(study.sweep))
    return figs
