"""Mimic joints as coupled coordinates: a tree whose mimic joints follow their masters.

A URDF mimic joint j follows its master m: ``q_j = multiplier * q_m + offset`` and
``v_j = multiplier * v_m`` -- one velocity for both. With ``y`` (..., nq) the independent
coordinates and ``w`` (..., nv) their rates (the tree's coordinates without the mimic
joints', in the tree's order), the tree's are

    q = E y + c,    v = G w,    dv/dt = G dw/dt      (G, E constant: 1-DOF joints),

and the dynamics of the coupled system are the tree's projected on ``G`` (virtual work):
``M_c = G^T M G``, ``tau_c = G^T tau``. This is the model Pinocchio builds with
``buildModelFromUrdf(..., mimic=True)`` (its ``rnea`` and ``crba`` return these quantities).

:class:`CoupledModel` wraps the tree :class:`~satdyn.multibody.model.Model` with the coupling and
offers ``inverse_dynamics``, ``mass_matrix``, ``nonlinear_effects`` and ``forward_dynamics``
(``solve(M_c, tau - G^T b)``, b the tree's bias at ``(q, v)``) in the coupled coordinates, all
batched over leading dimensions, and ``expand`` to the tree's coordinates.
"""

from __future__ import annotations

import numpy as np

from .inverse_dynamics import inverse_dynamics
from .kinematics import prepare_inputs
from .mass_matrix import mass_matrix

__all__ = ["CoupledModel"]


class CoupledModel:
    """A tree with mimic joints coupled to their masters (see module doc).

    Parameters
    ----------
    model : Model
        The tree with every joint independent.
    mimics : mapping
        ``{mimic joint name: (master joint name, multiplier, offset)}``; 1-DOF joints only.

    Attributes
    ----------
    model : Model
    nq, nv : int
        Sizes of the coupled coordinates ``y`` and rates ``w``.
    coupling : ndarray, shape (model.nv, nv)
        ``G``: ``v = G w``.
    q_map : ndarray, shape (model.nq, nq)
        ``E``: ``q = E y + q_offset``.
    q_offset : ndarray, shape (model.nq,)
    q_names, v_names : list of str
    """

    def __init__(self, model, mimics):
        from .model import Model

        if not isinstance(model, Model):
            raise TypeError(f"`model` must be a satdyn.multibody.Model; got {type(model).__name__}")
        index = {j.name: i for i, j in enumerate(model.joints)}
        for name, (master, _, _) in mimics.items():
            for label in (name, master):
                if label not in index or model.joints[index[label]].nv != 1:
                    raise ValueError(f"`mimics`: {label!r} is not a 1-DOF joint of the model")
        mimic_q = {model.idx_q[index[n]] for n in mimics}
        mimic_v = {model.idx_v[index[n]] for n in mimics}
        free_q = [k for k in range(model.nq) if k not in mimic_q]
        free_v = [k for k in range(model.nv) if k not in mimic_v]
        E = np.zeros((model.nq, len(free_q)))
        E[free_q, np.arange(len(free_q))] = 1.0
        G = np.zeros((model.nv, len(free_v)))
        G[free_v, np.arange(len(free_v))] = 1.0
        c = np.zeros(model.nq)
        for name, (master, multiplier, offset) in mimics.items():
            iq, iv = model.idx_q[index[name]], model.idx_v[index[name]]
            E[iq] = multiplier * E[model.idx_q[index[master]]]
            G[iv] = multiplier * G[model.idx_v[index[master]]]
            c[iq] = offset
        for a in (E, G, c):
            a.setflags(write=False)
        self.model, self.mimics = model, dict(mimics)
        self.q_map, self.q_offset, self.coupling = E, c, G
        self.nq, self.nv = len(free_q), len(free_v)
        self.q_names = [model.q_names[k] for k in free_q]
        self.v_names = [model.v_names[k] for k in free_v]

    def __repr__(self):
        return f"CoupledModel({self.model.name!r}, nq={self.nq}, nv={self.nv}, mimics={sorted(self.mimics)})"

    def _inputs(self, named):
        return prepare_inputs(self.model, named)

    def expand(self, y, w=None):
        """Tree coordinates ``q`` (..., model.nq) (and rates ``v`` (..., model.nv) if ``w`` is given)."""
        if w is None:
            shape, (yf,) = self._inputs([(y, self.nq, "y")])
            return (yf @ self.q_map.T + self.q_offset).reshape(shape + (self.model.nq,))
        shape, (yf, wf) = self._inputs([(y, self.nq, "y"), (w, self.nv, "w")])
        return ((yf @ self.q_map.T + self.q_offset).reshape(shape + (self.model.nq,)),
                (wf @ self.coupling.T).reshape(shape + (self.model.nv,)))

    def neutral_configuration(self) -> np.ndarray:
        """``y`` (nq,) whose independent joints are at the tree's neutral configuration."""
        return np.linalg.lstsq(self.q_map, self.model.neutral_configuration() - self.q_offset, rcond=None)[0]

    def mass_matrix(self, y) -> np.ndarray:
        """``G^T M(q) G`` (..., nv, nv)."""
        q = self.expand(y)
        return self.coupling.T @ mass_matrix(self.model, q) @ self.coupling

    def inverse_dynamics(self, y, w, dw, **kwargs) -> np.ndarray:
        """Efforts ``G^T tau`` (..., nv) of the coupled coordinates (``kwargs``: as the tree's)."""
        q, v = self.expand(y, w)
        self._inputs([(dw, self.nv, "dw")])  # validation only
        a = np.asarray(dw, dtype=float) @ self.coupling.T
        return inverse_dynamics(self.model, q, v, a, **kwargs) @ self.coupling

    def nonlinear_effects(self, y, w, **kwargs) -> np.ndarray:
        """``G^T b(q, v)`` (..., nv): the coupled efforts at zero acceleration (gravity, velocity terms, loads)."""
        q, v = self.expand(y, w)
        return inverse_dynamics(self.model, q, v, np.zeros(v.shape), **kwargs) @ self.coupling

    def forward_dynamics(self, y, w, tau=None, **kwargs) -> np.ndarray:
        """``dw/dt`` (..., nv) from the coupled efforts ``tau`` (..., nv) (``kwargs``: as the tree's)."""
        tau = np.zeros(self.nv) if tau is None else tau
        self._inputs([(tau, self.nv, "tau")])  # validation only
        rhs = np.asarray(tau, dtype=float) - self.nonlinear_effects(y, w, **kwargs)
        return np.linalg.solve(self.mass_matrix(y), rhs[..., None])[..., 0]
