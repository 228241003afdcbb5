"""Benchmark of the assembly planner's edge costs (paper 000, arXiv:2409.06017, section 3).

Measures, one BLAS thread everywhere:

1. satdyn per frozen closed loop (build + close + the four metrics) against a
   python-control + slycot loop computing the same four metrics on the same closed loops
   (``control.norm`` -> SLICOT AB13DD / AB13BD for the norms; ``slycot.ab13md`` on the same
   frequency grid for mu, with the repeated scalar split into two independent real scalars
   since AB13MD takes only 1x1 real blocks): the ratio of per-loop times;
2. loops/s with 1 and 2 local worker processes and with a Dask LocalCluster of 2 workers
   on one sample of half-edges (same answers checked bit for bit);
3. the price of batch independence: the half-edges of one node model evaluated one batch
   per half (what the planner does: a half's metrics never depend on its neighbours)
   against one batch of all their waypoints (faster, but the last bits of a half's metrics
   then depend on the batch), and how many of those halves differ;
4. the projected time of the whole plan (8672 edges x 14 = 121,408 closed loops x 4 costs)
   from the measured rate, or the real run with ``--full``.

Usage: python benchmarks/bench_assembly.py [--sample N] [--peer-loops N] [--full]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from satdyn.missions.assembly import HalfEdgeEvaluator, assemble_graph, evaluate_halves, tile_layout  # noqa: E402
from satdyn.missions.assembly.closedloop import closed_loop  # noqa: E402
from satdyn.missions.assembly.costs import grid_metrics  # noqa: E402
from satdyn.runtime import limit_blas_threads, quiet  # noqa: E402

TOTAL_LOOPS = 8672 * 14


def _sample_halves(count):
    g = assemble_graph(tile_layout(), 27)
    halves = [h for _, _, d in g.edges(data=True) for h in d["spec"].halves]
    step = max(1, len(halves) // count)
    return halves[::step][:count]


def _peer_metrics(cl, ch, grids):
    """python-control + slycot: the four metrics of each closed loop, one system at a time."""
    import control
    from slycot import ab13md

    out = []
    for i in range(cl.A.shape[0]):
        A, B, C, D = cl.A[i], cl.B[i], cl.C[i], cl.D[i]
        hinf = control.norm(control.ss(A, B[:, ch.W], C[ch.omega_dot], D[ch.omega_dot, ch.W]), "inf")
        h2 = control.norm(control.ss(A, B[:, ch.W], C[ch.theta], D[ch.theta, ch.W]), 2)
        si = control.norm(control.ss(A, B[:, ch.d], C[ch.e], D[ch.e, ch.d]), "inf")
        Bw, Cz, Dzw = B[:, ch.w], C[ch.z], D[ch.z, ch.w]
        mu = 0.0
        for w in grids[i]:
            M = Cz @ np.linalg.solve(1j * w * np.eye(A.shape[0]) - A, Bw) + Dzw
            bound = ab13md(np.asfortranarray(M), np.array([1, 1]), np.array([1, 1]))[0]
            mu = max(mu, bound)
        out.append((hinf, h2, si, mu))
    return np.array(out)


def bench_peer(evaluator, halves, loops):
    from satdyn.robust import modal_frequency_grid

    ctl = evaluator.get_controller()
    h = halves[0]
    reps = max(1, loops // 7)
    angles = np.concatenate([evaluator.poses.half_edge(h)] * reps)
    plant, pch = evaluator.models.frozen(h.model_key, angles)
    cl, ch = closed_loop(plant, pch, ctl)
    t = time.perf_counter()
    ours = grid_metrics(cl, ch)
    t_ours = time.perf_counter() - t
    grids = [modal_frequency_grid(cl.A[i], 30) for i in range(cl.A.shape[0])]
    t = time.perf_counter()
    peer = _peer_metrics(cl, ch, grids)
    t_peer = time.perf_counter() - t
    n = cl.A.shape[0]
    print(f"per closed loop, {n} loops of node {h.model_key} ({cl.A.shape[1]} states):")
    print(f"  satdyn (batched H-inf, H2, S_i, certified mu) {1e3 * t_ours / n:8.2f} ms")
    print(f"  python-control + slycot (AB13DD, AB13MD)      {1e3 * t_peer / n:8.2f} ms")
    print(f"  ratio peer / satdyn                           {t_peer / t_ours:8.2f} x")
    for k, name in enumerate(("hinf_wrench", "h2_wrench", "hinf_sensitivity")):
        err = np.max(np.abs(peer[:, k] - ours.values[name]) / np.abs(peer[:, k]))
        print(f"  {name:<18} max relative difference {err:.1e}")
    print(f"  mu: satdyn (repeated real 2x2, D-G) max {ours.values['mu'].max():.4f}; AB13MD with two "
          f"independent reals (conservative) max {peer[:, 3].max():.4f}")


def bench_batching(evaluator, count=24):
    """One batch per half (HalfEdgeEvaluator.evaluate) vs one batch of all waypoints."""
    g = assemble_graph(tile_layout(), 27)
    groups = {}
    for _, _, d in g.edges(data=True):
        for h in d["spec"].halves:
            groups.setdefault(h.model_key, []).append(h)
    key, halves = max(groups.items(), key=lambda kv: len(kv[1]))
    halves = list(dict.fromkeys(halves))[:count]
    ctl = evaluator.get_controller()
    evaluator.models.split(key)
    z = evaluator.poses.z

    def one_batch():
        plant, pch = evaluator.models.frozen(key, np.concatenate([evaluator.poses.half_edge(h) for h in halves]))
        cl, ch = closed_loop(plant, pch, ctl)
        return grid_metrics(cl, ch, evaluator.costs)

    one_batch()
    timings = {"per half": [], "one batch": []}
    for _ in range(3):
        t = time.perf_counter()
        per_half = evaluator.evaluate(halves)
        timings["per half"].append(time.perf_counter() - t)
        t = time.perf_counter()
        batch = one_batch()
        timings["one batch"].append(time.perf_counter() - t)
    t_half, t_batch = min(timings["per half"]), min(timings["one batch"])
    differ = sum(any(not np.array_equal(m.values[c], batch.values[c][k * z:(k + 1) * z]) for c in evaluator.costs)
                 for k, m in enumerate(per_half))
    n = len(halves) * z
    print(f"{len(halves)} half-edges of node {key} ({n} closed loops x 4 costs), best of 3:")
    print(f"  one batch per half (the planner)   {1e3 * t_half / n:8.2f} ms per loop")
    print(f"  one batch of all waypoints         {1e3 * t_batch / n:8.2f} ms per loop")
    print(f"  ratio per-half / one-batch          {t_half / t_batch:8.2f} x; halves whose metrics differ in the "
          f"last bits: {differ} of {len(halves)}")


def bench_engines(evaluator, halves):
    loops = 7 * len(halves)
    rates, answers = {}, {}
    for name, kw in (("1 worker", dict(workers=1)), ("2 workers", dict(workers=2))):
        t = time.perf_counter()
        res, _ = evaluate_halves(evaluator, halves, task_size=4, **kw)
        rates[name] = loops / (time.perf_counter() - t)
        answers[name] = res
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.run(lambda: None)
        t = time.perf_counter()
        res, _ = evaluate_halves(evaluator, halves, task_size=4, scheduler=client)
        rates["Dask LocalCluster(2)"] = loops / (time.perf_counter() - t)
        answers["Dask LocalCluster(2)"] = res
    ref = answers["1 worker"]
    same = all(np.array_equal(r[h].values[c], ref[h].values[c]) for r in answers.values() for h in ref
               for c in evaluator.costs)
    print(f"{loops} closed loops x 4 costs ({len(halves)} half-edges of Q_27):")
    for name, rate in rates.items():
        print(f"  {name:<22} {rate:8.1f} loops/s   speed-up {rate / rates['1 worker']:5.2f}")
    print(f"  identical answers on every engine: {same}")
    best = max(rates.values())
    print(f"projected full plan ({TOTAL_LOOPS} closed loops x 4 costs) at {best:.1f} loops/s: "
          f"{TOTAL_LOOPS / best / 60:.1f} min")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sample", type=int, default=96, help="half-edges in the engine comparison (default 96)")
    p.add_argument("--peer-loops", type=int, default=14, help="closed loops in the peer comparison (default 14)")
    p.add_argument("--full", action="store_true", help="also run the whole plan (long)")
    args = p.parse_args()
    evaluator = HalfEdgeEvaluator()
    with limit_blas_threads(1), quiet():
        evaluator.get_controller()
        halves = _sample_halves(args.sample)
        bench_peer(evaluator, halves, args.peer_loops)
        bench_batching(evaluator)
        bench_engines(evaluator, halves)
        if args.full:
            from satdyn.studies.assembly import full_assembly

            t = time.perf_counter()
            study = full_assembly(evaluator, workers=2)
            dt = time.perf_counter() - t
            print(f"full plan: {study.closed_loops} closed loops in {dt / 60:.1f} min "
                  f"({study.closed_loops / dt:.1f} loops/s)")


if __name__ == "__main__":
    main()
