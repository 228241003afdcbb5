"""Benchmark: structured H-infinity tuning against problems with known answers (design note
section 4), with the peers measured in the same run, one BLAS thread everywhere.

1. H-infinity PID on 1/(s+1)^3: satdyn.control.systune (SQP and BFGS, 3 starts) against a
   brute-force optimum (7^3 grid + Nelder-Mead, every norm by slycot ab13dd).
2. Full-order H-infinity on random DGKF-normalised plants: systune (TunableSS, tridiagonal,
   4 starts in 2 processes) against the Riccati optimum by bisection and against
   python-control/slycot ``hinfsyn`` (value and time).
3. Tangent programs of the arm's size (75 parameters, 120-750 pieces): the exact
   active-set method on the dual against the Clarabel interior point on the primal
   (satdyn.control.qp chooses the latter above ``LARGE`` pieces): time ratio and the
   agreement of the optimal values.

Run:  PYTHONPATH=src python benchmarks/bench_tuning.py [--seeds 0 1 2]
Prints values, relative gaps to the reference and wall-time ratios (peer / satdyn).
"""

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("SATDYN_QUIET", "1")

import control  # noqa: E402
import numpy as np  # noqa: E402
import scipy.optimize  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "control"))
from dgkf import optimal_gamma, random_plant  # noqa: E402  (the tests' Riccati reference)
from test_systune import _dgkf_problem, _pid_objective_ab13dd, pid_plant, pid_weight  # noqa: E402

from satdyn.control import PID, Gain, TunableSS, TuneOptions, systune  # noqa: E402


def bench_pid():
    t = time.perf_counter()
    grid = [(kp, ki, kd) for kp in np.linspace(0.8, 2.0, 7) for ki in np.linspace(0.2, 0.8, 7)
            for kd in np.linspace(0.3, 1.0, 7)]
    vals = [_pid_objective_ab13dd(np.array(g)) for g in grid]
    res = scipy.optimize.minimize(_pid_objective_ab13dd, np.array(grid[int(np.argmin(vals))]), method="Nelder-Mead",
                                  options=dict(xatol=1e-6, fatol=1e-9, maxiter=2000))
    t_ref = time.perf_counter() - t
    print(f"PID brute force (ab13dd grid + Nelder-Mead): {res.fun:.6f} at {np.round(res.x, 4)} in {t_ref:.2f} s")
    for method in ("sqp", "bfgs"):
        t = time.perf_counter()
        r = systune(pid_plant(), [PID("K", "e", "u", Kp=1.0, Ki=0.3, Kd=0.3, Tf=0.1)],
                    soft=[Gain("r", ["e", "uo"], weight_out=pid_weight())],
                    options=TuneOptions(method=method, random_starts=2, n_jobs=1, max_iter=300))
        dt = time.perf_counter() - t
        print(f"  systune {method:4s}: {r.soft:.6f} ({100 * (r.soft / res.fun - 1):+.4f} %), starts "
              f"{[round(s.soft, 6) for s in r.starts]}, {dt:.2f} s; brute force / systune time = {t_ref / dt:.1f}x")


def bench_full_order(seeds):
    for seed in seeds:
        A, B1, B2, C1, C2 = random_plant(seed)
        t = time.perf_counter()
        gamma = optimal_gamma(A, B1, B2, C1, C2)
        t_dgkf = time.perf_counter() - t
        P, K0, goal, _, n = _dgkf_problem(seed)
        nw, nz = B1.shape[1], C1.shape[0]
        t = time.perf_counter()
        Psys = control.ss(P.A, P.B, P.C, P.D)
        _, CL, g_claimed, _ = control.hinfsyn(Psys, 1, 1)
        t_syn = time.perf_counter() - t
        g_syn = float(control.linfnorm(CL)[0])  # the closed loop's actual norm (P7)
        t = time.perf_counter()
        r = systune(P, [TunableSS("K", n, "y", "u", structure="tridiag", init=K0)], soft=[goal],
                    options=TuneOptions(random_starts=3, n_jobs=2, max_iter=400))
        dt = time.perf_counter() - t
        print(f"rand{seed} (n={n}, w={nw}, z={nz}): DGKF optimum {gamma:.6f} ({t_dgkf:.2f} s); "
              f"hinfsyn closed loop {g_syn:.6f} ({100 * (g_syn / gamma - 1):+.3f} %, claimed {g_claimed:.6f}, "
              f"{t_syn:.3f} s); "
              f"systune {r.soft:.6f} ({100 * (r.soft / gamma - 1):+.4f} %, {dt:.1f} s, starts "
              f"{[round(s.soft, 5) for s in r.starts]}); systune / hinfsyn time = {dt / t_syn:.0f}x")


def bench_tangent_qp(sizes=(120, 300, 750), parameters=75, repeats=5):
    from satdyn.control import qp

    rng = np.random.default_rng(0)
    for m in sizes:
        t_as = t_ip = 0.0
        gap = 0.0
        for _ in range(repeats):
            # a min-max tangent program like the arm's: pieces near the max, gradients of a
            # few directions plus noise (degenerate, more pieces than parameters)
            basis = rng.standard_normal((parameters, 12))
            G = basis @ rng.standard_normal((12, m)) + 0.1 * rng.standard_normal((parameters, m))
            a = -np.abs(rng.standard_normal(m)) * 0.1
            R = rng.standard_normal((parameters, parameters))
            Hinv = np.linalg.inv(R @ R.T / parameters + np.eye(parameters))
            Q = G.T @ Hinv @ G
            t = time.perf_counter()
            lam = qp.simplex_qp(0.5 * (Q + Q.T), a)
            t_as += time.perf_counter() - t
            t = time.perf_counter()
            d_ip, _ = qp._interior_point(a, G, Hinv)
            t_ip += time.perf_counter() - t
            H = np.linalg.inv(Hinv)
            d_as = -Hinv @ G @ lam
            f_as = np.max(a + G.T @ d_as) + 0.5 * d_as @ H @ d_as
            f_ip = np.max(a + G.T @ d_ip) + 0.5 * d_ip @ H @ d_ip
            gap = max(gap, abs(f_as - f_ip) / (1 + abs(f_as)))
        print(f"tangent QP, {parameters} parameters x {m} pieces: active set {1e3 * t_as / repeats:.1f} ms, "
              f"Clarabel {1e3 * t_ip / repeats:.1f} ms, active set / Clarabel time = {t_as / t_ip:.1f}x, "
              f"largest relative difference of the optimal values {gap:.1e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    parser.add_argument("--qp-only", action="store_true", help="only the tangent-program comparison")
    args = parser.parse_args()
    bench_tangent_qp()
    if args.qp_only:
        return
    bench_pid()
    bench_full_order(args.seeds)


if __name__ == "__main__":
    main()
