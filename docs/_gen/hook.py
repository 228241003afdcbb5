"""mkdocs hook: the pages' figures, drawn by satdyn at build time (registered in mkdocs.yml).

``on_files`` runs ``docs/_gen/figures.py`` (in two processes, each with half of the figures)
into a cache folder named by a hash of everything a figure depends on -- satdyn's source and
data files, the tests' NASTRAN file one figure reads, the figure script and the numpy /
matplotlib versions -- and adds every PNG to the site as ``figures/<name>.png``. A page shows
one with ``![...](figures/<name>.png)`` (``../figures/`` from a tutorial); ``--strict`` then
checks the link like any other. A build whose sources did not change reuses the cache.

Cache folder: ``$SATDYN_DOCS_FIGURES`` if set, else ``<temp dir>/satdyn-docs-figures``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

log = logging.getLogger("mkdocs.hooks.figures")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCRIPT = HERE / "figures.py"
# files read by the figure script besides satdyn's package (docs/_gen/figures.py)
EXTRA_INPUTS = [ROOT / "tests" / "io" / "data" / "nastran_real" / "beam_modes.f06"]
# the slow figures first, alternating between the two processes (about 10 s of CPU each, with
# CPU seconds measured on one core: 5.0, 3.9, 1.7, 2.3, 1.2, 1.9, 1.3, 2.0)
SLOW = ["assembly-plan", "freefloating-motion", "blocks-balloon", "detumbling-rates", "fe-modes",
        "equilibrium-error", "tutorial-margins", "mu-attitude"]


def _figure_names() -> list[str]:
    names = []
    for line in SCRIPT.read_text(encoding="utf-8").splitlines():
        if line.startswith('@figure("'):
            names.extend(line.split('"')[1::2])       # @figure("a", "b"): both drawn by one function
    return names


def _digest() -> str:
    import matplotlib
    import numpy

    h = hashlib.sha256()
    h.update(f"{sys.version_info[:2]} numpy {numpy.__version__} matplotlib {matplotlib.__version__}".encode())
    files = sorted(p for p in (ROOT / "src" / "satdyn").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for p in [SCRIPT, *EXTRA_INPUTS, *files]:
        h.update(str(p.relative_to(ROOT)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:20]


def _cache_root() -> Path:
    return Path(os.environ.get("SATDYN_DOCS_FIGURES") or Path(tempfile.gettempdir()) / "satdyn-docs-figures")


def _draw(out: Path, names: list[str]) -> None:
    tmp = Path(tempfile.mkdtemp(prefix=out.name + ".", dir=out.parent))
    env = dict(os.environ, MPLBACKEND="Agg", TQDM_DISABLE="1", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])))
    # one name per figure function: its siblings come with it
    names = [line.split('"')[1] for line in SCRIPT.read_text(encoding="utf-8").splitlines()
             if line.startswith('@figure("')]
    slow = [n for n in SLOW if n in names]
    rest = [n for n in names if n not in slow]
    ordered = slow + rest
    groups = [ordered[0::2], ordered[1::2]]
    procs = [subprocess.Popen([sys.executable, str(SCRIPT), str(tmp), *g], env=env, cwd=str(ROOT),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for g in groups if g]
    failed = []
    for proc in procs:
        output, _ = proc.communicate()
        if proc.returncode != 0:
            failed.append(output[-4000:])
    if failed:
        raise PluginError("docs figures (docs/_gen/figures.py) failed:\n" + "\n".join(failed))
    # atomic: a half-drawn set is never taken for the cache; a concurrent build may have won
    shutil.rmtree(out, ignore_errors=True)
    try:
        tmp.replace(out)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


def on_files(files, config):
    names = _figure_names()
    out = _cache_root() / _digest()
    if not all((out / f"{n}.png").is_file() for n in names):
        out.parent.mkdir(parents=True, exist_ok=True)
        log.info("drawing %d documentation figures into %s", len(names), out)
        _draw(out, names)
    for name in names:
        files.append(File.generated(config, f"figures/{name}.png", abs_src_path=str(out / f"{name}.png")))
    return files
