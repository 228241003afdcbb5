"""Tuning goals: thin objects that select closed-loop channels of one interconnection.

Every H-infinity / H2 goal reduces to a generalized plant ``[z; y] = G [w; u]`` built
from the user's open-loop interconnection ``P`` (a ``satdyn.lfr.LFR`` or
``control.StateSpace`` with named signals), where ``y`` are the signals the tunable blocks
read and ``u`` the signals they drive. Closing ``u = K y`` gives the goal's channel
``w -> z``; its norm is the goal's value. A goal is **hard** (must end ``<= 1``) or **soft**
(minimised); systune's semantics: minimise the largest soft value subject to every hard
value ``<= 1``.

* :class:`Gain` — ``|| W_out T(inputs -> outputs) W_in ||_inf`` (``norm="h2"``: H2 norm);
* :class:`Tracking` — ``|| W (r - y) ||`` from references ``r`` to the tracking error;
* :class:`Sensitivity` — sensitivity at a loop opening: a disturbance ``d`` added to a
  measured signal ``y_i``, seen after the summing point: ``d -> y_i + d`` (``S_o`` at the
  plant outputs when ``location`` are the measurements);
* :class:`Poles` — spectral constraint on the feedback loop (plant and controller only):
  every closed-loop pole with decay ``-Re(p) >= min_decay`` and ``|p| <= max_frequency``.
"""

from __future__ import annotations

import numpy as np

from .blocks import _names as _as_names

__all__ = ["Goal", "Gain", "Tracking", "Sensitivity", "Poles", "H2"]


def _weight(W, size, what):
    """A weight as a square LFR of the given size (None: identity; scalar/SISO: times I)."""
    from .. import lfr

    if W is None:
        return lfr.as_lfr(np.eye(size))
    if np.isscalar(W):
        if not np.isfinite(W) or W == 0:
            raise ValueError(f"`{what}` must be a finite non-zero number or a system; got {W!r}")
        return lfr.as_lfr(float(W) * np.eye(size))
    try:
        L = lfr.as_lfr(W)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`{what}` must be a number, array, control system or LFR; got {type(W).__name__}") from exc
    if L.shape == (1, 1) and size > 1:
        L = lfr.blockdiag([L] * size)
    if L.shape != (size, size):
        raise ValueError(f"`{what}` must be {size}x{size} (or SISO); got {L.shape}")
    if L.nstates:
        poles = np.linalg.eigvals(L.A)
        if np.any(poles.real >= 0):
            raise ValueError(f"`{what}` must be stable (poles {poles}): the weighted norm would be infinite")
    return L


class Goal:
    """Base class: ``hard`` flag, ``name``, ``kind`` ("hinf", "h2" or "spectral")."""

    kind = "hinf"

    def __init__(self, hard: bool = False, name: str | None = None):
        if not isinstance(hard, (bool, np.bool_)):
            raise TypeError(f"goal `hard` must be a bool; got {hard!r}")
        self.hard = bool(hard)
        self.name = name or type(self).__name__

    def generalized_plant(self, P, y, u):
        """LFR with inputs ``[w; u]`` and outputs ``[z; y]`` (overridden)."""
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, hard={self.hard})"


class Gain(Goal):
    """Weighted gain ``|| W_out T(inputs -> outputs) W_in ||`` (H-infinity, or H2 with ``norm="h2"``).

    Parameters
    ----------
    inputs, outputs : str or sequence of str
        Signal names of the interconnection (inputs of ``P`` / outputs of ``P``).
    weight_in, weight_out : number, array, control system or LFR, optional
        Stable weights (SISO weights are repeated on every channel).
    hard : bool
    norm : {"hinf", "h2"}
    name : str, optional
    """

    def __init__(self, inputs, outputs, *, weight_in=None, weight_out=None, hard=False, norm="hinf", name=None):
        super().__init__(hard, name)
        if norm not in ("hinf", "h2"):
            raise ValueError(f"`norm` must be 'hinf' or 'h2'; got {norm!r}")
        self.kind = norm
        self.inputs = _as_names(inputs, "inputs")
        self.outputs = _as_names(outputs, "outputs")
        self.weight_in, self.weight_out = weight_in, weight_out

    def _channels(self, P, y, u):
        return P[list(self.outputs) + list(y), list(self.inputs) + list(u)]

    def generalized_plant(self, P, y, u):
        from .. import lfr

        G = self._channels(P, y, u)
        nz, nw = G.noutputs - len(y), G.ninputs - len(u)
        Wo = _weight(self.weight_out, nz, "weight_out")
        Wi = _weight(self.weight_in, nw, "weight_in")
        left = lfr.blockdiag([Wo, lfr.as_lfr(np.eye(len(y)))])
        right = lfr.blockdiag([Wi, lfr.as_lfr(np.eye(len(u)))])
        return left @ G @ right


def H2(inputs, outputs, **kw) -> Gain:
    """H2 norm of a weighted channel (a :class:`Gain` with ``norm="h2"``)."""
    return Gain(inputs, outputs, norm="h2", **kw)


class Tracking(Gain):
    """Tracking error ``|| W (r - y) ||_inf`` from references ``r`` (inputs of ``P``) to
    ``e = r - y`` with ``y`` the tracked outputs (same count as ``r``)."""

    def __init__(self, reference, output, *, weight=None, hard=False, name=None):
        super().__init__(reference, output, weight_out=weight, hard=hard, name=name)
        if len(self.inputs) != len(self.outputs):
            raise ValueError(f"Tracking: `reference` and `output` must have the same length; got "
                             f"{len(self.inputs)} and {len(self.outputs)}")

    def _channels(self, P, y, u):
        from .. import lfr

        G = P[list(self.outputs) + list(y), list(self.inputs) + list(u)]
        k, ny, nu = len(self.inputs), len(y), len(u)
        flip = np.diag(np.concatenate([-np.ones(k), np.ones(ny)]))
        sel = np.zeros((k + ny, k + nu))
        sel[:k, :k] = np.eye(k)
        return lfr.as_lfr(flip) @ G + lfr.as_lfr(sel)


class Sensitivity(Goal):
    """Sensitivity at a loop opening on measured signals ``location`` (a subset of the
    blocks' inputs): transfer from a disturbance added to those signals to the signals
    after the summing point. At all measurements of a unity-feedback loop this is
    ``S_o = (I + G K)^-1``.
    """

    def __init__(self, location, *, weight=None, hard=False, name=None):
        super().__init__(hard, name)
        self.location = _as_names(location, "location")
        self.weight = weight

    def generalized_plant(self, P, y, u):
        from .. import lfr

        missing = [n for n in self.location if n not in y]
        if missing:
            raise ValueError(f"Sensitivity: `location` {missing} are not signals read by the tunable blocks {list(y)}")
        Pyu = P[list(y), list(u)]
        k, ny = len(self.location), len(y)
        E = np.zeros((ny, k))
        for j, name in enumerate(self.location):
            E[[i for i, n in enumerate(y) if n == name], j] = 1.0
        top = lfr.hstack([lfr.as_lfr(np.eye(k)), lfr.as_lfr(E.T) @ Pyu])
        bottom = lfr.hstack([lfr.as_lfr(E), Pyu])
        G = lfr.vstack([top, bottom])
        W = _weight(self.weight, k, "weight")
        return lfr.blockdiag([W, lfr.as_lfr(np.eye(ny))]) @ G


class Poles(Goal):
    """Spectral constraint on the feedback loop: decay ``-Re(p) >= min_decay`` [rad/s] and
    natural frequency ``|p| <= max_frequency`` [rad/s].

    Its value is ``max_p max(1 + (Re p + min_decay) / decay_scale, |p| / max_frequency)``,
    which is ``<= 1`` exactly when the constraint holds (``decay_scale`` [rad/s], default
    ``max(min_decay, 1)``, only sets how the violation is weighed against other goals).
    """

    kind = "spectral"

    def __init__(self, min_decay=0.0, max_frequency=np.inf, *, decay_scale=None, hard=True, name=None):
        super().__init__(hard, name)
        if not (np.isfinite(min_decay) and min_decay >= 0):
            raise ValueError(f"`min_decay` must be a finite number >= 0 [rad/s]; got {min_decay!r}")
        if not max_frequency > 0:
            raise ValueError(f"`max_frequency` must be > 0 [rad/s]; got {max_frequency!r}")
        self.min_decay = float(min_decay)
        self.max_frequency = float(max_frequency)
        self.decay_scale = float(decay_scale) if decay_scale is not None else max(self.min_decay, 1.0)
        if not self.decay_scale > 0:
            raise ValueError(f"`decay_scale` must be > 0; got {decay_scale!r}")

    def values(self, poles):
        """Per-pole values (..., n) of the constraint (``<= 1`` feasible)."""
        v = 1.0 + (poles.real + self.min_decay) / self.decay_scale
        if np.isfinite(self.max_frequency):
            v = np.maximum(v, np.abs(poles) / self.max_frequency)
        return v

    def derivative(self, poles):
        """d value / d(Re p, Im p) for each pole: arrays (..., n) pair."""
        dre = np.full(poles.shape, 1.0 / self.decay_scale)
        dim = np.zeros(poles.shape)
        if np.isfinite(self.max_frequency):
            v1 = 1.0 + (poles.real + self.min_decay) / self.decay_scale
            mag = np.maximum(np.abs(poles), 1e-300)
            use = np.abs(poles) / self.max_frequency > v1
            dre = np.where(use, poles.real / mag / self.max_frequency, dre)
            dim = np.where(use, poles.imag / mag / self.max_frequency, dim)
        return dre, dim
