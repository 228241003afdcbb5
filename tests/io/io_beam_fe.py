"""A 3-D Euler-Bernoulli beam (Hermite elements) clamped at one end: the structure whose modes the
NASTRAN tests write into F06 text and read back (test helper, not a test module).

Node k sits at (k h, 0, 0); DOFs per node [ux uy uz rx ry rz]. Node 0 is the clamped
interface point P. ``beam_modes`` returns the mass-normalised clamped-free modes and the
TITOP data computed directly from them: L_P = Phi^T M D_r (rows = modes), the tip mode
shape, and D_P = D_r^T M D_r.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla


@dataclass
class BeamModes:
    x: np.ndarray            # (N+1,) node abscissae [m]
    omega: np.ndarray        # (n,) rad/s
    shapes: np.ndarray       # (n, N+1, 6) mass-normalised, node 0 rows zero
    L_P: np.ndarray          # (n, 6)
    D_P: np.ndarray          # (6, 6)
    M: np.ndarray
    K: np.ndarray
    D_r: np.ndarray


def element(h, E, G, A, Iy, Iz, J, rho):
    """12 x 12 stiffness and consistent mass of a beam element along x."""
    K = np.zeros((12, 12))
    Mm = np.zeros((12, 12))

    def put(mat, dofs, block):
        mat[np.ix_(dofs, dofs)] += block

    put(K, [0, 6], E * A / h * np.array([[1, -1], [-1, 1]]))
    put(K, [3, 9], G * J / h * np.array([[1, -1], [-1, 1]]))
    kb = np.array([[12, 6 * h, -12, 6 * h], [6 * h, 4 * h * h, -6 * h, 2 * h * h],
                   [-12, -6 * h, 12, -6 * h], [6 * h, 2 * h * h, -6 * h, 4 * h * h]])
    flip = np.diag([1, -1, 1, -1])                   # (uz, ry): ry = -duz/dx
    put(K, [1, 5, 7, 11], E * Iz / h ** 3 * kb)
    put(K, [2, 4, 8, 10], E * Iy / h ** 3 * flip @ kb @ flip)
    put(Mm, [0, 6], rho * A * h / 6 * np.array([[2, 1], [1, 2]]))
    put(Mm, [3, 9], rho * (Iy + Iz) * h / 6 * np.array([[2, 1], [1, 2]]))
    mb = np.array([[156, 22 * h, 54, -13 * h], [22 * h, 4 * h * h, 13 * h, -3 * h * h],
                   [54, 13 * h, 156, -22 * h], [-13 * h, -3 * h * h, -22 * h, 4 * h * h]])
    put(Mm, [1, 5, 7, 11], rho * A * h / 420 * mb)
    put(Mm, [2, 4, 8, 10], rho * A * h / 420 * flip @ mb @ flip)
    return K, Mm


def rigid_modes(x):
    """(6 (N+1), 6) displacements of the nodes for a rigid motion [t; theta] about the origin."""
    D = np.zeros((6 * x.size, 6))
    for k, xk in enumerate(x):
        D[6 * k:6 * k + 3, :3] = np.eye(3)
        D[6 * k + 3:6 * k + 6, 3:] = np.eye(3)
        # theta x r with r = (xk, 0, 0): (0, theta_z xk, -theta_y xk)
        D[6 * k + 1, 5] = xk
        D[6 * k + 2, 4] = -xk
    return D


def beam_modes(n_elements=20, length=2.0, n_modes=6, *, E=70e9, G=27e9, width=0.05, thickness=0.02, rho=2700.0):
    b, t = width, thickness
    A, Iy, Iz = b * t, b * t ** 3 / 12, t * b ** 3 / 12
    J = b * t ** 3 / 3 * (1 - 0.63 * t / b)            # thin rectangle torsion constant
    h = length / n_elements
    N = n_elements
    K = np.zeros((6 * (N + 1),) * 2)
    M = np.zeros_like(K)
    ke, me = element(h, E, G, A, Iy, Iz, J, rho)
    for e in range(N):
        sl = slice(6 * e, 6 * e + 12)
        K[sl, sl] += ke
        M[sl, sl] += me
    x = np.arange(N + 1) * h
    D_r = rigid_modes(x)
    f = np.arange(6, 6 * (N + 1))                      # free DOFs (node 0 clamped)
    lam, V = sla.eigh(K[np.ix_(f, f)], M[np.ix_(f, f)])
    V = V[:, :n_modes]
    shapes = np.zeros((n_modes, N + 1, 6))
    shapes[:, 1:, :] = V.T.reshape(n_modes, N, 6)
    full = shapes.reshape(n_modes, -1)
    L_P = full @ M @ D_r
    return BeamModes(x, np.sqrt(lam[:n_modes]), shapes, L_P, D_r.T @ M @ D_r, M, K, D_r)
