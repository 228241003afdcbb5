"""Benchmark of the causal block diagram (satdyn.multibody.diagram) against the whole-tree fast path.

The paper's example G (arXiv:2505.03248 §4), assembled block by block as in its Fig. 16, at its
initial state: one ``BlockDiagram.derivative`` call (generic cut-and-solve of 18 loop unknowns)
vs one single-state ``satdyn.multibody.forward_dynamics`` call (O(n) articulated sweep) and
one Pinocchio ``aba`` call on the same model, all measured in this run with one BLAS thread.
The accelerations of the three routes are compared too.

Run: ``PYTHONPATH=src python benchmarks/bench_blocks.py [--repeat N]``. Prints times and the
ratios (peer time / diagram time; < 1: the diagram is slower).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import time

import numpy as np
import pinocchio as pin

import satdyn.multibody as mb
from satdyn.runtime import limit_blas_threads
from satdyn.spatial import dcm_from_euler_sequence


def example_g_diagram():
    g = np.array([0.0, -9.81, 0.0])
    J = np.array([[5.0, 0, 0], [0, 10, -7], [0, -7, 10]])
    d = mb.BlockDiagram("G")
    d.add("balloon", mb.FloatingBodyBlock(10.0, inertia=J, ports={"C": [0, -2.0, 0]}, gravity=g))
    d.add("slider", mb.PrismaticBlock([1, 0, -1], 1.0, ports={"S": [0, 0, 0]}, gravity=g, stiffness=10, damping=1),
          parent="balloon", port="C")
    d.add("p1", mb.RevoluteBlock([0, 0, 1], 2.0, com=[0, -1.2, 0], ports={"P1": [0, -1.2, 0]}, gravity=g,
                                 damping=0.1), parent="slider", port="S")
    d.add("p2", mb.RevoluteBlock([0, 0, 1], 3.0, com=[0, -1.6, 0], gravity=g, damping=0.1), parent="p1", port="P1")
    d.add_external_wrench("balloon", lambda t, m: np.r_[dcm_from_euler_sequence(m[15:18]).T @ (-16.0 * g), 0, 0, 0])
    return d


def pinocchio_example_g():
    pm = pin.Model()
    pm.gravity = pin.Motion(np.array([0.0, -9.81, 0.0]), np.zeros(3))
    J = np.array([[5.0, 0, 0], [0, 10, -7], [0, -7, 10]])
    b = pm.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "balloon")
    pm.appendBodyToJoint(b, pin.Inertia(10.0, np.zeros(3), J), pin.SE3.Identity())
    t = np.array([1.0, 0, -1.0]) / np.sqrt(2)
    s = pm.addJoint(b, pin.JointModelPrismaticUnaligned(t), pin.SE3(np.eye(3), np.array([0, -2.0, 0])), "slider")
    pm.appendBodyToJoint(s, pin.Inertia(1.0, np.zeros(3), np.zeros((3, 3))), pin.SE3.Identity())
    p1 = pm.addJoint(s, pin.JointModelRZ(), pin.SE3.Identity(), "p1")
    pm.appendBodyToJoint(p1, pin.Inertia(2.0, np.array([0, -1.2, 0]), np.zeros((3, 3))), pin.SE3.Identity())
    p2 = pm.addJoint(p1, pin.JointModelRZ(), pin.SE3(np.eye(3), np.array([0, -1.2, 0])), "p2")
    pm.appendBodyToJoint(p2, pin.Inertia(3.0, np.array([0, -1.6, 0]), np.zeros((3, 3))), pin.SE3.Identity())
    return pm


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="timed calls per contender (best is kept)")
    args = parser.parse_args(argv)
    d = example_g_diagram()
    x0 = np.zeros(d.n_states)
    x0[13], x0[14] = np.deg2rad(170), np.deg2rad(-170)
    model = mb.example_g()
    q0, v0 = mb.example_g_initial_state(model)
    pm = pinocchio_example_g()
    pd = pm.createData()
    qp = np.r_[np.zeros(6), 1.0, 0.0, x0[13], x0[14]]
    tau_p = np.r_[np.zeros(6), 0.0, 0.0, 0.0]
    fext = [pin.Force.Zero() for _ in range(pm.njoints)]
    fext[1] = pin.Force(np.array([0.0, 16.0 * 9.81, 0.0]), np.zeros(3))
    with limit_blas_threads(1):
        a_blocks = d.derivative(0.0, x0)
        a_blocks = np.r_[a_blocks[:6], a_blocks[15:]]
        a_fast = mb.forward_dynamics(model, q0, v0)
        a_pin = pin.aba(pm, pd, qp, np.zeros(9), tau_p, fext).copy()
        t_blocks = best(lambda: d.derivative(0.0, x0), args.repeat)
        t_fast = best(lambda: mb.forward_dynamics(model, q0, v0), args.repeat)
        t_pin = best(lambda: pin.aba(pm, pd, qp, np.zeros(9), tau_p, fext), args.repeat)
    print(f"agreement: |diagram - forward_dynamics| = {np.abs(a_blocks - a_fast).max():.1e}, "
          f"|diagram - pinocchio aba| = {np.abs(a_blocks - a_pin).max():.1e}")
    print(f"diagram derivative (cut-and-solve, 18 unknowns): {t_blocks * 1e3:8.3f} ms")
    print(f"forward_dynamics (one state):                     {t_fast * 1e3:8.3f} ms   ratio {t_fast / t_blocks:.3f}")
    print(f"pinocchio aba (one state):                        {t_pin * 1e3:8.3f} ms   ratio {t_pin / t_blocks:.5f}")


if __name__ == "__main__":
    main()
