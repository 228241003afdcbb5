"""Results never depend on the wall clock; bad checkpoints and non-finite gains give one-line
errors.

Reproducibility is checked against the same computation with ``time.perf_counter`` made to
jump by 1000 s at every call (what a heavily loaded machine looks like to a wall-clock
budget): the budgets that decide a result are counts, so both runs must agree bit for bit.
A wall-clock limit may only stop a run early, and the result must say so.
"""

import json
import time

import numpy as np
import pytest

from satdyn.cli import main
from satdyn.control import Gain, RobustOptions, StaticGain, TuneOptions, TuningProblem, robust_tune, systune
from satdyn.control.evaluation import evaluate
from satdyn.control.systune import tune_problem
from satdyn.examples.sof import sof_problem


@pytest.fixture
def jumping_clock(monkeypatch):
    """``time.perf_counter`` advancing 1000 s per call (every module reads it as time.perf_counter)."""
    state = {"now": time.perf_counter()}

    def fake():
        state["now"] += 1000.0
        return state["now"]

    monkeypatch.setattr(time, "perf_counter", fake)
    return fake


def _uncertain_plant():
    # the uncertain first-order plant of test_robust_loop (closed-form worst case there)
    from satdyn import lfr

    a = lfr.ureal("a", 1.0, percent=50)
    b = lfr.ureal("b", 1.0, percent=60)
    return lfr.ss([[-1.0 * a]], [[1.0, 1.0 * b]], [[1.0], [0.0], [1.0]],
                  [[0, 0], [0, 0.5], [0, 0]]).rename(inputs=["w", "u"], outputs=["z1", "z2", "y"])


def _sof_tune(method):
    p = sof_problem("AC4")
    return systune(p.plant(), [p.gain_block()], soft=[p.goal()],
                   options=TuneOptions(method=method, random_starts=1, n_jobs=1, seed=3, max_iter=25))


def _robust():
    return robust_tune(_uncertain_plant(), [StaticGain("K", "y", "u", init=[[-0.5]])], soft=[Gain("w", ["z1", "z2"])],
                       options=TuneOptions(n_jobs=1, max_iter=30),
                       robust=RobustOptions(rounds=3, random_points=5, certify_random=20, seed=4))


def _strip_times(rounds):
    return [{k: v for k, v in r.items() if k != "time_s"} for r in rounds]


@pytest.mark.parametrize("method", ["sqp", "bfgs"])
def test_tuning_is_identical_when_the_clock_jumps(method, monkeypatch):
    # the same tune twice: a normal clock, then one jumping 1000 s per call; every number
    # of the result (parameters, values, per-iteration history without its time column, stop
    # reasons) must be identical — no tolerance: the computation is the same
    quiet = _sof_tune(method)
    state = {"now": 0.0}
    monkeypatch.setattr(time, "perf_counter", lambda: state.__setitem__("now", state["now"] + 1000.0) or state["now"])
    loaded = _sof_tune(method)
    assert np.array_equal(quiet.x, loaded.x)
    assert np.array_equal(quiet.values, loaded.values)
    assert [h[:4] for h in quiet.history] == [h[:4] for h in loaded.history]
    assert [s.reason for s in quiet.starts] == [s.reason for s in loaded.starts]
    assert not quiet.time_limited and not loaded.time_limited


def test_robust_loop_is_identical_when_the_clock_jumps(jumping_clock, monkeypatch):
    # tune / worst-case search / add rounds and the certification: identical with the clock
    # jumping (the jumping run first, then the real clock restored)
    loaded = _robust()
    monkeypatch.undo()
    quiet = _robust()
    assert np.array_equal(quiet.x, loaded.x)
    assert np.array_equal(quiet.active, loaded.active)
    assert _strip_times(quiet.certification.rounds) == _strip_times(loaded.certification.rounds)
    assert np.array_equal(quiet.certification.worst, loaded.certification.worst)


def test_wall_clock_limit_only_stops_early_and_says_so(jumping_clock):
    # with max_time set, the jumping clock passes the limit at the first check: every start
    # stops at once with reason "max_time" and the result is flagged
    p = sof_problem("AC4")
    res = systune(p.plant(), [p.gain_block()], soft=[p.goal()],
                  options=TuneOptions(random_starts=1, n_jobs=1, max_iter=40, max_time=5.0))
    assert res.time_limited
    assert {s.reason for s in res.starts} == {"max_time"}
    assert all(s.iterations <= 1 for s in res.starts)


def test_arm_study_time_limit_is_reported(jumping_clock, tmp_path, capsys):
    # `--time-limit` on the arm study: the run stops early, results.json and the terminal say so
    out = tmp_path / "out"
    assert main(["control", "--quick", "--out", str(out), "--time-limit", "1"]) == 0
    res = json.loads((out / "results.json").read_text())
    assert "wall-clock limit" in res["stopped_early"]
    assert any("wall-clock limit" in n for n in res["notes"])
    assert "STOPPED EARLY" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------
# checkpoints and non-finite gains
# ---------------------------------------------------------------------------------------
_BAD_CONTENT = {
    "truncated": b'{"x": [1.0, 2.0',
    "garbage": b"\x00\xff\xfe binary \x80",
    "wrong schema": b"[1, 2, 3]",
    "NaN gain": None,  # filled in by the test: a well-formed state with NaN parameters
}


@pytest.mark.parametrize("kind", list(_BAD_CONTENT))
@pytest.mark.parametrize("fname", ["hard_first.json", "designs.json"])
def test_corrupted_checkpoint_is_a_one_line_error_naming_the_file(kind, fname, tmp_path, capsys):
    ck = tmp_path / "ck"
    ck.mkdir()
    content = _BAD_CONTENT[kind]
    if content is None:
        n = 33  # enough entries: the NaN must be refused before the length matters
        content = json.dumps({"x": [float("nan")] * n, "active": [[0.0, 0.0]], "rounds": []} if fname != "designs.json"
                             else [{"phase": "hard first", "round": 0, "gamma1": 0.9, "gamma2": 5.0,
                                    "x": [float("nan")] * n, "training_points": 9}]).encode()
    (ck / fname).write_bytes(content)
    assert main(["control", "--quick", "--quiet", "--out", str(tmp_path / "out"), "--checkpoint", str(ck)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(ck / fname) in err
    assert not (tmp_path / "out" / "results.json").exists()


@pytest.mark.parametrize("make", ["file", "under a file"])
def test_checkpoint_location_must_be_a_writable_folder(make, tmp_path, capsys):
    blocker = tmp_path / "plain"
    blocker.write_text("not a folder")
    target = blocker if make == "file" else blocker / "sub"
    assert main(["control", "--quick", "--quiet", "--out", str(tmp_path / "out"), "--checkpoint", str(target)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--checkpoint" in err


def test_robust_loop_refuses_a_checkpoint_for_another_problem(tmp_path):
    # a well-formed state with the wrong number of parameters: an error naming the file
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"x": [1.0, 2.0], "active": [[0.0, 0.0]], "rounds": []}))
    with pytest.raises(ValueError, match="state.json"):
        robust_tune(_uncertain_plant(), [StaticGain("K", "y", "u", init=[[-0.5]])], soft=[Gain("w", ["z1", "z2"])],
                    options=TuneOptions(n_jobs=1), robust=RobustOptions(rounds=1), checkpoint=path)


def test_nan_gain_is_a_value_error_not_a_linalg_traceback():
    # a NaN parameter vector (as a corrupted checkpoint or a caller could give) is refused
    # with the parameter named, before any eigenvalue routine sees it
    problem = TuningProblem(_uncertain_plant(), [StaticGain("K", "y", "u", init=[[-0.5]])], [Gain("w", ["z1", "z2"])])
    with pytest.raises(ValueError, match="finite"):
        evaluate(problem, np.array([np.nan]))
    with pytest.raises(ValueError, match=r"starts\[0\]"):
        tune_problem(problem, TuneOptions(n_jobs=1), starts=[np.array([np.nan])])
