"""Virtual Manipulator (Vafa & Dubowsky) against the forward kinematics and the GJM end-effector map.

* Position: the VM ends at the real end effector and starts at the system CoM (an algebraic
  identity of the mass-weighted link sums): 1e-12 relative, rounding of O(1 m) sums.
* Velocity: with zero momentum (base twist from momentum conservation), the VM's end-effector
  velocity ω0 × (r_E − r_C) + Σ k_j × (r_E − P_j) q̇_j equals the GJM map J* q̇ (eq. 110): a
  different formula (VM geometry vs H₀⁻¹H₀ₘ) for the same velocity: 1e-10, a few hundred ulps of
  the inertia solve.
* The ground does not move: its velocity from finite differences of the VM along a zero-momentum
  motion is zero to the integration/differencing error (central differences, step 1e-6: 1e-8).
"""

import numpy as np
import pytest

from oracle import random_model, random_state
from satdyn import freefloating as ff


@pytest.mark.parametrize("n, seed", [(1, 0), (3, 1), (6, 2), (7, 3)])
def test_vm_ends_at_the_end_effector_and_starts_at_the_system_com(n, seed):
    model = random_model(n, seed)
    rng = np.random.default_rng(seed)
    r0, R0, q, _ = random_state(rng, n)
    vm = ff.virtual_manipulator(model, q, r0, R0)
    kin = ff.forward_kinematics(model, q, r0, R0)
    assert np.allclose(vm.ee_position, kin.ee_position, rtol=1e-12, atol=1e-12)
    assert np.allclose(vm.ground, ff.system_com(model, kin), rtol=1e-12, atol=1e-12)
    assert vm.mass_fractions[-1] == pytest.approx(1.0, rel=1e-15)


@pytest.mark.parametrize("n, seed", [(2, 4), (5, 5), (7, 6)])
def test_vm_velocity_is_the_gjm_end_effector_velocity(n, seed):
    model = random_model(n, seed)
    rng = np.random.default_rng(seed)
    r0, R0, q, qdot = random_state(rng, n)
    twist0 = ff.base_twist_from_momentum(model, q, qdot, r0, R0)   # zero momentum
    vm = ff.virtual_manipulator(model, q, r0, R0)
    expected = (ff.generalized_jacobian(model, q, base_position=r0, base_attitude=R0) @ qdot)[:3]
    assert np.allclose(vm.end_effector_velocity(twist0[3:], qdot), expected, rtol=1e-10, atol=1e-10)


def test_vm_ground_is_fixed_along_a_zero_momentum_motion():
    model = random_model(4, 8)
    rng = np.random.default_rng(8)
    r0, R0, q, qdot = random_state(rng, 4)
    twist0 = ff.base_twist_from_momentum(model, q, qdot, r0, R0)
    h = 1e-6
    from satdyn.spatial import so3_exp

    def ground_at(s):
        return ff.virtual_manipulator(model, q + s * qdot, r0 + s * twist0[:3], so3_exp(s * twist0[3:]) @ R0).ground

    velocity = (ground_at(h) - ground_at(-h)) / (2 * h)
    assert np.abs(velocity).max() < 1e-8
