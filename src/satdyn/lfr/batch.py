"""``StateSpaceBatch``: N state-space models of one size, stacked, with signal names.

Arrays: A (N, n, n), B (N, n, m), C (N, p, n), D (N, p, m); ``valid`` (N,) is False
where the LFR was ill posed (those rows are NaN).  ``len(batch) == N``,
``batch[i]`` is a ``control.StateSpace``, ``batch[i:j]`` / ``batch[mask]`` a batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["StateSpaceBatch", "batch_freqresp"]


@dataclass(frozen=True)
class StateSpaceBatch:
    """Stacked continuous-time state-space models (see module docstring)."""

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    input_names: tuple = ()
    output_names: tuple = ()
    valid: np.ndarray | None = None

    def __post_init__(self):
        A, B, C, D = (np.asarray(getattr(self, k), dtype=float) for k in "ABCD")
        if A.ndim != 3 or B.ndim != 3 or C.ndim != 3 or D.ndim != 3:
            raise ValueError("StateSpaceBatch: A, B, C, D must be 3-D stacked arrays (N, ., .)")
        N, n = A.shape[0], A.shape[1]
        p, m = D.shape[1], D.shape[2]
        expected = {"A": (N, n, n), "B": (N, n, m), "C": (N, p, n), "D": (N, p, m)}
        for key, arr in zip("ABCD", (A, B, C, D)):
            if arr.shape != expected[key]:
                raise ValueError(f"StateSpaceBatch: `{key}` must have shape {expected[key]}; got {arr.shape}")
        valid = np.ones(N, dtype=bool) if self.valid is None else np.asarray(self.valid, dtype=bool)
        if valid.shape != (N,):
            raise ValueError(f"StateSpaceBatch: `valid` must have shape ({N},); got {valid.shape}")
        ins = tuple(self.input_names) or tuple(f"u[{i}]" for i in range(m))
        outs = tuple(self.output_names) or tuple(f"y[{i}]" for i in range(p))
        if len(ins) != m or len(outs) != p:
            raise ValueError("StateSpaceBatch: names do not match the number of inputs/outputs")
        for key, arr in zip("ABCD", (A, B, C, D)):
            object.__setattr__(self, key, arr)
        object.__setattr__(self, "valid", valid)
        object.__setattr__(self, "input_names", ins)
        object.__setattr__(self, "output_names", outs)

    def __len__(self) -> int:
        return self.A.shape[0]

    @property
    def nstates(self) -> int:
        return self.A.shape[1]

    @property
    def ninputs(self) -> int:
        return self.D.shape[2]

    @property
    def noutputs(self) -> int:
        return self.D.shape[1]

    def __getitem__(self, index):
        if isinstance(index, (int, np.integer)):
            import control

            i = int(index)
            return control.StateSpace(
                self.A[i], self.B[i], self.C[i], self.D[i],
                inputs=list(self.input_names), outputs=list(self.output_names),
            )
        return StateSpaceBatch(
            self.A[index], self.B[index], self.C[index], self.D[index],
            self.input_names, self.output_names, self.valid[index],
        )

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def freqresp(self, omega) -> np.ndarray:
        """Complex frequency responses, shape (N, len(omega), p, m); omega in rad/s."""
        return batch_freqresp(self.A, self.B, self.C, self.D, omega)

    def poles(self) -> np.ndarray:
        """Eigenvalues of every A, shape (N, n)."""
        with np.errstate(invalid="ignore"):
            out = np.full((len(self), self.nstates), np.nan + 0j)
            ok = self.valid & np.all(np.isfinite(self.A.reshape(len(self), -1)), axis=1)
            if np.any(ok):
                out[ok] = np.linalg.eigvals(self.A[ok])
        return out


def batch_freqresp(A, B, C, D, omega, *, chunk_bytes: float = 64e6) -> np.ndarray:
    """``C (j w I - A)^{-1} B + D`` for stacked (N, ...) matrices: shape (N, nw, p, m)."""
    omega = np.atleast_1d(np.asarray(omega, dtype=float))
    if omega.ndim != 1:
        raise ValueError(f"`omega` must be 1-D; got shape {omega.shape}")
    N, n = A.shape[0], A.shape[1]
    p, m = D.shape[1], D.shape[2]
    out = np.empty((N, omega.size, p, m), dtype=complex)
    out[...] = D[:, None, :, :]
    if n == 0:
        return out
    step = max(1, int(chunk_bytes // (16 * omega.size * n * max(n, m))))
    eye = np.eye(n)
    for s in range(0, N, step):
        a, b, c = A[s:s + step], B[s:s + step], C[s:s + step]
        finite = np.all(np.isfinite(a.reshape(len(a), -1)), axis=1)
        sI_A = 1j * omega[None, :, None, None] * eye - a[:, None, :, :]
        rhs = np.broadcast_to(b[:, None, :, :], (len(a), omega.size, n, m)).astype(complex)
        with np.errstate(all="ignore"):
            sI_A[~finite] = eye
            try:
                X = np.linalg.solve(sI_A, rhs)
            except np.linalg.LinAlgError:  # a pole on the imaginary axis at a grid frequency
                X = _solve_pointwise(sI_A, rhs)
            block = c[:, None, :, :] @ X
        block[~finite] = np.nan
        out[s:s + step] += block
    return out


def _solve_pointwise(Mats, rhs):
    X = np.full(rhs.shape, np.nan + 0j)
    for idx in np.ndindex(*Mats.shape[:2]):
        try:
            X[idx] = np.linalg.solve(Mats[idx], rhs[idx])
        except np.linalg.LinAlgError:
            X[idx] = np.inf
    return X
