"""Linear-in-parameters forms (spec 002 §2.4, §3.3, §3.4; §7 test 5).

Reference: the model functions of :mod:`satdyn.detumbling.dynamics` (M, C, D, g_K, g_F),
which are themselves checked against Pinocchio and Newton-Euler in test_dynamics.py.
"""

import numpy as np
import pytest

from satdyn.detumbling import dynamics as dyn
from satdyn.detumbling.client import (N_PARAMETERS, ClientParams, HingeParams, LinkParams, inertia_matrix)
from satdyn.spatial import so3_exp
from satdyn.detumbling.regressors import composite_regressor, full_regressor, link_regressor, rigid_regressor

from .conftest import random_state


def _client_from_pi(pi, grasps, hinge_model="logmap"):
    """A client whose true parameter vector is ``pi`` (any inertia about H that stays physical)."""
    links = []
    for k in range(2):
        m, h, j = pi[10 * k], pi[10 * k + 1:10 * k + 4], pi[10 * k + 4:10 * k + 10]
        c = h / m
        J_c = inertia_matrix(j) + m * (np.outer(c, c) - c @ c * np.eye(3))
        links.append(LinkParams(m, c, J_c))
    hinge = HingeParams(pi[20:23], pi[23:26], pi[26:29], 0.01, hinge_model)
    return ClientParams(links[0], links[1], hinge, grasps[0], grasps[1])


def _random_pi(rng, client):
    """Parameters of a random physical client near the paper's (masses, CoMs, inertias, hinge), with friction."""
    links = []
    for link in (client.link1, client.link2):
        A = 0.1 * rng.normal(size=(3, 3))
        links.append(LinkParams(link.mass * rng.uniform(0.8, 1.2), link.com + 0.1 * rng.normal(size=3),
                                link.inertia_com * rng.uniform(0.8, 1.2) + A @ A.T))
    hinge = HingeParams(client.hinge.stiffness * rng.uniform(0.5, 2, 3), client.hinge.damping * rng.uniform(0.5, 2, 3),
                        rng.uniform(0.01, 0.1, size=3))
    return ClientParams(links[0], links[1], hinge, client.grasp1, client.grasp2).parameters


@pytest.mark.parametrize("hinge_model", ["logmap", "trace"])
def test_full_regressor_exact(client, rng, hinge_model):
    for _ in range(20):
        pi = _random_pi(rng, client)
        c = _client_from_pi(pi, client.grasps, hinge_model)
        np.testing.assert_allclose(c.parameters, pi, rtol=1e-13)
        p, R1, R2, nu = random_state(rng)
        nu_r, nu_r_dot = rng.normal(size=9), rng.normal(size=9)
        Y = full_regressor(c.hinge, R1, R2, nu, nu_r, nu_r_dot)
        expected = (dyn.mass_matrix(c, R1, R2) @ nu_r_dot + dyn.coriolis_matrix(c, R1, R2, nu) @ nu_r
                    + dyn.damping_matrix(c, R1) @ nu_r + dyn.spring_force(c, R1, R2) + dyn.friction_force(c, R1, nu))
        # spec §7.5: 1e-10 (round-off of sums of terms ~1e2)
        assert np.abs(Y @ pi - expected).max() <= 1e-10


def test_full_regressor_linear_columns(client, rng):
    """Column j of Y is the finite difference of the dynamics in pi_j (linearity, independent route)."""
    p, R1, R2, nu = random_state(rng)
    nu_r, nu_r_dot = rng.normal(size=9), rng.normal(size=9)
    base = _random_pi(rng, client)
    Y = full_regressor(client.hinge, R1, R2, nu, nu_r, nu_r_dot)

    def rhs(pi):
        c = _client_from_pi(pi, client.grasps)
        return (dyn.mass_matrix(c, R1, R2) @ nu_r_dot + dyn.coriolis_matrix(c, R1, R2, nu) @ nu_r
                + dyn.damping_matrix(c, R1) @ nu_r + dyn.spring_force(c, R1, R2) + dyn.friction_force(c, R1, nu))

    for j in range(N_PARAMETERS):
        e = np.zeros(N_PARAMETERS)
        e[j] = 1e-3
        np.testing.assert_allclose((rhs(base + e) - rhs(base - e)) / 2e-3, Y[:, j], atol=1e-9)


def test_link_regressor_single_body(client, rng):
    for _ in range(5):
        p, R1, R2, nu = random_state(rng)
        a_r, w_r, al_r = rng.normal(size=(3, 3))
        Yl = link_regressor(R1, nu[3:6], a_r, w_r, al_r)
        expected = (dyn.link_mass_matrix(client.link1, R1) @ np.concatenate([a_r, al_r])
                    + dyn.link_coriolis_matrix(client.link1, R1, nu[3:6]) @ np.concatenate([np.zeros(3), w_r]))
        np.testing.assert_allclose(Yl @ client.link1.parameters, expected, atol=1e-11)
        np.testing.assert_array_equal(rigid_regressor(R1, nu, np.concatenate([np.zeros(3), w_r]),
                                                      np.concatenate([a_r, al_r])),
                                      link_regressor(R1, nu[3:6], a_r, w_r, al_r))


def test_composite_regressor_is_exact_for_a_locked_hinge(client, rng):
    """When Link-2 moves rigidly with Link-1 (same rate and reference), the inertial columns of Y_A
    give the exact composite wrench about H: the sum of the two links' rows of the full model."""
    p, R1, _, nu = random_state(rng)
    R2 = R1 @ so3_exp(rng.normal(size=3))  # any fixed relative rotation
    nu[6:9] = nu[3:6]
    nu_rc, nu_rc_dot = rng.normal(size=6), rng.normal(size=6)
    YA = composite_regressor(client.hinge, R1, R2, nu, nu_rc, nu_rc_dot)
    nu_r = np.concatenate([nu_rc, nu_rc[3:]])
    nu_r_dot = np.concatenate([nu_rc_dot, nu_rc_dot[3:]])
    full = dyn.mass_matrix(client, R1, R2) @ nu_r_dot + dyn.coriolis_matrix(client, R1, R2, nu) @ nu_r
    composite = np.concatenate([full[:3], full[3:6] + full[6:9]])
    np.testing.assert_allclose(YA[:, :20] @ client.parameters[:20], composite, atol=1e-10)
