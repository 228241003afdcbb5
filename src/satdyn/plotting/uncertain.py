"""Figures of uncertain systems: Bode / singular values with samples and the worst case, time
responses with envelopes, loop margins (drawn from satdyn.robust result objects)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_uncertain_bode", "plot_uncertain_sigma", "plot_uncertain_time_response", "plot_loop_margins"]

_SAMPLE = {"color": "0.6", "lw": 0.7, "alpha": 0.7}


def _units(result):
    unit = ""
    if result.output_unit or result.input_unit:
        unit = f" [{result.output_unit or '-'} / {result.input_unit or '-'}]"
    return unit


def plot_uncertain_bode(result, *, output: int = 0, input: int = 0) -> dict[str, Figure]:
    """Bode magnitude/phase of one channel: samples (grey), nominal (blue).

    Parameters
    ----------
    result : satdyn.robust.UncertainFrequencyResponse
    output, input : int       channel indices within the result
    """
    w = result.frequencies
    fig = Figure(figsize=(7, 6), layout="constrained")
    ax_m, ax_p = fig.subplots(2, 1, sharex=True)
    for g in result.samples[:, :, output, input]:
        ax_m.loglog(w, np.abs(g), **_SAMPLE)
        ax_p.semilogx(w, np.degrees(np.unwrap(np.angle(g))), **_SAMPLE)
    g0 = result.nominal[:, output, input]
    ax_m.loglog(w, np.abs(g0), color="C0", lw=1.6, label="nominal")
    ax_p.semilogx(w, np.degrees(np.unwrap(np.angle(g0))), color="C0", lw=1.6)
    if len(result.samples):
        ax_m.plot([], [], **_SAMPLE, label=f"{len(result.samples)} samples")
    ax_m.set(ylabel="magnitude" + _units(result),
             title=f"{result.output_names[output]} / {result.input_names[input]}")
    ax_m.legend(fontsize=8)
    ax_p.set(xlabel="frequency [rad/s]", ylabel="phase [deg]")
    return {"bode": fig}


def plot_uncertain_sigma(result) -> dict[str, Figure]:
    """Singular values: samples (grey), nominal, and the worst-case gain per frequency.

    Parameters
    ----------
    result : satdyn.robust.UncertainFrequencyResponse
    """
    w = result.frequencies
    fig = Figure(figsize=(7, 4.5), layout="constrained")
    ax = fig.subplots()
    for sv in result.samples_sv:
        ax.loglog(w, sv[:, 0], **_SAMPLE)
    ax.loglog(w, result.nominal_sv, color="C0", lw=1.4)
    ax.plot([], [], color="C0", label="nominal (all singular values)")
    if len(result.samples_sv):
        ax.plot([], [], **_SAMPLE, label=f"max singular value, {len(result.samples_sv)} samples")
    if result.worst_case_upper is not None:
        ax.loglog(w, result.worst_case_upper, color="C3", lw=1.6, ls="--", label="worst-case gain (upper bound)")
    ax.set(xlabel="frequency [rad/s]", ylabel="singular value" + _units(result),
           title=f"{len(result.output_names)} outputs x {len(result.input_names)} inputs")
    ax.legend(fontsize=8)
    return {"sigma": fig}


def plot_uncertain_time_response(result) -> dict[str, Figure]:
    """Time responses: samples, envelope, nominal and the worst sample, one axis per output.

    Parameters
    ----------
    result : satdyn.robust.UncertainTimeResponse
    """
    t = result.time
    p = result.nominal.shape[1]
    fig = Figure(figsize=(7, 2.2 + 1.8 * p), layout="constrained")
    axes = np.atleast_1d(fig.subplots(p, 1, sharex=True, squeeze=False)[:, 0])
    unit = f" [{result.output_unit}]" if result.output_unit else ""
    for k, ax in enumerate(axes):
        ax.fill_between(t, result.envelope_low[:, k], result.envelope_high[:, k], color="C0", alpha=0.15,
                        label="envelope")
        for y in result.samples[:, :, k]:
            ax.plot(t, y, **_SAMPLE)
        ax.plot(t, result.nominal[:, k], color="C0", lw=1.5, label="nominal")
        if result.worst_index >= 0:
            ax.plot(t, result.samples[result.worst_index, :, k], color="C3", lw=1.2, label="worst sample")
        ax.set(ylabel=f"{result.output_names[k]}{unit}")
    axes[0].legend(fontsize=8)
    axes[0].set_title(f"{result.kind} response, {len(result.samples)} samples")
    axes[-1].set(xlabel="time [s]")
    return {f"{result.kind}_response": fig}


def plot_loop_margins(result) -> dict[str, Figure]:
    """Disk margins (loop at a time and multiloop) and classical phase margins, nominal and samples.

    Parameters
    ----------
    result : satdyn.robust.LoopMarginsResult
    """
    fig = Figure(figsize=(8, 4), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    sets = [result.nominal, *result.samples]
    m = result.nominal.disk_input.size
    for j, s in enumerate(sets):
        style = {"color": "C0", "marker": "o", "zorder": 3} if j == 0 else {"color": "0.6", "marker": ".", "alpha": 0.6}
        ax1.scatter(np.arange(m), s.disk_input, **style)
        ax1.scatter([m], [s.multiloop_disk_input], **style)
        ax2.scatter(np.arange(m), s.phase_margin_input, **style)
    ax1.set_xticks(range(m + 1), [f"u{k}" for k in range(m)] + ["all"])
    ax1.set(ylabel="disk margin alpha [-]", title=f"input disk margins (skew {result.skew:g})")
    ax2.set_xticks(range(m), [f"u{k}" for k in range(m)])
    ax2.set(ylabel="phase margin [deg]", title="classical phase margins, loop at a time")
    ax1.scatter([], [], color="C0", marker="o", label="nominal")
    if result.samples:
        ax1.scatter([], [], color="0.6", marker=".", label=f"{len(result.samples)} samples")
    ax1.legend(fontsize=8)
    return {"loop_margins": fig}
