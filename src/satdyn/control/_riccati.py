"""Stabilising solution of an algebraic Riccati equation from its Hamiltonian matrix.

Arguments:
    H : real ndarray (2n, 2n), a Hamiltonian matrix [[A, R], [-Q, -A^T]] with R, Q symmetric
        and possibly indefinite (the H-infinity Riccati equations A^T X + X A + X R X + Q = 0
        have R = gamma^-2 B1 B1^T - B2 B2^T, which is indefinite).

``scipy.linalg.solve_continuous_are`` assumes a definite quadratic term and gives no
reason when the solution does not exist; H-infinity synthesis needs to know *why* a level
gamma fails (imaginary-axis eigenvalues, no complementary stable subspace, X not positive
semidefinite), so the solution is read off the ordered real Schur form of H: with
H U = U T and the first n Schur vectors spanning the stable invariant subspace,
X = U21 U11^-1 (Laub 1979; Zhou, Doyle and Glover, "Robust and Optimal Control", 1996,
ch. 13, Ric(H)).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

__all__ = ["RiccatiSolution", "stabilizing_solution"]

# An eigenvalue lambda of H counts as on the imaginary axis when
# |Re lambda| <= _AXIS_REL |lambda| + _AXIS_ABS ||H||: a backward-stable eigensolver moves a
# well-conditioned eigenvalue by about eps ||H|| (so the absolute term, 1000 eps, cannot
# mistake a genuine slow stable mode such as the -1e-6 "integrator" of a performance weight
# for an axis one), while a Jordan pair at the axis (the situation at gamma_opt) splits by
# ~sqrt(eps) relative, which the relative term catches. Levels this test lets through by
# error are caught by the sign, symmetry and coupling tests of the solutions and, at the end,
# by the closed-loop stability and norm check of hinfsyn.
_AXIS_REL = 1e-8
_AXIS_ABS = 1e3 * np.finfo(float).eps
# U11 (the stable subspace's top block) is declared singular (no complementary subspace)
# beyond this condition number: X would carry no correct digit.
_MAX_CONDITION = 1e12


@dataclass(frozen=True)
class RiccatiSolution:
    """Outcome of :func:`stabilizing_solution`.

    Attributes
    ----------
    X : ndarray (n, n) or None
        The symmetric stabilising solution, None when it does not exist.
    reason : str
        "" on success, otherwise why the solution does not exist.
    """

    X: object
    reason: str


def stabilizing_solution(H) -> RiccatiSolution:
    """Stabilising solution X = Ric(H) of the Riccati equation of the Hamiltonian H (2n, 2n)."""
    H = np.asarray(H, dtype=float)
    n = H.shape[0] // 2
    scale = max(np.linalg.norm(H, 1), 1e-300)
    try:
        T, U, sdim = scipy.linalg.schur(H, output="real", sort="lhp")
    except np.linalg.LinAlgError:
        # LAPACK's reordering (trsen) refuses swaps it cannot do accurately: eigenvalues too
        # close to each other across the imaginary axis
        return RiccatiSolution(None, "the Schur reordering failed (eigenvalues too close to the imaginary axis)")
    eig = np.linalg.eigvals(T)  # quasi-triangular: cheap and the same spectrum as H
    if np.any(np.abs(eig.real) <= _AXIS_REL * np.abs(eig) + _AXIS_ABS * scale):
        return RiccatiSolution(None, "the Hamiltonian has eigenvalues on the imaginary axis")
    if sdim != n:
        return RiccatiSolution(None, f"the Hamiltonian has {sdim} stable eigenvalues, not {n}")
    U11, U21 = U[:n, :n], U[n:, :n]
    if np.linalg.cond(U11) > _MAX_CONDITION:
        return RiccatiSolution(None, "the stable invariant subspace is not complementary to [0; I]")
    X = np.linalg.solve(U11.T, U21.T).T
    asym = np.linalg.norm(X - X.T, 1)
    if asym > 1e-6 * max(np.linalg.norm(X, 1), 1.0):
        return RiccatiSolution(None, "the Riccati solution is not symmetric (ill-conditioned level)")
    return RiccatiSolution(0.5 * (X + X.T), "")
