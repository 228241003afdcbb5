"""Robust-control textbook problems, written entry by entry as a user would.

Each function builds the uncertain closed loop with ``ureal`` arithmetic, ``ss``, ``@``
and ``feedback`` and returns a :class:`TextbookProblem`: the LFR, the analysis to run
(``"robust_stability"`` as MATLAB's ``robstab``, or ``"worst_case_gain"`` as ``wcgain``)
and the :class:`PublishedAnswer` with its source.  :func:`textbook_problems` lists them.

Sources (cited in each problem):

* MathWorks, Robust Control Toolbox documentation, "Robust Stability and Worst-Case Gain
  of Uncertain System" (help/robust/gs/worst-case-performance-of-uncertain-system.html):
  the two-mass servo, ``stabmarg`` LowerBound 2.8834 (2.8826 in another release),
  UpperBound 2.8864, CriticalFrequency 575.0339 rad/s, ``wcus`` k = 1.5773,
  m1 = m2 = 0.4227.
* MathWorks, Robust Control Toolbox documentation, "Getting Reliable Estimates of
  Robustness Margins" (help/robust/ug/getting-reliable-estimates-of-robustness-margins.html):
  ``tf(1, [1 c 1])`` with ``c = ureal('c', 1, 'plusminus', 1)`` has robust stability
  margin 1, reached at 1 rad/s.
* MathWorks, Control System Toolbox documentation, ``margin`` reference page, example
  "Plot Gain and Phase Margins of Transfer Function": ``tf(1, [1 2 1 0])`` has gain
  margin 6.02 dB (the phase crosses -180 deg at 1 rad/s: s (s + 1)^2 at s = j).  With an
  uncertain loop gain ``k`` in [0.8, 1.5] (nominal 1) the loop is stable for 0 < k < Gm,
  and the robust stability margin is the normalised distance of ``k = Gm``.
* MathWorks, Control System Toolbox documentation, ``allmargin``
  (help/control/ref/dynamicsystem.allmargin.html): ``tf(25, [1 10 10 10])`` has
  GainMargin 3.6000 at GMFrequency 3.1623 rad/s; with ``k`` in [0.5, 2] (nominal 1) the
  loop is stable for -0.4 < k < Gm and the margin is the normalised distance of ``k = Gm``.

* A. Nagoor Kani, Control Systems, 3rd ed. (2015), Examples 5.9 and 5.12 (Routh
  criterion), as transcribed in the FOSSEE Scilab Textbook Companion
  (git.fossee.in, Scilab-TBC-Uploads, 3885/CH5/EX5.9 and EX5.12): unity feedback around
  ``K / (s (s + 1) (s + 2))`` is stable for 0 < K < 6, around
  ``K (1 - s) / (s (s^2 + 5 s + 9))`` for 0 < K < 7.5.  With ``K`` in [2.5, 5]
  (nominal 3) the margin is the normalised distance of the upper limit.

The gain-margin and Routh problems use asymmetric ranges, normalised by the bilinear map of
:class:`satdyn.lfr.Parameter` (as MATLAB's ``ureal``), so that the published gain margin
and not the other stability boundary (k = 0, resp. k = -0.4) decides the margin.

Arguments named in this module: none (every problem is fixed by its source).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import control
import numpy as np

from satdyn.lfr import LFR, as_lfr, feedback, hstack, lft, ss, ureal, vstack

__all__ = [
    "PublishedAnswer",
    "TextbookProblem",
    "textbook_problems",
    "two_mass_servo",
    "two_mass_servo_entries",
    "two_mass_servo_second_order",
    "uncertain_damping",
    "margin_loop_gain",
    "allmargin_loop_gain",
    "routh_third_order_loop",
    "routh_nonminimum_phase_loop",
]

_ROBSTAB_SERVO = ("MathWorks, Robust Control Toolbox documentation, 'Robust Stability and Worst-Case "
                  "Gain of Uncertain System' (help/robust/gs/worst-case-performance-of-uncertain-system"
                  ".html): stabmarg LowerBound 2.8834 (2.8826 in another release), UpperBound 2.8864, "
                  "CriticalFrequency 575.0339; wcus k 1.5773, m1 0.4227, m2 0.4227")


@dataclass(frozen=True)
class PublishedAnswer:
    """A published robustness answer.

    Attributes
    ----------
    quantity : str
        ``"robust stability margin"`` (normalised units, MATLAB's ``stabmarg``) or
        ``"worst-case gain"`` (peak gain, MATLAB's ``wcg``).
    lower, upper : float
        The published value, or the published lower and upper bounds; the exact value
        lies in ``[lower - tolerance, upper + tolerance]``.
    tolerance : float
        Half a unit of the last published digit.
    critical_frequency : float or None
        Published frequency [rad/s] where the margin (gain) is reached.
    frequency_tolerance : float
        Half a unit of its last published digit [rad/s].
    worst_case_values : dict
        Published worst-case parameter values (physical units), if any.
    source : str
        Precise citation.
    """

    quantity: str
    lower: float
    upper: float
    tolerance: float
    critical_frequency: float | None
    frequency_tolerance: float
    source: str
    worst_case_values: dict = field(default_factory=dict)

    def contains(self, value: float) -> bool:
        """Whether ``value`` agrees with the published answer to its digits."""
        return self.lower - self.tolerance <= value <= self.upper + self.tolerance


@dataclass(frozen=True)
class TextbookProblem:
    """One textbook problem: the uncertain closed loop and its published answer.

    Attributes
    ----------
    name : str
    description : str
    lfr : LFR
        The uncertain closed loop as built by the user-style code.
    analysis : str
        ``"robust_stability"`` or ``"worst_case_gain"``.
    published : PublishedAnswer
    matlab_occurrences : dict
        Channel counts MATLAB's ``uss`` reports for the same model, where published
        (empty otherwise).
    """

    name: str
    description: str
    lfr: LFR
    analysis: str
    published: PublishedAnswer
    matlab_occurrences: dict = field(default_factory=dict)


def _servo_parameters():
    return (ureal("m1", 1.0, percent=20), ureal("m2", 1.0, percent=20), ureal("k", 1.0, percent=20))


def _lead_controller():
    """MATLAB's ``C = 100*ss((s+1)/(.001*s+1))^3`` (python-control)."""
    s = control.tf("s")
    return control.ss(100 * ((s + 1) / (0.001 * s + 1)) ** 3)


def _servo_answer() -> PublishedAnswer:
    return PublishedAnswer(
        "robust stability margin", 2.8826, 2.8864, 5e-5, 575.0339, 5e-5, _ROBSTAB_SERVO,
        {"k": 1.5773, "m1": 0.4227, "m2": 0.4227},
    )


def two_mass_servo() -> TextbookProblem:
    """The MATLAB example as MATLAB writes it: ``G1 = ss(1/s^2)/m1``, ``G2 = ss(1/s^2)/m2``,
    ``F = [0; G1] [1 -1] + [1; -1] [0, G2]``, ``P = lft(F, k)``, ``T = feedback(P C, 1)``
    (force on mass 1, spring k, position of mass 2 measured)."""
    m1, m2, k = _servo_parameters()
    s = control.tf("s")
    double_integrator = as_lfr(control.ss(1 / s**2))
    G1, G2 = double_integrator / m1, double_integrator / m2
    F = vstack([0.0, G1]) @ np.array([[1.0, -1.0]]) + np.array([[1.0], [-1.0]]) @ hstack([0.0, G2])
    P = lft(F, k.lfr)
    T = feedback(P @ _lead_controller(), 1.0)
    return TextbookProblem(
        "two_mass_servo", "two-mass servo, MATLAB's construction (lft of the spring)", T,
        "robust_stability", _servo_answer(),
    )


def two_mass_servo_entries() -> TextbookProblem:
    """The same servo with the plant written entry by entry: states (x1, x2, v1, v2),
    ``A = [[0, 0, 1, 0], [0, 0, 0, 1], [-k/m1, k/m1, 0, 0], [k/m2, -k/m2, 0, 0]]``,
    ``B = [0, 0, 1/m1, 0]^T``, ``C = [0, 1, 0, 0]``."""
    m1, m2, k = _servo_parameters()
    A = [[0, 0, 1, 0], [0, 0, 0, 1], [-k / m1, k / m1, 0, 0], [k / m2, -k / m2, 0, 0]]
    P = ss(A, [[0], [0], [1 / m1], [0]], [[0, 1, 0, 0]], [[0]])
    T = feedback(P @ _lead_controller(), 1.0)
    return TextbookProblem(
        "two_mass_servo_entries", "two-mass servo, plant matrices written entry by entry", T,
        "robust_stability", _servo_answer(),
    )


def two_mass_servo_second_order() -> TextbookProblem:
    """The same servo from the second-order form ``M q'' + K q = b u``:
    ``A = [[0, I], [-M^-1 K, 0]]`` with ``M = diag(m1, m2)`` inverted as an LFR."""
    m1, m2, k = _servo_parameters()
    from satdyn.lfr import blockdiag

    Minv = blockdiag([m1, m2]).inv()
    K = k * np.array([[1.0, -1.0], [-1.0, 1.0]])
    A = vstack([hstack([np.zeros((2, 2)), np.eye(2)]), hstack([-(Minv @ K), np.zeros((2, 2))])])
    B = vstack([np.zeros((2, 1)), Minv @ np.array([[1.0], [0.0]])])
    P = ss(A, B, [[0, 1, 0, 0]], [[0]])
    T = feedback(P @ _lead_controller(), 1.0)
    return TextbookProblem(
        "two_mass_servo_second_order", "two-mass servo from M q'' + K q = b u", T,
        "robust_stability", _servo_answer(),
    )


def uncertain_damping() -> TextbookProblem:
    """``1 / (s^2 + c s + 1)`` with ``c = 1 +- 1``: unstable exactly at c = 0 (1 rad/s)."""
    c = ureal("c", 1.0, plusminus=1.0)
    G = ss([[0, 1], [-1, -c]], [[0], [1]], [[1, 0]], [[0]])
    answer = PublishedAnswer(
        "robust stability margin", 1.0, 1.0, 5e-5, 1.0, 5e-5,
        "MathWorks, Robust Control Toolbox documentation, 'Getting Reliable Estimates of Robustness "
        "Margins' (help/robust/ug/getting-reliable-estimates-of-robustness-margins.html): 'the margin "
        "with respect to the specified uncertainty is 1', poles cross at s = j*1 (1 rad/s)",
        {"c": 0.0},
    )
    return TextbookProblem("uncertain_damping", "oscillator with 100 % damping uncertainty", G,
                           "robust_stability", answer, {"c": 1})


def _gain_loop(numerator, denominator, k) -> LFR:
    """Unity feedback around ``k * numerator(s) / denominator(s)`` (monic denominator,
    strictly proper; coefficients highest power first) written in companion form."""
    a = np.asarray(denominator, dtype=float)[1:]
    n = a.size
    b = np.zeros(n)
    num = np.atleast_1d(np.asarray(numerator, dtype=float))
    b[: num.size] = num[::-1]  # b[i]: coefficient of s^i
    A = [[1.0 if j == i + 1 else 0.0 for j in range(n)] for i in range(n - 1)] + [list(-a[::-1])]
    B = [[0.0]] * (n - 1) + [[k]]
    C = [list(b)]
    return feedback(ss(A, B, C, [[0.0]]), 1.0)


def _gain_margin_answer(k, gm_lo: float, gm_hi: float) -> tuple[float, float]:
    """Normalised distance of the loop gain k = Gm (increasing in Gm on these ranges)."""
    return float(k.normalize(gm_lo, warn=False)), float(k.normalize(gm_hi, warn=False))


def margin_loop_gain() -> TextbookProblem:
    """Unity feedback around ``k / (s^3 + 2 s^2 + s)`` with ``k`` in [0.8, 1.5]; the
    published gain margin 6.02 dB gives the margin (k = 10^(6.02/20) normalised, 1.4)."""
    k = ureal("k", 1.0, range=(0.8, 1.5))
    T = _gain_loop([1.0], [1, 2, 1, 0], k)
    lo, hi = _gain_margin_answer(k, 10 ** (6.015 / 20), 10 ** (6.025 / 20))  # 6.02 dB to its digits
    answer = PublishedAnswer(
        "robust stability margin", lo, hi, 0.0, None, 0.0,
        "MathWorks, Control System Toolbox documentation, margin reference page, example 'Plot Gain "
        "and Phase Margins of Transfer Function': sys = tf(1,[1 2 1 0]), gain margin 6.02 dB; "
        "margin = normalised k at k = Gm for k in [0.8, 1.5] (phase crossover 1 rad/s, not printed)",
    )
    return TextbookProblem("margin_loop_gain", "classical gain margin as a robust stability margin", T,
                           "robust_stability", answer)


def allmargin_loop_gain() -> TextbookProblem:
    """Unity feedback around ``25 k / (s^3 + 10 s^2 + 10 s + 10)`` with ``k`` in [0.5, 2];
    the published GainMargin 3.6000 (at 3.1623 rad/s) gives the margin (k = 3.6
    normalised, 3 (Gm - 1) / (Gm + 1) = 1.6957)."""
    k = ureal("k", 1.0, range=(0.5, 2.0))
    T = _gain_loop([25.0], [1, 10, 10, 10], k)
    lo, hi = _gain_margin_answer(k, 3.6 - 5e-5, 3.6 + 5e-5)
    answer = PublishedAnswer(
        "robust stability margin", lo, hi, 0.0, 3.1623, 5e-5,
        "MathWorks, Control System Toolbox documentation, allmargin "
        "(help/control/ref/dynamicsystem.allmargin.html): L = tf(25,[1 10 10 10]), GainMargin 3.6000, "
        "GMFrequency 3.1623; margin = normalised k at k = Gm for k in [0.5, 2]",
    )
    return TextbookProblem("allmargin_loop_gain", "allmargin example as a robust stability margin", T,
                           "robust_stability", answer)


def _routh_problem(name, description, numerator, denominator, k_max, example) -> TextbookProblem:
    K = ureal("K", 3.0, range=(2.5, 5.0))
    T = _gain_loop(numerator, denominator, K)
    margin = float(K.normalize(k_max, warn=False))
    answer = PublishedAnswer(  # an exact published limit: 1e-6 relative is "its digits"
        "robust stability margin", margin, margin, 1e-6 * margin, None, 0.0,
        f"A. Nagoor Kani, Control Systems, 3rd ed. (2015), Example {example}, via the FOSSEE Scilab "
        f"Textbook Companion (Scilab-TBC-Uploads 3885/CH5/EX{example}): stable for 0 < K < {k_max:g}; "
        "margin = normalised K at the upper limit for K in [2.5, 5]",
    )
    return TextbookProblem(name, description, T, "robust_stability", answer)


def routh_third_order_loop() -> TextbookProblem:
    """Unity feedback around ``K / (s (s + 1) (s + 2))``: stable for 0 < K < 6."""
    return _routh_problem("routh_third_order_loop", "Routh range of K, K/(s(s+1)(s+2))", [1.0],
                          [1, 3, 2, 0], 6.0, "5.9")


def routh_nonminimum_phase_loop() -> TextbookProblem:
    """Unity feedback around ``K (1 - s) / (s (s^2 + 5 s + 9))``: stable for 0 < K < 7.5."""
    return _routh_problem("routh_nonminimum_phase_loop", "Routh range of K, K(1-s)/(s(s^2+5s+9))", [-1.0, 1.0],
                          [1, 5, 9, 0], 7.5, "5.12")


def textbook_problems() -> list[TextbookProblem]:
    """All problems, in a fixed order (construction takes milliseconds)."""
    return [
        two_mass_servo(),
        two_mass_servo_entries(),
        two_mass_servo_second_order(),
        uncertain_damping(),
        margin_loop_gain(),
        allmargin_loop_gain(),
        routh_third_order_loop(),
        routh_nonminimum_phase_loop(),
    ]
