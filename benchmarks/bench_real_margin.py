"""Benchmark: real-parameter robust stability margins on mass-spring-damper chains.

The family of ``tests/robust/test_real_margin.py`` (seeded random chains of 2-4 masses,
2-4 uncertain masses / stiffnesses / dampers, static and first-order non-collocated
controllers, and the three-mass chain of issue 25). For each chain:

- satdyn ``robust_stability`` on the LFR written entry by entry (CPU and wall time per call;
  the issue asks for a median under 1 s on 2 cores);
- the peer: the brute-force search of the test (numpy eigenvalues on rays to a dense grid of
  the box surface, bisection, Nelder-Mead on the direction), measured in the same run;
- the bracket [lower, upper], upper / lower, and whether it contains the brute-force margin.

Prints one line per chain, then the medians and the time ratio peer / satdyn.

Run:  PYTHONPATH=src python benchmarks/bench_real_margin.py [--chains 36] [--no-peer]
"""

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "robust"))

from chain_systems import THREE_MASS, brute_force_margin, chain_lfr, random_chain

from satdyn.robust import robust_stability


def timed(function, *args):
    wall, cpu = time.perf_counter(), time.process_time()
    out = function(*args)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chains", type=int, default=36, help="random chains (seeds 0..n-1)")
    parser.add_argument("--no-peer", action="store_true", help="skip the brute-force reference")
    args = parser.parse_args()
    chains = [("issue-25 three-mass", THREE_MASS)] + [(f"seed {s}", random_chain(s)) for s in range(args.chains)]
    rows = []
    print(f"{'chain':>20} {'N':>2} {'p':>2} {'ctrl':>7} {'lower':>10} {'upper':>10} {'up/lo':>7} "
          f"{'w_crit':>8} {'cpu s':>6} {'wall s':>6} {'ref':>10} {'in':>3} {'peer cpu':>8}")
    for label, chain in chains:
        lfr = chain_lfr(chain)
        result, wall, cpu = timed(robust_stability, lfr)
        ref, peer_cpu, inside = np.nan, np.nan, ""
        if not args.no_peer:
            (ref, _), _, peer_cpu = timed(brute_force_margin, chain)
            inside = "yes" if result.lower <= ref * (1 + 1e-9) and result.upper >= ref * (1 - 1e-6) else "NO"
        ratio = result.upper / result.lower
        rows.append((cpu, wall, ratio, peer_cpu, inside))
        print(f"{label:>20} {chain.n:>2} {len(chain.uncertain):>2} "
              f"{'dynamic' if chain.tau is not None else 'static':>7} {result.lower:10.6f} {result.upper:10.6f} "
              f"{ratio:7.4f} {result.critical_frequency:8.4f} {cpu:6.2f} {wall:6.2f} {ref:10.6f} {inside:>3} "
              f"{peer_cpu:8.2f}", flush=True)
    cpu, wall, ratio, peer, inside = (np.array(c) for c in zip(*rows))
    print(f"\nrobust_stability: median CPU {np.median(cpu):.3f} s, median wall {np.median(wall):.3f} s, "
          f"max CPU {np.max(cpu):.3f} s over {len(rows)} chains")
    print(f"upper / lower: median {np.median(ratio):.5f}, max {np.max(ratio):.5f}")
    if not args.no_peer:
        print(f"brute force (peer): median CPU {np.median(peer):.3f} s; ratio peer / satdyn "
              f"{np.median(peer) / np.median(cpu):.1f}; bracket contains the reference on "
              f"{int(np.sum(inside == 'yes'))} / {len(rows)}")


if __name__ == "__main__":
    main()
