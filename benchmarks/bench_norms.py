"""Benchmark: H-infinity norm of 10,000 random 20-state systems, satdyn batched vs a slycot loop.

Run:  PYTHONPATH=src /work/.venv/bin/python benchmarks/bench_norms.py [--count N]
Prints both timings, their ratio, and the largest relative difference of the norms.
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


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=10_000)
    args = parser.parse_args()
    A, B, C, D = random_systems(args.count)
    n, m, p = A.shape[1], B.shape[2], C.shape[1]
    # warm-up (numba's cached kernels load on first use; slycot's first call likewise)
    hinfnorm(Batch(A[:2], B[:2], C[:2], D[:2]))
    ab13dd("C", "I", "N", "D", n, m, p, A[0], np.eye(n), B[0], C[0], D[0])
    t0, c0 = time.perf_counter(), time.process_time()
    ours = hinfnorm(Batch(A, B, C, D)).value
    t_ours, c_ours = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    ref = np.array([ab13dd("C", "I", "N", "D", n, m, p, A[i], np.eye(n), B[i], C[i], D[i])[0]
                    for i in range(args.count)])
    t_ref, c_ref = time.perf_counter() - t0, time.process_time() - c0
    rel = np.abs(ours - ref) / ref
    print(f"H-inf of {args.count} random {n}-state {p}x{m} systems")
    print("                               wall [s]   CPU [s]")
    print(f"  satdyn hinfnorm (batched) : {t_ours:8.2f}  {c_ours:8.2f}")
    print(f"  slycot ab13dd loop        : {t_ref:8.2f}  {c_ref:8.2f}")
    print(f"  ratio slycot / satdyn     : {t_ref / t_ours:8.2f}  {c_ref / c_ours:8.2f}")
    print(f"  max relative difference   : {rel.max():.2e}  (median {np.median(rel):.1e})")


if __name__ == "__main__":
    main()
