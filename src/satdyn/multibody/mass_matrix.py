"""Joint-space mass matrix (composite rigid bodies) and bias terms.

* ``mass_matrix(model, q)`` -- ``M(q)`` (..., nv, nv), symmetric positive definite;
* ``nonlinear_effects(model, q, v)`` -- ``C(q, v) v + g(q)`` (..., nv), Pinocchio's ``nle``;
* ``generalized_gravity(model, q)`` -- ``g(q)`` (..., nv).

``q`` (..., model.nq), ``v`` (..., model.nv). The bias terms exclude joint springs and dampers
and external wrenches, as Pinocchio's; with them, ``M a + nle - passive - external = tau``.

The mass matrix uses composite inertias ``I^c_i = D_i + sum X^T I^c_child X`` (CRBA): the
block ``M[j, i] = S_j^T X_{j<-i}^T I^c_i S_i``, the loop-free TITOP inverse diagram with unit
accelerations and no velocity (arXiv:2505.03248 §3.6 option (c)) collapsed into one sweep.
"""

from __future__ import annotations

import numpy as np

from .inverse_dynamics import _rnea
from .kinematics import force_to_parent, forward_kinematics, in_chunks, motion_transform_to_child, prepare_inputs

__all__ = ["mass_matrix", "nonlinear_effects", "generalized_gravity"]


def mass_matrix(model, q) -> np.ndarray:
    """``M(q)`` (..., nv, nv) with ``q`` (..., nq)."""
    shape, (qf,) = prepare_inputs(model, [(q, model.nq, "q")])
    return in_chunks(lambda q_: _crba(model, q_), qf).reshape(shape + (model.nv, model.nv))


def _crba(model, q, kin=None):
    n = q.shape[0]
    if kin is None:
        kin = forward_kinematics(model, q, np.zeros((n, model.nv)))
    nb = model.n_bodies
    Ic = [np.repeat(model.spatial_inertias[i][None], n, axis=0) for i in range(nb)]
    for i in range(nb - 1, 0, -1):
        X = motion_transform_to_child(kin.R[i], kin.p[i])
        Ic[model.parents[i]] = Ic[model.parents[i]] + np.swapaxes(X, -1, -2) @ Ic[i] @ X
    M = np.zeros((n, model.nv, model.nv))
    for i in range(nb):
        joint = model.joints[i]
        if not joint.nv:
            continue
        S = joint.motion_subspace
        si = model.v_slice(i)
        F = Ic[i] @ S                                             # (N, 6, k): wrench per unit rate
        M[:, si, si] = S.T @ F
        j = i
        while model.parents[j] >= 0:
            F = np.stack([force_to_parent(kin.R[j], kin.p[j], F[:, :, c]) for c in range(F.shape[2])], -1)
            j = model.parents[j]
            if model.joints[j].nv:
                sj = model.v_slice(j)
                block = model.joints[j].motion_subspace.T @ F
                M[:, sj, si] = block
                M[:, si, sj] = np.swapaxes(block, -1, -2)
    return M


def nonlinear_effects(model, q, v) -> np.ndarray:
    """``C(q, v) v + g(q)`` (..., nv): inverse dynamics at zero acceleration, no springs, no loads."""
    shape, (qf, vf) = prepare_inputs(model, [(q, model.nq, "q"), (v, model.nv, "v")])
    return _bias(model, qf, vf).reshape(shape + (model.nv,))


def generalized_gravity(model, q) -> np.ndarray:
    """``g(q)`` (..., nv): the efforts that hold the tree still against gravity (no springs, no loads)."""
    shape, (qf,) = prepare_inputs(model, [(q, model.nq, "q")])
    return _bias(model, qf, np.zeros((qf.shape[0], model.nv))).reshape(shape + (model.nv,))


def _bias(model, q, v):
    """RNEA at zero acceleration without the model's external loads."""
    kin = forward_kinematics(model, q, v)
    bare = model if not (model.external_wrenches or model.loop_closures) else _without_loads(model)
    return _rnea(bare, q, v, np.zeros_like(v), None, 0.0, kin)[0]


def _without_loads(model):
    from dataclasses import replace
    return replace(model, external_wrenches=(), loop_closures=())
