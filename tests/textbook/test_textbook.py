"""Textbook robust-stability problems (satdyn.examples.textbook) against published answers.

Two independent checks per problem:
* the model: at the published worst-case parameter values (or k = published gain margin)
  the closed loop has a pole pair on the imaginary axis at the published critical
  frequency -- a property of the model alone (eigenvalues of the evaluated A), so a wrong
  construction fails whatever the robust analysis does;
* the analysis: ``satdyn.robust.robust_stability`` returns an upper bound on the margin
  within the published digits, its worst-case values and critical frequency to the
  published digits, and a lower bound below the upper one.
Tolerances: half a unit of the last published digit (``PublishedAnswer.tolerance``);
for the eigenvalue check, the published 4-decimal worst-case values move the crossing by
|d lambda / d p| * 5e-5 (estimated below by finite differences of the model), plus
1e-9 relative for the eigenvalue computation.
"""

import numpy as np
import pytest

from satdyn.examples.textbook import textbook_problems
from satdyn.lfr import reduce

PROBLEMS = {p.name: p for p in textbook_problems()}


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_construction_is_minimal_and_nominally_stable(name):
    problem = PROBLEMS[name]
    lfr = problem.lfr
    assert lfr.ndelta == reduce(lfr).ndelta  # the automatic simplification already reached reduce
    assert np.max(np.linalg.eigvals(lfr.evaluate({}).A).real) < 0
    assert problem.published.source and problem.analysis == "robust_stability"


def _crossing(lfr, values):
    """Eigenvalue of the evaluated A closest to the imaginary axis (upper half plane)."""
    eig = np.linalg.eigvals(lfr.evaluate(values, strict=False).A)
    eig = eig[eig.imag >= 0]
    return eig[np.argmin(np.abs(eig.real))]


def _worst_case_point(problem):
    pub = problem.published
    if pub.worst_case_values:
        return dict(pub.worst_case_values), 5e-5
    # gain-margin and Routh problems: the loop gain at the published limit
    (name, k), = problem.lfr.parameters.items()
    return {name: float(k.denormalize(0.5 * (pub.lower + pub.upper)))}, 0.5 * (pub.upper - pub.lower) + 5e-5


@pytest.mark.filterwarnings("ignore::satdyn.lfr.OutOfRangeWarning")  # worst cases lie beyond the box
@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_published_worst_case_puts_a_pole_on_the_axis_at_the_published_frequency(name):
    problem = PROBLEMS[name]
    point, value_tol = _worst_case_point(problem)
    lam = _crossing(problem.lfr, point)
    # Sensitivity of the crossing to the rounding of the published values.
    slope = 0.0
    for p in point:
        bumped = dict(point, **{p: point[p] + 1e-6})
        slope += abs(_crossing(problem.lfr, bumped) - lam) / 1e-6
    allowed = slope * value_tol + 1e-9 * abs(lam)
    assert abs(lam.real) <= allowed
    if problem.published.critical_frequency is not None:
        assert abs(lam.imag - problem.published.critical_frequency) <= allowed + problem.published.frequency_tolerance
    else:
        assert lam.imag > 0  # an oscillatory crossing (1 rad/s for the margin example)


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_robust_stability_matches_the_published_answer(name):
    from satdyn.robust import robust_stability

    problem = PROBLEMS[name]
    pub = problem.published
    result = robust_stability(problem.lfr)
    assert pub.contains(result.upper)
    assert result.lower <= result.upper * (1 + 1e-9)
    if pub.critical_frequency is not None:
        assert (abs(result.critical_frequency - pub.critical_frequency)
                <= pub.frequency_tolerance + 1e-6 * pub.critical_frequency)
    for name_, value in pub.worst_case_values.items():
        # a published 0.0 (the damping at the boundary) is met to the margin's accuracy
        assert abs(result.worst_case_values[name_] - value) <= 5e-5 + 1e-6
