"""Benchmark: full-order H-infinity synthesis, satdyn ``hinfsyn`` vs slycot ``sb10ad`` per call.

Random general plants (D11, D12, D21, D22 non-zero; A with unstable modes; 3 disturbances,
3 errors, 2 controls, 2 measurements) of n = 4 ... 50 states, a few seeds each. Both sides
run in this process with one BLAS thread. satdyn: bisection to tol = 1e-3 plus the
closed-loop check (lft + hinfnorm), as returned to a user. slycot: sb10ad (job 1, bisection,
gtol = 1e-3; its default job 3 adds a scan that took 0.4 s at n = 10 and minutes at n = 20),
which also returns the closed loop.

Run:  PYTHONPATH=src python benchmarks/bench_hinfsyn.py [--sizes 4 10 20 30 50] [--seeds 3]
Prints per size the median wall time per call of each, their ratio slycot / satdyn (> 1:
satdyn faster) and the gammas' largest relative difference (satdyn - sb10ad) / sb10ad.
sb10ad's iteration may stop above the optimum (negative difference: satdyn lower).
"""

import argparse
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import control
import numpy as np
from slycot import sb10ad

from satdyn.control.hinfsyn import hinfsyn


def random_plant(n, seed, m1=3, p1=3, m2=2, p2=2):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n)) / np.sqrt(n) - 0.5 * np.eye(n)   # a few unstable modes
    B = rng.standard_normal((n, m1 + m2))
    C = rng.standard_normal((p1 + p2, n))
    D = rng.standard_normal((p1 + p2, m1 + m2))
    D[:p1, :m1] *= 0.3
    return control.ss(A, B, C, D), p2, m2


def timed(function, *args, **kwargs):
    t0 = time.perf_counter()
    out = function(*args, **kwargs)
    return out, time.perf_counter() - t0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 10, 20, 30, 50])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    hinfsyn(*random_plant(4, 0))       # warm-up (imports, first-call compilation)
    print(" n   satdyn [ms]  sb10ad [ms]  ratio sb10ad/satdyn  max rel. gamma diff  min rel. diff")
    for n in args.sizes:
        t_ours, t_ref, diffs = [], [], []
        for seed in range(args.seeds):
            P, nmeas, ncon = random_plant(n, seed)
            ours, t1 = timed(hinfsyn, P, nmeas, ncon, tol=1e-3)
            A, B, C, D = (np.asarray(M, float) for M in (P.A, P.B, P.C, P.D))
            ref, t2 = timed(sb10ad, n, B.shape[1], C.shape[0], ncon, nmeas, 10 * ours.gamma,
                            A, B, C, D, job=1, gtol=1e-3)
            t_ours.append(t1)
            t_ref.append(t2)
            diffs.append(ours.gamma / ref[0] - 1)
        a, b = np.median(t_ours), np.median(t_ref)
        print(f"{n:3d}  {1e3 * a:10.1f}  {1e3 * b:10.1f}  {b / a:18.2f}  {max(diffs):+19.2e}  {min(diffs):+12.2e}")


if __name__ == "__main__":
    main()
