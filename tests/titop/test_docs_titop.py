"""The worked example of docs/titop.md runs (so it cannot drift from the code)."""

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "titop.md"


def test_titop_page_example_runs():
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    scope = {}
    exec(compile(code, str(DOC), "exec"), scope)
    lfr = scope["sc"].lfr
    assert lfr.ndelta == 18 and lfr.nstates == 4
    assert [(b.name, b.size) for b in lfr.blocks] == [("drive", 16), ("A.omega1", 2)]
