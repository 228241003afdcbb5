"""Reference for the full-order tests: the optimal H-infinity level of the DGKF problem by
bisection on the two Riccati equations and the coupling condition (Doyle, Glover,
Khargonekar, Francis 1989), independent of the tuner and of slycot's hinfsyn (design note
pitfall P7: sb10ad's gamma iteration can end 16 % above the optimum)."""

import numpy as np
import scipy.linalg


def _ric(H):
    """Stabilising solution of the Riccati equation of Hamiltonian H, or None."""
    n = H.shape[0] // 2
    ev = np.linalg.eigvals(H)
    if np.any(np.abs(ev.real) < 1e-9 * max(1.0, np.abs(ev).max())):
        return None
    T, U, sdim = scipy.linalg.schur(H, sort="lhp")
    if sdim != n:
        return None
    U11, U21 = U[:n, :n], U[n:, :n]
    if np.linalg.cond(U11) > 1e12:
        return None
    X = U21 @ np.linalg.inv(U11)
    return 0.5 * (X + X.T)


def feasible(A, B1, B2, C1, C2, gamma):
    g2 = gamma ** -2
    X = _ric(np.block([[A, g2 * B1 @ B1.T - B2 @ B2.T], [-C1.T @ C1, -A.T]]))
    Y = _ric(np.block([[A.T, g2 * C1.T @ C1 - C2.T @ C2], [-B1 @ B1.T, -A]]))
    if X is None or Y is None:
        return False
    if np.linalg.eigvalsh(X).min() < -1e-9 or np.linalg.eigvalsh(Y).min() < -1e-9:
        return False
    return np.max(np.abs(np.linalg.eigvals(X @ Y))) < gamma ** 2


def optimal_gamma(A, B1, B2, C1, C2, lo=1e-3, hi=1e4, rtol=1e-7):
    """Bisection (geometric) on gamma; returns the upper end (feasible)."""
    assert feasible(A, B1, B2, C1, C2, hi)
    while hi / lo > 1 + rtol:
        mid = np.sqrt(lo * hi)
        if feasible(A, B1, B2, C1, C2, mid):
            hi = mid
        else:
            lo = mid
    return hi


def random_plant(seed, n=5, nw1=2, nz1=2):
    """Random DGKF-normalised plant: z = [C1a x; u], y = C2 x + v, w = [w1; v].

    Returns (A, B1, B2, C1, C2) with one control and one measurement."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n))
    A -= (np.max(np.linalg.eigvals(A).real) + rng.uniform(0.2, 1.0)) * np.eye(n)  # stable
    B1a = rng.standard_normal((n, nw1))
    B2 = rng.standard_normal((n, 1))
    C1a = rng.standard_normal((nz1, n))
    C2 = rng.standard_normal((1, n))
    B1 = np.hstack([B1a, np.zeros((n, 1))])
    C1 = np.vstack([C1a, np.zeros((1, n))])
    return A, B1, B2, C1, C2
