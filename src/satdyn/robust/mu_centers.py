"""D-G upper bound of mu to its optimum: the method of centres (Newton on an LMI barrier).

The D-G bound (see ``mu_upper``) is the generalised-eigenvalue problem (GEVP)

    beta*^2 = min over D > 0, G = G^H of  lambda_max( H(D, G), D_w ),
    H(D, G) = M^H D_z M + j (G M - M^H G^H),

quasi-convex in (D, G). The soft-max descent of ``mu_upper`` reaches its optimum quickly
for non-repeated structures but stalls 5-25 % above it when repeated scalar blocks carry
full Hermitian D and G. This module finishes the job with the method of centres for GEVPs
(Boyd and El Ghaoui, Linear Algebra Appl. 188, 1993): for a level t above the current
bound, Newton's method finds the analytic centre of

    F_t(D, G) = t D_w,L + D_w,N - H(D, G) > 0,   D > 0,   trace(D_w) = m,

i.e. the minimiser of phi_t = -log det F_t - log det D_w; then the level moves to
t <- (1 - theta) lambda(x_c) + theta t and the centre is followed down. Every iterate is
strictly feasible; the level reported is the one the returned scalings prove in floating
point (``mu_certify``). The iteration stops when the secant model of the central path
(lambda_c(t) ~ lambda* + a (t - lambda*)) puts the optimum within the accuracy asked for.

L, the blocks the level multiplies, is every block for mu (t = beta^2). For the skew-mu
of a worst-case gain it is only the full performance block: with D_p = e I,
F_t = diag(D_Delta, t e I) - H >= 0 says mu_[Delta, Delta_p](diag(I, I/sqrt(t)) M) <= 1,
so the optimum is gamma^2, found without a bisection on gamma.

The barrier, its parameterisation and its derivatives live in ``mu_barrier``.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular

from .mu_barrier import _barrier_terms, _CentersLayout, _pencil_max
from .mu_certify import DGScalings, certify_scalings
from .mu_dense import DenseBarrier, dense_applies
from .mu_upper import _balancing, _herm_t, mu_upper_bound, osborne_scalings

__all__ = ["centers_upper_bound", "direct_start", "needs_refinement", "refine_rows", "refine_supremum"]


def _newton_direction(grad, hess, c):
    """Newton step of min phi s.t. c.y fixed: (dy (F, p), decrement^2 (F,)); NaN rows if singular."""
    F, p, _ = hess.shape
    scale = np.maximum(np.trace(hess, axis1=1, axis2=2) / p, 1e-300)
    # G directions M cannot see; relative to each diagonal entry (scale-free: D entries may span decades)
    diag = np.maximum(np.diagonal(hess, axis1=1, axis2=2), 1e-12 * scale[:, None])
    H = hess + 1e-12 * diag[:, :, None] * np.eye(p)
    rhs = np.stack([grad, np.broadcast_to(c, grad.shape)], axis=2)
    try:
        np.linalg.cholesky(H)   # positive definite (else the per-row fallback flags the row)
        # one batched solve: per-row triangular solves cost more in Python than in flops
        sol = np.linalg.solve(H, rhs)
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


def centers_upper_bound(M, structure, Dz0, G0, *, level_blocks=None, accuracy: float = 1e-4,
                        max_newton: int = 400, chunk: int = 4, progress=None, target: float = -np.inf):
    """Refine D-G certificates to the optimum of the D-G bound by the method of centres.

    Solves, per matrix, the GEVP  min t  s.t.  t D_w,L + D_w,N - H(D, G) >= 0, D > 0, where
    L are the ``level_blocks`` (default all blocks: t = beta^2, the squared D-G bound of mu;
    only a performance block: t = gamma^2, the skew-mu bound of a worst-case gain).

    Parameters
    ----------
    M : complex ndarray (F, n, m)
    structure : BlockStructure (any blocks: repeated real, repeated complex, full)
    Dz0 : complex ndarray (F, n, n), G0 : complex ndarray (F, m, n)
        Starting scalings, strictly feasible for some finite t (block-diagonal Dz0 > 0,
        Hermitian G0 blocks), e.g. the soft-max descent's certificate.
    level_blocks : sequence of bool (k,), optional
    accuracy : float
        Stop where the estimated distance of t to the optimum is below ``accuracy``
        (relative).
    target : float
        A row may stop once its level is <= ``target`` (it then no longer decides a supremum;
        its result stays a certified, unconverged bound).
    max_newton : int
        Newton steps per matrix at most.
    chunk : int
        Matrices refined together (the Hessians are (p x p) each).
    progress : callable(done, total, message), optional
        Called after each chunk.

    Returns
    -------
    level : ndarray (F,)       the optimal t found, certified by the returned scalings
                               (``certify_scalings``; inf where they prove nothing)
    scalings : DGScalings      the certificate (Dz (F, n, n), Dw (F, m, m), G (F, m, n))
    error_estimate : ndarray (F,)   estimated relative distance of ``level`` to the optimum
    newton_steps : ndarray (F,) int
    """
    layout = _CentersLayout(structure, level_blocks)
    F = M.shape[0]
    M_given = M
    # Newton on the balanced problem: with Pz, Pw the block factors of the start's D
    # (D_i = P_i^H P_i), Pz M Pw^-1 starts from D = I; the barrier's Hessian is then well
    # conditioned even where the optimal D spans many decades (badly scaled loops), and the
    # certificate maps back by congruence (same level t, see ``mu_upper._balancing``).
    Pz, Pw = _balancing(structure, Dz0)
    Pz_inv, Pw_inv = np.linalg.inv(Pz), np.linalg.inv(Pw)
    M = Pz @ M @ Pw_inv
    Dz0 = _herm_t(Pz_inv) @ Dz0 @ Pz_inv
    G0 = _herm_t(Pw_inv) @ G0 @ Pz_inv
    out_lam = np.empty(F)
    out_Dz = np.empty((F, structure.n, structure.n), complex)
    out_Dw = np.empty((F, structure.m, structure.m), complex)
    out_G = np.empty((F, structure.m, structure.n), complex)
    out_err = np.empty(F)
    out_steps = np.empty(F, dtype=int)
    if USE_DENSE and dense_applies(layout):
        # small problems: a step's cost is Python overhead, shared by the rows of a chunk
        chunk = max(chunk, 16)
    for start in range(0, F, chunk):
        sl = slice(start, min(start + chunk, F))
        out_lam[sl], y, out_err[sl], out_steps[sl] = _centers_chunk(
            M[sl], layout, layout.pack(Dz0[sl], G0[sl]), accuracy, max_newton, target)
        out_Dz[sl], out_Dw[sl], out_G[sl] = layout.assemble(y)
        if progress is not None:
            progress(sl.stop, F, "D-G bound refined by the method of centres")
    out_Dz = _herm_t(Pz) @ out_Dz @ Pz
    out_Dw = _herm_t(Pw) @ out_Dw @ Pw
    out_G = _herm_t(Pw) @ out_G @ Pz
    # the level reported is the one the returned scalings prove in floating point
    level_w = None if np.all(layout.level_w) else layout.level_w
    out_lam, scalings = certify_scalings(M_given, structure, out_Dz, out_Dw, out_G, level_w)
    return out_lam, scalings, out_err, out_steps


# Level update t <- (1 - THETA) lambda_c + THETA t, and the predictor's aim: PREDICT of the
# way back from the estimated optimum to the current bound (tuned on bench_mu's 10 x 6 reals).
THETA = 0.3
PREDICT = 0.5
# Convergence is only declared with the level within GAP (relative) of the centre's value:
# with a secant slope >= 0.01 an estimate <= 1e-4 implies it, so only a bogus model is held back.
GAP = 1e-2
# restarts (re-balanced) of the rows the method of centres left unconverged
RESTARTS = 3


class _GenericBarrier:
    """Barrier terms and levels of a chunk by the Kronecker assembly of ``mu_barrier``."""

    def __init__(self, layout, M):
        self.layout, self.M = layout, M

    def level(self, rows, y):
        return _pencil_max(self.M[rows], *self.layout.assemble(y), self.layout.level_w)

    def terms(self, rows, y, t):
        return _barrier_terms(self.M[rows], self.layout, y, t)


# the dense-basis barrier for small structures (``mu_dense``); False forces the Kronecker one
USE_DENSE = True


def _centers_chunk(M, layout, y, accuracy, max_newton, target=-np.inf):
    F = M.shape[0]
    barrier = (DenseBarrier if USE_DENSE and dense_applies(layout) else _GenericBarrier)(layout, M)
    c = layout.trace_vector
    m = layout.structure.m
    trace = y @ c
    usable = np.isfinite(trace) & (trace > 0)
    y[usable] *= (m / trace[usable])[:, None]
    lam = np.full(F, np.inf)
    if np.any(usable):
        lam[usable] = barrier.level(np.flatnonzero(usable), y[usable])
    best_y, best_lam = y.copy(), lam.copy()
    error = np.full(F, np.inf)
    steps = np.zeros(F, dtype=int)
    centrings = np.zeros(F, dtype=int)
    # rows without a feasible start (or with a level <= 0: nothing to refine) are left as they are
    active = np.isfinite(lam) & (lam > 0) & (lam > target)
    t = np.where(active, lam * 1.05, 1.0)
    prev_t = np.full(F, np.nan)
    prev_lam = np.full(F, np.nan)
    prev_y = y.copy()
    value = np.full(F, np.inf)
    grad = np.zeros((F, layout.size))
    hess = np.zeros((F, layout.size, layout.size))
    rows = np.flatnonzero(active)
    if rows.size:
        value[rows], grad[rows], hess[rows], ok = barrier.terms(rows, y[rows], t[rows])
        active[rows[~ok]] = False
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
        v_new, g_new, h_new, ok_new = barrier.terms(rows, y_new, t[rows])
        for _ in range(30):  # safeguard: backtrack when rounding left the domain
            bad = (~ok_new | (v_new > value[rows] + 1e-10 * np.abs(value[rows]))) & (alpha > 1e-10)
            if not np.any(bad):
                break
            alpha[bad] *= 0.5
            y_new[bad] = y[rows[bad]] + alpha[bad, None] * dy[bad]
            vb, gb, hb, okb = barrier.terms(rows[bad], y_new[bad], t[rows[bad]])
            v_new[bad], g_new[bad], h_new[bad], ok_new[bad] = vb, gb, hb, okb
        keep = ok_new
        y[rows[keep]], value[rows[keep]] = y_new[keep], v_new[keep]
        grad[rows[keep]], hess[rows[keep]] = g_new[keep], h_new[keep]
        stuck = rows[~keep | ~finite]
        active[stuck] = False
        error[stuck] = np.inf  # stopped before the model said converged
        centred = rows[(dec < 0.3) & keep & finite]
        if centred.size == 0:
            continue
        lam_c = barrier.level(centred, y[centred])
        better = lam_c < best_lam[centred]
        best_lam[centred[better]], best_y[centred[better]] = lam_c[better], y[centred[better]]
        # Along the central path lambda_c(t) ~ lambda* + a (t - lambda*) (a < 1): the secant
        # slope a between two centres gives the optimum's estimate and the error of the bound.
        slope = (lam_c - prev_lam[centred]) / (t[centred] - prev_t[centred])
        model = np.isfinite(slope) & (slope > 0) & (slope < 0.99)
        t_star = np.where(model, (lam_c - slope * t[centred]) / (1.0 - np.where(model, slope, 0.0)), np.nan)
        # measured from the centre's own value: the best point so far may be the (uncentred)
        # start, and a secant model through points far above the optimum is biased, so only
        # the path itself reaching the optimum counts
        est = np.where(model, (lam_c - t_star) / lam_c, np.inf)
        # an estimate above a certified value contradicts the model: not yet asymptotic
        model &= est >= 0
        centrings[centred] += 1
        error[centred] = np.where(model, est, error[centred])
        # est = a / (1 - a) (t - lambda_c) / lambda_c: a tiny secant slope a (levels far
        # above the optimum, where lambda_c barely follows t) must not pass for convergence
        near = (t[centred] - lam_c) <= GAP * lam_c
        # a level <= 0 is certified: the bound is 0 (real blocks can make H <= 0)
        done = (model & near & (est <= accuracy) & (centrings[centred] >= 3)) | (lam_c <= 0)
        # below ``target`` the row no longer decides anything (e.g. a supremum over frequency)
        below = best_lam[centred] <= target
        error[centred[below]] = 0.0
        done |= below
        active[centred[done]] = False
        go = ~done
        move = centred[go]
        t_next = (1.0 - THETA) * lam_c[go] + THETA * t[move]
        # predictor: extrapolate the centre along the path towards the estimated optimum
        use = model[go]
        aim = t_star[go] + PREDICT * (lam_c[go] - t_star[go])
        dxdt = (y[move] - prev_y[move]) / (t[move] - prev_t[move])[:, None]
        y_pred = y[move] + np.where(use, aim - t[move], 0.0)[:, None] * np.where(use[:, None], dxdt, 0.0)
        y_pred *= (m / (y_pred @ c))[:, None]
        prev_t[move], prev_lam[move], prev_y[move] = t[move], lam_c[go], y[move]
        if np.any(use):
            lam_p = np.full(move.size, np.inf)
            lam_p[use] = barrier.level(move[use], y_pred[use])
            jump = use & (lam_p < lam_c[go])
            y[move[jump]] = y_pred[jump]
            t_next[jump] = lam_p[jump] + (THETA + 0.25) * (lam_c[go][jump] - lam_p[jump])
            improve = jump & (lam_p < best_lam[move])
            best_lam[move[improve]], best_y[move[improve]] = lam_p[improve], y_pred[improve]
        t[move] = t_next
        value[move], grad[move], hess[move], ok_move = barrier.terms(move, y[move], t[move])
        active[move[~ok_move]] = False
    return best_lam, best_y, error, steps


def needs_refinement(structure) -> bool:
    """Repeated scalar blocks present: there the soft-max descent stops short of the optimum."""
    return any(b.is_scalar and b.z_size > 1 for b in structure.blocks)


def direct_start(M, structure, max_rows: int = 16):
    """Certified Osborne scalings as the method of centres' start, where that is cheaper.

    For small structures (dense barrier, ``mu_dense``) and a few matrices, the soft-max
    descent costs more than the Newton steps it saves (one 10-channel matrix: ~65 ms of
    descent, mostly Python overhead, against ~20 more Newton steps of ~0.25 ms); up to 12
    channels that holds for any number of matrices. Returns
    ``(upper (F,), DGScalings)`` (D = d_i I per block, G = 0, certified), or None where the
    descent should run (many matrices share its cost; large structures).
    """
    if not (USE_DENSE and dense_applies(_CentersLayout(structure))):
        return None
    # many matrices share the descent's overhead: it pays off from ~20 channels, where its
    # start saves Newton steps of ~1 ms (bench_mu, 20 frequencies: 4 channels 21 -> 5.8 ms
    # per frequency from Osborne, 10 channels 29 -> 23, 20 channels 134 -> 193)
    if M.shape[0] > max_rows and structure.m > 12:
        return None
    d = osborne_scalings(M, structure)
    F = M.shape[0]
    Dz = np.zeros((F, structure.n, structure.n), complex)
    Dw = np.zeros((F, structure.m, structure.m), complex)
    for i, (zs, ws) in enumerate(zip(structure.z_slices, structure.w_slices)):
        Dz[:, zs, zs] = d[:, i, None, None] * np.eye(zs.stop - zs.start)
        Dw[:, ws, ws] = d[:, i, None, None] * np.eye(ws.stop - ws.start)
    level, scalings = certify_scalings(M, structure, Dz, Dw, np.zeros((F, structure.m, structure.n), complex))
    return np.sqrt(np.maximum(level, 0.0)), scalings


def _take(scalings, rows):
    return DGScalings(scalings.Dz[rows], scalings.Dw[rows], scalings.G[rows])


def refine_rows(M, structure, upper, scalings, rows, *, start=None, level_blocks=None,
                accuracy: float = 1e-4, progress=None, target: float = -np.inf):
    """Refine the bounds at ``rows`` and keep each refinement only where it is lower.

    ``upper`` (F,) are square roots of the GEVP level (mu bounds, or worst-case gains with
    ``level_blocks``), certified by ``scalings`` (DGScalings, (F, ...)). ``start``
    (DGScalings for ``rows``) overrides them as starting point; ``scalings`` may then be
    None. Returns new (upper, scalings) (copies; scalings None when given None).
    """
    upper = np.array(upper, dtype=float)
    first = start if start is not None else _take(scalings, rows)
    lam, found, error, _ = centers_upper_bound(M[rows], structure, first.Dz, first.G, level_blocks=level_blocks,
                                               accuracy=accuracy, progress=progress, target=target)
    # Rows stopped before the model said converged (step cap, or stuck) restart from where they
    # are: the restart re-balances M by the current D, which the path had left by decades
    # (two-mass servo at 0.67 rad/s: 0.257 -> 0.211 on the second run).
    Dz, Dw, G = found.Dz.copy(), found.Dw.copy(), found.G.copy()
    for _ in range(RESTARTS):
        again = np.flatnonzero(~(error <= accuracy) & np.isfinite(lam) & (lam > target))
        if again.size == 0:
            break
        lam2, found2, error2, _ = centers_upper_bound(M[rows[again]], structure, Dz[again], G[again],
                                                      level_blocks=level_blocks, accuracy=accuracy, target=target)
        better = lam2 < lam[again]
        pick = again[better]
        lam[pick], Dz[pick], Dw[pick], G[pick] = lam2[better], found2.Dz[better], found2.Dw[better], found2.G[better]
        error[again] = np.where(better & (lam2 < lam[again] * (1 - 10 * accuracy)) | (error2 <= accuracy),
                                error2, 0.0)  # no progress: stop
    found = DGScalings(Dz, Dw, G)
    beta = np.sqrt(np.maximum(lam, 0.0))
    better = np.isfinite(beta) & (beta < upper[rows])
    upper[rows[better]] = beta[better]
    if scalings is not None:
        Dz, Dw, G = scalings.Dz.copy(), scalings.Dw.copy(), scalings.G.copy()
        Dz[rows[better]], Dw[rows[better]], G[rows[better]] = found.Dz[better], found.Dw[better], found.G[better]
        scalings = DGScalings(Dz, Dw, G)
    return upper, scalings


def _neighbour_certificates(M, structure, upper, scalings, refined, todo, level_w, fresh=None):
    """Try the certificates of the nearest refined rows (by index) on the ``todo`` rows.

    ``fresh`` (F,) bool: the rows refined since the last call; a pair whose refined row is
    not fresh was tried before and is skipped (default: every refined row is fresh).

    Rows are frequencies in order: the converged (D, G) of a neighbouring frequency usually
    proves a level close to the optimum here too, at the cost of one certification (no
    Newton step). Each row keeps the smaller of its own and the neighbours' certified
    bounds (both valid). Returns new (upper, scalings) (copies).
    """
    done = np.flatnonzero(refined)
    if done.size == 0 or todo.size == 0:
        return upper, scalings
    position = np.searchsorted(done, todo)
    upper = upper.copy()
    Dz, Dw, G = scalings.Dz.copy(), scalings.Dw.copy(), scalings.G.copy()
    for side in (position - 1, position):   # nearest refined row below, then above
        valid = (side >= 0) & (side < done.size)
        rows, src = todo[valid], done[np.clip(side, 0, done.size - 1)[valid]]
        # only close neighbours (two rows apart at most): a converged certificate sits on the
        # boundary of the LMI and proved 5-10 % above the optimum one grid step (9 %) away
        keep = np.abs(rows - src) <= 2
        if fresh is not None:
            keep &= fresh[src]
        rows, src = rows[keep], src[keep]
        if rows.size == 0:
            continue
        level, found = certify_scalings(M[rows], structure, Dz[src], Dw[src], G[src], level_w)
        beta = np.sqrt(np.maximum(level, 0.0))
        better = np.isfinite(beta) & (beta < upper[rows])
        pick = rows[better]
        upper[pick] = beta[better]
        Dz[pick], Dw[pick], G[pick] = found.Dz[better], found.Dw[better], found.G[better]
    return upper, DGScalings(Dz, Dw, G)


def refine_supremum(M, structure, upper, scalings=None, *, level_blocks=None, accuracy: float = 1e-4,
                    progress=None, floor: float = 0.0, batch: int = 1):
    """Converge the D-G bound where the supremum over the stack is decided.

    The bounds ``upper`` (F,) certified by ``scalings`` are all valid; the largest ones are
    refined by the method of centres, then any other whose (looser) bound still exceeds the
    refined maximum, until no unrefined bound does. So ``max(upper)`` becomes the converged
    D-G bound of the stack; the others stay valid upper bounds.

    Two things keep the number of rows refined small where the curve is flat:

    - certificate reuse: after each batch, the converged scalings of the nearest refined
      rows (neighbouring frequencies when the rows are a frequency sweep) are certified on
      the remaining candidates; a candidate they prove below the refined maximum needs no
      Newton step, and one they merely improve starts its refinement from them;
    - ``floor``: a known lower bound of the supremum of the D-G bounds (e.g. mu at a
      frequency where a destabilising parameter vector was found, 1 / its size): rows
      certified below it cannot decide the maximum and are never refined.

    ``batch`` rows are refined at a time (largest first). One at a time is the default: the
    refined maximum and the reused certificates then settle the next candidates before
    they are refined (a batch of 4 refined 4 rows where 1 sufficed on a resonance peak).

    Without ``scalings`` (mu only) the descent's scalings are recomputed for the rows refined
    (and None is returned in their place; no reuse).

    Returns
    -------
    upper : ndarray (F,), scalings : DGScalings (copies, refined rows replaced) or None,
    refined : bool ndarray (F,)   the rows the method of centres ran on (its evaluations)
    """
    upper = np.array(upper, dtype=float)
    refined = np.zeros(upper.shape[0], bool)
    fresh = np.zeros(upper.shape[0], bool)
    layout_level_w = None
    if level_blocks is not None:
        level_w = _CentersLayout(structure, level_blocks).level_w
        layout_level_w = None if np.all(level_w) else level_w
    while True:
        level = np.max(upper[refined]) if np.any(refined) else -np.inf
        level = max(level, float(floor))
        todo = np.flatnonzero(~refined & (upper > level))
        if todo.size and scalings is not None and np.any(refined):
            upper, scalings = _neighbour_certificates(M, structure, upper, scalings, refined, todo,
                                                      layout_level_w, fresh)
            todo = todo[upper[todo] > level]
        if todo.size == 0:
            break
        pick = todo[np.argsort(upper[todo])[::-1][:batch]]
        start = None
        if scalings is None:
            if level_blocks is not None:
                raise ValueError("`scalings` are needed to refine a GEVP with `level_blocks`")
            _, start, _ = mu_upper_bound(M[pick], structure)
        # a row refined below the current maximum no longer matters: stop it there
        upper, scalings = refine_rows(M, structure, upper, scalings, pick, start=start,
                                      level_blocks=level_blocks, accuracy=accuracy,
                                      target=level**2 if np.isfinite(level) and level > 0 else -np.inf)
        refined[pick] = True
        fresh[:] = False
        fresh[pick] = True
        if progress is not None:
            progress(int(np.count_nonzero(refined)), int(upper.size), "refining the peak D-G bounds")
    return upper, scalings, refined
