"""Shipped models: the paper's example G (arXiv:2505.03248 §4; arXiv:2505.03248 §4.1-4.7).

``example_g(parameters=None, **overrides) -> Model`` and ``example_g_initial_state(model)
-> (q0 (nq,), v0 (nv,))``. The balloon B floats (quaternion root by default, Euler 3-2-1 root
with ``attitude="euler"``); a slider S on a prismatic joint (spring ``k``, damper ``d_s``) hangs
at the tip C of the flight chain; a double point-mass pendulum P1, P2 (dampers ``d_p1``,
``d_p2``) swings from S. Buoyancy ``-m_G g`` acts at B (constant inertial force, so the body-frame
load depends on the attitude), cancelling the total weight.

Data: Table 1 of the paper in ``satdyn/data/multibody/example_g.json``, with the assumptions
A1-A3 (stated there) and, for what the paper leaves out (k, dampers, final time, solver), the
documented defaults of implementation notes §4.7 (:data:`EXAMPLE_G_DEFAULTS`, overridable).

Coordinates: ``q = [r_B (3, inertial), quaternion (4), p, theta1, theta2]``,
``v = [v_B; omega] (balloon frame), p_dot, theta1_dot, theta2_dot]``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from importlib import resources

import numpy as np

from .joints import floating_euler_root, floating_root, prismatic_joint, revolute_joint
from .model import ModelBuilder, body

__all__ = ["ExampleGParameters", "EXAMPLE_G_DEFAULTS", "example_g", "example_g_initial_state", "load_example_g_data"]


def load_example_g_data() -> dict:
    """Table 1 data, assumptions and missing-data defaults of example G (JSON file contents)."""
    text = resources.files("satdyn.data").joinpath("multibody/example_g.json").read_text()
    return json.loads(text)


@dataclass(frozen=True)
class ExampleGParameters:
    """Options of example G. Fields marked (assumption) are NOT in the paper (arXiv:2505.03248 §4.7).

    Attributes
    ----------
    slider_stiffness : float
        k [N/m] (assumption, default 10). Do not use 0: the slider then drifts without bound.
    slider_damping : float
        d_s [N s/m] (assumption, default 1).
    pendulum1_damping, pendulum2_damping : float
        d_p1, d_p2 [N m s/rad] (assumption, default 0.1). All dampers 0: the conservative (chaotic) case.
    slider_axis : str
        ``"table"`` (Table 1, [1, 0, -1]) or ``"text"`` ([1, -1, 0], the paper's wording; implementation notes §6.10).
    attitude : str
        ``"quaternion"`` (default) or ``"euler"`` (the paper's Euler 3-2-1 root, 12 root states).
    gravity : tuple
        ``[g]_i`` [m/s^2]; Table 1: (0, -9.81, 0).
    """

    slider_stiffness: float = 10.0
    slider_damping: float = 1.0
    pendulum1_damping: float = 0.1
    pendulum2_damping: float = 0.1
    slider_axis: str = "table"
    attitude: str = "quaternion"
    gravity: tuple = (0.0, -9.81, 0.0)


def _defaults() -> ExampleGParameters:
    d = load_example_g_data()
    md = d["missing_data_defaults"]
    return ExampleGParameters(md["slider_stiffness"], md["slider_damping"], md["pendulum1_damping"],
                              md["pendulum2_damping"], "table", "quaternion", tuple(d["gravity"]))


EXAMPLE_G_DEFAULTS = _defaults()


def example_g(parameters: ExampleGParameters | None = None, **overrides):
    """The balloon / slider / double-pendulum model of arXiv:2505.03248 §4 (see module doc)."""
    p = parameters if parameters is not None else EXAMPLE_G_DEFAULTS
    names = {f.name for f in fields(ExampleGParameters)}
    unknown = set(overrides) - names
    if unknown:
        raise TypeError(f"unknown example_g option(s) {sorted(unknown)}; options: {sorted(names)}")
    p = replace(p, **overrides)
    if p.slider_axis not in ("table", "text"):
        raise ValueError(f"`slider_axis` must be 'table' or 'text'; got {p.slider_axis!r}")
    if p.attitude not in ("quaternion", "euler"):
        raise ValueError(f"`attitude` must be 'quaternion' or 'euler'; got {p.attitude!r}")
    d = load_example_g_data()
    g = np.asarray(p.gravity, dtype=float)
    b = ModelBuilder(gravity=g, name="example_g")
    bal, sl, p1, p2 = d["balloon"], d["slider"], d["pendulum1"], d["pendulum2"]
    # A1: balloon frame origin at its CoM B; port C at BC = -CB.
    b.add_body(body("balloon", bal["mass"], inertia=bal["inertia_at_com"], ports={"C": -np.asarray(bal["CB"])}),
               floating_root("balloon") if p.attitude == "quaternion" else floating_euler_root("balloon"))
    axis = sl["axis"] if p.slider_axis == "table" else sl["axis_from_text"]
    # A2: point-mass slider at its moving point P = S.
    b.add_body(body("slider", sl["mass"], ports={"S": [0.0, 0.0, 0.0]}),
               prismatic_joint("p", axis, stiffness=p.slider_stiffness, damping=p.slider_damping),
               parent="balloon", port="C")
    # A3: pendulum frames equal their parent's at zero angle.
    b.add_body(body("pendulum1", p1["mass"], com=p1["SP1"], ports={"P1": p1["SP1"]}),
               revolute_joint("theta1", p1["axis"], damping=p.pendulum1_damping), parent="slider", port="S")
    b.add_body(body("pendulum2", p2["mass"], com=p2["P1P2"]),
               revolute_joint("theta2", p2["axis"], damping=p.pendulum2_damping), parent="pendulum1", port="P1")
    total_mass = bal["mass"] + sl["mass"] + p1["mass"] + p2["mass"]
    b.add_external_wrench("balloon", np.concatenate([-total_mass * g, np.zeros(3)]), frame="inertial")
    return b.build()


def example_g_initial_state(model):
    """Table 1 initial state: balloon at rest at the origin, p = 0, theta1 = 170 deg, theta2 = -170 deg."""
    d = load_example_g_data()
    q0 = model.neutral_configuration()
    q0[model.q_slice(model.joint_index("theta1"))] = np.deg2rad(d["pendulum1"]["initial_angle_deg"])
    q0[model.q_slice(model.joint_index("theta2"))] = np.deg2rad(d["pendulum2"]["initial_angle_deg"])
    return q0, np.zeros(model.nv)
