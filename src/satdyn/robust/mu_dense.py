"""The LMI barrier of the D-G GEVP for small structures, from a dense basis (for ``mu_centers``).

F_t(y) = t D_w,L + D_w,N - H(D, G) is linear in the scalings' parameters y (``_CentersLayout``):
with E_a the w-side placement of parameter a in D_w and Q_a = dH/dy_a,

    F_t(y) = sum_a y_a A_a(t),   A_a(t) = c_a(t) E_a - Q_a   (c_a = t on level blocks, else 1).

Then, with F_t = L L^H and T_a = L^-1 A_a L^-H (and U_a = L_D^-1 E_a L_D^-H for the barrier
-log det D_w), the barrier phi_t = -log det F_t - log det D_w has

    grad_a = -tr T_a - tr U_a,      hess_ab = Re <T_a, T_b> + Re <U_a, U_b>,

one batched product per Newton step: O(p m^3 + p^2 m^2) per matrix, against the Kronecker
assembly of ``mu_barrier`` (O(k^2 r^4), but dozens of small numpy calls per block pair).
For Delta up to ~20 channels (p m^2 below ``DENSE_LIMIT``) the Python overhead of those calls
is what a Newton step cost (~0.7 ms at 4-10 channels); here a step is a dozen numpy calls.
The basis Q (F, p, m, m) is built once per chunk of matrices.
"""

from __future__ import annotations

import numpy as np

from .mu_barrier import _barrier_start, _level_of, _CentersLayout

__all__ = ["DENSE_LIMIT", "DenseBarrier", "dense_applies"]

# p m^2 at most (complex entries of the basis per matrix): 4-20 channels of repeated reals
DENSE_LIMIT = 60_000


def dense_applies(layout: _CentersLayout) -> bool:
    """Small enough for the dense basis (memory and flops of the Hessian grow as p^2 m^2)."""
    return layout.size * layout.structure.m**2 <= DENSE_LIMIT


def _local_basis(layout, r):
    """The r^2 Hermitian basis matrices (r^2, r, r) of ``_hermitian_basis`` order."""
    index, coef = layout.bases[r]
    E = np.zeros((r * r, r * r), complex)
    a = np.arange(r * r)
    np.add.at(E, (a, index[0]), coef[0])
    np.add.at(E, (a, index[1]), coef[1])
    return E.reshape(r * r, r, r)


class DenseBarrier:
    """Barrier terms and levels of one chunk of matrices M (F, n, m) from a dense basis."""

    def __init__(self, layout: _CentersLayout, M):
        st = layout.structure
        F, p, m = M.shape[0], layout.size, st.m
        self.layout = layout
        Ew = np.zeros((p, m, m), complex)
        Q = np.zeros((F, p, m, m), complex)
        level = np.zeros(p, bool)
        for i, (b, zs, ws) in enumerate(zip(st.blocks, st.z_slices, st.w_slices)):
            Mz = M[:, zs, :]
            if b.is_scalar:
                r = b.z_size
                E = _local_basis(layout, r)
                a = slice(layout.D_offsets[i], layout.D_offsets[i] + r * r)
                Ew[a, ws, ws] = E
                Q[:, a] = np.einsum("fpi,apq,fqj->faij", np.conj(Mz), E, Mz)
                level[a] = layout.level[i]
                if layout.G_offsets[i] is not None:
                    a = slice(layout.G_offsets[i], layout.G_offsets[i] + r * r)
                    X = np.zeros((F, r * r, m, m), complex)
                    X[:, :, ws, :] = np.einsum("apq,fqj->fapj", E, Mz)   # G M with G = E_a at (w_i, z_i)
                    Q[:, a] = 1j * (X - np.conj(np.swapaxes(X, -1, -2)))
            else:
                a = layout.full_offsets[i]
                Ew[a, ws, ws] = np.eye(b.w_size)
                Q[:, a] = np.conj(np.swapaxes(Mz, 1, 2)) @ Mz
                level[a] = layout.level[i]
        self.Ew, self.Q, self.param_level = Ew, Q, level
        self.level_w = layout.level_w

    def _matrices(self, rows, y):
        Dw = np.tensordot(y, self.Ew, axes=(1, 0))
        H = np.einsum("fa,faij->fij", y, self.Q[rows])
        return Dw, H

    def level(self, rows, y):
        """Smallest t with t D_w,L + D_w,N - H >= 0 per row (inf where none): ``_pencil_max``."""
        Dw, H = self._matrices(rows, y)
        return _level_of(H, Dw, self.level_w)

    def terms(self, rows, y, t):
        """Barrier value (R,), gradient (R, p), Hessian (R, p, p), feasibility (R,)."""
        R, p = y.shape
        Dw, H = self._matrices(rows, y)
        value, grad, hess, ok, k, Lk, LDk = _barrier_start(H, Dw, t, self.level_w, p)
        if k.size == 0:
            return value, grad, hess, ok
        c = np.where(self.param_level[None, :], t[k, None], 1.0)               # (K, p)
        A = c[:, :, None, None] * self.Ew[None] - self.Q[rows[k]]              # (K, p, m, m)
        Li = np.linalg.inv(Lk)[:, None]
        LDi = np.linalg.inv(LDk)[:, None]
        T = (Li @ A @ np.conj(np.swapaxes(Li, -1, -2))).reshape(k.size, p, -1)
        U = (LDi @ self.Ew[None] @ np.conj(np.swapaxes(LDi, -1, -2))).reshape(k.size, p, -1)
        m = self.Ew.shape[1]
        diag = np.arange(m) * (m + 1)
        grad[k] = -np.real(np.sum(T[:, :, diag], axis=2) + np.sum(U[:, :, diag], axis=2))
        # Re <T_a, T_b> = Re tr(T_a T_b) for Hermitian T (the Hessian of -log det)
        hess[k] = (T.real @ np.swapaxes(T.real, 1, 2) + T.imag @ np.swapaxes(T.imag, 1, 2)
                   + U.real @ np.swapaxes(U.real, 1, 2) + U.imag @ np.swapaxes(U.imag, 1, 2))
        return value, grad, hess, ok
