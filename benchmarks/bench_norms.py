"""Benchmark: H-infinity norm, satdyn vs a slycot ``ab13dd`` loop (one BLAS thread both sides).

Two cases, each timed for both contestants in the same run:
  * batch  — 10,000 random 20-state 2x2 systems, one batched ``hinfnorm`` call;
  * large  — 10 random 100-state 2x2 systems, one ``hinfnorm`` call per system.

Run:  PYTHONPATH=src python benchmarks/bench_norms.py [--count N] [--large-count N]
Prints both timings (wall and CPU), their ratio slycot / satdyn (> 1: satdyn faster), and the
largest relative difference of the norms.
"""

import argparse
import os
import time

# Small matrices in large batches: multi-threaded BLAS only makes the threads contend (20x
# slower on a loaded 2-core machine). One thread for both contestants, set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from slycot import ab13dd

from satdyn.robust import hinfnorm


class Batch:
    def __init__(self, A, B, C, D):
        self.A, self.B, self.C, self.D = A, B, C, D


def random_systems(count, n=20, m=2, p=2, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((count, n, n)) / np.sqrt(n)
    shift = np.linalg.eigvals(A).real.max(axis=1) + rng.uniform(0.01, 0.5, count)
    A -= shift[:, None, None] * np.eye(n)
    return A, rng.standard_normal((count, n, m)), rng.standard_normal((count, p, n)), rng.standard_normal((count, p, m))


def slycot_norms(A, B, C, D):
    n, m, p = A.shape[1], B.shape[2], C.shape[1]
    return np.array([ab13dd("C", "I", "N", "D", n, m, p, A[i], np.eye(n), B[i], C[i], D[i])[0]
                     for i in range(A.shape[0])])


def timed(function):
    t0, c0 = time.perf_counter(), time.process_time()
    out = function()
    return out, time.perf_counter() - t0, time.process_time() - c0


def report(title, ours, ref):
    (v_ours, t_ours, c_ours), (v_ref, t_ref, c_ref) = ours, ref
    rel = np.abs(v_ours - v_ref) / v_ref
    print(title)
    print("                               wall [s]   CPU [s]")
    print(f"  satdyn hinfnorm            : {t_ours:8.3f}  {c_ours:8.3f}")
    print(f"  slycot ab13dd loop         : {t_ref:8.3f}  {c_ref:8.3f}")
    print(f"  ratio slycot / satdyn      : {t_ref / t_ours:8.2f}  {c_ref / c_ours:8.2f}")
    print(f"  max relative difference    : {rel.max():.2e}  (median {np.median(rel):.1e})")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=10_000, help="systems in the batch case")
    parser.add_argument("--large-count", type=int, default=10, help="systems in the large case")
    args = parser.parse_args()
    A, B, C, D = random_systems(args.count)
    # warm-up (numba's cached kernels load on first use; slycot's first call likewise)
    hinfnorm(Batch(A[:2], B[:2], C[:2], D[:2]))
    slycot_norms(A[:1], B[:1], C[:1], D[:1])
    ours = timed(lambda: hinfnorm(Batch(A, B, C, D)).value)
    ref = timed(lambda: slycot_norms(A, B, C, D))
    report(f"H-inf of {args.count} random 20-state 2x2 systems (one batched call)", ours, ref)

    A, B, C, D = random_systems(args.large_count, n=100, seed=1)
    ours = timed(lambda: np.array([hinfnorm(Batch(A[i], B[i], C[i], D[i])).value
                                   for i in range(args.large_count)]))
    ref = timed(lambda: slycot_norms(A, B, C, D))
    report(f"H-inf of {args.large_count} random 100-state 2x2 systems (one call per system)", ours, ref)


if __name__ == "__main__":
    main()
