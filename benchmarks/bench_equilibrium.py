"""Benchmark of satdyn.equilibrium: one LFT model for every configuration vs numerical
trim + linearisation at each configuration (peers measured in the same run).

1. Build the two-link arm LFT once (angles as tan(theta/2) scheduling parameters, Table 1
   uncertain parameters), then evaluate it at N = 10,000 random configurations and
   parameter sets with ``evaluate_batch`` (A, B, C, D of each linear model).
2. Peers, one configuration at a time (the usual workflow): numerical trim (root finding on
   the forward dynamics) + central finite-difference linearisation of the non-linear arm,
   (a) with satdyn.multibody (the study's comparator) and (b) with Pinocchio's ABA (C++).
   The peers are timed on ``--peer-configs`` configurations (default 400) and their
   per-configuration time is used for the ratio (``--peer-configs 10000`` times them all).

3. The free base (arXiv:2109.00407 Fig. 1b): a random two-link arm on a buoyant free base
   (16 states; uncertain masses and buoyancy, scheduling angles), its LFT evaluated at the
   same N points vs Pinocchio's free-flyer trim (RNEA) + central differences of ABA per
   point (the tests' oracle), timed on ``--peer-configs`` points.

Run: ``PYTHONPATH=src python benchmarks/bench_equilibrium.py [--configs N] [--peer-configs M]``.
Prints per-configuration times and ratios (> 1: the LFT route is faster). Also checks that
the LFT models agree with the peers on the timed configurations.
"""

from __future__ import annotations

import os

# One BLAS thread for both contenders (as the other benchmarks): on a shared 2-core machine
# multi-threaded BLAS on many small problems only adds contention. Set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from satdyn.equilibrium import load_two_link_arm, two_link_arm_lfr
from satdyn.equilibrium.comparator import multibody_arm, multibody_trim_linearise

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "equilibrium"))


def _best(fn, repeat=3):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv=None):
    import os

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", type=int, default=10_000)
    parser.add_argument("--peer-configs", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=500,
                        help="evaluate_batch chunk size (0: the LFR core's default); 500 measured fastest here")
    args = parser.parse_args(argv)
    print(f"load average at start: {os.getloadavg()[0]:.1f} (the machine is shared; ratios are same-run)")
    rng = np.random.default_rng(args.seed)
    nominal = load_two_link_arm()

    t0 = time.perf_counter()
    model = two_link_arm_lfr(arm=nominal)
    build = time.perf_counter() - t0
    print(f"LFT model built once in {build:.2f} s: {model.plant.nstates} states, Delta {model.plant.ndelta} "
          f"({', '.join(f'{b.parameter.name}:{b.size}' for b in model.plant.blocks)})")

    n = args.configs
    ranges = nominal.parameter_ranges()
    values = {k: rng.uniform(lo, hi, n) for k, (lo, hi) in ranges.items() if k in model.plant.parameters}
    theta = rng.uniform(-np.deg2rad(170), np.deg2rad(170), (n, 2))
    values.update(theta1=theta[:, 0], theta2=theta[:, 1])
    model.plant.evaluate_batch({k: v[:10] for k, v in values.items()})  # warm-up (schedules, caches)
    chunk = args.chunk or None
    t_lfr, batch = _best(lambda: model.plant.evaluate_batch(values, chunk=chunk))
    per_lfr = t_lfr / n
    print(f"LFT evaluate_batch (chunk {chunk}) at {n} configurations: {t_lfr:.3f} s "
          f"({1e6 * per_lfr:.1f} us per configuration, "
          f"all well posed: {bool(batch.valid.all())})")

    m = min(args.peer_configs, n)
    arms = [nominal.with_values(**{k: values[k][i] for k in ranges if k in values}) for i in range(m)]

    def multibody_peer():
        out = []
        for i in range(m):
            out.append(multibody_trim_linearise(arms[i], theta[i], model=multibody_arm(arms[i])))
        return out

    t_mb, mb_out = _best(multibody_peer, repeat=1)
    per_mb = t_mb / m

    try:
        from equilibrium_oracles import pinocchio_trim_linearise
    except ImportError:  # pragma: no cover - pinocchio is a dev dependency
        pinocchio_trim_linearise = None
    if pinocchio_trim_linearise is not None:
        t_pin, pin_out = _best(lambda: [pinocchio_trim_linearise(arms[i], theta[i]) for i in range(m)], repeat=1)
        per_pin = t_pin / m
    # Agreement on the timed configurations (relative to the size of A).
    err = max(np.abs(batch.A[i] - r.A).max() / np.abs(r.A).max() for i, r in enumerate(mb_out))

    print(f"numerical trim + FD linearisation, satdyn.multibody: {1e3 * per_mb:.2f} ms per configuration "
          f"(timed on {m})")
    if pinocchio_trim_linearise is not None:
        print(f"numerical trim + FD linearisation, Pinocchio ABA:    {1e3 * per_pin:.2f} ms per configuration "
              f"(timed on {m})")
    print(f"max relative difference of A (LFT vs multibody trim + FD) on those configurations: {err:.1e}")
    print()
    print(f"ratio per configuration, LFT batch vs satdyn.multibody trim + FD: {per_mb / per_lfr:8.1f} x")
    if pinocchio_trim_linearise is not None:
        print(f"ratio per configuration, LFT batch vs Pinocchio trim + FD:        {per_pin / per_lfr:8.1f} x")
    total_lfr = build + t_lfr
    print(f"including the one-off build ({n} configurations): LFT {total_lfr:.2f} s vs multibody "
          f"{per_mb * n:.1f} s ({per_mb * n / total_lfr:.1f} x)"
          + (f", vs Pinocchio {per_pin * n:.1f} s ({per_pin * n / total_lfr:.1f} x)"
             if pinocchio_trim_linearise is not None else ""))
    free_base_case(n, args.peer_configs, chunk, args.seed)


def free_base_case(n, m, chunk, seed):
    """Section 3 of the module docstring; prints the ratio."""
    try:
        from free_base_oracles import free_arm_parameters, free_arm_tree, pinocchio_trim_linearise, random_free_arm
    except ImportError:  # pragma: no cover - pinocchio is a dev dependency
        print("free base: Pinocchio not installed, skipped")
        return
    from satdyn.equilibrium import equilibrium_lfr

    rng = np.random.default_rng(seed)
    arm = random_free_arm(rng)
    params = free_arm_parameters(arm)
    t0 = time.perf_counter()
    model = equilibrium_lfr(free_arm_tree(arm, params))
    build = time.perf_counter() - t0
    values = {k: rng.uniform(*p.range, n) for k, p in params.items()}
    model.plant.evaluate_batch({k: v[:10] for k, v in values.items()})  # warm-up
    t_lfr, batch = _best(lambda: model.plant.evaluate_batch(values, chunk=chunk))
    per_lfr = t_lfr / n
    m = min(m, n)
    points = [{k: float(v[i]) for k, v in values.items()} for i in range(m)]
    t_pin, pin_out = _best(lambda: [pinocchio_trim_linearise(arm, p, 1e-5) for p in points], repeat=1)
    per_pin = t_pin / m
    err = max(np.abs(batch.A[i] - r[1]).max() / np.abs(r[1]).max() for i, r in enumerate(pin_out))
    print()
    print(f"free base: LFT built in {build:.2f} s ({model.plant.nstates} states, Delta {model.plant.ndelta}); "
          f"evaluate_batch {1e6 * per_lfr:.1f} us per point ({n} points, all well posed: {bool(batch.valid.all())})")
    print(f"free base: Pinocchio free-flyer trim + FD linearisation {1e3 * per_pin:.2f} ms per point (timed on {m}); "
          f"max relative difference of A {err:.1e}")
    print(f"ratio per point, free-base LFT batch vs Pinocchio trim + FD:      {per_pin / per_lfr:8.1f} x "
          f"(including the build over {n} points: {per_pin * n / (build + t_lfr):.1f} x)")


if __name__ == "__main__":
    main()
