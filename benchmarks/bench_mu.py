"""Benchmark: mu bounds over 200 frequencies, ~20 states, 10 repeated real parameters (Delta 60x60).

Compares, on the same matrices M(jw):
1. satdyn ``mussv`` (D-G descent, all frequencies at once) vs the cvxpy LMI formulation of the
   same D-G upper bound (Clarabel, bisection on beta to 1e-4). The LMI is timed on a few
   frequencies (``--lmi-frequencies``) and its time per frequency is extrapolated to the
   whole sweep; the bounds are compared on those frequencies.
2. satdyn vs slycot ``ab13md`` on a non-repeated structure where ab13md applies (the same
   60 channels as 60 independent 1x1 real scalars), all 200 frequencies.

Run:  PYTHONPATH=src /work/.venv/bin/python benchmarks/bench_mu.py
"""

import argparse
import functools
import os
import time

# Small matrices in large batches: multi-threaded BLAS only makes the threads contend (20x
# slower on a loaded 2-core machine). One thread for both contestants, set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from slycot import ab13md

from satdyn.robust import lmi_upper_bound, mussv, real_block


print = functools.partial(print, flush=True)  # noqa: A001 - progress of a long run


def test_system(n=20, parameters=10, repeat=6, seed=1):
    """Synthetic stable 20-state system with light modes; Delta channels B1 (n, 60), C1 (60, n)."""
    rng = np.random.default_rng(seed)
    A = np.zeros((n, n))
    freqs = np.geomspace(0.5, 20, n // 2)
    for i, w in enumerate(freqs):
        zeta = rng.uniform(0.01, 0.1)
        A[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[0, 1], [-w * w, -2 * zeta * w]]
    T = np.eye(n) + 0.1 * rng.standard_normal((n, n))  # mix the modes
    A = T @ A @ np.linalg.inv(T)
    nd = parameters * repeat
    B1 = 0.3 * rng.standard_normal((n, nd))
    C1 = 0.3 * rng.standard_normal((nd, n))
    return A, B1, C1


class Timer:
    """Wall-clock and process CPU time (the machine may be shared: CPU time is the fairer figure)."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frequencies", type=int, default=200)
    parser.add_argument("--lmi-frequencies", type=int, default=2, help="LMI checks besides the peak")
    parser.add_argument("--lmi-tol", type=float, default=1e-4, help="relative bisection tolerance of the LMI")
    args = parser.parse_args()
    A, B1, C1 = test_system()
    n = A.shape[0]
    w = np.geomspace(0.1, 100, args.frequencies)
    M = C1 @ np.linalg.solve(1j * w[:, None, None] * np.eye(n) - A, B1)  # (F, 60, 60)
    blocks = [real_block(6)] * 10
    print(f"M: {M.shape[0]} frequencies x {M.shape[1]}x{M.shape[2]}; 10 repeated real parameters (6x each)")

    with Timer() as t_upper:
        upper_only = mussv(M, blocks, lower=False)
    with Timer() as t_both:
        both = mussv(M, blocks)
    print("                                     wall [s]   CPU [s]")
    print(f"satdyn mussv upper bound          : {t_upper.wall:8.2f}  {t_upper.cpu:8.2f}  (peak {upper_only.upper.max():.6f})")
    print(f"satdyn mussv upper + lower bounds : {t_both.wall:8.2f}  {t_both.cpu:8.2f}  (peak lower {both.lower.max():.6f},"
          f" lower > 0 at {np.count_nonzero(both.lower)} of {len(w)} frequencies)")

    scalar_blocks = [real_block(1)] * M.shape[1]
    with Timer() as t_ours_scalar:
        ours_scalar = mussv(M, scalar_blocks, lower=False).upper
    nblock = np.ones(M.shape[1], dtype=int)
    itype = np.ones(M.shape[1], dtype=int)
    with Timer() as t_ab:
        ref = np.array([ab13md(Mi, nblock, itype)[0] for Mi in M])
    rel = (ours_scalar - ref) / ref
    print(f"\nNon-repeated structure (60 real 1x1 scalars), {len(w)} frequencies:  wall [s]   CPU [s]")
    print(f"satdyn mussv upper bound          : {t_ours_scalar.wall:8.2f}  {t_ours_scalar.cpu:8.2f}  (peak {ours_scalar.max():.6f})")
    print(f"slycot ab13md loop                : {t_ab.wall:8.2f}  {t_ab.cpu:8.2f}  (peak {ref.max():.6f})")
    print(f"ratio ab13md / satdyn             : wall {t_ab.wall / t_ours_scalar.wall:8.2f}   CPU {t_ab.cpu / t_ours_scalar.cpu:8.2f}")
    print(f"satdyn - ab13md, relative         : min {rel.min():+.2e}  max {rel.max():+.2e}  (negative = satdyn tighter)")

    pick = np.linspace(0, len(w) - 1, args.lmi_frequencies + 2).astype(int)[1:-1]
    peak = int(np.argmax(upper_only.upper))
    pick = np.r_[peak, pick[pick != peak]]  # the peak first: it is the number that matters
    lmi = []
    with Timer() as t_lmi:
        for i in pick:
            with Timer() as one:
                lmi.append(lmi_upper_bound(M[i], blocks, tol=args.lmi_tol))
            print(f"  LMI at w = {w[i]:.4f}: {lmi[-1]:.8f} (satdyn {upper_only.upper[i]:.8f}),"
                  f" wall {one.wall:.1f} s, CPU {one.cpu:.1f} s")
    lmi = np.array(lmi)
    ours = upper_only.upper[pick]
    print("\nD-G upper bound at the LMI check frequencies:")
    print("   w [rad/s]      satdyn         LMI (cvxpy)    rel. diff")
    for i, a, b in zip(pick, ours, lmi):
        print(f"  {w[i]:9.4f}  {a:14.8f}  {b:14.8f}  {(a - b) / b:+.2e}")
    per_wall, per_cpu = t_lmi.wall / len(pick), t_lmi.cpu / len(pick)
    print(f"LMI per frequency (wall, CPU)     : {per_wall:8.2f}  {per_cpu:8.2f}  -> x {len(w)} frequencies (extrapolated):"
          f" {per_wall * len(w):8.1f}  {per_cpu * len(w):8.1f}")
    print(f"ratio LMI / satdyn, upper bound   : wall {per_wall * len(w) / t_upper.wall:8.1f}   CPU {per_cpu * len(w) / t_upper.cpu:8.1f}")


if __name__ == "__main__":
    main()
