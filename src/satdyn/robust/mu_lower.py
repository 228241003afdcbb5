"""Mixed-mu lower bound: structured power iteration, with a real-parameter search fallback.

Arguments:
    M : complex ndarray (F, n, m), one matrix per frequency.
    structure : satdyn.robust.structure.BlockStructure.

mu(M) = max { rho_R(M Q) : Q in the structure, real blocks in [-1, 1], complex blocks in
the unit disc, full blocks of norm <= 1 }, where rho_R is the largest modulus of a real
eigenvalue (Young and Doyle). Every Q with a real eigenvalue lambda of M Q gives the
perturbation Delta = Q / lambda with det(I - M Delta) = 0 and sigma_max(Delta) = 1/|lambda|,
hence the lower bound |lambda|. We find such Q by

1. a power iteration in the sense of Young and Doyle: with lambda the target eigenvalue of
   M Q, a its right eigenvector and b = M^H y (y the left eigenvector), each complex block
   is aligned with (b_i, a_i) (Delta_i = b_i a_i^H / (|b_i||a_i|) for full blocks, the
   conjugate phase of b_i^H a_i for scalars) and each real scalar takes a damped step along
   Re(b_i^H a_i), which pushes lambda towards the positive real axis;
2. with complex and real blocks together, a final rotation of the complex blocks by a
   common phase (Newton on Im lambda = 0) makes the eigenvalue exactly real;
3. for purely real structures, where the power iteration stalls (real eigenvalues of a
   complex M Q occur only on thin sets), a search over the box: vertices and random points
   followed by Newton projections onto Im lambda(q) = 0 combined with ascent in |lambda|.

Every candidate is verified (sigma_min(I - M Delta) small) before it is accepted, so the
returned lower bound is always achieved by the returned Delta.
"""

from __future__ import annotations

import numpy as np

__all__ = ["mu_lower_bound"]

_REAL_TOL = 1e-9


def _assemble(structure, parts):
    return structure.assemble(parts)


def _eig_with_left(K):
    lam, X = np.linalg.eig(K)
    try:
        Xinv = np.linalg.inv(X)
    except np.linalg.LinAlgError:
        Xinv = np.linalg.pinv(X)
    return lam, X, Xinv


def _sensitivities(M, structure, X, Xinv, j):
    """Per-block pieces (a_i, b_i) of d lambda_j = sum_i b_i^H dDelta_i a_i (batched)."""
    F = M.shape[0]
    rows = np.arange(F)
    a = X[rows, :, j]  # (F, n)  right eigenvector (z side)
    yH = Xinv[rows, j, :]  # (F, n)  left eigenvector, y^H a = 1
    b = np.conj(np.einsum("fn,fnm->fm", yH, M))  # (F, m): b^H = y^H M
    return [(a[:, zs], b[:, ws]) for zs, ws in zip(structure.z_slices, structure.w_slices)]


def _verify(M, Delta):
    """sigma_min(I - M Delta) (F,) — zero when Delta is destabilising; inf where a candidate
    Delta is not finite (a power-iteration step that divided by ~0 proves nothing, and LAPACK's
    SVD does not converge on NaN/inf input)."""
    n = M.shape[1]
    X = np.eye(n) - M @ Delta
    out = np.full(X.shape[0], np.inf)
    finite = np.all(np.isfinite(X), axis=(1, 2))
    if np.any(finite):
        out[finite] = np.linalg.svd(X[finite], compute_uv=False)[:, -1]
    return out


def _random_parts(structure, F, rng):
    parts = []
    for blk in structure.blocks:
        if blk.kind == "real":
            parts.append(rng.uniform(-1, 1, F))
        elif blk.kind == "complex":
            parts.append(np.exp(2j * np.pi * rng.uniform(size=F)))
        else:
            U = rng.standard_normal((F, blk.w_size, blk.z_size)) + 1j * rng.standard_normal((F, blk.w_size, blk.z_size))
            parts.append(U / np.linalg.norm(U, ord=2, axis=(1, 2))[:, None, None])
    return parts


def _target_index(lam, structure):
    if structure.has_real:
        # lambda and -lambda are equivalent (flip every block): aim at the most real-ish, largest one
        score = np.abs(lam.real) - 0.5 * np.abs(lam.imag)
    else:
        score = np.abs(lam)
    return np.argmax(score, axis=1)


def _power_iteration(M, structure, parts, iterations):
    """Structured power iteration; returns best (lower, Delta) over the iterates."""
    F = M.shape[0]
    rows = np.arange(F)
    best = np.zeros(F)
    best_delta = np.zeros((F, structure.m, structure.n), complex)
    step = 0.5
    for _ in range(iterations):
        Q = _assemble(structure, parts)
        lam, X, Xinv = _eig_with_left(M @ Q)
        j = _target_index(lam, structure)
        target = lam[rows, j]
        # record a valid bound from this iterate
        lower, delta = _certify(M, structure, parts, lam, j)
        better = lower > best
        best[better], best_delta[better] = lower[better], delta[better]
        if structure.has_real:
            flip = target.real < 0
            parts = [np.where(flip.reshape((F,) + (1,) * (np.ndim(p) - 1)), -p, p) for p in parts]
        pieces = _sensitivities(M, structure, X, Xinv, j)
        new_parts = []
        sens_real = [np.real(np.sum(np.conj(b) * a, axis=1))
                     for (a, b), blk in zip(pieces, structure.blocks) if blk.kind == "real"]
        scale = np.max(np.abs(np.stack(sens_real, axis=1)), axis=1) if sens_real else None
        for blk, p, (a, b) in zip(structure.blocks, parts, pieces):
            if blk.kind == "complex":
                s = np.sum(np.conj(b) * a, axis=1)
                new_parts.append(np.where(np.abs(s) > 0, np.conj(s) / np.maximum(np.abs(s), 1e-300), p))
            elif blk.kind == "full":
                na = np.linalg.norm(a, axis=1)
                nb = np.linalg.norm(b, axis=1)
                U = b[:, :, None] * np.conj(a)[:, None, :] / np.maximum(na * nb, 1e-300)[:, None, None]
                new_parts.append(np.where(((na * nb) > 0)[:, None, None], U, p))
            else:
                s = np.real(np.sum(np.conj(b) * a, axis=1))
                new_parts.append(np.clip(p.real + step * s / np.maximum(scale, 1e-300), -1, 1))
        parts = new_parts
        step *= 0.92
    return best, best_delta, parts


def _certify(M, structure, parts, lam, j):
    """Valid lower bound and Delta from eigenvalue j of M Q (0 where lambda is not admissible)."""
    F = M.shape[0]
    rows = np.arange(F)
    target = lam[rows, j]
    mag = np.abs(target)
    Q = _assemble(structure, parts)
    if structure.has_real:
        admissible = (np.abs(target.imag) <= _REAL_TOL * np.maximum(mag, 1e-300)) & (mag > 0)
        with np.errstate(all="ignore"):
            delta = Q / np.where(admissible, target.real, 1.0)[:, None, None]
    else:
        admissible = mag > 0
        with np.errstate(all="ignore"):
            delta = Q / np.where(admissible, target, 1.0)[:, None, None]
    ok = admissible & (_verify(M, delta) <= 1e-7 * (1.0 + mag * np.linalg.norm(M, ord=2, axis=(1, 2))))
    return np.where(ok, mag, 0.0), np.where(ok[:, None, None], delta, 0.0)


def _phase_polish(M, structure, parts, iterations=30):
    """Rotate the complex blocks by a common phase so that the target eigenvalue is real."""
    F = M.shape[0]
    rows = np.arange(F)
    complex_idx = [i for i, b in enumerate(structure.blocks) if b.kind != "real"]
    if not complex_idx:
        return parts
    parts = list(parts)
    for _ in range(iterations):
        Q = _assemble(structure, parts)
        lam, X, Xinv = _eig_with_left(M @ Q)
        j = _target_index(lam, structure)
        target = lam[rows, j]
        pieces = _sensitivities(M, structure, X, Xinv, j)
        # d lambda / d theta for Delta_i -> exp(j theta) Delta_i on the complex blocks
        dlam = np.zeros(F, complex)
        for i in complex_idx:
            a, b = pieces[i]
            p = parts[i]
            if structure.blocks[i].kind == "full":
                dlam += 1j * np.einsum("fw,fwz,fz->f", np.conj(b), p, a)
            else:
                dlam += 1j * p * np.sum(np.conj(b) * a, axis=1)
        with np.errstate(all="ignore"):
            theta = np.where(np.abs(dlam.imag) > 1e-300, -target.imag / dlam.imag, 0.0)
        theta = np.clip(np.nan_to_num(theta), -0.5, 0.5)
        for i in complex_idx:
            rot = np.exp(1j * theta)
            parts[i] = parts[i] * (rot[:, None, None] if structure.blocks[i].kind == "full" else rot)
        if np.all(np.abs(target.imag) <= 1e-13 * np.maximum(np.abs(target), 1e-300)):
            break
    return parts


def _real_search(M, structure, rng, samples, iterations):
    """Purely real structures: box samples, then Newton on Im lambda = 0 with ascent in |lambda|."""
    F = M.shape[0]
    k = len(structure.blocks)
    if 2**k <= samples // 2:
        grid = np.array(np.meshgrid(*[[-1.0, 1.0]] * k, indexing="ij")).reshape(k, -1).T
        grid = grid[grid[:, 0] > 0]  # q and -q are equivalent
        extra = rng.uniform(-1, 1, (samples - len(grid), k))
        cand = np.concatenate([grid, extra])
    else:
        cand = np.concatenate([np.sign(rng.uniform(-1, 1, (samples // 2, k))),
                               rng.uniform(-1, 1, (samples - samples // 2, k))])
    S = len(cand)
    Qs = structure.assemble([np.broadcast_to(cand[:, i], (F, S)) for i in range(k)])  # (F, S, m, n)
    lam = np.linalg.eigvals(M[:, None] @ Qs)  # (F, S, n)
    near_real = np.abs(lam.imag) <= 0.3 * np.abs(lam)
    score = np.where(near_real, np.abs(lam), -np.inf)
    flat = score.reshape(F, -1)
    n_starts = min(4 if M.shape[1] <= 20 else 2, flat.shape[1])
    starts = np.argsort(-flat, axis=1)[:, :n_starts] // lam.shape[2]
    best = np.zeros(F)
    best_delta = np.zeros((F, structure.m, structure.n), complex)
    rows = np.arange(F)
    polish = 8
    for s in range(n_starts):
        q = cand[starts[:, s]].copy()  # (F, k)
        step = 0.2
        for it in range(iterations + polish):
            if it >= iterations:
                step = 0.0  # final pure Newton steps: make the eigenvalue real to rounding
            parts = [q[:, i] for i in range(k)]
            Q = structure.assemble(parts)
            lam1, X, Xinv = _eig_with_left(M @ Q)
            score1 = np.abs(lam1) - 2.0 * np.abs(lam1.imag)
            j = np.argmax(score1, axis=1)
            lower, delta = _certify(M, structure, parts, lam1, j)
            better = lower > best
            best[better], best_delta[better] = lower[better], delta[better]
            target = lam1[rows, j]
            pieces = _sensitivities(M, structure, X, Xinv, j)
            grad = np.stack([np.sum(np.conj(b) * a, axis=1) for a, b in pieces], axis=1)  # d lambda / d q
            gi = grad.imag
            # Newton step towards Im lambda = 0 (minimum norm) ...
            with np.errstate(all="ignore"):
                newton = -(target.imag / np.maximum(np.sum(gi**2, axis=1), 1e-300))[:, None] * gi
            # ... plus ascent of |Re lambda| projected on the tangent of Im lambda = const
            ascent = np.sign(target.real)[:, None] * grad.real
            proj = np.sum(ascent * gi, axis=1) / np.maximum(np.sum(gi**2, axis=1), 1e-300)
            ascent = ascent - proj[:, None] * gi
            norm = np.maximum(np.linalg.norm(ascent, axis=1), 1e-300)
            q = np.clip(q + np.nan_to_num(newton) + step * ascent / norm[:, None], -1, 1)
            step *= 0.85
    return best, best_delta


def mu_lower_bound(M, structure, *, restarts: int = 3, iterations: int = 40, seed: int = 0):
    """Mixed-mu lower bound and a destabilising perturbation for each matrix of M (F, n, m).

    Parameters
    ----------
    M : complex ndarray (F, n, m)
    structure : BlockStructure
    restarts : int
        Random restarts of the power iteration (the first start is deterministic).
    iterations : int
        Iterations per start.
    seed : int
        Seed of the random starts (results are reproducible).

    Returns
    -------
    lower : ndarray (F,)
        0 where no destabilising perturbation was found.
    delta : complex ndarray (F, m, n)
        Structured Delta with det(I - M Delta) = 0 and sigma_max(Delta) = 1/lower
        (zeros where lower is 0).
    """
    M = np.asarray(M, dtype=complex)
    F = M.shape[0]
    rng = np.random.default_rng(seed)
    best = np.zeros(F)
    best_delta = np.zeros((F, structure.m, structure.n), complex)

    def keep(lower, delta):
        better = lower > best
        best[better] = lower[better]
        best_delta[better] = delta[better]

    if not structure.all_real:
        for r in range(max(restarts, 1)):
            if r == 0:
                parts = []
                for blk in structure.blocks:
                    if blk.kind == "full":
                        U = np.zeros((F, blk.w_size, blk.z_size), complex)
                        U[:, 0, 0] = 1.0
                        parts.append(U)
                    elif blk.kind == "complex":
                        parts.append(np.ones(F, complex))
                    else:
                        parts.append(np.zeros(F))
            else:
                parts = _random_parts(structure, F, rng)
            lower, delta, parts = _power_iteration(M, structure, parts, iterations)
            keep(lower, delta)
            if structure.has_real:
                parts = _phase_polish(M, structure, parts)
                Q = structure.assemble(parts)
                lam, _, _ = _eig_with_left(M @ Q)
                keep(*_certify(M, structure, parts, lam, _target_index(lam, structure)))
    if structure.has_real:
        if structure.all_real:
            small = structure.n <= 20
            keep(*_real_search(M, structure, rng, samples=64 if small else 24,
                               iterations=iterations if small else min(iterations, 20)))
    return best, best_delta
