"""The peak search over frequency: as few method-of-centres runs as the supremum needs.

Reference: the dense grid converged everywhere (``refine_rows`` on every frequency, the
method of centres from each row's own descent certificate). ``refine_supremum`` must give the
same supremum to 1e-3 relative (the accuracy both runs are asked for: 1e-4 on beta^2,
estimated; the LMI checks of test_mu_centers.py show the converged bound within 1e-3 of the
optimum) while running the method of centres on fewer frequencies. The count is of
evaluations (rows refined), never of time. Every bound stays certified by its scalings.
"""

import numpy as np
import pytest

from satdyn.robust import real_block
from satdyn.robust.mu_centers import _neighbour_certificates, refine_rows, refine_supremum
from satdyn.robust.mu_lower import mu_lower_bound
from satdyn.robust.mu_upper import mu_upper_bound
from satdyn.robust.structure import BlockStructure

from repeated_systems import lightly_damped_system
from test_mu_centers import certificate_residual, frequency_response

REL_TOL = 1e-3


@pytest.fixture(scope="module")
def sweep():
    A, B, C = lightly_damped_system(8, 3, 3, 2)
    w = np.geomspace(0.3, 30, 40)
    M = frequency_response(A, B, C, w)
    structure = BlockStructure.parse([real_block(3)] * 3)
    upper, scalings, _ = mu_upper_bound(M, structure)
    dense, _ = refine_rows(M, structure, upper, scalings, np.arange(M.shape[0]))
    return M, structure, upper, scalings, dense


def test_refined_peak_equals_the_dense_grid_peak_with_fewer_evaluations(sweep):
    M, structure, upper, scalings, dense = sweep
    peak, found, refined = refine_supremum(M, structure, upper, scalings)
    assert peak.max() == pytest.approx(dense.max(), rel=REL_TOL)
    evaluations = int(np.count_nonzero(refined))
    assert evaluations < M.shape[0] // 4
    # every bound still certified by its own scalings (largest LMI eigenvalue <= 0; 1e-8 is
    # the rounding of that eigenvalue relative to beta^2 ||D||, D conditioned up to ~1e3)
    assert np.all(certificate_residual(M, found.Dz, found.G, peak, found.Dw) <= 1e-8)
    assert np.all(peak <= upper * (1 + 1e-12))   # a refinement never raises a bound
    # refining four candidates at a time (the former default) needs at least as many runs
    batch, _, refined_batch = refine_supremum(M, structure, upper, scalings, batch=4)
    assert batch.max() == pytest.approx(dense.max(), rel=REL_TOL)
    assert evaluations <= int(np.count_nonzero(refined_batch))


def test_a_lower_bound_of_the_peak_prunes_frequencies(sweep):
    """``floor`` = a verified mu lower bound (a destabilising Delta checked by mu_lower_bound):
    rows certified below it cannot carry the supremum; the peak is unchanged."""
    M, structure, upper, scalings, dense = sweep
    low, _ = mu_lower_bound(M, structure, seed=0)
    floor = float(np.max(low))
    assert 0 < floor <= dense.max() * (1 + 1e-9)
    _, _, refined = refine_supremum(M, structure, upper, scalings)
    peak, _, pruned = refine_supremum(M, structure, upper, scalings, floor=floor)
    assert peak.max() == pytest.approx(dense.max(), rel=REL_TOL)
    assert np.count_nonzero(pruned) <= np.count_nonzero(refined)
    assert not np.any(pruned & (upper <= floor))   # no row below the floor was refined


def test_a_neighbours_certificate_is_reused_without_newton_steps():
    """At w (1 + 1e-6) the converged certificate of w proves a bound within 1e-3 of the one
    converged there (the D-G optimum is continuous in M); the reuse keeps the smaller of the
    two certified bounds, and a row two grid steps away is not tried."""
    A, B, C = lightly_damped_system(8, 3, 3, 2)
    w0 = 1.3
    M = frequency_response(A, B, C, [w0, w0 * (1 + 1e-6), 5 * w0])
    structure = BlockStructure.parse([real_block(3)] * 3)
    upper, scalings, _ = mu_upper_bound(M, structure)
    converged, conv_scalings = refine_rows(M, structure, upper, scalings, np.arange(3))
    refined = np.array([True, False, False])
    start = np.array([converged[0], upper[1], upper[2]])
    start_scalings = type(scalings)(*(np.concatenate([getattr(conv_scalings, k)[:1], getattr(scalings, k)[1:]])
                                      for k in ("Dz", "Dw", "G")))
    reused, found = _neighbour_certificates(M, structure, start, start_scalings, refined,
                                            np.array([1]), None)
    assert reused[1] == pytest.approx(converged[1], rel=REL_TOL)
    assert reused[1] <= upper[1]
    assert certificate_residual(M[1:2], found.Dz[1:2], found.G[1:2], reused[1:2], found.Dw[1:2])[0] <= 1e-8
