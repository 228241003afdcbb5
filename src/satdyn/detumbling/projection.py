"""Parameter projection of the adaptation law: estimates kept in a convex physical set.

arXiv:2407.17617's law ``pi_hat' = -Gamma_pi Y^T S s`` leaves the estimates free; on the paper
scenario the hinge stiffness, damping and friction estimates turn negative within 0.3 s. A tug
that knows a convex set ``P`` holding the true parameters can keep its estimates in ``P`` by
the *tangent-cone projection* of the update (the standard projection operator of adaptive
control, here with several constraints active at once):

    pi_hat' = Proj(pi_hat, tau) = argmin_{delta in T_P(pi_hat)} |delta - tau|_{Gamma^-1},

``tau`` the unprojected update and ``T_P`` the tangent cone of ``P`` at ``pi_hat`` (the
constraints active there). With the scalar ``Gamma_pi`` of this package the metric is the
Euclidean one. For every ``pi`` in ``P`` the projection satisfies

    (pi_hat - pi)^T Gamma^-1 (Proj(pi_hat, tau) - tau) <= 0,

so the projected law's ``V' <= -s^T (K + D) s``: projection only removes Lyapunov energy and the
convergence proof of controller B holds unchanged, with estimates bounded by ``P``.

``P`` (:class:`ParameterSet`) is the intersection of

* a box ``lower <= pi <= upper`` (masses ``>= mass_min > 0``; first moments, hinge stiffness,
  damping and friction bounded, the hinge terms ``>= 0``);
* per link, the spectral bounds ``eig_min <= lambda(J_i) <= eig_max`` of the inertia about H
  (``eig_min > 0``: positive definite), convex because ``lambda_min`` is concave and
  ``lambda_max`` convex in ``J``.

The grasp estimates ``d_hat`` are kept in the ball ``|d_hat| <= grasp_radius`` the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls

from .client import N_PARAMETERS, ClientParams, inertia_matrix

__all__ = ["ParameterSet", "physical_parameter_set"]

_INERTIA_SLICES = (slice(4, 10), slice(14, 20))
# d lambda / d j for j = [Jxx, Jyy, Jzz, Jxy, Jxz, Jyz] and unit eigenvector u: u_a u_b, doubled off the diagonal
_PAIRS = ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))
_WEIGHTS = np.array([1.0, 1.0, 1.0, 2.0, 2.0, 2.0])


def _eigen_gradient(u: np.ndarray) -> np.ndarray:
    return _WEIGHTS * np.array([u[a] * u[b] for a, b in _PAIRS])


@dataclass(frozen=True)
class ParameterSet:
    """Convex set of physically admissible parameter vectors (see the module docstring).

    Attributes
    ----------
    lower, upper : ndarray, shape (29,)
        Box bounds of ``pi`` (``-inf``/``inf`` allowed; the inertia entries are usually left free
        and bounded through the spectral bounds).
    inertia_eigenvalues : ndarray, shape (2, 2)
        ``[[eig_min_1, eig_max_1], [eig_min_2, eig_max_2]]`` [kg m^2] of the link inertias about H.
    grasp_radius : float
        Bound of ``|d_hat|`` [m].
    tolerance : float
        A constraint counts as active within this distance of its bound (absorbs the
        integrator's step over the boundary).
    """

    lower: np.ndarray
    upper: np.ndarray
    inertia_eigenvalues: np.ndarray
    grasp_radius: float = np.inf
    tolerance: float = 1e-9

    def __post_init__(self):
        lo = np.asarray(self.lower, dtype=float)
        hi = np.asarray(self.upper, dtype=float)
        eig = np.asarray(self.inertia_eigenvalues, dtype=float)
        if lo.shape != (N_PARAMETERS,) or hi.shape != (N_PARAMETERS,):
            raise ValueError(f"`lower` and `upper` must have shape ({N_PARAMETERS},); got {lo.shape}, {hi.shape}")
        if np.isnan(lo).any() or np.isnan(hi).any() or not np.all(lo <= hi):
            raise ValueError("`lower` must be <= `upper` entry by entry (no nan)")
        if eig.shape != (2, 2) or not np.all(np.isfinite(eig)) or not np.all(eig[:, 0] > 0) \
                or not np.all(eig[:, 0] <= eig[:, 1]):
            raise ValueError("`inertia_eigenvalues` must be [[min1, max1], [min2, max2]] with 0 < min <= max; "
                             f"got {eig.tolist()}")
        if not self.grasp_radius > 0:
            raise ValueError(f"`grasp_radius` must be positive [m]; got {self.grasp_radius!r}")
        if not (np.isfinite(self.tolerance) and self.tolerance >= 0):
            raise ValueError(f"`tolerance` must be a finite number >= 0; got {self.tolerance!r}")
        object.__setattr__(self, "lower", lo.copy())
        object.__setattr__(self, "upper", hi.copy())
        object.__setattr__(self, "inertia_eigenvalues", eig.copy())

    def violation(self, pi: np.ndarray) -> float:
        """Largest constraint violation of ``pi`` (n,) (0 inside; units of the violated bound)."""
        pi = np.asarray(pi, dtype=float)
        n = pi.shape[-1]
        worst = max(0.0, float(np.max(self.lower[:n] - pi)), float(np.max(pi - self.upper[:n])))
        for link, sl in enumerate(_INERTIA_SLICES):
            if sl.stop > n:
                continue
            lam = np.linalg.eigvalsh(inertia_matrix(pi[sl]))
            lo, hi = self.inertia_eigenvalues[link]
            worst = max(worst, lo - lam[0], lam[-1] - hi)
        return worst

    def contains(self, pi: np.ndarray, tol: float = 0.0) -> bool:
        """True when ``pi`` (n,) satisfies every constraint within ``tol``."""
        return self.violation(pi) <= tol

    def active_normals(self, pi: np.ndarray) -> np.ndarray:
        """Outward normals (k, n) of the constraints active at ``pi`` (n,) (gradients of ``g <= 0``)."""
        n = pi.shape[0]
        tol = self.tolerance
        rows = []
        for j in np.flatnonzero(pi >= self.upper[:n] - tol):
            a = np.zeros(n)
            a[j] = 1.0
            rows.append(a)
        for j in np.flatnonzero(pi <= self.lower[:n] + tol):
            a = np.zeros(n)
            a[j] = -1.0
            rows.append(a)
        for link, sl in enumerate(_INERTIA_SLICES):
            if sl.stop > n:
                continue
            lam, U = np.linalg.eigh(inertia_matrix(pi[sl]))
            lo, hi = self.inertia_eigenvalues[link]
            for value, u, sign in ((lam[0], U[:, 0], -1.0), (lam[-1], U[:, -1], 1.0)):
                if (sign < 0 and value <= lo + tol) or (sign > 0 and value >= hi - tol):
                    a = np.zeros(n)
                    a[sl] = sign * _eigen_gradient(u)
                    rows.append(a)
        return np.array(rows).reshape(len(rows), n)

    def project_rate(self, pi_hat: np.ndarray, rate: np.ndarray) -> np.ndarray:
        """Tangent-cone projection of the update ``rate`` (n,) at ``pi_hat`` (n,).

        ``delta = rate - A^T lambda`` with ``lambda = argmin_{lambda >= 0} |A^T lambda - rate|``
        (NNLS; ``A`` the active outward normals): the KKT conditions of
        ``min |delta - rate|^2 s.t. A delta <= 0``. Equal to ``rate`` when no active
        constraint is violated by it.
        """
        A = self.active_normals(pi_hat)
        if A.shape[0] == 0 or not np.any(A @ rate > 0):
            return rate
        lam, _ = nnls(A.T, rate)
        return rate - A.T @ lam

    def project_grasp_rate(self, d_hat: np.ndarray, rate: np.ndarray) -> np.ndarray:
        """Tangent-cone projection of the grasp update ``rate`` (3,) on the ball ``|d_hat| <= grasp_radius``."""
        r = float(np.sqrt(d_hat @ d_hat))
        if r < self.grasp_radius - self.tolerance or d_hat @ rate <= 0:
            return rate
        u = d_hat / r
        return rate - (u @ rate) * u

    def clip(self, pi: np.ndarray) -> np.ndarray:
        """A point of the set near ``pi`` (n,): box entries clipped, inertia eigenvalues clipped.

        Used for initial estimates only (the eigenvalue clip is the nearest point in the
        Frobenius norm of ``J``, not in the norm of ``pi``).
        """
        n = pi.shape[0]
        out = np.clip(np.asarray(pi, dtype=float), self.lower[:n], self.upper[:n])
        for link, sl in enumerate(_INERTIA_SLICES):
            if sl.stop > n:
                continue
            lam, U = np.linalg.eigh(inertia_matrix(out[sl]))
            J = (U * np.clip(lam, *self.inertia_eigenvalues[link])) @ U.T
            out[sl] = [J[a, b] for a, b in _PAIRS]
        return out

    def holds(self, client: ClientParams) -> bool:
        """True when the set holds ``client``'s true parameters and grasp points (what the proof needs)."""
        return self.contains(client.parameters) and \
            max(np.linalg.norm(client.grasp1), np.linalg.norm(client.grasp2)) <= self.grasp_radius

    def clip_grasp(self, d: np.ndarray) -> np.ndarray:
        """``d`` (3,) moved radially into the ball ``|d| <= grasp_radius``."""
        r = float(np.linalg.norm(d))
        return d if r <= self.grasp_radius else d * (self.grasp_radius / r)


def physical_parameter_set(*, mass=(1.0, 200.0), link_radius: float = 2.0, inertia_eigenvalues=(0.5, 1000.0),
                           stiffness_max: float = 100.0, damping_max: float = 100.0, friction_max: float = 100.0,
                           grasp_radius: float = 2.0) -> ParameterSet:
    """The prior knowledge of a tug as a :class:`ParameterSet` (same bounds for both links).

    Parameters
    ----------
    mass : (float, float)
        ``(m_min, m_max)`` [kg], ``0 < m_min <= m_max``.
    link_radius : float
        Largest distance of a link's centre of mass from H [m]: ``|h_a| <= m_max link_radius``.
    inertia_eigenvalues : (float, float)
        Bounds of the eigenvalues of each link's inertia about H [kg m^2], ``0 < min <= max``.
    stiffness_max, damping_max, friction_max : float
        Upper bounds of the hinge ``k`` [N m/rad], ``xi`` [N m s/rad], ``f_c`` [N m] (lower bounds 0).
    grasp_radius : float
        Bound of ``|d_hat|`` [m].

    The defaults hold the paper scenario's client (masses 50 and 10 kg, ``|c| <= 1.2`` m, inertia
    eigenvalues about H between 3.2 and 79.3 kg m^2, hinge k <= 0.5, xi <= 0.4, f_c = 0, grasps
    within 1.1 m of H) with wide margins.
    """
    m_lo, m_hi = (float(v) for v in mass)
    if not (0 < m_lo <= m_hi < np.inf):
        raise ValueError(f"`mass` must be (m_min, m_max) with 0 < m_min <= m_max finite [kg]; got {mass!r}")
    for name, value in (("link_radius", link_radius), ("stiffness_max", stiffness_max),
                        ("damping_max", damping_max), ("friction_max", friction_max)):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"`{name}` must be a positive finite number; got {value!r}")
    lower = np.full(N_PARAMETERS, -np.inf)
    upper = np.full(N_PARAMETERS, np.inf)
    for start in (0, 10):
        lower[start], upper[start] = m_lo, m_hi
        lower[start + 1:start + 4], upper[start + 1:start + 4] = -m_hi * link_radius, m_hi * link_radius
    lower[20:] = 0.0
    upper[20:23], upper[23:26], upper[26:29] = stiffness_max, damping_max, friction_max
    return ParameterSet(lower, upper, np.array([inertia_eigenvalues, inertia_eigenvalues], dtype=float),
                        float(grasp_radius))
