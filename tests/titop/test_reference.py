"""The numeric (M, C, K) reference model of spec 000a section 2.6.5 against spec-derived values."""

import numpy as np
import pytest

from satdyn.spatial import mass_properties
from satdyn.titop.data import load_assembly_spacecraft
from satdyn.titop.reference import assembly_reference, stack_mass_matrix


@pytest.fixture(scope="module")
def data():
    return load_assembly_spacecraft()


def test_hub_plus_array_free_free_frequencies(data):
    # spec 000a section 3.4 / test 17: 3.744 / 18.342 Hz, first 2.995 / 4.493 Hz at delta_omega = -1 / +1.
    kw = dict(with_structure=False, with_stack=False, with_robot=False)
    np.testing.assert_allclose(assembly_reference(data, **kw).free_free_frequencies_hz(), [3.744, 18.342], atol=6e-4)
    f1 = assembly_reference(data, delta_omega=-1, **kw).free_free_frequencies_hz()[0]
    assert f1 == pytest.approx(2.995, abs=6e-4)
    assert assembly_reference(data, delta_omega=1, **kw).free_free_frequencies_hz()[0] == pytest.approx(4.493, abs=6e-4)
    # cantilever = table frequencies
    np.testing.assert_allclose(assembly_reference(data, **kw).cantilever_frequencies_hz(), [1.285, 6.5896])


def test_mass_properties_without_robot(data):
    # spec 000a section 3.4: n = 1 and n = 26 spacecraft without robot (delta = 0).
    m1 = assembly_reference(data, n=1, with_robot=False)
    mass, com, _ = mass_properties(m1.M[:6, :6])
    assert mass == pytest.approx(424.1144)
    np.testing.assert_allclose(com, [0.3847, -0.3199, 0.2845], atol=6e-5)
    np.testing.assert_allclose(m1.M[3:6, 3:6], [[386.549, -3.84, -116.239], [-3.84, 286.152, -4.107],
                                                [-116.239, -4.107, 494.301]], atol=6e-4)
    # spec 000a's n = 26 values were derived with row 7 at x = +0.5, +1.5 (layout A).
    m26 = assembly_reference(load_assembly_spacecraft(layout="A"), n=26, with_robot=False)
    _, com, _ = mass_properties(m26.M[:6, :6])
    np.testing.assert_allclose(com, [-0.1282, 1.0621, 0.2845], atol=6e-5)
    np.testing.assert_allclose(m26.M[3:6, 3:6], [[3172.05, 207.64, 38.75], [207.64, 358.66, -421.71],
                                                 [38.75, -421.71, 3352.31]], atol=6e-3)


@pytest.mark.parametrize("n, dock, carry", [(1, 1, False), (1, 2, True), (26, 1, True), (26, 2, False)])
def test_total_mass_invariant(data, n, dock, carry):
    angles = np.random.default_rng(n + dock).uniform(-np.pi, np.pi, (3, 5))
    m = assembly_reference(data, n=n, dock=dock, carry_tile=carry, robot_angles=angles)
    assert m.M[0, 0] == pytest.approx(554.1144, abs=1e-9)


def test_state_space_equals_second_order_response(data):
    m = assembly_reference(data, n=26, carry_tile=True, robot_angles=np.full((3, 5), 0.3))
    ss = m.state_space()
    s = 2j * np.pi * np.array([0.05, 0.9, 2.3, 17.0])
    G = np.array([ss(si) for si in s])
    np.testing.assert_allclose(G, m.frequency_response(s), rtol=1e-9, atol=1e-12)


def test_stack_edge_case(data):
    assert stack_mass_matrix(data, 27, True) is None
    with pytest.raises(ValueError, match="stack"):
        stack_mass_matrix(data, 28, True)
