"""The tugs' limits (satdyn.detumbling.tugs): lumped mass, thrust allocation and saturation.

References: the client + tugs momenta and kinetic energy against the client's own momenta plus
each tug's point-mass/rigid-body contribution computed from the grasp-point velocities (a second
route through satdyn.detumbling.dynamics); the allocation against the exact inverse (feasible),
the KKT conditions of bounded least squares and the closed-form clip of this thruster layout
(saturated); the closed loop is checked against the tugs' thrust bounds and the fused kernel
against the reference right-hand side.
"""

import numpy as np
import pytest

from satdyn.detumbling import dynamics as dyn
from satdyn.detumbling import run_metrics, simulate
from satdyn.detumbling.kernel import make_fused_rhs
from satdyn.detumbling.simulate import closed_loop, closed_loop_rhs, initial_state_vector
from satdyn.detumbling.tugs import TugModel, with_tug_masses
from satdyn.spatial import quaternion_from_dcm, so3_exp

from .conftest import random_state

TUG = TugModel(mass=20.0, inertia=np.diag([2.0, 3.0, 4.0]), arm=1.0, max_thrust=20.0)


def test_lumped_tug_mass_momenta_by_a_second_route(client, rng):
    heavy = with_tug_masses(client, (TUG, TUG))
    assert heavy.total_mass == pytest.approx(client.total_mass + 2 * TUG.mass, rel=1e-15)
    for _ in range(5):
        p, R1, R2, nu = random_state(rng)
        twists = dyn.grasp_twists(client, R1, R2, nu)  # (2, 6): [velocity of the grasp point; omega]
        grasp_points = [p + R1 @ client.grasp1, p + R2 @ client.grasp2]
        L = dyn.linear_momentum(client, R1, R2, nu) + TUG.mass * (twists[0, :3] + twists[1, :3])
        H = dyn.angular_momentum(client, p, R1, R2, nu)  # about the world origin
        T = dyn.kinetic_energy(client, R1, R2, nu)
        for r, tw, R in zip(grasp_points, twists, (R1, R2)):
            I_world = R @ TUG.inertia @ R.T
            H = H + TUG.mass * np.cross(r, tw[:3]) + I_world @ tw[3:]
            T += 0.5 * TUG.mass * tw[:3] @ tw[:3] + 0.5 * tw[3:] @ I_world @ tw[3:]
        # the same sums, exact algebra both ways: round-off of terms ~1e3
        np.testing.assert_allclose(dyn.linear_momentum(heavy, R1, R2, nu), L, atol=1e-10)
        np.testing.assert_allclose(dyn.angular_momentum(heavy, p, R1, R2, nu), H, atol=1e-10)
        assert dyn.kinetic_energy(heavy, R1, R2, nu) == pytest.approx(T, rel=1e-12)
    # a massless tug changes nothing (the paper's ideal tugs)
    assert with_tug_masses(client, (TugModel(), TugModel())).link1 is client.link1


def test_allocation_exact_when_feasible(rng):
    B = TUG.allocation_matrix
    for _ in range(10):
        u = rng.uniform(-TUG.max_thrust, TUG.max_thrust, size=6)
        w = B @ u  # a deliverable wrench
        # exact inverse of a well-conditioned 6x6 (cond 1.4 for arm 1 m): round-off ~1e-15 of |w|
        np.testing.assert_allclose(B @ TUG.allocate(w), w, atol=1e-12 * np.abs(w).max())
        R = so3_exp(rng.normal(size=3))
        world = np.concatenate([R @ w[:3], R @ w[3:]])
        np.testing.assert_allclose(TUG.deliver(world, R), world, atol=1e-12 * np.abs(w).max())


def test_allocation_saturates_as_bounded_least_squares(rng):
    B = TUG.allocation_matrix
    F = TUG.max_thrust
    N = np.r_[np.ones(3), np.full(3, 1.0 / TUG.arm)]
    for _ in range(10):
        w = rng.normal(size=6) * 80.0  # beyond 2 F = 40 N per axis in most directions
        u = TUG.allocate(w)
        assert np.all(np.abs(u) <= F * (1 + 1e-12))
        assert np.isclose(np.abs(u).max(), F)  # saturated
        # KKT of min |N (B u - w)|^2 on the box: gradient g = (N B)^T N (B u - w);
        # g <= 0 at +F, g >= 0 at -F, g = 0 inside (BVLS is exact up to round-off of |w| ~ 1e2)
        g = (N[:, None] * B).T @ (N * (B @ u - w))
        tol = 1e-9 * np.abs(w).max()
        at_top, at_bottom = np.isclose(u, F), np.isclose(u, -F)
        assert np.all(g[at_top] <= tol) and np.all(g[at_bottom] >= -tol)
        np.testing.assert_allclose(g[~(at_top | at_bottom)], 0.0, atol=tol)
        # the closed form of this layout (N B = sqrt(2) x orthogonal): clip(B^-1 w)
        np.testing.assert_allclose(u, np.clip(np.linalg.solve(B, w), -F, F), atol=1e-9 * F)
        np.testing.assert_allclose(TUG.deliver(w, np.eye(3)), B @ u, atol=1e-9 * np.abs(w).max())


def test_fused_kernel_with_tugs_equals_reference(scenario, rng):
    system = closed_loop(scenario, "B", tug_models=(TUG, TUG))
    fused = make_fused_rhs(system)
    for _ in range(5):
        x = initial_state_vector(system, scenario)
        p, R1, R2, nu = random_state(rng, scale=3.0)  # fast states: saturated wrenches
        x[:3], x[3:7], x[7:11], x[11:20] = p, quaternion_from_dcm(R1), quaternion_from_dcm(R2), nu
        a, b = closed_loop_rhs(system, 0.0, x), fused(0.0, x)
        # same equations in a different order: round-off relative to the largest entry
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-9 * np.abs(a).max())


@pytest.fixture(scope="module")
def saturated_run(scenario):
    return simulate(scenario, "B", duration=3.0, tug_models=(TUG, TUG))


def test_closed_loop_respects_thrust_limits(saturated_run, scenario):
    r = saturated_run
    B_inv = np.linalg.inv(TUG.allocation_matrix)
    for i, R in enumerate((r.R1, r.R2)):
        body = np.concatenate([np.einsum("kji,kj->ki", R, r.wrenches[:, i, :3]),
                               np.einsum("kji,kj->ki", R, r.wrenches[:, i, 3:])], axis=1)
        thrust = body @ B_inv.T
        assert np.abs(thrust).max() <= TUG.max_thrust * (1 + 1e-9)
        assert np.isclose(np.abs(thrust).max(), TUG.max_thrust)  # the limit is reached early on
    # the plant carries the tugs: the logged truth is link + tug
    heavy = with_tug_masses(scenario.client, (TUG, TUG))
    np.testing.assert_array_equal(r.pi_true, heavy.parameters)
    assert r.status == "completed"


@pytest.mark.slow
def test_saturated_loop_still_detumbles(scenario):
    r = simulate(scenario, "B", tug_models=(TUG, TUG))
    m = run_metrics(r)
    # no proof with saturation; observed |omega_i| < 5e-3, |v| < 0.03 at 30 s: require the 0.05 band
    for key in ("v", "omega1", "omega2"):
        assert m.final[key] < 0.05


@pytest.mark.parametrize("kwargs, name", [
    (dict(mass=-1.0), "mass"), (dict(inertia=-np.eye(3)), "inertia"), (dict(arm=0.0), "arm"),
    (dict(max_thrust=0.0), "max_thrust"), (dict(max_thrust=np.nan), "max_thrust"),
])
def test_tug_model_errors(kwargs, name):
    with pytest.raises(ValueError, match=name):
        TugModel(**kwargs)


def test_simulate_rejects_bad_tug_models(scenario):
    with pytest.raises(TypeError, match="tug_models"):
        simulate(scenario, "B", duration=0.1, tug_models=(TUG,))
