"""Hybrid dynamics: per-joint forward or inverse mode (arXiv:2505.03248 §3.7).

``hybrid_dynamics(model, q, v, tau, a, forward_mask, *, fext=None, t=0.0)``:

* ``q`` (..., model.nq), ``v`` (..., model.nv);
* ``tau`` (..., model.nv) -- actuator efforts, used where ``forward_mask`` is True;
* ``a`` (..., model.nv) -- prescribed accelerations, used where ``forward_mask`` is False;
* ``forward_mask`` (model.nv,) bool -- True: effort in, acceleration out (forward-mode block);
  False: motion imposed, effort out (inverse-mode block). Per joint, give the same flag to all
  its rates; a floating root in forward mode with every joint in inverse mode is the classic
  "prescribed joint trajectories" case.

Returns ``(a_full, tau_full)`` (..., nv) each: the accelerations and actuator efforts of every
coordinate. Solved through the mass matrix: ``M_ff a_f = tau_f - h_f - M_fi a_i`` then
``tau_i = M_if a_f + M_ii a_i + h_i`` with ``h`` the inverse dynamics at zero acceleration.
"""

from __future__ import annotations

import numpy as np

from .inverse_dynamics import _rnea
from .joints import passive_efforts
from .kinematics import forward_kinematics, prepare_fext, prepare_inputs
from .mass_matrix import _crba

__all__ = ["hybrid_dynamics"]


def hybrid_dynamics(model, q, v, tau, a, forward_mask, *, fext=None, t=0.0):
    """Accelerations and efforts with each coordinate in forward or inverse mode (see module doc)."""
    mask = np.asarray(forward_mask, dtype=bool)
    if mask.shape != (model.nv,):
        raise ValueError(f"`forward_mask` must have shape ({model.nv},); got {mask.shape}")
    shape, (qf, vf, tf, af) = prepare_inputs(model, [(q, model.nq, "q"), (v, model.nv, "v"),
                                                     (tau, model.nv, "tau"), (a, model.nv, "a")])
    fx = prepare_fext(model, fext, shape)
    kin = forward_kinematics(model, qf, vf, t)
    h = _rnea(model, qf, vf, np.zeros_like(vf), fx, t, kin)[0] - passive_efforts(model, qf, vf)
    M = _crba(model, qf)
    f, i = mask, ~mask
    a_out = af.copy()
    a_out[:, f] = 0.0
    if f.any():
        rhs = tf[:, f] - h[:, f] - np.einsum("nij,nj->ni", M[:, f][:, :, i], af[:, i])
        a_out[:, f] = np.linalg.solve(M[:, f][:, :, f], rhs[..., None])[..., 0]
    tau_out = np.einsum("nij,nj->ni", M, a_out) + h
    tau_out[:, f] = tf[:, f]
    return a_out.reshape(shape + (model.nv,)), tau_out.reshape(shape + (model.nv,))
