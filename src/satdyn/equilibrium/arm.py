"""The two-link robotic arm of arXiv:2109.00407 (paper Table 1) as a shipped model.

Data live in ``satdyn/data/equilibrium/two_link_arm.json``; :func:`load_two_link_arm`
returns a :class:`TwoLinkArm` (all values physical, SI). The geometry of the zero
configuration (``"hanging"``, ``"upright"``, ``"horizontal"``; paper Fig. 3 is missing,
erratum B15) and the gravity ``g0`` (not given, erratum B16) are named options.

Frame conventions (arXiv:2109.00407): origin at joint 1, joint axes along +x, z up,
gravity ``(0, 0, -g0)`` so the field acceleration is ``a = (0, 0, +g0)``. Every
``P_{c/p}(0) = I``; the link direction in each body frame is the geometry's unit vector
``e`` (hanging ``(0, 0, -1)``): body k has its parent port at the joint, its centre of mass
at ``rho_k L_k e`` and its child port at ``L_k e``; the point mass B3 is welded at the tip
of B2. ``theta_2`` is relative (child with respect to parent).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from importlib import resources

import numpy as np

__all__ = [
    "GEOMETRIES",
    "UNCERTAIN_PARAMETERS",
    "TwoLinkArm",
    "load_two_link_arm",
    "arm_data_file",
    "two_link_arm_data",
    "two_link_arm_tree",
    "two_link_arm_parameters",
    "two_link_arm_lfr",
]

GEOMETRIES = ("hanging", "upright", "horizontal")

# The five uncertain parameters of Table 1, in the paper's order.
UNCERTAIN_PARAMETERS = ("m1", "J1", "rho1", "L2", "m3")

_PHYSICAL_FIELDS = ("m1", "m2", "m3", "J1", "J2", "L1", "L2", "rho1", "rho2",
                    "stiffness", "damping", "rotor_inertia", "g0")


def arm_data_file():
    """Path-like handle of the shipped Table 1 data file."""
    return resources.files("satdyn.data").joinpath("equilibrium/two_link_arm.json")


@dataclass(frozen=True)
class TwoLinkArm:
    """Physical data of the two-link arm (one parameter point).

    Attributes
    ----------
    m1, m2, m3 : float
        Masses of link 1, link 2 and the end-effector point mass [kg].
    J1, J2 : float
        Moments of inertia of the links about +x at their centre of mass [kg m^2].
    L1, L2 : float
        Link lengths [m].
    rho1, rho2 : float
        Centre-of-mass positions from the joint-side tip, as fractions of the length [-].
    stiffness, damping : float
        Joint spring ``Kp`` [N m/rad] (rest angle = the equilibrium) and damper ``Kd`` [N m s/rad].
    rotor_inertia : float
        Rotor inertia ``J^J`` of each joint [kg m^2] (0 in the paper's example).
    g0 : float
        Gravity magnitude [m/s^2].
    geometry : str
        Zero configuration: ``"hanging"``, ``"upright"`` or ``"horizontal"``.
    uncertain_percent : dict
        ``{name: percent}`` of the uncertain parameters (Table 1: +-20 % on m1, J1, rho1, L2, m3).
    """

    m1: float
    m2: float
    m3: float
    J1: float
    J2: float
    L1: float
    L2: float
    rho1: float
    rho2: float
    stiffness: float
    damping: float
    rotor_inertia: float
    g0: float
    geometry: str = "hanging"
    uncertain_percent: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if self.geometry not in GEOMETRIES:
            raise ValueError(f"geometry must be one of {GEOMETRIES}, got {self.geometry!r}")
        for name in _PHYSICAL_FIELDS:
            value = getattr(self, name)
            if not np.isfinite(value):
                raise ValueError(f"{name} must be finite, got {value!r}")
        for name in ("m1", "m2", "L1", "L2", "g0"):
            if getattr(self, name) <= 0.0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}")
        for name in ("m3", "J1", "J2", "rotor_inertia", "damping"):
            if getattr(self, name) < 0.0:
                raise ValueError(f"{name} must be non-negative, got {getattr(self, name)!r}")
        unknown = set(self.uncertain_percent) - set(_PHYSICAL_FIELDS)
        if unknown:
            raise ValueError(f"uncertain_percent names unknown parameters {sorted(unknown)}")

    @property
    def link_direction(self) -> np.ndarray:
        """Unit link direction ``e`` in the body frames at theta = 0 (shape (3,))."""
        return np.array(_zero_directions()[self.geometry], dtype=float)

    @property
    def zero_angle(self) -> float:
        """Angle [rad] about +x from the hanging direction to ``e`` (0, pi or pi/2)."""
        e = self.link_direction
        return float(np.arctan2(e[1], -e[2]))

    @property
    def field_acceleration(self) -> np.ndarray:
        """Uniform field acceleration ``a = -g = (0, 0, g0)`` of the reference frame [m/s^2]."""
        return np.array([0.0, 0.0, self.g0])

    def parameter_ranges(self) -> dict[str, tuple[float, float]]:
        """``{name: (low, high)}`` of the uncertain parameters around the values held here."""
        out = {}
        for name, pct in self.uncertain_percent.items():
            v = getattr(self, name)
            out[name] = (v * (1.0 - pct / 100.0), v * (1.0 + pct / 100.0))
        return out

    def with_values(self, **values) -> "TwoLinkArm":
        """A copy with some physical values replaced (``arm.with_values(m3=6.0)``)."""
        bad = set(values) - set(_PHYSICAL_FIELDS) - {"geometry"}
        if bad:
            raise ValueError(f"unknown arm parameters {sorted(bad)}; expected names among {_PHYSICAL_FIELDS}")
        return replace(self, **{k: (v if k == "geometry" else float(v)) for k, v in values.items()})

    def values(self) -> dict[str, float]:
        """All physical values as a dict."""
        return {name: float(getattr(self, name)) for name in _PHYSICAL_FIELDS}

    def sample(self, n: int, rng) -> list["TwoLinkArm"]:
        """``n`` arms with the uncertain parameters drawn uniformly in their boxes."""
        rng = np.random.default_rng(rng)
        ranges = self.parameter_ranges()
        return [self.with_values(**{k: rng.uniform(lo, hi) for k, (lo, hi) in ranges.items()})
                for _ in range(int(n))]


def two_link_arm_data() -> dict:
    """The arm's data file (:func:`arm_data_file`) as a dict: Table 1, gravity options,
    zero-link directions per geometry and the configuration of the paper's Fig. 6."""
    return json.loads(arm_data_file().read_text())


def _zero_directions() -> dict:
    return two_link_arm_data()["geometry"]["zero_link_direction"]


def load_two_link_arm(geometry: str = "hanging", g0: float | str | None = None) -> TwoLinkArm:
    """The arm of Table 1 at its nominal values.

    Parameters
    ----------
    geometry : {"hanging", "upright", "horizontal"}
        Zero configuration (default "hanging", arXiv:2109.00407).
    g0 : float or {"paper", "standard"}, optional
        Gravity [m/s^2]: a value, or a named option of the data file ("paper" = 9.81, the
        default; "standard" = 9.80665, Simscape's default).

    Returns
    -------
    TwoLinkArm
    """
    if geometry not in GEOMETRIES:
        raise ValueError(f"geometry must be one of {GEOMETRIES}, got {geometry!r}")
    data = two_link_arm_data()
    if g0 is None:
        g0 = data["gravity"]["default"]
    elif isinstance(g0, str):
        options = data["g0_options"]
        if g0 not in options:
            raise ValueError(f"g0 must be a positive number or one of {sorted(options)}, got {g0!r}")
        g0 = options[g0]
    b = data["bodies"]
    j = data["joints"]
    return TwoLinkArm(
        m1=b["B1"]["mass"], m2=b["B2"]["mass"], m3=b["B3"]["mass"],
        J1=b["B1"]["inertia"], J2=b["B2"]["inertia"],
        L1=b["B1"]["length"], L2=b["B2"]["length"],
        rho1=b["B1"]["com_ratio"], rho2=b["B2"]["com_ratio"],
        stiffness=j["stiffness"], damping=j["damping"], rotor_inertia=j["rotor_inertia"],
        g0=float(g0), geometry=geometry,
        uncertain_percent=dict(data["uncertain_percent"]),
    )


def two_link_arm_tree(arm: TwoLinkArm, angles=(0.0, 0.0), parameters: dict | None = None):
    """The arm as an :class:`~satdyn.equilibrium.recurrence.EquilibriumTree`.

    Parameters
    ----------
    arm : TwoLinkArm
        Values of every entry that is not a parameter.
    angles : pair of (float or parameter)
        Equilibrium angles ``theta_1``, ``theta_2`` [rad] (numbers, or ``vreal`` parameters
        with a ``tan_half`` / ``tan_quarter`` transform for the LFR model).
    parameters : dict, optional
        ``{name: satdyn.lfr parameter}`` for entries among ``m1, J1, rho1, L2, m3`` (or any
        field of :class:`TwoLinkArm` that enters the bodies) to keep symbolic.

    Returns
    -------
    EquilibriumTree
        Bodies ``B1, B2, B3``; joints ``J1`` (ground-B1), ``J2`` (B1-B2); weld ``W3`` (B2-B3).
    """
    from .body import RigidBody, Scaled
    from .joint import RevoluteJoint, Weld
    from .recurrence import EquilibriumTree

    parameters = dict(parameters or {})
    unknown = set(parameters) - set(_PHYSICAL_FIELDS)
    if unknown:
        raise ValueError(f"parameters names unknown arm entries {sorted(unknown)}")
    if len(angles) != 2:
        raise ValueError(f"angles must be a pair (theta_1, theta_2), got {angles!r}")

    def p(name):
        return parameters.get(name, getattr(arm, name))

    e = arm.link_direction
    x_axis = np.array([1.0, 0.0, 0.0])
    b1 = RigidBody("B1", mass=p("m1"), inertia=Scaled(p("J1"), np.diag([1.0, 0.0, 0.0])),
                   com=Scaled(_product(p("rho1"), p("L1")), e), ports={"C1": Scaled(p("L1"), e)})
    b2 = RigidBody("B2", mass=p("m2"), inertia=Scaled(p("J2"), np.diag([1.0, 0.0, 0.0])),
                   com=Scaled(_product(p("rho2"), p("L2")), e), ports={"C2": Scaled(p("L2"), e)})
    b3 = RigidBody("B3", mass=p("m3"))
    joint_data = dict(stiffness=p("stiffness"), damping=p("damping"), rotor_inertia=p("rotor_inertia"))
    j1 = RevoluteJoint("J1", parent=None, child="B1", axis=x_axis, angle=angles[0], **joint_data)
    j2 = RevoluteJoint("J2", parent="B1", parent_port="C1", child="B2", axis=x_axis, angle=angles[1],
                       **joint_data)
    w3 = Weld("W3", parent="B2", parent_port="C2", child="B3")
    return EquilibriumTree(bodies=(b1, b2, b3), connections=(j1, j2, w3),
                           field_acceleration=arm.field_acceleration)


def _product(a, b):
    # Numbers multiply; a parameter times a number stays one occurrence.
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) * float(b)
    if isinstance(b, (int, float)) and b == 1.0:
        return a
    if isinstance(a, (int, float)) and a == 1.0:
        return b
    return a * b


_ANGLE_LIMIT_DEG = {"tan_half": 170.0, "tan_quarter": 350.0}


def two_link_arm_parameters(arm: TwoLinkArm, *, uncertain: bool = True, transform: str = "tan_half",
                            angle_ranges=None) -> dict:
    """The LFR parameters of the arm: ``ureal`` for Table 1's uncertain entries and ``vreal``
    scheduling parameters ``theta1``, ``theta2`` for the equilibrium angles.

    Parameters
    ----------
    arm : TwoLinkArm
        Nominal values; ranges from ``arm.uncertain_percent`` (+-20 %).
    uncertain : bool
        False: the body entries stay fixed numbers (only the angles are parameters).
    transform : {"tan_half", "tan_quarter"}
        LFR variable of the angles: ``tan(theta/2)`` (2 occurrences per DCM, |theta| < 180 deg)
        or ``tan(theta/4)`` (4 occurrences, |theta| < 360 deg).
    angle_ranges : dict, optional
        ``{"theta1": (lo, hi), "theta2": (lo, hi)}`` [rad] (nominal at the midpoint). Default:
        the whole range of the transform (+-170 deg, or +-350 deg), nominal 0. The paper's
        control ranges are ``{"theta1": (45 deg, 90 deg), "theta2": (45 deg, 135 deg)}``.

    Returns
    -------
    dict
        ``{name: satdyn.lfr.Parameter}``.
    """
    from .. import lfr

    if transform not in _ANGLE_LIMIT_DEG:
        raise ValueError(f"transform must be 'tan_half' or 'tan_quarter', got {transform!r}")
    out = {}
    if uncertain:
        for name in UNCERTAIN_PARAMETERS:
            if name in arm.uncertain_percent:
                out[name] = lfr.ureal(name, getattr(arm, name), percent=arm.uncertain_percent[name])
    limit = np.deg2rad(_ANGLE_LIMIT_DEG[transform])
    ranges = dict(angle_ranges or {})
    bad = set(ranges) - {"theta1", "theta2"}
    if bad:
        raise ValueError(f"angle_ranges keys must be 'theta1'/'theta2', got {sorted(bad)}")
    for name in ("theta1", "theta2"):
        lo, hi = ranges.get(name, (-limit, limit))
        if not (-2 * limit <= lo < hi) or (transform == "tan_half" and max(abs(lo), abs(hi)) >= np.pi):
            raise ValueError(f"angle_ranges[{name!r}] = {(lo, hi)} is not inside the domain of {transform}")
        out[name] = lfr.vreal(name, 0.5 * (lo + hi), range=(lo, hi), transform=transform)
    return out


def two_link_arm_lfr(geometry: str = "hanging", g0=None, *, option: str = "B", uncertain: bool = True,
                     transform: str = "tan_half", angle_ranges=None, arm: TwoLinkArm | None = None):
    """The arm's LFT model around its parameter-dependent equilibrium (arXiv:2109.00407).

    One dynamic LFR with inputs ``T_J1, T_J2`` [N m], outputs ``theta_J1, theta_J2`` [rad],
    ``dtheta_J1, dtheta_J2`` [rad/s], scheduling parameters ``theta1``, ``theta2`` (the
    equilibrium angles) and, with ``uncertain=True``, the Table 1 uncertain parameters
    ``m1, J1, rho1, L2, m3``.

    Parameters
    ----------
    geometry, g0
        See :func:`load_two_link_arm` (ignored when ``arm`` is given).
    option : {"B", "A"}
        Assembly route (see :mod:`satdyn.equilibrium.assembly`).
    uncertain, transform, angle_ranges
        See :func:`two_link_arm_parameters`.
    arm : TwoLinkArm, optional
        Data to use instead of the shipped Table 1.

    Returns
    -------
    EquilibriumLFR
    """
    from .assembly import equilibrium_lfr

    arm = load_two_link_arm(geometry, g0) if arm is None else arm
    params = two_link_arm_parameters(arm, uncertain=uncertain, transform=transform, angle_ranges=angle_ranges)
    angles = (params.pop("theta1"), params.pop("theta2"))
    return equilibrium_lfr(two_link_arm_tree(arm, angles, params), option=option)

