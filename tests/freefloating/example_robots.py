"""Real robot descriptions of example-robot-data (test-only dependency, a cmeel data package).

The wheel installs its files under ``<site-packages>/cmeel.prefix/share/example-robot-data/robots``;
:func:`robots_dir` finds them through the installed distribution, or returns None.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path


def robots_dir() -> Path | None:
    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots"))
    return path if path.is_dir() else None


ROBOTS = robots_dir()
SKIP_REASON = "example-robot-data is not installed (pip install example-robot-data: the test extra)"


def robot_file(relative: str) -> Path:
    return ROBOTS / relative
