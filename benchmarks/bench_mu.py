"""Benchmark: the mu upper bound converged to the D-G optimum, per frequency, vs the cvxpy LMI.

Default (a few minutes): per-frequency CPU time of the D-G bound converged to 1e-3 at
Delta = 4, 10, 20 and 60 channels (repeated real parameters; M = the frequency response of
``test_system`` cut to the channels, at its largest resonance), satdyn ``mussv(refine=True)``
on one frequency and per frequency of a 20-frequency sweep, against cvxpy (Clarabel) bisecting
the same LMI to 1e-3 from [0, ||M||] (``lmi_upper_bound``). The bounds must agree to 1e-3.
At 60 channels one LMI solve takes minutes: the LMI time there is ONE solve (the margin
s*(beta (1 - 1e-3)) > 0, which also shows the two optima agree to 1e-3) times the bisection
steps, i.e. extrapolated.

``--sweep``: the full study below (takes long: the 60x60 LMI solve, 200 frequencies).
Compares, on the same matrices M(jw):
1. satdyn ``mussv``: the fast descent on all frequencies (``refine=False``), the default
   (``refine="peak"``: the largest bounds converged by the method of centres), and the
   converged bound's cost per frequency.
2. The cvxpy LMI of the same D-G bound (Clarabel) at the peak (and ``--lmi-frequencies``
   more): satdyn's own D, G are checked to satisfy the LMI at satdyn's bound beta, and the LMI's
   optimal margin s*(beta (1 - 1e-3)) > 0 shows no D, G does better by 1e-3: the two optima are
   equal to 1e-3. The LMI's time for the bound to 1e-3 is one solve times the
   bisection steps from [0, ||M||] to 1e-3 (extrapolated: a bisection at 60 x 60 takes hours).
3. satdyn vs slycot ``ab13md`` on a non-repeated structure where ab13md applies (the same
   60 channels as 60 independent 1x1 real scalars), all 200 frequencies.

Run:  PYTHONPATH=src python benchmarks/bench_mu.py [--sweep]
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

from satdyn.robust import lmi_margin, lmi_upper_bound, mussv, real_block


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


def certificate_residual(M, Dz, G, beta):
    """lambda_max(M^H Dz M + j(G M - M^H G^H) - beta^2 Dz) / (beta^2 ||Dz||): <= 0 certifies beta."""
    MH = M.conj().T
    lmi = MH @ Dz @ M + 1j * (G @ M - MH @ G.conj().T) - beta**2 * Dz
    top = np.linalg.eigvalsh(0.5 * (lmi + lmi.conj().T))[-1]
    return top / (beta**2 * np.linalg.norm(Dz, 2))


class Timer:
    """Wall-clock and process CPU time (the machine may be shared: CPU time is the fairer figure)."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


SIZES = ((4, 2, 2), (10, 2, 5), (20, 2, 10), (60, 6, 10))   # (channels, repeat, parameters)


def per_size(repeats=3):
    """Per-frequency CPU time of the converged D-G bound vs the cvxpy LMI, at 4 to 60 channels."""
    A, B1, C1 = test_system()
    n = A.shape[0]
    w = np.geomspace(0.3, 30, 20)
    print("channels  structure   satdyn 1 freq [ms]  satdyn sweep [ms/freq]  LMI to 1e-3 [ms]   ratio (1 freq, sweep)"
          "   beta satdyn   beta LMI     rel. diff")
    for channels, repeat, parameters in SIZES:
        blocks = [real_block(repeat)] * parameters
        M = C1[:channels] @ np.linalg.solve(1j * w[:, None, None] * np.eye(n) - A, B1[:, :channels])
        peak = int(np.argmax(mussv(M, blocks, lower=False, refine=False).upper))
        one = M[peak:peak + 1]
        times = []
        for _ in range(1 if channels >= 60 else repeats):
            with Timer() as t_one:
                ours = mussv(one, blocks, lower=False, refine=True)
            times.append(t_one.cpu)
        beta = float(ours.upper[0])
        with Timer() as t_sweep:
            mussv(M, blocks, lower=False, refine=True)
        if channels < 60:
            with Timer() as t_lmi:
                lmi = lmi_upper_bound(one[0], blocks, tol=1e-3)
            lmi_cpu, extrapolated = t_lmi.cpu, ""
        else:
            # one solve: the LMI's optimal margin at beta (1 - 1e-3) > 0 means no (D, G) proves
            # beta (1 - 1e-3); satdyn's certificate proves beta: the optima agree to 1e-3
            with Timer() as t_lmi:
                margin, _ = lmi_margin(one[0], blocks, beta * (1 - 1e-3), similarity=ours.scalings.Dz[0])
            steps = int(np.ceil(np.log2(np.linalg.norm(one[0], 2) / (1e-3 * beta))))
            lmi_cpu = t_lmi.cpu * steps
            lmi = beta * (1 - 1e-3) if margin > 0 else float("nan")
            extrapolated = f"  (extrapolated: 1 solve x {steps} steps; s* = {margin:+.2e})"
        one_ms, sweep_ms = 1e3 * min(times), 1e3 * t_sweep.cpu / len(w)
        print(f"{channels:8d}  {parameters:2d} x real({repeat})  {one_ms:12.1f}  {sweep_ms:20.1f}"
              f"  {1e3 * lmi_cpu:18.0f}"
              f"   {lmi_cpu * 1e3 / one_ms:8.1f} {lmi_cpu * 1e3 / sweep_ms:8.1f}   {beta:11.6f}  {lmi:11.6f}"
              f"  {(beta - lmi) / lmi:+.1e}{extrapolated}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sweep", action="store_true", help="the full 200-frequency study (long)")
    parser.add_argument("--frequencies", type=int, default=200)
    parser.add_argument("--lmi-frequencies", type=int, default=0, help="LMI checks besides the peak")
    parser.add_argument("--ab13md-frequencies", type=int, default=10, help="frequencies of the ab13md comparison")
    args = parser.parse_args()
    if not args.sweep:
        per_size()
        return
    A, B1, C1 = test_system()
    n = A.shape[0]
    w = np.geomspace(0.1, 100, args.frequencies)
    M = C1 @ np.linalg.solve(1j * w[:, None, None] * np.eye(n) - A, B1)  # (F, 60, 60)
    blocks = [real_block(6)] * 10
    print(f"M: {M.shape[0]} frequencies x {M.shape[1]}x{M.shape[2]}; 10 repeated real parameters (6x each)")

    with Timer() as t_fast:
        fast = mussv(M, blocks, lower=False, refine=False)
    with Timer() as t_upper:
        upper_only = mussv(M, blocks, lower=False)  # refine="peak"
    with Timer() as t_both:
        both = mussv(M, blocks)
    refined = upper_only.upper < fast.upper
    print("                                     wall [s]   CPU [s]")
    print(f"satdyn fast descent (refine=False): {t_fast.wall:8.2f}  {t_fast.cpu:8.2f}  (peak {fast.upper.max():.6f})")
    print(f"satdyn mussv upper bound (default): {t_upper.wall:8.2f}  {t_upper.cpu:8.2f}"
          f"  (peak {upper_only.upper.max():.6f}, {np.count_nonzero(refined)} frequencies refined)")
    print(f"satdyn mussv upper + lower bounds : {t_both.wall:8.2f}  {t_both.cpu:8.2f}"
          f"  (peak lower {both.lower.max():.6f}, lower > 0 at {np.count_nonzero(both.lower)} of {len(w)} frequencies)")

    pick = np.linspace(0, len(w) - 1, args.lmi_frequencies + 2).astype(int)[1:-1]
    peak = int(np.argmax(upper_only.upper))
    pick = np.r_[peak, pick[pick != peak]]  # the peak first: it is the number that matters
    with Timer() as t_conv:
        conv = mussv(M[pick], blocks, lower=False, refine=True)
    per_ours = t_conv.cpu / len(pick) + t_fast.cpu / len(w)
    print(f"\nConverged D-G bound (refine=True) at {len(pick)} frequencies: {t_conv.wall:.1f} s wall,"
          f" {t_conv.cpu:.1f} s CPU -> {per_ours:.2f} s CPU per frequency (descent included)")
    print("   w [rad/s]   satdyn fast    satdyn conv.  own certificate at b  LMI s*(b(1-1e-3))  CPU of the LMI solve")
    solve_cpu = []
    for k, i in enumerate(pick):
        beta = conv.dg_upper[k]  # the bound certified by the D-G scalings
        # upper side: satdyn's own (D, G) satisfy the LMI at beta (largest eigenvalue <= 0,
        # relative to beta^2 ||D||), so the LMI optimum is <= beta without a solver
        residual = certificate_residual(M[i], conv.scalings.Dz[k], conv.scalings.G[k], beta)
        # lower side: s*(beta (1 - 1e-3)) > 0 proves no D, G certifies beta (1 - 1e-3)
        with Timer() as one:
            margin, status = lmi_margin(M[i], blocks, beta * (1 - 1e-3), similarity=conv.scalings.Dz[k])
        solve_cpu.append(one.cpu)
        print(f"  {w[i]:9.4f}  {fast.upper[i]:12.6f}  {beta:12.6f}   {residual:+.2e}           "
              f"{margin:+.3e} {status[:8]:8s}  {one.cpu:8.1f} s")
    steps = int(np.ceil(np.log2(np.linalg.norm(M[peak], 2) / (1e-3 * conv.dg_upper[0]))))
    per_lmi = float(np.mean(solve_cpu)) * steps
    print("certificate <= 0 and s* > 0: the LMI optimum lies in [b (1 - 1e-3), b], equal to satdyn's to 1e-3.")
    print(f"LMI to 1e-3 by bisection from [0, ||M||]: {steps} solves x {np.mean(solve_cpu):.1f} s = {per_lmi:.0f} s CPU"
          f" per frequency (extrapolated)")
    print(f"ratio LMI / satdyn at equal bound (1e-3), per frequency, CPU: {per_lmi / per_ours:8.1f}")
    print(f"whole sweep: LMI {per_lmi * len(w):.0f} s vs satdyn default (peak converged) {t_upper.cpu:.1f} s:"
          f" {per_lmi * len(w) / t_upper.cpu:.0f}x; vs satdyn refine=True (extrapolated) {per_ours * len(w):.0f} s:"
          f" {per_lmi / per_ours:.0f}x")

    scalar_blocks = [real_block(1)] * M.shape[1]
    M = M[np.linspace(0, len(w) - 1, args.ab13md_frequencies).astype(int)]  # ab13md: ~17 s each
    with Timer() as t_ours_scalar:
        ours_scalar = mussv(M, scalar_blocks, lower=False).upper
    nblock = np.ones(M.shape[1], dtype=int)
    itype = np.ones(M.shape[1], dtype=int)
    with Timer() as t_ab:
        ref = np.array([ab13md(Mi, nblock, itype)[0] for Mi in M])
    rel = (ours_scalar - ref) / ref
    print(f"\nNon-repeated structure (60 real 1x1 scalars), {M.shape[0]} frequencies:  wall [s]   CPU [s]")
    print(f"satdyn mussv upper bound          : {t_ours_scalar.wall:8.2f}  {t_ours_scalar.cpu:8.2f}"
          f"  (peak {ours_scalar.max():.6f})")
    print(f"slycot ab13md loop                : {t_ab.wall:8.2f}  {t_ab.cpu:8.2f}  (peak {ref.max():.6f})")
    print(f"ratio ab13md / satdyn             : wall {t_ab.wall / t_ours_scalar.wall:8.2f}"
          f"   CPU {t_ab.cpu / t_ours_scalar.cpu:8.2f}")
    print(f"satdyn - ab13md, relative         : min {rel.min():+.2e}  max {rel.max():+.2e}"
          "  (negative = satdyn tighter)")


if __name__ == "__main__":
    main()
