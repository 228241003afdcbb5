"""The tutorials in docs/tutorials are executable: every ```python block of a page runs, in
order, in one namespace (a tutorial that no longer works fails here)."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted((DOCS / "tutorials").glob("*.md"))
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_tutorials_exist():
    names = {p.stem for p in PAGES}
    assert {"spacecraft-solar-arrays", "robust-attitude-control", "nastran-arrays", "robotic-arm",
            "four-bar", "simulation"} <= names


@pytest.mark.parametrize("page", [p for p in PAGES if p.stem != "index"], ids=lambda p: p.stem)
def test_tutorial_runs(page, tmp_path, monkeypatch):
    blocks = _BLOCK.findall(page.read_text())
    assert blocks, f"{page.name} has no python blocks"
    monkeypatch.chdir(tmp_path)          # files a tutorial writes land in a temporary folder
    namespace = {"__name__": "__tutorial__"}
    for i, code in enumerate(blocks):
        try:
            exec(compile(code, f"{page.name}[block {i + 1}]", "exec"), namespace)
        except Exception as exc:  # noqa: BLE001 - name the block that failed
            raise AssertionError(f"{page.name}, python block {i + 1} failed: {exc!r}") from exc
