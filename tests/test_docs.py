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


def test_readme_example_runs_and_gives_the_analytic_margin(capsys):
    code = re.search(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert "2 Delta channels" in capsys.readouterr().out
    # Analytic: the damping c(delta) = (0.4 + b delta) / (1 + a delta) of range (0.1, 0.8) reaches
    # 0 (loss of stability) at delta = -0.4 / b with a = -1/7, b = 0.8 (1 + a) - 0.4; k stays > 0.
    a = (2 * 0.4 - 0.1 - 0.8) / (0.8 - 0.1)
    b = 0.8 * (1 + a) - 0.4
    margin = namespace["margin"]
    # 1e-6: the upper bound is the size of a destabilising perturbation located by a search
    # that stops at ~1e-9 relative.
    assert margin.lower * (1 - 1e-6) <= 0.4 / b <= margin.upper * (1 + 1e-6)
    assert margin.upper - margin.lower < 1e-3 * margin.upper
    assert abs(margin.worst_case_values["c"]) < 1e-6
