"""A tuning problem compiled to arrays: augmented generalized plants per goal and scenario.

Every tunable block folds into one static gain ``Kt = blockdiag(blocks)`` acting on an
augmented plant that carries the controller's integrators (the prototype's "augment"):

    u_aug = [xk'; u],  y_aug = [xk; y],  Kt = [[Ak, Bk], [Ck, Dk]]

    A_a = diag(A, 0),  B1_a = [B1; 0],  B2_a = [[0, B2], [I, 0]],
    C1_a = [C1, 0],    C2_a = [[0, I], [C2, 0]],  D12_a = [0, D12],  D21_a = [0; D21]

Closing ``u_aug = Kt y_aug`` gives ``Acl = A_a + B2_a Kt C2_a`` etc. (``D22 = 0`` is
required: the tunable blocks may then have feedthrough without an algebraic loop).
Scenarios (models, parameter points) are stacked on a leading axis N.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .blocks import ScheduledBlock, TunableBlock
from .goals import Goal

__all__ = ["Controller", "GenPlant", "TuningProblem"]


class Controller:
    """The tunable blocks as one static gain on the augmented plant.

    ``x`` (full parameter vector, all blocks concatenated) <-> ``z`` (free entries divided
    by their scale: the optimiser's variable).
    """

    def __init__(self, blocks):
        blocks = tuple(blocks) if not isinstance(blocks, TunableBlock) else (blocks,)
        if not blocks or not all(isinstance(b, TunableBlock) for b in blocks):
            raise TypeError("`blocks` must be a tunable block or a non-empty sequence of them")
        names = [b.name for b in blocks]
        if len(set(names)) != len(names):
            raise ValueError(f"tunable block names must be unique; got {names}")
        self.blocks = blocks
        self.y = tuple(n for b in blocks for n in b.inputs)
        self.u = tuple(n for b in blocks for n in b.outputs)
        if len(set(self.u)) != len(self.u):
            raise ValueError(f"a control signal is driven by two blocks: {list(self.u)}")
        self.nk = sum(b.nstates for b in blocks)
        self.shape = (self.nk + len(self.u), self.nk + len(self.y))
        rows, cols, sl = [], [], []
        s0 = y0 = u0 = p0 = 0
        for b in blocks:
            r = list(range(s0, s0 + b.nstates)) + [self.nk + u0 + i for i in range(len(b.outputs))]
            c = list(range(s0, s0 + b.nstates)) + [self.nk + y0 + j for j in range(len(b.inputs))]
            rows.append(np.array(r, int))
            cols.append(np.array(c, int))
            sl.append(slice(p0, p0 + b.nparameters))
            s0 += b.nstates
            y0 += len(b.inputs)
            u0 += len(b.outputs)
            p0 += b.nparameters
        self._rows, self._cols, self._slices = rows, cols, sl
        self.x0 = np.concatenate([b.value for b in blocks])
        self.free = np.concatenate([b.free for b in blocks])
        self.scale = np.concatenate([b.scale for b in blocks])[self.free]
        self.lower = np.concatenate([b.lower for b in blocks])
        self.upper = np.concatenate([b.upper for b in blocks])
        self.parameter_names = tuple(n for b in blocks for n in b.names)
        self.scheduling = {}
        for b in blocks:
            for p in getattr(b, "scheduling", ()):
                self.scheduling[p.name] = p

    @property
    def nfree(self) -> int:
        return int(self.free.sum())

    def x_of_z(self, z, x_base=None):
        x = (self.x0 if x_base is None else x_base).copy()
        x[self.free] = z * self.scale
        return x

    def z_of_x(self, x):
        return np.asarray(x, float)[self.free] / self.scale

    def project(self, x):
        return np.clip(x, self.lower, self.upper)

    def taus(self, values: dict, n: int) -> list:
        return [b.tau(values, n) if isinstance(b, ScheduledBlock) else None for b in self.blocks]

    def gain(self, x, taus, n: int) -> np.ndarray:
        """Static gain Kt (n, nk + nu, nk + ny)."""
        K = np.zeros((n,) + self.shape)
        for b, r, c, sl, tau in zip(self.blocks, self._rows, self._cols, self._slices, taus):
            K[:, r[:, None], c[None, :]] = b.realize(x[sl], tau)
        return K

    def jacobian(self, x, taus, n: int) -> np.ndarray:
        """d Kt / d z (free, scaled parameters): (n, nfree, nk + nu, nk + ny)."""
        J = np.zeros((n, len(x)) + self.shape)
        for b, r, c, sl, tau in zip(self.blocks, self._rows, self._cols, self._slices, taus):
            Jb = b.jacobian(x[sl], tau)
            J[:, sl, r[:, None], c[None, :]] = np.broadcast_to(Jb, (n,) + Jb.shape[1:])
        return J[:, self.free] * self.scale[None, :, None, None]

    def with_value(self, x) -> tuple:
        return tuple(b.with_value(x[sl]) for b, sl in zip(self.blocks, self._slices))


@dataclass
class GenPlant:
    """Augmented generalized plant of one goal, stacked over N scenarios."""

    A: np.ndarray
    B1: np.ndarray
    B2: np.ndarray
    C1: np.ndarray
    C2: np.ndarray
    D11: np.ndarray
    D12: np.ndarray
    D21: np.ndarray

    def close(self, K):
        """Closed loop (Acl, Bcl, Ccl, Dcl) with the static gain K (N, nu, ny)."""
        B2K = self.B2 @ K
        D12K = self.D12 @ K
        return (self.A + B2K @ self.C2, self.B1 + B2K @ self.D21,
                self.C1 + D12K @ self.C2, self.D11 + D12K @ self.D21)

    def subset(self, idx):
        return GenPlant(*(getattr(self, k)[idx] for k in ("A", "B1", "B2", "C1", "C2", "D11", "D12", "D21")))


def _augment(A, B, C, D, nz, nw, nk, name):
    """Split an evaluated plant (N, ...) with outputs [z; y] and inputs [w; u] and augment it."""
    N, n = A.shape[0], A.shape[1]
    B1, B2 = B[:, :, :nw], B[:, :, nw:]
    C1, C2 = C[:, :nz, :], C[:, nz:, :]
    D11, D12, D21, D22 = D[:, :nz, :nw], D[:, :nz, nw:], D[:, nz:, :nw], D[:, nz:, nw:]
    if np.any(np.abs(D22) > 1e-12 * max(1.0, np.abs(D).max())):
        raise ValueError(f"goal {name!r}: the plant has a direct feedthrough from the tuned controls to "
                         "the measured signals (D22 != 0); make the loop strictly proper")
    ny, nu = C2.shape[1], B2.shape[2]
    Z = np.zeros
    Aa = np.zeros((N, n + nk, n + nk))
    Aa[:, :n, :n] = A
    B1a = np.concatenate([B1, Z((N, nk, nw))], axis=1)
    B2a = np.zeros((N, n + nk, nk + nu))
    B2a[:, :n, nk:] = B2
    B2a[:, n:, :nk] = np.eye(nk)
    C1a = np.concatenate([C1, Z((N, nz, nk))], axis=2)
    C2a = np.zeros((N, nk + ny, n + nk))
    C2a[:, :nk, n:] = np.eye(nk)
    C2a[:, nk:, :n] = C2
    D12a = np.concatenate([Z((N, nz, nk)), D12], axis=2)
    D21a = np.concatenate([Z((N, nk, nw)), D21], axis=1)
    return GenPlant(Aa, B1a, B2a, C1a, C2a, D11, D12a, D21a)


def _evaluate(L, values: dict, N: int):
    """Evaluate an LFR at N scenarios: stacked (A, B, C, D)."""
    own = {k: np.asarray(v, float) for k, v in values.items() if k in L.parameters}
    if own:
        batch = L.evaluate_batch(own)
        if not np.all(batch.valid):
            bad = int(np.flatnonzero(~batch.valid)[0])
            raise ValueError(f"the plant is ill posed at scenario {bad}: "
                             f"{ {k: float(v[bad]) for k, v in own.items()} }")
        return batch.A, batch.B, batch.C, batch.D
    sys = L.evaluate({}) if L.blocks else L
    A, B, C, D = (np.asarray(getattr(sys, k), float) for k in "ABCD")
    if not L.nstates:
        A, B, C = np.zeros((0, 0)), np.zeros((0, D.shape[1])), np.zeros((D.shape[0], 0))
    return tuple(np.broadcast_to(M, (N,) + M.shape).copy() for M in (A, B, C, D))


class TuningProblem:
    """Goals compiled on the scenarios: one :class:`GenPlant` per goal, plus the feedback loop.

    Parameters
    ----------
    plant : satdyn.lfr.LFR or control.StateSpace, or a sequence of them (multi-model)
        Open-loop interconnection with named signals; the tunable blocks read its outputs
        ``block.inputs`` and drive its inputs ``block.outputs``.
    blocks : tunable block or sequence of them
    goals : sequence of Goal
    scenarios : dict {parameter name: array (N,)}, optional
        Values (physical units) of the plant's ``ureal``/``vreal`` parameters and of the
        blocks' scheduling parameters; missing parameters are nominal. With a sequence of
        plants, N must equal the number of plants (or scenarios may be omitted).
    """

    def __init__(self, plant, blocks, goals, scenarios=None):
        from .. import lfr

        self.controller = blocks if isinstance(blocks, Controller) else Controller(blocks)
        goals = tuple(goals)
        if not goals or not all(isinstance(g, Goal) for g in goals):
            raise TypeError("`goals` must be a non-empty sequence of Goal objects")
        self.goals = goals
        models = list(plant) if isinstance(plant, (list, tuple)) else [plant]
        try:
            models = [m if isinstance(m, lfr.LFR) else lfr.as_lfr(m) for m in models]
        except (TypeError, ValueError) as exc:
            raise TypeError(f"`plant` must be an LFR or control system (or a sequence of them): {exc}") from exc
        for m in models:
            for names, what, lookup in ((self.controller.y, "outputs", m.output_names),
                                        (self.controller.u, "inputs", m.input_names)):
                missing = [n for n in names if n not in lookup]
                if missing:
                    raise ValueError(f"`plant` has no {what} {missing} (blocks connect to these); "
                                     f"plant {what}: {list(lookup)}")
        self.models = models
        y, u = self.controller.y, self.controller.u
        # the goals' generalized plants as LFRs, built once (re-evaluated on new scenarios)
        self.goal_lfrs = [None if g.kind == "spectral" else [g.generalized_plant(m, y, u) for m in models]
                          for g in goals]
        self.loop_lfrs = [m[list(y), list(u)] for m in models]
        self._compile(scenarios)

    def _compile(self, scenarios):
        models = self.models
        self.scenarios, self.N = self._scenarios(scenarios, models)
        self.taus = self.controller.taus(self.scenarios, self.N)
        self.plants = []
        nk = self.controller.nk
        y, u = self.controller.y, self.controller.u
        for g, lfrs in zip(self.goals, self.goal_lfrs):
            if lfrs is None:
                self.plants.append(None)
                continue
            parts = []
            for i, G in enumerate(lfrs):
                vals, n = self._model_values(i, len(models))
                parts.append(_evaluate(G, vals, n))
            A, B, C, D = (np.concatenate([p[k] for p in parts]) for k in range(4))
            nz, nw = D.shape[1] - len(y), D.shape[2] - len(u)
            self.plants.append(_augment(A, B, C, D, nz, nw, nk, g.name))
        parts = []
        for i, L in enumerate(self.loop_lfrs):
            vals, n = self._model_values(i, len(models))
            parts.append(_evaluate(L, vals, n))
        A, B, C, D = (np.concatenate([p[k] for p in parts]) for k in range(4))
        self.loop = _augment(A, np.concatenate([np.zeros(B.shape[:2] + (0,)), B], axis=2), C, D, 0, 0, nk, "loop")

    def with_scenarios(self, scenarios, controller=None):
        """The same goals and plant on other scenarios (and optionally other block values)."""
        import copy

        sub = copy.copy(self)
        if controller is not None:
            sub.controller = controller
        sub._compile(scenarios)
        return sub

    def parameters(self) -> dict:
        """Every ``ureal``/``vreal`` of the plant and the blocks' scheduling, by name."""
        out = {}
        for m in self.models:
            out.update(m.parameters)
        out.update(self.controller.scheduling)
        return out

    def spectral_problem(self, goal):
        """A copy of this problem whose only goal is the spectral ``goal`` (stabilisation phase)."""
        import copy

        sub = copy.copy(self)
        sub.goals, sub.plants = (goal,), [None]
        return sub

    def subset(self, index):
        """A copy restricted to the scenarios ``index`` (array of ints)."""
        import copy

        index = np.asarray(index, int)
        sub = copy.copy(self)
        sub.N = len(index)
        sub.scenarios = {k: v[index] for k, v in self.scenarios.items()}
        sub.taus = [None if t is None else t[index] for t in self.taus]
        sub.plants = [None if G is None else G.subset(index) for G in self.plants]
        sub.loop = self.loop.subset(index)
        return sub

    def _scenarios(self, scenarios, models):
        if scenarios is None:
            return {}, len(models)
        if not isinstance(scenarios, dict):
            raise TypeError("`scenarios` must be a dict {parameter name: array (N,)}; "
                            f"got {type(scenarios).__name__}")
        arrays = {k: np.atleast_1d(np.asarray(v, float)) for k, v in scenarios.items()}
        sizes = {a.shape for a in arrays.values()}
        if len(sizes) > 1 or any(len(s) != 1 for s in sizes):
            raise ValueError(f"`scenarios` arrays must be 1-D of one length; got shapes {sorted(sizes)}")
        N = next(iter(sizes))[0] if sizes else len(models)
        known = set(self.controller.scheduling)
        for m in models:
            known |= set(m.parameters)
        unknown = sorted(set(arrays) - known)
        if unknown:
            raise ValueError(f"`scenarios` names unknown parameters {unknown}; known: {sorted(known)}")
        if len(models) > 1 and N != len(models):
            raise ValueError(f"`scenarios` must have one value per plant model ({len(models)}); got {N}")
        return arrays, N

    def _model_values(self, i, nmodels):
        if nmodels == 1:
            return self.scenarios, self.N
        return {k: v[i:i + 1] for k, v in self.scenarios.items()}, 1
