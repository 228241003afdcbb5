"""Benchmark: FE generation of all 28 tile structures, and batched evaluation of the model family.

1. Generation of F_1 ... F_28 (build + shift-invert eigsh + L_P + Phi at every tile port, RBE3
   feet, k = 8), as ``satdyn.fe.tile_family(cache=False)`` does it, with 10 and with 20 modes,
   in one process and with a 2-process pool (goal <= 5 s on 2 cores); peer in the same run: the
   same family with scipy's default shift-invert factorisation (SuperLU, column ordering), i.e.
   ``eigsh(K, k, M, sigma)`` without our symmetric ordering.
2. The assembly family along waypoints: for a few configurations (n, j, a, delta), the robot
   joint angles follow fifth-order polynomial trajectories from 0 to a random pose and back,
   frozen at z = 7 waypoints (as the path planner does).  ``assembly_spacecraft(...,
   split_arms=True)`` is built once per configuration and evaluated at all waypoints with
   ``evaluate_batch`` (the arms' varying-angle LFRs are shared by every configuration); the
   peer builds the numeric model anew at every waypoint
   (``angles=`` frozen, then its state space).  Frequency responses are compared.

One BLAS thread on both sides.  Run: ``PYTHONPATH=src python benchmarks/bench_fe.py [n_configs]``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import sys
import time
from unittest import mock

import numpy as np
import scipy.sparse.linalg as spla

from satdyn.fe.family import _family_inputs, generate_family
from satdyn.titop.data import load_assembly_spacecraft
from satdyn.titop.models import assembly_configurations, assembly_spacecraft


def _generate(max_modes: int, workers: int = 1) -> float:
    inputs = _family_inputs("S5", "B", "continuous", (0.25, 0.75), 8, "rbe3", 0.125, max_modes, 28)
    t0 = time.perf_counter()
    generate_family(inputs, "S5", show_progress=False, workers=workers)
    return time.perf_counter() - t0


def _generate_default_superlu(max_modes: int) -> float:
    """Peer: eigsh's own shift-invert (SuperLU with its default column ordering)."""
    original = spla.eigsh

    def plain(A, k=6, M=None, sigma=None, which="LM", OPinv=None, **kw):
        return original(A, k=k, M=M, sigma=sigma, which=which, **kw)

    with mock.patch("satdyn.fe.structure.spla.eigsh", plain):
        return _generate(max_modes)


def _waypoints(rng, z=7):
    """(z, 3, 5) joint angles on a quintic 0 -> pose -> 0 (zero rates/accelerations at the ends)."""
    pose = rng.uniform(-np.pi / 2, np.pi / 2, (3, 5))
    s = np.linspace(0.0, 1.0, z)
    shape = 16 * (s * (1 - s)) ** 2          # quintic-like bump: 0 at both ends with zero slope
    return shape[:, None, None] * pose


def main(n_configs: int = 6) -> None:
    for modes in (10, 20):
        ours = _generate(modes)
        peer = _generate_default_superlu(modes)
        pooled = _generate(modes, workers=2)
        print(f"generate F1..F28, k = 8, {modes} modes, RBE3 ports at every tile: {ours:.2f} s in one process, "
              f"{pooled:.2f} s with 2 processes (goal <= 5 s on 2 cores); scipy default shift-invert: {peer:.2f} s; "
              f"speed-up {peer / ours:.1f}x (one process)")

    data = load_assembly_spacecraft()
    assembly_spacecraft(2, data=data, split_arms=True)          # warm-up (imports, arm LFRs) outside the timing
    assembly_spacecraft(2, data=data, angles=np.zeros((3, 5))).lfr.nominal()
    rng = np.random.default_rng(0)
    configs = [c for c in assembly_configurations() if c.valid]
    picks = [configs[i] for i in rng.choice(len(configs), n_configs, replace=False)]
    W = 2 * np.pi * np.array([0.1, 1.0, 3.0])
    t_batch = t_rebuild = 0.0
    err = 0.0
    z = 7
    for c in picks:
        pts = _waypoints(rng, z)
        t0 = time.perf_counter()
        split = assembly_spacecraft(c.n, c.dock, c.port, c.carry_tile, data=data, split_arms=True,
                                    uncertain_array=False)
        values = {f"R{a + 1}.alpha{j + 1}": pts[:, a, j] for a in range(3) for j in range(5)}
        batch = split.evaluate_batch(values)
        t_batch += time.perf_counter() - t0
        t0 = time.perf_counter()
        rebuilt = [assembly_spacecraft(c.n, c.dock, c.port, c.carry_tile, data=data, angles=pts[i],
                                       uncertain_array=False).lfr.nominal() for i in range(z)]
        t_rebuild += time.perf_counter() - t0
        for i in (0, z // 2):
            for w in W:
                R = np.asarray(rebuilt[i](1j * w))
                err = max(err, np.abs(np.asarray(batch[i](1j * w)) - R).max() / np.abs(R).max())
    print(f"family along waypoints: {n_configs} configurations x {z} waypoints: build once + evaluate_batch "
          f"{t_batch:.2f} s ({1e3 * t_batch / (n_configs * z):.1f} ms per point); rebuild per waypoint "
          f"{t_rebuild:.2f} s ({1e3 * t_rebuild / (n_configs * z):.1f} ms per point); ratio "
          f"{t_rebuild / t_batch:.1f}x; max relative difference {err:.1e}")


if __name__ == "__main__":
    main(*[int(a) for a in sys.argv[1:]])
