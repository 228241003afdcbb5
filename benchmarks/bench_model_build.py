"""Benchmark: building an n-body model file (satdyn.io.build_model) as n grows.

The model is SYNTHETIC, generated here (:func:`tree_document`): a binary tree of ``n``
bodies (a rigid hub at the root, then flexible and rigid bodies alternating, each hanging
from its parent by a frozen revolute joint), with a few parameters (an uncertain mass, an
uncertain first modal frequency and a varying joint angle every ``period`` bodies) so the
LFR has Delta channels as a real spacecraft model does.

Prints, per ``n``: the build time of the current path (sparse closing of the connection
loop in ``satdyn.lfr._core.close_blocks``), the size of the assembled LFR, and -- for
``n <= peer_max`` -- the time of the previous dense path measured in the same run (forced by
raising ``_core._DENSE_MAX_SIGNALS``) with the ratio and the agreement of the two results
(same blocks and state count, closed matrices and frequency responses at nominal and at
random Delta samples).  Ends with the growth exponent of the build time (log-log fit).

Run: ``PYTHONPATH=src python benchmarks/bench_model_build.py [n ...] [--peer-max N] [--profile N]``.
"""

from __future__ import annotations

import os

if __name__ == "__main__":
    # One BLAS thread (as the other benchmarks): set before numpy loads, and only when run
    # as a script (the tests import this module for its generator).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")

import sys
import time

import numpy as np

from satdyn.spatial import rigid_mass_matrix


def tree_document(n_bodies: int, *, seed: int = 0, n_modes: int = 2, branching: int = 2, period: int = 25) -> dict:
    """A model-file document (plain data, format of satdyn.io.model) of ``n_bodies`` bodies.

    Body 0 is a rigid hub with an external port ``G``; body ``k >= 1`` hangs from body
    ``(k - 1) // branching`` through revolute joint ``q<k>``.  Odd bodies are flexible
    (``n_modes`` modes, participation factors consistent with a positive residual mass),
    even ones rigid.  Bodies ``k = 1, 2, 3 (mod period)`` carry the parameters: an uncertain
    first frequency (flexible body 1), an uncertain mass (rigid body 2) and a varying angle
    (tan_quarter) of joint 3.
    """
    rng = np.random.default_rng(seed)
    children = {k: [] for k in range(n_bodies)}
    for k in range(1, n_bodies):
        children[(k - 1) // branching].append(k)
    params, bodies, joints, wires = [], [], [], []

    def rigid(k, name, ports, direct, com_port):
        mass = float(rng.uniform(5.0, 50.0))
        inertia = np.diag(rng.uniform(2.0, 3.0, 3)) * mass / 10.0   # principal moments obey I1 + I2 >= I3
        mass_ref = mass
        if k % period == 2:
            params.append({"name": f"m{k}", "kind": "uncertain", "nominal": mass, "percent": 10.0})
            mass_ref = f"m{k}"
        body = {"name": name, "type": "rigid", "mass": mass_ref, "inertia": inertia.tolist(), "ports": ports,
                "frame": f"f{k}", "com_port": com_port}
        if direct is not None:
            body["direct"] = direct
        return body

    for k in range(n_bodies):
        name = f"b{k}"
        kids = children[k]
        child_pos = {f"c{c}": rng.uniform(-1.0, 1.0, 3).round(3).tolist() for c in kids}
        if k == 0:
            bodies.append(rigid(k, name, child_pos or {"c": [0.0, 0.0, 1.0]}, None, "G"))
        elif k % 2 == 0:
            bodies.append(rigid(k, name, {"P": [0.0, 0.0, -0.5], **child_pos}, "P", None))
        else:
            mass = float(rng.uniform(10.0, 30.0))
            length = float(rng.uniform(1.0, 3.0))
            # Uniform beam along x from P: D_P of a rigid rod, modes with participation
            # factors small enough for a positive-definite residual mass.
            com = np.array([length / 2, 0.0, 0.0])
            inertia_com = mass * np.diag([0.01, length**2 / 12, length**2 / 12])
            D_P = rigid_mass_matrix(mass, inertia_com, com)
            freqs = np.sort(rng.uniform(2.0, 30.0, n_modes))
            # L_P = half of n_modes distinct rows of the Cholesky factor U (D_P = U^T U):
            # the residual mass D_P - L_P^T L_P = U^T (I - E/4) U stays positive definite.
            U = np.linalg.cholesky(D_P).T
            L_P = 0.5 * U[[(2 + 2 * j) % 6 for j in range(n_modes)]]
            freq_list = freqs.tolist()
            if k % period == 1:
                params.append({"name": f"w{k}", "kind": "uncertain", "nominal": float(freqs[0]), "percent": 15.0})
                freq_list[0] = f"w{k}"
            modes = {"frequencies": freq_list, "damping": 0.005, "L_P": L_P.round(6).tolist(),
                     "children": {c: {"r": r, "Phi": rng.uniform(-0.1, 0.1, (6, n_modes)).round(4).tolist()}
                                  for c, r in child_pos.items()}}
            bodies.append({"name": name, "type": "flexible", "D_P": D_P.tolist(), "frame": f"f{k}", "modes": modes})
        if k >= 1:
            parent = (k - 1) // branching
            axis = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]][k % 3]
            angle = float(rng.uniform(-1.0, 1.0))
            if k % period == 3:
                params.append({"name": f"a{k}", "kind": "varying", "nominal": 0.0, "range": [-np.pi, np.pi],
                               "transform": "tan_quarter"})
                angle = f"a{k}"
            joints.append({"name": f"q{k}", "type": "revolute", "axis": axis, "angle": angle,
                           "frames": [f"f{parent}", f"f{k}"]})
            wires += [[f"b{parent}.c{k}", f"q{k}.parent"], [f"q{k}.child", f"b{k}.P"]]
    free = [f"b{k}.c" for k in range(1) if not children[0]]
    return {"satdyn_model": 1, "name": f"tree{n_bodies}", "synthetic": True,
            "description": f"SYNTHETIC binary tree of {n_bodies} rigid/flexible bodies "
                           "(benchmarks/bench_model_build.py)",
            "parameters": params, "bodies": bodies, "joints": joints, "connections": wires,
            "external": ["b0.G"], "free": free}


def build(n_bodies: int, **kwargs):
    """``build_model`` of :func:`tree_document` (``kwargs`` go to the generator)."""
    from satdyn.io import build_model, model_from_dict

    return build_model(model_from_dict(tree_document(n_bodies, **kwargs)))


def build_dense(n_bodies: int, **kwargs):
    """The same build through the previous path: dense open system, SVD condition number
    and dense solve for any number of signals."""
    from satdyn.lfr import _core

    saved = _core._DENSE_MAX_SIGNALS
    _core._DENSE_MAX_SIGNALS = 10**9
    try:
        return build(n_bodies, **kwargs)
    finally:
        _core._DENSE_MAX_SIGNALS = saved


def response_difference(lfr, ref, *, n_samples: int = 3, seed: int = 1) -> float:
    """Largest |G - G_ref| / max|G_ref| over a log grid of frequencies, at nominal and at
    ``n_samples`` random points of the parameter box (both LFRs must have the same
    parameters)."""
    omega = np.logspace(-1, 2, 7)
    rng = np.random.default_rng(seed)
    values = {b.name: b.parameter.denormalize(rng.uniform(-0.9, 0.9, n_samples)) for b in ref.blocks}
    worst = 0.0
    for vals in (None, values):
        G, G_ref = lfr.freqresp(omega, vals), ref.freqresp(omega, vals)
        worst = max(worst, float(np.abs(G - G_ref).max() / np.abs(G_ref).max()))
    return worst


def main(argv):
    argv = list(argv)
    build(3)  # imports and first-call costs out of the timings
    if "--profile" in argv:
        import cProfile
        import pstats

        n = int(argv[argv.index("--profile") + 1])
        prof = cProfile.Profile()
        prof.enable()
        built = build(n)
        prof.disable()
        print(built.lfr)
        pstats.Stats(prof).sort_stats("cumulative").print_stats(35)
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)
        return
    peer_max = 100
    if "--peer-max" in argv:
        i = argv.index("--peer-max")
        peer_max = int(argv[i + 1])
        del argv[i:i + 2]
    ns = [int(a) for a in argv] or [25, 50, 100, 200, 300]
    times = []
    for n in ns:
        t0 = time.perf_counter()
        lfr = build(n).lfr
        t = time.perf_counter() - t0
        times.append(t)
        line = (f"n = {n:4d}: {t:7.2f} s   {lfr.nstates} states, {lfr.ndelta} Delta channels, "
                f"{len(lfr.blocks)} parameters")
        if n <= peer_max:
            t0 = time.perf_counter()
            ref = build_dense(n).lfr
            t_ref = time.perf_counter() - t0
            same = lfr.blocks == ref.blocks and lfr.nstates == ref.nstates
            dM = float(np.abs(lfr.M - ref.M).max() / np.abs(ref.M).max()) if same else np.nan
            line += (f" | dense path {t_ref:7.2f} s (x{t_ref / t:.1f}); same structure {same}, "
                     f"max rel. diff: matrix {dM:.1e}, responses {response_difference(lfr, ref):.1e}")
        print(line, flush=True)
    if len(ns) > 1:
        slope = np.polyfit(np.log(ns), np.log(times), 1)[0]
        print(f"growth exponent (time ~ n^k over n = {ns[0]}..{ns[-1]}): k = {slope:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
