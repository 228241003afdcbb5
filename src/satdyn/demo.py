"""The `satdyn demo` study: composite inertia of a small spacecraft with two rotating panels.

A rigid hub carries two solar panels on drive mechanisms. For each panel angle the
study computes the system mass, centre of mass and inertia about it by two independent
routes of :mod:`satdyn.spatial`:

1. 6x6 route: each body's rigid mass matrix re-expressed in the hub frame and
   transported to the hub centre of mass with ``tau`` (:func:`composite_mass_matrix`),
   then decomposed (:func:`mass_properties`);
2. classical route: the 3x3 parallel-axis theorem (:func:`composite_inertia`).

Their largest relative difference is part of the result. The scenario data are
synthetic (``satdyn/data/demo_spacecraft.json``). Later issues replace this study with
the flagship flexible-spacecraft robust-analysis demo.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from .spatial import composite_inertia, composite_mass_matrix, mass_properties, rigid_mass_matrix, rodrigues

__all__ = ["RigidBodyData", "PanelData", "RigidSpacecraft", "RigidSpacecraftInertia",
           "load_rigid_spacecraft", "rigid_spacecraft_inertia"]


@dataclass(frozen=True)
class RigidBodyData:
    """Mass [kg] and inertia about the centre of mass [kg m^2] of one rigid body."""

    name: str
    mass: float
    inertia: np.ndarray


@dataclass(frozen=True)
class PanelData:
    """A rigid panel on a revolute drive.

    ``hinge`` [m] and the drive ``axis`` are in the hub frame; ``hinge_to_com`` [m] and
    ``inertia`` (about the CoM) [kg m^2] in the panel frame; ``dcm_at_zero`` is
    ``P_{panel/hub}`` at angle 0. At angle a, ``P_{panel/hub} = R(axis, a) @ dcm_at_zero``.
    """

    name: str
    mass: float
    inertia: np.ndarray
    hinge: np.ndarray
    axis: np.ndarray
    hinge_to_com: np.ndarray
    dcm_at_zero: np.ndarray


@dataclass(frozen=True)
class RigidSpacecraft:
    """Hub (frame b, origin at its centre of mass G) with panels; ``default_angles`` in rad."""

    name: str
    synthetic: bool
    hub: RigidBodyData
    panels: tuple[PanelData, ...]
    default_angles: np.ndarray


def _matrix(value, name, shape):
    array = np.asarray(value, dtype=float)
    if array.shape != shape:
        raise ValueError(f"scenario field `{name}` must have shape {shape}; got {array.shape}")
    return array


def load_rigid_spacecraft(path: str | Path | None = None) -> RigidSpacecraft:
    """Read a rigid-spacecraft scenario (JSON); default: the shipped synthetic demo spacecraft.

    Parameters
    ----------
    path : str or Path, optional
        A JSON file with the layout of ``satdyn/data/demo_spacecraft.json``.
    """
    if path is None:
        text = resources.files("satdyn").joinpath("data/demo_spacecraft.json").read_text()
    else:
        try:
            text = Path(path).read_text()
        except OSError as exc:
            raise ValueError(f"`scenario`: cannot read {str(path)!r}: {exc.strerror}") from None
    try:
        raw = json.loads(text)
        hub = raw["hub"]
        panels = tuple(
            PanelData(
                name=p["name"], mass=float(p["mass"]), inertia=_matrix(p["inertia"], "inertia", (3, 3)),
                hinge=_matrix(p["hinge"], "hinge", (3,)), axis=_matrix(p["axis"], "axis", (3,)),
                hinge_to_com=_matrix(p["hinge_to_com"], "hinge_to_com", (3,)),
                dcm_at_zero=_matrix(p.get("dcm_at_zero", np.eye(3)), "dcm_at_zero", (3, 3)),
            )
            for p in raw["panels"]
        )
        return RigidSpacecraft(
            name=raw.get("name", "rigid spacecraft"),
            synthetic=bool(raw.get("synthetic", False)),
            hub=RigidBodyData(hub.get("name", "hub"), float(hub["mass"]), _matrix(hub["inertia"], "inertia", (3, 3))),
            panels=panels,
            default_angles=np.deg2rad(np.asarray(raw.get("panel_angles_deg", [0.0]), dtype=float)),
        )
    except json.JSONDecodeError as exc:
        raise ValueError(f"`scenario`: not valid JSON ({exc})") from None
    except KeyError as exc:
        raise ValueError(f"`scenario`: missing field {exc}") from None


@dataclass(frozen=True)
class RigidSpacecraftInertia:
    """Composite mass properties of a rigid spacecraft versus panel angle.

    Attributes
    ----------
    scenario : str
    synthetic : bool
        True when the scenario data are not from a real spacecraft or paper.
    panel_angles : ndarray, shape (n,)
        Panel angles [rad] (all panels at the same angle).
    total_mass : float
        [kg]
    com : ndarray, shape (n, 3)
        System centre of mass from the hub centre of mass, hub frame [m].
    inertia : ndarray, shape (n, 3, 3)
        System inertia about the system centre of mass, hub frame [kg m^2] (6x6 route).
    principal_moments : ndarray, shape (n, 3)
        Eigenvalues of ``inertia``, ascending [kg m^2].
    route_discrepancy : float
        Largest relative difference between the 6x6 and classical routes (mass, CoM, inertia).
    """

    scenario: str
    synthetic: bool
    panel_angles: np.ndarray
    total_mass: float
    com: np.ndarray
    inertia: np.ndarray
    principal_moments: np.ndarray
    route_discrepancy: float

    def to_dict(self) -> dict:
        return {
            "scenario": self.scenario,
            "synthetic": self.synthetic,
            "panel_angles_deg": np.rad2deg(self.panel_angles),
            "total_mass_kg": self.total_mass,
            "com_m": self.com,
            "inertia_kgm2": self.inertia,
            "principal_moments_kgm2": self.principal_moments,
            "route_discrepancy": self.route_discrepancy,
        }


def rigid_spacecraft_inertia(spacecraft: RigidSpacecraft | None = None, panel_angles=None) -> RigidSpacecraftInertia:
    """Composite mass properties of a hub with panels at several panel angles, by two routes.

    Parameters
    ----------
    spacecraft : RigidSpacecraft, optional
        Default: :func:`load_rigid_spacecraft` ().
    panel_angles : array_like, shape (n,), optional
        Panel angles [rad]; default: the scenario's list.

    Returns
    -------
    RigidSpacecraftInertia
    """
    sc = load_rigid_spacecraft() if spacecraft is None else spacecraft
    angles = sc.default_angles if panel_angles is None else np.atleast_1d(np.asarray(panel_angles, dtype=float))
    if angles.ndim != 1 or angles.size == 0 or not np.all(np.isfinite(angles)):
        raise ValueError("`panel_angles` must be a non-empty 1-D list of finite angles [rad]")
    n, k = angles.size, len(sc.panels)

    # Per angle and body: DCM body -> hub, CoM from G in the hub frame.
    dcms = np.broadcast_to(np.eye(3), (n, k + 1, 3, 3)).copy()
    coms = np.zeros((n, k + 1, 3))
    for j, panel in enumerate(sc.panels, start=1):
        drive = rodrigues(panel.axis, angles)                      # (n, 3, 3), axis in the hub frame
        dcms[:, j] = drive @ panel.dcm_at_zero                     # P_{panel/hub}(angle)
        coms[:, j] = panel.hinge + dcms[:, j] @ panel.hinge_to_com
    bodies = (sc.hub, *sc.panels)
    masses = np.array([b.mass for b in bodies])
    inertias = np.stack([b.inertia for b in bodies])               # each in its own body frame

    # Route 1: 6x6 mass matrices at each CoM, rotated to the hub frame and moved to G.
    D_own = rigid_mass_matrix(masses, inertias)                    # (k+1, 6, 6)
    D_G = composite_mass_matrix(np.broadcast_to(D_own, (n, k + 1, 6, 6)), -coms, dcms)
    mass1, com1, inertia1 = mass_properties(D_G)

    # Route 2: classical parallel-axis composition.
    mass2, com2, inertia2 = composite_inertia(np.broadcast_to(masses, (n, k + 1)), coms,
                                              np.broadcast_to(inertias, (n, k + 1, 3, 3)), dcms)

    scale = np.abs(inertia2).max()
    discrepancy = max(np.abs(mass1 - mass2).max() / mass2.max(),
                      np.abs(com1 - com2).max() / max(np.abs(coms).max(), 1e-300),
                      np.abs(inertia1 - inertia2).max() / scale)
    return RigidSpacecraftInertia(
        scenario=sc.name, synthetic=sc.synthetic, panel_angles=angles, total_mass=float(mass1[0]),
        com=com1, inertia=inertia1, principal_moments=np.linalg.eigvalsh(inertia1),
        route_discrepancy=float(discrepancy),
    )
