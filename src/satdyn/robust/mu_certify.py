"""Certification of D-G scalings: the smallest level that fixed (D, G) prove in floating point.

Every optimiser of the D-G bound (the soft-max descent of ``mu_upper``, the method of
centres of ``mu_centers``) stops somewhere; what it reports must be *proved* by the scalings
it returns, on any machine. For fixed block-diagonal D > 0 and Hermitian G the LMI

    LMI(t) = H(D, G) - t D_w,L - D_w,N  <=  0,   H = M^H D_z M + j (G M - M^H G^H),

holds exactly for t >= t*(D, G), the largest generalised eigenvalue of the pencil
(H, D_w) (level on every block: t = beta^2 of mu) or of its Schur complement (level on
some blocks only: t = gamma^2 of the skew-mu of a worst-case gain). This module

1. regularises D away from singular: the eigenvalues of every D_i (and every full-block
   d_i) are floored at ``floor * max eigenvalue of D`` (optimisers drive D_i -> 0 on real
   blocks where G alone does the work, and a pencil with a near-singular D_w cannot be
   solved accurately);
2. computes t* of the regularised scalings through a Cholesky factor of D_w;
3. adds a rounding margin rho so that the *exact* scaled LMI S(t) = L^-1 LMI(t) L^-H
   (L = chol(diag(level) D_w) at the pencil's level, block-diagonal; S <= 0 exactly when
   LMI <= 0) is <= -e(t) I at
   t = t* + rho, where e(t) bounds the rounding error of evaluating S(t) and its largest
   eigenvalue in floating point, componentwise relative to the data and to D (derivation at
   ``rounding_bound``); the margin is confirmed by the floating-point check itself (largest
   eigenvalue of fl(S(t)) <= -2 e(t)) and grown until the check passes;
4. keeps, per matrix, the smallest level certified over a few floors.

Because the exact S(t) is <= -e(t) I, any backward-stable evaluation of S(t) (a test's,
another library's) finds its largest eigenvalue <= 0 at the reported level. The scaled
form is what makes certificates with D spanning many decades checkable at all (badly
scaled loops; an unscaled check cannot resolve eigenvalues below u ||LMI||).

Arguments:
    M : complex ndarray (F, n, m); structure : BlockStructure;
    Dz (F, n, n), Dw (F, m, m), G (F, m, n) : block scalings (Hermitian D blocks on the
    scalar blocks, d I on full blocks, Hermitian G on the real blocks);
    level_w : bool (m,) or None, the w indices the level multiplies (None: all, mu).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .mu_barrier import _pencil_max

__all__ = ["DGScalings", "certify_scalings", "rounding_bound", "scaled_lmi"]


@dataclass(frozen=True)
class DGScalings:
    """D-G certificate per frequency: ``M^H Dz M + j(G M - M^H G^H) - upper^2 Dw <= 0``.

    Attributes
    ----------
    Dz : ndarray (F, n, n)   D scaling on the z side (rows of M), Hermitian positive definite.
    Dw : ndarray (F, m, m)   the same scalings on the w side (columns of M).
    G : ndarray (F, m, n)    Hermitian blocks on the real-block positions, zero elsewhere.
    """

    Dz: np.ndarray
    Dw: np.ndarray
    G: np.ndarray

# Relative floors tried on the eigenvalues of D (the smallest certified level wins). A
# smaller floor perturbs the optimiser's D less but leaves D_w worse conditioned, which
# makes the rounding margin (~ kappa(D_w) * n * u) larger: 1e-9 costs at most ~1e-5
# relative in t at Delta 60 x 60, 1e-5 a few 1e-10.
FLOORS = (1e-13, 1e-11, 1e-9, 1e-7, 1e-5)
# Constant of the first-order rounding bounds below (complex multiply-add and the Hermitian
# eigensolver's backward error, see ``rounding_bound``).
_SAFETY = 4.0
_UNIT_ROUNDOFF = np.finfo(float).eps / 2
_GROWTH_TRIES = 12


def _herm(X):
    return 0.5 * (X + np.conj(np.swapaxes(X, -1, -2)))


def _lmi(M, Dz, Dw, G, level_rows):
    """fl(H - diag(level_rows) D_w) (F, m, m), Hermitian part; level_rows (F, m) = t on L, 1 on N."""
    MH = np.conj(np.swapaxes(M, 1, 2))
    H = MH @ Dz @ M + 1j * (G @ M - MH @ np.conj(np.swapaxes(G, 1, 2)))
    return _herm(H - level_rows[:, :, None] * Dw)


def scaled_lmi(M, Dz, Dw, G, level_rows, L_inv):
    """S = L^-1 fl(LMI) L^-H (F, m, m), L block-diagonal invertible: S <= 0 exactly when LMI <= 0 (Sylvester).

    The check is made on S, not on the LMI itself: D spans many decades on badly scaled
    loops (1e9 on the two-mass servo at 1 rad/s), where the LMI's eigenvalues along the small
    D directions lie far below u ||LMI|| and no unscaled eigenvalue check can resolve them;
    after the congruence every direction is measured relative to its own D.
    """
    return _herm(L_inv @ _lmi(M, Dz, Dw, G, level_rows) @ np.conj(np.swapaxes(L_inv, 1, 2)))


def rounding_bound(M, Dz, Dw, G, level_rows, L, L_inv, S, block=1):
    """Bound e (F,) on |lambda_max(fl(S)) - lambda_max(S)| for S = L^-1 LMI L^-H.

    Derivation (first order in the unit roundoff u; Higham, *Accuracy and Stability of
    Numerical Algorithms*, 2nd ed., Lemma 3.5, Thm 8.5 and Sec. 3.6; complex arithmetic adds
    a small constant factor):

    - a matrix product fl(A B) with inner dimension k satisfies |fl(AB) - AB| <= gamma_k |A||B|
      elementwise (gamma_k ~ k u); M^H D_z M (two products, inner n), G M, M^H G^H and the
      subtraction of level * D_w give |fl(LMI) - LMI| <= (2n + m + 2) u E elementwise,
      E = |M|^H |D_z| |M| + |G||M| + |M|^H |G|^H + |level| |D_w|;
    - the congruence by L^-1 (computed L^-1 of the block-diagonal Cholesky factor, blocks of
      size r <= ``block``) maps that error to |L^-1| E |L^-H| and adds its own, at most
      (2 r + m) u (|L^-1||L|) |S| (|L^-1||L|)^T (triangular solves are backward stable,
      |dx| <= gamma_r |L^-1||L||x|, applied on both sides, plus the two products);
    - the Hermitian eigensolver is backward stable (an error of at most ~m u ||S||_2), and by
      Weyl's theorem eigenvalues move by at most the 2-norm of a Hermitian perturbation,
      itself <= the Frobenius norm of its elementwise bound.

    So e = _SAFETY u [(2n + m + 2) || |L^-1| E |L^-H| ||_F + (2r + 2m) || C |S| C^T ||_F],
    C = |L^-1||L|, with _SAFETY = 4 for the complex-arithmetic constants. Every term is
    relative to the data and to D's own scale (componentwise): no absolute tolerance.
    """
    absM = np.abs(M)
    absG = np.abs(G)
    E = (np.swapaxes(absM, 1, 2) @ np.abs(Dz) @ absM + absG @ absM + np.swapaxes(absG @ absM, 1, 2)
         + np.abs(level_rows)[:, :, None] * np.abs(Dw))
    absLi = np.abs(L_inv)
    Es = absLi @ E @ np.swapaxes(absLi, 1, 2)
    C = absLi @ np.abs(L)
    Cs = C @ np.abs(S) @ np.swapaxes(C, 1, 2)
    n, m = M.shape[1], M.shape[2]
    return _SAFETY * _UNIT_ROUNDOFF * ((2 * n + m + 2) * np.linalg.norm(Es, axis=(1, 2))
                                       + (2 * block + 2 * m) * np.linalg.norm(Cs, axis=(1, 2)))


def _regularise(structure, Dz, Dw, G, floor):
    """Block-diagonal Hermitian scalings with every D eigenvalue >= floor * max eigenvalue."""
    F = Dz.shape[0]
    blocks = structure.blocks
    parts = []
    top = np.zeros(F)
    for blk, zs, _ws in zip(blocks, structure.z_slices, structure.w_slices):
        if blk.is_scalar:
            lam, V = np.linalg.eigh(_herm(Dz[:, zs, zs]))
            parts.append((lam, V))
            top = np.maximum(top, lam[:, -1])
        else:
            d = np.real(np.trace(Dz[:, zs, zs], axis1=1, axis2=2)) / blk.z_size
            parts.append((d, None))
            top = np.maximum(top, d)
    low = floor * top
    Dz_r = np.zeros_like(Dz)
    Dw_r = np.zeros_like(Dw)
    G_r = np.zeros_like(G)
    for blk, zs, ws, (lam, V) in zip(blocks, structure.z_slices, structure.w_slices, parts):
        if blk.is_scalar:
            D = (V * np.maximum(lam, low[:, None])[:, None, :]) @ np.conj(np.swapaxes(V, 1, 2))
            Dz_r[:, zs, zs] = D
            Dw_r[:, ws, ws] = D
        else:
            d = np.maximum(lam, low)[:, None, None]
            Dz_r[:, zs, zs] = d * np.eye(blk.z_size)
            Dw_r[:, ws, ws] = d * np.eye(blk.w_size)
        if blk.kind == "real":
            G_r[:, ws, zs] = _herm(G[:, ws, zs])
    return Dz_r, Dw_r, G_r


def _certify_fixed(M, Dz, Dw, G, level_w, block):
    """Smallest certified level (F,) of fixed, regularised scalings (inf where none)."""
    F, m = M.shape[0], M.shape[2]
    lv = np.ones(m, bool) if level_w is None else np.asarray(level_w, bool)
    t_hat = _pencil_max(M, Dz, Dw, G, None if level_w is None else lv)
    out = np.full(F, np.inf)
    rows = np.flatnonzero(np.isfinite(t_hat))
    if rows.size == 0:
        return out
    Mr, Dzr, Dwr, Gr, tr = M[rows], Dz[rows], Dw[rows], G[rows], t_hat[rows]
    def level_rows(t):
        return np.where(lv[None, :], t[:, None], 1.0)

    # Congruence by L = chol(diag(level) D_w) at the pencil's level (D_w > 0 here, as the
    # level is finite): S = L^-1 H L^-H - I, every direction of order one, also where the
    # level is large on a few blocks only (worst-case gains of 1e3: t ~ 1e6 on the
    # performance block, slack ~1e-8 of it on the others).
    weight = level_rows(np.where(tr > 0, tr, 1.0))
    L = np.linalg.cholesky(_herm(Dwr * weight[:, :, None]))
    L_inv = np.linalg.inv(L)

    # In the scaled form, S(t_hat + rho) = S(t_hat) - (rho / t_hat) diag(I_L, 0) (L is
    # block-diagonal and the level blocks are whole blocks): the level directions move by 3 e,
    # room for the pencil's own rounding; directions the level does not reach keep the
    # Schur complement's slack. The floating-point check below is what decides.
    S0 = scaled_lmi(Mr, Dzr, Dwr, Gr, level_rows(tr), L_inv)
    # (in these units the level directions move by rho / t: rho = 3 e t)
    rho = 3.0 * rounding_bound(Mr, Dzr, Dwr, Gr, level_rows(np.abs(tr)), L, L_inv, S0, block) \
        * np.where(tr > 0, tr, 1.0)
    todo = np.arange(rows.size)
    for _ in range(_GROWTH_TRIES):
        if todo.size == 0:
            break
        # a negative level certifies mu = 0 (LMI(0) <= LMI(t < 0) on the level blocks)
        t = np.maximum(tr[todo] + rho[todo], 0.0)
        lr = level_rows(t)
        args = (Mr[todo], Dzr[todo], Dwr[todo], Gr[todo], lr)
        S = scaled_lmi(*args, L_inv[todo])
        top = np.linalg.eigvalsh(S)[:, -1]
        ok = top <= -2.0 * rounding_bound(*args, L[todo], L_inv[todo], S, block)
        out[rows[todo[ok]]] = t[ok]
        todo = todo[~ok]
        rho[todo] *= 4.0
    return out


def certify_scalings(M, structure, Dz, Dw, G, level_w=None, floors=FLOORS):
    """Smallest level each matrix's scalings prove, and the (regularised) scalings proving it.

    Parameters
    ----------
    M : complex ndarray (F, n, m)
    structure : BlockStructure
    Dz, Dw, G : complex ndarrays (F, n, n), (F, m, m), (F, m, n)
        Scalings from an optimiser (need not be exactly Hermitian or well conditioned).
    level_w : bool array (m,), optional
        The w indices the level multiplies (default: all, the level is beta^2 of mu).
    floors : sequence of float
        Relative floors on the eigenvalues of D to try.

    Returns
    -------
    level : ndarray (F,)
        t with exact LMI(t) <= -e(t) I (see module docstring); ``inf`` where no floor gives
        a certificate (e.g. D is not positive, or the skew level has no feasible point).
    scalings : DGScalings
        The regularised scalings of the best floor (the inputs where none certifies).
    """
    M = np.asarray(M, dtype=complex)
    Dz, Dw, G = (np.asarray(X, dtype=complex) for X in (Dz, Dw, G))
    best = np.full(M.shape[0], np.inf)
    out = [Dz.copy(), Dw.copy(), G.copy()]
    finite = (np.all(np.isfinite(Dz), axis=(1, 2)) & np.all(np.isfinite(Dw), axis=(1, 2))
              & np.all(np.isfinite(G), axis=(1, 2)))
    rows = np.flatnonzero(finite)
    if rows.size == 0:
        return best, DGScalings(*out)
    for floor in floors:
        reg = _regularise(structure, Dz[rows], Dw[rows], G[rows], floor)
        level = _certify_fixed(M[rows], *reg, level_w, max(b.w_size for b in structure.blocks))
        better = level < best[rows]
        best[rows[better]] = level[better]
        for X, R in zip(out, reg):
            X[rows[better]] = R[better]
    return best, DGScalings(*out)
