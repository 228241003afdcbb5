"""Benchmark: one closed-loop trajectory with satdyn.freefloating's numpy path vs backend="pinocchio".

The same `simulate` call (the paper's computed-torque maneuver on two joints, floating, zero
momentum, DOP853 rtol 1e-10) with the default numpy right-hand side (closed-form blocks) and
with Pinocchio's CRBA/RNEA (``backend="pinocchio"``), for N = 3 and 7.  The trajectories are
compared first (they must agree to 1e-8).  Best of 3, one BLAS thread.

Run: ``PYTHONPATH=src python benchmarks/bench_freefloating_backend.py``.
Prints time(numpy) / time(pinocchio) (> 1 means the Pinocchio back-end is faster).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
import timeit  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "freefloating"))

from oracle import random_model  # noqa: E402

from satdyn.freefloating import ComputedTorqueController, JointSequenceCommand, simulate  # noqa: E402


def main():
    for n in (3, 7):
        model = random_model(n, 1)
        ctrl = ComputedTorqueController(JointSequenceCommand(n, joints=(0, 1), rate=0.3))
        runs = {backend: (lambda backend=backend, model=model, ctrl=ctrl:
                          simulate(model, controller=ctrl, t_final=6.0, backend=backend))
                for backend in ("numpy", "pinocchio")}
        a, b = runs["numpy"](), runs["pinocchio"]()
        assert np.abs(a.q - b.q).max() < 1e-8, "back-ends disagree"
        tn, tp = (min(timeit.repeat(runs[k], number=1, repeat=3)) for k in ("numpy", "pinocchio"))
        print(f"N={n}: numpy {tn * 1e3:.1f} ms, pinocchio {tp * 1e3:.1f} ms, {a.nfev} RHS calls; "
              f"ratio numpy/pinocchio = {tn / tp:.2f}")


if __name__ == "__main__":
    main()
