"""Figures of the `satdyn assembly` study (paper 000, arXiv:2409.06017, Figs. 11-17).

From an :class:`~satdyn.studies.assembly.AssemblyStudy`:

* ``sigma``: sigma_max(W -> omega'_G) of every grid point along the BFS and the H-infinity
  paths (Fig. 11), when the study sampled it;
* ``traces``: the per-grid-point metric of each cost, BFS against the weighted path
  (Figs. 12, 15, 16, 17; Fig. 14 for the whole assembly);
* ``plan``: the paths drawn on the tile grid (Fig. 13).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_assembly"]


def _sigma(study):
    s = study.sigma
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, name, title in zip(axes, ("bfs", "weighted"), ("(a) BFS (hop count)", "(b) H-inf weighted")):
        curves = np.asarray(s[name])
        for k in range(curves.shape[0]):
            ax.semilogx(s["omega"], 20 * np.log10(curves[k]), lw=0.6, color=(k / max(1, curves.shape[0] - 1), 0.2, 0.6))
        ax.set(xlabel="frequency [rad/s]", title=f"{title}: {curves.shape[0]} grid points")
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("sigma_max  W_ext(C_j) -> omega'_G  [dB]")
    fig.suptitle("Fig. 11 analogue: frozen closed loops along the F_27 walk", fontsize=10)
    return fig


def _traces(study):
    comps = list(study.comparisons.values())
    fig = Figure(figsize=(11, 2.6 * len(comps) + 0.6), layout="constrained")
    axes = np.atleast_1d(fig.subplots(len(comps), 1))
    for ax, c in zip(axes, comps):
        if c.bfs is not None:
            ax.plot(c.bfs.trace, ".-", ms=3, lw=0.7, label=f"BFS  (sum {c.bfs.cumulative:.4g})")
        if c.weighted is not None:
            ax.plot(c.weighted.trace, ".-", ms=3, lw=0.7, label=f"weighted  (sum {c.weighted.cumulative:.4g})")
        paper = "" if c.paper_percent is None else f"; paper {c.paper_percent:g} %"
        ax.set(title=f"{c.label}: BFS {c.percent_higher:+.2f} % vs weighted{paper}",
               ylabel="value per grid point\n(SI, linear)")
        ax.ticklabel_format(axis="y", useOffset=False)  # mu sits at 0.2000x: no '+2e-1' offset
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[-1].set_xlabel("grid point (14 per move)")
    return fig


def _plan(study):
    comps = [c for c in study.comparisons.values() if c.weighted is not None]
    fig = Figure(figsize=(3.4 * (len(comps) + 1), 6.2), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(comps) + 1, sharey=True))
    centres = np.asarray(study.centres)
    ref = comps[0].bfs if comps else None
    for ax, (name, path) in zip(axes, [("BFS", ref)] + [(c.cost, c.weighted) for c in comps]):
        for j, (x, y) in enumerate(centres):
            ax.add_patch(_square(x, y))
            # the number in the tile's corner, so the path markers at the centres do not hide it
            ax.text(x - 0.42, y + 0.40, str(j + 1), ha="left", va="top", fontsize=7, color="0.4")
        ax.add_patch(_square(*study.stack, color="0.75"))
        ax.text(*study.stack, "stack", ha="center", va="center", fontsize=7)
        if path is not None:
            for nodes in path.nodes:
                tiles = [n for n in nodes if isinstance(n, tuple)]
                xy = np.array([centres[j - 1] for j, _ in tiles])
                ax.plot(xy[:, 0], xy[:, 1], "-", lw=1.2, alpha=0.8)
                for (_j, a), (x, y) in zip(tiles, xy):
                    ax.plot(x, y, "o", ms=5, color="tab:green" if a == 1 else "tab:red")
        ax.set(title=name, xlabel="x [m]", aspect="equal", xlim=(-2.2, 2.2), ylim=(-1.2, 7.2))
    axes[0].set_ylabel("y [m] (structure frame; hub below)")
    fig.suptitle("Fig. 13 analogue: green = R1 docked, red = R2 docked", fontsize=10)
    return fig


def _square(x, y, color="0.92"):
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.48, y - 0.48), 0.96, 0.96, facecolor=color, edgecolor="0.6", lw=0.5)


def plot_assembly(study) -> dict:
    """{name: Figure} of an AssemblyStudy (module docstring)."""
    figs = {"traces": _traces(study)}
    if study.mode == "example":
        figs["plan"] = _plan(study)
    if study.sigma:
        figs["sigma"] = _sigma(study)
    return figs
