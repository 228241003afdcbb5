"""D-G upper bound of mu to its optimum: the method of centres (Newton on an LMI barrier).

The D-G bound (see ``mu_upper``) is the generalised-eigenvalue problem (GEVP)

    beta*^2 = min over D > 0, G = G^H of  lambda_max( H(D, G), D_w ),
    H(D, G) = M^H D_z M + j (G M - M^H G^H),

quasi-convex in (D, G). The soft-max descent of ``mu_upper`` reaches its optimum quickly
for non-repeated structures but stalls 5-25 % above it when repeated scalar blocks carry
full Hermitian D and G. This module finishes the job with the method of centres for GEVPs
(Boyd and El Ghaoui, Linear Algebra Appl. 188, 1993): for a level t above the current
bound, Newton's method finds the analytic centre of

    F_t(D, G) = t D_w - H(D, G) > 0,   D > 0,   trace(D_w) = m,

i.e. the minimiser of phi_t = -log det F_t - sum_i log det D_i; then the level moves to
t <- (1 - theta) lambda(x_c) + theta t and the centre is followed down. Every iterate is
strictly feasible, so the bound reported (the exact generalised eigenvalue at the returned
scalings) is always certified by them. At a centre, S = F_t^-1 is dual feasible (its
G-gradient vanishes), which gives a lower bound of beta*^2 and stops the iteration when
the gap is below the accuracy asked for.

The Hessian of phi_t is assembled from W = B S B^H, B_i = [M_{z_i,:}; E_{w_i}^T], with the
Kronecker structure of the scalings (X_i = K_D(t) (x) D_i + K_G (x) G_i), so its cost is
O(k^2 r^4) per frequency and the Cholesky factorisation of the (p x p) Hessian
(p = sum r_i^2 per D and G) dominates. All frequencies of a chunk are processed at once.

Scope: structures of repeated scalar blocks (real: D and G; complex: D). Full complex blocks
(scalar d per block) are handled by the soft-max descent, which converges for them.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular

from .mu_upper import mu_upper_bound

__all__ = ["centers_upper_bound", "needs_refinement", "refine_rows", "refine_supremum", "supports_centers"]


def supports_centers(structure) -> bool:
    """True when every block is a (possibly repeated) scalar block."""
    return all(b.is_scalar for b in structure.blocks)


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


class _CentersLayout:
    """Parameter vector: per block the r^2 real parameters of D_i, then of G_i (real blocks)."""

    def __init__(self, structure):
        self.structure = structure
        blocks = structure.blocks
        self.sizes = np.array([b.z_size for b in blocks])
        self.real = np.array([b.kind == "real" for b in blocks])
        self.D_offsets, self.G_offsets = [], []
        offset = 0
        for b in blocks:
            self.D_offsets.append(offset)
            offset += b.z_size**2
        for b in blocks:
            if b.kind == "real":
                self.G_offsets.append(offset)
                offset += b.z_size**2
            else:
                self.G_offsets.append(None)
        self.size = offset
        self.bases = {r: _hermitian_basis(r) for r in set(self.sizes.tolist())}
        # trace(D_w) = c . y: the diagonal parameters of every D_i
        self.trace_vector = np.zeros(self.size)
        for off, r in zip(self.D_offsets, self.sizes):
            self.trace_vector[off:off + r] = 1.0
        # blocks grouped by size: the Hessian is assembled group pair by group pair
        self.groups = []
        for r in sorted(set(self.sizes.tolist())):
            members = np.flatnonzero(self.sizes == r)
            self.groups.append((r, members))

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

    def pack(self, D_blocks, G_blocks):
        F = D_blocks[0].shape[0]
        y = np.zeros((F, self.size))
        for i, r in enumerate(self.sizes):
            y[:, self.D_offsets[i]:self.D_offsets[i] + r * r] = self.from_matrix(D_blocks[i], r)
            if self.G_offsets[i] is not None:
                y[:, self.G_offsets[i]:self.G_offsets[i] + r * r] = self.from_matrix(G_blocks[i], r)
        return y

    def unpack(self, y):
        Ds, Gs = [], []
        for i, r in enumerate(self.sizes):
            Ds.append(self.to_matrix(y, self.D_offsets[i], r))
            Gs.append(None if self.G_offsets[i] is None else self.to_matrix(y, self.G_offsets[i], r))
        return Ds, Gs

    def assemble(self, y):
        """Block-diagonal D (F, m, m) and G (F, m, n) (z and w sides coincide for scalar blocks)."""
        st = self.structure
        Ds, Gs = self.unpack(y)
        F = y.shape[0]
        D = np.zeros((F, st.m, st.m), complex)
        G = np.zeros((F, st.m, st.n), complex)
        for zs, Di, Gi in zip(st.z_slices, Ds, Gs):
            D[:, zs, zs] = Di
            if Gi is not None:
                G[:, zs, zs] = Gi
        return D, G


def _pencil_max(M, D, G):
    """Largest generalised eigenvalue of (H(D, G), D) per row; inf where D is not > 0."""
    out = np.full(M.shape[0], np.inf)
    finite = np.all(np.isfinite(D), axis=(1, 2)) & np.all(np.isfinite(G), axis=(1, 2))
    if not np.any(finite):
        return out
    M, D, G = M[finite], D[finite], G[finite]
    MH = np.conj(np.swapaxes(M, 1, 2))
    H = MH @ D @ M + 1j * (G @ M - MH @ np.conj(np.swapaxes(G, 1, 2)))
    L, ok = _cholesky(D)
    lam = np.full(M.shape[0], np.inf)
    if np.any(ok):
        Linv = np.linalg.inv(L[ok])
        T = Linv @ H[ok] @ np.conj(np.swapaxes(Linv, 1, 2))
        lam[ok] = np.linalg.eigvalsh(0.5 * (T + np.conj(np.swapaxes(T, 1, 2))))[:, -1]
    out[finite] = lam
    return out


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




def _barrier_terms(M, layout, y, t):
    """Barrier value (F,), gradient (F, p), Hessian (F, p, p) and feasibility (F,).

    phi_t(y) = -log det F_t(y) - sum_i log det D_i.
    """
    st = layout.structure
    F = y.shape[0]
    n = st.n
    D, G = layout.assemble(y)
    MH = np.conj(np.swapaxes(M, 1, 2))
    Ft = t[:, None, None] * D - (MH @ D @ M + 1j * (G @ M - MH @ np.conj(np.swapaxes(G, 1, 2))))
    L, ok = _cholesky(Ft)
    LD, okD = _cholesky(D)  # block-diagonal D > 0 <=> every D_i > 0
    ok &= okD
    value = np.full(F, np.inf)
    p = layout.size
    grad = np.zeros((F, p))
    hess = np.zeros((F, p, p))
    if not np.any(ok):
        return value, grad, hess, ok
    rows = np.flatnonzero(ok)
    Lr, LDr = L[rows], LD[rows]
    value[rows] = -2.0 * np.sum(np.log(np.real(np.diagonal(Lr, axis1=1, axis2=2))), axis=1) \
        - 2.0 * np.sum(np.log(np.real(np.diagonal(LDr, axis1=1, axis2=2))), axis=1)
    Linv = np.linalg.inv(Lr)
    Sr = np.conj(np.swapaxes(Linv, 1, 2)) @ Linv
    LDinv = np.linalg.inv(LDr)
    Dinv = np.conj(np.swapaxes(LDinv, 1, 2)) @ LDinv
    Mr = M[rows]
    MS = Mr @ Sr                                     # (F, n, m)  W^(01) = M S   (z rows, w cols)
    MSMH = MS @ np.conj(np.swapaxes(Mr, 1, 2))       # (F, n, n)  W^(00)
    # W blocks as (F, alpha, n, delta, n): alpha = 0 z-side (M rows), 1 w-side (selector)
    W = np.empty((rows.size, 2, n, 2, n), complex)
    W[:, 0, :, 0, :] = MSMH
    W[:, 0, :, 1, :] = MS
    W[:, 1, :, 0, :] = np.conj(np.swapaxes(MS, 1, 2))
    W[:, 1, :, 1, :] = Sr
    tr = t[rows]
    g = np.zeros((rows.size, p))
    h = np.zeros((rows.size, p, p))
    zsl = st.z_slices
    # K_D(t) = diag(-1, t), K_G = [[0, j], [-j, 0]]: X_i = K_D (x) D_i + K_G (x) G_i
    for ri, mem_i in layout.groups:
        k = len(mem_i)
        idx_i = np.concatenate([np.arange(zsl[b].start, zsl[b].stop) for b in mem_i])
        Wi = W[:, :, idx_i][:, :, :, :, idx_i].reshape(rows.size, 2, k, ri, 2, k, ri)
        ii = np.arange(k)
        Wd = np.moveaxis(Wi[:, :, ii, :, :, ii, :], 0, 1)   # diagonal blocks W_ii (F, k, 2, r, 2, r)
        Dinv_i = np.stack([Dinv[:, zsl[b], zsl[b]] for b in mem_i], axis=1)  # (F, k, r, r)
        # dphi = Re tr(Gamma dX_i), Gamma_D = -(t W^(11) - W^(00)) - D^-1, Gamma_G = -j(W^(10) - W^(01))
        gamma_D = Wd[:, :, 0, :, 0, :] - tr[:, None, None, None] * Wd[:, :, 1, :, 1, :] - Dinv_i
        gamma_G = -1j * (Wd[:, :, 1, :, 0, :] - Wd[:, :, 0, :, 1, :])
        g[:, layout.parameter_index("D", mem_i)] = _project_vector(gamma_D, layout.bases[ri]).reshape(rows.size, -1)
        with_G = [b for b in mem_i if layout.G_offsets[b] is not None]
        if with_G:
            sel = [list(mem_i).index(b) for b in with_G]
            g[:, layout.parameter_index("G", with_G)] = _project_vector(
                gamma_G[:, sel], layout.bases[ri]).reshape(rows.size, -1)
        for rj, mem_j in layout.groups:
            idx_j = np.concatenate([np.arange(zsl[b].start, zsl[b].stop) for b in mem_j])
            Wij = W[:, :, idx_i][:, :, :, :, idx_j].reshape(rows.size, 2, k, ri, 2, len(mem_j), rj)
            _add_hessian_pair(h, Wij, tr, layout, mem_i, mem_j, ri, rj)
        # D barrier: tr(D^-1 E_a D^-1 E_b) -> R[(p,q),(s,u)] = conj(D^-1[p,u]) D^-1[q,s]
        R = (np.conj(Dinv_i)[:, :, :, None, None, :] * Dinv_i[:, :, None, :, :, None]).reshape(
            rows.size, k, ri * ri, ri * ri)
        glob = layout.parameter_index("D", mem_i).reshape(k, ri * ri)
        h[:, glob[:, :, None], glob[:, None, :]] += _project(R, layout.bases[ri], layout.bases[ri])
    grad[rows] = g
    hess[rows] = h
    return value, grad, hess, ok


def _project_vector(Gamma, basis):
    """Re tr(Gamma E_a) for every basis matrix E_a: (..., r, r) -> (..., r^2)."""
    index, coef = basis
    GT = np.swapaxes(Gamma, -1, -2).reshape(Gamma.shape[:-2] + (-1,))  # tr(Gamma E) = sum Gamma[q,p] E[p,q]
    return np.real(GT[..., index[0]] * coef[0] + GT[..., index[1]] * coef[1])


def _project(R, basis_a, basis_b):
    """Real Hessian Re(Q_a^T R Q_b) on the last two axes (flattened entries -> basis parameters)."""
    (index_a, coef_a), (index_b, coef_b) = basis_a, basis_b
    out = 0.0
    for k in range(2):
        Rk = R[..., index_a[k], :] * coef_a[k][:, None]
        for l in range(2):
            out = out + np.real(Rk[..., index_b[l]] * coef_b[l])
    return out


_KD_PATTERN = ((0, 0, -1.0), (1, 1, None))   # (alpha, beta, value); None = t
_KG_PATTERN = ((0, 1, 1j), (1, 0, -1j))


def _contract(Wij, pattern_a, pattern_b, t):
    """W_hat^(alpha delta) = sum_{beta gamma} K_a[alpha, beta] W^(beta gamma) K_b[gamma, delta].

    Wij: (F, 2, ki, ri, 2, kj, rj). Returns (F, 2, ki, ri, 2, kj, rj).
    """
    out = np.zeros_like(Wij)
    for alpha, beta, va in pattern_a:
        va = t[:, None, None, None, None] if va is None else va
        for gamma, delta, vb in pattern_b:
            vb = t[:, None, None, None, None] if vb is None else vb
            out[:, alpha, :, :, delta] += va * vb * Wij[:, beta, :, :, gamma]
    return out


def _add_hessian_pair(h, Wij, t, layout, mem_i, mem_j, ri, rj):
    """Add the blocks (i, j) of the Hessian of -log det F_t for one pair of size groups.

    R[(p,q),(s,u)] = sum_{alpha delta} conj(W^(alpha delta)[p, u]) W_hat^(alpha delta)[q, s],
    then projected on the real Hermitian bases of block i and block j.
    """
    F = Wij.shape[0]
    types = (("D", _KD_PATTERN), ("G", _KG_PATTERN))
    for name_a, pat_a in types:
        sel_i = [k for k, b in enumerate(mem_i) if name_a == "D" or layout.G_offsets[b] is not None]
        if not sel_i:
            continue
        glob_i = layout.parameter_index(name_a, [mem_i[k] for k in sel_i])
        for name_b, pat_b in types:
            sel_j = [k for k, b in enumerate(mem_j) if name_b == "D" or layout.G_offsets[b] is not None]
            if not sel_j:
                continue
            glob_j = layout.parameter_index(name_b, [mem_j[k] for k in sel_j])
            W = Wij[:, :, sel_i][:, :, :, :, :, sel_j]
            Wh = _contract(W, pat_a, pat_b, t)
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


def _newton_direction(grad, hess, c):
    """Newton step of min phi s.t. c.y fixed: (dy (F, p), decrement^2 (F,)); NaN rows if singular."""
    F, p, _ = hess.shape
    scale = np.maximum(np.trace(hess, axis1=1, axis2=2) / p, 1e-300)
    H = hess + (1e-12 * scale)[:, None, None] * np.eye(p)  # G directions M cannot see
    rhs = np.stack([grad, np.broadcast_to(c, grad.shape)], axis=2)
    try:
        L = np.linalg.cholesky(H)
        sol = _cho_solve(L, rhs)
    except np.linalg.LinAlgError:
        sol = np.full(rhs.shape, np.nan)
        for k in range(F):
            try:
                sol[k] = _cho_solve(np.linalg.cholesky(H[k])[None], rhs[k][None])[0]
            except np.linalg.LinAlgError:
                pass
    u, v = sol[:, :, 0], sol[:, :, 1]
    nu = -(u @ c) / (v @ c)
    dy = -u - nu[:, None] * v
    decrement2 = -np.sum(grad * dy, axis=1)
    return dy, decrement2


def _cho_solve(L, rhs):
    """Solve (L L^T) x = rhs per row (rows are the few frequencies of a chunk)."""
    out = np.empty_like(rhs)
    for k in range(L.shape[0]):
        z = solve_triangular(L[k], rhs[k], lower=True, check_finite=False)
        out[k] = solve_triangular(L[k], z, lower=True, trans="T", check_finite=False)
    return out


def centers_upper_bound(M, structure, D0, G0, *, accuracy: float = 1e-4, max_newton: int = 400,
                        chunk: int = 4, progress=None):
    """Refine D-G certificates to the optimum of the D-G bound by the method of centres.

    Parameters
    ----------
    M : complex ndarray (F, n, m)
    structure : BlockStructure of scalar blocks (``supports_centers``).
    D0 : complex ndarray (F, m, m), G0 : complex ndarray (F, m, n)
        Starting certificates (D0 > 0 block-diagonal, G0 Hermitian blocks), e.g. the
        soft-max descent's.
    accuracy : float
        Stop where the estimated distance of beta^2 to the optimum is below ``accuracy``
        (relative).
    max_newton : int
        Newton steps per frequency at most.
    chunk : int
        Frequencies refined together (the Hessians are (p x p) each).
    progress : callable(done, total, message), optional
        Called after each chunk.

    Returns
    -------
    beta2 : ndarray (F,)       the bound squared, exact at the returned scalings
    D : ndarray (F, m, m), G : ndarray (F, m, n)   the certificate
    error_estimate : ndarray (F,)   estimated relative distance of beta2 to the D-G optimum
    newton_steps : ndarray (F,) int
    """
    F = M.shape[0]
    out_lam = np.empty(F)
    out_D = np.empty_like(D0)
    out_G = np.empty_like(G0)
    out_err = np.empty(F)
    out_steps = np.empty(F, dtype=int)
    for start in range(0, F, chunk):
        sl = slice(start, min(start + chunk, F))
        out_lam[sl], out_D[sl], out_G[sl], out_err[sl], out_steps[sl] = _centers_chunk(
            M[sl], structure, D0[sl], G0[sl], accuracy, max_newton)
        if progress is not None:
            progress(sl.stop, F, "D-G bound refined by the method of centres")
    return out_lam, out_D, out_G, out_err, out_steps


# Level update t <- (1 - THETA) lambda_c + THETA t, and the predictor's aim: PREDICT of the
# way back from the estimated optimum to the current bound (tuned on bench_mu's 10 x 6 reals).
THETA = 0.3
PREDICT = 0.5


def _centers_chunk(M, st, D0, G0, accuracy, max_newton):
    layout = _CentersLayout(st)
    F = M.shape[0]
    c = layout.trace_vector
    y = layout.pack([D0[:, zs, zs] for zs in st.z_slices], [G0[:, zs, zs] for zs in st.z_slices])
    y *= (st.m / (y @ c))[:, None]
    D, G = layout.assemble(y)
    lam = _pencil_max(M, D, G)
    best_y, best_lam = y.copy(), lam.copy()
    error = np.full(F, np.inf)
    steps = np.zeros(F, dtype=int)
    centrings = np.zeros(F, dtype=int)
    t = lam * 1.05
    active = np.isfinite(lam) & (lam > 0)
    prev_t = np.full(F, np.nan)
    prev_lam = np.full(F, np.nan)
    prev_y = y.copy()
    value, grad, hess, ok = _barrier_terms(M, layout, y, t)
    active &= ok
    for _ in range(max_newton):
        rows = np.flatnonzero(active)
        if rows.size == 0:
            break
        steps[rows] += 1
        dy, dec2 = _newton_direction(grad[rows], hess[rows], c)
        dec = np.sqrt(np.maximum(dec2, 0.0))
        finite = np.all(np.isfinite(dy), axis=1) & np.isfinite(dec)
        # damped Newton on a self-concordant barrier: a step 1/(1 + decrement) stays inside
        alpha = np.where(finite, np.where(dec > 0.25, 1.0 / (1.0 + dec), 1.0), 0.0)
        dy = np.where(finite[:, None], dy, 0.0)
        y_new = y[rows] + alpha[:, None] * dy
        v_new, g_new, h_new, ok_new = _barrier_terms(M[rows], layout, y_new, t[rows])
        for _ in range(30):  # safeguard: backtrack when rounding left the domain
            bad = (~ok_new | (v_new > value[rows] + 1e-10 * np.abs(value[rows]))) & (alpha > 1e-10)
            if not np.any(bad):
                break
            alpha[bad] *= 0.5
            y_new[bad] = y[rows[bad]] + alpha[bad, None] * dy[bad]
            vb, gb, hb, okb = _barrier_terms(M[rows[bad]], layout, y_new[bad], t[rows[bad]])
            v_new[bad], g_new[bad], h_new[bad], ok_new[bad] = vb, gb, hb, okb
        keep = ok_new
        y[rows[keep]], value[rows[keep]] = y_new[keep], v_new[keep]
        grad[rows[keep]], hess[rows[keep]] = g_new[keep], h_new[keep]
        stuck = rows[~keep | ~finite]
        active[stuck] = False
        centred = rows[(dec < 0.3) & keep & finite]
        if centred.size == 0:
            continue
        Dc, Gc = layout.assemble(y[centred])
        lam_c = _pencil_max(M[centred], Dc, Gc)
        better = lam_c < best_lam[centred]
        best_lam[centred[better]], best_y[centred[better]] = lam_c[better], y[centred[better]]
        # Along the central path lambda_c(t) ~ lambda* + a (t - lambda*) (a < 1): the secant
        # slope a between two centres gives the optimum's estimate and the error of the bound.
        slope = (lam_c - prev_lam[centred]) / (t[centred] - prev_t[centred])
        model = np.isfinite(slope) & (slope > 0) & (slope < 0.99)
        t_star = np.where(model, (lam_c - slope * t[centred]) / (1.0 - np.where(model, slope, 0.0)), np.nan)
        est = np.where(model, (best_lam[centred] - t_star) / best_lam[centred], np.inf)
        # an estimate above a certified value contradicts the model: not yet asymptotic
        model &= est >= 0
        centrings[centred] += 1
        error[centred] = np.where(model, est, error[centred])
        done = model & (est <= accuracy) & (centrings[centred] >= 3)
        active[centred[done]] = False
        go = ~done
        move = centred[go]
        t_next = (1.0 - THETA) * lam_c[go] + THETA * t[move]
        # predictor: extrapolate the centre along the path towards the estimated optimum
        use = model[go]
        aim = t_star[go] + PREDICT * (lam_c[go] - t_star[go])
        dxdt = (y[move] - prev_y[move]) / (t[move] - prev_t[move])[:, None]
        y_pred = y[move] + np.where(use, aim - t[move], 0.0)[:, None] * np.where(use[:, None], dxdt, 0.0)
        y_pred *= (st.m / (y_pred @ c))[:, None]
        prev_t[move], prev_lam[move], prev_y[move] = t[move], lam_c[go], y[move]
        if np.any(use):
            Dp, Gp = layout.assemble(y_pred[use])
            lam_p = np.full(move.size, np.inf)
            lam_p[use] = _pencil_max(M[move[use]], Dp, Gp)
            jump = use & (lam_p < lam_c[go])
            y[move[jump]] = y_pred[jump]
            t_next[jump] = lam_p[jump] + (THETA + 0.25) * (lam_c[go][jump] - lam_p[jump])
            improve = jump & (lam_p < best_lam[move])
            best_lam[move[improve]], best_y[move[improve]] = lam_p[improve], y_pred[improve]
        t[move] = t_next
        value[move], grad[move], hess[move], ok_move = _barrier_terms(M[move], layout, y[move], t[move])
        active[move[~ok_move]] = False
    D, G = layout.assemble(best_y)
    return best_lam, D, G, error, steps


def needs_refinement(structure) -> bool:
    """Repeated scalar blocks only: there the soft-max descent stops short of the optimum."""
    return supports_centers(structure) and any(b.z_size > 1 for b in structure.blocks)


def refine_rows(M, structure, upper, Dz, G, rows, *, accuracy: float = 1e-4, start=None, progress=None):
    """Refine the bounds at ``rows`` and keep each refinement only where it is lower.

    ``start`` = (Dz, G) for those rows overrides the stored certificates as starting point
    (``Dz``, ``G`` may then be None). Returns new (upper, Dz, G) arrays (copies).
    """
    upper = np.array(upper, dtype=float)
    D0, G0 = start if start is not None else (Dz[rows], G[rows])
    lam, Dn, Gn, _, _ = centers_upper_bound(M[rows], structure, D0, G0, accuracy=accuracy,
                                            progress=progress)
    beta = np.sqrt(np.maximum(lam, 0.0))
    better = np.isfinite(beta) & (beta < upper[rows])
    upper[rows[better]] = beta[better]
    if Dz is not None:
        Dz, G = Dz.copy(), G.copy()
        Dz[rows[better]], G[rows[better]] = Dn[better], Gn[better]
    return upper, Dz, G


def refine_supremum(M, structure, upper, Dz=None, G=None, *, accuracy: float = 1e-4, progress=None):
    """Converge the D-G bound where the supremum over the stack is decided.

    The bounds ``upper`` (F,) certified by (Dz, G) are all valid; the largest ones are refined
    by the method of centres, then any other whose (looser) bound still exceeds the refined
    maximum, until no unrefined bound does. So ``max(upper)`` becomes the converged D-G bound
    of the stack; the others stay valid upper bounds.

    Without ``Dz``, ``G`` the descent's scalings are recomputed for the rows refined (and
    ``None`` is returned in their place).

    Returns
    -------
    upper : ndarray (F,), Dz, G : certificates (copies, refined rows replaced),
    refined : bool ndarray (F,)
    """
    upper = np.array(upper, dtype=float)
    have = Dz is not None
    refined = np.zeros(upper.shape[0], bool)
    while True:
        level = np.max(upper[refined]) if np.any(refined) else -np.inf
        todo = np.flatnonzero(~refined & (upper > level))
        if todo.size == 0:
            break
        pick = todo[np.argsort(upper[todo])[::-1][:4]]
        if not have:
            _, start, _ = mu_upper_bound(M[pick], structure)
        upper, Dz, G = refine_rows(M, structure, upper, Dz, G, pick, accuracy=accuracy,
                                   start=None if have else (start.Dz, start.G))
        refined[pick] = True
        if progress is not None:
            progress(int(np.count_nonzero(refined)), int(upper.size), "refining the peak D-G bounds")
    return upper, Dz, G, refined
