"""Goal values, local peaks and their gradients with respect to the tuned parameters.

For an H-infinity goal the closed-loop channel ``T = Dcl + Ccl (jw - Acl)^-1 Bcl`` is
evaluated on each scenario; its norm comes from :func:`satdyn.robust.hinfnorm` (level-set
iteration, tolerance 1e-10: the optimiser's line search needs a quiet function, design
note pitfall P8). The nonsmooth optimiser (``pieces=True``) needs more than the global peak:
**every local maximum** of ``sigma_max(T(jw))`` above ``rho`` times the goal's largest value (equal-height
lobes are typical at an H-infinity optimum, pitfall P3). They are found on a grid built
from the closed-loop poles (modal evaluation, O(n) per frequency), refined by a batched
golden-section search, and joined by the exact peak of ``hinfnorm``.

Gradient of ``sigma = sigma_max(T(jw))`` at a simple top singular value (u, v) with respect
to the static gain Kt (``dT = Tzu dKt Tyw``, ``Tzu = D12 + Ccl R B2``, ``Tyw = D21 + C2 R Bcl``,
``R = (jw - Acl)^-1``)::

    d sigma / d Kt = Re( conj(Tzu^H u) (Tyw v)^T )

When ``sigma_2 >= (1 - cluster_gap) sigma_1`` (repeated singular values, pitfall P2) the
piece also carries the exact first-order 2x2 model ``diag(s1, s2) + Herm(sum_k d_k G_k)``
with ``G_k = U2^H Tzu (dKt/dz_k) Tyw V2``, used by the SQP's cutting planes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
from scipy.linalg import solve_continuous_lyapunov

from ..robust import hinfnorm
from .goals import Poles

__all__ = ["Evaluation", "Piece", "evaluate", "UNSTABLE_TOL"]

UNSTABLE_TOL = 1e-12  # the same margin as satdyn.robust.hinfnorm: Re p >= -tol max(1, |p|) is unstable


@dataclass
class Piece:
    """One (goal, scenario, frequency) piece: value and gradient w.r.t. the scaled free parameters."""

    goal: int
    scenario: int
    omega: float
    value: float
    grad: np.ndarray
    cluster: tuple | None = None  # (sigmas (2,), G (P, 2, 2) complex)


@dataclass
class Evaluation:
    """Values (ngoals, N), peak frequencies (ngoals, N), loop poles, pieces (optional)."""

    values: np.ndarray
    peaks: np.ndarray
    stable: np.ndarray
    abscissa: np.ndarray
    pieces: list = field(default_factory=list)


def _loop_poles(problem, K):
    L = problem.loop
    Acl = L.A + L.B2 @ K @ L.C2
    return Acl, np.linalg.eigvals(Acl) if Acl.shape[1] else np.zeros((Acl.shape[0], 0), complex)


def _is_stable(poles):
    if poles.shape[1] == 0:
        return np.ones(poles.shape[0], bool)
    return np.all(poles.real < -UNSTABLE_TOL * np.maximum(1.0, np.abs(poles)), axis=1)


def _h2(Acl, Bcl, Ccl, Dcl):
    """H2 norms (N,), with Lyapunov solutions P, Q for the gradient."""
    N = Acl.shape[0]
    vals = np.full(N, np.inf)
    PQ = [None] * N
    for i in range(N):
        if np.any(Dcl[i] != 0):
            continue
        P = solve_continuous_lyapunov(Acl[i], -Bcl[i] @ Bcl[i].T)
        Q = solve_continuous_lyapunov(Acl[i].T, -Ccl[i].T @ Ccl[i])
        vals[i] = np.sqrt(max(np.trace(Ccl[i] @ P @ Ccl[i].T), 0.0))
        PQ[i] = (P, Q)
    return vals, PQ


def _transfer(Acl, Bcl, Ccl, Dcl, G, idx, omega):
    """T, Tzu, Tyw at scenarios idx (k,) and frequencies omega (k,) (inf allowed)."""
    n = Acl.shape[1]
    B2, C2, D12, D21 = G.B2[idx], G.C2[idx], G.D12[idx], G.D21[idx]
    T = Dcl[idx].astype(complex)
    Tzu, Tyw = D12.astype(complex), D21.astype(complex)
    fin = np.isfinite(omega)
    if n and np.any(fin):
        f = np.flatnonzero(fin)
        pencil = 1j * omega[f, None, None] * np.eye(n) - Acl[idx[f]]
        X = np.linalg.solve(pencil, np.concatenate([B2[f], Bcl[idx[f]]], axis=2))
        nu = B2.shape[2]
        Tzu[f] = D12[f] + Ccl[idx[f]] @ X[:, :, :nu]
        T[f] = T[f] + Ccl[idx[f]] @ X[:, :, nu:]
        Y = np.linalg.solve(np.swapaxes(pencil, 1, 2), np.swapaxes(C2[f], 1, 2))  # (R^T C2^T)
        Tyw[f] = D21[f] + np.swapaxes(Y, 1, 2) @ Bcl[idx[f]]
    return T, Tzu, Tyw


def _sigma_grid(CV, WB, lam, D, omega):
    """sigma_max of D + CV diag(1/(jw - lam)) WB on per-scenario frequencies omega (N, nf)."""
    H = 1.0 / (1j * omega[:, :, None] - lam[:, None, :])
    T = np.einsum("npk,nfk,nkm->nfpm", CV, H, WB) + D[:, None]
    return _sigma_max(T)


def _sigma_max(T):
    """Largest singular value over the last two axes; closed form for 2 x 2 (no batched SVD:
    the peak search evaluates 10^4-10^5 small matrices per call)."""
    if T.shape[-2] == 1 or T.shape[-1] == 1:
        return np.sqrt(np.sum(np.abs(T) ** 2, axis=(-2, -1)))
    if T.shape[-2:] == (2, 2):
        fro2 = np.sum(np.abs(T) ** 2, axis=(-2, -1))
        det = np.abs(T[..., 0, 0] * T[..., 1, 1] - T[..., 0, 1] * T[..., 1, 0])
        return np.sqrt(0.5 * (fro2 + np.sqrt(np.maximum(fro2 ** 2 - 4.0 * det ** 2, 0.0))))
    return np.linalg.norm(T, ord=2, axis=(-2, -1))


def _local_peaks(Acl, Bcl, Ccl, Dcl, gamma, peak, rho, npoints=120, iterations=24):
    """Local maxima (scenario, omega) of sigma_max above rho * gamma_max (N scenarios)."""
    N, n = Acl.shape[:2]
    out = [(s, float(peak[s])) for s in range(N) if np.isfinite(gamma[s])]
    if n == 0:
        return out
    lam, V = np.linalg.eig(Acl)
    cond = np.linalg.cond(V)
    ok = np.isfinite(gamma) & (cond < 1e10)
    idx = np.flatnonzero(ok)
    if idx.size == 0:
        return out
    Vi = np.linalg.inv(V[idx])
    CV, WB, lam_i = Ccl[idx] @ V[idx], Vi @ Bcl[idx], lam[idx]
    mag = np.abs(lam_i)
    lo = np.maximum(np.min(np.where(mag > 0, mag, np.inf), axis=1), 1e-8) * 1e-2
    hi = np.maximum(np.max(mag, axis=1), 1e-6) * 1e2
    base = np.exp(np.linspace(0, 1, npoints)[None] * np.log(hi / lo)[:, None]) * lo[:, None]
    omega = np.sort(np.concatenate([np.zeros((len(idx), 1)), base, np.abs(lam_i.imag), mag,
                                    np.abs(peak[idx, None]).clip(max=1e12)], axis=1), axis=1)
    omega = np.where(np.isfinite(omega), omega, hi[:, None])
    sig = _sigma_grid(CV, WB, lam_i, Dcl[idx], omega)
    level = np.asarray(rho)[idx, None] if np.ndim(rho) else rho * np.max(gamma[np.isfinite(gamma)])
    left = np.concatenate([np.full((len(idx), 1), -np.inf), sig[:, :-1]], axis=1)
    right = np.concatenate([sig[:, 1:], np.full((len(idx), 1), -np.inf)], axis=1)
    cand = (sig >= left) & (sig >= right) & (sig >= level)
    rows, cols = np.nonzero(cand)
    if rows.size == 0:
        return out
    nf = omega.shape[1]
    a = omega[rows, np.maximum(cols - 1, 0)]
    b = omega[rows, np.minimum(cols + 1, nf - 1)]
    # batched golden-section maximisation on [a, b]
    g = (np.sqrt(5.0) - 1.0) / 2.0
    sub = (CV[rows], WB[rows], lam_i[rows], Dcl[idx][rows])

    def f(w):
        return _sigma_grid(*sub[:3], sub[3], w[:, None])[:, 0]

    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(iterations):
        left_better = fc >= fd
        b = np.where(left_better, d, b)
        a = np.where(left_better, a, c)
        c_new = b - g * (b - a)
        d_new = a + g * (b - a)
        c, d = np.where(left_better, c_new, d), np.where(left_better, c, d_new)
        fnew = f(np.where(left_better, c, d))
        fc, fd = np.where(left_better, fnew, fd), np.where(left_better, fc, fnew)
    w_best = np.where(fc >= fd, c, d)
    at_dc = omega[rows, cols] == 0.0
    w_best = np.where(at_dc & (f(np.zeros_like(w_best)) >= np.maximum(fc, fd)), 0.0, w_best)
    for r, w in zip(rows, w_best):
        s = int(idx[r])
        pk = peak[s]
        if np.isfinite(pk) and abs(w - pk) <= 1e-3 * max(pk, 1e-9):
            continue
        out.append((s, float(w)))
    return out


def _hinf_eval(gi, G, cl, J, gamma, peak, rho, cluster_gap, pieces):
    """Values (N,), peak frequencies (N,) and pieces of one H-infinity goal.

    The values are ``hinfnorm``'s. (An earlier ``hinfnorm`` could stop at the feedthrough
    level below an interior lobe, so the values used to be the larger of it and the refined
    local maxima; with the fixed norm the refined maxima never exceed it by more than 6e-16
    relative on 5,300 arm closed loops and the PID benchmark, so the local peaks are only
    computed when the optimiser needs pieces.)
    """
    Acl, Bcl, Ccl, Dcl = cl
    if not pieces:
        return gamma.copy(), peak.copy(), []
    finite = np.isfinite(gamma)
    gmax = np.max(gamma[finite]) if np.any(finite) else np.inf
    # grid points can sit well below the lobe they sample (seen: 1.4e-3 relative below a
    # lobe 5e-4 above the feedthrough level), so detect at 0.9 of the level and filter after
    # the refinement
    level = 0.9 * np.minimum(np.where(finite, gamma, np.inf), rho * gmax if pieces else np.inf)
    cand = _local_peaks(Acl, Bcl, Ccl, Dcl, gamma, peak, level)
    if Dcl.size:  # the peak at infinite frequency (feedthrough)
        sD = np.linalg.norm(Dcl, ord=2, axis=(1, 2))
        cand += [(s, np.inf) for s in np.flatnonzero(finite & (sD >= level)) if not np.isinf(peak[s])]
    values, peaks = gamma.copy(), peak.copy()
    if not cand:
        return values, peaks, []
    idx = np.array([c[0] for c in cand], int)
    omega = np.array([c[1] for c in cand], float)
    T, Tzu, Tyw = _transfer(Acl, Bcl, Ccl, Dcl, G, idx, omega)
    U, S, Vh = np.linalg.svd(T)
    keep = S[:, 0] >= rho * np.max(values[finite])
    out = []
    u, v = U[:, :, 0], np.conj(Vh[:, 0, :])
    a = np.einsum("kij,ki->kj", np.conj(Tzu), u)  # Tzu^H u  (k, nu)
    b = np.einsum("kij,kj->ki", Tyw, v)  # Tyw v (k, ny)
    gK = np.real(np.conj(a)[:, :, None] * b[:, None, :])
    grads = np.einsum("kpij,kij->kp", J[idx], gK)
    for k in np.flatnonzero(keep):
        cluster = None
        if S.shape[1] >= 2 and S[k, 1] >= (1.0 - cluster_gap) * S[k, 0] and S[k, 0] > 0:
            U2, V2 = U[k, :, :2], np.conj(Vh[k, :2, :]).T
            a2 = U2.conj().T @ Tzu[k]  # (2, nu)
            b2 = Tyw[k] @ V2  # (ny, 2)
            Gk = np.einsum("pij,ai,jb->pab", J[idx[k]], a2, b2)
            cluster = (S[k, :2].copy(), Gk)
        out.append(Piece(gi, int(idx[k]), float(omega[k]), float(S[k, 0]), grads[k], cluster))
    return values, peaks, out


def check_parameters(ctrl, x, what: str = "x") -> np.ndarray:
    """``x`` as the controller's full parameter vector (P,), or a ValueError naming the
    non-finite / missing parameters (a NaN gain would otherwise surface as a LinAlgError deep
    in an eigenvalue routine)."""
    x = np.asarray(x, dtype=float)
    n = len(ctrl.x0)
    if x.shape != (n,):
        raise ValueError(f"`{what}` must hold the {n} controller parameters; got shape {x.shape}")
    bad = ~np.isfinite(x)
    if bad.any():
        names = [ctrl.parameter_names[i] for i in np.flatnonzero(bad)[:5]]
        raise ValueError(f"`{what}` must be finite; parameters {names} are {x[bad][0]!r}")
    return x


def evaluate(problem, x, *, pieces=False, rho=0.8, cluster_gap=0.05, tol=1e-10, spectral_count=4):
    """Evaluate every goal of ``problem`` at the full parameter vector ``x``.

    Parameters
    ----------
    problem : TuningProblem
    x : ndarray (P,)
    pieces : bool
        Also return the pieces (local maxima with gradients) the optimiser needs.
    rho : float
        Keep local maxima above ``rho`` times the goal's largest value over the scenarios.
    cluster_gap : float
        Relative gap below which the two largest singular values form a cluster.
    tol : float
        Relative tolerance of the H-infinity norm.

    Returns
    -------
    Evaluation
        ``values`` is ``+inf`` for every goal on a scenario whose feedback loop is unstable.
    """
    ctrl = problem.controller
    N = problem.N
    x = check_parameters(ctrl, x)
    K = ctrl.gain(x, problem.taus, N)
    Aloop, poles = _loop_poles(problem, K)
    stable = _is_stable(poles)
    abscissa = poles.real.max(axis=1) if poles.shape[1] else np.full(N, -np.inf)
    ng = len(problem.goals)
    values = np.full((ng, N), np.inf)
    peaks = np.full((ng, N), np.nan)
    out = []
    J = ctrl.jacobian(x, problem.taus, N) if pieces else None
    for gi, (goal, G) in enumerate(zip(problem.goals, problem.plants)):
        if goal.kind == "spectral":
            v = goal.values(poles) if poles.shape[1] else np.zeros((N, 0))
            values[gi] = v.max(axis=1) if v.shape[1] else -np.inf
            if pieces:
                out += _spectral_pieces(gi, goal, problem.loop, Aloop, poles, v, J, spectral_count, rho)
            continue
        if not np.any(stable):
            continue
        s = np.flatnonzero(stable)
        cl = G.subset(s).close(K[s])
        if goal.kind == "hinf":
            res = hinfnorm(SimpleNamespace(A=cl[0], B=cl[1], C=cl[2], D=cl[3]), tol=tol)
            gam, pk = np.full(N, np.nan), np.full(N, np.nan)
            gam[s] = np.where(res.stable, res.value, np.inf)
            pk[s] = res.peak_frequency
            full = tuple(np.zeros((N,) + c.shape[1:]) for c in cl)
            for f, c in zip(full, cl):
                f[s] = c
            if not np.all(stable):
                full[0][~stable] = -np.eye(full[0].shape[1])
            vals, pks, pcs = _hinf_eval(gi, G, full, J, gam, pk, rho, cluster_gap, pieces)
            values[gi, s], peaks[gi, s] = vals[s], pks[s]
            out += pcs
        else:  # h2
            vals, PQ = _h2(*cl)
            values[gi, s] = vals
            if pieces:
                out += _h2_pieces(gi, G, cl, s, vals, PQ, J, rho)
    return Evaluation(values, peaks, stable, abscissa, out)


def _h2_pieces(gi, G, cl, s, vals, PQ, J, rho):
    Acl, Bcl, Ccl, Dcl = cl
    finite = np.isfinite(vals)
    if not np.any(finite):
        return []
    level = rho * vals[finite].max()
    pieces = []
    for k in np.flatnonzero(finite & (vals >= level)):
        P, Q = PQ[k]
        i = s[k]
        B2, C2, D12, D21 = G.B2[i], G.C2[i], G.D12[i], G.D21[i]
        dJ = 2.0 * (D12.T @ Ccl[k] @ P @ C2.T + B2.T @ Q @ P @ C2.T + B2.T @ Q @ Bcl[k] @ D21.T)
        grad = np.einsum("pij,ij->p", J[i], dJ) / (2.0 * max(vals[k], 1e-300))
        pieces.append(Piece(gi, int(i), np.nan, float(vals[k]), grad))
    return pieces


def _spectral_pieces(gi, goal: Poles, L, Aloop, poles, v, J, count, rho):
    N, n = poles.shape
    if n == 0:
        return []
    top = np.argsort(-v, axis=1)[:, :count]
    level = np.max(v) - (1.0 - rho) * abs(np.max(v)) - 1e-12
    pieces = []
    for i in range(N):
        lam_all, W, V = None, None, None
        for j in top[i]:
            if v[i, j] < level:
                continue
            if lam_all is None:
                import scipy.linalg

                lam_all, W, V = scipy.linalg.eig(Aloop[i], left=True, right=True)
            k = int(np.argmin(np.abs(lam_all - poles[i, j])))
            w, vr, lam = W[:, k], V[:, k], lam_all[k]
            den = np.conj(w) @ vr
            a = (np.conj(w) @ L.B2[i]) / den  # (nu,)
            b = L.C2[i] @ vr  # (ny,)
            dlam = a[:, None] * b[None, :]
            dre, dim = goal.derivative(np.array([lam]))
            gK = dre[0] * dlam.real + dim[0] * dlam.imag
            pieces.append(Piece(gi, i, float(abs(lam.imag)), float(v[i, j]), np.einsum("pij,ij->p", J[i], gK)))
    return pieces
