"""Linearisation of the non-linear tree dynamics about an operating point.

``linearize(model, q, v=None, tau=None, *, t=0.0, step=1e-6, representation="statespace")``
-> ``control.StateSpace``, or with ``representation="lfr"`` the same model as a
:class:`satdyn.lfr.LFR` (signal names kept), ready for ``satdyn.lfr.interconnect`` and
the satdyn.titop port models:

* ``q`` (model.nq,), ``v`` (model.nv,) -- operating point (default ``v = 0``);
* ``tau`` (model.nv,) -- operating actuator efforts (default 0; for an equilibrium use
  :func:`~satdyn.multibody.inverse_dynamics` at zero acceleration);
* ``step`` -- central-difference step on the configuration chart and the rates.

States ``x = [dq (model.nv), v (model.nv)]``: ``dq`` are chart coordinates of the
configuration about ``q`` (``q (+) dq``, :func:`~satdyn.multibody.joints.integrate`: joint
displacements; for a floating root the position offset in the root frame and the attitude
rotation vector), named ``q_<rate name>``; rates named ``v_<rate name>``. Inputs: the actuator
efforts ``tau_<rate name>``. Outputs: the states.

``A = [[d(dq_dot)/d(dq), d(dq_dot)/dv], [d(a)/d(dq), d(a)/dv]]`` by central differences
of the exact chart kinematics and of :func:`~satdyn.multibody.forward_dynamics` (all
perturbations evaluated in one batched call); ``B = [0; M^-1]`` exactly (``a`` is affine in tau).
At zero twist and no gravity this is the linear TITOP model of the tree (arXiv:2505.03248 §7); with
gravity it contains the gravity-stiffness terms.
"""

from __future__ import annotations

import control
import numpy as np

from .._validation import as_batch_of
from ..spatial import so3_exp, so3_right_jacobian_inverse
from .forward_dynamics import forward_dynamics
from .joints import integrate
from .model import Model

__all__ = ["linearize"]


def _chart_point(model, q0, dq):
    """``q0 (+) dq`` for a batch of chart offsets dq (N, nv)."""
    out = np.empty((dq.shape[0], model.nq))
    for i, joint in enumerate(model.joints):
        if joint.nq:
            qj = np.broadcast_to(q0[model.q_slice(i)], (dq.shape[0], joint.nq))
            out[:, model.q_slice(i)] = integrate(joint, qj, dq[:, model.v_slice(i)])
    return out


def _chart_rate(model, dq, v):
    """``d(dq)/dt`` (N, nv) of the chart coordinates for rates v (N, nv)."""
    out = np.array(v, dtype=float, copy=True)
    for i, joint in enumerate(model.joints):
        sl = model.v_slice(i)
        if joint.kind in ("floating", "floating_euler"):
            rot = dq[:, sl.start + 3:sl.stop]
            # position offset in the frozen root frame: R0^T R v = exp(rot) v
            out[:, sl.start:sl.start + 3] = np.einsum("nij,nj->ni", so3_exp(rot), v[:, sl.start:sl.start + 3])
            out[:, sl.start + 3:sl.stop] = np.einsum("nij,nj->ni", so3_right_jacobian_inverse(rot),
                                                     v[:, sl.start + 3:sl.stop])
        elif joint.kind == "spherical":
            out[:, sl] = np.einsum("nij,nj->ni", so3_right_jacobian_inverse(dq[:, sl]), v[:, sl])
    return out


def linearize(model, q, v=None, tau=None, *, t=0.0, step=1e-6, representation="statespace"):
    """Linear state-space model about ``(q, v, tau)`` with named signals (see module doc).

    ``representation``: ``"statespace"`` (``control.StateSpace``) or ``"lfr"`` (:class:`satdyn.lfr.LFR`).
    """
    if representation not in ("statespace", "lfr"):
        raise ValueError(f"`representation` must be 'statespace' or 'lfr'; got {representation!r}")
    if not isinstance(model, Model):
        raise TypeError(f"`model` must be a satdyn.multibody.Model; got {type(model).__name__}")
    nv = model.nv
    q0 = as_batch_of(q, (model.nq,), "q")
    if q0.shape != (model.nq,):
        raise ValueError(f"`q` must be one configuration of shape ({model.nq},); got {q0.shape}")
    v0 = np.zeros(nv) if v is None else as_batch_of(v, (nv,), "v").reshape(-1)
    tau0 = np.zeros(nv) if tau is None else as_batch_of(tau, (nv,), "tau").reshape(-1)
    if v0.shape != (nv,) or tau0.shape != (nv,):
        raise ValueError(f"`v` and `tau` must have shape ({nv},)")
    if step <= 0:
        raise ValueError(f"`step` must be positive; got {step}")
    E = np.eye(2 * nv) * step
    perturb = np.concatenate([E, -E])                                 # (4 nv, 2 nv): [dq, dv]
    dq, dv = perturb[:, :nv], perturb[:, nv:]
    qs = _chart_point(model, q0, dq)
    vs = v0 + dv
    acc = forward_dynamics(model, qs, vs, tau0, t=t)
    rates = _chart_rate(model, dq, vs)
    f = np.concatenate([rates, acc], 1)                              # (4 nv, 2 nv)
    A = ((f[:2 * nv] - f[2 * nv:]) / (2.0 * step)).T
    unit = np.concatenate([np.eye(nv), np.zeros((1, nv))])
    a_tau = forward_dynamics(model, q0, v0, tau0 + unit, t=t)        # affine in tau: exact columns
    B = np.zeros((2 * nv, nv))
    B[nv:] = (a_tau[:nv] - a_tau[nv]).T
    names = [n.replace(".", "_") for n in model.v_names]  # python-control forbids "."
    states = [f"q_{n}" for n in names] + [f"v_{n}" for n in names]
    sys = control.ss(A, B, np.eye(2 * nv), np.zeros((2 * nv, nv)), states=states, outputs=states,
                     inputs=[f"tau_{n}" for n in names], name=f"{model.name}_linearized")
    if representation == "lfr":
        from ..lfr import from_statespace

        return from_statespace(sys)
    return sys
