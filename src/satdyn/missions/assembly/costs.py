"""The four closed-loop metrics of paper 000 (section 3.2, eqs. 16-20) per frozen closed loop.

Each metric is computed for every frozen closed loop (grid point) and summed over the
2z = 14 grid points of an edge; the four are never combined (one Dijkstra run each):

* ``"hinf_wrench"``: ||W at C_j -> omega'_G||_inf (3 x 6, exact level-set H-infinity norm);
* ``"h2_wrench"``: ||W at C_j -> Theta_G||_2 (3 x 6, Lyapunov);
* ``"hinf_sensitivity"``: ||d_t -> e_t||_inf, the input sensitivity S_i (3 x 3), with the
  modulus / gain / phase margins it guarantees (:func:`sensitivity_margins`);
* ``"mu"``: sup over a frequency grid of a certified upper bound of mu for the repeated
  real scalar delta I_r of the array's first mode (+/- 20 %), on the w_omega -> z_omega
  channel: exact at omega = 0, the D-G bound of :func:`satdyn.robust.mussv` (capped by
  the spectral radius) wherever it can reach the peak (:func:`mu_peak`).  The exact robust
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
    return _modal_response(lam, C @ V, np.linalg.solve(V, B), D, omega)


def _modal_response(lam, Ct, Bt, D, omega):
    """G(j omega) (K, p, m) from poles lam (n,), C V (p, n), V^-1 B (n, m) and D."""
    resolvent = 1.0 / (1j * omega[:, None] - lam[None, :])            # (K, n)
    return np.einsum("pn,kn,nm->kpm", Ct, resolvent, Bt) + D[None]


def _real_spectral_radius(M, rtol: float = 1e-10):
    """Exact mu of M (..., r, r) for a repeated real scalar delta I_r: max |real eigenvalue|.

    I - delta M is singular for real delta iff 1/delta is a real eigenvalue of M.  A
    defective real eigenvalue (M(0) of the assembly loops is a 2 x 2 Jordan block at -0.2,
    the array mode losing its stiffness at delta = -5) is split by rounding into a complex
    pair with imaginary parts ~sqrt(eps |M|), so an eigenvalue counts as real when
    x = Re(lambda) makes x I - M singular to ``rtol`` relative to max(|x|, |M|): the exact mu
    of a matrix within that relative distance of M.  0 if there is none.
    """
    M = np.asarray(M)
    lam = np.linalg.eigvals(M)                                           # (..., r)
    x = lam.real
    eye = np.eye(M.shape[-1])
    shifted = x[..., None, None] * eye - M[..., None, :, :]              # (..., r, r, r)
    smallest = np.linalg.svd(shifted, compute_uv=False)[..., -1]
    scale = np.maximum(np.abs(x), np.linalg.norm(M, 2, axis=(-2, -1))[..., None])
    real = (smallest <= rtol * scale) & (np.abs(x) > 0)
    return np.max(np.where(real, np.abs(x), 0.0), axis=-1)


def _spectral_radius(M):
    """rho(M) (...): mu of M for a repeated COMPLEX scalar, hence an upper bound of the real mu."""
    return np.max(np.abs(np.linalg.eigvals(M)), axis=-1)


def _certified_below(M, beta, rtol: float = 1e-10):
    """True where mu(M) < beta is proved for a repeated real scalar delta I_2 (M (R, 2, 2)).

    det(I - delta M) = 1 - t delta + d delta^2 (t = tr M, d = det M) must not vanish for
    real |delta| <= 1/beta.  Its squared modulus is a real quartic in delta whose minimum
    on the interval is attained at an end or at a real root of its cubic derivative (found
    as companion-matrix eigenvalues, all rows at once).  The row is certified when that
    minimum modulus exceeds ``rtol`` (1 + |M| / beta)^2.  A relative error e of M moves
    |det(I - delta M)| by at most 2 e (1 + |M| / beta)^2 on the interval, so the proof holds
    for every matrix within relative distance rtol / 2 = 5e-11 of the computed M (the modal
    frequency response agrees with a direct solve to ~1e-12 relative on the assembly loops).
    """
    t = M[:, 0, 0] + M[:, 1, 1]
    d = M[:, 0, 0] * M[:, 1, 1] - M[:, 0, 1] * M[:, 1, 0]
    a1, a2, b1, b2 = -t.real, d.real, -t.imag, d.imag
    c = np.stack([np.ones_like(a1), 2 * a1, a1 ** 2 + 2 * a2 + b1 ** 2, 2 * (a1 * a2 + b1 * b2),
                  a2 ** 2 + b2 ** 2], axis=-1)                                   # f = sum c_k delta^k
    limit = 1.0 / np.broadcast_to(beta, t.shape)
    deriv = c[:, 1:] * np.arange(1, 5)                                           # f' coefficients (R, 4)
    lead = deriv[:, 3]
    ok = lead > 0
    companion = np.zeros((t.size, 3, 3))
    companion[:, 1, 0] = companion[:, 2, 1] = 1.0
    companion[ok, :, 2] = -deriv[ok, :3] / lead[ok, None]
    roots = np.linalg.eigvals(companion)
    # the real parts of all three roots: a (near-)multiple real root comes out as a complex
    # cluster (|perturbation| ~ eps^(1/3)) whose real part is still next to it; extra
    # points only lower the minimum (conservative)
    points = np.clip(roots.real, -limit[:, None], limit[:, None])
    # polish the critical points by Newton on g = Re(conj(p) p') with p evaluated directly
    # (the monomial quartic cancels badly where |p| ~ 1e-9), then take |p| directly too
    tt, dd = t[:, None], d[:, None]
    for _ in range(3):
        p = 1.0 - tt * points + dd * points ** 2
        dp = -tt + 2.0 * dd * points
        g = (np.conj(p) * dp).real
        dg = np.abs(dp) ** 2 + (np.conj(p) * 2.0 * dd).real
        step = np.where(dg > 0, g / np.where(dg > 0, dg, 1.0), 0.0)
        points = np.clip(points - step, -limit[:, None], limit[:, None])
    points = np.concatenate([points, -limit[:, None], limit[:, None]], axis=1)       # (R, 5)
    modulus = np.abs(1.0 - t[:, None] * points + d[:, None] * points ** 2)
    norm = np.linalg.norm(M, 2, axis=(-2, -1))
    margin = rtol * (1.0 + norm * limit) ** 2
    return ok & (modulus.min(axis=1) > margin)


def mu_peak(batch: StateSpaceBatch, channels: ClosedLoopChannels, *, points: int = 30, rounds: int = 1,
            fast_accuracy: float = 1e-3, iterations: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """sup over a frequency grid of an upper bound of mu on w_omega -> z_omega, per system.

    The grid of each system is the modal grid of :func:`satdyn.robust.modal_frequency_grid`
    (0, a log background of ``points``, 11 points across every resonance), refined
    ``rounds`` times between the neighbours of its three largest values
    (:func:`satdyn.robust.refine_peaks`).  At every grid frequency the bound is a certified
    upper bound of mu for the repeated real scalar delta I_r:

    * omega = 0 (real M): the exact mu, largest |real eigenvalue| (:func:`_real_spectral_radius`);
      it is also a certified LOWER bound L of the peak;
    * omega > 0: rho(M(j omega)) (mu for a complex repeated scalar, >= the real mu), and,
      where rho exceeds L (only there can the row raise the peak), the smaller of rho and
      the D-G bound of :func:`satdyn.robust.mussv` (fast descent, ``fast_accuracy``,
      ``iterations``), evaluated for all such rows of all systems in ONE batched call per
      grid round.

    Rows with rho <= L are pruned without any D-G work: their mu, and every valid bound
    there, is below the peak's lower bound, so pruning never changes the peak.
    Returns (peak (N,), peak frequency (N,) [rad/s]); ``inf``/``nan`` for unstable systems.
    """
    r = channels.r
    N = batch.A.shape[0]
    peak, where = np.full(N, np.inf), np.full(N, np.nan)
    lam, V = np.linalg.eig(batch.A)                   # once per system: stability and every response
    stable = np.flatnonzero(np.max(lam.real, axis=-1) < 0)
    if stable.size == 0:
        return peak, where
    B, C, D = batch.B[:, :, channels.w], batch.C[:, channels.z], batch.D[:, channels.z][:, :, channels.w]
    Ct, Bt = C[stable] @ V[stable], np.linalg.solve(V[stable], B[stable])

    def bounds(grids, floor):
        """Upper bounds at per-system frequency lists, one batched mussv call for the rows that matter."""
        Ms = [_modal_response(lam[i], Ct[k], Bt[k], D[i], w) for k, (i, w) in enumerate(zip(stable, grids))]
        sizes = [w.size for w in grids]
        if not sum(sizes):
            return [np.zeros(0) for _ in grids]
        M = np.concatenate(Ms)
        w_all = np.concatenate(grids)
        owner = np.repeat(np.arange(stable.size), sizes)
        value = _spectral_radius(M)
        dc = w_all == 0
        value[dc] = _real_spectral_radius(M[dc].real)
        rows = ~dc & (value > floor[owner])
        if r == 2 and rows.any():
            # rows proved below the floor keep their exact mu and need no D-G bound
            proved = _certified_below(M[rows], floor[owner][rows])
            idx = np.flatnonzero(rows)[proved]
            value[idx] = _real_spectral_radius(M[idx])
            rows[idx] = False
        if rows.any():
            dg = mussv(M[rows], [[-r, 0]], lower=False, refine=False, accuracy=fast_accuracy,
                       iterations=iterations).upper
            value[rows] = np.minimum(value[rows], dg)
        return np.split(value, np.cumsum(sizes)[:-1])

    grids = [modal_frequency_grid(batch.A[i], points) for i in stable]
    # the exact mu at omega = 0 first: the floor below which no row needs the D-G bound
    M0 = D[stable] - C[stable] @ np.linalg.solve(batch.A[stable], B[stable])
    floor = _real_spectral_radius(M0.real)
    values = bounds(grids, floor)
    for _ in range(rounds):
        extra = []
        for w, v in zip(grids, values):
            # omega = 0 holds the exact value: refine between the positive frequencies only
            e = refine_peaks(w[1:], v[1:]) if w[0] == 0 else refine_peaks(w, v)
            extra.append(e[~np.isin(e, w)])
        floor = np.array([v.max() for v in values])
        more = bounds(extra, floor)
        for k in range(stable.size):
            order = np.argsort(np.concatenate([grids[k], extra[k]]))
            grids[k] = np.concatenate([grids[k], extra[k]])[order]
            values[k] = np.concatenate([values[k], more[k]])[order]
    for k, i in enumerate(stable):
        j = int(np.argmax(values[k]))
        peak[i], where[i] = float(values[k][j]), float(grids[k][j])
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
