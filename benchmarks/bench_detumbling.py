"""Benchmark: one 30 s adaptive detumbling run (controller B, paper scenario), two right-hand sides.

* reference -- :func:`satdyn.detumbling.simulate.closed_loop_rhs`, assembled from the model
  functions (``mass_matrix``, ``coriolis_matrix``, ``full_regressor``, ``satdyn.spatial``
  rotations through SciPy ``Rotation``): pure numpy, readable, the test reference;
* fused -- :func:`satdyn.detumbling.kernel.make_fused_rhs`: the same equations with constants
  hoisted and small products written out (pure numpy too; no compiler is a dependency).

Both are measured in the same process: per-evaluation time (timeit on one state) and a full
``solve_ivp`` run (wall time, right-hand-side evaluations per second). The two runs must agree
(same trajectory to the solver tolerance), which the script checks.

Usage: ``PYTHONPATH=src python benchmarks/bench_detumbling.py [--duration 30]``
"""

from __future__ import annotations

import os

# One BLAS thread for both contenders (as the other benchmarks): on a shared 2-core machine
# multi-threaded BLAS on many small problems only adds contention. Set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import time
import timeit

import numpy as np

from satdyn.detumbling import load_scenario, run_metrics, simulate
from satdyn.detumbling.kernel import make_fused_rhs
from satdyn.detumbling.simulate import closed_loop, closed_loop_rhs, initial_state_vector


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=30.0)
    args = parser.parse_args(argv)

    scenario = load_scenario()
    system = closed_loop(scenario, "B")
    x = initial_state_vector(system, scenario)
    fused = make_fused_rhs(system)
    assert np.allclose(fused(0.0, x), closed_loop_rhs(system, 0.0, x), rtol=0, atol=1e-12)

    n = 300
    t_ref = min(timeit.repeat(lambda: closed_loop_rhs(system, 0.0, x), number=n, repeat=3)) / n
    t_fus = min(timeit.repeat(lambda: fused(0.0, x), number=n, repeat=3)) / n
    print(f"one right-hand side: reference {1e6 * t_ref:7.1f} us, fused {1e6 * t_fus:7.1f} us, "
          f"ratio {t_ref / t_fus:.2f}x")

    rows = {}
    for kernel in ("reference", "fused"):
        start = time.perf_counter()
        run = simulate(scenario, "B", duration=args.duration, kernel=kernel)
        total = time.perf_counter() - start
        rows[kernel] = (run, total)
        print(f"{kernel:9s} {args.duration:g} s run: integration {run.wall_time:6.2f} s "
              f"({run.n_rhs} evaluations, {run.n_rhs / run.wall_time:8.0f} /s), with logging {total:6.2f} s")
    (r_ref, _), (r_fus, _) = rows["reference"], rows["fused"]
    diff = np.abs(r_ref.nu - r_fus.nu).max()
    print(f"trajectories agree: max |nu_ref - nu_fused| = {diff:.1e} (rtol 1e-8 solver)")
    m = run_metrics(r_fus)
    print(f"settling v/omega1/omega2: {m.settling_time_s['v']:.2f}/{m.settling_time_s['omega1']:.2f}/"
          f"{m.settling_time_s['omega2']:.2f} s; V {m.V0:.1f} -> {m.VT:.1f}")
    print(f"speed-up of the fused kernel on the full run: {r_ref.wall_time / r_fus.wall_time:.2f}x "
          f"(per evaluation {t_ref / t_fus:.2f}x)")


if __name__ == "__main__":
    main()
