"""Test-only oracle for the free base: a two-link arm on a floating/buoyant base, as a
satdyn EquilibriumTree and as a Pinocchio model with a free-flyer root joint.

Pinocchio's free-flyer velocity is the base twist in the base frame (LOCAL) at the base
joint origin, and ``pin.integrate`` moves the base by ``exp`` of a local twist, so the
tangent coordinates ``(dp, dphi)`` at the equilibrium are the satdyn base coordinates (the
displacement of P in the equilibrium base frame, a small rotation vector in the base frame)
to first order. External wrenches enter Pinocchio's ABA/RNEA as ``fext`` (local joint frames).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from satdyn import lfr
from satdyn.equilibrium import EquilibriumTree, ExternalWrench, FreeBase, RevoluteJoint, RigidBody, Scaled
from satdyn.spatial import dcm_from_rotvec


def _random_inertia(rng, scale):
    A = rng.normal(size=(3, 3))
    return scale * (A @ A.T + 0.5 * np.eye(3))


@dataclass
class FreeArm:
    """Random geometry of a two-link arm on a free base (all lengths in m, body frames)."""

    field: np.ndarray          # a = -g, ground frame
    base_attitude: np.ndarray
    base_position: np.ndarray
    masses: np.ndarray         # base, link1, link2 (nominal)
    coms: list                 # from each body's port P
    inertias: list             # at the CoG
    port_base: np.ndarray      # J1 on the base
    port_link1: np.ndarray     # J2 on link 1
    tip_link1: np.ndarray      # an extra port of link 1 (pose output)
    axes: list                 # [r]_p of J1, J2
    P0s: list
    angles: np.ndarray         # equilibrium angles (nominal)
    kp: np.ndarray
    kd: np.ndarray
    buoyancy_dir: np.ndarray   # ground frame, on the base at point e_base
    buoyancy: float            # nominal magnitude [N]
    e_base: np.ndarray
    link2_force: np.ndarray    # inertial force + torque on link 2 at e_link2
    link2_torque: np.ndarray
    e_link2: np.ndarray
    thrust: np.ndarray         # body-fixed force on link 1 at its CoG


def random_free_arm(rng) -> FreeArm:
    a = rng.normal(size=3)
    a *= 9.81 / np.linalg.norm(a)
    return FreeArm(
        field=a, base_attitude=dcm_from_rotvec(rng.normal(size=3)), base_position=rng.normal(size=3),
        masses=rng.uniform(1.0, 5.0, 3), coms=[rng.normal(scale=0.3, size=3) for _ in range(3)],
        inertias=[_random_inertia(rng, 0.2) for _ in range(3)],
        port_base=rng.normal(scale=0.5, size=3), port_link1=rng.normal(scale=0.5, size=3),
        tip_link1=rng.normal(scale=0.5, size=3),
        axes=[v / np.linalg.norm(v) for v in rng.normal(size=(2, 3))],
        P0s=[dcm_from_rotvec(rng.normal(size=3)) for _ in range(2)],
        angles=rng.uniform(-2.5, 2.5, 2), kp=rng.uniform(0.1, 1.0, 2), kd=rng.uniform(0.05, 0.5, 2),
        buoyancy_dir=-a / np.linalg.norm(a), buoyancy=rng.uniform(20.0, 60.0), e_base=rng.normal(scale=0.3, size=3),
        link2_force=rng.normal(size=3), link2_torque=rng.normal(size=3), e_link2=rng.normal(scale=0.3, size=3),
        thrust=rng.normal(size=3))


def free_arm_parameters(arm: FreeArm) -> dict:
    """Uncertain masses and buoyancy (+-20 %), scheduling angles (tan_half)."""
    p = {f"m{i}": lfr.ureal(f"m{i}", float(arm.masses[i]), percent=20) for i in range(3)}
    p["b"] = lfr.ureal("b", arm.buoyancy, percent=20)
    for i in range(2):
        p[f"theta{i + 1}"] = lfr.vreal(f"theta{i + 1}", float(arm.angles[i]), range=(-3.0, 3.0), transform="tan_half")
    return p


def free_arm_tree(arm: FreeArm, params: dict | None = None) -> EquilibriumTree:
    """The satdyn tree; ``params`` (from :func:`free_arm_parameters`) makes entries symbolic."""
    p = params or {}
    m = [p.get(f"m{i}", float(arm.masses[i])) for i in range(3)]
    th = [p.get(f"theta{i + 1}", float(arm.angles[i])) for i in range(2)]
    b = p.get("b", arm.buoyancy)
    bodies = (RigidBody("base", m[0], arm.inertias[0], arm.coms[0], {"J1": arm.port_base}),
              RigidBody("link1", m[1], arm.inertias[1], arm.coms[1], {"J2": arm.port_link1, "tip": arm.tip_link1}),
              RigidBody("link2", m[2], arm.inertias[2], arm.coms[2]))
    joints = (RevoluteJoint("J1", "base", "link1", arm.axes[0], th[0], parent_port="J1", P0=arm.P0s[0],
                            stiffness=arm.kp[0], damping=arm.kd[0]),
              RevoluteJoint("J2", "link1", "link2", arm.axes[1], th[1], parent_port="J2", P0=arm.P0s[1],
                            stiffness=arm.kp[1], damping=arm.kd[1]))
    wrenches = (ExternalWrench("buoyancy", "base", force=Scaled(b, arm.buoyancy_dir), point=arm.e_base),
                ExternalWrench("drag", "link2", force=arm.link2_force, torque=arm.link2_torque, point=arm.e_link2),
                ExternalWrench("thrust", "link1", force=arm.thrust, point=arm.coms[1], frame="body"))
    return EquilibriumTree(bodies, joints, arm.field, base=FreeBase("base", arm.base_attitude, arm.base_position),
                           external_wrenches=wrenches)


def pinocchio_free_arm(arm: FreeArm, values: dict):
    """Pinocchio model at the parameter point ``values`` (masses m0..m2 override the nominal)."""
    m = [values.get(f"m{i}", arm.masses[i]) for i in range(3)]
    model = pin.Model()
    jb = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "base")
    model.appendBodyToJoint(jb, pin.Inertia(m[0], arm.coms[0], arm.inertias[0]), pin.SE3.Identity())
    # Child frame = placement (P0, port) * rotation about the axis in child coordinates:
    # P_{c/p} = P0 R([r]_c, theta) = R([r]_p, theta) P0 with [r]_c = P0^T [r]_p.
    j1 = model.addJoint(jb, pin.JointModelRevoluteUnaligned(arm.P0s[0].T @ arm.axes[0]),
                        pin.SE3(arm.P0s[0], arm.port_base), "J1")
    model.appendBodyToJoint(j1, pin.Inertia(m[1], arm.coms[1], arm.inertias[1]), pin.SE3.Identity())
    j2 = model.addJoint(j1, pin.JointModelRevoluteUnaligned(arm.P0s[1].T @ arm.axes[1]),
                        pin.SE3(arm.P0s[1], arm.port_link1), "J2")
    model.appendBodyToJoint(j2, pin.Inertia(m[2], arm.coms[2], arm.inertias[2]), pin.SE3.Identity())
    model.gravity = pin.Motion(np.concatenate([-arm.field, np.zeros(3)]))
    return model


def equilibrium_configuration(arm: FreeArm, values: dict) -> np.ndarray:
    theta = [values.get(f"theta{i + 1}", arm.angles[i]) for i in range(2)]
    quat = pin.Quaternion(arm.base_attitude).coeffs()  # x, y, z, w
    return np.concatenate([arm.base_position, quat, theta])


def _fext(model, data, arm, values, q):
    """External forces in the local joint frames at configuration ``q``."""
    pin.forwardKinematics(model, data, q)
    b = values.get("b", arm.buoyancy)
    fext = [pin.Force.Zero() for _ in range(model.njoints)]

    def add(joint, f_local, t_local, e):
        fext[joint] = fext[joint] + pin.Force(f_local, t_local + np.cross(e, f_local))

    R = [data.oMi[i].rotation for i in range(model.njoints)]
    add(1, R[1].T @ (b * arm.buoyancy_dir), np.zeros(3), arm.e_base)
    add(3, R[3].T @ arm.link2_force, R[3].T @ arm.link2_torque, arm.e_link2)
    add(2, arm.thrust, np.zeros(3), arm.coms[1])
    return fext


def pinocchio_trim_linearise(arm: FreeArm, values: dict, step: float):
    """Trim (RNEA at rest) and central-difference linearisation of ABA in tangent coordinates.

    Returns (u0 (8,) = [base wrench (6, local); joint torques (2)], A (16, 16), B (16, 8)).
    """
    model = pinocchio_free_arm(arm, values)
    data = model.createData()
    q0 = equilibrium_configuration(arm, values)
    N = model.nv
    u0 = pin.rnea(model, data, q0, np.zeros(N), np.zeros(N), _fext(model, data, arm, values, q0))
    stiff = np.concatenate([np.zeros(6), arm.kp])
    damp = np.concatenate([np.zeros(6), arm.kd])

    def f(x, u):
        q = pin.integrate(model, q0, x[:N])
        v = x[N:]
        tau = u - stiff * x[:N] - damp * v
        return np.concatenate([v, pin.aba(model, data, q, v, tau, _fext(model, data, arm, values, q))])

    x0 = np.zeros(2 * N)
    A = np.column_stack([(f(x0 + step * e, u0) - f(x0 - step * e, u0)) / (2 * step) for e in np.eye(2 * N)])
    B = np.column_stack([(f(x0, u0 + step * e) - f(x0, u0 - step * e)) / (2 * step) for e in np.eye(N)])
    return u0, A, B


def fd_point_poses(model, q0, points, step: float):
    """For each (joint index, point in the joint frame) of the Pinocchio ``model`` at ``q0``:
    central differences of the point's pose
    ``[R0^T (p(h) - p(-h)); log(R0^T R(h)) - log(R0^T R(-h))] / 2h`` along each tangent
    coordinate (6, nv), its LOCAL Jacobian (6, nv), its position in its body frame
    ``R0^T p0`` and its body's attitude ``R0``."""
    data = model.createData()

    def placements(q):
        pin.forwardKinematics(model, data, q)
        return [data.oMi[j] * pin.SE3(np.eye(3), np.asarray(x, dtype=float)) for j, x in points]

    base = placements(q0)
    plus = [placements(pin.integrate(model, q0, step * e)) for e in np.eye(model.nv)]
    minus = [placements(pin.integrate(model, q0, -step * e)) for e in np.eye(model.nv)]
    pin.computeJointJacobians(model, data, q0)
    out = []
    for k, M0 in enumerate(base):
        R0 = M0.rotation
        cols = [np.concatenate([R0.T @ (p[k].translation - m[k].translation),
                                pin.log3(R0.T @ p[k].rotation) - pin.log3(R0.T @ m[k].rotation)]) / (2 * step)
                for p, m in zip(plus, minus)]
        j, x = points[k]
        J = pin.getJointJacobian(model, data, j, pin.LOCAL)
        J = np.vstack([J[:3] + np.cross(J[3:].T, x).T, J[3:]])  # v_X = v_J + omega x JX
        out.append((np.column_stack(cols), J, R0.T @ M0.translation, R0))
    return out
