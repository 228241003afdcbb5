"""worst_case_gain_mdelta on explicit arrays: one-parameter brute force, progress, error paths."""

import numpy as np
import pytest

from satdyn.robust import hinfnorm, mdelta_system, worst_case_gain_mdelta


class Batch:
    def __init__(self, A, B, C, D):
        self.A, self.B, self.C, self.D = A, B, C, D


def resonator_with_uncertain_damping():
    """y/u = w^2 / (s^2 + c(delta) s + w^2), c = c0 (1 + 0.5 delta): worst case at delta = -1."""
    w, c0 = 2.0, 0.4
    A = np.array([[0.0, 1.0], [-w * w, -c0]])
    B = np.array([[0.0, 0.0], [-0.5 * c0, w * w]])  # columns: Delta channel, performance input
    C = np.array([[0.0, 1.0], [1.0, 0.0]])          # rows: Delta channel (velocity), output
    return mdelta_system(A, B, C, np.zeros((2, 2)), [1]), w, c0


def test_single_parameter_against_closed_form():
    system, w, c0 = resonator_with_uncertain_damping()
    calls = []
    result = worst_case_gain_mdelta(system, progress=lambda d, t, m: calls.append((d, t, m)))
    # analytic: the peak of w^2/(s^2 + c s + w^2) is 1/(2 zeta sqrt(1 - zeta^2)), zeta = c/(2w),
    # largest at the smallest damping c = c0/2 (delta = -1)
    zeta = 0.5 * c0 / (2 * w)
    exact = 1 / (2 * zeta * np.sqrt(1 - zeta**2))
    assert result.lower == pytest.approx(exact, rel=1e-8)
    assert result.worst_case_delta[0] == pytest.approx(-1.0)
    assert result.critical_frequency == pytest.approx(w * np.sqrt(1 - 2 * zeta**2), rel=1e-4)
    assert exact <= result.upper <= exact * 1.01
    assert result.nominal_gain == pytest.approx(1 / (2 * (c0 / (2 * w)) * np.sqrt(1 - (c0 / (2 * w)) ** 2)), rel=1e-8)
    assert calls[-1][0] == calls[-1][1]
    # the skew-mu bound per frequency dominates the worst-case response on a dense delta grid
    deltas = np.linspace(-1, 1, 41)[:, None]
    A, B, C, D, _ = system.closed_loop(deltas)
    from satdyn.robust.norms import frequency_response
    resp = frequency_response(A, B, C, D, np.broadcast_to(result.frequencies, (41, result.frequencies.size)))
    worst = np.abs(resp[..., 0, 0]).max(axis=0)
    assert np.all(result.gain_upper >= worst * (1 - 1e-3))


def test_errors():
    system, _, _ = resonator_with_uncertain_damping()
    only_delta = mdelta_system(system.A, system.B[:, :1], system.C[:1], np.zeros((1, 1)), [1])
    with pytest.raises(ValueError, match="performance input"):
        worst_case_gain_mdelta(only_delta)
    with pytest.raises(ValueError, match="frequencies"):
        worst_case_gain_mdelta(system, frequencies=[[1.0, 2.0]])
