"""Adapters to Pinocchio's spatial accelerations and to SPART's [angular; linear] order.

Oracle: Pinocchio's own classical/spatial frame accelerations on its sample manipulator
at random states (same formula in exact arithmetic; 1e-10 covers the kinematic chain's
rounding on O(10) values).
"""

import numpy as np
import pinocchio as pin
import pytest

from satdyn import spatial as sp


def test_classical_acceleration_matches_pinocchio_frames():
    model = pin.buildSampleModelManipulator()
    data = model.createData()
    rng = np.random.default_rng(30)
    for _ in range(10):
        q = pin.randomConfiguration(model)
        v = rng.normal(size=model.nv)
        a = rng.normal(size=model.nv)
        pin.forwardKinematics(model, data, q, v, a)
        pin.updateFramePlacements(model, data)
        for frame_id in range(1, model.nframes):
            for ref in (pin.LOCAL, pin.LOCAL_WORLD_ALIGNED):
                twist = pin.getFrameVelocity(model, data, frame_id, ref).vector
                spatial = pin.getFrameAcceleration(model, data, frame_id, ref).vector
                classical = pin.getFrameClassicalAcceleration(model, data, frame_id, ref).vector
                if ref == pin.LOCAL:
                    ours = sp.classical_from_spatial_acceleration(spatial, twist)
                    assert np.allclose(ours, classical, atol=1e-10)
                back = sp.spatial_from_classical_acceleration(classical, twist)
                if ref == pin.LOCAL:
                    assert np.allclose(back, spatial, atol=1e-10)


def test_classical_acceleration_is_the_second_derivative_of_a_point():
    # A point fixed on a body spinning at omega about z with omega_dot: analytic a = omega_dot x r - omega^2 r.
    omega, omega_dot, r = 2.0, 0.5, np.array([1.0, 0.0, 0.0])
    v = np.r_[np.cross([0, 0, omega], r), 0, 0, omega]  # twist of the point, in the body frame
    # In the body frame the point does not move: its spatial acceleration is d/dt [v]_b = [omega_dot x r; ...].
    spatial = np.r_[np.cross([0, 0, omega_dot], r), 0, 0, omega_dot]
    classical = sp.classical_from_spatial_acceleration(spatial, v)
    assert np.allclose(classical[:3], np.cross([0, 0, omega_dot], r) - omega**2 * r, atol=1e-15)


def test_spart_order_permutes_halves_of_vectors_and_matrices():
    rng = np.random.default_rng(31)
    x = rng.normal(size=(4, 6))
    assert np.array_equal(sp.to_angular_linear(x), np.c_[x[:, 3:], x[:, :3]])
    assert np.array_equal(sp.from_angular_linear(sp.to_angular_linear(x)), x)
    R = sp.so3_exp(rng.normal(size=3))
    p = rng.normal(size=3)
    T = sp.to_angular_linear(sp.motion_transform(R, p), matrix=True)
    # In [angular; linear] order the same twist map reads [[R, 0], [skew(p) R, R]].
    assert np.allclose(T, np.block([[R, np.zeros((3, 3))], [sp.skew(p) @ R, R]]), atol=1e-14)
    D = sp.rigid_mass_matrix(2.0, np.eye(3), p)
    assert np.array_equal(sp.from_angular_linear(sp.to_angular_linear(D, matrix=True), matrix=True), D)


def test_adapter_error_paths():
    with pytest.raises(ValueError, match="`twist`"):
        sp.classical_from_spatial_acceleration(np.zeros(6), np.zeros(5))
    with pytest.raises(ValueError, match="`x`"):
        sp.to_angular_linear(np.zeros(6), matrix=True)
    with pytest.raises(ValueError, match="batch"):
        sp.spatial_from_classical_acceleration(np.zeros((2, 6)), np.zeros((3, 6)))
