"""Generalized Jacobians of several end effectors of a tree on a free-floating base.

The paper's GJM (Front. Robot. AI 5:41 (2018), eq. 110) maps the joint rates of a serial arm
to the end-effector twist when the momentum of the whole system is zero. For a tree -- several
arms, or branching arms, on one base, as SPART handles -- the same construction holds for each
end effector e:

    J*_e = J_m,e - J_b,e M_bb^-1 M_bm

with ``M`` the (6 + n) mass matrix of the tree in body-frame base velocities (the composite-
rigid-body algorithm of :func:`satdyn.multibody.mass_matrix`), ``J_b,e`` (6 x 6) and ``J_m,e``
(6 x n) the maps from the base velocity and from the joint rates to the inertial twist
``[v; ω]`` of the end-effector point (inertial axes), and ``M_bb v_b + M_bm q̇ = 0`` the zero
total momentum (base velocity from momentum conservation).

``tree_generalized_jacobians(model, q, end_effectors, points=None) -> ndarray (..., E, 6, n)``
with ``model`` a :class:`satdyn.multibody.Model` with a quaternion floating root and revolute or
prismatic joints (welds allowed), ``q`` (..., model.nq) its configuration (root pose included:
the map depends on it), ``end_effectors`` a list of E body names, ``points`` (E, 3) points in
those bodies' frames (default: the body origins).
"""

from __future__ import annotations

import numpy as np

from .._validation import as_batch_of
from ..multibody import Model, body_poses, mass_matrix
from ..multibody.kinematics import prepare_inputs
from ..spatial.unchecked import skew as _skew  # trusted inputs
from .kinematics import _cross

__all__ = ["tree_generalized_jacobians"]


def _ancestors(model, index):
    chain = []
    while index > 0:
        chain.append(index)
        index = model.parents[index]
    return chain


def tree_generalized_jacobians(model, q, end_effectors, points=None) -> np.ndarray:
    """GJM of each end effector of a tree on a free-floating base (see module doc).

    Returns
    -------
    ndarray, shape (..., E, 6, model.nv - 6)
        Maps the joint rates to each end-effector point's twist [v; ω] (inertial axes) at zero
        total momentum.
    """
    if not isinstance(model, Model):
        raise TypeError(f"`model` must be a satdyn.multibody.Model; got {type(model).__name__}")
    if model.joints[0].kind != "floating":
        raise ValueError(f"`model`: the root must be a quaternion floating root; got {model.joints[0].kind!r}")
    for joint in model.joints[1:]:
        if joint.kind not in ("revolute", "prismatic", "weld"):
            raise ValueError(f"`model`: joint {joint.name!r} is {joint.kind}; revolute, prismatic or weld expected")
    if isinstance(end_effectors, str) or not len(end_effectors):
        raise ValueError("`end_effectors` must be a non-empty list of body names")
    bodies = [model.body_index(name) for name in end_effectors]
    local = np.zeros((len(bodies), 3)) if points is None else as_batch_of(points, (3,), "points")
    if local.shape != (len(bodies), 3):
        raise ValueError(f"`points` must have shape ({len(bodies)}, 3); got {local.shape}")
    shape, (qf,) = prepare_inputs(model, [(q, model.nq, "q")])
    positions, dcms = body_poses(model, qf)                     # (N, nb, 3), (N, nb, 3, 3)
    M = mass_matrix(model, qf)
    n = model.nv - 6
    coupling = np.linalg.solve(M[:, :6, :6], M[:, :6, 6:])      # M_bb^-1 M_bm, (N, 6, n)
    R0, r0 = dcms[:, 0], positions[:, 0]
    out = np.zeros((qf.shape[0], len(bodies), 6, n))
    for e, (b, point) in enumerate(zip(bodies, local)):
        x = positions[:, b] + np.einsum("nij,j->ni", dcms[:, b], point)
        # base columns: xdot = R0 v_b + (R0 w_b) x (x - r0), w = R0 w_b
        Jb = np.zeros((qf.shape[0], 6, 6))
        Jb[:, :3, :3] = R0
        Jb[:, :3, 3:] = -_skew(x - r0) @ R0
        Jb[:, 3:, 3:] = R0
        Jm = np.zeros((qf.shape[0], 6, n))
        for j in _ancestors(model, b):
            joint = model.joints[j]
            if joint.kind == "weld":
                continue
            k = np.einsum("nij,j->ni", dcms[:, j], joint.axis)   # axis in the inertial frame
            col = model.idx_v[j] - 6
            if joint.kind == "revolute":
                Jm[:, :3, col] = _cross(k, x - positions[:, j])
                Jm[:, 3:, col] = k
            else:
                Jm[:, :3, col] = k
        out[:, e] = Jm - Jb @ coupling
    return out.reshape(shape + (len(bodies), 6, n))

