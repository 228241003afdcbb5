"""The flat 4-node shell element on a square: MITC4 Reissner-Mindlin plate + QM6 membrane.

Node order (natural coordinates): (-1, -1), (1, -1), (1, 1), (-1, 1).  Five DOF per node,
``[u, v, w, theta_x, theta_y]``: mid-plane translations [m] and the in-plane components of the
rotation vector [rad], so that the displacement at height z is ``(u + z theta_y, v - z theta_x,
w)``.  There is no drilling DOF.

* membrane: QM6 (bilinear + the incompatible modes (1 - xi^2), (1 - eta^2) on u and v,
  condensed statically; on a square QM6 equals Wilson's Q6);
* bending: Reissner-Mindlin, curvatures ``k_xx = d theta_y/dx``, ``k_yy = -d theta_x/dy``,
  ``k_xy = d theta_y/dy - d theta_x/dx``;
* transverse shear (MITC4): ``g_xz = dw/dx + theta_y`` sampled at the mid-points of the edges
  eta = -1, +1 and interpolated linearly in eta; ``g_yz = dw/dy - theta_x`` sampled at the
  mid-points of xi = -1, +1, interpolated in xi; shear correction 5/6;
* consistent mass with rotary inertia ``rho h^3 / 12``.

2 x 2 Gauss quadrature throughout (exact for the mass and the bilinear membrane on a square).
All elements of a structured grid are identical, so :func:`shell_element` is called once.
"""

from __future__ import annotations

import numpy as np

__all__ = ["shell_element", "NODE_XI", "DOF_PER_NODE", "SHEAR_CORRECTION"]

NODE_XI = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
DOF_PER_NODE = 5
SHEAR_CORRECTION = 5.0 / 6.0
_GAUSS = np.array([-1.0, 1.0]) / np.sqrt(3.0)
_U, _V, _W, _TX, _TY = range(5)


def _shape(xi: float, eta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bilinear shape functions N (4,) and their derivatives dN/dxi, dN/deta (4,)."""
    sx, se = NODE_XI[:, 0], NODE_XI[:, 1]
    N = 0.25 * (1.0 + sx * xi) * (1.0 + se * eta)
    return N, 0.25 * sx * (1.0 + se * eta), 0.25 * se * (1.0 + sx * xi)


def _columns(dof: int) -> np.ndarray:
    return DOF_PER_NODE * np.arange(4) + dof


def _membrane_b(xi, eta, inv):
    _, dxi, deta = _shape(xi, eta)
    dx, dy = dxi * inv, deta * inv
    B = np.zeros((3, 20))
    B[0, _columns(_U)] = dx
    B[1, _columns(_V)] = dy
    B[2, _columns(_U)] = dy
    B[2, _columns(_V)] = dx
    Bi = np.zeros((3, 4))            # incompatible modes [u: 1-xi^2, 1-eta^2; v: 1-xi^2, 1-eta^2]
    Bi[0, 0] = -2.0 * xi * inv
    Bi[1, 3] = -2.0 * eta * inv
    Bi[2, 1] = -2.0 * eta * inv
    Bi[2, 2] = -2.0 * xi * inv
    return B, Bi


def _bending_b(xi, eta, inv):
    _, dxi, deta = _shape(xi, eta)
    B = np.zeros((3, 20))
    B[0, _columns(_TY)] = dxi * inv
    B[1, _columns(_TX)] = -deta * inv
    B[2, _columns(_TY)] = deta * inv
    B[2, _columns(_TX)] = -dxi * inv
    return B


def _shear_b_direct(xi, eta, inv):
    """Displacement-based transverse shear strains [g_xz; g_yz] (2, 20) at (xi, eta)."""
    N, dxi, deta = _shape(xi, eta)
    B = np.zeros((2, 20))
    B[0, _columns(_W)] = dxi * inv
    B[0, _columns(_TY)] = N
    B[1, _columns(_W)] = deta * inv
    B[1, _columns(_TX)] = -N
    return B


def _shear_b_mitc(xi, eta, inv):
    """MITC4 assumed transverse shear strains (2, 20) at (xi, eta)."""
    B = np.zeros((2, 20))
    B[0] = 0.5 * (1.0 - eta) * _shear_b_direct(0.0, -1.0, inv)[0] \
        + 0.5 * (1.0 + eta) * _shear_b_direct(0.0, 1.0, inv)[0]
    B[1] = 0.5 * (1.0 - xi) * _shear_b_direct(-1.0, 0.0, inv)[1] \
        + 0.5 * (1.0 + xi) * _shear_b_direct(1.0, 0.0, inv)[1]
    return B


def shell_element(side: float, thickness: float, youngs_modulus: float, poisson_ratio: float,
                  density: float) -> tuple[np.ndarray, np.ndarray]:
    """Stiffness and consistent mass of the square flat shell element.

    Parameters
    ----------
    side : float
        Element side a [m].
    thickness, youngs_modulus, poisson_ratio, density : float
        h [m], E [Pa], nu [-], rho [kg/m^3] (isotropic, homogeneous through the thickness).

    Returns
    -------
    K, M : (20, 20) ndarray
        Element stiffness [N/m, N, N m/rad] and mass [kg, kg m, kg m^2] in the DOF order
        ``5 * node + [u, v, w, theta_x, theta_y]``.
    """
    a, h, E, nu, rho = float(side), float(thickness), float(youngs_modulus), float(poisson_ratio), float(density)
    inv = 2.0 / a                      # d/dx = (2/a) d/dxi
    det = 0.25 * a * a                 # dx dy = det dxi deta
    iso = np.array([[1.0, nu, 0.0], [nu, 1.0, 0.0], [0.0, 0.0, 0.5 * (1.0 - nu)]]) / (1.0 - nu * nu)
    Cm = E * h * iso
    Cb = E * h**3 / 12.0 * iso
    Cs = SHEAR_CORRECTION * E / (2.0 * (1.0 + nu)) * h
    rot = rho * h**3 / 12.0
    K = np.zeros((20, 20))
    M = np.zeros((20, 20))
    Kcc = np.zeros((20, 20))
    Kci = np.zeros((20, 4))
    Kii = np.zeros((4, 4))
    density_per_dof = np.array([rho * h, rho * h, rho * h, rot, rot])
    for xi in _GAUSS:
        for eta in _GAUSS:
            Bm, Bi = _membrane_b(xi, eta, inv)
            Kcc += det * Bm.T @ Cm @ Bm
            Kci += det * Bm.T @ Cm @ Bi
            Kii += det * Bi.T @ Cm @ Bi
            Bb = _bending_b(xi, eta, inv)
            Bs = _shear_b_mitc(xi, eta, inv)
            K += det * (Bb.T @ Cb @ Bb + Cs * Bs.T @ Bs)
            N, _, _ = _shape(xi, eta)
            for d in range(DOF_PER_NODE):
                cols = _columns(d)
                M[np.ix_(cols, cols)] += det * density_per_dof[d] * np.outer(N, N)
    K += Kcc - Kci @ np.linalg.solve(Kii, Kci.T)
    return 0.5 * (K + K.T), M
