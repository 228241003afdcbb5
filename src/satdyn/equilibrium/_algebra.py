"""The matrix algebra the equilibrium recursions run in: plain numbers or LFRs.

The recursions of :mod:`.recurrence` are written once, against the small interface below,
and run either numerically at one parameter point (:class:`NumericAlgebra`, values are
``ndarray``) or symbolically in the parameters (:class:`LFRAlgebra`, values are static
``satdyn.lfr.LFR`` objects). Entries of a model (masses, lengths, angles, ...) may be
floats, arrays, ``satdyn.lfr`` parameters or static LFRs; :meth:`lift` turns them into the
algebra's values.

Interface: ``lift(x)``, ``const(array)``, ``angle(x)`` (a joint angle entry),
``rotation(axis, P0, angle)`` (DCM ``R(axis, angle) P0``), ``skew(v)``, ``hstack``,
``vstack``, ``zeros(shape)``; values support ``@ + - * .T`` and ``[i]`` row slicing.
"""

from __future__ import annotations

import numpy as np

from ..spatial import rodrigues, skew

__all__ = ["NumericAlgebra", "LFRAlgebra", "orthonormal_complement"]


def orthonormal_complement(axis) -> np.ndarray:
    """``N = [n1, n2]`` (3, 2): orthonormal basis of the plane normal to the unit ``axis``
    with ``n1 x n2 = axis`` (so ``N J2 N^T = skew(axis)``, ``J2 = [[0, -1], [1, 0]]``)."""
    r = np.asarray(axis, dtype=float)
    trial = np.eye(3)[int(np.argmin(np.abs(r)))]
    n1 = np.cross(trial, r)
    n1 /= np.linalg.norm(n1)
    n2 = np.cross(r, n1)
    return np.column_stack([n1, n2])


def _value_of(entry, values: dict) -> np.ndarray:
    """Numeric value of a model entry at the parameter point ``values``."""
    if isinstance(entry, (int, float, np.ndarray, list, tuple, np.floating)):
        return np.asarray(entry, dtype=float)
    name = getattr(entry, "name", None)
    if name is not None and hasattr(entry, "nominal"):  # a satdyn.lfr parameter
        return np.asarray(values.get(name, entry.nominal), dtype=float)
    if hasattr(entry, "evaluate") and hasattr(entry, "blocks"):  # a static satdyn.lfr.LFR
        return np.asarray(entry.evaluate(values), dtype=float)
    raise TypeError(f"model entry {entry!r} is neither a number, an array, a parameter nor a static LFR")


class NumericAlgebra:
    """Numbers at one parameter point: ``values`` maps parameter names to physical values
    (missing parameters take their nominal)."""

    symbolic = False

    def __init__(self, values: dict | None = None):
        self.values = dict(values or {})

    def lift(self, entry) -> np.ndarray:
        value = _value_of(entry, self.values)
        return value.reshape(-1, 1) if value.ndim == 1 else value

    @staticmethod
    def scale(scalar, matrix):
        """``scalar * matrix`` for a scalar value of this algebra and a constant matrix."""
        return float(np.asarray(scalar).reshape(())) * np.asarray(matrix, dtype=float)

    def const(self, array) -> np.ndarray:
        value = np.asarray(array, dtype=float)
        return value.reshape(-1, 1) if value.ndim == 1 else value

    def angle(self, entry) -> float:
        return float(self.lift(entry))

    def rotation(self, axis, P0, angle) -> np.ndarray:
        return rodrigues(np.asarray(axis, dtype=float), self.angle(angle)) @ np.asarray(P0, dtype=float)

    def skew(self, v) -> np.ndarray:
        return skew(np.asarray(v, dtype=float).reshape(3))

    @staticmethod
    def hstack(items):
        return np.hstack([np.atleast_2d(x) if np.ndim(x) < 2 else x for x in items])

    @staticmethod
    def vstack(items):
        return np.vstack([np.reshape(x, (-1, np.shape(x)[-1])) if np.ndim(x) >= 1 else np.reshape(x, (1, 1))
                          for x in items])

    @staticmethod
    def zeros(shape):
        return np.zeros(shape)

    @staticmethod
    def blockdiag(items):
        import scipy.linalg

        return scipy.linalg.block_diag(*items)

    @staticmethod
    def simplify(x):
        return x


def _rank_factors(matrix, tol: float = 1e-12):
    """``matrix = U @ V`` with U (p, r), V (r, m), r = rank (SVD)."""
    U, s, Vt = np.linalg.svd(matrix, full_matrices=False)
    r = int(np.sum(s > tol * max(1.0, s[0] if s.size else 0.0)))
    return U[:, :r] * s[:r], Vt[:r]


class LFRAlgebra:
    """Static ``satdyn.lfr.LFR`` objects (constant parts stay ``ndarray`` until mixed).

    ``scale(s, M)`` repeats the scalar ``s`` only ``rank(M)`` times
    (``s M = U (s I_r) V``), which keeps the Delta of the model small.
    """

    symbolic = True

    def __init__(self, tolerance: float = 1e-10):
        from .. import lfr

        self._lfr = lfr
        self.tolerance = float(tolerance)

    def _is_lfr(self, x) -> bool:
        return isinstance(x, self._lfr.LFR)

    def lift(self, entry):
        if isinstance(entry, self._lfr.Parameter):
            return entry.lfr
        if self._is_lfr(entry):
            return entry
        value = np.asarray(entry, dtype=float)
        return value.reshape(-1, 1) if value.ndim == 1 else value

    def const(self, array):
        value = np.asarray(array, dtype=float)
        return value.reshape(-1, 1) if value.ndim == 1 else value

    def angle(self, entry):
        return entry

    def rotation(self, axis, P0, angle):
        if isinstance(angle, self._lfr.Parameter):
            return self._lfr.rotation_lfr(np.asarray(axis, dtype=float), angle, np.asarray(P0, dtype=float))
        return rodrigues(np.asarray(axis, dtype=float), float(angle)) @ np.asarray(P0, dtype=float)

    def scale(self, scalar, matrix):
        matrix = np.asarray(matrix, dtype=float)
        if not self._is_lfr(scalar):
            return float(np.asarray(scalar).reshape(())) * matrix
        U, V = _rank_factors(matrix)
        if U.shape[1] == 0:
            return np.zeros_like(matrix)
        if U.shape[1] == 1:
            return U @ scalar @ V
        return U @ self._lfr.blockdiag([scalar] * U.shape[1]) @ V

    def skew(self, v):
        if not self._is_lfr(v):
            return skew(np.asarray(v, dtype=float).reshape(3))
        # skew(v) e_j = -skew(e_j) v
        return self.hstack([-skew(e) @ v for e in np.eye(3)])

    def hstack(self, items):
        items = list(items)
        if any(self._is_lfr(x) for x in items):
            return self._lfr.hstack(items)
        return np.hstack(items)

    def vstack(self, items):
        items = list(items)
        if any(self._is_lfr(x) for x in items):
            return self._lfr.vstack(items)
        return np.vstack(items)

    @staticmethod
    def zeros(shape):
        return np.zeros(shape)

    def blockdiag(self, items):
        items = list(items)
        if any(self._is_lfr(x) for x in items):
            return self._lfr.blockdiag(items)
        import scipy.linalg

        return scipy.linalg.block_diag(*items)

    def simplify(self, x):
        """Remove uncontrollable/unobservable Delta channels (keeps every recursion step small)."""
        if self._is_lfr(x) and x.ndelta:
            return x.reduce(self.tolerance)
        return x
