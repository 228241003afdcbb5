"""Parallel, resumable evaluation of many half-edges.

:func:`evaluate_halves` evaluates a set of :class:`~.graphs.HalfEdge` with a
:class:`~.evaluation.HalfEdgeEvaluator`:

* duplicates are evaluated once;
* with ``cache_dir``, each finished half is written at once to
  ``<cache_dir>/<key[:2]>/<key>.json`` (atomic rename), the key hashing every model input
  (:meth:`~.evaluation.HalfEdgeEvaluator.cache_key`); a later run with the same inputs
  reads it instead of recomputing, so an interrupted run resumes where it stopped.  An
  entry carries its key and a SHA-256 of its content and key; an entry that fails any
  check (unreadable, wrong key or checksum, malformed metrics) is recomputed and rewritten
  with a :class:`CacheWarning` naming the file, never used;
* the work is cut into tasks of halves sharing a node model (the model is built once per
  task; every half is its own batch, so the split never changes a result) and run serially
  (``workers=1``), on a local process pool (``workers > 1``), or on a Dask cluster
  (``scheduler="tcp://host:port"``, or a ``dask.distributed.Client``; an unreachable
  address fails within ``connect_timeout`` seconds, before any work);
* pool workers die with the process that started them, whatever ends it (``kill -9``
  included): on Linux the kernel signals them (``prctl(PR_SET_PDEATHSIG)``), elsewhere
  they notice the new parent within a second; what finished is already in the cache;
* BLAS is limited to one thread per process (:func:`satdyn.runtime.limit_blas_threads`)
  and a progress bar with ETA counts the halves (:func:`satdyn.runtime.progress`).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import signal
import socket
import sys
import tempfile
import threading
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ..._validation import SatdynInputError, writable_folder
from ...fe.family import CacheWarning
from ...runtime import limit_blas_threads, progress
from .evaluation import HalfEdgeEvaluator, HalfMetrics

__all__ = ["evaluate_halves", "EvaluationStats", "make_tasks", "CacheWarning", "SchedulerUnreachableError",
           "check_scheduler", "process_pool", "CACHE_FORMAT", "CONNECT_TIMEOUT"]

CACHE_FORMAT = "satdyn.missions.assembly/half-metrics/1"
_PR_SET_PDEATHSIG = 1            # linux/prctl.h
_PARENT_POLL_SECONDS = 1.0
CONNECT_TIMEOUT = 10.0           # default seconds to reach a Dask scheduler


class SchedulerUnreachableError(SatdynInputError):
    """The Dask scheduler address cannot be reached (or is not an address)."""


@dataclass(frozen=True)
class EvaluationStats:
    """Counts of a run: unique halves, read from the cache, computed now; tasks; engine."""

    halves: int
    cached: int
    computed: int
    tasks: int
    engine: str


def make_tasks(halves, max_halves: int = 24) -> list[list]:
    """Group halves by node model, cut groups into tasks of at most ``max_halves``."""
    groups = {}
    for h in halves:
        groups.setdefault(h.model_key, []).append(h)
    tasks = []
    for key in sorted(groups, key=repr):
        g = groups[key]
        tasks += [g[i:i + max_halves] for i in range(0, len(g), max_halves)]
    return tasks


def _run_task(evaluator: HalfEdgeEvaluator, task):
    with limit_blas_threads():
        return task, evaluator.evaluate(task)


# ---------------------------------------------------------------------------------------
# local process pool whose workers die with their parent
# ---------------------------------------------------------------------------------------
def _watch_parent(parent_pid: int) -> None:
    while True:
        time.sleep(_PARENT_POLL_SECONDS)
        if os.getppid() != parent_pid:          # reparented: the parent is gone
            os._exit(1)


def _die_with_parent(parent_pid: int) -> None:
    """Pool worker initializer: end this worker when ``parent_pid`` ends, however it ends.

    Linux: the kernel sends SIGKILL at the parent's death (``PR_SET_PDEATHSIG``; the pool
    forks its workers from the thread that runs :func:`evaluate_halves`, alive as long as
    the pool).  Everywhere: a daemon thread polls ``os.getppid()`` once a second.  Ctrl-C
    goes to the parent only (it stops the pool); workers ignore SIGINT.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):       # no prctl: the poll below still works
            pass
    if os.getppid() != parent_pid:              # died before the death signal was armed
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="satdyn-parent-watch", daemon=True).start()


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A local pool of ``workers`` processes that die with this process (:func:`_die_with_parent`)."""
    return ProcessPoolExecutor(max_workers=workers, initializer=_die_with_parent, initargs=(os.getpid(),))


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop at once (interrupt or error): drop queued tasks, end running ones (their halves
    are not cached, so nothing finished is lost)."""
    workers = list((getattr(pool, "_processes", None) or {}).values())     # shutdown() forgets them
    for proc in workers:
        if proc.is_alive():
            proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


# ---------------------------------------------------------------------------------------
# the cache: one checked JSON entry per half
# ---------------------------------------------------------------------------------------
def _cache_path(cache_dir: Path, key: str) -> Path:
    return cache_dir / key[:2] / f"{key}.json"


def _digest(key: str, metrics: dict) -> str:
    """SHA-256 of an entry's format, key and metrics (canonical JSON: floats round-trip)."""
    text = json.dumps({"format": CACHE_FORMAT, "key": key, "metrics": metrics}, sort_keys=True,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _write(path: Path, key: str, metrics: HalfMetrics) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = metrics.to_json()
    entry = {"format": CACHE_FORMAT, "key": key, "metrics": body, "sha256": _digest(key, body)}
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(entry, f)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _read(path: Path, key: str, costs, z: int) -> HalfMetrics:
    """The checked entry at ``path``; ``ValueError`` saying what is wrong with it."""
    try:
        entry = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"unreadable ({type(exc).__name__})") from None
    if not isinstance(entry, dict) or set(entry) != {"format", "key", "metrics", "sha256"}:
        raise ValueError("not a cache entry (expected an object with format, key, metrics, sha256)")
    if entry["format"] != CACHE_FORMAT:
        raise ValueError(f"format {entry['format']!r}, expected {CACHE_FORMAT!r}")
    if entry["key"] != key:
        raise ValueError("entry of another key")
    if entry["sha256"] != _digest(key, entry["metrics"]):
        raise ValueError("checksum mismatch (altered or damaged)")
    return HalfMetrics.from_json(entry["metrics"], costs, z)


def _check_cache_dir(cache_dir) -> Path:
    """The cache folder, created now (a file there, or no permission: an error before any work)."""
    return writable_folder(cache_dir, "cache_dir", "the edge-metric cache")


# ---------------------------------------------------------------------------------------
# Dask
# ---------------------------------------------------------------------------------------
def check_scheduler(address, timeout: float = CONNECT_TIMEOUT) -> None:
    """Raise :class:`SchedulerUnreachableError` unless ``address`` ('tcp://host:port') accepts
    a TCP connection within ``timeout`` seconds (other schemes are left to Dask)."""
    if not isinstance(address, str) or not address.strip():
        raise SchedulerUnreachableError(f"`scheduler` must be a Dask scheduler address 'tcp://host:port'; "
                                        f"got {address!r}")
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme != "tcp":
        return
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if not host or port is None:
        raise SchedulerUnreachableError(f"`scheduler` {address!r}: expected 'tcp://host:port'")
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise SchedulerUnreachableError(f"cannot reach the Dask scheduler at {address!r} "
                                        f"(within {timeout:g} s): {reason}") from None


def _client(scheduler, timeout: float):
    from dask.distributed import Client

    if isinstance(scheduler, Client):
        return scheduler, False
    if not isinstance(scheduler, str) or not scheduler:
        raise TypeError("`scheduler` must be a Dask scheduler address 'tcp://host:port' or a "
                        f"dask.distributed.Client; got {scheduler!r}")
    check_scheduler(scheduler, timeout)
    try:
        return Client(scheduler, timeout=timeout), True
    except (OSError, TimeoutError) as exc:
        raise SchedulerUnreachableError(f"cannot connect to the Dask scheduler at {scheduler!r} "
                                        f"(within {timeout:g} s): {exc}") from None


def evaluate_halves(evaluator: HalfEdgeEvaluator, halves, *, workers: int = 1, scheduler=None,
                    cache_dir=None, task_size: int = 24, on_task=None, desc: str = "closed loops",
                    connect_timeout: float = CONNECT_TIMEOUT) -> tuple[dict, EvaluationStats]:
    """Metrics of every half in ``halves`` (module docstring).

    Parameters
    ----------
    evaluator : HalfEdgeEvaluator
    halves : iterable of HalfEdge
    workers : int
        1: in this process; > 1: a local process pool of that size, at most one process per
        task (not used with ``scheduler``).
    scheduler : str or dask.distributed.Client, optional
        Run the tasks on this Dask cluster (connected first: an unreachable address raises
        :class:`SchedulerUnreachableError` within ``connect_timeout`` seconds, before any work).
    cache_dir : path, optional
        On-disk cache folder (resume after an interruption); created if missing.
    task_size : int
        Halves per task (one batched evaluation).
    on_task : callable(done_tasks, total_tasks), optional
        Called after each finished task (after its cache entries are written).
    connect_timeout : float
        Seconds allowed to reach a scheduler given by address.

    Returns
    -------
    (dict {HalfEdge: HalfMetrics}, EvaluationStats)
    """
    if not isinstance(evaluator, HalfEdgeEvaluator):
        raise TypeError(f"`evaluator` must be a HalfEdgeEvaluator; got {type(evaluator).__name__}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"`workers` must be a positive integer; got {workers!r}")
    if isinstance(task_size, bool) or not isinstance(task_size, int) or task_size < 1:
        raise ValueError(f"`task_size` must be a positive integer; got {task_size!r}")
    if not (isinstance(connect_timeout, (int, float)) and not isinstance(connect_timeout, bool)
            and 0 < connect_timeout < float("inf")):
        raise ValueError(f"`connect_timeout` must be a positive number of seconds; got {connect_timeout!r}")
    cache = _check_cache_dir(cache_dir) if cache_dir is not None else None
    client, owned = _client(scheduler, float(connect_timeout)) if scheduler is not None else (None, False)
    try:
        return _evaluate(evaluator, halves, workers, client, cache, task_size, on_task, desc)
    finally:
        if owned:
            client.close()


def _evaluate(evaluator, halves, workers, client, cache, task_size, on_task, desc):
    unique = list(dict.fromkeys(halves))
    evaluator.get_controller()              # design once, ship the gains to the workers
    results, keys = {}, {}
    todo = []
    for h in unique:
        if cache is not None:
            keys[h] = evaluator.cache_key(h)
            path = _cache_path(cache, keys[h])
            if path.exists():
                try:
                    results[h] = _read(path, keys[h], evaluator.costs, evaluator.poses.z)
                    continue
                except ValueError as exc:
                    warnings.warn(f"assembly cache entry {str(path)!r} is damaged ({exc}); recomputing it",
                                  CacheWarning, stacklevel=3)
        todo.append(h)
    cached = len(unique) - len(todo)
    tasks = make_tasks(todo, task_size)
    engine = "dask" if client is not None else ("processes" if workers > 1 and len(tasks) > 1 else "serial")
    bar = progress(total=len(todo), desc=desc, unit="half")
    done = 0

    def finish(task, metrics):
        nonlocal done
        for h, m in zip(task, metrics):
            results[h] = m
            if cache is not None:
                _write(_cache_path(cache, keys[h]), keys[h], m)
        done += 1
        bar.update(len(task))
        if on_task is not None:
            on_task(done, len(tasks))

    try:
        if engine == "serial":
            for task in tasks:
                finish(*_run_task(evaluator, task))
        elif engine == "processes":
            pool = process_pool(min(workers, len(tasks)))      # never more processes than tasks
            try:
                futures = [pool.submit(_run_task, evaluator, t) for t in tasks]
                for f in as_completed(futures):
                    finish(*f.result())
            except BaseException:
                _stop_pool(pool)
                raise
            pool.shutdown(wait=True)
        else:
            from dask.distributed import as_completed as dask_completed

            ev = client.scatter(evaluator, broadcast=True)
            futures = [client.submit(_run_task, ev, t, pure=False) for t in tasks]
            for f in dask_completed(futures):
                finish(*f.result())
    finally:
        bar.close()
    return results, EvaluationStats(len(unique), cached, len(todo), len(tasks), engine)
