"""Bad input at the public boundary of satdyn.robust: a clear error naming the argument.

Each case calls one public function with one bad argument and asserts the exception type and
that the message names the offending argument (in backquotes, as every satdyn message does).
Independent of the numerics: these are the error paths themselves. The uncertain-LFR cases
are the silent wrong answers of issue 15 (``hinfnorm(lfr)`` returned the norm of the open
Delta loop, 4.876, instead of refusing; the nominal norm is 1.256).
"""

import numpy as np
import pytest

from satdyn.lfr import feedback, ss, ureal
from satdyn.robust import (complex_block, full_block, h2norm, hinfnorm, lmi_margin, lmi_upper_bound,
                           mdelta_system, modal_frequency_grid, mussv, real_block, refine_peaks,
                           robust_stability, robust_stability_mdelta, worst_case_gain,
                           worst_case_gain_mdelta)


def uncertain_loop():
    """Unity feedback around k / (s^2 + c s + 1): an LFR with two uncertain parameters."""
    k = ureal("k", 1.0, percent=20)
    c = ureal("c", 0.5, percent=30)
    plant = ss([[0.0, 1.0], [-1.0, -c]], [[0.0], [k]], [[1.0, 0.0]], [[0.0]])
    return feedback(plant, 1.0)


def small_system():
    A = np.array([[0.0, 1.0], [-4.0, -0.4]])
    B = np.array([[0.0, 0.0], [-0.2, 4.0]])
    C = np.array([[0.0, 1.0], [1.0, 0.0]])
    return mdelta_system(A, B, C, np.zeros((2, 2)), [1])


LFR = uncertain_loop()
SYSTEM = small_system()
EYE2 = np.eye(2)

CASES = {
    # plain-LTI functions refuse an LFR that still has Delta blocks (and an M-Delta system)
    "hinfnorm of an uncertain LFR": (lambda: hinfnorm(LFR), ValueError, "sys"),
    "h2norm of an uncertain LFR": (lambda: h2norm(LFR), ValueError, "sys"),
    "hinfnorm of an M-Delta system": (lambda: hinfnorm(SYSTEM), ValueError, "sys"),
    "hinfnorm of a list": (lambda: hinfnorm([[1.0]]), TypeError, "sys"),
    "hinfnorm tol negative": (lambda: hinfnorm(LFR.nominal(), tol=-1.0), ValueError, "tol"),
    "hinfnorm tol a string": (lambda: hinfnorm(LFR.nominal(), tol="small"), TypeError, "tol"),
    "hinfnorm tol True": (lambda: hinfnorm(LFR.nominal(), tol=True), TypeError, "tol"),
    # mussv: matrix, structure and options
    "mussv M not numeric": (lambda: mussv("abc", [real_block()]), TypeError, "M"),
    "mussv M with NaN": (lambda: mussv(np.array([[np.nan]]), [real_block()]), ValueError, "M"),
    "mussv M a vector": (lambda: mussv(np.ones(2), [real_block()]), ValueError, "M"),
    "mussv blocks do not fit M": (lambda: mussv(np.eye(3), [real_block(2)]), ValueError, "blocks"),
    "mussv blocks empty": (lambda: mussv(EYE2, []), ValueError, "blocks"),
    "mussv blocks missing": (lambda: mussv(EYE2), TypeError, "blocks"),
    "mussv blocks not a sequence": (lambda: mussv(EYE2, 3), TypeError, "blocks"),
    "mussv MATLAB row malformed": (lambda: mussv(EYE2, [[-1, 1], [1, 0]]), ValueError, "blocks"),
    "mussv MATLAB row non-integer": (lambda: mussv(EYE2, [[-1.5, 0], [1, 0]]), ValueError, "blocks"),
    "mussv MATLAB row text": (lambda: mussv(EYE2, [["a", 0]]), ValueError, "blocks"),
    "mussv frequencies wrong shape": (lambda: mussv(np.stack([EYE2] * 3), [complex_block(2)],
                                                    frequencies=[1.0, 2.0]), ValueError, "frequencies"),
    "mussv frequencies negative": (lambda: mussv(np.stack([EYE2] * 2), [complex_block(2)],
                                                 frequencies=[-1.0, 2.0]), ValueError, "frequencies"),
    "mussv accuracy zero": (lambda: mussv(EYE2, [complex_block(2)], accuracy=0.0), ValueError, "accuracy"),
    "mussv accuracy text": (lambda: mussv(EYE2, [complex_block(2)], accuracy="1e-4"), TypeError, "accuracy"),
    "mussv iterations zero": (lambda: mussv(EYE2, [complex_block(2)], iterations=0), ValueError, "iterations"),
    "mussv iterations float": (lambda: mussv(EYE2, [complex_block(2)], iterations=2.5), TypeError, "iterations"),
    "mussv seed negative": (lambda: mussv(EYE2, [complex_block(2)], seed=-1), ValueError, "seed"),
    "mussv lower not bool": (lambda: mussv(EYE2, [complex_block(2)], lower="yes"), TypeError, "lower"),
    "mussv refine unknown": (lambda: mussv(EYE2, [complex_block(2)], refine="all"), ValueError, "refine"),
    "mussv branch_and_bound int": (lambda: mussv(EYE2, [real_block(2)], branch_and_bound=1), TypeError,
                                   "branch_and_bound"),
    "mussv progress not callable": (lambda: mussv(EYE2, [complex_block(2)], progress=3), TypeError, "progress"),
    "mussv LFR without frequencies": (lambda: mussv(LFR), ValueError, "frequencies"),
    "mussv LFR with blocks": (lambda: mussv(LFR, [real_block()], frequencies=[1.0]), ValueError, "blocks"),
    "mussv LFR simplify not bool": (lambda: mussv(LFR, frequencies=[1.0], simplify="no"), TypeError, "simplify"),
    # block constructors
    "real_block size zero": (lambda: real_block(0), ValueError, "size"),
    "real_block size float": (lambda: real_block(2.5), TypeError, "size"),
    "complex_block size text": (lambda: complex_block("2"), TypeError, "size"),
    "full_block w_size negative": (lambda: full_block(-1), ValueError, "w_size"),
    "full_block z_size float": (lambda: full_block(2, 1.5), TypeError, "z_size"),
    # LMI cross-checks
    "lmi_upper_bound tol above one": (lambda: lmi_upper_bound(EYE2, [complex_block(2)], tol=2.0), ValueError, "tol"),
    "lmi_upper_bound solver not text": (lambda: lmi_upper_bound(EYE2, [complex_block(2)], solver=3), TypeError,
                                        "solver"),
    "lmi_margin beta negative": (lambda: lmi_margin(EYE2, [complex_block(2)], -1.0), ValueError, "beta"),
    "lmi_margin beta text": (lambda: lmi_margin(EYE2, [complex_block(2)], "1"), TypeError, "beta"),
    # LFR entry points
    "robust_stability of a StateSpace": (lambda: robust_stability(LFR.nominal()), TypeError, "lfr"),
    "robust_stability grid True": (lambda: robust_stability(LFR, grid=True), TypeError, "grid"),
    "robust_stability frequencies NaN": (lambda: robust_stability(LFR, frequencies=[1.0, np.nan]), ValueError,
                                         "frequencies"),
    "robust_stability frequencies 2-D": (lambda: robust_stability(LFR, frequencies=[[1.0, 2.0]]), ValueError,
                                         "frequencies"),
    "robust_stability seed float": (lambda: robust_stability(LFR, seed=0.5), TypeError, "seed"),
    "robust_stability progress not callable": (lambda: robust_stability(LFR, progress="bar"), TypeError,
                                               "progress"),
    "robust_stability simplify not bool": (lambda: robust_stability(LFR, simplify=None), TypeError, "simplify"),
    "worst_case_gain of an array": (lambda: worst_case_gain(np.eye(2)), TypeError, "lfr"),
    "worst_case_gain seed negative": (lambda: worst_case_gain(LFR, seed=-3), ValueError, "seed"),
    "worst_case_gain frequencies text": (lambda: worst_case_gain(LFR, frequencies="all"), TypeError, "frequencies"),
    "worst_case_gain simplify not bool": (lambda: worst_case_gain(LFR, simplify=1), TypeError, "simplify"),
    # explicit M-Delta entry points
    "robust_stability_mdelta of an LFR": (lambda: robust_stability_mdelta(LFR), TypeError, "system"),
    "robust_stability_mdelta directions zero": (lambda: robust_stability_mdelta(SYSTEM, directions=0), ValueError,
                                                "directions"),
    "worst_case_gain_mdelta of arrays": (lambda: worst_case_gain_mdelta((EYE2, EYE2)), TypeError, "system"),
    "worst_case_gain_mdelta directions float": (lambda: worst_case_gain_mdelta(SYSTEM, directions=2.0), TypeError,
                                                "directions"),
    "mdelta_system block_sizes zero": (lambda: mdelta_system(EYE2, EYE2, EYE2, EYE2, [0]), ValueError,
                                       "block_sizes"),
    "mdelta_system D wrong shape": (lambda: mdelta_system(EYE2, EYE2, EYE2, np.eye(3), [1]), ValueError, "D"),
    # frequency grids
    "modal_frequency_grid A not square": (lambda: modal_frequency_grid(np.ones((2, 3))), ValueError, "A"),
    "modal_frequency_grid A with inf": (lambda: modal_frequency_grid(np.array([[np.inf]])), ValueError, "A"),
    "modal_frequency_grid points one": (lambda: modal_frequency_grid(EYE2, points=1), ValueError, "points"),
    "refine_peaks values wrong shape": (lambda: refine_peaks([1.0, 2.0, 3.0], [1.0, 2.0]), ValueError, "values"),
    "refine_peaks frequencies unsorted": (lambda: refine_peaks([3.0, 1.0, 2.0], [1.0, 2.0, 1.0]), ValueError,
                                          "frequencies"),
    "refine_peaks count zero": (lambda: refine_peaks([1.0, 2.0, 3.0], [1.0, 2.0, 1.0], count=0), ValueError,
                                "count"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_refused_naming_the_argument(case):
    call, error, argument = CASES[case]
    with pytest.raises(error) as info:
        call()
    assert f"`{argument}" in str(info.value), str(info.value)


def test_uncertain_lfr_message_says_what_to_do():
    with pytest.raises(ValueError) as info:
        hinfnorm(LFR)
    message = str(info.value)
    assert ".nominal()" in message and ".sample(" in message
    assert "k" in message and "c" in message
    # the refusal is not a limitation: the nominal system and a parameter-free LFR are accepted
    value, _ = hinfnorm(LFR.nominal())
    assert np.isfinite(value)
