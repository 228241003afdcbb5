"""Shared fixtures of the detumbling tests: the paper scenario and random states (seeded)."""

import numpy as np
import pytest

from satdyn.detumbling import load_scenario
from satdyn.spatial import so3_exp


@pytest.fixture(scope="session")
def scenario():
    return load_scenario()


@pytest.fixture(scope="session")
def client(scenario):
    return scenario.client


def random_state(rng, scale=1.0):
    """Random ``(p, R1, R2, nu)`` with hinge angle below 2 rad (inside the log-map domain)."""
    R1 = so3_exp(rng.normal(size=3))
    rel = rng.normal(size=3)
    rel *= min(1.0, 2.0 / np.linalg.norm(rel))
    R2 = R1 @ so3_exp(rel)
    return rng.normal(size=3), R1, R2, scale * rng.normal(size=9)


@pytest.fixture
def rng():
    return np.random.default_rng(20240717)
