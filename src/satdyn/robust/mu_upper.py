"""Mixed-mu upper bound with D-G scalings, by a dedicated batched descent (no LMI solver).

Arguments:
    M : complex ndarray (F, n, m), one matrix per frequency (n = sum of z sizes, m = sum
        of w sizes of ``structure``).
    structure : satdyn.robust.structure.BlockStructure.

The bound is the one of Fan, Tits and Doyle (1991) in the LMI form of Young, Newlin and
Doyle (1995): mu(M) <= beta whenever there are scalings D > 0 commuting with Delta and
G = G^H (non-zero only on the real blocks) such that

    M^H D_z M + j (G M - M^H G^H) - beta^2 D_w  <=  0,

where D_z and D_w are the same scalings on the z (rows of M) and w (columns) sides. Here
beta^2(D, G) = lambda_max of the pencil (H(D, G), D_w) is quasi-convex in (D, G); we
minimise a soft-max (log-sum-exp) smoothing of it with a temperature continuation and a
limited-memory BFGS that runs on every frequency at once (stacked ``eigh``). Each block's
D is parameterised as L L^H (full Hermitian D for repeated scalars, d I for full blocks).
Whatever the optimiser reaches, the returned value is the level its (regularised) D, G
prove in floating point (``mu_certify``), so (D, G, upper) is always a valid certificate.
"""

from __future__ import annotations

import numpy as np

from .mu_certify import DGScalings, certify_scalings

__all__ = ["DGScalings", "mu_upper_bound", "osborne_scalings"]


class _Layout:
    """Packing of the per-block scalings into one real vector per frequency."""

    def __init__(self, structure):
        self.structure = structure
        self.L_slices, self.G_slices = [], []
        offset = 0
        for blk in structure.blocks:
            size = 2 * blk.z_size**2 if blk.is_scalar else 1
            self.L_slices.append(slice(offset, offset + size))
            offset += size
        for blk in structure.blocks:
            if blk.kind == "real":
                size = 2 * blk.z_size**2
                self.G_slices.append(slice(offset, offset + size))
                offset += size
            else:
                self.G_slices.append(None)
        self.size = offset
        # every block 1x1 (the common non-repeated scalar case): D and G are diagonal and
        # the pencil, its eigenvectors and the gradient are assembled without block loops
        self.unit = all(b.z_size == 1 and b.w_size == 1 for b in structure.blocks)
        if self.unit:
            self.L_re = np.array([sl.start for sl in self.L_slices])
            self.L_has_im = np.array([b.is_scalar for b in structure.blocks])
            self.L_im = self.L_re[self.L_has_im] + 1
            self.real_mask = np.array([b.kind == "real" for b in structure.blocks])
            self.G_re = np.array([sl.start for sl in self.G_slices if sl is not None], dtype=int)

    def unit_parts(self, x):
        """Diagonal factors L (F, k) complex and G (F, k) real of a 1x1-block structure."""
        L = x[:, self.L_re].astype(complex)
        L[:, self.L_has_im] += 1j * x[:, self.L_im]
        g = np.zeros(L.shape)
        g[:, self.real_mask] = x[:, self.G_re]
        return L, g

    def initial(self, scales):
        """Vector with L_i = sqrt(d_i) I, G = 0 from per-block positive scales (F, k)."""
        F = scales.shape[0]
        x = np.zeros((F, self.size))
        for i, blk in enumerate(self.structure.blocks):
            root = np.sqrt(scales[:, i])
            if blk.is_scalar:
                r = blk.z_size
                eye = np.zeros((F, 2, r, r))
                eye[:, 0] = root[:, None, None] * np.eye(r)
                x[:, self.L_slices[i]] = eye.reshape(F, -1)
            else:
                x[:, self.L_slices[i]] = root[:, None]
        return x

    def pack_G(self, x, G):
        """Write the real-block parts of G (F, m, n) into the packed vectors x (F, p), in place."""
        F = x.shape[0]
        for _blk, zs, ws, sl in zip(self.structure.blocks, self.structure.z_slices, self.structure.w_slices,
                                   self.G_slices):
            if sl is not None:
                part = G[:, ws, zs]
                x[:, sl] = np.stack([part.real, part.imag], axis=1).reshape(F, -1)

    def unpack(self, x):
        """Per-block L (complex (F, r, r) or real (F,)) and G (Hermitian (F, r, r) or None)."""
        F = x.shape[0]
        Ls, Gs = [], []
        for i, blk in enumerate(self.structure.blocks):
            if blk.is_scalar:
                r = blk.z_size
                part = x[:, self.L_slices[i]].reshape(F, 2, r, r)
                Ls.append(part[:, 0] + 1j * part[:, 1])
            else:
                Ls.append(x[:, self.L_slices[i]][:, 0])
            if self.G_slices[i] is not None:
                r = blk.z_size
                part = x[:, self.G_slices[i]].reshape(F, 2, r, r)
                G = part[:, 0] + 1j * part[:, 1]
                Gs.append(0.5 * (G + np.conj(np.swapaxes(G, 1, 2))))
            else:
                Gs.append(None)
        return Ls, Gs

    def matrices(self, x):
        """Assemble Dz (F,n,n), Dw (F,m,m), G (F,m,n) and the inverse factor Lw^-1 (F,m,m)."""
        st = self.structure
        F = x.shape[0]
        Ls, Gs = self.unpack(x)
        Dz = np.zeros((F, st.n, st.n), complex)
        Dw = np.zeros((F, st.m, st.m), complex)
        Lw_inv = np.zeros((F, st.m, st.m), complex)
        G = np.zeros((F, st.m, st.n), complex)
        for blk, zs, ws, L, Gi in zip(st.blocks, st.z_slices, st.w_slices, Ls, Gs):
            if blk.is_scalar:
                D = L @ np.conj(np.swapaxes(L, 1, 2))
                Dz[:, zs, zs] = D
                Dw[:, ws, ws] = D
                with np.errstate(all="ignore"):
                    Lw_inv[:, ws, ws] = _safe_inv(L)
                if Gi is not None:
                    G[:, ws, zs] = Gi
            else:
                d = L**2
                Dz[:, zs, zs] = d[:, None, None] * np.eye(blk.z_size)
                Dw[:, ws, ws] = d[:, None, None] * np.eye(blk.w_size)
                with np.errstate(all="ignore"):
                    Lw_inv[:, ws, ws] = (1.0 / L)[:, None, None] * np.eye(blk.w_size)
        return Dz, Dw, G, Lw_inv, Ls

    def normalise(self, x):
        """Rescale (D, G) -> (D/s, G/s), which leaves beta unchanged, so that mean(D_w) ~ 1."""
        Dz, Dw, G, _, _ = self.matrices(x)
        s = np.real(np.trace(Dw, axis1=1, axis2=2)) / self.structure.m
        s = np.where(np.isfinite(s) & (s > 0), s, 1.0)
        y = x.copy()
        for i, _blk in enumerate(self.structure.blocks):
            y[:, self.L_slices[i]] /= np.sqrt(s)[:, None]
            if self.G_slices[i] is not None:
                y[:, self.G_slices[i]] /= s[:, None]
        return y


def _safe_inv(L):
    """Batched inverse; singular factors give NaN rows (rejected by the line search)."""
    try:
        return np.linalg.inv(L)
    except np.linalg.LinAlgError:
        out = np.full(L.shape, np.nan, dtype=complex)
        for k in range(L.shape[0]):
            try:
                out[k] = np.linalg.inv(L[k])
            except np.linalg.LinAlgError:
                pass
        return out


def _herm(X):
    return 0.5 * (X + np.conj(np.swapaxes(X, -1, -2)))


def _pencil_eigs(M, layout, x):
    """Eigen-decomposition of Lw^-1 H Lw^-H; returns (lam (F,m) ascending, V, U, Ls).

    For a 1x1-block layout ``Ls`` is the diagonal factor L (F, k) itself. A trial point
    whose scalings are singular or not finite (a line-search step can reach L = 0 exactly:
    on a structure whose bound does not depend on D, e.g. one full block, the gradient is
    rounding noise and L-BFGS extrapolates on it) has no pencil: its row gets lam = inf,
    which the line search rejects, and V = U = 0. Such rows are left out of every product
    (forming them would multiply inf by 0 and fill the pencil with NaN).
    """
    F, n, m = M.shape
    MH = np.conj(np.swapaxes(M, 1, 2))
    lam = np.full((F, m), np.inf)
    V = np.zeros((F, m, m), complex)
    U = np.zeros((F, n, m), complex)
    if layout.unit:
        Ls, g = layout.unit_parts(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            L_inv = 1.0 / Ls
        ok = np.all(np.isfinite(L_inv), axis=1) & np.all(np.isfinite(Ls), axis=1) & np.all(np.isfinite(g), axis=1)
        rows = np.flatnonzero(ok)
        d = np.abs(Ls[rows]) ** 2
        Mr, MHr, gr, Li = M[rows], MH[rows], g[rows], L_inv[rows]
        H = (MHr * d[:, None, :]) @ Mr + 1j * (gr[:, :, None] * Mr - MHr * gr[:, None, :])
        T = _herm(Li[:, :, None] * H * np.conj(Li)[:, None, :])
    else:
        Dz, Dw, G, Lw_inv, Ls = layout.matrices(x)
        ok = (np.all(np.isfinite(Lw_inv), axis=(1, 2)) & np.all(np.isfinite(Dz), axis=(1, 2))
              & np.all(np.isfinite(G), axis=(1, 2)))
        rows = np.flatnonzero(ok)
        Mr, MHr, Li = M[rows], MH[rows], Lw_inv[rows]
        Gr = G[rows]
        H = MHr @ Dz[rows] @ Mr + 1j * (Gr @ Mr - MHr @ np.conj(np.swapaxes(Gr, 1, 2)))
        T = _herm(Li @ H @ np.conj(np.swapaxes(Li, 1, 2)))
    # finite scalings can still overflow the pencil (|L| ~ 1e154): those rows are out too
    finite = np.all(np.isfinite(T), axis=(1, 2))
    rows, T = rows[finite], T[finite]
    if rows.size:
        lam_r, Y = np.linalg.eigh(T)
        lam[rows] = lam_r
        if layout.unit:
            V[rows] = np.conj(L_inv[rows])[:, :, None] * Y  # v^H Dw v = 1
        else:
            V[rows] = np.conj(np.swapaxes(Lw_inv[rows], 1, 2)) @ Y
        U[rows] = M[rows] @ V[rows]
    return lam, V, U, Ls


def _objective(M, layout, x, temperature):
    """Soft-max of the pencil eigenvalues (F,), its gradient (F, p), and exact lambda_max."""
    st = layout.structure
    lam, V, U, Ls = _pencil_eigs(M, layout, x)
    lam_max = lam[:, -1]
    finite = np.isfinite(lam_max)
    t = temperature[:, None]
    with np.errstate(all="ignore"):
        z = np.where(finite[:, None], (lam - lam_max[:, None]) / t, 0.0)
        e = np.exp(z)
        s = np.sum(e, axis=1)
        f = np.where(finite, lam_max + temperature * np.log(s), np.inf)
        w = e / s[:, None]
    grad = np.zeros_like(x)
    lam_safe = np.where(np.isfinite(lam), lam, 0.0)
    if layout.unit:
        with np.errstate(all="ignore"):
            gamma = (np.sum(np.abs(U) ** 2 * w[:, None, :], axis=2)
                     - np.sum(np.abs(V) ** 2 * (w * lam_safe)[:, None, :], axis=2))
            gL = 2.0 * gamma * Ls
            grad[:, layout.L_re] = gL.real
            grad[:, layout.L_im] = gL.imag[:, layout.L_has_im]
            cross = np.sum(V * np.conj(U) * w[:, None, :], axis=2)
            grad[:, layout.G_re] = 2.0 * cross.imag[:, layout.real_mask]
        grad[~finite] = 0.0
        return f, grad, lam_max
    for i, (blk, zs, ws) in enumerate(zip(st.blocks, st.z_slices, st.w_slices)):
        Ui, Vi = U[:, zs, :], V[:, ws, :]
        gamma_z = (Ui * w[:, None, :]) @ np.conj(np.swapaxes(Ui, 1, 2))
        gamma_w = -(Vi * (w * lam_safe)[:, None, :]) @ np.conj(np.swapaxes(Vi, 1, 2))
        if blk.is_scalar:
            gL = 2.0 * (gamma_z + gamma_w) @ Ls[i]
            grad[:, layout.L_slices[i]] = np.stack([gL.real, gL.imag], axis=1).reshape(x.shape[0], -1)
        else:
            tr = np.real(np.trace(gamma_z, axis1=1, axis2=2) + np.trace(gamma_w, axis1=1, axis2=2))
            grad[:, layout.L_slices[i]] = (2.0 * Ls[i] * tr)[:, None]
        if layout.G_slices[i] is not None:
            VW = Vi * w[:, None, :]
            UW = Ui * w[:, None, :]
            gG = -1j * (VW @ np.conj(np.swapaxes(Ui, 1, 2)) - UW @ np.conj(np.swapaxes(Vi, 1, 2)))
            gG = _herm(gG)
            grad[:, layout.G_slices[i]] = np.stack([gG.real, gG.imag], axis=1).reshape(x.shape[0], -1)
    grad[~finite] = 0.0
    return f, grad, lam_max


def osborne_scalings(M, structure, iterations: int = 20):
    """Per-block positive scales d_i (F, k) balancing |M| (Osborne), a cheap D-only start."""
    st = structure
    F = M.shape[0]
    absM2 = np.abs(M) ** 2
    k = len(st.blocks)
    z_owner = np.repeat(np.arange(k), [b.z_size for b in st.blocks])
    w_owner = np.repeat(np.arange(k), [b.w_size for b in st.blocks])
    d = np.ones((F, k))
    for _ in range(iterations):
        for i, (zs, ws) in enumerate(zip(st.z_slices, st.w_slices)):
            S = absM2 * (d[:, z_owner])[:, :, None] / (d[:, w_owner])[:, None, :]
            diag = np.sum(S[:, zs, ws], axis=(1, 2))
            r = np.sum(S[:, zs, :], axis=(1, 2)) - diag
            c = np.sum(S[:, :, ws], axis=(1, 2)) - diag
            ok = (r > 0) & (c > 0)
            with np.errstate(all="ignore"):
                d[:, i] = np.where(ok, d[:, i] * np.sqrt(c / r), d[:, i])
        d /= np.exp(np.mean(np.log(d), axis=1, keepdims=True))
    return d


def _lbfgs_stage(M, layout, x, temperature, max_iterations, memory=8, rtol=1e-6, target2=0.0):
    """Batched L-BFGS on the soft-max objective; returns the best x per row by exact lambda_max."""
    f, g, lam = _objective(M, layout, x, temperature)
    best_x, best_lam = x.copy(), lam.copy()
    S, Y = [], []
    active = np.isfinite(f) & (lam > target2)
    history = [f.copy()]
    for _it in range(max_iterations):
        rows = np.flatnonzero(active)
        if rows.size == 0:
            break
        # two-loop recursion on the active rows
        q = g[rows].copy()
        alphas = []
        for s_k, y_k in reversed(list(zip(S, Y))):
            sk, yk = s_k[rows], y_k[rows]
            rho = 1.0 / np.maximum(np.sum(sk * yk, axis=1), 1e-300)
            a = rho * np.sum(sk * q, axis=1)
            q -= a[:, None] * yk
            alphas.append((a, rho, sk, yk))
        if S:
            sk, yk = S[-1][rows], Y[-1][rows]
            gamma = np.sum(sk * yk, axis=1) / np.maximum(np.sum(yk * yk, axis=1), 1e-300)
            q *= gamma[:, None]
        else:
            # first step: move the scalings by ~10 % of their size
            q *= (0.1 * np.linalg.norm(x[rows], axis=1) / np.maximum(np.linalg.norm(q, axis=1), 1e-300))[:, None]
        for a, rho, sk, yk in reversed(alphas):
            b = rho * np.sum(yk * q, axis=1)
            q += (a - b)[:, None] * sk
        direction = -q
        slope = np.sum(direction * g[rows], axis=1)
        bad = ~(slope < 0)
        direction[bad] = -g[rows][bad]
        slope[bad] = -np.sum(g[rows][bad] ** 2, axis=1)
        step = np.ones(rows.size)
        accepted = np.zeros(rows.size, bool)
        x_new = x[rows].copy()
        f_new, g_new, lam_new = f[rows].copy(), g[rows].copy(), lam[rows].copy()
        for _ in range(30):
            todo = np.flatnonzero(~accepted)
            if todo.size == 0:
                break
            xt = x[rows[todo]] + step[todo, None] * direction[todo]
            ft, gt, lt = _objective(M[rows[todo]], layout, xt, temperature[rows[todo]])
            ok = np.isfinite(ft) & (ft <= f[rows[todo]] + 1e-4 * step[todo] * slope[todo])
            acc = todo[ok]
            x_new[acc], f_new[acc], g_new[acc], lam_new[acc] = xt[ok], ft[ok], gt[ok], lt[ok]
            accepted[acc] = True
            step[todo[~ok]] *= 0.3
        s_new = np.zeros_like(x)
        y_new = np.zeros_like(x)
        s_new[rows] = x_new - x[rows]
        y_new[rows] = g_new - g[rows]
        curvature_ok = (np.sum(s_new * y_new, axis=1)
                        > 1e-12 * np.linalg.norm(s_new, axis=1) * np.linalg.norm(y_new, axis=1))
        s_new[~curvature_ok] = 0.0
        y_new[~curvature_ok] = 0.0
        S.append(s_new)
        Y.append(y_new)
        if len(S) > memory:
            S.pop(0)
            Y.pop(0)
        x[rows], f[rows], g[rows], lam[rows] = x_new, f_new, g_new, lam_new
        better = lam < best_lam
        best_x[better], best_lam[better] = x[better], lam[better]
        history.append(f.copy())
        stalled = ~accepted
        active[rows[stalled]] = False
        active &= lam > target2
        if len(history) > 6:
            old = history[-6]
            rel = (old - f) / np.maximum(np.abs(f), 1e-300)
            active &= ~(rel < rtol)
    return best_x, best_lam


def _descent(M, layout, x, iterations, accuracy, early_stop, target):
    """Soft-max continuation on M (F, n, m) normalised to ||M|| ~ 1: (best_x, best_lam)."""
    structure = layout.structure
    F = M.shape[0]
    x = layout.normalise(x)
    _, _, lam = _objective(M, layout, x, np.ones(F))
    best_x, best_lam = x.copy(), lam.copy()
    scale = max(np.log(max(structure.m, 2)), 1.0)
    final = accuracy / scale
    # a long memory (a third of the parameters, up to 80 pairs) halves the iterations
    # with many blocks; the eigen-decomposition, not the two-loop recursion, dominates
    memory = int(np.clip(layout.size // 3, 8, 80))
    # Repeated scalar blocks (full Hermitian D, G) keep the short fixed-cap descent: there
    # the long runs were slower and not uniformly better (measured on bench_mu's 10 x 6 reals).
    nonrepeated = all(not (b.is_scalar and b.z_size > 1) for b in structure.blocks)
    long_run = nonrepeated and not early_stop
    if not long_run:
        memory = 8
    for factor in (1e-2, 1e-3, final):
        temperature = factor * np.maximum(best_lam, 1e-300)
        # Non-repeated structures run every stage to its stopping rule: L-BFGS on p
        # scalings needs O(p) iterations, and the fixed cap left bounds of 10-60 blocks
        # up to 48 % above the D-G optimum (AB13MD).
        cap = max(iterations, 20 * layout.size) if long_run else iterations
        xs, ls = _lbfgs_stage(M, layout, layout.normalise(best_x.copy()), temperature, cap,
                              memory=memory, target2=target**2)
        better = ls < best_lam
        best_x[better], best_lam[better] = xs[better], ls[better]
        if factor <= accuracy / scale or np.all(best_lam < target**2):
            break
    return layout.normalise(best_x), best_lam


def _balancing(structure, Dz):
    """Block factors Pz (F, n, n), Pw (F, m, m) with D_i = P_i^H P_i (full blocks: sqrt(d) I).

    mu and the D-G bound are invariant under M -> Pz M Pw^-1 with such block factors, and a
    certificate (D_b, G_b) of the balanced matrix is (Pz^H D_b Pz, Pw^H G_b Pz) for M.
    Rows whose D is not positive definite get identity factors.
    """
    F = Dz.shape[0]
    Pz = np.zeros((F, structure.n, structure.n), complex)
    Pw = np.zeros((F, structure.m, structure.m), complex)
    ok = np.ones(F, bool)
    for blk, zs, ws in zip(structure.blocks, structure.z_slices, structure.w_slices):
        if blk.is_scalar:
            D = 0.5 * (Dz[:, zs, zs] + np.conj(np.swapaxes(Dz[:, zs, zs], 1, 2)))
            try:
                R = np.conj(np.swapaxes(np.linalg.cholesky(D), 1, 2))
            except np.linalg.LinAlgError:
                R = np.broadcast_to(np.eye(blk.z_size), D.shape).astype(complex)
                ok[:] = False
            Pz[:, zs, zs] = R
            Pw[:, ws, ws] = R
        else:
            d = np.real(np.trace(Dz[:, zs, zs], axis1=1, axis2=2)) / blk.z_size
            ok &= d > 0
            root = np.sqrt(np.abs(d))[:, None, None]
            Pz[:, zs, zs] = root * np.eye(blk.z_size)
            Pw[:, ws, ws] = root * np.eye(blk.w_size)
    Pz[~ok] = np.eye(structure.n)
    Pw[~ok] = np.eye(structure.m)
    return Pz, Pw


def _herm_t(X):
    return np.conj(np.swapaxes(X, 1, 2))


# Balanced restarts: a D with condition number above BALANCE_CONDITION means M is badly
# scaled for the descent (its steps are relative to D); the descent is then rerun on the
# balanced matrix, at most BALANCE_ROUNDS times, while the bound improves by > 10 accuracy.
BALANCE_CONDITION = 1e2
BALANCE_ROUNDS = 6


def mu_upper_bound(M, structure, *, iterations: int = 40, initial=None, accuracy: float = 1e-4,
                   target: float = 0.0):
    """Mixed-mu upper bound for each matrix in the stack M (F, n, m).

    Parameters
    ----------
    M : complex ndarray (F, n, m)
    structure : BlockStructure
    iterations : int
        L-BFGS iterations per temperature stage.
    initial : ndarray (F, p), optional
        Packed scalings of a previous call with the same structure (warm start).
    accuracy : float
        Target relative accuracy of beta^2; the last soft-max temperature is about
        ``accuracy * beta^2 / log(m)``.
    target : float
        Stop early where the bound is already below ``target`` (a yes/no certificate
        ``mu < target`` is all a bisection needs).

    Returns
    -------
    upper : ndarray (F,)
        The bound the returned scalings prove in floating point (``certify_scalings``).
    scalings : DGScalings
    packed : ndarray (F, p)   packed scalings of the first descent, for warm starts.

    Where the scalings found are badly conditioned (M badly scaled, e.g. a loop with gains
    of 1e3 and parameters of 0.2: D spans 1e8), the descent is restarted on the matrix
    balanced by them (``_balancing``) until the bound stops improving; each restart starts
    from a well-scaled problem, where the first run's steps were too small to reach the
    optimum (two-mass servo at 1 rad/s: 3.19 -> 0.215 in 5 rounds, the LMI optimum).
    """
    M_given = np.asarray(M, dtype=complex)
    # mu(s M) = s mu(M): the descent runs on M / ||M|| (its steps and thresholds are not
    # scale-free), and the scalings go back as (D, s G)
    norm = np.linalg.norm(M_given, axis=(1, 2))
    norm = np.where(np.isfinite(norm) & (norm > 0), norm, 1.0)
    M = M_given / norm[:, None, None]
    early_stop = target > 0
    target_n = target / norm if early_stop else np.zeros(M.shape[0])
    layout = _Layout(structure)
    if initial is None:
        x = layout.initial(osborne_scalings(M, structure))
    else:
        x = np.array(initial, dtype=float)
    first_x, lam = _descent(M, layout, x, iterations, accuracy, early_stop, target_n)
    Dz, Dw, G, _, _ = layout.matrices(first_x)
    G = G * norm[:, None, None]
    best = lam * norm**2          # pencil level of M itself
    cond = np.linalg.cond(Dz)
    rows = np.flatnonzero(np.isfinite(best) & (~np.isfinite(cond) | (cond > BALANCE_CONDITION))
                          & (best > (target**2 if early_stop else -np.inf)))
    Pz = np.broadcast_to(np.eye(structure.n), (rows.size, structure.n, structure.n)).astype(complex)
    Pw = np.broadcast_to(np.eye(structure.m), (rows.size, structure.m, structure.m)).astype(complex)
    current = Dz[rows]
    for _ in range(BALANCE_ROUNDS):
        if rows.size == 0:
            break
        Qz, Qw = _balancing(structure, current)
        Pz, Pw = Qz @ Pz, Qw @ Pw
        size = np.max(np.abs(Pz), axis=(1, 2))[:, None, None]  # (Pz, Pw) -> c (Pz, Pw): same Mb
        Pz, Pw = Pz / size, Pw / size
        Mb = Pz @ M_given[rows] @ np.linalg.inv(Pw)
        s = np.linalg.norm(Mb, axis=(1, 2))
        s = np.where(np.isfinite(s) & (s > 0), s, 1.0)
        Mn = Mb / s[:, None, None]
        # a fresh (Osborne) start on the balanced matrix: continuing from the current point
        # (D = I there) stalled where it had stalled before (two-mass servo: 0.29 vs 0.22)
        xb, lb = _descent(Mn, layout, layout.initial(osborne_scalings(Mn, structure)), iterations,
                          accuracy, early_stop, target_n[rows] * norm[rows] / s if early_stop else target_n[rows])
        Dzb, Dwb, Gb, _, _ = layout.matrices(xb)
        level = lb * s**2
        improved = np.isfinite(level) & (level < best[rows] - 10 * accuracy * np.abs(best[rows]))
        r = rows[improved]
        best[r] = level[improved]
        Dz[r] = _herm_t(Pz[improved]) @ Dzb[improved] @ Pz[improved]
        Dw[r] = _herm_t(Pw[improved]) @ Dwb[improved] @ Pw[improved]
        G[r] = s[improved, None, None] * (_herm_t(Pw[improved]) @ Gb[improved] @ Pz[improved])
        keep = improved & (level > (target**2 if early_stop else -np.inf))
        rows, Pz, Pw, current = rows[keep], Pz[keep], Pw[keep], Dzb[keep]
    # report what the returned scalings prove in floating point, not the optimiser's value
    level, scalings = certify_scalings(M_given, structure, Dz, Dw, G)
    upper = np.sqrt(np.maximum(level, 0.0))
    return upper, scalings, first_x
