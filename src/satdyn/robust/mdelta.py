"""Explicit M-Delta description of a continuous-time system with repeated real parameters.

    x' = A x + B [w; u],   [z; y] = C x + D [w; u],   w = Delta z,
    Delta = blockdiag(delta_1 I_{r_1}, ..., delta_k I_{r_k}),  delta normalised to [-1, 1],

(upper LFT, Delta channels first, as satdyn.lfr's LFR). Arguments of ``MDeltaSystem``:
    A : (n, n);  B : (n, ndelta + m);  C : (ndelta + p, n);  D : (ndelta + p, ndelta + m)
    block_sizes : (k,) positive integers with sum == ndelta.

This module only depends on plain arrays; satdyn.robust reads an LFR into it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import as_float_array
from .norms import frequency_response

__all__ = ["MDeltaSystem", "mdelta_system", "check_system"]


@dataclass(frozen=True)
class MDeltaSystem:
    """Validated M-Delta system (build it with :func:`mdelta_system`)."""

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    block_sizes: tuple

    @property
    def nstates(self) -> int:
        return self.A.shape[0]

    @property
    def ndelta(self) -> int:
        return int(sum(self.block_sizes))

    @property
    def ninputs(self) -> int:
        return self.B.shape[1] - self.ndelta

    @property
    def noutputs(self) -> int:
        return self.C.shape[0] - self.ndelta

    def expand(self, deltas) -> np.ndarray:
        """Diagonal of Delta (..., ndelta) from per-block values (..., k)."""
        return np.repeat(np.asarray(deltas, dtype=float), self.block_sizes, axis=-1)

    def closed_loop(self, deltas):
        """State-space of F_u(P, Delta) for a stack of parameter vectors.

        Parameters
        ----------
        deltas : ndarray (S, k), normalised parameter values.

        Returns
        -------
        A, B, C, D : ndarrays (S, n, n), (S, n, m), (S, p, n), (S, p, m)
            Performance channels only.
        well_posed : bool ndarray (S,)
            False where I - D11 Delta is singular (those rows are NaN).
        """
        nd = self.ndelta
        diag = self.expand(np.atleast_2d(deltas))  # (S, nd)
        S = diag.shape[0]
        A, B, C, D = self.A, self.B, self.C, self.D
        B1, B2 = B[:, :nd], B[:, nd:]
        C1, C2 = C[:nd], C[nd:]
        D11, D12, D21, D22 = D[:nd, :nd], D[:nd, nd:], D[nd:, :nd], D[nd:, nd:]
        I_minus = np.eye(nd) - D11[None] * diag[:, None, :]  # I - D11 Delta
        cond = np.linalg.cond(I_minus) if nd else np.ones(S)
        well_posed = np.isfinite(cond) & (cond < 1e12)
        I_minus[~well_posed] = np.eye(nd)
        # Delta (I - D11 Delta)^-1 [C1, D12]
        rhs = np.concatenate([C1, D12], axis=1)
        K = diag[:, :, None] * np.linalg.solve(I_minus, np.broadcast_to(rhs, (S,) + rhs.shape))
        Kx, Ku = K[:, :, : A.shape[0]], K[:, :, A.shape[0]:]
        Acl = A + B1 @ Kx
        Bcl = B2 + B1 @ Ku
        Ccl = C2 + D21 @ Kx
        Dcl = D22 + D21 @ Ku
        for X in (Acl, Bcl, Ccl, Dcl):
            X[~well_posed] = np.nan
        return Acl, Bcl, Ccl, Dcl, well_posed

    def response(self, omega) -> np.ndarray:
        """Full frequency response (F, ndelta + p, ndelta + m) at omega (F,) rad/s."""
        omega = np.asarray(omega, dtype=float)
        G = frequency_response(self.A[None], self.B[None], self.C[None], self.D[None], omega[None])
        return G[0]


def check_system(system, name: str = "system") -> MDeltaSystem:
    """``system`` must be an :class:`MDeltaSystem` (build it with :func:`mdelta_system`)."""
    if not isinstance(system, MDeltaSystem):
        raise TypeError(
            f"`{name}` must be an MDeltaSystem (see satdyn.robust.mdelta_system); got {type(system).__name__}"
            + (" -- for an LFR use robust_stability / worst_case_gain" if hasattr(system, "blocks") else "")
        )
    return system


def mdelta_system(A, B, C, D, block_sizes) -> MDeltaSystem:
    """Validate and build an :class:`MDeltaSystem` (errors name the offending argument)."""
    A = as_float_array(A, "A")
    B = as_float_array(B, "B")
    C = as_float_array(C, "C")
    D = as_float_array(D, "D")
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"`A` must be square (n, n); got shape {A.shape}")
    n = A.shape[0]
    if B.ndim != 2 or B.shape[0] != n:
        raise ValueError(f"`B` must have shape ({n}, ndelta + m); got {B.shape}")
    if C.ndim != 2 or C.shape[1] != n:
        raise ValueError(f"`C` must have shape (ndelta + p, {n}); got {C.shape}")
    if D.shape != (C.shape[0], B.shape[1]):
        raise ValueError(f"`D` must have shape {(C.shape[0], B.shape[1])}; got {D.shape}")
    try:
        sizes = tuple(int(s) for s in block_sizes)
    except (TypeError, ValueError):
        raise TypeError("`block_sizes` must be a sequence of positive integers") from None
    if not sizes or any(s < 1 for s in sizes) or any(float(a) != b for a, b in zip(block_sizes, sizes)):
        raise ValueError(f"`block_sizes` must be positive integers; got {tuple(block_sizes)}")
    nd = sum(sizes)
    if nd > min(B.shape[1], C.shape[0]):
        raise ValueError(
            f"`block_sizes` add up to {nd} Delta channels but B has {B.shape[1]} columns and C "
            f"{C.shape[0]} rows (the Delta channels come first)"
        )
    return MDeltaSystem(A, B, C, D, sizes)
