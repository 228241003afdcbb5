"""Benchmark: one 30 s adaptive detumbling run (controller B, paper scenario), two right-hand sides.

* reference -- :func:`satdyn.detumbling.simulate.closed_loop_rhs`, assembled from the model
  functions (``mass_matrix``, ``coriolis_matrix``, ``full_regressor``, ``satdyn.spatial``
  rotations through SciPy ``Rotation``): pure numpy, readable, the test reference;
* fused -- :func:`satdyn.detumbling.kernel.make_fused_rhs`: the same equations with constants
  hoisted and small products written out (pure numpy too; no compiler is a dependency).

Both are measured in the same process: per-evaluation time (timeit on one state) and a full
``solve_ivp`` run (wall time, right-hand-side evaluations per second). The two runs must agree
(same trajectory to the solver tolerance), which the script checks.

Then the cost of the extensions per evaluation of the fused kernel, against the plain fused
kernel at the same state: parameter projection (with active constraints) and thrust
saturation (with saturated tugs); and the closed-form thrust allocation of
:class:`satdyn.detumbling.tugs.TugModel` against scipy's bounded least squares (BVLS) on the
same saturated wrenches.

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

from scipy.optimize import lsq_linear

from satdyn.detumbling import load_scenario, physical_parameter_set, run_metrics, simulate
from satdyn.studies.detumbling import DEFAULT_TUG
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
    extensions(scenario, x, t_fus, n)


def extensions(scenario, x, t_plain, n):
    """Per-evaluation cost of projection and saturation; closed-form allocation against BVLS."""
    pset = physical_parameter_set()
    y = x.copy()
    y[20 + 20:20 + 29] = 0.0            # tug 1's hinge estimates on their lower bounds: constraints active
    y[11:20] *= 5.0                     # fast client: both tugs saturate
    proj = make_fused_rhs(closed_loop(scenario, "B", pset))
    sat = make_fused_rhs(closed_loop(scenario, "B", tug_models=(DEFAULT_TUG, DEFAULT_TUG)))
    plain = make_fused_rhs(closed_loop(scenario, "B"))
    t_plain = min(timeit.repeat(lambda: plain(0.0, y), number=n, repeat=3)) / n
    t_proj = min(timeit.repeat(lambda: proj(0.0, y), number=n, repeat=3)) / n
    t_sat = min(timeit.repeat(lambda: sat(0.0, y), number=n, repeat=3)) / n
    print(f"fused right-hand side: plain {1e6 * t_plain:7.1f} us, with projection {1e6 * t_proj:7.1f} us "
          f"({t_proj / t_plain:.2f}x), with saturation {1e6 * t_sat:7.1f} us ({t_sat / t_plain:.2f}x)")
    rng = np.random.default_rng(0)
    wrenches = rng.normal(size=(200, 6)) * 80.0
    B, F = DEFAULT_TUG.allocation_matrix, DEFAULT_TUG.max_thrust
    N = np.r_[np.ones(3), np.full(3, 1.0 / DEFAULT_TUG.arm)]
    B_inv = np.linalg.inv(B)
    t_bvls = min(timeit.repeat(lambda: [lsq_linear(N[:, None] * B, N * w, bounds=(-F, F), method="bvls")
                                        for w in wrenches], number=1, repeat=3)) / len(wrenches)
    t_clip = min(timeit.repeat(lambda: [np.clip(B_inv @ w, -F, F) for w in wrenches], number=1,
                               repeat=3)) / len(wrenches)
    print(f"thrust allocation (saturated): scipy BVLS {1e6 * t_bvls:7.1f} us, closed-form clip "
          f"{1e6 * t_clip:6.1f} us, ratio {t_bvls / t_clip:.0f}x")


if __name__ == "__main__":
    main()
