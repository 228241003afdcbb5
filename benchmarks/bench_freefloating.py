"""Benchmark: batched generalized inertia H and GJM J* vs a Python loop over Pinocchio; symbolic variants.

1. H and the end-effector J* of a 7-DOF arm on a spacecraft at 10,000 configurations:
   satdyn batched (one call, arrays of shape (10000, ...)) vs a Python loop over Pinocchio
   (``crba`` + ``computeJointJacobians`` + ``getFrameJacobian``, with the Schur reduction
   H = M_mm − M_0mᵀM_00⁻¹M_0m, J* = J_m − J_0 M_00⁻¹M_0m in numpy per configuration).
   The two results are compared (they must agree) before the timings are printed.
2. Partial- vs full-symbolic evaluation of (H, C, J*) for N = 2, 3 (one configuration per call).

Run: ``PYTHONPATH=src python benchmarks/bench_freefloating.py [--configs 10000]``.
Prints the ratios (> 1 means satdyn is faster).
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "freefloating"))

from oracle import pin_configuration, pinocchio_model, random_model  # noqa: E402

from satdyn.freefloating import generalized_inertia, generalized_jacobian  # noqa: E402
from satdyn.freefloating.inertia import _reduced, base_inertia_inverse, blocks_from_kinematics  # noqa: E402
from satdyn.freefloating.jacobian import _point_jacobians  # noqa: E402
from satdyn.freefloating.kinematics import _forward_kinematics  # noqa: E402
from satdyn.freefloating.symbolic import symbolic_model  # noqa: E402


def satdyn_batched(model, q):
    """H and J* for all configurations in one batched pass (base at identity pose)."""
    n_cfg = q.shape[0]
    kin = _forward_kinematics(model, q, np.zeros((n_cfg, 3)), np.broadcast_to(np.eye(3), (n_cfg, 3, 3)))
    blocks = blocks_from_kinematics(model, kin)
    H0inv = base_inertia_inverse(blocks)
    H, G = _reduced(blocks, H0inv)
    jac = _point_jacobians(model, kin, model.n_joints, None)
    return H, jac.Jm - jac.J0 @ G


def pinocchio_loop(model, q):
    import pinocchio as pin

    pm, pd, ee = pinocchio_model(model)
    n = model.n_joints
    Hs = np.empty((q.shape[0], n, n))
    Js = np.empty((q.shape[0], 6, n))
    R0, r0 = np.eye(3), np.zeros(3)
    for i, qi in enumerate(q):
        x = pin_configuration(r0, R0, qi)
        M = pin.crba(pm, pd, x)
        M = np.triu(M) + np.triu(M, 1).T
        pin.computeJointJacobians(pm, pd, x)
        pin.updateFramePlacements(pm, pd)
        J = pin.getFrameJacobian(pm, pd, ee, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        G = np.linalg.solve(M[:6, :6], M[:6, 6:])
        Hs[i] = M[6:, 6:] - M[:6, 6:].T @ G
        Js[i] = J[:, 6:] - J[:, :6] @ G
    return Hs, Js


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    model = random_model(7, 7)
    q = np.random.default_rng(0).uniform(-np.pi, np.pi, (args.configs, 7))
    t_sat, (H, J) = best_of(lambda: satdyn_batched(model, q), args.repeat)
    t_pub, _ = best_of(lambda: (generalized_inertia(model, q), generalized_jacobian(model, q)), args.repeat)
    t_pin, (Hp, Jp) = best_of(lambda: pinocchio_loop(model, q), args.repeat)
    err = max(np.abs(H - Hp).max(), np.abs(J - Jp).max())
    # Pinocchio's Jacobian here is for a body-frame base, which at identity base attitude equals
    # the paper's inertial-frame convention; the public functions give the same numbers:
    assert (np.allclose(generalized_inertia(model, q[:5]), H[:5])
            and np.allclose(generalized_jacobian(model, q[:5]), J[:5]))
    print(f"H and J* of a 7-DOF arm at {args.configs} configurations (best of {args.repeat}):")
    print(f"  satdyn batched          {t_sat * 1e3:9.1f} ms  (kinematics shared by H and J*)")
    print(f"  satdyn public API       {t_pub * 1e3:9.1f} ms  (generalized_inertia + generalized_jacobian)")
    print(f"  Pinocchio Python loop   {t_pin * 1e3:9.1f} ms")
    print(f"  ratio Pinocchio loop / satdyn batched = {t_pin / t_sat:.2f}  (max |difference| {err:.1e})")
    print(f"  ratio Pinocchio loop / satdyn public API = {t_pin / t_pub:.2f}")

    print("\nSymbolic back-end, (H, C, J*) at one configuration per call:")
    for n in (2, 3):
        m = random_model(n, n)
        qq, qd = np.full(n, 0.3), np.full(n, 0.1)
        res = {}
        for variant in ("partial", "full"):
            sym = symbolic_model(m, variant)
            k = 500
            t0 = time.perf_counter()
            for _ in range(k):
                sym.evaluate(qq, qd)
            res[variant] = ((time.perf_counter() - t0) / k, sym)
        (tp, sp_), (tf, sf) = res["partial"], res["full"]
        print(f"  N={n}: partial {tp * 1e6:7.1f} us/eval (build {sp_.build_seconds:.1f} s, {sp_.operations} ops), "
              f"full {tf * 1e6:7.1f} us/eval (build {sf.build_seconds:.1f} s, {sf.operations} ops); "
              f"ratio partial/full time = {tp / tf:.2f}")


if __name__ == "__main__":
    main()
