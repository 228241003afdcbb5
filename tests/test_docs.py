"""The documentation's worked examples are executed, so they cannot drift from the code."""

import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_conventions_page_examples_run_and_match():
    result = doctest.testfile(str(ROOT / "docs" / "conventions.md"), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 20
    assert result.failed == 0


def test_readme_example_runs(capsys):
    code = re.search(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert printed.startswith("420.0")  # total mass of the example: 400 kg hub + 20 kg panel
