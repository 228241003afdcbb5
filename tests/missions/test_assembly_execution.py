"""Execution faults: damaged cache entries, bad cache folders, unreachable schedulers, and
pool workers outliving their parent.

Oracles: the metrics recomputed without cache (bit for bit: every half is its own batch,
see test_assembly_study); the operating system's process table for the workers.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import satdyn
from satdyn.missions.assembly.evaluation import HalfEdgeEvaluator
from satdyn.missions.assembly.execution import (CacheWarning, SchedulerUnreachableError, _cache_path, _digest,
                                                check_scheduler, evaluate_halves)
from satdyn.missions.assembly.graphs import SLOT, assemble_graph
from satdyn.missions.assembly.layout import tile_layout

COSTS = ("hinf_wrench", "h2_wrench")


@pytest.fixture(scope="module")
def evaluator():
    ev = HalfEdgeEvaluator(costs=COSTS)
    ev.get_controller()
    return ev


@pytest.fixture(scope="module")
def halves():
    g = assemble_graph(tile_layout(), 2)
    g.remove_node(SLOT)
    return list(dict.fromkeys(h for _, _, d in g.edges(data=True) for h in d["spec"].halves))


@pytest.fixture(scope="module")
def reference(evaluator, halves):
    return evaluate_halves(evaluator, halves)[0]


def _resign(entry):
    entry["sha256"] = _digest(entry["key"], entry["metrics"])


def _damage(kind, path, entry, other_entry):
    """Write a damaged version of the valid cache ``entry`` to ``path``."""
    if kind == "empty_list":
        text = "[]"
    elif kind == "truncated":
        text = json.dumps(entry)[:40]
    elif kind == "altered_value":              # valid JSON, plausible number: only the checksum sees it
        entry["metrics"]["values"]["hinf_wrench"][3] *= 0.5
        text = json.dumps(entry)
    elif kind == "missing_cost":               # re-signed: the content check must see it
        del entry["metrics"]["values"]["h2_wrench"]
        _resign(entry)
        text = json.dumps(entry)
    elif kind == "short_trace":
        entry["metrics"]["values"]["hinf_wrench"].pop()
        _resign(entry)
        text = json.dumps(entry)
    elif kind == "negative_value":
        entry["metrics"]["values"]["h2_wrench"][0] = -1.0
        _resign(entry)
        text = json.dumps(entry)
    elif kind == "other_key":                  # a valid entry copied under this key's name
        text = json.dumps(other_entry)
    elif kind == "no_checksum":                # the format of earlier versions: bare metrics
        text = json.dumps(entry["metrics"])
    else:
        raise AssertionError(kind)
    path.write_text(text)


@pytest.mark.parametrize("kind", ["empty_list", "truncated", "altered_value", "missing_cost", "short_trace",
                                  "negative_value", "other_key", "no_checksum"])
def test_damaged_cache_entry_is_recomputed_with_a_warning(evaluator, halves, reference, tmp_path, kind):
    evaluate_halves(evaluator, halves, cache_dir=tmp_path)
    victim, other = halves[1], halves[2]
    path = _cache_path(tmp_path, evaluator.cache_key(victim))
    entry = json.loads(path.read_text())
    other_entry = json.loads(_cache_path(tmp_path, evaluator.cache_key(other)).read_text())
    _damage(kind, path, entry, other_entry)
    with pytest.warns(CacheWarning, match=path.name):
        got, stats = evaluate_halves(evaluator, halves, cache_dir=tmp_path)
    assert stats.computed == 1 and stats.cached == len(halves) - 1
    for h in halves:
        for c in COSTS:
            np.testing.assert_array_equal(got[h].values[c], reference[h].values[c])
    # the entry was rewritten: the next run reads everything, silently
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        _, stats = evaluate_halves(evaluator, halves, cache_dir=tmp_path)
    assert stats.computed == 0


def test_cache_dir_must_be_a_writable_folder(evaluator, halves, tmp_path):
    afile = tmp_path / "not-a-folder"
    afile.write_text("x")
    with pytest.raises(ValueError, match="is a file"):
        evaluate_halves(evaluator, halves, cache_dir=afile)
    with pytest.raises(ValueError, match="cannot write"):
        evaluate_halves(evaluator, halves, cache_dir=afile / "below")


def _closed_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]          # nothing listens there once the socket is closed


def test_unreachable_scheduler_fails_fast_with_one_message(evaluator, halves):
    address = f"tcp://127.0.0.1:{_closed_port()}"
    with pytest.raises(SchedulerUnreachableError, match="cannot reach the Dask scheduler"):
        evaluate_halves(evaluator, halves, scheduler=address, connect_timeout=2.0)
    for bad in ("tcp://nohost", "tcp://:8786", ""):
        with pytest.raises(SchedulerUnreachableError, match="scheduler"):
            check_scheduler(bad, timeout=1.0)
    with pytest.raises(ValueError, match="connect_timeout"):
        evaluate_halves(evaluator, halves, scheduler=address, connect_timeout=0)


_STUDY_SCRIPT = textwrap.dedent("""
    import os, time
    import numpy as np
    from satdyn.missions.assembly import execution
    from satdyn.missions.assembly.closedloop import AttitudeController
    from satdyn.missions.assembly.evaluation import HalfEdgeEvaluator
    from satdyn.missions.assembly.graphs import SLOT, assemble_graph
    from satdyn.missions.assembly.layout import tile_layout

    def busy_task(evaluator, task):              # a long task that tells who runs it
        os.write(1, f"{os.getpid()}\\n".encode())   # one write: atomic on a pipe, lines never mix
        time.sleep(600)

    execution._run_task = busy_task              # the pool's workers are forked: they see it too
    g = assemble_graph(tile_layout(), 3)
    g.remove_node(SLOT)
    halves = [h for _, _, d in g.edges(data=True) for h in d["spec"].halves]
    evaluator = HalfEdgeEvaluator(controller=AttitudeController(np.eye(3)))
    execution.evaluate_halves(evaluator, halves, workers=2, task_size=1)
""")


def _alive(pid):
    """True while ``pid`` exists and is not a zombie (an orphan nobody reaps yet is dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    return True


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_pool_workers_die_with_their_parent(tmp_path, sig):
    # A parent running evaluate_halves on its local pool (workers busy with long tasks) is
    # killed (kill -9, SIGTERM) or interrupted (SIGINT, as Ctrl-C); its workers must go too,
    # and the parent must exit.  Polled for up to 30 s (the death signal is immediate on
    # Linux; the fallback poll takes ~1 s): a behaviour check, not a timing one.
    script = tmp_path / "study.py"
    script.write_text(_STUDY_SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(Path(satdyn.__file__).parents[1]), OMP_NUM_THREADS="1",
               SATDYN_QUIET="1")
    log = tmp_path / "stderr.txt"
    with open(log, "w") as err:
        parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=err, text=True,
                                  env=env)
    workers = []
    try:
        while len(workers) < 2:
            line = parent.stdout.readline()
            assert line, f"the study ended before its workers started:\n{log.read_text()}"
            workers = sorted(set(workers) | {int(line)})
        assert all(_alive(p) for p in workers)
        parent.send_signal(sig)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 30
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in workers), "pool workers outlived their parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        for pid in workers:                   # on failure: do not leave them behind
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_pool_never_starts_more_processes_than_tasks(evaluator, halves, reference):
    # --workers 1000000 must not try to fork a million processes: at most one per task (4
    # here); the answers are the serial ones, bit for bit
    got, stats = evaluate_halves(evaluator, halves[:4], workers=10 ** 6, task_size=2)
    assert stats.engine == "processes" and 1 < stats.tasks <= 4
    for h in halves[:4]:
        for c in COSTS:
            np.testing.assert_array_equal(got[h].values[c], reference[h].values[c])
