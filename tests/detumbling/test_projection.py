"""Parameter projection of the adaptation law (satdyn.detumbling.projection).

References: the tangent-cone projection is compared with cvxpy solving the same QP (an
independent solver); the eigenvalue normals with finite differences of numpy's eigenvalues;
the Lyapunov property (pi_hat - pi)^T (Proj(tau) - tau) <= 0 for every pi of the set is checked
on random points; in closed loop, the unprojected law of arXiv:2407.17617 drives the hinge
estimates negative (out of the physical set) while the projected one keeps them in and still
satisfies V' <= -s^T (K + D) s.
"""

import numpy as np
import pytest
from scipy.integrate import cumulative_simpson

from satdyn.detumbling import run_metrics, simulate
from satdyn.detumbling.client import inertia_matrix
from satdyn.detumbling.projection import ParameterSet, physical_parameter_set


@pytest.fixture(scope="module")
def pset():
    return physical_parameter_set()


def _random_inside(pset, rng, client):
    """A random point of the set: the truth moved along a random direction, then clipped in."""
    return pset.clip(client.parameters + rng.normal(size=29) * (1 + np.abs(client.parameters)))


def _boundary_point(pset, rng, client):
    """A point with several active constraints: masses at m_min, a hinge entry at 0, J1 at eig_min."""
    x = _random_inside(pset, rng, client)
    x[0], x[10], x[20 + rng.integers(9)] = pset.lower[0], pset.lower[10], 0.0
    lam, U = np.linalg.eigh(inertia_matrix(x[4:10]))
    lam[0] = pset.inertia_eigenvalues[0, 0]
    J = (U * lam) @ U.T
    x[4:10] = [J[0, 0], J[1, 1], J[2, 2], J[0, 1], J[0, 2], J[1, 2]]
    return x


def test_truth_inside_and_clip_lands_inside(pset, client, rng):
    assert pset.holds(client)
    for _ in range(20):
        x = 10 * rng.normal(size=29) * (1 + np.abs(client.parameters))
        y = pset.clip(x)
        # clip is exact up to the round-off of a 3x3 eigendecomposition (~1e-13 of eigenvalues <= 1e3)
        assert pset.violation(y) < 1e-10
        for sl in (slice(4, 10), slice(14, 20)):
            assert np.linalg.eigvalsh(inertia_matrix(y[sl]))[0] > 0  # inertia positive definite


def test_eigenvalue_normals_are_gradients(pset, client, rng):
    """The active normal of lambda_min(J1) equals minus its finite-difference gradient in j."""
    x = _boundary_point(pset, rng, client)
    A = pset.active_normals(x)
    row = [a for a in A if np.any(a[4:10])][0]
    h = 1e-6
    grad = np.empty(6)
    for k in range(6):
        e = np.zeros(6)
        e[k] = h
        grad[k] = (np.linalg.eigvalsh(inertia_matrix(x[4:10] + e))[0]
                   - np.linalg.eigvalsh(inertia_matrix(x[4:10] - e))[0]) / (2 * h)
    # central difference of a simple eigenvalue: O(h^2) ~ 1e-12 plus round-off 1e-16 * 1e3 / h ~ 1e-7
    np.testing.assert_allclose(row[4:10], -grad, atol=1e-6)


def test_projected_rate_solves_the_tangent_cone_qp(pset, client, rng):
    cp = pytest.importorskip("cvxpy")
    for _ in range(5):
        x = _boundary_point(pset, rng, client)
        tau = 10 * rng.normal(size=29)
        A = pset.active_normals(x)
        delta = cp.Variable(29)
        cp.Problem(cp.Minimize(cp.sum_squares(delta - tau)), [A @ delta <= 0]).solve()
        ours = pset.project_rate(x, tau)
        # cvxpy's default solver stops at ~1e-8 relative accuracy; |tau| ~ 50
        np.testing.assert_allclose(ours, delta.value, atol=1e-5 * np.linalg.norm(tau))
        assert np.all(A @ ours <= 1e-10 * np.linalg.norm(tau))


def test_projection_only_removes_lyapunov_energy(pset, client, rng):
    """(pi_hat - pi)^T Gamma^-1 (Proj(tau) - tau) <= 0 for every pi in the set (scalar Gamma)."""
    for _ in range(20):
        x = _boundary_point(pset, rng, client)
        tau = 10 * rng.normal(size=29)
        correction = pset.project_rate(x, tau) - tau
        for _ in range(10):
            pi = _random_inside(pset, rng, client)
            # exact by convexity up to round-off (|x| |correction| ~ 1e4 * 1e-16)
            assert (x - pi) @ correction <= 1e-9
    # inside the set nothing changes
    x = pset.clip(client.parameters)
    x[20:] = 0.1  # strictly inside: no active constraint
    tau = rng.normal(size=29)
    np.testing.assert_array_equal(pset.project_rate(x, tau), tau)
    # grasp ball: the outward radial part is removed, the tangential part kept
    d = np.array([pset.grasp_radius, 0.0, 0.0])
    np.testing.assert_array_equal(pset.project_grasp_rate(d, np.array([1.0, 2.0, 3.0])), [0.0, 2.0, 3.0])


@pytest.fixture(scope="module")
def runs(scenario):
    pset = physical_parameter_set()
    return pset, simulate(scenario, "B", duration=2.0), simulate(scenario, "B", duration=2.0, bounds=pset)


def test_unprojected_law_leaves_the_physical_set_projected_stays(runs):
    pset, free, projected = runs
    # arXiv:2407.17617's law: the hinge friction/stiffness estimates go negative within 0.3 s
    worst_free = max(pset.violation(p) for p in free.pi_hat.reshape(-1, 29))
    assert worst_free > 1.0
    # projected: in the set up to the integration error across the switching of the active set
    # (the step controller at rtol 1e-8 bounds it; observed ~2e-6 N m on bounds of order 1-100)
    worst = max(pset.violation(p) for p in projected.pi_hat.reshape(-1, 29))
    assert worst < 1e-4
    assert np.linalg.norm(projected.d_hat, axis=2).max() <= pset.grasp_radius + 1e-6


def test_projected_law_keeps_the_lyapunov_decrease(runs):
    _, _, r = runs
    assert np.diff(r.V).max() < 1e-6  # rtol 1e-8 times V ~ 2e2
    # V(t) - V(0) <= int -s^T (K + D) s: projection only removes energy (Simpson error bound as B's test)
    assert np.max(r.V - r.V[0] - cumulative_simpson(r.V_rate, x=r.t, initial=0.0)) < 5e-5 * r.V[0]


@pytest.mark.slow
def test_projected_law_converges(scenario):
    pset = physical_parameter_set()
    r = simulate(scenario, "B", bounds=pset)
    m = run_metrics(r)
    # the same convergence bound as the unprojected B (spec test 12): |v|, |omega_i| < 5e-3 at 30 s
    for key in ("v", "omega1", "omega2"):
        assert m.final[key] < 5e-3
    assert max(pset.violation(p) for p in r.pi_hat.reshape(-1, 29)) < 1e-4


@pytest.mark.parametrize("kwargs, name", [
    (dict(lower=np.zeros(28)), "lower"),
    (dict(lower=np.ones(29), upper=np.zeros(29)), "lower"),
    (dict(inertia_eigenvalues=[[0.0, 1.0], [1.0, 2.0]]), "inertia_eigenvalues"),
    (dict(grasp_radius=-1.0), "grasp_radius"),
    (dict(tolerance=np.nan), "tolerance"),
])
def test_parameter_set_errors(kwargs, name):
    args = dict(lower=np.zeros(29), upper=np.ones(29), inertia_eigenvalues=[[1.0, 2.0], [1.0, 2.0]])
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        ParameterSet(**args)


@pytest.mark.parametrize("kwargs, name", [
    (dict(mass=(0.0, 1.0)), "mass"), (dict(link_radius=0.0), "link_radius"),
    (dict(stiffness_max=np.inf), "stiffness_max"),
])
def test_physical_parameter_set_errors(kwargs, name):
    with pytest.raises(ValueError, match=name):
        physical_parameter_set(**kwargs)


def test_simulate_rejects_bad_bounds(scenario):
    with pytest.raises(TypeError, match="bounds"):
        simulate(scenario, "B", duration=0.1, bounds=[0.0, 1.0])


def test_projected_flow_dissipates_at_least_as_much(runs, scenario):
    """dV/dt along the projected flow <= dV/dt along the unprojected flow = -s^T (K + D) s, state by state.

    Both rates by central differences of V along each flow from the same states of the projected
    run (where constraints are active); V is the same function (the truth is in the set).
    """
    from satdyn.detumbling.controllers import lyapunov
    from satdyn.detumbling.simulate import closed_loop, closed_loop_rhs, unpack_state
    from satdyn.spatial import quaternion_from_dcm

    pset, _, r = runs
    free, projected = closed_loop(scenario, "B"), closed_loop(scenario, "B", pset)

    def V(y):
        st = unpack_state(free, y)
        return lyapunov(scenario.client, free.tugs, scenario.desired, st.p, st.R1, st.R2, st.nu, st.pi_hats,
                        st.d_hats)

    h = 1e-6
    strict = 0
    for k in range(10, r.t.size, 10):
        x = np.concatenate([r.position[k], quaternion_from_dcm(r.R1[k]), quaternion_from_dcm(r.R2[k]), r.nu[k],
                            r.pi_hat[k, 0], r.pi_hat[k, 1], r.d_hat[k, 0], r.d_hat[k, 1]])
        rates = [(V(x + h * f) - V(x - h * f)) / (2 * h)
                 for f in (closed_loop_rhs(s, 0.0, x) for s in (projected, free))]
        # central differences: O(h^2) truncation and ~1e-10 * V / h round-off, V ~ 2e2
        assert rates[0] <= rates[1] + 1e-4
        strict += rates[0] < rates[1] - 1e-3
    assert strict > 0  # the projection was active somewhere and removed energy
