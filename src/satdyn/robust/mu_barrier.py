"""The LMI barrier of the D-G generalised-eigenvalue problem and its derivatives (for ``mu_centers``).

For scalings (D, G) packed in a real vector y (``_CentersLayout``) and a level t,

    F_t(y) = t D_w,L + D_w,N - H(D, G),   H = M^H D_z M + j (G M - M^H G^H),
    phi_t(y) = -log det F_t(y) - log det D_w(y),

where L are the blocks the level multiplies (all for mu; the performance block for the
skew-mu of a worst-case gain). ``_pencil_max`` gives the smallest feasible t of a point,
``_barrier_terms`` the value, gradient and Hessian of phi_t for a chunk of matrices.

The Hessian of phi_t is assembled from W = B S B^H, B_i = [M_{z_i,:}; E_{w_i}^T], with the
Kronecker structure of the scalings (X_i = K_D(t_i) (x) D_i + K_G (x) G_i), so its cost is
O(k^2 r^4) per frequency and the Cholesky factorisation of the (p x p) Hessian
(p = sum r_i^2 per D and G, plus one per full block) dominates. A full block's scalar
d_f enters as A_f = t_f E_f E_f^T - M_f^H M_f, with Hessian row tr(S A_f S A_b).
All frequencies of a chunk are processed at once.
"""

from __future__ import annotations

import numpy as np


def _hermitian_basis(r):
    """Real parameterisation of r x r Hermitian matrices.

    Returns ``(index, coef)`` of shape (2, r*r): parameter a puts ``coef[k, a]`` at the
    flattened entry ``index[k, a]`` (k = 0, 1; row-major p*r + q). Parameter order:
    diagonal entries, then (p < q) real parts, then (p < q) imaginary parts.
    """
    index = np.zeros((2, r * r), dtype=int)
    coef = np.zeros((2, r * r), dtype=complex)
    a = 0
    for p in range(r):
        index[:, a] = p * r + p
        coef[0, a] = 1.0
        a += 1
    pairs = [(p, q) for p in range(r) for q in range(p + 1, r)]
    for p, q in pairs:
        index[:, a] = (p * r + q, q * r + p)
        coef[:, a] = (1.0, 1.0)
        a += 1
    for p, q in pairs:
        index[:, a] = (p * r + q, q * r + p)
        coef[:, a] = (1j, -1j)
        a += 1
    return index, coef


def _slice_index(slices, blocks):
    """Concatenated row indices of ``slices[b]`` for b in ``blocks``."""
    return np.concatenate([np.arange(slices[b].start, slices[b].stop) for b in blocks])


class _CentersLayout:
    """Parameter vector and level pattern of the GEVP.

    Parameters, in order: per scalar block the r^2 real parameters of D_i, then those of
    G_i (real blocks), then one d_i per full block (D_z,i = d_i I_z, D_w,i = d_i I_w).
    ``level`` (k,) bool marks the blocks whose w-side scaling the level t multiplies:
    F_t = t D_w,L + D_w,N - H(D, G). All blocks for mu; only the performance block for the
    skew-mu of a worst-case gain.
    """

    def __init__(self, structure, level_blocks=None):
        self.structure = structure
        blocks = structure.blocks
        k = len(blocks)
        self.level = np.ones(k, bool) if level_blocks is None else np.array(level_blocks, bool)
        if self.level.shape != (k,) or not np.any(self.level):
            raise ValueError(f"`level_blocks` must be {k} booleans, at least one True; got {level_blocks!r}")
        self.level_w = np.concatenate([np.full(b.w_size, lv) for b, lv in zip(blocks, self.level)])
        self.sizes = np.array([b.z_size for b in blocks])
        self.D_offsets, self.G_offsets, self.full_offsets = [None] * k, [None] * k, [None] * k
        offset = 0
        for i, b in enumerate(blocks):
            if b.is_scalar:
                self.D_offsets[i] = offset
                offset += b.z_size**2
        for i, b in enumerate(blocks):
            if b.kind == "real":
                self.G_offsets[i] = offset
                offset += b.z_size**2
        self.full = [i for i, b in enumerate(blocks) if not b.is_scalar]
        for i in self.full:
            self.full_offsets[i] = offset
            offset += 1
        self.size = offset
        scalar_sizes = sorted({int(b.z_size) for b in blocks if b.is_scalar})
        self.bases = {r: _hermitian_basis(r) for r in scalar_sizes}
        # trace(D_w) = c . y: the diagonal parameters of every D_i, w_size per full block
        self.trace_vector = np.zeros(self.size)
        for i, b in enumerate(blocks):
            if b.is_scalar:
                self.trace_vector[self.D_offsets[i]:self.D_offsets[i] + b.z_size] = 1.0
            else:
                self.trace_vector[self.full_offsets[i]] = b.w_size
        scalar = [i for i, b in enumerate(blocks) if b.is_scalar]
        real = [i for i, b in enumerate(blocks) if b.kind == "real"]
        self.D_index = self.parameter_index("D", scalar) if scalar else np.zeros(0, int)
        self.G_index = self.parameter_index("G", real) if real else np.zeros(0, int)
        # scalar blocks grouped by size: the Hessian is assembled group pair by group pair
        self.groups = [(r, np.array([i for i, b in enumerate(blocks) if b.is_scalar and b.z_size == r]))
                       for r in scalar_sizes]

    def parameter_index(self, kind, blocks):
        """Global parameter indices of the D (kind "D") or G ("G") scalings of ``blocks``."""
        offsets = self.D_offsets if kind == "D" else self.G_offsets
        return np.concatenate([offsets[b] + np.arange(self.sizes[b] ** 2) for b in blocks])

    def to_matrix(self, y, offset, r):
        """Hermitian (F, r, r) from the r^2 parameters at ``offset``."""
        index, coef = self.bases[r]
        params = y[:, offset:offset + r * r]
        flat = np.zeros((y.shape[0], r * r), complex)
        for k in range(2):
            np.add.at(flat, (slice(None), index[k]), params * coef[k])
        return flat.reshape(-1, r, r)

    def from_matrix(self, X, r):
        """Parameters (F, r^2) of a Hermitian (F, r, r)."""
        index, coef = self.bases[r]
        flat = X.reshape(X.shape[0], -1)
        out = np.real(flat[:, index[0]])
        nd = r * (r - 1) // 2
        out[:, r + nd:] = np.imag(flat[:, index[0, r + nd:]])
        return out

    def pack(self, Dz, G):
        """Parameters (F, p) of block-diagonal scalings Dz (F, n, n) and G (F, m, n)."""
        st = self.structure
        y = np.zeros((Dz.shape[0], self.size))
        for i, (b, zs, ws) in enumerate(zip(st.blocks, st.z_slices, st.w_slices)):
            r = b.z_size
            if b.is_scalar:
                y[:, self.D_offsets[i]:self.D_offsets[i] + r * r] = self.from_matrix(Dz[:, zs, zs], r)
            else:
                y[:, self.full_offsets[i]] = np.real(np.trace(Dz[:, zs, zs], axis1=1, axis2=2)) / r
            if self.G_offsets[i] is not None:
                y[:, self.G_offsets[i]:self.G_offsets[i] + r * r] = self.from_matrix(G[:, ws, zs], r)
        return y

    def assemble(self, y):
        """Block-diagonal Dz (F, n, n), Dw (F, m, m) and G (F, m, n)."""
        st = self.structure
        F = y.shape[0]
        Dz = np.zeros((F, st.n, st.n), complex)
        Dw = np.zeros((F, st.m, st.m), complex)
        G = np.zeros((F, st.m, st.n), complex)
        for i, (b, zs, ws) in enumerate(zip(st.blocks, st.z_slices, st.w_slices)):
            r = b.z_size
            if b.is_scalar:
                Di = self.to_matrix(y, self.D_offsets[i], r)
                Dz[:, zs, zs] = Di
                Dw[:, ws, ws] = Di
            else:
                d = y[:, self.full_offsets[i], None, None]
                Dz[:, zs, zs] = d * np.eye(b.z_size)
                Dw[:, ws, ws] = d * np.eye(b.w_size)
            if self.G_offsets[i] is not None:
                G[:, ws, zs] = self.to_matrix(y, self.G_offsets[i], r)
        return Dz, Dw, G


def _hermitian_part(X):
    return 0.5 * (X + np.conj(np.swapaxes(X, -1, -2)))


def _pencil_max(M, Dz, Dw, G, level_w=None):
    """Smallest t with t D_w,L + D_w,N - H(D, G) >= 0 per row; inf where there is none.

    ``level_w`` (m,) bool marks the w indices the level multiplies (default all: the largest
    generalised eigenvalue of (H, D_w)). Otherwise the N part must be positive by itself,
    Q = D_w,NN - H_NN > 0, and t is the largest eigenvalue of the Schur complement
    H_LL + H_LN Q^-1 H_NL relative to D_w,LL.
    """
    out = np.full(M.shape[0], np.inf)
    finite = (np.all(np.isfinite(Dz), axis=(1, 2)) & np.all(np.isfinite(Dw), axis=(1, 2))
              & np.all(np.isfinite(G), axis=(1, 2)))
    if not np.any(finite):
        return out
    M, Dz, Dw, G = M[finite], Dz[finite], Dw[finite], G[finite]
    MH = np.conj(np.swapaxes(M, 1, 2))
    H = MH @ Dz @ M + 1j * (G @ M - MH @ np.conj(np.swapaxes(G, 1, 2)))
    out[finite] = _level_of(H, Dw, level_w)
    return out


def _level_of(H, Dw, level_w=None):
    """``_pencil_max`` from H(D, G) (F, m, m) and D_w (F, m, m) (finite rows)."""
    H = _hermitian_part(H)
    ok = np.ones(H.shape[0], bool)
    if level_w is not None and not np.all(level_w):
        lv, nl = np.flatnonzero(level_w), np.flatnonzero(~np.asarray(level_w))
        # D > 0 on the N blocks too: Q > 0 alone would admit an indefinite D (no certificate)
        _, ok = _cholesky(Dw[:, nl][:, :, nl])
        LQ, okQ = _cholesky(Dw[:, nl][:, :, nl] - H[:, nl][:, :, nl])
        ok &= okQ
        X = np.zeros((H.shape[0], nl.size, lv.size), complex)
        if np.any(ok):
            X[ok] = np.linalg.solve(LQ[ok], H[ok][:, nl][:, :, lv])   # LQ^-1 H_NL
        H = H[:, lv][:, :, lv] + np.conj(np.swapaxes(X, 1, 2)) @ X
        Dw = Dw[:, lv][:, :, lv]
    L, okD = _cholesky(Dw)
    ok &= okD
    lam = np.full(H.shape[0], np.inf)
    if np.any(ok):
        Linv = np.linalg.inv(L[ok])
        lam[ok] = np.linalg.eigvalsh(_hermitian_part(Linv @ H[ok] @ np.conj(np.swapaxes(Linv, 1, 2))))[:, -1]
    return lam


def _cholesky(X):
    """Batched Cholesky; rows that are not positive definite are flagged, not raised."""
    X = 0.5 * (X + np.conj(np.swapaxes(X, -1, -2)))
    try:
        return np.linalg.cholesky(X), np.ones(X.shape[0], bool)
    except np.linalg.LinAlgError:
        L = np.zeros_like(X)
        ok = np.zeros(X.shape[0], bool)
        for k in range(X.shape[0]):
            try:
                L[k] = np.linalg.cholesky(X[k])
                ok[k] = True
            except np.linalg.LinAlgError:
                pass
        return L, ok




def _barrier_start(H, Dw, t, level_w, p):
    """Cholesky factors and value of phi_t = -log det F_t - log det D_w; empty grad, Hessian.

    Returns value (F,) (inf where infeasible), grad (F, p), hess (F, p, p) zeros, ok (F,),
    rows (the feasible ones), and the factors L of F_t and L_D of D_w on those rows.
    """
    F = H.shape[0]
    level_rows = np.where(level_w[None, :], t[:, None], 1.0)       # (F, m)
    L, ok = _cholesky(level_rows[:, :, None] * Dw - H)
    LD, okD = _cholesky(Dw)  # block-diagonal D_w > 0 <=> every D_i > 0 and d_i > 0
    ok &= okD
    value = np.full(F, np.inf)
    rows = np.flatnonzero(ok)
    Lr, LDr = L[rows], LD[rows]
    value[rows] = (-2.0 * np.sum(np.log(np.real(np.diagonal(Lr, axis1=1, axis2=2))), axis=1)
                   - 2.0 * np.sum(np.log(np.real(np.diagonal(LDr, axis1=1, axis2=2))), axis=1))
    return value, np.zeros((F, p)), np.zeros((F, p, p)), ok, rows, Lr, LDr


def _barrier_terms(M, layout, y, t):
    """Barrier value (F,), gradient (F, p), Hessian (F, p, p) and feasibility (F,).

    phi_t(y) = -log det F_t(y) - log det D_w(y),  F_t = t D_w,L + D_w,N - H(D, G).
    """
    st = layout.structure
    Dz, Dw, G = layout.assemble(y)
    MH = np.conj(np.swapaxes(M, 1, 2))
    H = MH @ Dz @ M + 1j * (G @ M - MH @ np.conj(np.swapaxes(G, 1, 2)))
    p = layout.size
    value, grad, hess, ok, rows, Lr, LDr = _barrier_start(H, Dw, t, layout.level_w, p)
    if rows.size == 0:
        return value, grad, hess, ok
    Linv = np.linalg.inv(Lr)
    Sr = np.conj(np.swapaxes(Linv, 1, 2)) @ Linv
    LDinv = np.linalg.inv(LDr)
    Dinv = np.conj(np.swapaxes(LDinv, 1, 2)) @ LDinv
    Mr, MHr = M[rows], MH[rows]
    # W = B S B^H in four parts: 00 z-z (M S M^H), 01 z-w (M S), 10 w-z (S M^H), 11 w-w (S)
    parts = _Products(Mr @ Sr, Sr, MHr)
    tb = np.where(layout.level[None, :], t[rows, None], 1.0)              # (F, k) level per block
    R = rows.size
    g = np.zeros((R, p))
    h = np.zeros((R, p, p))
    zsl, wsl = st.z_slices, st.w_slices
    # scalar blocks: X_i = K_D(t_i) (x) D_i + K_G (x) G_i, K_D(t) = diag(-1, t), K_G = [[0, j], [-j, 0]]
    for ri, mem_i in layout.groups:
        k = len(mem_i)
        ii = np.arange(k)
        Wii = parts.pair(_slice_index(zsl, mem_i), _slice_index(wsl, mem_i),
                         _slice_index(zsl, mem_i), _slice_index(wsl, mem_i), k, ri, k, ri)
        Wd = np.moveaxis(Wii[:, :, ii, :, :, ii, :], 0, 1)   # diagonal blocks W_ii (F, k, 2, r, 2, r)
        Dinv_i = np.stack([Dinv[:, wsl[b], wsl[b]] for b in mem_i], axis=1)  # (F, k, r, r)
        # dphi = Re tr(Gamma dX_i), Gamma_D = -(t_i W^(11) - W^(00)) - D^-1, Gamma_G = -j(W^(10) - W^(01))
        gamma_D = Wd[:, :, 0, :, 0, :] - tb[:, mem_i, None, None] * Wd[:, :, 1, :, 1, :] - Dinv_i
        gamma_G = -1j * (Wd[:, :, 1, :, 0, :] - Wd[:, :, 0, :, 1, :])
        g[:, layout.parameter_index("D", mem_i)] = _project_vector(gamma_D, layout.bases[ri]).reshape(R, -1)
        with_G = [b for b in mem_i if layout.G_offsets[b] is not None]
        if with_G:
            sel = [list(mem_i).index(b) for b in with_G]
            g[:, layout.parameter_index("G", with_G)] = _project_vector(
                gamma_G[:, sel], layout.bases[ri]).reshape(R, -1)
        for rj, mem_j in layout.groups:
            Wij = parts.pair(_slice_index(zsl, mem_i), _slice_index(wsl, mem_i),
                             _slice_index(zsl, mem_j), _slice_index(wsl, mem_j), k, ri, len(mem_j), rj)
            _add_hessian_pair(h, Wij, tb[:, mem_i], tb[:, mem_j], layout, mem_i, mem_j, ri, rj)
        # D barrier: tr(D^-1 E_a D^-1 E_b) -> R[(p,q),(s,u)] = conj(D^-1[p,u]) D^-1[q,s]
        Rb = (np.conj(Dinv_i)[:, :, :, None, None, :] * Dinv_i[:, :, None, :, :, None]).reshape(R, k, ri * ri, ri * ri)
        glob = layout.parameter_index("D", mem_i).reshape(k, ri * ri)
        h[:, glob[:, :, None], glob[:, None, :]] += _project(Rb, layout.bases[ri], layout.bases[ri])
    if layout.G_index.size:
        h[:, layout.G_index[:, None], layout.D_index[None, :]] = np.swapaxes(
            h[:, layout.D_index[:, None], layout.G_index[None, :]], 1, 2)
    _add_full_blocks(g, h, parts, Mr, MHr, Dinv, tb, layout)
    grad[rows] = g
    hess[rows] = h
    return value, grad, hess, ok


class _Products:
    """M S, S and M^H of a chunk; blocks of W = B S B^H on demand (M S M^H only where needed)."""

    def __init__(self, MS, S, MH):
        self.MS, self.S, self.MH = MS, S, MH
        self.SMH = np.conj(np.swapaxes(MS, 1, 2))

    def pair(self, zi, wi, zj, wj, ki, ri, kj, rj):
        """W blocks of two block sets, (F, 2, ki, ri, 2, kj, rj) (alpha 0: z side, 1: w side)."""
        F = self.S.shape[0]
        W = np.empty((F, 2, zi.size, 2, zj.size), complex)
        W[:, 0, :, 0, :] = self.MS[:, zi] @ self.MH[:, :, zj]
        W[:, 0, :, 1, :] = self.MS[:, zi][:, :, wj]
        W[:, 1, :, 0, :] = self.SMH[:, wi][:, :, zj]
        W[:, 1, :, 1, :] = self.S[:, wi][:, :, wj]
        return W.reshape(F, 2, ki, ri, 2, kj, rj)


def _add_full_blocks(g, h, parts, M, MH, Dinv, tb, layout):
    """Gradient and Hessian entries of the full blocks' scalars d_f.

    dF_t/dd_f = A_f = t_f E_f E_f^T - M_f^H M_f (E_f: w-selector, M_f: the block's rows of M).
    With U_f = S A_f S the Hessian row is tr(U_f A_b) for every parameter b; for a scalar
    block j it is Re tr(Gamma E_b) with V = B_j U_f B_j^H as for the gradient.
    """
    st = layout.structure
    zsl, wsl = st.z_slices, st.w_slices
    S, MS, SMH = parts.S, parts.MS, parts.SMH
    for f in layout.full:
        zf, wf, of = zsl[f], wsl[f], layout.full_offsets[f]
        q = st.blocks[f].w_size
        inv_d = np.real(Dinv[:, wf.start, wf.start])           # 1 / d_f
        g[:, of] = (np.real(np.trace(MS[:, zf] @ MH[:, :, zf], axis1=1, axis2=2))
                    - tb[:, f] * np.real(np.trace(S[:, wf, wf], axis1=1, axis2=2)) - q * inv_d)
        U = tb[:, f, None, None] * (S[:, :, wf] @ S[:, wf, :]) - SMH[:, :, zf] @ MS[:, zf, :]
        MU = M @ U
        UMH = np.conj(np.swapaxes(MU, 1, 2))
        for rj, mem_j in layout.groups:
            zj, wj = _slice_index(zsl, mem_j), _slice_index(wsl, mem_j)
            kj = len(mem_j)
            jj = np.arange(kj)
            shape = (-1, kj, rj, kj, rj)
            V00 = (MU[:, zj] @ MH[:, :, zj]).reshape(shape)[:, jj, :, jj, :]
            V01 = MU[:, zj][:, :, wj].reshape(shape)[:, jj, :, jj, :]
            V10 = UMH[:, wj][:, :, zj].reshape(shape)[:, jj, :, jj, :]
            V11 = U[:, wj][:, :, wj].reshape(shape)[:, jj, :, jj, :]   # each (kj, F, rj, rj)
            gamma_D = np.moveaxis(-V00 + tb[:, mem_j].T[:, :, None, None] * V11, 0, 1)
            idx = layout.parameter_index("D", mem_j)
            h[:, of, idx] = h[:, idx, of] = _project_vector(gamma_D, layout.bases[rj]).reshape(h.shape[0], -1)
            with_G = [b for b in mem_j if layout.G_offsets[b] is not None]
            if with_G:
                sel = [list(mem_j).index(b) for b in with_G]
                gamma_G = np.moveaxis(1j * (V10 - V01), 0, 1)[:, sel]
                idx = layout.parameter_index("G", with_G)
                h[:, of, idx] = h[:, idx, of] = _project_vector(gamma_G, layout.bases[rj]).reshape(h.shape[0], -1)
        for e in layout.full:
            ze, we, oe = zsl[e], wsl[e], layout.full_offsets[e]
            h[:, of, oe] = (tb[:, e] * np.real(np.trace(U[:, we, we], axis1=1, axis2=2))
                            - np.real(np.trace(MU[:, ze] @ MH[:, :, ze], axis1=1, axis2=2)))
        h[:, of, of] += q * inv_d**2   # barrier -q log d_f
def _project_vector(Gamma, basis):
    """Re tr(Gamma E_a) for every basis matrix E_a: (..., r, r) -> (..., r^2)."""
    index, coef = basis
    GT = np.swapaxes(Gamma, -1, -2).reshape(Gamma.shape[:-2] + (-1,))  # tr(Gamma E) = sum Gamma[q,p] E[p,q]
    return np.real(GT[..., index[0]] * coef[0] + GT[..., index[1]] * coef[1])


def _project(R, basis_a, basis_b):
    """Real Hessian Re(Q_a^T R Q_b) on the last two axes (flattened entries -> basis parameters)."""
    (index_a, coef_a), (index_b, coef_b) = basis_a, basis_b
    rows = R[..., index_a[0], :] * coef_a[0][:, None] + R[..., index_a[1], :] * coef_a[1][:, None]
    return np.real(rows[..., index_b[0]] * coef_b[0] + rows[..., index_b[1]] * coef_b[1])


_KD_PATTERN = ((0, 0, -1.0), (1, 1, None))   # (alpha, beta, value); None = the block's level
_KG_PATTERN = ((0, 1, 1j), (1, 0, -1j))


def _contract(Wij, pattern_a, pattern_b, t_i, t_j):
    """W_hat^(alpha delta) = sum_{beta gamma} K_a[alpha, beta] W^(beta gamma) K_b[gamma, delta].

    Wij: (F, 2, ki, ri, 2, kj, rj); t_i (F, ki), t_j (F, kj): the blocks' levels.
    Returns (F, 2, ki, ri, 2, kj, rj).
    """
    out = np.zeros_like(Wij)
    for alpha, beta, va in pattern_a:
        va = t_i[:, :, None, None, None] if va is None else va
        for gamma, delta, vb in pattern_b:
            vb = t_j[:, None, None, :, None] if vb is None else vb
            out[:, alpha, :, :, delta] += va * vb * Wij[:, beta, :, :, gamma]
    return out


def _add_hessian_pair(h, Wij, t_i, t_j, layout, mem_i, mem_j, ri, rj):
    """Add the blocks (i, j) of the Hessian of -log det F_t for one pair of size groups.

    R[(p,q),(s,u)] = sum_{alpha delta} conj(W^(alpha delta)[p, u]) W_hat^(alpha delta)[q, s],
    then projected on the real Hermitian bases of block i and block j.
    """
    F = Wij.shape[0]
    types = (("D", _KD_PATTERN), ("G", _KG_PATTERN))
    # the (G, D) blocks are the transposes of the (D, G) ones: filled by _barrier_terms
    for name_a, pat_a in types:
        sel_i = [k for k, b in enumerate(mem_i) if name_a == "D" or layout.G_offsets[b] is not None]
        if not sel_i:
            continue
        glob_i = layout.parameter_index(name_a, [mem_i[k] for k in sel_i])
        for name_b, pat_b in types:
            if (name_a, name_b) == ("G", "D"):
                continue
            sel_j = [k for k, b in enumerate(mem_j) if name_b == "D" or layout.G_offsets[b] is not None]
            if not sel_j:
                continue
            glob_j = layout.parameter_index(name_b, [mem_j[k] for k in sel_j])
            W = Wij[:, :, sel_i][:, :, :, :, :, sel_j]
            Wh = _contract(W, pat_a, pat_b, t_i[:, sel_i], t_j[:, sel_j])
            conjW = np.conj(W)
            R = 0.0
            for alpha in range(2):
                for delta in range(2):
                    # conj(W)[f, i, p, j, u] * Wh[f, i, q, j, s] -> (f, i, p, q, j, s, u)
                    Wa = conjW[:, alpha, :, :, delta]      # (f, i, p, j, u)
                    Wb = Wh[:, alpha, :, :, delta]         # (f, i, q, j, s)
                    R = R + Wa[:, :, :, None, :, None, :] * Wb[:, :, None, :, :, :, None]
            R = R.reshape(F, len(sel_i), ri * ri, len(sel_j), rj * rj)
            block = np.moveaxis(_project(np.moveaxis(R, 2, 3), layout.bases[ri], layout.bases[rj]), 3, 2)
            h[:, glob_i[:, None], glob_j[None, :]] += block.reshape(F, glob_i.size, glob_j.size)
