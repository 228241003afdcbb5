"""The example model files shipped with satdyn (``satdyn/data/models/*.yaml``)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["EXAMPLES", "example_path"]

#: name -> what the file describes
EXAMPLES = {
    "hub_two_arrays": "satdyn.titop.models.hub_two_arrays() as a file (SYNTHETIC data)",
    "robotic_arm": "the 5-joint arm of arXiv:2409.06017 section 2.5, geometry Y45 (assumed), as a file",
    "assembly_spacecraft": "the on-orbit assembly spacecraft of arXiv:2409.06017 (n = 26, dock 1, Table 2 modal data) "
                           "as a file",
    "telecom": "a generic telecom-like spacecraft: hub, two solar arrays on drives, an antenna (SYNTHETIC)",
}


def example_path(name: str) -> Path:
    """Path of a shipped example model file (``name`` in :data:`EXAMPLES`)."""
    if name not in EXAMPLES:
        raise ValueError(f"`name` must be one of {sorted(EXAMPLES)}; got {name!r}")
    return Path(str(resources.files("satdyn.data.models").joinpath(f"{name}.yaml")))
