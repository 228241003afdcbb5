"""The documentation site (mkdocs-material + mkdocstrings) builds from docs/ with --strict:
broken links, missing pages in the nav and unresolvable API references fail the build."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mkdocs_build_strict(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(tmp_path / "site")], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the API reference was rendered from the docstrings
    page = (tmp_path / "site" / "reference" / "io" / "index.html").read_text()
    assert "modal_table_from_nastran" in page and "ModelFileError" in page
    assert (tmp_path / "site" / "tutorials" / "four-bar" / "index.html").is_file()
