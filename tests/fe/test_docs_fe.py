"""The worked example of docs/fe.md runs (so it cannot drift from the code)."""

import re
from pathlib import Path

from importlib import resources

import numpy as np

from satdyn import fe
from satdyn.fe.family import family_key

DOC = Path(__file__).resolve().parents[2] / "docs" / "fe.md"


def test_fe_page_example_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("SATDYN_CACHE_DIR", str(tmp_path))       # never the user's cache
    # seed that cache with the shipped family (it must be a valid cache entry for the default
    # inputs, so tile_family() reads it instead of regenerating)
    with resources.files("satdyn.data.fe").joinpath("tile_family_S5.npz").open("rb") as fh:
        shipped = fe.TileFamily.load(fh)
    shipped.save(tmp_path / "fe" / f"tile_family_{family_key(shipped.inputs)}.npz")
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    scope = {}
    exec(compile(code, str(DOC), "exec"), scope)
    assert scope["body"].lfr.nominal().nstates == 20
    assert scope["family"].n_structures == 28
    assert len(scope["data"].frequencies) == 10 and np.all(np.diff(scope["data"].frequencies) >= 0)
    assert any((tmp_path / "fe").iterdir())
