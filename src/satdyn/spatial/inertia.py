"""Rigid-body mass matrices at a point and composite inertia of several bodies.

The 6x6 rigid mass matrix of a body at a point P, ``D_P``, maps the classical
acceleration twist ``[a_P; omega_dot]`` (velocity terms neglected) to the wrench
``[F; T_P]`` needed to produce it. At the centre of mass G, ``D_G = diag(m I, J_G)``;
elsewhere ``D_P = tau_GP.T @ D_G @ tau_GP`` (arXiv:2409.06017). It equals Pinocchio's
``Inertia(m, PG, J_G).matrix()``.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_batch_of, as_float_array, as_inertia, broadcast_batches
from .algebra import _frame_change, _skew, _tau

__all__ = [
    "rigid_mass_matrix",
    "parallel_axis",
    "mass_properties",
    "transport_mass_matrix",
    "composite_mass_matrix",
    "composite_inertia",
]


def _check_mass(mass, name="mass") -> np.ndarray:
    m = as_float_array(mass, name)
    if np.any(m <= 0.0):
        raise ValueError(f"`{name}` must be positive [kg]; got {m.min() if m.ndim else float(m)}")
    return m


def rigid_mass_matrix(mass, inertia, r_PG=None) -> np.ndarray:
    """6x6 rigid mass matrix at a point P.

    Parameters
    ----------
    mass : float or array_like, shape (...)
        Mass [kg], positive.
    inertia : array_like, shape (..., 3, 3)
        Inertia tensor about the centre of mass G [kg m^2]: symmetric, positive
        semi-definite (zero for a point mass).
    r_PG : array_like, shape (..., 3), optional
        Vector from P to G [m]. Default: P = G.

    Returns
    -------
    ndarray, shape (..., 6, 6)
        ``[[m I, m skew(GP)], [m skew(PG), J_G - m skew(PG)^2]]``.
    """
    m = _check_mass(mass)
    # symmetric and positive semi-definite; the triangle inequality is the caller's (a body
    # builder's) business: the 6x6 algebra is also used on generic positive blocks
    J = as_inertia(inertia, "inertia", triangle=False)
    r = np.zeros(3) if r_PG is None else as_batch_of(r_PG, (3,), "r_PG")
    shape = broadcast_batches((m, 0, "mass"), (J, 2, "inertia"), (r, 1, "r_PG"))
    D_G = np.zeros(shape + (6, 6))
    D_G[..., :3, :3] = m[..., None, None] * np.eye(3)
    D_G[..., 3:, 3:] = J
    tau_GP = _tau(-r)
    return np.swapaxes(tau_GP, -1, -2) @ D_G @ tau_GP


def parallel_axis(inertia, mass, r_PG) -> np.ndarray:
    """Inertia about P from the inertia about the centre of mass G (parallel-axis theorem).

    ``J_P = J_G - m skew(PG)^2 = J_G + m (|PG|^2 I - PG PG^T)``.

    Parameters
    ----------
    inertia : array_like, shape (..., 3, 3)
        Inertia about G [kg m^2].
    mass : float or array_like, shape (...)
        Mass [kg].
    r_PG : array_like, shape (..., 3)
        Vector from P to G [m].

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    J = as_batch_of(inertia, (3, 3), "inertia")
    m = _check_mass(mass)
    r = as_batch_of(r_PG, (3,), "r_PG")
    broadcast_batches((J, 2, "inertia"), (m, 0, "mass"), (r, 1, "r_PG"))
    d2 = np.einsum("...i,...i->...", r, r)
    return J + m[..., None, None] * (d2[..., None, None] * np.eye(3) - r[..., :, None] * r[..., None, :])


def mass_properties(mass_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mass, centre of mass and inertia about the centre of mass from a rigid mass matrix at P.

    Inverse of :func:`rigid_mass_matrix`.

    Parameters
    ----------
    mass_matrix : array_like, shape (..., 6, 6)
        Rigid mass matrix at a point P.

    Returns
    -------
    mass : ndarray, shape (...)
    r_PG : ndarray, shape (..., 3)
        Vector from P to the centre of mass G.
    inertia : ndarray, shape (..., 3, 3)
        Inertia about G.
    """
    D = as_batch_of(mass_matrix, (6, 6), "mass_matrix")
    m = D[..., 0, 0]
    if np.any(m <= 0.0):
        raise ValueError("`mass_matrix` has a non-positive mass entry D[0, 0]")
    # Upper-right block is m skew(GP) = -m skew(PG).
    coupling = D[..., :3, 3:] / m[..., None, None]
    r_PG = -0.5 * np.stack(
        [coupling[..., 2, 1] - coupling[..., 1, 2],
         coupling[..., 0, 2] - coupling[..., 2, 0],
         coupling[..., 1, 0] - coupling[..., 0, 1]], axis=-1)
    S = _skew(r_PG)
    J_G = D[..., 3:, 3:] + m[..., None, None] * (S @ S)
    return m, r_PG, 0.5 * (J_G + np.swapaxes(J_G, -1, -2))


def transport_mass_matrix(mass_matrix, r_QP, P_ab=None) -> np.ndarray:
    """Move a rigid mass matrix from point Q (frame a) to point P (frame b).

    ``D_P = tau_QP.T @ (T D_Q T.T) @ tau_QP`` with ``T = diag(P_ab, P_ab)``: the
    matrix is first re-expressed in frame b, then moved from Q to P.

    Parameters
    ----------
    mass_matrix : array_like, shape (..., 6, 6)
        ``D_Q`` in frame a.
    r_QP : array_like, shape (..., 3)
        Vector from Q to P [m], in frame b.
    P_ab : array_like, shape (..., 3, 3), optional
        DCM from frame a to frame b. Default: identity (a = b).

    Returns
    -------
    ndarray, shape (..., 6, 6)
        ``D_P`` in frame b.
    """
    D = as_batch_of(mass_matrix, (6, 6), "mass_matrix")
    r = as_batch_of(r_QP, (3,), "r_QP")
    if P_ab is not None:
        T = _frame_change(as_batch_of(P_ab, (3, 3), "P_ab"))
        D = T @ D @ np.swapaxes(T, -1, -2)
    broadcast_batches((D, 2, "mass_matrix"), (r, 1, "r_QP"))
    t = _tau(r)
    return np.swapaxes(t, -1, -2) @ D @ t


def composite_mass_matrix(mass_matrices, r_QP, P_ab=None) -> np.ndarray:
    """Composite rigid mass matrix at a common point P of bodies rigidly held together.

    Route 1 of the composite inertia (6x6 transport and sum); :func:`composite_inertia`
    is the classical route 2. The body axis is the one before the 6x6 (or 3) trailing axes.

    Parameters
    ----------
    mass_matrices : array_like, shape (..., n_bodies, 6, 6)
        Each body's ``D_Q`` at its own point Q_k, in its own frame a_k.
    r_QP : array_like, shape (..., n_bodies, 3)
        Vectors from each Q_k to P [m], in the common frame b.
    P_ab : array_like, shape (..., n_bodies, 3, 3), optional
        DCMs from each body frame a_k to b. Default: identity.

    Returns
    -------
    ndarray, shape (..., 6, 6)
    """
    D = as_batch_of(mass_matrices, (6, 6), "mass_matrices")
    if D.ndim < 3:
        raise ValueError(f"`mass_matrices` must have shape (..., n_bodies, 6, 6); got {D.shape}")
    return transport_mass_matrix(D, r_QP, P_ab).sum(axis=-3)


def composite_inertia(masses, coms, inertias, dcms=None):
    """Total mass, centre of mass and inertia about it, by the classical (3x3) route.

    Parameters
    ----------
    masses : array_like, shape (..., n_bodies)
        Body masses [kg], >= 0 with a positive total (massless members carry no inertia
        about their own CoM, or a rotational inertia only).
    coms : array_like, shape (..., n_bodies, 3)
        Body centres of mass [m] in the common frame b, from any common origin O.
    inertias : array_like, shape (..., n_bodies, 3, 3)
        Inertias about each body's centre of mass [kg m^2], in each body frame a_k.
    dcms : array_like, shape (..., n_bodies, 3, 3), optional
        DCMs ``P_{a_k/b}``. Default: identity.

    Returns
    -------
    mass : ndarray, shape (...)
    com : ndarray, shape (..., 3)
        System centre of mass, from O, in frame b.
    inertia : ndarray, shape (..., 3, 3)
        System inertia about its centre of mass, in frame b.
    """
    m = as_float_array(masses, "masses")
    if m.ndim < 1:
        raise ValueError("`masses` must have shape (..., n_bodies)")
    # Massless members (a URDF tool frame, a gimbal link) are allowed; the total must be positive.
    if np.any(m < 0.0) or np.any(m.sum(axis=-1) <= 0.0):
        raise ValueError(f"`masses` must be >= 0 [kg] with a positive total; got {m.tolist()}")
    r = as_batch_of(coms, (3,), "coms")
    J = as_batch_of(inertias, (3, 3), "inertias")
    if dcms is not None:
        R = as_batch_of(dcms, (3, 3), "dcms")
        J = R @ J @ np.swapaxes(R, -1, -2)
    broadcast_batches((m, 0, "masses"), (r, 1, "coms"), (J, 2, "inertias"))
    total = m.sum(axis=-1)
    com = np.einsum("...k,...ki->...i", m, r) / total[..., None]
    d = r - com[..., None, :]
    d2 = np.einsum("...ki,...ki->...k", d, d)
    steiner = d2[..., None, None] * np.eye(3) - d[..., :, None] * d[..., None, :]
    inertia = (J + m[..., None, None] * steiner).sum(axis=-3)
    return total, com, inertia
