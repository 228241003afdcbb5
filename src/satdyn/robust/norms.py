"""H-infinity and H2 norms of continuous-time state-space systems, batched, without slycot.

Arguments (every function):
    sys : ``control.StateSpace`` (one system) or any object carrying stacked arrays
          ``A (N, n, n)``, ``B (N, n, m)``, ``C (N, p, n)``, ``D (N, p, m)`` (e.g.
          ``satdyn.lfr.StateSpaceBatch``); a 2-D ``A`` means one system.

The H-infinity norm uses the Hamiltonian level-set iteration of Bruinsma and Steinbuch
(1990), run on all systems of a batch at once. The first level is the peak of a modal grid
(DC, the poles' damped frequencies |Im p|, their moduli |p| and a log grid over the modal
band), evaluated from the pole residues and polished by a secant iteration on the slope
d sigma_max / dw, so one level test usually certifies it. The level test needs only the
eigenvalues of the Hamiltonian squared, from an n x n problem (Van Loan's square-reduced
method, :mod:`satdyn.robust.hamiltonian_eigs`) instead of a dense 2n x 2n one. Certified as
before: the value is an evaluated response (a lower bound), and the level test at
(1 + 2 tol) times it finds no crossing (the upper bound). An unstable (or marginally
stable) system has norm ``+inf`` and ``stable=False``; no exception is raised in a batch.
The H2 norm comes from the controllability Gramian (Lyapunov equation, Bartels-Stewart).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from scipy.linalg import solve_continuous_lyapunov

from .._validation import as_float_array
from .checks import check_fraction, refuse_uncertain
from .hamiltonian_eigs import squared_hamiltonian_eigenvalues

__all__ = ["HinfNorm", "hinfnorm", "h2norm", "frequency_response", "stacked_state_space"]

# A pole counts as stable when Re(p) < -_STABILITY_MARGIN * max(1, |p|): integrators and
# undamped modes computed with rounding error must not be reported as stable.
_STABILITY_MARGIN = 1e-12


@dataclass(frozen=True)
class HinfNorm:
    """H-infinity norm of one system or a batch.

    Attributes
    ----------
    value : float or ndarray (N,)
        sup_w sigma_max(G(jw)); ``inf`` for unstable systems.
    peak_frequency : float or ndarray (N,)
        Frequency of the peak, rad/s (``inf`` when the peak is the feedthrough at
        infinite frequency, ``nan`` for unstable systems).
    stable : bool or ndarray (N,)
        False where the system has a pole with non-negative real part (and for rows a
        StateSpaceBatch flags ``valid == False``, whose value is NaN).
    """

    value: object
    peak_frequency: object
    stable: object

    def __iter__(self):
        """Unpack as ``value, peak_frequency = hinfnorm(sys)`` (as MATLAB's hinfnorm)."""
        return iter((self.value, self.peak_frequency))

    def to_dict(self) -> dict:
        return {"value": self.value, "peak_frequency": self.peak_frequency, "stable": self.stable}


def require_continuous(obj, name: str, attributes, expected: str, continuous: str) -> None:
    """Public-boundary check shared by the norms and the LFR adapters.

    ``TypeError`` when ``obj`` lacks one of ``attributes`` (message: "`name` must be
    <expected>"), ``ValueError`` when it is discrete-time ("`name` must be <continuous>").
    """
    for attr in attributes:
        if not hasattr(obj, attr):
            raise TypeError(f"`{name}` must be {expected}; got {type(obj).__name__} without `.{attr}`")
    dt = getattr(obj, "dt", 0)
    if dt not in (0, None) and dt is not False:
        raise ValueError(f"`{name}` must be {continuous}; got dt={dt!r}")


def stacked_state_space(sys, name: str = "sys"):
    """Return ``(A, B, C, D, single)`` with stacked float arrays (N, ., .) from ``sys``.

    Rows flagged ``valid == False`` by a batch (ill-posed LFR evaluations, NaN by contract)
    are replaced by an empty-gain stable placeholder; see :func:`_valid_rows`.
    Raises ``ValueError`` for discrete-time systems, inconsistent shapes or non-finite data.
    """
    require_continuous(sys, name, ("A", "B", "C", "D"),
                       "a control.StateSpace or an object with stacked A, B, C, D arrays",
                       "a continuous-time system (dt == 0)")
    valid = _valid_rows(sys)
    arrays = []
    for attr in ("A", "B", "C", "D"):
        X = np.array(getattr(sys, attr), dtype=float) if valid is not None else getattr(sys, attr)
        if valid is not None:
            if X.ndim != 3 or X.shape[0] != valid.size:
                raise ValueError(f"`{name}.valid` must have one flag per system of `{name}.{attr}`")
            X[~valid] = -np.eye(X.shape[1], X.shape[2]) if attr == "A" else 0.0
        arrays.append(as_float_array(X, f"{name}.{attr}"))
    A, B, C, D = arrays
    single = A.ndim == 2
    if single:
        A, B, C, D = A[None], B[None], C[None], D[None]
    if A.ndim != 3 or B.ndim != 3 or C.ndim != 3 or D.ndim != 3:
        raise ValueError(f"`{name}`: A, B, C, D must all be 2-D (one system) or 3-D (a batch)")
    N, n, n2 = A.shape
    p, m = D.shape[1:]
    if n != n2 or B.shape != (N, n, m) or C.shape != (N, p, n) or D.shape != (N, p, m):
        raise ValueError(
            f"`{name}`: inconsistent shapes A {A.shape}, B {B.shape}, C {C.shape}, D {D.shape}"
        )
    return A, B, C, D, single


def _valid_rows(sys):
    """The batch's ``valid`` flags (bool (N,)) when it has them, else None."""
    valid = getattr(sys, "valid", None)
    if valid is None:
        return None
    valid = np.asarray(valid, dtype=bool)
    return valid if valid.ndim == 1 else None


def frequency_response(A, B, C, D, omega):
    """G(jw) = C (jw I - A)^-1 B + D for stacked systems at per-system frequencies.

    Parameters
    ----------
    A, B, C, D : ndarray (N, n, n), (N, n, m), (N, p, n), (N, p, m)
    omega : ndarray (N, K), rad/s (finite)

    Returns
    -------
    ndarray (N, K, p, m), complex
    """
    N, n = A.shape[:2]
    omega = np.asarray(omega, dtype=float)
    if n == 0:
        return np.broadcast_to(D[:, None], (N, omega.shape[1]) + D.shape[1:]).astype(complex)
    eye = np.eye(n)
    pencil = 1j * omega[..., None, None] * eye - A[:, None]
    X = np.linalg.solve(pencil, np.broadcast_to(B[:, None], (N, omega.shape[1]) + B.shape[1:]))
    return C[:, None] @ X + D[:, None]


def _sigma_max(A, B, C, D, omega, modal=None):
    """Largest singular value of G(jw) (N, K); NaN frequencies give -inf.

    With ``modal = (poles, residues, ok)`` the response of the rows where ``ok`` is computed
    from the eigen-decomposition (O(n) per frequency instead of a solve); other rows use
    solves. Used inside the iteration only; final values are evaluated by solves.
    """
    bad = ~np.isfinite(omega)
    safe = np.where(bad, 0.0, omega)
    if min(D.shape[-2:]) == 0:
        return np.where(bad, -np.inf, 0.0)
    if modal is None:
        G = frequency_response(A, B, C, D, safe)
    else:
        poles, residues, ok = modal
        G = np.empty(safe.shape + D.shape[1:], complex)
        if np.any(ok):
            R = 1.0 / (1j * safe[ok][:, :, None] - poles[ok][:, None, :])
            # G(jw_k) = D + sum_i residue_i / (jw_k - pole_i): one (K, n) @ (n, p m) product
            G[ok] = (R @ residues[ok]).reshape(R.shape[:2] + D.shape[1:]) + D[ok][:, None]
        if np.any(~ok):
            G[~ok] = frequency_response(A[~ok], B[~ok], C[~ok], D[~ok], safe[~ok])
    return np.where(bad, -np.inf, _largest_singular_value(G))


def _largest_singular_value(G):
    """sigma_max of stacked complex matrices (..., p, m).

    With min(p, m) <= 2 from the Gram matrix in closed form (vectorised, no per-matrix LAPACK
    call): lambda_max = (a + c)/2 + sqrt(((a - c)/2)^2 + |b|^2) sums non-negative terms, so it
    is as accurate relative to sigma_max^2 as an SVD; otherwise by SVD.
    """
    p, m = G.shape[-2:]
    if min(p, m) > 2:
        return np.linalg.svd(G, compute_uv=False)[..., 0]
    if p < m:
        G = np.swapaxes(G, -1, -2)
    power = G.real**2 + G.imag**2
    if G.shape[-1] == 1:
        return np.sqrt(np.sum(power, axis=-2)[..., 0])
    a = np.sum(power[..., 0], axis=-1)
    c = np.sum(power[..., 1], axis=-1)
    b = np.sum(G[..., 0].conj() * G[..., 1], axis=-1)
    return np.sqrt(0.5 * (a + c) + np.sqrt(0.25 * (a - c) ** 2 + (b.real**2 + b.imag**2)))


def _modal_form(A, B, C, poles, V):
    """Poles, residues (N, n, p m) and ``ok`` (where V is well conditioned) for cheap responses."""
    cond = np.linalg.cond(V)
    ok = np.isfinite(cond) & (cond < 1e6)
    Vs = np.where(ok[:, None, None], V, np.eye(A.shape[1]))
    VinvB = np.linalg.solve(Vs, B.astype(complex))
    CV = C @ Vs
    # residue of pole i: outer(CV[:, i], VinvB[i, :]), flattened to (N, n, p m)
    residues = (np.swapaxes(CV, 1, 2)[:, :, :, None] * VinvB[:, :, None, :]).reshape(A.shape[0], A.shape[1], -1)
    return poles, residues, ok


def _is_stable(poles):
    scale = np.maximum(1.0, np.abs(poles))
    return np.all(poles.real < -_STABILITY_MARGIN * scale, axis=-1)


def _hamiltonian(A, B, C, D, gamma):
    """Bruinsma-Steinbuch Hamiltonian (N, 2n, 2n) at levels gamma (N,) > sigma_max(D)."""
    m, p = B.shape[2], C.shape[1]
    g2 = (gamma**2)[:, None, None]
    R = np.swapaxes(D, 1, 2) @ D - g2 * np.eye(m)
    S = D @ np.swapaxes(D, 1, 2) - g2 * np.eye(p)
    Rinv_Dt_C = np.linalg.solve(R, np.swapaxes(D, 1, 2) @ C)
    Rinv_Bt = np.linalg.solve(R, np.swapaxes(B, 1, 2))
    Sinv_C = np.linalg.solve(S, C)
    H11 = A - B @ Rinv_Dt_C
    g = gamma[:, None, None]
    H12 = -g * (B @ Rinv_Bt)
    H21 = g * (np.swapaxes(C, 1, 2) @ Sinv_C)
    top = np.concatenate([H11, H12], axis=2)
    bottom = np.concatenate([H21, -np.swapaxes(H11, 1, 2)], axis=2)
    return np.concatenate([top, bottom], axis=1)


def _crossing_frequencies(H):
    """Sorted frequencies w >= 0 (N, n) where H (N, 2n, 2n) has eigenvalues ±jw; NaN-padded.

    The eigenvalues come squared, mu = lambda^2, from the structure-preserving reduction
    (n x n eigenproblem). An imaginary pair ±jw is mu = -w^2, real and non-positive. The
    acceptance band is the dense test's |Re lambda| <= 1e-7 max(1, |lambda|) written for mu
    (|Im mu| = 2 |Re lambda| |Im lambda|), widened by the reduction's absolute rounding
    eps ||H||^2 (times a safety factor 100 n). A spurious crossing only costs one extra
    response evaluation (the level is not improved and the iteration stops); a missed one
    would return a too-small norm, hence the generous band.
    """
    n = H.shape[1] // 2
    mu = squared_hamiltonian_eigenvalues(H)
    scale = np.sum(H * H, axis=(1, 2))[:, None]
    absolute = 100 * max(n, 1) * np.finfo(float).eps * scale
    magnitude = np.abs(mu)
    band = 2e-7 * np.maximum(magnitude, np.sqrt(magnitude)) + absolute
    imag_axis = (np.abs(mu.imag) <= band) & (mu.real <= band)
    freqs = np.where(imag_axis, np.sqrt(np.maximum(-mu.real, 0.0)), np.nan)
    return np.sort(freqs, axis=1)  # NaNs last


# Levels within this relative distance of ||D|| are tested with the extended pencil.
_NEAR_FEEDTHROUGH = 1e-3


def _crossing_frequencies_pencil(A, B, C, D, level):
    """Sorted frequencies w >= 0 where ``level`` is a singular value of G(jw), one system.

    The extended pencil s E - H_ext, E = diag(I_n, I_n, 0, 0),
    H_ext = [[A, 0, B, 0], [0, -A^T, 0, -C^T], [C, 0, D, -level I], [0, B^T, -level I, D^T]],
    has a finite eigenvalue s = jw exactly when G(jw) u = level v and G(jw)^H v = level u:
    the Bruinsma-Steinbuch test without the inverse of (D^T D - level^2 I), solved by QZ
    (backward stable). Imaginary eigenvalues are accepted with the dense test's relative
    band 1e-7.
    """
    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    Z = np.zeros
    H = np.block([[A, Z((n, n)), B, Z((n, p))],
                  [Z((n, n)), -A.T, Z((n, m)), -C.T],
                  [C, Z((p, n)), D, -level * np.eye(p)],
                  [Z((m, n)), B.T, -level * np.eye(m), D.T]])
    E = np.diag(np.concatenate([np.ones(2 * n), np.zeros(m + p)]))
    alpha, beta = scipy.linalg.eigvals(H, E, homogeneous_eigvals=True)
    finite = np.abs(beta) > 1e3 * np.finfo(float).eps * np.abs(alpha)
    lam = alpha[finite] / beta[finite]
    imag_axis = np.abs(lam.real) <= 1e-7 * np.maximum(1.0, np.abs(lam))
    return np.sort(np.abs(lam[imag_axis].imag))


def _response_and_slope(A, B, C, D, omega, modal):
    """G(jw) and dG/dw (N, p, m) at one frequency per system (modal form where ``ok``)."""
    poles, residues, ok = modal
    N = A.shape[0]
    G = np.empty((N,) + D.shape[1:], complex)
    dG = np.empty_like(G)
    if np.any(ok):
        r = 1.0 / (1j * omega[ok][:, None] - poles[ok])
        shape = (-1,) + D.shape[1:]
        G[ok] = (r[:, None, :] @ residues[ok]).reshape(shape) + D[ok]
        dG[ok] = (-1j * (r * r)[:, None, :] @ residues[ok]).reshape(shape)
    bad = ~ok
    if np.any(bad):
        pencil = 1j * omega[bad][:, None, None] * np.eye(A.shape[1]) - A[bad]
        X = np.linalg.solve(pencil, B[bad].astype(complex))
        G[bad] = C[bad] @ X + D[bad]
        dG[bad] = -1j * (C[bad] @ np.linalg.solve(pencil, X))
    return G, dG


def _refine_peak(A, B, C, D, w_peak, gamma, modal, iterations=8):
    """Local maximisation of sigma_max(G(jw)) from w_peak > 0 (all systems at once).

    Secant iteration on the slope d sigma_max / dw = Re(u^H dG/dw v) (u, v: top singular
    vectors), converging superlinearly from a start near the peak; steps are kept within a
    factor 2 of the current frequency. Returns the best (value, frequency) seen, never below
    the input ``gamma``: every value is an evaluated response, hence a lower bound.
    """
    best_f, best_w = gamma.copy(), w_peak.copy()

    def slope(w):
        G, dG = _response_and_slope(A, B, C, D, w, modal)
        U, sv, Vh = np.linalg.svd(G)
        u, v = U[:, :, 0], Vh[:, 0, :].conj()
        d = np.einsum("np,npm,nm->n", u.conj(), dG, v).real
        return sv[:, 0], d

    w_prev = w_peak * (1 + 1e-4)
    f_prev, d_prev = slope(w_prev)
    w_cur = w_peak
    for _ in range(iterations):
        f_cur, d_cur = slope(w_cur)
        better = f_cur > best_f
        best_f, best_w = np.where(better, f_cur, best_f), np.where(better, w_cur, best_w)
        denominator = d_cur - d_prev
        with np.errstate(divide="ignore", invalid="ignore"):
            step = -d_cur * (w_cur - w_prev) / denominator
        step = np.where(np.isfinite(step) & (denominator != 0), step, 0.0)
        w_next = np.clip(w_cur + step, 0.5 * w_cur, 2.0 * w_cur)
        w_prev, d_prev, w_cur = w_cur, d_cur, w_next
        if np.all(w_cur == w_prev):
            break
    return best_f, best_w


# Systems per vectorised pass: the grid's (chunk, K, n) complex intermediates stay in cache
# (one pass over 10,000 systems moves ~200 MB per array and ran 1.3x slower per system).
_CHUNK = 256


def _hinf_batch(A, B, C, D, tol, max_iterations=60):
    """(value, peak, stable) arrays (N,) of stacked systems, in chunks of ``_CHUNK``."""
    parts = [_hinf_chunk(A[s:s + _CHUNK], B[s:s + _CHUNK], C[s:s + _CHUNK], D[s:s + _CHUNK], tol, max_iterations)
             for s in range(0, max(A.shape[0], 1), _CHUNK)]
    return tuple(np.concatenate([part[k] for part in parts]) for k in range(3))


def _hinf_chunk(A, B, C, D, tol, max_iterations):
    N, n = A.shape[:2]
    value = np.full(N, np.inf)
    peak = np.full(N, np.nan)
    sigma_D = np.linalg.svd(D, compute_uv=False)[:, 0] if min(D.shape[1:]) > 0 else np.zeros(N)
    if n == 0:
        return sigma_D, np.zeros(N), np.ones(N, bool)
    poles, V = np.linalg.eig(A)
    if min(B.shape[2], C.shape[1]) == 0:  # no input or no output: zero gain
        stable = _is_stable(poles)
        return np.where(stable, 0.0, np.inf), np.where(stable, 0.0, np.nan), stable
    stable = _is_stable(poles)
    idx = np.flatnonzero(stable)
    if idx.size == 0:
        return value, peak, stable
    A, B, C, D, poles, sD = A[idx], B[idx], C[idx], D[idx], poles[idx], sigma_D[idx]
    modal = _modal_form(A, B, C, poles, V[idx])
    # Initial lower bound: feedthrough, DC gain and the gain at every pole's natural frequency
    # (the resonance of a lightly damped mode is where the peak usually is).
    # A log grid and a secant polish of the slope (cheap with the modal form) bring the first level
    # close to the peak, so that most systems need a single Hamiltonian eigenvalue check.
    mags = np.where(np.abs(poles) > 0, np.abs(poles), np.nan)
    low = np.fmin.reduce(mags, axis=1)
    high = np.fmax.reduce(mags, axis=1)
    low = np.where(np.isfinite(low), low, 1.0)
    high = np.where(np.isfinite(high), high, 1.0)
    log_grid = np.exp(np.linspace(0, 1, 16)[None] * np.log(100 * high / low)[:, None]) * (0.1 * low)[:, None]
    candidates = np.concatenate([np.zeros((len(idx), 1)), np.abs(poles), np.abs(poles.imag), log_grid], axis=1)
    s = _sigma_max(A, B, C, D, candidates, modal)
    k = np.argmax(s, axis=1)
    gamma = s[np.arange(len(idx)), k]
    w = candidates[np.arange(len(idx)), k]
    positive = w > 0
    if np.any(positive):
        f = np.flatnonzero(positive)
        sub = tuple(x[f] for x in modal)
        gamma[f], w[f] = _refine_peak(A[f], B[f], C[f], D[f], w[f], gamma[f], sub)
    at_infinity = sD >= gamma
    gamma = np.where(at_infinity, sD, gamma)
    w = np.where(at_infinity, np.inf, w)
    active = gamma > 0
    for _ in range(max_iterations):
        act = np.flatnonzero(active)
        if act.size == 0:
            break
        level = (1 + 2 * tol) * gamma[act]
        freqs = _crossing_frequencies(_hamiltonian(A[act], B[act], C[act], D[act], level))
        # Near the feedthrough level the Hamiltonian needs (D^T D - level^2 I)^-1, which is
        # nearly singular: its eigenvalues are then too inaccurate to see a crossing of an
        # interior peak that rises barely above ||D|| (a PID loop: 0.941136 at 0.858 rad/s
        # against ||D|| = 0.941059 was missed). The extended pencil needs no inverse.
        near = np.flatnonzero(level <= (1 + _NEAR_FEEDTHROUGH) * sD[act])
        if near.size:
            extended = [_crossing_frequencies_pencil(A[a], B[a], C[a], D[a], lv)
                        for a, lv in zip(act[near], level[near])]
            width = max(freqs.shape[1], max(e.size for e in extended))
            freqs = np.pad(freqs, ((0, 0), (0, width - freqs.shape[1])), constant_values=np.nan)
            for row, e in zip(near, extended):
                freqs[row] = np.nan
                freqs[row, :e.size] = e
        count = np.sum(np.isfinite(freqs), axis=1)
        done = count == 0
        # Mid-points of consecutive crossing frequencies (or the single crossing itself).
        mids = 0.5 * (freqs[:, :-1] + freqs[:, 1:]) if freqs.shape[1] > 1 else freqs
        single = count == 1
        if freqs.shape[1] > 1:
            mids = np.where(single[:, None], np.where(np.arange(mids.shape[1]) == 0, freqs[:, :1], np.nan), mids)
        sub = tuple(x[act] for x in modal)
        sig = _sigma_max(A[act], B[act], C[act], D[act], mids, sub)
        best = np.argmax(sig, axis=1)
        new_gamma = sig[np.arange(act.size), best]
        improved = (new_gamma > gamma[act]) & ~done
        gamma[act] = np.where(improved, new_gamma, gamma[act])
        w[act] = np.where(improved, mids[np.arange(act.size), best], w[act])
        active[act] = improved
        # Polish the new level to the local peak so that the next test usually certifies it.
        f = act[improved & (w[act] > 0)]
        if f.size:
            sub = tuple(x[f] for x in modal)
            gamma[f], w[f] = _refine_peak(A[f], B[f], C[f], D[f], w[f], gamma[f], sub)
    # final value by direct solves at the peak (the modal form only guided the search)
    finite = np.isfinite(w)
    if np.any(finite):
        f = np.flatnonzero(finite)
        gamma[f] = _sigma_max(A[f], B[f], C[f], D[f], w[f][:, None])[:, 0]
    gamma = np.maximum(gamma, sD)
    value[idx] = gamma
    peak[idx] = w
    return value, peak, stable


def hinfnorm(sys, tol: float = 1e-10) -> HinfNorm:
    """H-infinity norm and peak frequency of a continuous-time system or batch.

    Parameters
    ----------
    sys : control.StateSpace or batch with stacked ``A, B, C, D``
    tol : float
        Relative tolerance of the level-set iteration: the returned value v satisfies
        v <= ||G||_inf < (1 + 2 tol) v (up to the eigenvalue test's rounding).

    Returns
    -------
    HinfNorm
        ``value``, ``peak_frequency`` (rad/s) and ``stable``; scalars for one system,
        arrays (N,) for a batch. Unpacks as ``value, peak = hinfnorm(sys)``.
    """
    refuse_uncertain(sys, "sys", "hinfnorm")
    tol = check_fraction(tol, "tol")
    A, B, C, D, single = stacked_state_space(sys)
    value, peak, stable = _hinf_batch(A, B, C, D, float(tol))
    valid = _valid_rows(sys)
    if valid is not None:  # ill-posed rows of a StateSpaceBatch: NaN, not stable
        value[~valid], peak[~valid], stable[~valid] = np.nan, np.nan, False
    if single:
        return HinfNorm(float(value[0]), float(peak[0]), bool(stable[0]))
    return HinfNorm(value, peak, stable)


def h2norm(sys):
    """H2 norm sqrt(trace(C P C^T)), A P + P A^T + B B^T = 0, of a system or batch.

    Unstable systems and systems with a non-zero feedthrough D have norm ``+inf``.

    Returns
    -------
    float for one system, ndarray (N,) for a batch.
    """
    refuse_uncertain(sys, "sys", "h2norm")
    A, B, C, D, single = stacked_state_space(sys)
    N, n = A.shape[:2]
    out = np.full(N, np.inf)
    stable = _is_stable(np.linalg.eigvals(A)) if n else np.ones(N, bool)
    proper = ~np.any(D != 0, axis=(1, 2))
    for i in np.flatnonzero(stable & proper):
        if n == 0:
            out[i] = 0.0
            continue
        P = solve_continuous_lyapunov(A[i], -B[i] @ B[i].T)
        out[i] = np.sqrt(max(np.trace(C[i] @ P @ C[i].T), 0.0))
    valid = _valid_rows(sys)
    if valid is not None:
        out[~valid] = np.nan
    return float(out[0]) if single else out
