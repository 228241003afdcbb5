"""Frequency grids for mu sweeps, built from the system's modes, and local refinement.

Arguments:
    A : ndarray (n, n), state matrix of the nominal system (continuous time).
    points : int, number of log-spaced background points.
    frequencies : ndarray (K,), rad/s.
    values : ndarray (K,), a quantity sampled on ``frequencies`` (e.g. a mu upper bound).

A mode p = -zeta w_n + j w_d has a resonance peak of relative width ~ 2 zeta, which a
log grid of a few hundred points misses when zeta ~ 1e-3. ``modal_frequency_grid``
therefore adds, for every oscillatory mode, points at w_d (1 + c zeta) for
c in {0, +-0.25, +-0.5, +-1, +-2, +-4}, on top of a log-spaced background from a decade
below the slowest to a decade above the fastest mode; ``refine_peaks`` then inserts
finer points around the largest values of a sampled quantity.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_float_array
from .checks import check_int

__all__ = ["modal_frequency_grid", "refine_peaks", "check_frequencies"]

_OFFSETS = np.array([-4.0, -2.0, -1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0, 2.0, 4.0])


def modal_frequency_grid(A, points: int = 120) -> np.ndarray:
    """Sorted frequencies (rad/s), including 0, dense around every mode of A."""
    A = as_float_array(A, "A")
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"`A` must be a square (n, n) state matrix; got shape {A.shape}")
    points = check_int(points, "points", 2)
    poles = np.linalg.eigvals(A) if A.size else np.zeros(0, complex)
    mags = np.abs(poles)
    nonzero = mags[mags > 1e-12]
    if nonzero.size:
        low, high = nonzero.min() / 10, nonzero.max() * 10
    else:
        low, high = 1e-2, 1e2
    grid = [np.zeros(1), np.geomspace(low, high, points)]
    for p in poles:
        wd = abs(p.imag)
        if wd <= 1e-12:
            continue
        zeta = -p.real / max(abs(p), 1e-300)
        width = max(abs(zeta), 1e-9)
        pts = wd * (1 + _OFFSETS * width)
        grid.append(pts[pts > 0])
        grid.append(np.array([abs(p)]))
    freqs = np.unique(np.concatenate(grid))
    return freqs


def refine_peaks(frequencies, values, count: int = 3, points: int = 12) -> np.ndarray:
    """New frequencies between the neighbours of the ``count`` largest local maxima."""
    w = check_frequencies(frequencies)
    v = as_float_array(values, "values")
    if v.shape != np.shape(frequencies):
        raise ValueError(f"`values` must have the shape of `frequencies` {np.shape(frequencies)}; got {v.shape}")
    if not np.array_equal(w, np.ravel(np.asarray(frequencies, dtype=float))):
        raise ValueError("`frequencies` must be sorted increasing without repeats (one value per frequency)")
    count = check_int(count, "count", 1)
    points = check_int(points, "points", 1)
    if w.size < 2:
        return np.zeros(0)
    interior = np.r_[v[0] >= v[1], (v[1:-1] >= v[:-2]) & (v[1:-1] >= v[2:]), v[-1] >= v[-2]]
    peaks = np.flatnonzero(interior)
    peaks = peaks[np.argsort(-v[peaks])][:count]
    new = []
    for k in peaks:
        lo = w[max(k - 1, 0)]
        hi = w[min(k + 1, w.size - 1)]
        if hi > lo:
            new.append(np.linspace(lo, hi, points + 2)[1:-1])
    return np.unique(np.concatenate(new)) if new else np.zeros(0)


def check_frequencies(frequencies, name: str = "frequencies") -> np.ndarray:
    """Sorted unique 1-D array of finite frequencies >= 0 (rad/s), or ValueError naming it."""
    try:
        w = np.asarray(frequencies, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a 1-D array of frequencies (rad/s)") from None
    if w.ndim != 1 or w.size == 0 or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"`{name}` must be a non-empty 1-D array of finite values >= 0 (rad/s)")
    return np.unique(w)
