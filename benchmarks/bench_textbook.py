"""Benchmark: textbook robust-stability problems with published answers (issue 16, item 3).

For each problem of ``satdyn.examples.textbook`` (written entry by entry, as a user would):

* the published answer beside satdyn's (``satdyn.robust.robust_stability``: lower and
  upper bound of the margin, critical frequency);
* the Delta channel counts: without the automatic simplification (``auto_simplify(False)``),
  as built, and after the full ``reduce``;
* the time per call of ``robust_stability`` (median of ``--repeat`` calls);
* the same analysis by the cvxpy LMI route: the D-G mu upper bound ``lmi_upper_bound``
  (Clarabel) of ``M(jw) = D_zw + C_z (jw I - A)^-1 B_w`` on a frequency grid (``--grid``
  log-spaced points over the decades around the poles, plus satdyn's critical frequency, so
  the grid cannot miss the peak), margin = 1 / max mu; and the time ratio LMI / satdyn.

Both contestants run with one BLAS thread, in the same process.

Run:  PYTHONPATH=src python benchmarks/bench_textbook.py [--repeat 3] [--grid 30] [--problems NAME ...]
"""

import argparse
import functools
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from satdyn.examples import textbook
from satdyn.lfr import auto_simplify, reduce
from satdyn.robust import lmi_upper_bound, real_block, robust_stability

print = functools.partial(print, flush=True)  # noqa: A001 - progress of a long run

BUILDERS = [textbook.two_mass_servo, textbook.two_mass_servo_entries, textbook.two_mass_servo_second_order,
            textbook.uncertain_damping, textbook.margin_loop_gain, textbook.allmargin_loop_gain,
            textbook.routh_third_order_loop, textbook.routh_nonminimum_phase_loop]


def delta_response(lfr, omega):
    """M(jw) = D_zw + C_z (jw I - A)^-1 B_w for each frequency: (nw, nd, nd) complex."""
    nd, nx = lfr.ndelta, lfr.nstates
    A, Bw, Cz, Dzw = lfr.A, lfr.B[:, :nd], lfr.C[:nd], lfr.D[:nd, :nd]
    out = np.empty((len(omega), nd, nd), dtype=complex)
    for i, w in enumerate(omega):
        out[i] = Dzw + Cz @ np.linalg.solve(1j * w * np.eye(nx) - A, Bw)
    return out


def lmi_route(lfr, omega):
    blocks = [real_block(b.size) for b in lfr.blocks]
    mu = [lmi_upper_bound(M, blocks) for M in delta_response(lfr, omega)]
    peak = int(np.argmax(mu))
    # Purely real uncertainty: mu is 0 off the crossing frequency (MATLAB's "Getting
    # Reliable Estimates of Robustness Margins"), so a grid can report an infinite margin.
    return (1.0 / mu[peak] if mu[peak] > 0 else np.inf), omega[peak]


def grid_for(lfr, critical, points):
    poles = np.abs(np.linalg.eigvals(lfr.nominal().A))
    poles = poles[poles > 0]
    lo, hi = np.log10(poles.min()) - 1, np.log10(poles.max()) + 1
    grid = np.logspace(lo, hi, points)
    return np.unique(np.r_[grid, critical]) if np.isfinite(critical) and critical > 0 else grid


def timed(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return out, float(np.median(times))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="calls per timing (median)")
    parser.add_argument("--grid", type=int, default=30, help="frequencies of the LMI route")
    parser.add_argument("--problems", nargs="*", default=None, help="names to run (default: all)")
    args = parser.parse_args(argv)
    builders = [b for b in BUILDERS if args.problems is None or b.__name__ in args.problems]

    print(f"{'problem':30s} {'published':>17s} {'satdyn [lower, upper]':>24s} {'w_c pub':>9s} {'w_c':>9s} "
          f"{'raw/built/reduce':>16s} {'t satdyn':>9s} {'LMI margin':>10s} {'t LMI':>8s} {'ratio':>6s}")
    for build in builders:
        problem = build()
        with auto_simplify(False):
            raw = build().lfr.ndelta
        lfr, pub = problem.lfr, problem.published
        result, t_satdyn = timed(lambda lfr=lfr: robust_stability(lfr), args.repeat)
        omega = grid_for(lfr, result.critical_frequency, args.grid)
        (lmi_margin_value, _), t_lmi = timed(lambda lfr=lfr, omega=omega: lmi_route(lfr, omega), 1)
        published = f"{pub.lower:.4f}" if pub.lower == pub.upper else f"[{pub.lower:.4f}, {pub.upper:.4f}]"
        w_pub = "-" if pub.critical_frequency is None else f"{pub.critical_frequency:.4f}"
        counts = f"{raw}/{lfr.ndelta}/{reduce(lfr).ndelta}"
        print(f"{problem.name:30s} {published:>17s} [{result.lower:9.4f}, {result.upper:9.4f}] {w_pub:>9s} "
              f"{result.critical_frequency:9.4f} {counts:>16s} {t_satdyn:8.3f}s {lmi_margin_value:10.4f} "
              f"{t_lmi:7.2f}s {t_lmi / t_satdyn:5.1f}x")
    print("\nratio = time of the LMI route on the grid / time of one robust_stability call (one BLAS thread).")
    print("Sources of the published answers: satdyn.examples.textbook (module docstring).")


if __name__ == "__main__":
    main()
