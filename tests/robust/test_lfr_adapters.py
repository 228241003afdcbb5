"""robust_stability / worst_case_gain on an LFR, read through the LFR contract (test fixture).

The fixture (lfr_contract_fixture.py) is an exact LFR of a physical two-mass model; every
check below goes back to the physical model built directly (two_mass_A), so the adapters'
unpacking, the gridding of varying parameters and the conversion of worst-case values to
physical units are all tested against an independent reference.
"""

import numpy as np
import pytest

from satdyn.robust import (GriddedResults, hinfnorm, mdelta_system, robust_stability,
                           robust_stability_mdelta, worst_case_gain)

from satdyn.robust.lfr_access import grid_points

from lfr_contract_fixture import ContractBlock, ContractLFR, ContractParameter, two_mass_A, two_mass_lfr

B_U = np.array([[0.0], [0.0], [1.0], [0.0]])
C_Y = np.array([[0.0, 1.0, 0.0, 0.0]])


class Batch:
    def __init__(self, A, B, C, D):
        self.A, self.B, self.C, self.D = A, B, C, D


def assert_pole_on_axis(A, frequency):
    lam = np.linalg.eigvals(A)
    top = lam[np.argmax(lam.real)]
    assert abs(top.real) < 1e-6 * abs(top)
    assert abs(top.imag) == pytest.approx(frequency, rel=1e-6)


def test_robust_stability_reads_the_lfr_and_returns_physical_values():
    lfr = two_mass_lfr()
    result = robust_stability(lfr)
    direct = robust_stability_mdelta(mdelta_system(lfr.A, lfr.B, lfr.C, lfr.D, [1, 1]))
    assert result.lower == direct.lower and result.upper == direct.upper
    values = result.worst_case_values
    assert set(values) == {"k", "c"}
    # physical units: k = 1 + 0.2 delta_k, c = 0.05 + 0.025 delta_c (margin > 1: outside the ranges)
    assert values["k"] == pytest.approx(1 + 0.2 * direct.destabilizing_delta[0], rel=1e-12)
    assert values["c"] == pytest.approx(0.05 + 0.025 * direct.destabilizing_delta[1], rel=1e-12)
    assert_pole_on_axis(two_mass_A(values["k"], values["c"], 0.02), result.critical_frequency)


def test_varying_parameter_is_gridded():
    lfr = two_mass_lfr(with_varying_gain=True)
    gridded = robust_stability(lfr, grid={"g": [0.0, 0.02, 0.04]})
    assert isinstance(gridded, GriddedResults) and len(gridded.results) == 3
    assert [p["g"] for p in gridded.grid_values] == [0.0, 0.02, 0.04]
    # g = 0.02 is the fixed-gain model
    fixed = robust_stability(two_mass_lfr())
    assert gridded.results[1].upper == pytest.approx(fixed.upper, rel=1e-6)
    for point, res in zip(gridded.grid_values, gridded.results):
        assert set(res.worst_case_values) == {"k", "c"}
        assert_pole_on_axis(two_mass_A(res.worst_case_values["k"], res.worst_case_values["c"], point["g"]),
                            res.critical_frequency)
    # more feedback gain, less margin (the non-collocated loop is destabilising)
    assert gridded.results[0].upper > gridded.results[1].upper > gridded.results[2].upper
    # an int grid spreads the points over the range
    assert [p.values["g"] for p in grid_points(lfr, 2)] == [0.0, 0.04]


def test_worst_case_gain_against_box_search_on_the_physical_model():
    lfr = two_mass_lfr()
    result = worst_case_gain(lfr)
    # brute force: H-inf norm (batched, checked against slycot in test_norms) on a 31 x 31 box grid
    g = np.linspace(-1, 1, 31)
    dk, dc = (x.ravel() for x in np.meshgrid(g, g))
    A = np.stack([two_mass_A(1 + 0.2 * a, 0.05 + 0.025 * b, 0.02) for a, b in zip(dk, dc)])
    N = len(A)
    brute = hinfnorm(Batch(A, np.broadcast_to(B_U, (N, 4, 1)), np.broadcast_to(C_Y, (N, 1, 4)),
                           np.zeros((N, 1, 1)))).value.max()
    assert result.lower >= brute * (1 - 1e-6)      # the search finds the box's worst case
    assert result.upper >= result.lower
    assert (result.upper - result.lower) / result.upper < 0.01
    # the worst-case values (physical units) achieve the lower bound on the physical model
    v = result.worst_case_values
    value, peak = hinfnorm(Batch(two_mass_A(v["k"], v["c"], 0.02), B_U, C_Y, np.zeros((1, 1))))
    assert value == pytest.approx(result.lower, rel=1e-8)
    assert peak == pytest.approx(result.critical_frequency, rel=1e-4)
    assert result.nominal_gain < result.lower


def test_worst_case_gain_is_infinite_when_the_box_is_not_robustly_stable():
    lfr = two_mass_lfr(with_varying_gain=True)
    wide = lfr.subs({"g": 0.08})  # margin < 1 at this gain
    assert robust_stability(wide).upper < 1
    result = worst_case_gain(wide)
    assert result.destabilizing and np.isinf(result.lower) and np.isinf(result.upper)


def test_contract_errors():
    lfr = two_mass_lfr()
    with pytest.raises(ValueError, match="continuous-time"):
        robust_stability(ContractLFR(lfr.A, lfr.B, lfr.C, lfr.D, lfr.blocks, dt=0.1))
    decision = ContractParameter("x", 1.0, (0.0, 2.0), kind="decision")
    with pytest.raises(ValueError, match="kind 'decision'"):
        robust_stability(ContractLFR(lfr.A, lfr.B, lfr.C, lfr.D, [lfr.blocks[0], ContractBlock(decision, 1)]))
    with pytest.raises(ValueError, match="no values for the varying parameter 'g'"):
        robust_stability(two_mass_lfr(with_varying_gain=True), grid={"k": [1.0]})
    with pytest.raises(TypeError, match="satdyn LFR"):
        worst_case_gain(np.eye(3))
    with pytest.raises(ValueError, match="block_sizes"):
        bad = ContractLFR(lfr.A, lfr.B, lfr.C, lfr.D, [ContractBlock(lfr.blocks[0].parameter, 4)])
        robust_stability(bad)
    with pytest.raises(ValueError, match="no uncertain parameter"):
        robust_stability(lfr.subs({"k": 1.0, "c": 0.05}))
    with pytest.raises(ValueError, match="finite"):
        A = lfr.A.copy()
        A[0, 0] = np.nan
        robust_stability(ContractLFR(A, lfr.B, lfr.C, lfr.D, lfr.blocks))
