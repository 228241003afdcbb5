"""Benchmark of satdyn.multibody against Pinocchio (peer measured in the same run).

1. Forward (``aba``) and inverse (``rnea``) dynamics of a floating spacecraft carrying a
   7-DOF arm at 10,000 random states: satdyn batched (one call) vs a Python loop over
   Pinocchio.
2. A 10 s simulation of the paper's example G (damped case, DOP853, rtol = atol = 1e-10):
   satdyn ``simulate`` vs Pinocchio ``aba`` + ``solve_ivp`` with the same integrator.
3. Random URDF trees (branching; revolute, prismatic and fixed joints; 2 to 30 joints; fixed
   and floating base; gravity), read by satdyn's and Pinocchio's URDF readers: a 1 s
   single-trajectory simulation (``simulate`` vs ``solve_ivp`` over ``pin.aba``; also with all
   derived outputs read) and a batch of initial conditions (``simulate_batch`` in lock-step
   SIMD lanes, one thread and ``threads=True``, and the single-state loop ``lanes=False``, vs a
   loop of the same ``solve_ivp``), DOP853, rtol = atol = 1e-10, with the largest state
   difference.

Run: ``PYTHONPATH=src python benchmarks/bench_multibody.py [--states N] [--batch M] [--sizes ...]``. Prints times and
ratios (> 1: satdyn faster). The spacecraft data are synthetic.
"""

from __future__ import annotations

import os

# One BLAS thread for both contenders (as the other benchmarks): on a shared 2-core machine
# multi-threaded BLAS on many small problems only adds contention. Set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import tempfile
import time
from pathlib import Path

import numba
import numpy as np
import pinocchio as pin
from scipy.integrate import solve_ivp

import satdyn.multibody as mb
from satdyn.multibody.compiled_lanes import LANES


def spacecraft_with_arm():
    """Synthetic: a 500 kg bus and a 7-DOF arm (alternating z / y axes), in satdyn and Pinocchio."""
    b = mb.ModelBuilder(name="spacecraft_arm")
    pm = pin.Model()
    pm.gravity = pin.Motion.Zero()  # pin.Model() defaults to Earth gravity; satdyn to none
    J_bus = np.diag([400.0, 350.0, 300.0])
    b.add_body(mb.body("bus", 500.0, inertia=J_bus, ports={"mount": [1.0, 0.0, 0.5]}), mb.floating_root("bus"))
    parent_pin = pm.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "bus")
    pm.appendBodyToJoint(parent_pin, pin.Inertia(500.0, np.zeros(3), J_bus), pin.SE3.Identity())
    parent, position = "bus", np.array([1.0, 0.0, 0.5])
    for k in range(7):
        axis = [0.0, 0.0, 1.0] if k % 2 == 0 else [0.0, 1.0, 0.0]
        mass, length = 8.0 - 0.6 * k, 0.6
        com = np.array([length / 2, 0.0, 0.0])
        J = np.diag([0.02, mass * length**2 / 12, mass * length**2 / 12])
        name = f"link{k + 1}"
        b.add_body(mb.body(name, mass, com=com, inertia=J), mb.revolute_joint(f"q{k + 1}", axis),
                   parent=parent, position=position)
        jm = pin.JointModelRZ() if k % 2 == 0 else pin.JointModelRY()
        parent_pin = pm.addJoint(parent_pin, jm, pin.SE3(np.eye(3), position), f"q{k + 1}")
        pm.appendBodyToJoint(parent_pin, pin.Inertia(mass, com, J), pin.SE3.Identity())
        parent, position = name, np.array([length, 0.0, 0.0])
    return b.build(), pm


def _timeit(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def bench_dynamics(n_states, rng):
    model, pm = spacecraft_with_arm()
    pd = pm.createData()
    q = np.array([pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq)) for _ in range(n_states)])
    v = rng.normal(size=(n_states, model.nv))
    tau = rng.normal(size=(n_states, model.nv)) * 10
    t_fd, a_sd = _timeit(lambda: mb.forward_dynamics(model, q, v, tau))
    t_fd_pin, a_pin = _timeit(lambda: np.array([pin.aba(pm, pd, q[k], v[k], tau[k]).copy() for k in range(n_states)]))
    t_id, tau_sd = _timeit(lambda: mb.inverse_dynamics(model, q, v, a_pin))
    t_id_pin, tau_pin = _timeit(
        lambda: np.array([pin.rnea(pm, pd, q[k], v[k], a_pin[k]).copy() for k in range(n_states)]))
    err_fd = np.abs(a_sd - a_pin).max() / np.abs(a_pin).max()
    err_id = np.abs(tau_sd - tau_pin).max() / np.abs(tau_pin).max()
    return dict(forward=(t_fd, t_fd_pin, err_fd), inverse=(t_id, t_id_pin, err_id))


def _pin_example_g(model):
    """Example G in Pinocchio (spec 004 §5.2 mapping), from the satdyn model's data."""
    pm = pin.Model()
    pm.gravity = pin.Motion(model.gravity, np.zeros(3))
    jid = 0
    for bd, joint in zip(model.bodies, model.joints):
        if joint.kind == "floating":
            jm = pin.JointModelFreeFlyer()
        elif joint.kind == "prismatic":
            jm = pin.JointModelPrismaticUnaligned(joint.axis)
        else:
            jm = pin.JointModelRevoluteUnaligned(joint.axis)
        jid = pm.addJoint(jid, jm, pin.SE3(joint.rotation, joint.position), joint.name)
        pm.appendBodyToJoint(jid, pin.Inertia(bd.mass, bd.com, bd.inertia), pin.SE3.Identity())
    return pm


def bench_simulation(t_final=10.0):
    model = mb.example_g()
    q0, v0 = mb.example_g_initial_state(model)
    t_eval = np.linspace(0.0, t_final, 101)
    mb.simulate(model, (0.0, 0.1), (q0, v0))   # numba: load the cached machine code once
    t_sd, res = _timeit(lambda: mb.simulate(model, (0.0, t_final), (q0, v0), t_eval=t_eval), repeat=1)

    pm = _pin_example_g(model)
    pd = pm.createData()
    ew = model.external_wrenches[0]
    damp = np.array([0.0] * 6 + [j.damping for j in model.joints[1:]])
    stiff = np.array([0.0] * 6 + [j.stiffness for j in model.joints[1:]])

    def rhs(t, x):
        q = x[:pm.nq].copy()
        q[3:7] /= np.linalg.norm(q[3:7])
        v = x[pm.nq:]
        R = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
        fext = [pin.Force.Zero() for _ in range(pm.njoints)]
        fext[1] = pin.Force(R.T @ ew.wrench[:3], np.zeros(3))
        tau = -damp * v
        tau[6:] -= stiff[6:] * q[7:]
        a = pin.aba(pm, pd, q, v, tau, fext)
        return np.concatenate([pin.integrate(pm, q, v * 0.0) * 0 + _qdot(q, v), a])

    def _qdot(q, v):
        R = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
        x, y, z, w = q[3:7]
        wx, wy, wz = v[3:6]
        quat_dot = 0.5 * np.array([w * wx + y * wz - z * wy, w * wy + z * wx - x * wz,
                                   w * wz + x * wy - y * wx, -x * wx - y * wy - z * wz])
        return np.concatenate([R @ v[:3], quat_dot, v[6:]])

    x0 = np.concatenate([q0, v0])
    t_pin, sol = _timeit(lambda: solve_ivp(rhs, (0.0, t_final), x0, method="DOP853", rtol=1e-10, atol=1e-10,
                                           t_eval=t_eval), repeat=1)
    diff = np.abs(sol.y[:model.nq, -1] - res.q[-1]).max()
    return t_sd, t_pin, diff, res.nfev, sol.nfev


def random_urdf(rng, n_joints):
    """A random branching tree: revolute / prismatic joints (oblique axes), a fixed link every 4th."""
    def inertial():
        a, b, c = rng.uniform(0.05, 0.4, 3)
        m = rng.uniform(0.5, 5.0)
        xyz = " ".join(f"{x:.4f}" for x in rng.normal(size=3) * 0.1)
        return (f'<inertial><origin xyz="{xyz}"/><mass value="{m:.4f}"/><inertia ixx="{m * (b * b + c * c) / 12:.6f}" '
                f'iyy="{m * (a * a + c * c) / 12:.6f}" izz="{m * (a * a + b * b) / 12:.6f}" ixy="0" ixz="0" iyz="0"/>'
                '</inertial>')
    parts = ['<robot name="random_tree">', f'<link name="l0">{inertial()}</link>']
    n_links = 1
    for k in range(n_joints + n_joints // 4):
        parent = int(rng.integers(max(0, n_links - 3), n_links))   # mostly chains, some branches
        kind = "fixed" if k % 5 == 4 else ("prismatic" if rng.uniform() < 0.2 else "revolute")
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        xyz = " ".join(f"{x:.4f}" for x in rng.normal(size=3) * 0.3)
        rpy = " ".join(f"{x:.4f}" for x in rng.uniform(-1, 1, 3))
        ax = " ".join(f"{x:.6f}" for x in axis)
        parts.append(f'<link name="l{n_links}">{inertial()}</link>')
        parts.append(f'<joint name="j{k:03d}" type="{kind}"><parent link="l{parent}"/><child link="l{n_links}"/>'
                     f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{ax}"/>'
                     '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>')
        n_links += 1
    return "\n".join(parts + ["</robot>"])


def _pin_rhs(pm, pd, nq, floating, tau):
    def rhs(t, x):
        q, v = x[:nq], x[nq:]
        if not floating:
            return np.concatenate([v, pin.aba(pm, pd, q, v, tau)])
        qn = q.copy()
        qn[3:7] /= np.linalg.norm(q[3:7])
        x_, y_, z_, w_ = q[3:7]
        wx, wy, wz = v[3:6]
        R = pin.Quaternion(qn[6], qn[3], qn[4], qn[5]).toRotationMatrix()
        quat_dot = 0.5 * np.array([w_ * wx + y_ * wz - z_ * wy, w_ * wy + z_ * wx - x_ * wz,
                                   w_ * wz + x_ * wy - y_ * wx, -x_ * wx - y_ * wy - z_ * wz])
        return np.concatenate([R @ v[:3], quat_dot, v[6:], pin.aba(pm, pd, qn, v, tau)])
    return rhs


def bench_trees(sizes, n_batch, rng, t_final=1.0):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n_joints in sizes:
            path = Path(tmp) / f"tree{n_joints}.urdf"
            path.write_text(random_urdf(rng, n_joints))
            for floating in (False, True):
                rows.append((n_joints, floating) + _bench_tree(path, floating, n_batch, rng, t_final))
    return rows


def _bench_tree(path, floating, n_batch, rng, t_final):
    """One tree of ``bench_trees`` (a function of its own: the timed closures see this case only)."""
    g = np.array([0.0, 0.0, -9.81])
    model = mb.load_urdf(path, floating=floating, gravity=g)
    pm = pin.buildModelFromUrdf(str(path), *([pin.JointModelFreeFlyer()] if floating else []))
    pm.gravity = pin.Motion(g, np.zeros(3))
    pd = pm.createData()
    X0 = rng.uniform(-0.5, 0.5, (n_batch, model.nq + model.nv))
    if floating:
        X0[:, 3:7] /= np.linalg.norm(X0[:, 3:7], axis=1, keepdims=True)
    X0[:, model.nq:] *= 4.0   # lively motions: the joints swing, the step size adapts
    tau = np.zeros(model.nv)
    t_eval = np.linspace(0.0, t_final, 101)

    def run():
        return mb.simulate(model, (0.0, t_final), X0[0], t_eval=t_eval)

    run()    # numba: load the cached machine code once
    t_sd, res = _timeit(run, repeat=3)
    # with every derived output read (computed on first access, after the integration)
    t_sd_all, _ = _timeit(lambda: run().energy, repeat=2)
    rhs = _pin_rhs(pm, pd, model.nq, floating, tau)

    def solve(x0):
        return solve_ivp(rhs, (0.0, t_final), x0, method="DOP853", rtol=1e-10, atol=1e-10, t_eval=t_eval)

    t_pin, sol = _timeit(lambda: solve(X0[0]), repeat=3)
    diff = np.abs(sol.y.T - np.concatenate([res.q, res.v], 1)).max()

    def batch_run(**kw):
        return mb.simulate_batch(model, (0.0, t_final), X0, t_eval=t_eval, **kw)

    mb.simulate_batch(model, (0.0, t_final), X0[:1], t_eval=t_eval, lanes=True)   # load the machine code
    t_bsd, batch = _timeit(lambda: batch_run(lanes=True), repeat=2)
    mb.simulate_batch(model, (0.0, t_final), X0[:2], t_eval=t_eval, lanes=True, threads=True)
    t_bth, batch_th = _timeit(lambda: batch_run(lanes=True, threads=True), repeat=2)
    t_bsc, batch_sc = _timeit(lambda: batch_run(lanes=False), repeat=2)
    for other in (batch_sc, batch_th):   # same steps, same arithmetic: identical arrays
        assert np.array_equal(batch.q, other.q, equal_nan=True)
    t_bpin, sols = _timeit(lambda: [solve(x0) for x0 in X0], repeat=2)
    bdiff = max(np.abs(s.y.T - np.concatenate([batch.q[m], batch.v[m]], 1)).max()
                for m, s in enumerate(sols))
    return model.nv, t_sd, t_sd_all, t_pin, diff, t_bsd, t_bth, t_bsc, t_bpin, bdiff


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=10_000)
    parser.add_argument("--no-simulation", action="store_true")
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 8, 16, 30], help="joints of the random trees")
    parser.add_argument("--batch", type=int, default=64, help="initial conditions of the batched simulation")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    r = bench_dynamics(args.states, rng)
    print(f"floating spacecraft + 7-DOF arm, {args.states} random states")
    for name, (t_sd, t_pin, err) in r.items():
        print(f"  {name:8s} satdyn batched {1e3 * t_sd:8.1f} ms | Pinocchio loop {1e3 * t_pin:8.1f} ms | "
              f"ratio (pin/satdyn) {t_pin / t_sd:5.2f} | max rel. difference {err:.1e}")
    if not args.no_simulation:
        t_sd, t_pin, diff, nfev_sd, nfev_pin = bench_simulation()
        print("example G, damped, 10 s, DOP853 rtol = atol = 1e-10")
        print(f"  satdyn simulate {t_sd:6.2f} s ({nfev_sd} RHS) | Pinocchio + solve_ivp {t_pin:6.2f} s "
              f"({nfev_pin} RHS) | ratio (pin/satdyn) {t_pin / t_sd:5.2f} | final-state difference {diff:.1e}")
        print(f"random URDF trees, gravity, 1 s, DOP853 rtol = atol = 1e-10; batch of {args.batch} initial conditions")
        print("  single: simulate, states read (as the peer); in brackets: every derived output read too")
        print(f"  batch: simulate_batch in lock-step lanes of {LANES}, one thread; in brackets threads=True "
              f"({numba.get_num_threads()} numba threads); scalar: the single-state loop (lanes=False)")
        for n, floating, nv, t_sd, t_all, t_pin, diff, t_bsd, t_bth, t_bsc, t_bpin, bdiff in bench_trees(
                args.sizes, args.batch, rng):
            base = "floating" if floating else "fixed   "
            print(f"  {n:2d} joints {base} (nv {nv:2d}) | single: satdyn {1e3 * t_sd:6.1f} ms ({1e3 * t_all:6.1f}), "
                  f"Pinocchio + solve_ivp {1e3 * t_pin:6.1f} ms, ratio {t_pin / t_sd:5.2f} ({t_pin / t_all:4.2f}), "
                  f"diff {diff:.0e} | batch: satdyn {1e3 * t_bsd:7.1f} ms ({1e3 * t_bth:7.1f}), "
                  f"Pinocchio loop {1e3 * t_bpin:8.1f} ms, ratio {t_bpin / t_bsd:5.2f} ({t_bpin / t_bth:5.2f}), "
                  f"scalar {t_bpin / t_bsc:5.2f}, diff {bdiff:.0e}")

if __name__ == "__main__":
    main()
