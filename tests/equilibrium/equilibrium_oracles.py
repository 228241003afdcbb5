"""Test-only references for satdyn.equilibrium (never used by product code).

* :func:`pinocchio_arm` / :func:`pinocchio_trim_linearise`: the two-link arm built in
  Pinocchio, trimmed numerically (root finding on ABA forward dynamics) and linearised by
  central finite differences (the role Simscape plays in the paper).
* :func:`appendix_a_recursion`: the reference numpy linear recursion of spec 003 Appendix A,
  transcribed as printed (serial chain, no rotor inertia).
* :func:`potential_reference`: the independent model of spec 003 section 3.6 for a serial
  3-D chain: static torques = gradient of the potential ``V = sum m a.p_G`` (analytic
  Jacobians), stiffness by central differences of that gradient, ``M`` from CoG/angular
  Jacobians.
* :func:`random_chain`: a random serial chain (skewed axes, full inertias, oblique field)
  as plain data + as an EquilibriumTree.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import scipy.optimize

from satdyn.equilibrium import EquilibriumTree, RevoluteJoint, RigidBody
from satdyn.spatial import dcm_from_rotvec, rodrigues, skew


# ----------------------------------------------------------------------------- Pinocchio arm
def pinocchio_arm(arm):
    """Pinocchio model of the TwoLinkArm ``arm`` (same geometry conventions)."""
    e = arm.link_direction
    model = pin.Model()
    j1 = model.addJoint(0, pin.JointModelRX(), pin.SE3.Identity(), "J1")
    I1 = np.diag([arm.J1, 0.0, 0.0])
    model.appendBodyToJoint(j1, pin.Inertia(arm.m1, arm.rho1 * arm.L1 * e, I1), pin.SE3.Identity())
    j2 = model.addJoint(j1, pin.JointModelRX(), pin.SE3(np.eye(3), arm.L1 * e), "J2")
    I2 = np.diag([arm.J2, 0.0, 0.0])
    model.appendBodyToJoint(j2, pin.Inertia(arm.m2, arm.rho2 * arm.L2 * e, I2), pin.SE3.Identity())
    model.appendBodyToJoint(j2, pin.Inertia(arm.m3, arm.L2 * e, np.zeros((3, 3))), pin.SE3.Identity())
    # The joint rotor of spec 003 (eq. 7) is an inertia J_r about the axis carried by the
    # child body (not Pinocchio's armature, which spins with the joint rate only).
    rotor = pin.Inertia(0.0, np.zeros(3), np.diag([arm.rotor_inertia, 0.0, 0.0]))
    model.appendBodyToJoint(j1, rotor, pin.SE3.Identity())
    model.appendBodyToJoint(j2, rotor, pin.SE3.Identity())
    model.gravity = pin.Motion(np.array([0.0, 0.0, -arm.g0, 0.0, 0.0, 0.0]))
    return model


def pinocchio_trim_linearise(arm, theta, step=1e-5):
    """Numerical trim + central finite-difference linearisation with Pinocchio's ABA.

    Returns (torque (2,), A (4, 4), B (4, 2)); states [dtheta; dtheta'], joint springs at
    rest at ``theta`` and dampers as in the arm data.
    """
    model = pinocchio_arm(arm)
    data = model.createData()
    theta = np.asarray(theta, dtype=float)

    def f(x, u):
        q, v = x[:2], x[2:]
        tau = u - arm.stiffness * (q - theta) - arm.damping * v
        return np.concatenate([v, pin.aba(model, data, q, v, tau)])

    x0 = np.concatenate([theta, np.zeros(2)])
    sol = scipy.optimize.root(lambda u: f(x0, u)[2:], np.zeros(2), method="hybr", tol=1e-14)
    u0 = sol.x
    A = np.column_stack([(f(x0 + step * e, u0) - f(x0 - step * e, u0)) / (2 * step) for e in np.eye(4)])
    hu = step * max(1.0, np.abs(u0).max())
    B = np.column_stack([(f(x0, u0 + hu * e) - f(x0, u0 - hu * e)) / (2 * hu) for e in np.eye(2)])
    return u0, A, B


# ----------------------------------------------------------------------------- Appendix A
def _skew(u):
    return np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])


def _rot(u, th):
    S = _skew(u)
    return np.eye(3) + np.sin(th) * S + (1 - np.cos(th)) * S @ S


def _tau(v):
    T = np.eye(6)
    T[:3, 3:] = _skew(v)
    return T


def _x2(P):
    Z = np.zeros((6, 6))
    Z[:3, :3] = P
    Z[3:, 3:] = P
    return Z


def _D_P(m, J, PB):
    t = _tau(-PB)
    D = np.zeros((6, 6))
    D[:3, :3] = m * np.eye(3)
    D[3:, 3:] = J
    return t.T @ D @ t


def appendix_a_recursion(qbar, dq, ddq, a, axis_p, P0, m, J, PB, PC):
    """Spec 003 Appendix A, as printed: returns (T static, dT incremental)."""
    n = len(qbar)
    abar = np.array(a, dtype=float)
    da = np.zeros(3)
    dxpp = np.zeros(6)
    st = []
    for k in range(n):
        P = _rot(axis_p[k], qbar[k]) @ P0[k]
        rc6 = np.r_[np.zeros(3), P.T @ axis_p[k]]
        a_c = P.T @ abar
        da_c = P.T @ da - _skew(rc6[3:]) @ a_c * dq[k]
        dxpp_c = _x2(P.T) @ dxpp + rc6 * ddq[k]
        st.append((P, rc6, a_c, da_c, dxpp_c))
        abar, da, dxpp = a_c, da_c, _tau(-PC[k]) @ dxpp_c
    Wn = np.zeros(6)
    dWn = np.zeros(6)
    T = np.zeros(n)
    dT = np.zeros(n)
    for k in reversed(range(n)):
        P, rc6, a_c, da_c, dxpp_c = st[k]
        a6 = np.r_[a_c, 0, 0, 0]
        da6 = np.r_[da_c, 0, 0, 0]
        W = -_D_P(m[k], J[k], PB[k]) @ a6 + _tau(-PC[k]).T @ Wn
        dW = -_D_P(m[k], J[k], PB[k]) @ (dxpp_c + da6) + _tau(-PC[k]).T @ dWn
        T[k] = -rc6 @ W
        dT[k] = -rc6 @ dW
        Wn = _x2(P) @ W
        dWn = _x2(P) @ dW + _x2(_skew(axis_p[k])) @ _x2(P) @ W * dq[k]
    return T, dT


def appendix_a_matrices(chain, qbar):
    """(Tbar, M, K) of a chain dict from the Appendix A recursion (unit-input columns)."""
    n = len(qbar)
    args = (chain["a"], chain["axis_p"], chain["P0"], chain["m"], chain["J"], chain["PB"], chain["PC"])
    T, _ = appendix_a_recursion(qbar, np.zeros(n), np.zeros(n), *args)
    M = np.column_stack([appendix_a_recursion(qbar, np.zeros(n), e, *args)[1] for e in np.eye(n)])
    K = np.column_stack([appendix_a_recursion(qbar, e, np.zeros(n), *args)[1] for e in np.eye(n)])
    return T, M, K


# ----------------------------------------------------------------------------- section 3.6 reference
def _forward_kinematics(chain, q):
    """World DCMs R_k (body k -> world), joint points o_k and CoGs g_k, world axes w_k."""
    R = np.eye(3)
    o = np.zeros(3)
    Rs, os_, gs, ws = [], [], [], []
    for k in range(len(q)):
        axis_world = R @ chain["axis_p"][k]
        R = R @ rodrigues(chain["axis_p"][k], q[k]) @ chain["P0"][k]
        Rs.append(R)
        os_.append(o.copy())
        ws.append(axis_world)
        gs.append(o + R @ chain["PB"][k])
        o = o + R @ chain["PC"][k]
    return Rs, os_, gs, ws


def _gravity_gradient(chain, q):
    """dV/dq with V = sum_k m_k a . g_k (analytic Jacobians)."""
    Rs, os_, gs, ws = _forward_kinematics(chain, q)
    n = len(q)
    grad = np.zeros(n)
    for i in range(n):
        for k in range(i, n):
            grad[i] += chain["m"][k] * chain["a"] @ np.cross(ws[i], gs[k] - os_[i])
    return grad


def potential_reference(chain, q, step=1e-6):
    """Independent (Tbar, M, K) of spec 003 section 3.6."""
    q = np.asarray(q, dtype=float)
    n = len(q)
    T = _gravity_gradient(chain, q)
    K = np.column_stack([(_gravity_gradient(chain, q + step * e) - _gravity_gradient(chain, q - step * e))
                         / (2 * step) for e in np.eye(n)])
    Rs, os_, gs, ws = _forward_kinematics(chain, q)
    M = np.zeros((n, n))
    for k in range(n):
        Jv = np.zeros((3, n))
        Jw = np.zeros((3, n))
        for i in range(k + 1):
            Jv[:, i] = np.cross(ws[i], gs[k] - os_[i])
            Jw[:, i] = ws[i]
        Iw = Rs[k] @ chain["J"][k] @ Rs[k].T
        M += chain["m"][k] * Jv.T @ Jv + Jw.T @ Iw @ Jw
    return T, M, K


def random_chain(n, rng):
    """A random serial 3-D chain: dict of plain data (Appendix A layout)."""
    rng = np.random.default_rng(rng)
    chain = {"a": rng.normal(size=3) * 5.0, "axis_p": [], "P0": [], "m": [], "J": [], "PB": [], "PC": []}
    for _ in range(n):
        r = rng.normal(size=3)
        chain["axis_p"].append(r / np.linalg.norm(r))
        chain["P0"].append(dcm_from_rotvec(rng.normal(size=3)))
        chain["m"].append(rng.uniform(0.5, 3.0))
        L = rng.normal(size=(3, 3))
        chain["J"].append(L @ L.T * 0.1 + 0.05 * np.eye(3))
        chain["PB"].append(rng.normal(size=3) * 0.5)
        chain["PC"].append(rng.normal(size=3) * 0.8)
    return chain


def chain_tree(chain, angles, rotor_inertia=0.0):
    """The chain as an EquilibriumTree (bodies B0.., joints J0.., port C at PC)."""
    n = len(chain["m"])
    bodies = tuple(RigidBody(f"B{k}", mass=chain["m"][k], inertia=chain["J"][k], com=chain["PB"][k],
                             ports={"C": chain["PC"][k]}) for k in range(n))
    joints = tuple(RevoluteJoint(f"J{k}", parent=None if k == 0 else f"B{k - 1}",
                                 parent_port=None if k == 0 else "C", child=f"B{k}", axis=chain["axis_p"][k],
                                 P0=chain["P0"][k], angle=angles[k], rotor_inertia=rotor_inertia)
                   for k in range(n))
    return EquilibriumTree(bodies=bodies, connections=joints, field_acceleration=chain["a"])


def pendulum_tree(mass, angle, length=0.7, g0=9.81, rotor=0.03, Kp=0.4, Kd=0.2):
    """Example 1 of the paper: a point mass on a massless link of ``length`` below a joint."""
    from satdyn.equilibrium import Scaled

    body = RigidBody("bob", mass=mass, com=Scaled(length, [0.0, 0.0, -1.0]))
    joint = RevoluteJoint("J", parent=None, child="bob", axis=[1.0, 0.0, 0.0], angle=angle,
                          stiffness=Kp, damping=Kd, rotor_inertia=rotor)
    return EquilibriumTree(bodies=(body,), connections=(joint,), field_acceleration=[0.0, 0.0, g0])


__all__ = ["pendulum_tree", "pinocchio_arm", "pinocchio_trim_linearise", "appendix_a_recursion", "appendix_a_matrices",
           "potential_reference", "random_chain", "chain_tree", "skew"]


# ----------------------------------------------------------------------------- trees
def random_tree(n, rng):
    """A random tree: joint k attaches body k to body parent[k] (-1: ground) at a random
    point of the parent (its port ``C<k>``); skewed axes, random P0, full inertias."""
    rng = np.random.default_rng(rng)
    tree = random_chain(n, rng)
    tree["parent"] = [-1] + [int(rng.integers(-1, k)) for k in range(1, n)]
    tree["attach"] = [np.zeros(3) if tree["parent"][k] < 0 else rng.normal(size=3) * 0.8 for k in range(n)]
    return tree


def _tree_kinematics(tree, q):
    n = len(q)
    R, o, w, g = [None] * n, [None] * n, [None] * n, [None] * n
    for k in range(n):
        p = tree["parent"][k]
        Rp = np.eye(3) if p < 0 else R[p]
        op = np.zeros(3) if p < 0 else o[p]
        o[k] = op + Rp @ tree["attach"][k]
        w[k] = Rp @ tree["axis_p"][k]
        R[k] = Rp @ rodrigues(tree["axis_p"][k], q[k]) @ tree["P0"][k]
        g[k] = o[k] + R[k] @ tree["PB"][k]
    return R, o, w, g


def _ancestors(tree, k):
    out = []
    while k >= 0:
        out.append(k)
        k = tree["parent"][k]
    return out


def _tree_gradient(tree, q):
    R, o, w, g = _tree_kinematics(tree, q)
    grad = np.zeros(len(q))
    for k in range(len(q)):
        for i in _ancestors(tree, k):
            grad[i] += tree["m"][k] * tree["a"] @ np.cross(w[i], g[k] - o[i])
    return grad


def tree_potential_reference(tree, q, step=1e-6):
    """(Tbar, M, K) of a tree by the section 3.6 method (potential gradient + Jacobians)."""
    q = np.asarray(q, dtype=float)
    n = len(q)
    T = _tree_gradient(tree, q)
    K = np.column_stack([(_tree_gradient(tree, q + step * e) - _tree_gradient(tree, q - step * e)) / (2 * step)
                         for e in np.eye(n)])
    R, o, w, g = _tree_kinematics(tree, q)
    M = np.zeros((n, n))
    for k in range(n):
        Jv, Jw = np.zeros((3, n)), np.zeros((3, n))
        for i in _ancestors(tree, k):
            Jv[:, i] = np.cross(w[i], g[k] - o[i])
            Jw[:, i] = w[i]
        M += tree["m"][k] * Jv.T @ Jv + Jw.T @ (R[k] @ tree["J"][k] @ R[k].T) @ Jw
    return T, M, K


def tree_model(tree, angles):
    """The random tree as an EquilibriumTree (ports C<k> on the parents)."""
    n = len(tree["m"])
    ports = [dict() for _ in range(n)]
    for k in range(n):
        if tree["parent"][k] >= 0:
            ports[tree["parent"][k]][f"C{k}"] = tree["attach"][k]
    bodies = tuple(RigidBody(f"B{k}", mass=tree["m"][k], inertia=tree["J"][k], com=tree["PB"][k], ports=ports[k])
                   for k in range(n))
    joints = tuple(RevoluteJoint(f"J{k}", parent=None if tree["parent"][k] < 0 else f"B{tree['parent'][k]}",
                                 parent_port=None if tree["parent"][k] < 0 else f"C{k}", child=f"B{k}",
                                 axis=tree["axis_p"][k], P0=tree["P0"][k], angle=angles[k])
                   for k in range(n))
    return EquilibriumTree(bodies=bodies, connections=joints, field_acceleration=tree["a"])


__all__ += ["random_tree", "tree_potential_reference", "tree_model"]
