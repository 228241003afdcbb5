"""Closed- or open-loop simulation on scipy's ``solve_ivp``, recording states, momenta, energy, CoM drift.

Two state layouts, chosen by the maneuvering mode:

* **reduced** (floating with zero momentum, the paper's path): y = [r₀ (3), q̄₀ (4, scalar-last),
  q (N), q̇ (N)]; q̈ from H q̈ + C = τ (eq. 50) and the base from ẋ₀ = −H₀⁻¹H₀ₘq̇ (eq. 109),
  integrated as r₀ and a quaternion (q̄̇ = ½[ω₀; 0]⊗q̄, inertial ω₀; implementation notes §2.9).
* **full** (every other mode, or non-zero initial momentum): y = [r₀, q̄₀, v₀ (3), ω₀ (3), q, q̇,
  h_w (3)] with the momentum-form (6+N) dynamics and the mode's base wrench (implementation notes §6.1).

Integration is piecewise between the command breakpoints (the rate command jumps there).
Momenta in the record are computed *independently* of the equations of motion, from the
link velocities (eqs. 15-16): P = Σ mᵢṙᵢ and L about the inertial origin Ω.

Arguments (dimensions)
----------------------
* ``model`` : SpacecraftManipulator (N joints).
* ``controller`` : ComputedTorqueController, or ``joint_torque(t, q, qdot) -> (N,)``.
* ``q0``, ``qdot0`` (N,); ``base_position`` (3,); ``base_quaternion`` (4,) [x, y, z, w].
* ``base_twist0`` (6,) [v0; ω0] in 𝒥 (full layout only; default from ``momentum``).
* ``base_wrench(t, state) -> (force (3,), torque (3,))`` in 𝒥; ``wheel_torque(t, state) -> ḣ_w (3,)``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.integrate import solve_ivp

from .._validation import as_batch_of, as_float_array
from ..spatial import dcm_from_quaternion, euler_from_dcm, quaternion_derivative
from .backend import check_backend, pinocchio_system
from .control import ComputedTorqueController
from .derivatives import block_derivatives, coriolis_terms
from .dynamics import full_forward_dynamics, reduced_terms
from .inertia import base_inertia_inverse, blocks_from_kinematics
from .kinematics import _cross, _forward_kinematics, link_velocities, system_com
from .model import SpacecraftManipulator
from .modes import ManeuveringMode, as_mode
from .modes import base_wrench as mode_wrench

__all__ = ["SimulationResult", "simulate", "momentum_report"]


@dataclasses.dataclass(frozen=True)
class SimulationResult:
    """Recorded trajectory (T samples).  Vectors in the inertial frame 𝒥.

    Attributes
    ----------
    t : (T,) [s]
    q, qdot, tau : (T, N)
    base_position : (T, 3) [m]
    base_quaternion : (T, 4), scalar-last
    base_euler : (T, 3) [rad]
        (ϕ, θ, ψ) with R₀ = Rz(ψ)Ry(θ)Rx(ϕ) — the paper's "Euler 1-2-3" = satdyn's 3-2-1 matrix.
    base_twist : (T, 6) [v0; ω0] in 𝒥
    linear_momentum, angular_momentum : (T, 3)
        Total P and L about the inertial origin Ω (from link velocities).
    base_linear_momentum, base_angular_momentum : (T, 3)
        Base contribution; the manipulator's is total − base.
    kinetic_energy : (T,) [J]
    system_com : (T, 3) [m]
    com_drift : (T,) [m], |r_C(t) − r_C(0)|
    mode : str
    layout : str, "reduced" or "full"
    nfev : int
    wheel_momentum : (T, 3) [N m s]
        Stored reaction-wheel momentum h_w in the base frame (zero without wheels); the total
        angular momentum with wheels is ``angular_momentum + R₀ h_w``.
    """

    t: np.ndarray
    q: np.ndarray
    qdot: np.ndarray
    tau: np.ndarray
    base_position: np.ndarray
    base_quaternion: np.ndarray
    base_euler: np.ndarray
    base_twist: np.ndarray
    linear_momentum: np.ndarray
    angular_momentum: np.ndarray
    base_linear_momentum: np.ndarray
    base_angular_momentum: np.ndarray
    kinetic_energy: np.ndarray
    system_com: np.ndarray
    com_drift: np.ndarray
    mode: str
    layout: str
    nfev: int
    wheel_momentum: np.ndarray = None

    @property
    def manipulator_linear_momentum(self) -> np.ndarray:
        return self.linear_momentum - self.base_linear_momentum

    @property
    def manipulator_angular_momentum(self) -> np.ndarray:
        return self.angular_momentum - self.base_angular_momentum


def momentum_report(model, q, qdot, base_position, base_attitude, base_twist):
    """Momenta, kinetic energy and CoM from link velocities (independent of the EOM), batched.

    Returns
    -------
    dict with ``P``, ``L`` (about Ω), ``P_base``, ``L_base`` (..., 3), ``T`` (...,), ``com`` (..., 3).
    """
    kin = _forward_kinematics(model, q, base_position, base_attitude)
    rdot, w = link_velocities(kin, base_twist, qdot)
    m, m0 = model.link_masses, model.base_mass
    v0, w0 = base_twist[..., :3], base_twist[..., 3:]
    P_base = m0 * v0
    L_base = np.einsum("...ij,...j->...i", kin.base_inertia, w0) + _cross(base_position, P_base)
    p_links = m[:, None] * rdot
    L_links = np.einsum("...nij,...nj->...ni", kin.link_inertias, w) + _cross(kin.link_coms, p_links)
    T = 0.5 * (np.einsum("...i,...ij,...j->...", w0, kin.base_inertia, w0) + m0 * np.einsum("...i,...i", v0, v0)
               + np.einsum("...ni,...nij,...nj->...", w, kin.link_inertias, w)
               + np.einsum("n,...ni,...ni->...", m, rdot, rdot))
    return {"P": P_base + p_links.sum(-2), "L": L_base + L_links.sum(-2), "P_base": P_base, "L_base": L_base,
            "T": T, "com": system_com(model, kin)}


def _torque_function(controller, joint_torque):
    if controller is not None and joint_torque is not None:
        raise ValueError("give either `controller` or `joint_torque`, not both")
    if controller is None and joint_torque is None:
        return None
    if controller is not None and not isinstance(controller, ComputedTorqueController):
        raise TypeError("`controller` must be a ComputedTorqueController")
    return controller


def simulate(model, *, controller=None, joint_torque=None, t_final=None, mode=ManeuveringMode.FLOATING,
             q0=None, qdot0=None, base_position=None, base_quaternion=None, momentum=None, base_twist0=None,
             base_wrench=None, wheel_torque=None, wheel_momentum0=None, sample_dt=0.1, method="DOP853",
             rtol=1e-10, atol=1e-12, progress=None, backend="numpy") -> SimulationResult:
    """Integrate the spacecraft-manipulator in a maneuvering mode and record diagnostics.

    Parameters
    ----------
    model : SpacecraftManipulator
    controller : ComputedTorqueController, optional
        Its command's breakpoints split the integration; ``t_final`` defaults to its duration.
    joint_torque : callable ``(t, q, qdot) -> tau``, optional
        Open-loop/other joint torque (zero torque if neither is given).
    t_final : float
    mode : ManeuveringMode or str
    q0, qdot0 : array_like (N,), optional
        Default zero.
    base_position : (3,), base_quaternion : (4,), optional
        Initial base pose; default origin and identity.
    momentum : (6,), optional
        Initial [P; L] (L about the base CoM) for the base twist; default zero.  Non-zero
        momentum selects the full layout.
    base_twist0 : (6,), optional
        Initial [v0; ω0] in 𝒥 (full layout; overrides ``momentum``).
    base_wrench, wheel_torque : callables ``(t, state)``, optional
        Mode inputs (see module docstring); checked against the mode.
    sample_dt : float
        Recording step [s] (breakpoints are recorded too).
    method, rtol, atol : solve_ivp settings (default DOP853, 1e-10, 1e-12).
    progress : callable ``(t_done, t_final)``, optional
        Called after each integrated piece.
    backend : {"numpy", "pinocchio"}
        Dynamics of the right-hand side: the paper's closed-form blocks (default) or Pinocchio's
        CRBA / RNEA / ABA (:mod:`satdyn.freefloating.backend`); the recording is numpy either way.

    Returns
    -------
    SimulationResult
    """
    if not isinstance(model, SpacecraftManipulator):
        raise TypeError(f"`model` must be a SpacecraftManipulator; got {type(model).__name__}")
    for value, label in ((rtol, "rtol"), (atol, "atol"), (sample_dt, "sample_dt")):
        if not float(as_float_array(value, label)) > 0.0:
            raise ValueError(f"`{label}` must be positive; got {value!r}")
    mode = as_mode(mode)
    pin_system = pinocchio_system(model) if check_backend(backend) == "pinocchio" else None
    n = model.n_joints
    ctrl = _torque_function(controller, joint_torque)
    if t_final is None:
        if controller is None:
            raise ValueError("`t_final` is required without a controller")
        t_final = controller.command.duration
    t_final = float(t_final)
    if not t_final > 0:
        raise ValueError(f"`t_final` must be positive; got {t_final}")
    q0 = np.zeros(n) if q0 is None else as_batch_of(q0, (n,), "q0")
    qdot0 = np.zeros(n) if qdot0 is None else as_batch_of(qdot0, (n,), "qdot0")
    r0 = np.zeros(3) if base_position is None else as_batch_of(base_position, (3,), "base_position")
    quat0 = (np.array([0.0, 0.0, 0.0, 1.0]) if base_quaternion is None
             else as_batch_of(base_quaternion, (4,), "base_quaternion"))
    quat0 = quat0 / np.linalg.norm(quat0)
    M0 = np.zeros(6) if momentum is None else as_batch_of(momentum, (6,), "momentum")
    reduced = (mode is ManeuveringMode.FLOATING and not np.any(M0) and base_twist0 is None
               and base_wrench is None and wheel_torque is None and wheel_momentum0 is None)
    if not mode.uses_wheels and (wheel_torque is not None or wheel_momentum0 is not None):
        raise ValueError(f"reaction wheels are not part of mode {mode.value!r}")

    def torque(t, q, qd, H, C):
        if ctrl is None:
            return np.zeros(n) if joint_torque is None else as_batch_of(joint_torque(t, q, qd), (n,), "joint_torque")
        return ctrl.torque(t, q, qd, H, C)

    def blocks_at(r, quat, q):
        R0 = dcm_from_quaternion(quat)
        kin = _forward_kinematics(model, q, r, R0)
        return R0, blocks_from_kinematics(model, kin)

    def rhs_reduced(t, y):
        r, quat, q, qd = y[:3], y[3:7], y[7:7 + n], y[7 + n:]
        if pin_system is not None:
            H, C, tw, _, _ = pin_system.reduced(r, dcm_from_quaternion(quat / np.linalg.norm(quat)), q, qd)
            qdd = np.linalg.solve(H, torque(t, q, qd, H, C) - C)
            return np.concatenate([tw[:3], quaternion_derivative(quat, tw[3:], "inertial"), qd, qdd])
        R0, blocks = blocks_at(r, quat, q)
        H0inv = base_inertia_inverse(blocks)
        der = block_derivatives(model, blocks, H0inv)
        C = coriolis_terms(der.dH, qd)
        qdd = np.linalg.solve(der.H, torque(t, q, qd, der.H, C) - C)
        tw = -der.H0inv_H0m @ qd
        return np.concatenate([tw[:3], quaternion_derivative(quat, tw[3:], "inertial"), qd, qdd])

    def split_full(y):
        return y[:3], y[3:7], y[7:13], y[13:13 + n], y[13 + n:13 + 2 * n], y[13 + 2 * n:]

    def rhs_full(t, y):
        r, quat, tw, q, qd, hw = split_full(y)
        R0 = dcm_from_quaternion(quat / np.linalg.norm(quat))
        f = nt = None
        if base_wrench is not None:
            f, nt = base_wrench(t, y)
        hwd = np.zeros(3) if wheel_torque is None else as_batch_of(wheel_torque(t, y), (3,), "wheel_torque")
        wheels = mode.uses_wheels
        f, nt = mode_wrench(mode, f, nt, base_attitude=R0, base_angular_velocity=tw[3:],
                            wheel_momentum=hw if wheels else None, wheel_momentum_rate=hwd if wheels else None)
        H = C = None
        if ctrl is not None:
            if pin_system is not None:
                H, C = pin_system.reduced(r, R0, q, qd)[:2]
            else:
                red = reduced_terms(model, q, qd)
                H, C = red.H, red.C
        tau = torque(t, q, qd, H, C)
        if pin_system is not None:
            base_acc, qdd = pin_system.full_acceleration(r, R0, tw, q, qd, tau, f, nt)
        else:
            acc = full_forward_dynamics(model, q, qd, tw, tau, f, nt, r, R0)
            base_acc, qdd = acc.base_acceleration, acc.qddot
        return np.concatenate([tw[:3], quaternion_derivative(quat, tw[3:], "inertial"), base_acc, qd, qdd, hwd])

    if reduced:
        y0 = np.concatenate([r0, quat0, q0, qdot0])
        rhs = rhs_reduced
    else:
        R0 = dcm_from_quaternion(quat0)
        if base_twist0 is None:
            blocks = blocks_from_kinematics(model, _forward_kinematics(model, q0, r0, R0))
            hw0 = np.zeros(3) if wheel_momentum0 is None else as_batch_of(wheel_momentum0, (3,), "wheel_momentum0")
            tw0 = base_inertia_inverse(blocks) @ (M0 - np.r_[0, 0, 0, R0 @ hw0] - blocks.H0m @ qdot0)
        else:
            tw0 = as_batch_of(base_twist0, (6,), "base_twist0")
        hw0 = np.zeros(3) if wheel_momentum0 is None else as_batch_of(wheel_momentum0, (3,), "wheel_momentum0")
        y0 = np.concatenate([r0, quat0, tw0, q0, qdot0, hw0])
        rhs = rhs_full

    cuts = [0.0, t_final]
    if controller is not None:
        cuts += [b for b in controller.command.breakpoints() if 0.0 < b < t_final]
    cuts = np.unique(cuts)
    samples = np.union1d(np.arange(0.0, t_final, sample_dt), cuts)
    ts, ys, nfev = [], [], 0
    y = y0
    for a, b in zip(cuts[:-1], cuts[1:]):
        te = samples[(samples >= a) & (samples <= b)]
        sol = solve_ivp(rhs, (a, b), y, method=method, rtol=rtol, atol=atol, t_eval=te)
        if sol.status != 0:
            raise RuntimeError(f"integration failed at t = {sol.t[-1]:.6g} s: {sol.message}")
        nfev += sol.nfev
        keep = slice(1, None) if ts else slice(None)
        ts.append(sol.t[keep])
        ys.append(sol.y.T[keep])
        y = sol.y[:, -1].copy()
        y[3:7] /= np.linalg.norm(y[3:7])
        if progress is not None:
            progress(b, t_final)
    t = np.concatenate(ts)
    Y = np.concatenate(ys)
    return _record(model, mode, ctrl, joint_torque, t, Y, reduced, nfev)


def _record(model, mode, ctrl, joint_torque, t, Y, reduced, nfev) -> SimulationResult:
    n = model.n_joints
    r, quat = Y[:, :3], Y[:, 3:7] / np.linalg.norm(Y[:, 3:7], axis=1, keepdims=True)
    R0 = dcm_from_quaternion(quat)
    kin = _forward_kinematics(model, Y[:, 7:7 + n] if reduced else Y[:, 13:13 + n], r, R0)
    blocks = blocks_from_kinematics(model, kin)
    if reduced:
        q, qd = Y[:, 7:7 + n], Y[:, 7 + n:]
        der = block_derivatives(model, blocks)
        tw = -np.einsum("tij,tj->ti", der.H0inv_H0m, qd)
    else:
        tw, q, qd = Y[:, 7:13], Y[:, 13:13 + n], Y[:, 13 + n:13 + 2 * n]
        der = block_derivatives(model, blocks)
    H, C = der.H, coriolis_terms(der.dH, qd)
    if ctrl is not None:
        tau = ctrl.torque(t, q, qd, H, C)
    elif joint_torque is not None:
        tau = np.array([joint_torque(ti, qi, qdi) for ti, qi, qdi in zip(t, q, qd)])
    else:
        tau = np.zeros_like(q)
    rep = momentum_report(model, q, qd, r, R0, tw)
    com = rep["com"]
    return SimulationResult(
        t=t, q=q, qdot=qd, tau=tau, base_position=r, base_quaternion=quat, base_euler=euler_from_dcm(R0),
        base_twist=tw, linear_momentum=rep["P"], angular_momentum=rep["L"], base_linear_momentum=rep["P_base"],
        base_angular_momentum=rep["L_base"], kinetic_energy=rep["T"], system_com=com,
        com_drift=np.linalg.norm(com - com[0], axis=1), mode=mode.value, layout="reduced" if reduced else "full",
        nfev=int(nfev), wheel_momentum=np.zeros((len(t), 3)) if reduced else Y[:, 13 + 2 * n:])
