"""Controllers at single states (spec 002 §3.2; §7 tests 7, 8 and the Lyapunov identity).

References: finite differences along the exact flow (reference derivative, V rate), the
algebraic identities of the proof (S_1 + S_2 = I, Q = sum S_i T_i + sum Y_d,i d~_i), and the
reference right-hand side for the fused kernel.
"""

import numpy as np
import pytest

from satdyn.detumbling import dynamics as dyn
from satdyn.detumbling.controllers import lyapunov, lyapunov_rate, measure, reference_velocity, tug_command
from satdyn.detumbling.kernel import make_fused_rhs
from satdyn.detumbling.regressors import grasp_regressor
from satdyn.detumbling.simulate import closed_loop, closed_loop_outputs, closed_loop_rhs, initial_state_vector, \
    unpack_state
from satdyn.spatial import quaternion_from_dcm, so3_exp

from .conftest import random_state


def _random_x(system, scenario, rng):
    """A closed-loop state with random pose, velocity and estimates."""
    x = initial_state_vector(system, scenario)
    p, R1, R2, nu = random_state(rng)
    x[:3], x[3:7], x[7:11], x[11:20] = p, quaternion_from_dcm(R1), quaternion_from_dcm(R2), nu
    x[20:] += 0.3 * rng.normal(size=x.size - 20) * (1 + np.abs(x[20:]))
    return x


def test_reference_derivative_matches_finite_difference(scenario, rng):
    h = 1e-6
    for _ in range(5):
        p, R1, R2, nu = random_state(rng)
        nu_r, nu_r_dot = reference_velocity(scenario.desired, 0.5, p, R1, R2, nu)

        def shifted(sign, p=p, R1=R1, R2=R2, nu=nu):
            return reference_velocity(scenario.desired, 0.5, p + sign * h * nu[:3], so3_exp(sign * h * nu[3:6]) @ R1,
                                      so3_exp(sign * h * nu[6:9]) @ R2, nu)[0]

        np.testing.assert_allclose((shifted(1) - shifted(-1)) / (2 * h), nu_r_dot, atol=1e-8)


@pytest.mark.parametrize("kind", ["B", "A", "R", "velocity"])
def test_tugs_are_decentralised(scenario, rng, kind):
    """Perturbing one tug's estimates leaves the other tug's wrench and updates bitwise identical."""
    system = closed_loop(scenario, kind)
    n = system.n_parameters
    x = _random_x(system, scenario, rng)
    W, pi_dots, d_dots, _ = closed_loop_outputs(system, unpack_state(system, x))
    for other, (pi_sl, d_sl) in enumerate(((slice(20, 20 + n), slice(20 + 2 * n, 23 + 2 * n)),
                                           (slice(20 + n, 20 + 2 * n), slice(23 + 2 * n, 26 + 2 * n)))):
        y = x.copy()
        y[pi_sl] += rng.normal(size=n)
        y[d_sl] += rng.normal(size=3)
        W2, pi_dots2, d_dots2, _ = closed_loop_outputs(system, unpack_state(system, y))
        me = 1 - other
        np.testing.assert_array_equal(W2[me], W[me])
        np.testing.assert_array_equal(pi_dots2[me], pi_dots[me])
        np.testing.assert_array_equal(d_dots2[me], d_dots[me])
        assert not np.array_equal(W2[other], W[other])  # the perturbed tug did change (test can fail)
        # the fused kernel keeps the tugs separate too: the other tug's derivative blocks agree bitwise
        fused = make_fused_rhs(system)
        a, b = fused(0.0, x), fused(0.0, y)
        keep = np.ones(x.size, bool)
        keep[:20] = False
        for sl in (pi_sl, d_sl):
            keep[sl] = False
        np.testing.assert_array_equal(a[keep], b[keep])


def test_workload_split_and_realised_generalized_force(scenario, rng):
    """S_1 + S_2 = I and Q = sum_i S_i T_i + sum_i Y_d,i (d_hat_i - d_i) (exact, spec §3.2.3)."""
    system = closed_loop(scenario, "B")
    c = scenario.client
    for _ in range(5):
        x = _random_x(system, scenario, rng)
        st = unpack_state(system, x)
        meas = measure(system.tugs[0], scenario.desired, st.p, st.R1, st.R2, st.nu)
        S = []
        expected = np.zeros(9)
        for tug in system.tugs:
            i = tug.index
            Si = np.diag(np.concatenate([np.full(3, tug.workload), np.full(3, 1.0 - i), np.full(3, float(i))]))
            S.append(Si)
            T = meas.Y @ st.pi_hats[i] - tug.gains.K * meas.s
            W, _, _ = tug_command(tug, meas, st.pi_hats[i], st.d_hats[i])
            R = (st.R1, st.R2)[i]
            Yd = np.zeros((9, 3))
            Yd[3 + 3 * i:6 + 3 * i] = grasp_regressor(W[:3], R)
            expected += Si @ T + Yd @ (st.d_hats[i] - c.grasps[i])
        np.testing.assert_array_equal(S[0] + S[1], np.eye(9))
        W, _, _, _ = closed_loop_outputs(system, st)
        Q = dyn.generalized_force(c, st.R1, st.R2, W[0], W[1])
        np.testing.assert_allclose(Q, expected, atol=1e-11 * np.abs(Q).max())


@pytest.mark.parametrize("kind", ["B", "known", "velocity"])
def test_lyapunov_rate_identity(scenario, rng, kind):
    """dV/dt along the closed-loop flow (central difference of V(x +- h x_dot)) equals -s^T (K + D) s."""
    system = closed_loop(scenario, kind)
    h = 1e-6
    for _ in range(5):
        x = _random_x(system, scenario, rng)
        if kind == "known":
            x = x.copy()
            x[20:] = initial_state_vector(system, scenario)[20:]
        xdot = closed_loop_rhs(system, 0.0, x)

        def V(y):
            st = unpack_state(system, y)
            return lyapunov(scenario.client, system.tugs, scenario.desired, st.p, st.R1, st.R2, st.nu,
                            st.pi_hats, st.d_hats)

        fd = (V(x + h * xdot) - V(x - h * xdot)) / (2 * h)
        st = unpack_state(system, x)
        rate = lyapunov_rate(scenario.client, system.tugs, scenario.desired, st.p, st.R1, st.R2, st.nu)
        assert rate < 0
        # central difference: O(h^2) truncation, ~1e-9 relative round-off on V ~ 1e3
        assert abs(fd - rate) <= 1e-6 * abs(rate) + 1e-5


@pytest.mark.parametrize("kind", ["B", "known", "A", "R", "velocity"])
def test_fused_kernel_equals_reference(scenario, rng, kind):
    system = closed_loop(scenario, kind)
    fused = make_fused_rhs(system)
    for _ in range(10):
        x = _random_x(system, scenario, rng)
        a, b = closed_loop_rhs(system, 0.0, x), fused(0.0, x)
        np.testing.assert_allclose(b, a, rtol=0, atol=1e-12 * np.abs(a).max())


@pytest.mark.parametrize("kind, n", [("B", 29), ("R", 10)])
def test_state_layout(scenario, kind, n):
    system = closed_loop(scenario, kind)
    x = initial_state_vector(system, scenario)
    assert system.n_parameters == n and x.size == system.n_states == 26 + 2 * n
    st = unpack_state(system, x)
    np.testing.assert_array_equal(st.nu, scenario.initial.nu)
    np.testing.assert_array_equal(st.d_hats[1], scenario.grasp_estimates[1])
    np.testing.assert_allclose(st.pi_hats[0], scenario.estimate_fraction * scenario.client.parameters[:n])
