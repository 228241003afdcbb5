"""Edge metrics: frozen models -> closed loops -> the four metrics, per half-edge.

The unit of work is a :class:`~.graphs.HalfEdge` (z grid points on one node model); an
edge's 2z grid points are its two halves.  :class:`HalfEdgeEvaluator` evaluates every half
as one batch of its own z waypoints: one structured evaluation of the node model at them,
one vectorised closed loop, then every metric on the same closed loops (computed once,
shared by the four costs).  A half's metrics depend on that half only, never on the other
halves evaluated with it (:meth:`HalfEdgeEvaluator.evaluate`).

:meth:`HalfEdgeEvaluator.cache_key` hashes everything a half's metrics depend on (the half,
the model options, the reach angles, the controller gains, z and the cost settings): the
on-disk cache of :mod:`.execution` is keyed by it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

from .closedloop import AttitudeController, closed_loop, design_inertia
from .costs import COSTS, grid_metrics
from .models import NodeModelProvider
from .poses import PoseProvider

__all__ = ["HalfMetrics", "HalfEdgeEvaluator", "DESIGN_CONFIGURATION"]

# paper: J_tot at F_27, R1 docked at tile 22, all angles 0, carrying the last tile
DESIGN_CONFIGURATION = (27, 22, 1, True)


@dataclass(frozen=True)
class HalfMetrics:
    """Metrics of the z grid points of one half-edge.

    Attributes
    ----------
    values : dict {cost: ndarray (z,)}   linear units, ``inf`` where the loop is unstable
    stable : ndarray (z,) bool
    mu_frequency : ndarray (z,)          frequency of the mu peak [rad/s]
    """

    values: dict
    stable: np.ndarray
    mu_frequency: np.ndarray

    def to_json(self) -> dict:
        return {"values": {k: v.tolist() for k, v in self.values.items()}, "stable": self.stable.tolist(),
                "mu_frequency": self.mu_frequency.tolist()}

    @classmethod
    def from_json(cls, d: dict, costs=None, z: int | None = None) -> "HalfMetrics":
        """Inverse of :meth:`to_json`, checked: ``ValueError`` naming what is wrong.

        With ``costs`` the values must hold exactly these costs; with ``z`` every array has z
        entries.  Always: values >= 0 (``inf`` allowed, no NaN), ``stable`` booleans, every
        value of an unstable grid point ``inf``, frequencies >= 0 or NaN.
        """
        if not isinstance(d, dict) or set(d) != {"values", "stable", "mu_frequency"}:
            raise ValueError("expected an object with keys values, stable, mu_frequency")
        values = d["values"]
        if not isinstance(values, dict) or not values:
            raise ValueError("`values` must be a non-empty object {cost: [numbers]}")
        if costs is not None and set(values) != set(costs):
            raise ValueError(f"`values` holds costs {sorted(values)}; expected {sorted(costs)}")

        def numbers(x, what):
            if not isinstance(x, list) or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in x):
                raise ValueError(f"{what} must be a list of numbers")
            if z is not None and len(x) != z:
                raise ValueError(f"{what} has {len(x)} entries; expected {z}")
            return np.array(x, dtype=float)

        arrays = {k: numbers(v, f"values[{k!r}]") for k, v in values.items()}
        stable = d["stable"]
        if not isinstance(stable, list) or not all(isinstance(v, bool) for v in stable):
            raise ValueError("`stable` must be a list of booleans")
        stable = np.array(stable, dtype=bool)
        mu_w = numbers(d["mu_frequency"], "`mu_frequency`")
        sizes = {a.size for a in arrays.values()} | {stable.size, mu_w.size}
        if len(sizes) != 1:
            raise ValueError(f"arrays of different lengths {sorted(sizes)}")
        for k, a in arrays.items():
            if np.any(np.isnan(a)) or np.any(a < 0):
                raise ValueError(f"values[{k!r}] must be >= 0 (inf where unstable)")
            if not np.all(np.isinf(a[~stable])):
                raise ValueError(f"values[{k!r}] must be inf at the unstable grid points")
        if np.any(mu_w < 0):
            raise ValueError("`mu_frequency` must be >= 0 [rad/s] or NaN")
        return cls(arrays, stable, mu_w)


@dataclass
class HalfEdgeEvaluator:
    """Evaluates half-edges (module docstring); picklable for process pools and Dask.

    Attributes
    ----------
    models : NodeModelProvider
    poses : PoseProvider
    controller : AttitudeController or None
        None: designed from :data:`DESIGN_CONFIGURATION` (J_tot = inverse DC gain of
        T_G -> omega'_G there, all angles 0) on first use.
    costs : tuple of cost names
    design : (n, port, dock, carry) of the controller design configuration
    """

    models: NodeModelProvider = field(default_factory=NodeModelProvider)
    poses: PoseProvider = field(default_factory=PoseProvider.default)
    controller: AttitudeController | None = None
    costs: tuple = COSTS
    design: tuple = DESIGN_CONFIGURATION

    def __post_init__(self):
        unknown = [c for c in self.costs if c not in COSTS]
        if unknown:
            raise ValueError(f"`costs` must be names among {COSTS}; got {unknown}")
        self.costs = tuple(self.costs)

    def get_controller(self) -> AttitudeController:
        if self.controller is None:
            plant, ch = self.models.frozen(tuple(self.design), np.zeros((1, 3, 5)))
            self.controller = AttitudeController(design_inertia(plant, ch))
        return self.controller

    def cache_key(self, half) -> str:
        """Hex digest of everything the metrics of ``half`` depend on (including a hash of
        the node model's matrices)."""
        ctl = self.get_controller()
        payload = {
            "half": repr(half), "models": self.models.identity(), "model": self.models.fingerprint(half.model_key),
            "reach": np.asarray(self.poses.reach(half.pose)).round(15).tolist(), "z": self.poses.z,
            "J": ctl.inertia.round(9).tolist(), "omega": ctl.omega, "damping": ctl.damping,
            "costs": list(self.costs),
            "version": 3,   # 2: certified mu (costs.mu_peak); 3: one batch per half (evaluate)
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:32]

    def sigma_max(self, halves, omega, rows: str = "omega_dot", cols: str = "W") -> np.ndarray:
        """Largest singular value of a closed-loop channel (default W at C_j -> omega'_G) of
        every grid point of ``halves`` at frequencies ``omega`` (K,) [rad/s]: (z len(halves), K)."""
        from ...robust.norms import frequency_response

        ctl = self.get_controller()
        omega = np.asarray(omega, dtype=float)
        out = []
        for h in halves:
            plant, pch = self.models.frozen(h.model_key, self.poses.half_edge(h))
            cl, ch = closed_loop(plant, pch, ctl)
            r, c = getattr(ch, rows), getattr(ch, cols)
            G = frequency_response(cl.A, cl.B[:, :, c], cl.C[:, r], cl.D[:, r, c],
                                   np.broadcast_to(omega, (cl.A.shape[0], omega.size)))
            out.append(np.linalg.svd(G, compute_uv=False)[..., 0])
        return np.concatenate(out) if out else np.zeros((0, omega.size))

    def evaluate(self, halves) -> list[HalfMetrics]:
        """Metrics of ``halves``, in order: each half is ONE batch of its own z grid points.

        A half's metrics are therefore a function of that half alone, bit for bit: the
        batched engines below (the structured LFR evaluation of :mod:`satdyn.lfr`, the
        level-set H-infinity iteration, the batched mu bound) are not guaranteed to give
        each item the same last bits whatever its neighbours are (e.g. one BLAS product over
        all points of a batch, whose blocking depends on the batch size: measured 1 ulp on
        the frozen plants and 6e-16 on an H-infinity norm).  A half is always evaluated with
        the same z points, so its cached metrics equal their recomputation in any task, on
        any number of workers.
        """
        ctl = self.get_controller()
        out = []
        for h in halves:
            plant, ch = self.models.frozen(h.model_key, self.poses.half_edge(h))
            cl, cch = closed_loop(plant, ch, ctl)
            gm = grid_metrics(cl, cch, self.costs)
            out.append(HalfMetrics({c: gm.values[c].copy() for c in self.costs}, gm.stable.copy(),
                                   gm.mu_frequency.copy()))
        return out
