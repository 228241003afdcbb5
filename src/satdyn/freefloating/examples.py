"""Example systems of Front. Robot. AI 5:41 (2018) §8: the substitutes P4S and S6S (data files), loaded by name or path.

The paper's Tables 3-6 (masses, inertias, DH tables of its planar 4-DOF and spatial 6-DOF
examples) are images that are not available; implementation notes §8.4 defines the substitute systems
P4S and S6S used here.  They are **not from the paper** and every result built on them
says so (``model.synthetic`` is True).  Replace the data files if the real tables turn up.

Data layout (``satdyn/data/freefloating/<name>.json``): ``base`` {mass, inertia}, ``mount``
{position, euler (ϵ, ζ, η) — the paper's "1-2-3" = satdyn's Euler 3-2-1 matrix}, ``links``
[{d, alpha, a, b, theta_offset, mass, inertia_diag | inertia}], ``command`` {rate, gap,
settle}, ``controller`` {kp, kd, feedforward}.
"""

from __future__ import annotations

import dataclasses
import json
from importlib import resources
from pathlib import Path

import numpy as np

from .control import ComputedTorqueController, JointSequenceCommand
from .model import SpacecraftManipulator, from_dh

__all__ = ["ExampleSystem", "EXAMPLES", "load_example", "model_from_dict"]

EXAMPLES = ("p4s", "s6s")


@dataclasses.dataclass(frozen=True)
class ExampleSystem:
    """A model with the paper's maneuver (one joint at a time) and computed-torque controller."""

    key: str
    model: SpacecraftManipulator
    command: JointSequenceCommand
    controller: ComputedTorqueController
    note: str


def model_from_dict(data: dict) -> SpacecraftManipulator:
    """Build a model from the DH layout of the data files (see module docstring)."""
    try:
        links = data["links"]
        inertias = [np.diag(l["inertia_diag"]) if "inertia_diag" in l else np.asarray(l["inertia"], float)
                    for l in links]
        return from_dh(
            base_mass=data["base"]["mass"], base_inertia=data["base"]["inertia"],
            mount_position=data["mount"]["position"], mount_euler=data["mount"].get("euler", (0.0, 0.0, 0.0)),
            d=[l["d"] for l in links], alpha=[l["alpha"] for l in links], a=[l["a"] for l in links],
            b=[l["b"] for l in links], theta_offset=[l.get("theta_offset", 0.0) for l in links],
            masses=[l["mass"] for l in links], inertias=inertias, name=data.get("name", "example"),
            synthetic=bool(data.get("synthetic", False)))
    except KeyError as exc:
        raise ValueError(f"example data is missing the key {exc}") from None


def load_example(name: str = "p4s") -> ExampleSystem:
    """Load 'p4s', 's6s' (packaged substitutes) or a JSON file path of the same layout."""
    if not isinstance(name, str):
        raise TypeError(f"`name` must be a string; got {type(name).__name__}")
    if name.lower() in EXAMPLES:
        key = name.lower()
        text = resources.files("satdyn.data").joinpath(f"freefloating/{key}.json").read_text()
    else:
        path = Path(name)
        if not path.is_file():
            raise ValueError(f"`name` must be one of {EXAMPLES} or an existing JSON file; got {name!r}")
        key, text = path.stem, path.read_text()
    data = json.loads(text)
    model = model_from_dict(data)
    cmd = data.get("command", {})
    command = JointSequenceCommand(model.n_joints, rate=cmd.get("rate", 0.1), gap=cmd.get("gap", 0.0),
                                   settle=cmd.get("settle", 0.0))
    ctl = data.get("controller", {})
    controller = ComputedTorqueController(command, kp=ctl.get("kp", 1.0), kd=ctl.get("kd", 1.0),
                                          feedforward=ctl.get("feedforward", False))
    return ExampleSystem(key, model, command, controller, data.get("note", ""))
