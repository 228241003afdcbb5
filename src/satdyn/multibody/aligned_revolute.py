"""Frame-aligned revolute joints in the batch-last sweeps of :mod:`.sweeps`.

A revolute joint about +x, +y or +z of its joint frame has ``R = P0 E(theta)`` with ``E`` a plane
rotation of the two other axes ``(j, l)``, so its motion transform is
``X = blockdiag(E^T, E^T) X_fixed`` with the constant ``X_fixed = [[P0^T, -P0^T skew(p)], [0, P0^T]]``.
Motions, wrenches and articulated inertias then move by one constant 6x6 product and a 2x2
mixing of two components (or rows) per 3-half, instead of a general 3x3 or 6x6 product.

Arguments: ``c`` the body's sweep constants (``c.mix = (j, l)``, ``c.fixed_T = X_fixed^T`` (6, 6)),
``cos``/``sin`` of the joint angles (N,), 6-vectors ``m``/``f`` (6, N), articulated inertias
``Ia`` (6, 6, N) or (6, 6, 1), ``work`` the sweep's :class:`~.sweeps.Workspace`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["mix_pairs", "aligned_motion_to_child", "aligned_force_to_parent", "congruence_axis"]


def mix_pairs(m, j, l, cos, sin):
    """In place: ``(m_j, m_l) <- (cos m_j - sin m_l, sin m_j + cos m_l)`` in both halves of m (6, N)."""
    mm = m.reshape(2, 3, -1)
    a_j, a_l = mm[:, j] * sin, mm[:, l] * sin
    mm[:, j] *= cos
    mm[:, j] -= a_l
    mm[:, l] *= cos
    mm[:, l] += a_j
    return m


def aligned_motion_to_child(c, cos, sin, m):
    """``sweeps._motion_to_child`` for a revolute joint about a frame axis.

    Computes ``E_b^T (X_fixed m)``, E a plane rotation.
    """
    return mix_pairs(np.matmul(c.fixed_T.T, m), *c.mix, cos, -sin)


def aligned_force_to_parent(c, cos, sin, f):
    """``sweeps._force_to_parent`` for a revolute joint about a frame axis: ``X_fixed^T (E_b f)``."""
    return np.matmul(c.fixed_T, mix_pairs(np.array(f), *c.mix, cos, sin))


def congruence_axis(Ia, cos, sin, c, work, n):
    """``X^T Ia X`` (6, 6, N) for a revolute joint about a frame axis (see the module doc).

    ``E_b M`` (``E_b = blockdiag(E, E)``) only mixes the rows ``j`` and ``l`` of each 3x6 half:
    ``(r_j, r_l) <- (cos r_j - sin r_l, sin r_j + cos r_l)``; the constant ``X_fixed^T`` is one large
    product (one BLAS call), all batch-last. Returns a workspace block.
    """
    j, l = c.mix
    if work.owns(Ia, "Ia", n):
        M = Ia                                                   # this body's scratch: mixed in place
    else:                                                        # a constant or shared factor: mix a copy
        M = work.block("mixed", n)
        np.copyto(M, Ia)
    t_j, t_l = work.block("pair_j", n), work.block("pair_l", n)
    Y = work.block("product", n)
    T = work.block("congruent", n)
    # F = X_fixed^T (E_b M E_b^T) X_fixed = H X' with H = X_fixed^T E_b M and X' = E_b^T X_fixed; F is
    # symmetric, so F = X'^T H^T: the second half is the first applied to H^T, and every mixing acts
    # on whole rows (contiguous (6, N) slices; column slices are about twice as slow).
    for step in range(2):
        rows = M.reshape(2, 3, 6, n).transpose(1, 0, 2, 3)     # rows[k]: row k of both 3x6 halves
        r_j, r_l = rows[j], rows[l]
        a_j, a_l = t_j.reshape(r_j.shape), t_l.reshape(r_l.shape)
        np.multiply(r_j, sin, out=a_j)
        np.multiply(r_l, sin, out=a_l)
        r_j *= cos
        r_j -= a_l
        r_l *= cos
        r_l += a_j
        np.matmul(c.fixed_T, M.reshape(6, 6 * n), out=Y.reshape(6, 6 * n))   # X_fixed^T (E_b M)
        if step == 0:
            np.copyto(T, Y.transpose(1, 0, 2))                                # H^T
            M = T
    return Y
