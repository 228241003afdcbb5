"""Benchmark: static output feedback (SOF) H-infinity on the shipped COMPleib problems.

For each problem (satdyn.examples.sof): the tuner (satdyn.control.systune on a StaticGain
from K = 0, SQP and BFGS, seeded random starts, one process) against

* a brute force measured in the same run: slycot ab13dd (python-control ``linfnorm``) on a
  signed-log grid of the gain entries + Nelder-Mead from the best points
  (tests/control/test_sof_benchmarks.py), an upper bound on the SOF infimum;
* the full-order H-infinity optimum (Gahinet-Apkarian LMIs, cvxpy/Clarabel), a lower bound:
  the tests' bracket ``full_order_bracket`` (verified upper level, lower level beyond the
  solver's tolerance), which survives Clarabel's "optimal_inaccurate" on HE1 (the infimum is
  not attained there); the table prints its lower end and the bracket's relative width.

No published SOF value is printed: none could be quoted from a readable source here.

Run:  PYTHONPATH=src python benchmarks/bench_sof.py [--problems AC4 HE1 ...] [--starts 3]
Prints a table: problem, nx/nu/ny, full-order bound (and its bracket's relative width), brute
force (value, max |K|, time), systune SQP and BFGS (value, max |K|, time), the ratio of each to
the brute force and the wall-time ratio brute force / systune.
"""

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("SATDYN_QUIET", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "control"))
from test_sof_benchmarks import (brute_force_2d, brute_force_multistart,  # noqa: E402  (the tests' references)
                                 full_order_bracket)

from satdyn.control import TuneOptions, systune  # noqa: E402
from satdyn.examples.sof import sof_problem, sof_problem_names  # noqa: E402


def run(name, starts):
    p = sof_problem(name)
    t = time.perf_counter()
    lb, lb_upper = full_order_bracket(p)
    t_lb = time.perf_counter() - t
    t = time.perf_counter()
    ref, kref = brute_force_2d(p) if p.nu * p.ny == 2 else brute_force_multistart(p)
    t_ref = time.perf_counter() - t
    row = dict(name=name, dims=f"{p.nx}/{p.nu}/{p.ny}", lb=lb, lb_width=(lb_upper - lb) / lb_upper, t_lb=t_lb,
               ref=ref, kref=np.abs(kref).max(), t_ref=t_ref)
    for method in ("sqp", "bfgs"):
        t = time.perf_counter()
        r = systune(p.plant(), [p.gain_block()], soft=[p.goal()],
                    options=TuneOptions(method=method, random_starts=starts, n_jobs=1, seed=0, max_iter=1000))
        row[method] = (r.soft, np.abs(r.x).max(), time.perf_counter() - t)
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="+", default=list(sof_problem_names()))
    ap.add_argument("--starts", type=int, default=3, help="random starts per systune call (plus K = 0)")
    args = ap.parse_args(argv)
    print(f"SOF H-infinity, COMPleib subset; systune from K = 0 with {args.starts} seeded random starts, one process,"
          " one BLAS thread")
    head = (f"{'problem':8s} {'nx/nu/ny':9s} {'full-order LB':>13s} {'width':>7s} {'brute force':>12s} {'max|K|':>8s} "
            f"{'t [s]':>6s} | "
            f"{'SQP':>10s} {'max|K|':>8s} {'t [s]':>6s} {'/brute':>8s} | {'BFGS':>10s} {'max|K|':>8s} {'t [s]':>6s} "
            f"{'/brute':>8s} | {'t_brute/t_SQP':>13s}")
    print(head)
    print("-" * len(head))
    for name in args.problems:
        r = run(name, args.starts)
        (vs, ks, ts), (vb, kb, tb) = r["sqp"], r["bfgs"]
        print(f"{name:8s} {r['dims']:9s} {r['lb']:13.6f} {r['lb_width']:7.1e} "
              f"{r['ref']:12.6f} {r['kref']:8.1e} {r['t_ref']:6.2f} | "
              f"{vs:10.6f} {ks:8.1e} {ts:6.2f} {vs / r['ref']:8.5f} | {vb:10.6f} {kb:8.1e} {tb:6.2f} "
              f"{vb / r['ref']:8.5f} | {r['t_ref'] / ts:12.1f}x", flush=True)


if __name__ == "__main__":
    main()
