"""musyn (D-K iteration) on the published distillation example, its invariants, the D fit.

Published example: Skogestad and Postlethwaite, "Multivariable Feedback Control", 2nd ed.
(Wiley 2005), §8.12.4 "Example: mu-synthesis with DK-iteration", Table 8.2 and eq. (8.144):
plant G(s) = [[87.8, -86.4], [108.2, -109.6]] / (75 s + 1) (8.143), input uncertainty
w_I(s) = (s + 0.2)/(0.5 s + 1) on each input (two complex scalars), performance weight
w_P(s) = 0.5 (10 s + 1)/(10 s + 1e-5) on each output (the book's "approximated integrator"),
generalised plant inputs [d_I(2); w(2); u(2)], outputs [w_I u; w_P (G (u + d_I) + w);
-G (u + d_I) - w], blocks [1 1; 1 1; 2 2], grid logspace(-3, 3, 61). Published numbers:
K-step gamma and mu peak per iteration 1.1823 / 1.1818, 1.0238 / 1.0238, 1.0189 / 1.0189
(MATLAB mu-tools hinfsyn with tol = 0.01, 4th-order D fits chosen interactively), and with
the "optimal" 3rd-order scaling (8.144) d(s) = 2e-3 (s + 1000)(s + 0.25)(s + 0.054) /
((s + 0.013)(s + 0.67 +- 0.56 j)) the level 0.9737 (the book's mu-optimal value).
"""

import itertools

import control
import numpy as np
import pytest

from satdyn.control.hinfsyn import SynthesisInputError, hinfsyn
from satdyn.control.musyn import fit_magnitude, musyn
from satdyn.robust import hinfnorm, mussv

OMEGA = np.logspace(-3, 3, 61)
BLOCKS = [[1, 1], [1, 1]]      # the two input-uncertainty scalars; musyn appends the 2x2 RP block
PUBLISHED_OPTIMAL = 0.9737     # eq. (8.144) level, 4 digits
PUBLISHED_ITER1 = 1.1823       # Table 8.2, K-step gamma of iteration 1 (bisection tol 0.01)
PUBLISHED_ITER3 = 1.0189       # Table 8.2, mu peak after 3 D-K iterations


def distillation_plant():
    """Generalised plant of the example as a control.StateSpace (6 states)."""
    G0 = np.array([[87.8, -86.4], [108.2, -109.6]])
    I2, Z2 = np.eye(2), np.zeros((2, 2))
    # states [x_G (2), x_WI (2), x_WP (2)]:
    # G = G0 / (75 s + 1):          x_G' = -x_G / 75 + G0 (u + d_I) / 75,  y_G = x_G
    # w_I = 2 - 3.6 / (s + 2):       x_WI' = -2 x_WI + u,                   z_I = -3.6 x_WI + 2 u
    # w_P = 0.5 + 0.5 (0.1 - 1e-6) / (s + 1e-6), input v = y_G + w
    aP, cP = -1e-6, 0.5 * (0.1 - 1e-6)
    A = np.block([[-I2 / 75, Z2, Z2], [Z2, -2 * I2, Z2], [I2, Z2, aP * I2]])
    B = np.block([[G0 / 75, Z2, G0 / 75], [Z2, Z2, I2], [Z2, I2, Z2]])
    C = np.block([[Z2, -3.6 * I2, Z2], [0.5 * I2, Z2, cP * I2], [-I2, Z2, Z2]])
    D = np.block([[Z2, Z2, 2 * I2], [Z2, 0.5 * I2, Z2], [Z2, -I2, Z2]])
    return control.ss(A, B, C, D)


def published_scaling():
    zeros, poles = [-1000.0, -0.25, -0.054], [-0.013, -0.67 + 0.56j, -0.67 - 0.56j]
    d = control.ss(control.zpk(zeros, poles, 2e-3))
    d_inv = control.ss(control.zpk(poles, zeros, 1 / 2e-3))
    eye4 = control.ss([], [], [], np.eye(4))
    return control.append(d, d, eye4), control.append(d_inv, d_inv, eye4)


def test_published_scaling_gives_published_level():
    # Compared with: the book's 0.9737 for hinfsyn on D P D^-1 with the D of (8.144).
    # Tolerance: the published value has 4 digits (+-0.00005, 0.005 %) and was computed with a
    # bisection tolerance 0.001 (0.1 %); hinfsyn here runs with tol 1e-4: 0.15 % covers both.
    P = distillation_plant()
    D, D_inv = published_scaling()
    result = hinfsyn(control.series(D_inv, P, D), 2, 2, tol=1e-4)
    assert abs(result.gamma / PUBLISHED_OPTIMAL - 1) < 1.5e-3
    # the same controller on the unscaled plant: the mu of the closed loop is below the level
    CL = P.lft(result.K, nu=2, ny=2)
    M = np.moveaxis(CL.frequency_response(OMEGA).complex, -1, 0)
    mu = mussv(M, BLOCKS + [[2, 2]], OMEGA, lower=False).upper
    assert mu.max() <= result.gamma * (1 + 1e-3)


@pytest.fixture(scope="module")
def dk_result():
    return musyn(distillation_plant(), BLOCKS, 2, 2, frequencies=OMEGA, order=4, iterations=6)


def test_first_iteration_matches_table(dk_result):
    # Compared with: Table 8.2, iteration 1 (D = I, so no fit is involved): the book's gamma
    # 1.1823 is the feasible end of a bisection with tol 0.01, so the optimum lies in
    # [1.1823 / 1.01, 1.1823]; its mu peak 1.1818 (same grid) must match ours to the
    # accuracy of the two K's gammas (1 %).
    first = dk_result.iterations[0]
    assert PUBLISHED_ITER1 / 1.01 <= first.gamma <= PUBLISHED_ITER1 * (1 + 1e-3)
    assert abs(first.mu_peak / 1.1818 - 1) < 0.01


def test_reaches_published_level(dk_result):
    # Compared with: the book's mu-optimal level 0.9737 (within 5 %, as the task requires) and
    # its D-K value after 3 iterations, 1.0189 (our fits are automatic where the book's were
    # chosen interactively; we need 6 iterations to come within 1 % of it; D-K creeps slowly
    # here: 1.180, 1.034, 1.030, 1.026, 1.023, 1.020).
    assert dk_result.mu_peak <= PUBLISHED_OPTIMAL * 1.05
    assert dk_result.mu_peak <= PUBLISHED_ITER3 * 1.01
    # and not below what the book's optimal scaling achieves by more than the 5 % band
    assert dk_result.mu_peak >= PUBLISHED_OPTIMAL * 0.95
    assert dk_result.K.nstates == 6 + 2 * 2 * 4     # plant + left/right 4th-order d per scalar


def test_mu_non_increasing_up_to_fit(dk_result):
    # Invariant of D-K iteration: with the fitted D of iteration i, the previous K is admissible
    # for the scaled plant, so gamma_{i+1} <= (1 + tol) ||D M_i D^-1||_inf = (1 + tol) fit_level_i,
    # and mu_{i+1}(w) <= sigma_max(D M_{i+1} D^-1)(jw) <= gamma_{i+1} (mussv minimises over D at
    # each frequency, to its accuracy 1e-4). fit_level_i / mu_i - 1 is the fit's own tolerance.
    its = dk_result.iterations
    for prev, nxt in itertools.pairwise(its):
        assert prev.fit_level >= prev.mu_peak * (1 - 1e-3)     # a fit cannot beat the optimum
        assert nxt.gamma <= prev.fit_level * (1 + 1e-3) * (1 + 1e-9)
        assert nxt.mu_peak <= nxt.gamma * (1 + 1e-3)
        fit_tolerance = prev.fit_level / prev.mu_peak - 1
        assert nxt.mu_peak <= prev.mu_peak * (1 + fit_tolerance) * (1 + 2e-3)
    assert dk_result.mu_history[-1] < dk_result.mu_history[0]


def test_final_mu_certified_on_closed_loop(dk_result):
    # Compared with: satdyn's mu code run afresh on lft(P, K) over a 4x denser grid (upper
    # bound with its certificate, and the lower bound); the bound reported by musyn is the
    # grid maximum of the same upper bound. Between grid points, the fitted scalings of the
    # best iteration give sigma_max(D M D^-1) <= fit_level at every frequency (hinfnorm is
    # exact over all w), so mu <= fit_level everywhere.
    P = distillation_plant()
    CL = P.lft(dk_result.K, nu=2, ny=2)
    assert hinfnorm(CL).stable
    dense = np.logspace(-3, 3, 241)
    M = np.moveaxis(CL.frequency_response(dense).complex, -1, 0)
    bounds = mussv(M, dk_result.structure, dense)
    assert np.all(bounds.lower <= bounds.upper * (1 + 1e-9))
    # certificate check in floating point at the peak: M^H Dz M - mu^2 Dw <= 0
    k = bounds.peak_index
    Dz, Dw = bounds.scalings.Dz[k], bounds.scalings.Dw[k]
    H = M[k].conj().T @ Dz @ M[k] - bounds.upper[k] ** 2 * Dw
    assert np.linalg.eigvalsh(0.5 * (H + H.conj().T)).max() <= 1e-9 * np.abs(Dw).max()
    assert abs(bounds.upper.max() / dk_result.mu_peak - 1) < 0.01   # grid refinement only
    best = dk_result.iterations[dk_result.best_iteration]
    assert bounds.upper.max() <= best.fit_level * (1 + 1e-3)
    # the lower bound shows the level is real (not an artefact of the upper bound)
    assert bounds.lower.max() >= 0.9 * bounds.upper.max()


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_fit_recovers_stable_minimum_phase_magnitude(order):
    # Compared with: the magnitude of a known stable minimum-phase d(s) of the same order
    # (exact data): the log-magnitude least squares must recover it to 1e-4 rms (a loose bound
    # on the trust-region solver's stopping tolerances on exact data), and the fit must be
    # stable and minimum phase (by construction).
    rng = np.random.default_rng(order)
    zeros = -np.exp(rng.uniform(-4, 2, order))
    poles = -np.exp(rng.uniform(-4, 2, order))
    d = control.zpk(zeros, poles, 0.3)
    omega = np.logspace(-3, 3, 61)
    mag = np.abs(d(1j * omega))
    fit = fit_magnitude(omega, mag, order)
    assert fit.rms_log_error < 1e-4
    assert np.all(np.real(control.poles(fit.system)) < 0)
    assert np.all(np.real(control.zeros(fit.system)) < 0)
    assert np.allclose(np.abs(fit.system(1j * omega)).ravel(), fit.fitted, rtol=1e-8)


def test_bad_input_named():
    P = distillation_plant()
    with pytest.raises(SynthesisInputError, match="real block"):
        musyn(P, [[-1, 0], [1, 1]], 2, 2)
    with pytest.raises(SynthesisInputError, match="performance"):
        musyn(P, [[1, 1], [1, 1], [2, 2]], 2, 2)
    with pytest.raises(SynthesisInputError, match="order"):
        musyn(P, BLOCKS, 2, 2, order=-1)
    with pytest.raises(SynthesisInputError, match="frequencies"):
        musyn(P, BLOCKS, 2, 2, frequencies=[1.0, -2.0])
    with pytest.raises(SynthesisInputError, match="magnitude"):
        fit_magnitude(OMEGA, -np.ones(61), 2)
