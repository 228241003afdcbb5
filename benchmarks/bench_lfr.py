"""Benchmark: batched LFR evaluation vs a per-point loop.

Model (synthetic, built to resemble the TITOP assembly LFRs): a chain of 12 frozen
joints, each a 6x6 transport ``blockdiag(R_k, R_k) @ C_k`` with ``R_k`` the rotation
LFR of its angle in tan(alpha/4) (8 channels per transport), wrapped around a
10-mode flexible body with uncertain modal frequencies (20 states):

    G = chain @ (I + Phi @ modal @ L) @ chain.T      -> 20 states, ~212 Delta channels

It is evaluated at 10,000 random points in the parameter box with

* ``LFR.evaluate_batch`` (one vectorised computation), and
* a Python loop over ``LFR.evaluate`` (one ``control.StateSpace`` per point),

plus two reference peers measured in the same run: a bare per-point dense LAPACK
solve of the Delta loop (no StateSpace construction), and the naive vectorisation
(``np.linalg.solve`` on stacked (N, ndelta, ndelta) matrices, in chunks).

BLAS is pinned to one thread for every contender (set before numpy is imported) so
that the comparison is fair and reproducible on a shared machine; override with
OPENBLAS_NUM_THREADS.  Both wall-clock and process CPU times are printed; on a loaded
machine the CPU-time ratio is the stable one (the batch streams large work arrays and suffers
more from other jobs' cache pressure than the Python loop).  Usage: ``python benchmarks/bench_lfr.py [--points N]
[--loop-points M]`` (the loop is extrapolated from M points when M < N).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from satdyn.lfr import blockdiag, rotation_lfr, ss, ureal, vreal  # noqa: E402


def build_model(njoints: int = 12, nmodes: int = 10, seed: int = 0):
    rng = np.random.default_rng(seed)
    chain = None
    for k in range(njoints):
        alpha = vreal(f"arm.alpha{k}", 0.0, range=(-3.0, 3.0), transform="tan_quarter")
        R = rotation_lfr(rng.normal(size=3), alpha)
        T = blockdiag([R, R]) @ (np.eye(6) + 0.1 * rng.normal(size=(6, 6)))
        chain = T if chain is None else chain @ T
    modes = []
    for j in range(nmodes):
        w = ureal(f"body.omega{j}", 1.0 + j, percent=20)
        modes.append(ss([[0.0, 1.0], [-(w * w), -0.02 * w]], [[0.0], [1.0]], [[1.0, 0.0]], [[0.0]]))
    modal = blockdiag(modes)
    Phi, L = rng.normal(size=(6, nmodes)), rng.normal(size=(nmodes, 6))
    return (chain @ (np.eye(6) + Phi @ modal @ L) @ chain.T).reduce()


class Clock:
    """Wall-clock and process-CPU time of a block."""

    def __enter__(self):
        self.wall0, self.cpu0 = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall0
        self.cpu = time.process_time() - self.cpu0


def dense_point(G, d, cols):
    """Per-point dense closing of the Delta loop (peer: bare LAPACK, no StateSpace)."""
    nx, nd = G.nstates, G.ndelta
    M = G.M
    W = np.linalg.solve(np.eye(nd) - d[:, None] * M[nx:nx + nd, nx:nx + nd], d[:, None] * M[nx:nx + nd][:, cols])
    rows = np.r_[0:nx, nx + nd:M.shape[0]]
    return M[np.ix_(rows, cols)] + M[rows][:, nx:nx + nd] @ W


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=10_000)
    parser.add_argument("--loop-points", type=int, default=10_000)
    args = parser.parse_args(argv)
    N = args.points
    G = build_model()
    print(f"model: {G.nstates} states, {G.ndelta} Delta channels, {len(G.blocks)} parameters, "
          f"{G.noutputs}x{G.ninputs}; BLAS threads = {os.environ['OPENBLAS_NUM_THREADS']}")
    rng = np.random.default_rng(1)
    values = {b.name: b.parameter.denormalize(rng.uniform(-1.0, 1.0, N)) for b in G.blocks}

    G.evaluate_batch({k: v[:10] for k, v in values.items()})  # warm-up (structure analysis is cached)
    best = None
    for _ in range(3):
        with Clock() as c:
            batch = G.evaluate_batch(values)
        best = c if best is None or c.cpu < best.cpu else best
    t_batch = (best.wall, best.cpu)

    M_loop = min(args.loop_points, N)
    max_diff = 0.0
    with Clock() as c:
        for i in range(M_loop):
            S = G.evaluate({k: v[i] for k, v in values.items()})
            if i % 97 == 0:
                max_diff = max(max_diff, max(float(np.max(np.abs(getattr(S, key) - getattr(batch, key)[i])))
                                             for key in "ABCD"))
    t_loop = (c.wall * N / M_loop, c.cpu * N / M_loop)

    # Peer: dense per-point LAPACK solve (subset, extrapolated).
    M_dense = min(1000, N)
    d_all = np.vstack([np.repeat(b.parameter.normalize(values[b.name])[None], b.size, axis=0) for b in G.blocks])
    cols = np.r_[0:G.nstates, G.nstates + G.ndelta:G.M.shape[1]]
    with Clock() as c:
        for i in range(M_dense):
            dense_point(G, d_all[:, i], cols)
    t_dense = (c.wall * N / M_dense, c.cpu * N / M_dense)

    # Peer: naive vectorisation, stacked dense solves in chunks (subset, extrapolated).
    nx, nd = G.nstates, G.ndelta
    D11, R = G.M[nx:nx + nd, nx:nx + nd], G.M[nx:nx + nd][:, cols]
    M_naive = min(1000, N)
    with Clock() as c:
        for s in range(0, M_naive, 250):
            d = d_all[:, s:s + 250].T
            np.linalg.solve(np.eye(nd) - d[:, :, None] * D11, d[:, :, None] * R)
    t_naive = (c.wall * N / M_naive, c.cpu * N / M_naive)

    rows = [
        (f"evaluate_batch ({N} points)", t_batch),
        (f"loop over evaluate ({M_loop} measured)", t_loop),
        ("peer: per-point dense LAPACK solve", t_dense),
        ("peer: stacked dense np.linalg.solve", t_naive),
    ]
    print(f"{'contender':42s} {'wall [s]':>9s} {'cpu [s]':>9s} {'cpu us/point':>13s}")
    for name, (wall, cpu) in rows:
        print(f"{name:42s} {wall:9.3f} {cpu:9.3f} {1e6 * cpu / N:13.1f}")
    for name, (wall, cpu) in rows[1:]:
        print(f"ratio {name.split('(')[0].strip():38s} / batch: wall {wall / t_batch[0]:6.1f}x   cpu "
              f"{cpu / t_batch[1]:6.1f}x")
    print("goal (issue 3): loop over evaluate / batch >= 50x")
    print(f"max |batch - evaluate| on checked points: {max_diff:.2e}; invalid points: {int((~batch.valid).sum())}")


if __name__ == "__main__":
    main()
