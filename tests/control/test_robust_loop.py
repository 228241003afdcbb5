"""Robust outer loop on an uncertain first-order plant whose worst case and min-max optimum
are known in closed form, its checkpoint/resume, and the skew-mu certificate of the tuned
loop (satdyn.robust.worst_case_gain) against the same closed form."""

import json

import numpy as np
import pytest

from satdyn import lfr
from satdyn.control import Gain, RobustOptions, StaticGain, TuneOptions, robust_tune
from satdyn.control.robust_loop import certify_wcgain


def _plant():
    a = lfr.ureal("a", 1.0, percent=50)
    b = lfr.ureal("b", 1.0, percent=60)
    return lfr.ss([[-1.0 * a]], [[1.0, 1.0 * b]], [[1.0], [0.0], [1.0]],
                  [[0, 0], [0, 0.5], [0, 0]]).rename(inputs=["w", "u"], outputs=["z1", "z2", "y"])


def _closed_form():
    # f(K; a, b) = sqrt(1 + K^2/4) / (a - b K) (first-order loop, DC peak); for K < 0 the
    # worst corner is a = 0.5, b = 0.4; the min-max is the minimum of that corner's f,
    # found by a dense scan (resolution 1e-4 -> value error ~1e-9 at a smooth minimum)
    K = np.linspace(-10, 0, 100001)
    f = np.sqrt(1 + K**2 / 4) / (0.5 - 0.4 * K)
    return f.min(), K[f.argmin()]


def test_robust_loop_finds_the_worst_corner_and_the_minmax(tmp_path):
    fstar, kstar = _closed_form()
    path = tmp_path / "history.json"
    res = robust_tune(_plant(), [StaticGain("K", "y", "u", init=[[-0.5]])], soft=[Gain("w", ["z1", "z2"])],
                      options=TuneOptions(n_jobs=1), robust=RobustOptions(certify_random=50), checkpoint=path)
    cert = res.certification
    # tolerance: the SQP's stationarity stop (gradient ~1e-6) gives ~1e-8 relative here
    assert res.soft == pytest.approx(fstar, rel=1e-6)
    assert res.x[0] == pytest.approx(kstar, abs=1e-3)
    assert cert.worst[0] == pytest.approx(fstar, rel=1e-6)
    assert cert.where[0] == pytest.approx({"a": 0.5, "b": 0.4}, abs=1e-9)
    assert len(cert.rounds) >= 2 and cert.rounds[0]["violators"] > 0 and cert.rounds[-1]["violators"] == 0
    state = json.loads(path.read_text())
    assert len(state["rounds"]) == len(cert.rounds)
    # resuming from the finished checkpoint runs no new round and gives the same controller
    again = robust_tune(_plant(), [StaticGain("K", "y", "u", init=[[-0.5]])], soft=[Gain("w", ["z1", "z2"])],
                        options=TuneOptions(n_jobs=1), robust=RobustOptions(certify_random=50), checkpoint=path)
    assert len(again.certification.rounds) == len(cert.rounds)
    assert again.x[0] == pytest.approx(res.x[0], rel=1e-9)


def test_wcgain_certificate_brackets_the_closed_form():
    # skew-mu upper bound and achieved lower bound of the worst-case gain over (a, b) at the
    # tuned gain: they must bracket the closed form max_{a,b} f(K; a, b) (upper within the
    # bound's documented ~1e-3 accuracy of the converged D-G bound)
    K = -3.2
    from satdyn.control import TuningProblem

    problem = TuningProblem(_plant(), [StaticGain("K", "y", "u", init=[[K]])], [Gain("w", ["z1", "z2"])])
    out = certify_wcgain(problem, problem.controller.blocks, 0, [{}])
    exact = np.sqrt(1 + K**2 / 4) / (0.5 - 0.4 * K)
    assert out[0]["lower"] == pytest.approx(exact, rel=1e-6)
    assert out[0]["lower"] <= out[0]["upper"] * (1 + 1e-9)
    assert out[0]["upper"] <= exact * 1.01


@pytest.mark.parametrize("kw, exc, word", [
    (dict(robust=RobustOptions(rounds=1), parameters=["nope"]), ValueError, "parameters"),
    (dict(robust={}), TypeError, "robust"),
])
def test_robust_errors_name_the_argument(kw, exc, word):
    with pytest.raises(exc, match=word):
        robust_tune(_plant(), [StaticGain("K", "y", "u", init=[[-0.5]])], soft=[Gain("w", ["z1", "z2"])], **kw)


@pytest.mark.parametrize("field, value", [("rounds", 0), ("random_points", -1), ("tol", -1.0)])
def test_robust_options_validate(field, value):
    with pytest.raises(ValueError, match=field):
        RobustOptions(**{field: value})
