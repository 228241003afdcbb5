"""`satdyn demo` on a quiet machine versus next to a competing CPU-bound process.

Four timings of the same command (``python -m satdyn demo --quiet``, this checkout's code):

* quiet / loaded, with the CLI's BLAS limit (the default: one BLAS thread);
* quiet / loaded, without it (``SATDYN_BLAS_THREADS=none``: BLAS picks its own thread count).

"Loaded" means one extra process spinning a busy loop for the whole run (on a 2-core machine
it takes one core). The printed ratio loaded / quiet is the issue's goal (<= 1.5x with the
limit); the peer of each ratio is measured in the same run, with the same settings.

Usage: ``python benchmarks/bench_demo_load.py [--hub-arrays [--samples N]] [--repeat K]``
(default: the flagship, the assembly walk; ``--hub-arrays``: the hub-and-arrays robust study).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "SATDYN_BLAS_THREADS")


def _environment(blas_limit: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}
    env["PYTHONPATH"] = str(ROOT / "src")
    env["MPLBACKEND"] = "Agg"
    if not blas_limit:
        env["SATDYN_BLAS_THREADS"] = "none"
    return env


def _run_demo(blas_limit: bool, options: list[str]) -> float:
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "satdyn", "demo", "--quiet", *options, "--out", out],
                       env=_environment(blas_limit), check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start


def _timed(blas_limit: bool, options: list[str], loaded: bool, repeat: int) -> float:
    busy = None
    if loaded:
        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        return min(_run_demo(blas_limit, options) for _ in range(repeat))
    finally:
        if busy is not None:
            busy.terminate()
            busy.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hub-arrays", action="store_true",
                        help="time the hub-and-arrays study instead of the flagship")
    parser.add_argument("--samples", type=int, default=200, help="--hub-arrays: singular-value samples (default 200)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per setting; the fastest counts (default 1)")
    args = parser.parse_args()
    # a fresh cache folder per run (the --out folder): every run computes the whole study
    options = ["--hub-arrays", "--samples", str(args.samples)] if args.hub_arrays else []
    print(f"cores: {os.cpu_count()}; satdyn demo {' '.join(options)}; best of {args.repeat}")
    for blas_limit in (True, False):
        quiet = _timed(blas_limit, options, False, args.repeat)
        loaded = _timed(blas_limit, options, True, args.repeat)
        label = "with the BLAS limit (default)" if blas_limit else "without it (SATDYN_BLAS_THREADS=none)"
        print(f"{label:40s} quiet {quiet:6.1f} s, loaded {loaded:6.1f} s, ratio {loaded / quiet:4.2f}x (goal <= 1.5x)")


if __name__ == "__main__":
    main()
