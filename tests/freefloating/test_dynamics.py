"""Dynamics vs Pinocchio with a free-flyer root (ABA, RNEA), modes and the corrected eq. (44).

Spec §11 tests 7, 18, 19.  Pinocchio is given the same masses/inertias/placements and
body-frame base velocities [R₀ᵀv₀; R₀ᵀω₀]; its base acceleration is converted with
v̇₀ = R₀(a_lin + ω_b×v_b), ω̇₀ = R₀a_ang (spec App. B).  Tolerance 1e-10 on accelerations of
O(1-10): Pinocchio and satdyn agree to ~1e-14; the negative controls miss by O(0.01-10).
"""

import numpy as np
import pinocchio as pin
import pytest
from oracle import pin_configuration, pin_velocity, pinocchio_model, random_model, random_state

from satdyn.freefloating import (
    ManeuveringMode,
    base_twist_from_momentum,
    base_wrench,
    block_derivatives,
    full_forward_dynamics,
    inertia_blocks,
    momentum_from_twist,
    reduced_forward_dynamics,
    reduced_forward_dynamics_with_momentum,
    reduced_inverse_dynamics,
)


def _aba(model, r0, R0, q, tw, qd, tau, force=None, torque=None):
    pm, pd, _ = pinocchio_model(model)
    fext = pin.StdVec_Force()
    for _ in range(pm.njoints):
        fext.append(pin.Force.Zero())
    if force is not None:
        fext[1] = pin.Force(R0.T @ force, R0.T @ torque)
    a = pin.aba(pm, pd, pin_configuration(r0, R0, q), pin_velocity(R0, tw, qd), np.concatenate([np.zeros(6), tau]),
                fext)
    vb, wb = R0.T @ tw[:3], R0.T @ tw[3:]
    return np.concatenate([R0 @ (a[:3] + np.cross(wb, vb)), R0 @ a[3:6]]), a[6:]


@pytest.mark.parametrize("n", range(1, 8))
def test_reduced_forward_dynamics_vs_aba(n):
    rng = np.random.default_rng(40 + n)
    model = random_model(n, 40 + n)
    r0, R0, q, qd = random_state(rng, n)
    tau = 5 * rng.normal(size=n)
    tw = base_twist_from_momentum(model, q, qd, r0, R0)   # zero momentum (eq. 109)
    _, qdd_ref = _aba(model, r0, R0, q, tw, qd, tau)
    qdd = reduced_forward_dynamics(model, q, qd, tau)
    np.testing.assert_allclose(qdd, qdd_ref, atol=1e-10)
    np.testing.assert_allclose(reduced_inverse_dynamics(model, q, qd, qdd_ref), tau, atol=1e-9)


def test_negative_control_flipped_coriolis_sign_fails():
    """c with +½ instead of −½ (the sign lost in the rendering) must miss Pinocchio by far."""
    n = 6
    rng = np.random.default_rng(5)
    model = random_model(n, 5)
    r0, R0, q, qd = random_state(rng, n)
    qd = 2 * qd
    tau = rng.normal(size=n)
    _, qdd_ref = _aba(model, r0, R0, q, base_twist_from_momentum(model, q, qd, r0, R0), qd, tau)
    der = block_derivatives(model, inertia_blocks(model, q))
    c_wrong = +0.5 * np.einsum("i,kij,j->k", qd, der.dH, qd)
    C_wrong = np.einsum("kij,k->ij", der.dH, qd) @ qd + c_wrong
    qdd_wrong = np.linalg.solve(der.H, tau - C_wrong)
    assert np.abs(qdd_wrong - qdd_ref).max() > 1e-3
    assert np.abs(reduced_forward_dynamics(model, q, qd, tau) - qdd_ref).max() < 1e-10


def test_batched_reduced_dynamics():
    n = 3
    model = random_model(n, 8)
    rng = np.random.default_rng(8)
    q, qd, tau = rng.normal(size=(3, 5, n))
    batch = reduced_forward_dynamics(model, q, qd, tau)
    np.testing.assert_allclose(batch[3], reduced_forward_dynamics(model, q[3], qd[3], tau[3]), atol=1e-14)


@pytest.mark.parametrize("n", [1, 4, 7])
def test_flying_mode_vs_aba_with_external_wrench(n):
    rng = np.random.default_rng(50 + n)
    model = random_model(n, 50 + n)
    r0, R0, q, qd = random_state(rng, n)
    tw = rng.normal(size=6)                                  # arbitrary momentum
    tau, f0, n0 = rng.normal(size=n), 10 * rng.normal(size=3), 10 * rng.normal(size=3)
    f, t = base_wrench("flying", f0, n0)
    acc = full_forward_dynamics(model, q, qd, tw, tau, f, t, r0, R0)
    base_ref, qdd_ref = _aba(model, r0, R0, q, tw, qd, tau, f0, n0)
    np.testing.assert_allclose(acc.base_acceleration, base_ref, atol=1e-10)
    np.testing.assert_allclose(acc.qddot, qdd_ref, atol=1e-10)
    # dP/dt = f0 and dL/dt = n0 − v0×P (momentum about the moving base CoM)
    h = 1e-6
    from satdyn.spatial import so3_exp

    def M(s):
        return momentum_from_twist(model, q + s * qd, qd + s * acc.qddot, tw + s * acc.base_acceleration,
                                   r0 + s * tw[:3], so3_exp(s * tw[3:]) @ R0)
    dM = (M(h) - M(-h)) / (2 * h)
    np.testing.assert_allclose(dM, np.concatenate([f0, n0 - np.cross(tw[:3], acc.momentum[:3])]), atol=1e-6)


def test_without_v_cross_P_term_fails():
    """Negative control: dropping −v₀×P from the base rows (the paper's c₀) misses ABA."""
    n = 4
    rng = np.random.default_rng(9)
    model = random_model(n, 9)
    r0, R0, q, qd = random_state(rng, n)
    tw = 2 * rng.normal(size=6)
    tau = rng.normal(size=n)
    acc = full_forward_dynamics(model, q, qd, tw, tau, None, None, r0, R0)
    P = acc.momentum[:3]
    wrong = full_forward_dynamics(model, q, qd, tw, tau, None, np.cross(tw[:3], P), r0, R0)
    _, qdd_ref = _aba(model, r0, R0, q, tw, qd, tau)
    assert np.abs(acc.qddot - qdd_ref).max() < 1e-10
    assert np.abs(wrong.qddot - qdd_ref).max() > 1e-3


@pytest.mark.parametrize("n", [2, 6])
def test_corrected_eq44_vs_aba_and_printed_form_fails(n):
    rng = np.random.default_rng(60 + n)
    model = random_model(n, 60 + n)
    r0, R0, q, qd = random_state(rng, n)
    L = 10 * rng.normal(size=3)
    tau = rng.normal(size=n)
    tw = base_twist_from_momentum(model, q, qd, r0, R0, momentum=np.concatenate([np.zeros(3), L]))
    _, qdd_ref = _aba(model, r0, R0, q, tw, qd, tau)
    good = reduced_forward_dynamics_with_momentum(model, q, qd, tau, L, r0, R0)
    printed = reduced_forward_dynamics_with_momentum(model, q, qd, tau, L, r0, R0, form="printed")
    np.testing.assert_allclose(good, qdd_ref, atol=1e-10)
    assert np.abs(printed - qdd_ref).max() > 1e-3


def test_mode_wrench_rules():
    with pytest.raises(ValueError, match="base_force"):
        base_wrench("rotation-flying", [1.0, 0, 0], [0, 0, 1.0])
    with pytest.raises(ValueError, match="base_torque"):
        base_wrench("translation_flying", [1.0, 0, 0], [0, 0, 1.0])
    with pytest.raises(ValueError, match="base_force"):
        base_wrench(ManeuveringMode.FLOATING, [1.0, 0, 0])
    with pytest.raises(ValueError, match="mode"):
        base_wrench("hovering")
    with pytest.raises(ValueError, match="wheels"):
        base_wrench("flying", wheel_momentum=[0, 0, 1.0])
    f, t = base_wrench("rotation-flying", None, [0, 0, 2.0])
    np.testing.assert_array_equal(f, 0.0)
    np.testing.assert_array_equal(t, [0, 0, 2.0])
