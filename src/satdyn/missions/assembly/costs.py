"""The four closed-loop metrics of paper 000 (section 3.2, eqs. 16-20) per frozen closed loop.

Each metric is computed for every frozen closed loop (grid point) and summed over the
2z = 14 grid points of an edge; the four are never combined (one Dijkstra run each):

* ``"hinf_wrench"``: ||W at C_j -> omega'_G||_inf (3 x 6, exact level-set H-infinity norm);
* ``"h2_wrench"``: ||W at C_j -> Theta_G||_2 (3 x 6, Lyapunov);
* ``"hinf_sensitivity"``: ||d_t -> e_t||_inf, the input sensitivity S_i (3 x 3), with the
  modulus / gain / phase margins it guarantees (:func:`sensitivity_margins`);
* ``"mu"``: sup over a frequency grid of the D-G upper bound of mu for the repeated real
  scalar delta I_r of the array's first mode (+/- 20 %), on the w_omega -> z_omega
  channel (:func:`satdyn.robust.mussv`, converged at the peak).  The exact robust
  stability margin k* (closed-loop eigenvalues swept along delta; sup_w mu_real = 1/k*)
  is the cross-check (:func:`exact_mu_peak`).

An unstable frozen closed loop makes every metric of its grid point +inf.
Hard constraints (:func:`edge_cost`): a grid-point metric above its threshold makes the
edge cost +inf, i.e. removes the edge.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...lfr import StateSpaceBatch
from ...robust import h2norm, hinfnorm, modal_frequency_grid, mussv, refine_peaks
from ...robust.mdelta import mdelta_system
from ...robust.stability import stability_crossing
from .closedloop import ClosedLoopChannels

__all__ = ["COSTS", "COST_LABELS", "GridMetrics", "grid_metrics", "sensitivity_margins", "mu_peak",
           "exact_mu_peak", "edge_cost", "subsystem"]

COSTS = ("hinf_wrench", "h2_wrench", "hinf_sensitivity", "mu")
COST_LABELS = {
    "hinf_wrench": "H-inf  W_ext(C_j) -> omega'_G",
    "h2_wrench": "H2  W_ext(C_j) -> Theta_G",
    "hinf_sensitivity": "H-inf  d_t -> e_t (input sensitivity)",
    "mu": "mu upper bound, +/-20 % first array mode",
}


@dataclass(frozen=True)
class GridMetrics:
    """The four metrics of N frozen closed loops.

    Attributes
    ----------
    values : dict {cost name: ndarray (N,)}   linear units (``inf`` where unstable)
    stable : ndarray (N,) bool                 closed-loop stability
    mu_frequency : ndarray (N,)                frequency of the mu peak [rad/s]
    """

    values: dict
    stable: np.ndarray
    mu_frequency: np.ndarray


def subsystem(batch: StateSpaceBatch, rows: slice, cols: slice) -> StateSpaceBatch:
    """The channel block ``rows`` x ``cols`` of a batch (same states)."""
    return StateSpaceBatch(batch.A, batch.B[:, :, cols], batch.C[:, rows], batch.D[:, rows, cols],
                           batch.input_names[cols], batch.output_names[rows])


def sensitivity_margins(gamma):
    """Margins guaranteed by ||S_i||_inf = gamma >= 1 (per loop).

    Returns a dict of arrays: modulus margin 1/gamma; gain margin interval
    [gamma/(gamma+1), gamma/(gamma-1)] (upper ``inf`` at gamma = 1); phase margin
    2 asin(1/(2 gamma)) [deg].
    """
    g = np.asarray(gamma, dtype=float)
    if np.any(g < 1 - 1e-9) or np.any(np.isnan(g)):
        raise ValueError("`gamma` (an input-sensitivity peak) must be >= 1")
    g = np.maximum(g, 1.0)
    with np.errstate(divide="ignore"):
        upper = np.where(g > 1.0, g / (g - 1.0), np.inf)
    return {"modulus_margin": 1.0 / g, "gain_margin_low": g / (g + 1.0), "gain_margin_high": upper,
            "phase_margin_deg": np.degrees(2.0 * np.arcsin(1.0 / (2.0 * g)))}


def _frequency_response(A, B, C, D, omega):
    """G(j omega) (K, p, m) of one system by its eigendecomposition (stable, diagonalisable)."""
    lam, V = np.linalg.eig(A)
    Bt = np.linalg.solve(V, B)
    Ct = C @ V
    resolvent = 1.0 / (1j * omega[:, None] - lam[None, :])            # (K, n)
    return np.einsum("pn,kn,nm->kpm", Ct, resolvent, Bt) + D[None]


def _real_spectral_radius(M):
    """Exact mu of real matrices M (..., r, r) for delta I_r real: max |real eigenvalue| (0 if none)."""
    lam = np.linalg.eigvals(M)
    real = np.abs(lam.imag) <= 1e-12 * np.maximum(1.0, np.abs(lam))
    return np.max(np.where(real, np.abs(lam.real), 0.0), axis=-1)


def mu_peak(batch: StateSpaceBatch, channels: ClosedLoopChannels, *, points: int = 30,
            accuracy: float = 1e-4, top: int = 1, rounds: int = 1, fast_accuracy: float = 1e-3,
            iterations: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """sup over a frequency grid of the mu upper bound on w_omega -> z_omega, per system.

    The grid (per system) is the modal grid of :func:`satdyn.robust.modal_frequency_grid`
    (0, a log background of ``points``, 11 points across every resonance) refined ``rounds``
    times around the three largest values.  The bound is :func:`satdyn.robust.mussv`'s D-G bound:
    the fast descent everywhere (one batched call for all systems), then the method of
    centres (``refine=True``) at the ``top`` largest fast values of each
    system; at omega = 0 (real M) mu is exact: its largest real-eigenvalue modulus.  Every
    row keeps a valid upper bound (exact, converged or fast), so the peak is a valid upper
    bound of mu on the grid; it equals the converged D-G peak unless a fast value exceeds
    it (by the descent's gap, ~0.1 % here).
    Returns (peak (N,), peak frequency (N,) [rad/s]); ``inf``/``nan`` for unstable systems.
    """
    r = channels.r
    N = batch.A.shape[0]
    blocks = [[-r, 0]]
    peak, where = np.full(N, np.inf), np.full(N, np.nan)
    stable = [i for i in range(N) if np.max(np.linalg.eigvals(batch.A[i]).real) < 0]
    if not stable:
        return peak, where
    parts = {}
    for i in stable:
        w = modal_frequency_grid(batch.A[i], points)
        parts[i] = [w, _frequency_response(batch.A[i], batch.B[i][:, channels.w], batch.C[i][channels.z],
                                           batch.D[i][channels.z, channels.w], w)]

    def sweep(rows):
        M = np.concatenate([parts[i][1] if rows is None else rows[i][1] for i in stable])
        return mussv(M, blocks, lower=False, refine=False, accuracy=fast_accuracy, iterations=iterations).upper

    up_all = sweep(None)
    offsets = np.cumsum([0] + [parts[i][0].size for i in stable])
    up = {i: up_all[offsets[k]:offsets[k + 1]] for k, i in enumerate(stable)}
    for _ in range(rounds):
        extra = {}
        for i in stable:
            e = refine_peaks(parts[i][0], up[i])
            e = e[~np.isin(e, parts[i][0])]
            B, C, D = batch.B[i][:, channels.w], batch.C[i][channels.z], batch.D[i][channels.z, channels.w]
            extra[i] = [e, _frequency_response(batch.A[i], B, C, D, e)]
        if sum(extra[i][0].size for i in stable) == 0:
            break
        ex_all = sweep(extra)
        offs = np.cumsum([0] + [extra[i][0].size for i in stable])
        for k, i in enumerate(stable):
            parts[i] = [np.concatenate([parts[i][0], extra[i][0]]), np.concatenate([parts[i][1], extra[i][1]])]
            up[i] = np.concatenate([up[i], ex_all[offs[k]:offs[k + 1]]])
    # omega = 0: M(0) is real and mu is exact there (largest real-eigenvalue modulus; the
    # D-G bound equals it for a real matrix).  Elsewhere converge the ``top`` largest fast
    # bounds; the other rows keep their fast bound (valid, possibly above the converged one)
    picks, owners = [], []
    for i in stable:
        w, M = parts[i]
        dc = w == 0
        up[i][dc] = _real_spectral_radius(M[dc].real)
        rows = np.zeros(w.size, bool)
        rows[np.argsort(np.where(dc, np.inf, -up[i]))[:top]] = True
        rows &= ~dc
        picks.append(M[rows])
        owners.append((i, w, rows))
    refined = np.zeros(0)
    if sum(p.shape[0] for p in picks):
        refined = mussv(np.concatenate(picks), blocks, lower=False, refine=True, accuracy=accuracy).upper
    k0 = 0
    for i, w, rows in owners:
        vals = up[i].copy()
        vals[rows] = refined[k0:k0 + int(rows.sum())]
        k0 += int(rows.sum())
        j = int(np.argmax(vals))
        peak[i], where[i] = float(vals[j]), float(w[j])
    return peak, where


def exact_mu_peak(batch: StateSpaceBatch, channels: ClosedLoopChannels, *, delta_max: float = 1e3) -> np.ndarray:
    """sup_w mu_real(w_omega -> z_omega) = 1 / k*, k* the smallest |delta| destabilising the loop.

    k* comes from closed-loop eigenvalues along delta in [-delta_max, delta_max]
    (:func:`satdyn.robust.stability.stability_crossing`, both signs); a pole that only
    touches the axis at omega = 0 or infinity (e.g. delta = -1/r: the array mode loses its
    stiffness) is covered by the exact mu of the real M(0) and D_zw.  0 where nothing is
    found (mu < 1/delta_max), inf for an unstable nominal loop.
    """
    r = channels.r
    N = batch.A.shape[0]
    out = np.zeros(N)
    for i in range(N):
        if np.max(np.linalg.eigvals(batch.A[i]).real) >= 0:
            out[i] = np.inf
            continue
        sys = mdelta_system(batch.A[i], batch.B[i], batch.C[i], batch.D[i], [r])
        t, _ = stability_crossing(sys, np.array([[1.0], [-1.0]]), delta_max, scan=256, bisections=50)
        k = float(np.min(t))
        # touching (not crossing) at omega = 0 or infinity: mu of the real M(0) and D_zw
        A, B, C, D = batch.A[i], batch.B[i][:, :r], batch.C[i][:r], batch.D[i][:r, :r]
        ends = _real_spectral_radius(np.stack([D - C @ np.linalg.solve(A, B), D]))
        out[i] = max(0.0 if np.isinf(k) else 1.0 / k, float(ends.max()))
    return out


def grid_metrics(batch: StateSpaceBatch, channels: ClosedLoopChannels, costs=COSTS) -> GridMetrics:
    """The requested metrics of every frozen closed loop of ``batch`` (module docstring)."""
    unknown = [c for c in costs if c not in COSTS]
    if unknown:
        raise ValueError(f"`costs` must be names among {COSTS}; got {unknown}")
    ch = channels
    stable = np.max(np.linalg.eigvals(batch.A).real, axis=1) < 0
    values = {}
    if "hinf_wrench" in costs:
        values["hinf_wrench"] = np.asarray(hinfnorm(subsystem(batch, ch.omega_dot, ch.W)).value, dtype=float)
    if "h2_wrench" in costs:
        values["h2_wrench"] = np.asarray(h2norm(subsystem(batch, ch.theta, ch.W)), dtype=float)
    if "hinf_sensitivity" in costs:
        values["hinf_sensitivity"] = np.asarray(hinfnorm(subsystem(batch, ch.e, ch.d)).value, dtype=float)
    mu_w = np.full(batch.A.shape[0], np.nan)
    if "mu" in costs:
        values["mu"], mu_w = mu_peak(batch, ch)
    for k in values:
        values[k] = np.where(stable, values[k], np.inf)
    return GridMetrics(values, stable, mu_w)


def edge_cost(metrics, threshold: float | None = None) -> float:
    """Sum of grid-point metrics (linear units); ``inf`` if one exceeds ``threshold``."""
    m = np.asarray(metrics, dtype=float)
    if threshold is not None and np.any(m > threshold):
        return float("inf")
    return float(np.sum(m))
