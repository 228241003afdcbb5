"""Figures of the `satdyn fe` study (from an :class:`satdyn.studies.fe.FEStudy`).

* ``mode_shapes``: the first modes (up to 6) on the tile layout -- out-of-plane modes as the
  transverse displacement w (colour), in-plane modes as the deformed mesh (magnified);
* ``frequencies``: the clamped-free frequencies by mode type;
* ``family`` (when the study has them): the first frequencies of F_1 ... F_28 against n.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

__all__ = ["plot_fe"]


def _mode_panel(ax, result, j):
    xy = result.node_coords
    u, v, w = result.node_shapes[:, 0, j], result.node_shapes[:, 1, j], result.node_shapes[:, 2, j]
    f = result.frequencies_hz[j]
    if result.mode_types[j] == "out-of-plane":
        lim = np.abs(w).max() or 1.0
        sc = ax.scatter(xy[:, 0], xy[:, 1], c=w, s=6, cmap="RdBu_r", vmin=-lim, vmax=lim)
        ax.figure.colorbar(sc, ax=ax, shrink=0.7, label="w (mass-normalised)")
    else:
        amp = np.hypot(u, v).max() or 1.0
        scale = 0.15 * np.ptp(xy, axis=0).max() / amp
        ax.scatter(xy[:, 0], xy[:, 1], s=2, color="0.8")
        ax.scatter(xy[:, 0] + scale * u, xy[:, 1] + scale * v, s=4, color="tab:red")
    for k, c in enumerate(result.tile_centres):
        ax.text(c[0], c[1], str(k + 1), ha="center", va="center", fontsize=6, color="0.3")
    ax.plot([0], [0], "k^", ms=6)
    ax.set(aspect="equal", title=f"mode {j + 1}: {f:.3f} Hz ({result.mode_types[j]})", xlabel="x [m]",
           ylabel="y [m]")
    ax.title.set_fontsize(8)


def plot_fe(result) -> dict:
    """``{"mode_shapes": Figure, "frequencies": Figure}``."""
    m = min(6, len(result.frequencies_hz))
    cols = 3 if m > 2 else m
    rows = int(np.ceil(m / cols))
    shapes = Figure(figsize=(4 * cols, 4.2 * rows), layout="constrained")
    axes = np.atleast_1d(shapes.subplots(rows, cols)).ravel()
    for j in range(m):
        _mode_panel(axes[j], result, j)
    for ax in axes[m:]:
        ax.set_visible(False)
    tag = " (synthetic properties)" if result.properties.get("synthetic") else ""
    shapes.suptitle(f"{result.description}{tag}; P2 = triangle, tile numbers = assembly order", fontsize=9)

    freq = Figure(figsize=(6, 3.5), layout="constrained")
    ax = freq.subplots()
    idx = np.arange(1, len(result.frequencies_hz) + 1)
    for t, marker in (("out-of-plane", "o"), ("in-plane", "s")):
        sel = np.array([x == t for x in result.mode_types])
        ax.semilogy(idx[sel], result.frequencies_hz[sel], marker, label=t)
    ax.set(xlabel="mode", ylabel="frequency [Hz]", title=f"clamped-free modes of F{result.n_tiles}")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    figures = {"mode_shapes": shapes, "frequencies": freq}
    if result.family_frequencies_hz is not None:
        fam = Figure(figsize=(6, 3.8), layout="constrained")
        ax = fam.subplots()
        table = np.array([f[:4] for f in result.family_frequencies_hz])
        n = np.arange(1, len(table) + 1)
        for j in range(table.shape[1]):
            ax.semilogy(n, table[:, j], "o-", ms=3, label=f"mode {j + 1}")
        ax.axvline(result.n_tiles, color="0.6", lw=0.8)
        ax.set(xlabel="tiles n", ylabel="frequency [Hz]", title="clamped-free frequencies of F_1 ... F_28")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
        figures["family"] = fam
    return figures
