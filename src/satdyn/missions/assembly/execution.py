"""Parallel, resumable evaluation of many half-edges.

:func:`evaluate_halves` evaluates a set of :class:`~.graphs.HalfEdge` with a
:class:`~.evaluation.HalfEdgeEvaluator`:

* duplicates are evaluated once;
* with ``cache_dir``, each finished half is written at once to
  ``<cache_dir>/<key[:2]>/<key>.json`` (atomic rename), the key hashing every model input
  (:meth:`~.evaluation.HalfEdgeEvaluator.cache_key`); a later run with the same inputs
  reads it instead of recomputing, so an interrupted run resumes where it stopped;
* the work is cut into tasks of halves sharing a node model (one batched evaluation each)
  and run serially (``workers=1``), on a local process pool (``workers > 1``), or on a
  Dask cluster (``scheduler="tcp://host:port"``, or a ``dask.distributed.Client``);
* BLAS is limited to one thread per process (:func:`satdyn.runtime.limit_blas_threads`)
  and a progress bar with ETA counts the halves (:func:`satdyn.runtime.progress`).
"""

from __future__ import annotations

import json
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from ...runtime import limit_blas_threads, progress
from .evaluation import HalfEdgeEvaluator, HalfMetrics

__all__ = ["evaluate_halves", "EvaluationStats", "make_tasks"]


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


def _cache_path(cache_dir: Path, key: str) -> Path:
    return cache_dir / key[:2] / f"{key}.json"


def _write(path: Path, metrics: HalfMetrics) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(metrics.to_json(), f)
    os.replace(tmp, path)


def _client(scheduler):
    from dask.distributed import Client

    if isinstance(scheduler, Client):
        return scheduler, False
    if not isinstance(scheduler, str) or not scheduler:
        raise TypeError("`scheduler` must be a Dask scheduler address 'tcp://host:port' or a "
                        f"dask.distributed.Client; got {scheduler!r}")
    return Client(scheduler), True


def evaluate_halves(evaluator: HalfEdgeEvaluator, halves, *, workers: int = 1, scheduler=None,
                    cache_dir=None, task_size: int = 24, on_task=None,
                    desc: str = "closed loops") -> tuple[dict, EvaluationStats]:
    """Metrics of every half in ``halves`` (module docstring).

    Parameters
    ----------
    evaluator : HalfEdgeEvaluator
    halves : iterable of HalfEdge
    workers : int
        1: in this process; > 1: a local process pool of that size (ignored with ``scheduler``).
    scheduler : str or dask.distributed.Client, optional
        Run the tasks on this Dask cluster.
    cache_dir : path, optional
        On-disk cache (resume after an interruption).
    task_size : int
        Halves per task (one batched evaluation).
    on_task : callable(done_tasks, total_tasks), optional
        Called after each finished task (after its cache entries are written).

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
    unique = list(dict.fromkeys(halves))
    evaluator.get_controller()              # design once, ship the gains to the workers
    results, keys = {}, {}
    cache = Path(cache_dir) if cache_dir is not None else None
    todo = []
    for h in unique:
        if cache is not None:
            keys[h] = evaluator.cache_key(h)
            path = _cache_path(cache, keys[h])
            if path.exists():
                try:
                    results[h] = HalfMetrics.from_json(json.loads(path.read_text()))
                    continue
                except (OSError, ValueError, KeyError):
                    pass                    # a damaged entry is recomputed
        todo.append(h)
    cached = len(unique) - len(todo)
    tasks = make_tasks(todo, task_size)
    engine = "dask" if scheduler is not None else ("processes" if workers > 1 and len(tasks) > 1 else "serial")
    bar = progress(total=len(todo), desc=desc, unit="half")
    done = 0

    def finish(task, metrics):
        nonlocal done
        for h, m in zip(task, metrics):
            results[h] = m
            if cache is not None:
                _write(_cache_path(cache, keys[h]), m)
        done += 1
        bar.update(len(task))
        if on_task is not None:
            on_task(done, len(tasks))

    try:
        if engine == "serial":
            for task in tasks:
                finish(*_run_task(evaluator, task))
        elif engine == "processes":
            with ProcessPoolExecutor(max_workers=workers) as pool:
                futures = [pool.submit(_run_task, evaluator, t) for t in tasks]
                try:
                    for f in as_completed(futures):
                        finish(*f.result())
                except BaseException:
                    for f in futures:
                        f.cancel()
                    raise
        else:
            from dask.distributed import as_completed as dask_completed

            client, owned = _client(scheduler)
            try:
                ev = client.scatter(evaluator, broadcast=True)
                futures = [client.submit(_run_task, ev, t, pure=False) for t in tasks]
                for f in dask_completed(futures):
                    finish(*f.result())
            finally:
                if owned:
                    client.close()
    finally:
        bar.close()
    return results, EvaluationStats(len(unique), cached, len(todo), len(tasks), engine)
