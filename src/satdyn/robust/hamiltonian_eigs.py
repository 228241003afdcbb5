"""Squared eigenvalues of stacked Hamiltonian matrices by Van Loan's square-reduced method.

For a real Hamiltonian ``H`` (2n, 2n) the square ``W = H @ H`` is skew-Hamiltonian:
``W = [[W11, W12], [W21, W11.T]]`` with ``W12``, ``W21`` skew-symmetric. A symplectic
orthogonal similarity (Householder reflections ``diag(P, P)`` and Givens rotations in the
planes ``(k, n + k)``, the Paige-Van Loan reduction) makes ``W21 = 0`` and ``W11`` upper
Hessenberg, so the eigenvalues of ``H`` are ``±sqrt(mu)`` with ``mu`` the ``n`` eigenvalues of
``W11`` — an n x n eigenvalue problem instead of a 2n x 2n one (C. Van Loan, "A symplectic
method for approximating all the eigenvalues of a Hamiltonian matrix", Linear Algebra Appl.
61, 1984). The rounding error on ``mu`` is of order ``eps * ||H||^2``; the level test of the
H-infinity iteration accounts for it (see ``norms._crossing_frequencies``).

The reduction is compiled with numba when available; without numba the squared eigenvalues
come from a dense 2n x 2n eigenvalue call (each twice; slower).
"""

from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:  # pragma: no cover - numba is a base dependency
    numba = None

__all__ = ["squared_hamiltonian_eigenvalues"]


def _jit(function):
    return numba.njit(cache=True, nogil=True, fastmath=True)(function) if numba is not None else function


@_jit
def _householder(x):
    """(v, beta) with (I - beta v v^T) x = -+||x|| e1; beta = 0 when x is already e1-aligned."""
    v = x.copy()
    sigma = 0.0
    for i in range(1, x.size):
        sigma += x[i] * x[i]
    if sigma == 0.0:
        return v, 0.0
    norm = np.sqrt(x[0] * x[0] + sigma)
    v[0] = x[0] + norm if x[0] >= 0.0 else x[0] - norm
    beta = 2.0 / (v[0] * v[0] + sigma)
    return v, beta


@_jit
def _reflect_both_blocks(W, v, beta, start, n):
    """W <- diag(P, P) W diag(P, P), P = I - beta v v^T acting on indices start:n."""
    size = 2 * n
    length = v.size
    for offset in (0, n):
        lo = offset + start
        # left: rows lo:lo+length (row-wise sweeps: W is C-contiguous)
        s = np.zeros(size)
        for i in range(length):
            vi = v[i]
            for j in range(size):
                s[j] += vi * W[lo + i, j]
        for i in range(length):
            bvi = beta * v[i]
            for j in range(size):
                W[lo + i, j] -= bvi * s[j]
        # right: columns lo:lo+length
        for i in range(size):
            s = 0.0
            for j in range(length):
                s += W[i, lo + j] * v[j]
            s *= beta
            for j in range(length):
                W[i, lo + j] -= s * v[j]


@_jit
def _rotate_plane(W, k, n, a, b):
    """Symplectic Givens rotation in the plane (k, n + k) zeroing b against a (similarity)."""
    r = np.hypot(a, b)
    if r == 0.0:
        return
    c = a / r
    s = b / r
    size = 2 * n
    for j in range(size):
        x, y = W[k, j], W[n + k, j]
        W[k, j] = c * x + s * y
        W[n + k, j] = -s * x + c * y
    for i in range(size):
        x, y = W[i, k], W[i, n + k]
        W[i, k] = c * x + s * y
        W[i, n + k] = -s * x + c * y


@_jit
def _paige_van_loan(W):
    """Reduce one skew-Hamiltonian W (2n, 2n) in place; returns the Hessenberg block W11."""
    n = W.shape[0] // 2
    for k in range(n - 1):
        if n - k - 1 > 1:
            v, beta = _householder(W[n + k + 1:, k])
            if beta != 0.0:
                _reflect_both_blocks(W, v, beta, k + 1, n)
        _rotate_plane(W, k + 1, n, W[k + 1, k], W[n + k + 1, k])
        if n - k - 1 > 1:
            v, beta = _householder(W[k + 1:n, k])
            if beta != 0.0:
                _reflect_both_blocks(W, v, beta, k + 1, n)
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(max(i - 1, 0), n):
            out[i, j] = W[i, j]
    return out


@_jit
def _reduce_batch(W):
    N = W.shape[0]
    n = W.shape[1] // 2
    out = np.empty((N, n, n))
    for q in range(N):
        out[q] = _paige_van_loan(W[q])
    return out


def squared_hamiltonian_eigenvalues(H):
    """Eigenvalues ``mu = lambda**2`` of stacked real Hamiltonian matrices.

    Parameters
    ----------
    H : ndarray (N, 2n, 2n), real Hamiltonian (``J @ H`` symmetric)

    Returns
    -------
    mu : ndarray (N, n), complex
        One value per pair ``±lambda`` of eigenvalues of ``H``; an imaginary pair ``±j w``
        gives ``mu = -w**2`` (real, non-positive up to rounding of order ``eps ||H||^2``).
        Without numba: (N, 2n), each value twice (dense eigenvalues squared).
    """
    H = np.asarray(H, dtype=float)
    N, size = H.shape[:2]
    n = size // 2
    if n == 0:
        return np.zeros((N, 0), complex)
    W = np.ascontiguousarray(H @ H)
    if numba is None:  # pragma: no cover - dense fallback: every mu twice, (N, 2n)
        return np.linalg.eigvals(H).astype(complex) ** 2
    return np.linalg.eigvals(_reduce_batch(W)).astype(complex)
