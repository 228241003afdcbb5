"""The client satellite: two rigid links joined at the hinge point H by a spherical hinge.

Immutable model data (Pinocchio-style: one model, algorithms elsewhere):

* :class:`LinkParams` -- mass ``m`` [kg], CoM offset from the hinge ``c`` (3,) [m] and
  inertia about the CoM ``inertia_com`` (3, 3) [kg m^2], all in the link frame;
  derived first moment ``h = m c`` and inertia about H ``J = I_c + m(|c|^2 I - c c^T)``.
* :class:`HingeParams` -- diagonal torsional stiffness ``k`` (3,) [N m/rad], damping
  ``xi`` (3,) [N m s/rad], smooth Coulomb friction magnitudes ``f_c`` (3,) [N m] with
  regularisation ``eps_f`` [rad/s], and the spring model (``"logmap"`` or ``"trace"``).
* :class:`ClientParams` -- the two links, the hinge and the true grasp points
  ``grasp1`` (Link-1 frame) and ``grasp2`` (Link-2 frame) [m], relative to H.

The 29-parameter vector of arXiv:2407.17617 (fixed order)::

    pi = [m1, h1(3), j1(6), m2, h2(3), j2(6), k(3), xi(3), f_c(3)]

with ``j = [Jxx, Jyy, Jzz, Jxy, Jxz, Jyz]`` of the inertia about H.

:func:`client_from_table` builds the client from the paper's Table I (as shipped in
``satdyn/data/detumbling/paper_table1.json``) with every resolution of what Table I leaves open a named
option (:class:`TableResolutions`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .._validation import as_batch_of, as_float_array, as_inertia
from ..spatial import parallel_axis

__all__ = [
    "LinkParams", "HingeParams", "ClientParams", "TableResolutions", "client_from_table",
    "N_PARAMETERS", "PARAMETER_NAMES", "LINK_PARAMETER_SLICES", "inertia_vector", "inertia_matrix",
]

N_PARAMETERS = 29

_INERTIA_KEYS = ("Jxx", "Jyy", "Jzz", "Jxy", "Jxz", "Jyz")
PARAMETER_NAMES: tuple[str, ...] = tuple(
    [f"{n}{i}" for i in (1, 2) for n in ("m", "hx", "hy", "hz") + _INERTIA_KEYS]
    + [f"k_{a}" for a in "xyz"] + [f"xi_{a}" for a in "xyz"] + [f"fc_{a}" for a in "xyz"]
)
"""Names of the 29 entries of the parameter vector, in order."""

LINK_PARAMETER_SLICES = (slice(0, 10), slice(10, 20))
"""Slices of the inertial parameters ``[m, h(3), j(6)]`` of Link-1 and Link-2 in ``pi``."""


def inertia_vector(J) -> np.ndarray:
    """Six entries ``[Jxx, Jyy, Jzz, Jxy, Jxz, Jyz]`` of a symmetric inertia matrix (..., 3, 3)."""
    J = np.asarray(J, dtype=float)
    return np.stack([J[..., 0, 0], J[..., 1, 1], J[..., 2, 2], J[..., 0, 1], J[..., 0, 2], J[..., 1, 2]], axis=-1)


def inertia_matrix(j) -> np.ndarray:
    """Symmetric inertia matrix (..., 3, 3) of the six entries ``[Jxx, Jyy, Jzz, Jxy, Jxz, Jyz]``."""
    j = np.asarray(j, dtype=float)
    xx, yy, zz, xy, xz, yz = (j[..., n] for n in range(6))
    return np.stack([np.stack([xx, xy, xz], -1), np.stack([xy, yy, yz], -1), np.stack([xz, yz, zz], -1)], -2)


@dataclass(frozen=True)
class LinkParams:
    """One rigid link; everything in the link frame, relative to the hinge point H.

    Attributes
    ----------
    mass : float
        [kg], positive.
    com : ndarray, shape (3,)
        Centre of mass relative to H [m].
    inertia_com : ndarray, shape (3, 3)
        Inertia about the centre of mass [kg m^2], symmetric positive definite.
    """

    mass: float
    com: np.ndarray
    inertia_com: np.ndarray

    def __post_init__(self):
        mass = float(as_float_array(self.mass, "mass"))
        if not mass > 0:
            raise ValueError(f"`mass` must be positive; got {mass}")
        com = as_batch_of(self.com, (3,), "com")
        inertia = as_batch_of(self.inertia_com, (3, 3), "inertia_com")
        if com.shape != (3,) or inertia.shape != (3, 3):
            raise ValueError("`com` must have shape (3,) and `inertia_com` shape (3, 3)")
        as_inertia(inertia, "inertia_com")   # symmetric, PSD, triangle inequality
        object.__setattr__(self, "mass", mass)
        object.__setattr__(self, "com", com.copy())
        object.__setattr__(self, "inertia_com", inertia.copy())
        # Derived constants, computed once (the dynamics read them at every evaluation).
        object.__setattr__(self, "_first_moment", mass * com)
        object.__setattr__(self, "_inertia_hinge", parallel_axis(inertia, mass, com))

    @property
    def first_moment(self) -> np.ndarray:
        """``h = m c`` [kg m], link frame."""
        return self._first_moment

    @property
    def inertia_hinge(self) -> np.ndarray:
        """Inertia about the hinge point H [kg m^2] (parallel-axis theorem), link frame."""
        return self._inertia_hinge

    @property
    def parameters(self) -> np.ndarray:
        """The ten inertial parameters ``[m, h(3), j(6)]`` of the link about H."""
        return np.concatenate([[self.mass], self.first_moment, inertia_vector(self.inertia_hinge)])


@dataclass(frozen=True)
class HingeParams:
    """Spherical hinge with diagonal torsional spring, viscous damper and smooth Coulomb friction.

    Attributes
    ----------
    stiffness : ndarray, shape (3,)
        ``k`` [N m/rad] per axis of the Link-1 frame.
    damping : ndarray, shape (3,)
        ``xi`` [N m s/rad].
    friction : ndarray, shape (3,)
        Coulomb friction magnitudes ``f_c`` [N m]; the torque is ``f_c * tanh(w / eps_f)``.
    friction_eps : float
        Regularisation rate ``eps_f`` [rad/s].
    spring_model : {"logmap", "trace"}
        ``"logmap"``: ``U = theta^T K theta / 2`` with ``theta = Log(R1^T R2)`` (valid for
        ``|theta| < pi``); ``"trace"``: ``U = tr(G (I - R*))``, ``G = diag(sum(k)/2 - k)``,
        smooth on all of SO(3), equal to the log-map spring to second order.
    """

    stiffness: np.ndarray
    damping: np.ndarray
    friction: np.ndarray = field(default_factory=lambda: np.zeros(3))
    friction_eps: float = 0.01
    spring_model: str = "logmap"

    def __post_init__(self):
        for name in ("stiffness", "damping", "friction"):
            value = as_batch_of(getattr(self, name), (3,), name)
            if value.shape != (3,) or np.any(value < 0):
                raise ValueError(f"`{name}` must be 3 non-negative numbers; got {value.tolist()}")
            object.__setattr__(self, name, value.copy())
        eps = float(as_float_array(self.friction_eps, "friction_eps"))
        if not eps > 0:
            raise ValueError(f"`friction_eps` must be positive; got {eps}")
        object.__setattr__(self, "friction_eps", eps)
        if self.spring_model not in ("logmap", "trace"):
            raise ValueError(f"`spring_model` must be 'logmap' or 'trace'; got {self.spring_model!r}")

    @property
    def parameters(self) -> np.ndarray:
        """``[k(3), xi(3), f_c(3)]``."""
        return np.concatenate([self.stiffness, self.damping, self.friction])

    def scaled(self, factor: float) -> "HingeParams":
        """The same hinge with stiffness and damping multiplied by ``factor`` (stiffness sweep)."""
        return replace(self, stiffness=factor * self.stiffness, damping=factor * self.damping)


@dataclass(frozen=True)
class ClientParams:
    """The two-link client and the true tug grasp points.

    Attributes
    ----------
    link1, link2 : LinkParams
    hinge : HingeParams
    grasp1 : ndarray, shape (3,)
        Tug-1 grasp point relative to H in the Link-1 frame [m].
    grasp2 : ndarray, shape (3,)
        Tug-2 grasp point relative to H in the Link-2 frame [m].
    name : str
    """

    link1: LinkParams
    link2: LinkParams
    hinge: HingeParams
    grasp1: np.ndarray
    grasp2: np.ndarray
    name: str = "client"

    def __post_init__(self):
        for name in ("grasp1", "grasp2"):
            value = as_batch_of(getattr(self, name), (3,), name)
            if value.shape != (3,):
                raise ValueError(f"`{name}` must have shape (3,); got {value.shape}")
            object.__setattr__(self, name, value.copy())

    @property
    def parameters(self) -> np.ndarray:
        """The true 29-parameter vector ``pi`` (order: :data:`PARAMETER_NAMES`)."""
        return np.concatenate([self.link1.parameters, self.link2.parameters, self.hinge.parameters])

    @property
    def grasps(self) -> np.ndarray:
        """``(2, 3)`` true grasp points, each in its own link frame [m]."""
        return np.stack([self.grasp1, self.grasp2])

    @property
    def total_mass(self) -> float:
        return self.link1.mass + self.link2.mass

    def with_hinge(self, hinge: HingeParams) -> "ClientParams":
        return replace(self, hinge=hinge)


@dataclass(frozen=True)
class TableResolutions:
    """Named resolutions of what Table I leaves out or gets wrong (arXiv:2407.17617; docs/detumbling.md).

    Attributes
    ----------
    d_s_y : float
        y entry of the printed ``d_s = [0.74, 0.0.1, -0.2]`` (erratum 18): 0.01 (default) or 0.1.
    link1_includes_panel1 : bool
        Link-1 = base + panel-1 (50 kg, summed inertia diagonals) (default) or the base alone.
    com_from_d : {"minus", "plus"}
        CoM relative to H is ``c = -d`` (default; puts each grasp on its own link) or ``c = d``.
    hinge_z_stiffness, hinge_z_damping : float
        ``k_z`` [N m/rad] and ``xi_z`` not printed; default copies of y (0.25, 0.2).
    rotor_inertia_z : float
        ``J_zz`` of the hinge rotor [kg m^2], default 0; ``J_xx, J_yy`` are added to Link-2.
    xi_is_ratio : bool
        Read ``xi`` as a damping ratio, ``c = 2 xi sqrt(k J_rotor)`` (default False: coefficient).
    friction : tuple of 3 floats
        Coulomb friction magnitudes [N m] (paper: none given; default 0).
    friction_eps : float
        [rad/s], default 0.01.
    spring_model : {"logmap", "trace"}
    hinge_scale : float
        Multiplies hinge stiffness and damping (stiffness sweep ×1, ×10, ×100).
    """

    d_s_y: float = 0.01
    link1_includes_panel1: bool = True
    com_from_d: str = "minus"
    hinge_z_stiffness: float = 0.25
    hinge_z_damping: float = 0.2
    rotor_inertia_z: float = 0.0
    xi_is_ratio: bool = False
    friction: tuple = (0.0, 0.0, 0.0)
    friction_eps: float = 0.01
    spring_model: str = "logmap"
    hinge_scale: float = 1.0

    def __post_init__(self):
        if self.com_from_d not in ("minus", "plus"):
            raise ValueError(f"`com_from_d` must be 'minus' or 'plus'; got {self.com_from_d!r}")
        if not float(self.hinge_scale) > 0:
            raise ValueError(f"`hinge_scale` must be positive; got {self.hinge_scale}")


def _field(raw: dict, key: str, where: str):
    try:
        return raw[key]
    except (KeyError, TypeError):
        raise ValueError(f"scenario field `{where}{key}` is missing") from None


def _vector(raw: dict, key: str, where: str, n: int) -> np.ndarray:
    value = _field(raw, key, where)
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"scenario field `{where}{key}` must be {n} numbers; got {value!r}") from None
    if array.shape != (n,) or not np.all(np.isfinite(array)):
        raise ValueError(f"scenario field `{where}{key}` must be {n} finite numbers; got {value!r}")
    return array


def _number(raw: dict, key: str, where: str) -> float:
    return float(_vector({key: [_field(raw, key, where)]}, key, where, 1)[0])


def client_from_table(table: dict, resolutions: TableResolutions | None = None,
                      name: str = "paper Table I client") -> ClientParams:
    """Build the client from Table I data with satdyn's resolutions (docs/detumbling.md).

    Parameters
    ----------
    table : dict
        The ``table_i`` object of the scenario file: ``base``, ``panel1``, ``panel2`` with
        ``mass`` [kg] and ``inertia_diag`` (3,) [kg m^2]; ``hinge`` with ``rotor_inertia_xy``,
        ``xi_xy``, ``kappa_xy``; ``d_b`` (3,), ``d_s_x_z`` (2,), ``grasp1``, ``grasp2`` (3,) [m].
    resolutions : TableResolutions, optional
        Defaults: the resolutions of docs/detumbling.md.
    name : str

    Returns
    -------
    ClientParams
    """
    res = resolutions if resolutions is not None else TableResolutions()
    where = "table_i."
    bodies = {}
    for key in ("base", "panel1", "panel2"):
        raw = _field(table, key, where)
        bodies[key] = (_number(raw, "mass", f"{where}{key}."), _vector(raw, "inertia_diag", f"{where}{key}.", 3))
    hinge_raw = _field(table, "hinge", where)
    rotor_xy = _vector(hinge_raw, "rotor_inertia_xy", f"{where}hinge.", 2)
    xi_xy = _vector(hinge_raw, "xi_xy", f"{where}hinge.", 2)
    kappa_xy = _vector(hinge_raw, "kappa_xy", f"{where}hinge.", 2)
    d_b = _vector(table, "d_b", where, 3)
    d_s_xz = _vector(table, "d_s_x_z", where, 2)
    d_s = np.array([d_s_xz[0], float(res.d_s_y), d_s_xz[1]])
    sign = -1.0 if res.com_from_d == "minus" else 1.0

    m1, I1 = bodies["base"]
    if res.link1_includes_panel1:
        # Relative base/panel-1 offsets are not given: inertias summed without parallel-axis terms.
        m1, I1 = m1 + bodies["panel1"][0], I1 + bodies["panel1"][1]
    rotor = np.array([rotor_xy[0], rotor_xy[1], float(res.rotor_inertia_z)])
    m2, I2 = bodies["panel2"][0], bodies["panel2"][1] + rotor

    stiffness = np.array([kappa_xy[0], kappa_xy[1], float(res.hinge_z_stiffness)])
    damping = np.array([xi_xy[0], xi_xy[1], float(res.hinge_z_damping)])
    if res.xi_is_ratio:
        damping = 2.0 * damping * np.sqrt(stiffness * rotor)
    hinge = HingeParams(stiffness, damping, np.asarray(res.friction, dtype=float), float(res.friction_eps),
                        res.spring_model).scaled(float(res.hinge_scale))
    return ClientParams(
        link1=LinkParams(m1, sign * d_b, np.diag(I1)),
        link2=LinkParams(m2, sign * d_s, np.diag(I2)),
        hinge=hinge,
        grasp1=_vector(table, "grasp1", where, 3),
        grasp2=_vector(table, "grasp2", where, 3),
        name=name,
    )
