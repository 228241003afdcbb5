"""Benchmark: batched evaluation of the assembly-spacecraft model family vs per-point rebuilding.

Model 3 (spec 000a 2.6: F_26, R1 docked, tile carried) is built ONCE as an LFR with the
15 joint angles as varying parameters (240 Delta channels; the array frequency is kept
nominal here), then evaluated at N robot configurations with ``LFR.evaluate_batch``, and
also with the structured evaluation ``assembly_spacecraft(split_arms=True)`` (each arm's
80-channel LFR through ``evaluate_batch``, then the cut connections closed numerically).  The
peer is what a user without the LFR would do: build the numeric model from scratch at each configuration
(``assembly_spacecraft(angles=...)`` with frozen angles, then its state space).
The rebuild is timed on a subset (it is slow) and reported per point; both results are
checked to agree on a few points.

Run: ``PYTHONPATH=src python benchmarks/bench_titop.py [N] [N_rebuild]``.
"""

from __future__ import annotations

import os

# One BLAS thread for both contenders (as the other benchmarks): on a shared 2-core machine
# multi-threaded BLAS on many small problems only adds contention. Set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys
import time

import numpy as np

from satdyn.titop.data import load_assembly_spacecraft
from satdyn.titop.models import assembly_spacecraft


def main(n: int = 1000, n_rebuild: int = 20) -> float:
    data = load_assembly_spacecraft()
    rng = np.random.default_rng(0)
    angles = rng.uniform(-np.pi, np.pi, (n, 3, 5))

    t0 = time.perf_counter()
    family = assembly_spacecraft(data=data, structure="table", n=26, dock=1, carry_tile=True, uncertain_array=False)
    t_build = time.perf_counter() - t0
    values = {f"R{k + 1}.alpha{j + 1}": angles[:, k, j] for k in range(3) for j in range(5)}
    t0 = time.perf_counter()
    batch = family.lfr.evaluate_batch(values)
    t_batch = time.perf_counter() - t0

    split = assembly_spacecraft(data=data, structure="table", n=26, dock=1, carry_tile=True, uncertain_array=False,
                                split_arms=True)
    t0 = time.perf_counter()
    batch_split = split.evaluate_batch(values)
    t_split = time.perf_counter() - t0

    t0 = time.perf_counter()
    rebuilt = [assembly_spacecraft(data=data, structure="table", n=26, dock=1, carry_tile=True, angles=angles[i],
                                   uncertain_array=False).lfr.nominal() for i in range(n_rebuild)]
    t_rebuild = (time.perf_counter() - t0) / n_rebuild

    # agreement (state spaces differ by a similarity: compare frequency responses)
    s = 2j * np.pi * np.array([0.1, 1.0, 3.0])
    err = max(np.abs(np.asarray(b[i](si)) - np.asarray(rebuilt[i](si))).max()
              / np.abs(np.asarray(rebuilt[i](si))).max()
              for b in (batch, batch_split) for i in range(min(3, n_rebuild)) for si in s)
    per_batch = t_batch / n
    ratio = t_rebuild / per_batch
    ratio_split = t_rebuild / (t_split / n)
    print(f"model 3 LFR: {family.lfr.ndelta} Delta channels, {family.lfr.nstates} states; "
          f"built once in {t_build:.2f} s")
    print(f"evaluate_batch at {n} configurations: {t_batch:.3f} s ({1e3 * per_batch:.3f} ms per point)")
    print(f"rebuild per configuration (mean of {n_rebuild}): {1e3 * t_rebuild:.1f} ms per point")
    print(f"structured evaluate_batch (arms apart) at {n} configurations: {t_split:.3f} s "
          f"({1e3 * t_split / n:.3f} ms per point)")
    print(f"speed-up, one-LFR evaluate_batch vs rebuilt: {ratio:.0f}x; structured vs rebuilt: {ratio_split:.0f}x "
          f"(goal >= 50x); max relative difference {err:.1e}")
    return ratio_split


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    main(*args)
