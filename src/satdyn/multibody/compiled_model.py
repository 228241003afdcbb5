"""The compiled kernels of :mod:`~satdyn.multibody.compiled` bound to one model's constants.

:func:`compile_model` packs a :class:`~satdyn.multibody.model.Model` once (cached on the
immutable model): welded bodies are merged into the body they hang on and each moving body's
frame is turned so that its joint axis is z (as Pinocchio merges fixed joints and uses aligned
joint models), then :class:`CompiledModel` calls the kernels on flat arrays.
"""

from __future__ import annotations

import numpy as np

from . import compiled
from .compiled import (
    _D, _K, _KIND, _POS, _REST, _SLIDE, _WRENCH, _batch_state_derivative, _bias, _mass_matrix,
    _state_derivative,
)

__all__ = ["CompiledModel", "compile_model", "supports"]


class CompiledModel:
    """The compiled kernels bound to one model's constants (build it with :func:`compile_model`).

    Methods take and return flat float arrays: ``state_derivative(x, tau) -> dx`` (nq + nv,),
    ``batch_state_derivative(X (B, nq+nv), tau (B, nv)) -> (B, nq+nv)``, ``mass_matrix(q) -> (nv, nv)``,
    ``nonlinear_effects(q, v) -> (nv,)``. Inputs are trusted (validated by the callers).
    """

    def __init__(self, model):
        self.nq, self.nv = model.nq, model.nv
        self.floating = model.joints[0].kind == "floating"
        self._packed = _pack(model)

    def state_derivative(self, x, tau):
        out = np.empty(self.nq + self.nv)
        _state_derivative(x, tau, self.nq, *self._packed, out)
        return out

    def batch_state_derivative(self, X, tau):
        out = np.empty(X.shape)
        _batch_state_derivative(X, tau, self.nq, *self._packed, out)
        return out

    def mass_matrix(self, q):
        M = np.empty((self.nv, self.nv))
        _mass_matrix(q, self.nv, *self._packed[:4], M)
        return M

    def nonlinear_effects(self, q, v):
        out = np.zeros(self.nv)
        _bias(q, v, *self._packed[:4], out)
        return out


def _z_to(axis):
    """A rotation R with R e_z = axis (unit)."""
    z = np.array([0.0, 0.0, 1.0])
    c = float(axis @ z)
    if c > 1.0 - 1e-15:
        return np.eye(3)
    if c < -1.0 + 1e-15:
        return np.diag([1.0, -1.0, -1.0])
    k = np.cross(z, axis)
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + K + K @ K / (1.0 + c)


def _motion_transform(R, p):
    """X (6x6): parent-frame motion -> frame (R, p) (R: frame axes in the parent, p: origin)."""
    P = np.array([[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]])
    X = np.zeros((6, 6))
    X[:3, :3] = X[3:, 3:] = R.T
    X[:3, 3:] = -R.T @ P
    return X


def _pack(model):
    """Packed constants of the reduced tree: welded bodies merged, moving frames aligned (see above)."""
    joints, nb = model.joints, model.n_bodies
    align = [np.eye(3)] * nb
    anchor = [0] * nb                 # reduced body each body belongs to
    pose = [(np.eye(3), np.zeros(3))] * nb   # body frame in its anchor's aligned frame
    reduced = [0]
    for i in range(1, nb):
        j, parent = joints[i], model.parents[i]
        Rp, pp = pose[parent]
        Rj, pj = Rp @ j.rotation, Rp @ j.position + pp   # joint frame at zero, in the anchor's aligned frame
        if j.kind == "weld":
            anchor[i], pose[i] = anchor[parent], (Rj, pj)
            continue
        align[i] = _z_to(j.axis)
        anchor[i], pose[i] = i, (align[i].T, np.zeros(3))
        reduced.append(i)
    index = {b: r for r, b in enumerate(reduced)}
    n = len(reduced)
    ints = np.zeros((n, 5), dtype=np.int64)
    geom = np.zeros((n, 48))
    inertia = np.zeros((n, 6, 6))
    inertial = []
    for r, i in enumerate(reduced):
        if i == 0:
            continue
        j, parent = joints[i], model.parents[i]
        Rp, pp = pose[parent]
        P0, position = Rp @ j.rotation @ align[i], Rp @ j.position + pp
        ints[r] = (_KIND[j.kind], index[anchor[parent]], model.idx_q[i], model.idx_v[i],
                   5 if j.kind == "revolute" else 2)
        geom[r, :9] = P0.ravel()
        geom[r, _POS:_POS + 3] = position
        if j.kind == "prismatic":
            geom[r, _SLIDE:_SLIDE + 3] = P0[:, 2]
        geom[r, _K], geom[r, _D], geom[r, _REST] = j.stiffness, j.damping, j.rest
    for i in range(nb):
        r = index[anchor[i]]
        X = _motion_transform(*pose[i])
        inertia[r] += X.T @ model.spatial_inertias[i] @ X
    for ew in model.external_wrenches:
        W = np.asarray(ew.wrench, dtype=float)
        R, p = pose[ew.body]
        r = index[anchor[ew.body]]
        point = R @ np.asarray(ew.point, dtype=float) + p
        if ew.frame == "inertial":
            px, py, pz = point
            inertial.append(np.concatenate([[r], [0.0, -pz, py, pz, 0.0, -px, -py, px, 0.0], W[:3], W[3:]]))
        else:   # body-frame components: rotate into the anchor's frame, moment about its origin
            F, T = R @ W[:3], R @ W[3:]
            geom[r, _WRENCH:_WRENCH + 6] += np.concatenate([F, T + np.cross(point, F)])
    root = np.concatenate([[1.0 if joints[0].kind == "floating" else 0.0], np.ravel(joints[0].rotation),
                           model.gravity])
    return ints, geom, inertia, root, np.array(inertial, dtype=float).reshape(-1, 16)


_SUPPORTED_ROOTS = ("fixed", "floating")


def supports(model) -> bool:
    """True if the compiled kernels cover ``model`` (see module doc), regardless of numba."""
    return (model.joints[0].kind in _SUPPORTED_ROOTS and all(j.kind in _KIND for j in model.joints[1:])
            and not model.loop_closures and all(ew.is_constant for ew in model.external_wrenches))


def compile_model(model):
    """:class:`CompiledModel` of ``model``, or None (numba missing, or a model outside the scope)."""
    if not compiled.HAVE_NUMBA or not supports(model):
        return None
    cached = model.__dict__.get("_compiled_kernels")
    if cached is None:
        cached = CompiledModel(model)
        object.__setattr__(model, "_compiled_kernels", cached)  # frozen dataclass: cache once per model
    return cached
