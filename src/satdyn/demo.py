"""The `satdyn demo` studies.

1. The flagship study (``satdyn demo``, :func:`flagship_study`): the SYNTHETIC hub with two
   flexible solar arrays on drive mechanisms (model 1 of :mod:`satdyn.titop.models`,
   first array modes +/- 20 %) closed by the PD attitude controller of spec 000b section
   3.1; modes, sampled singular values, closed-loop H-infinity norm, robust stability
   margin and worst-case gain (:mod:`satdyn.robust`). See :func:`flagship_study`.

2. The rigid composite-inertia study (``satdyn demo --rigid``,
   :func:`rigid_spacecraft_inertia`), described below.

A rigid hub carries two solar panels on drive mechanisms. For each panel angle the
study computes the system mass, centre of mass and inertia about it by two independent
routes of :mod:`satdyn.spatial`:

1. 6x6 route: each body's rigid mass matrix re-expressed in the hub frame and
   transported to the hub centre of mass with ``tau`` (:func:`composite_mass_matrix`),
   then decomposed (:func:`mass_properties`);
2. classical route: the 3x3 parallel-axis theorem (:func:`composite_inertia`).

Their largest relative difference is part of the result. The scenario data are
synthetic (``satdyn/data/demo_spacecraft.json``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from .spatial import composite_inertia, composite_mass_matrix, mass_properties, rigid_mass_matrix, rodrigues

__all__ = ["RigidBodyData", "PanelData", "RigidSpacecraft", "RigidSpacecraftInertia",
           "load_rigid_spacecraft", "rigid_spacecraft_inertia", "FlagshipResult", "flagship_study",
           "attitude_closed_loop"]


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


# --------------------------------------------------------------------------------------------
# Flagship study: flexible spacecraft + PD attitude control, robust analysis
# --------------------------------------------------------------------------------------------
def attitude_closed_loop(plant, inertia, bandwidth_hz: float = 0.01, damping: float = 1.0):
    """Close a hub model with the PD attitude controller of spec 000b section 3.1.

    ``T = d + k theta + c omega``, ``k = -w^2 J``, ``c = -2 xi w J`` (w = 2 pi bandwidth_hz),
    with omega, theta the integrals of the hub angular acceleration (small angles).

    Parameters
    ----------
    plant : LFR
        Inputs ``hub:G:W[0..5]`` (wrench at the hub CoM), outputs ``hub:G:acc[0..5]``.
    inertia : (3, 3)
        J_tot at G used for tuning [kg m^2].

    Returns
    -------
    LFR
        Inputs ``d[0..2]`` (torque disturbance [N m]); outputs ``hub:G:acc[3..5]`` (hub
        angular acceleration [rad/s^2]); the plant's parameters are kept.
    """
    from .lfr import as_lfr, integrator, interconnect

    if not bandwidth_hz > 0 or not damping > 0:
        raise ValueError(f"`bandwidth_hz` and `damping` must be positive; got {bandwidth_hz}, {damping}")
    w = 2.0 * np.pi * bandwidth_hz
    J = np.asarray(inertia, dtype=float)
    acc = [f"hub:G:acc[{i}]" for i in range(3, 6)]
    torque = [f"hub:G:W[{i}]" for i in range(3, 6)]
    om, th, d = ([f"{p}[{i}]" for i in range(3)] for p in ("omega", "theta", "d"))
    blocks = [plant,
              integrator(3, inputs=acc, outputs=om),
              integrator(3, inputs=om, outputs=th),
              as_lfr(np.hstack([np.eye(3), -w**2 * J, -2.0 * damping * w * J])).rename(
                  inputs=d + th + om, outputs=torque)]
    # forces hub:G:W[0..2] stay zero (translation is free-floating, spec 000b 3.1)
    return interconnect(blocks, None, inputs=d, outputs=acc, check_unused=False)


@dataclass(frozen=True)
class FlagshipResult:
    """Result of :func:`flagship_study` (SYNTHETIC spacecraft data).

    Attributes
    ----------
    array_angle_deg : float            drive angle of the analysed configuration
    bandwidth_hz : float               attitude controller bandwidth (xi = 1)
    inertia_tot : (3, 3)               J_tot at G used for tuning [kg m^2]
    modes_hz : (n,)                    flexible modes of the nominal plant (free-free)
    frequencies_hz : (K,)              grid of the singular-value plot
    sigma_nominal : (K, 3)             singular values of torque -> angular acceleration
    sigma_max_samples : (N, K)         largest singular value at N uncertain samples
    sample_values : dict               the sampled parameter values [rad/s]
    hinf, hinf_peak_hz : float         closed-loop H-infinity norm (d -> w') and peak
    robust_stability, worst_case_gain  satdyn.robust results (worst-case values in rad/s)
    angles_deg, modes_vs_angle_hz      first modes over a grid of drive angles
    """

    array_angle_deg: float
    bandwidth_hz: float
    inertia_tot: np.ndarray
    modes_hz: np.ndarray
    frequencies_hz: np.ndarray
    sigma_nominal: np.ndarray
    sigma_max_samples: np.ndarray
    sample_values: dict
    hinf: float
    hinf_peak_hz: float
    robust_stability: object
    worst_case_gain: object
    angles_deg: np.ndarray
    modes_vs_angle_hz: np.ndarray
    synthetic: bool = True

    def to_dict(self) -> dict:
        rs, wc = self.robust_stability, self.worst_case_gain
        return {
            "model": "hub + two flexible solar arrays (SYNTHETIC data, satdyn.titop.models.hub_two_arrays)",
            "synthetic": self.synthetic,
            "array_angle_deg": self.array_angle_deg,
            "controller": {"type": "PD attitude (spec 000b section 3.1)", "bandwidth_hz": self.bandwidth_hz,
                           "damping": 1.0, "inertia_tot_kgm2": self.inertia_tot},
            "modes_hz": self.modes_hz,
            "singular_values": {
                "channel": "torque at G [N m] -> hub angular acceleration [rad/s^2]",
                "frequencies_hz": self.frequencies_hz, "nominal": self.sigma_nominal,
                "samples": int(self.sigma_max_samples.shape[0]),
                "sigma_max_envelope": [self.sigma_max_samples.min(axis=0), self.sigma_max_samples.max(axis=0)],
            },
            "hinf": {"value": self.hinf, "peak_frequency_hz": self.hinf_peak_hz,
                     "channel": "torque disturbance -> hub angular acceleration, closed loop, nominal"},
            "robust_stability": {"lower": rs.lower, "upper": rs.upper,
                                 "critical_frequency": rs.critical_frequency,
                                 "worst_case_values": rs.worst_case_values,
                                 "units": "margin: multiples of the +/-20 % box; frequency rad/s; values rad/s"},
            "worst_case_gain": {"lower": wc.lower, "upper": wc.upper,
                                "critical_frequency": wc.critical_frequency,
                                "worst_case_values": wc.worst_case_values, "nominal_gain": wc.nominal_gain,
                                "destabilizing": wc.destabilizing},
            "modes_vs_array_angle": {"angles_deg": self.angles_deg, "modes_hz": self.modes_vs_angle_hz},
        }


def _modes_hz(A) -> np.ndarray:
    poles = np.linalg.eigvals(A)
    f = np.abs(poles[poles.imag > 0]) / (2.0 * np.pi)
    return np.sort(f)


def flagship_study(*, array_angle_deg: float = 0.0, bandwidth_hz: float = 0.01, n_samples: int = 200,
                   seed: int = 0, progress=None) -> FlagshipResult:
    """Flexible spacecraft + PD attitude control: nominal modes, sampled singular values,
    closed-loop H-infinity, robust stability margin and worst-case gain.

    Parameters
    ----------
    array_angle_deg : float
        Drive angle of both arrays [deg] (the varying parameter is frozen there).
    bandwidth_hz : float
        Attitude controller bandwidth (spec 000b: 0.01 Hz, xi = 1).
    n_samples : int
        Uncertain samples of the first array frequencies for the singular-value plot.
    seed : int
        Seed of the sampling and of the robust searches.
    progress : callable(message), optional
        Called as each stage finishes.

    Returns
    -------
    FlagshipResult
    """
    from .robust import hinfnorm, robust_stability, worst_case_gain
    from .titop.models import hub_two_arrays

    if not np.isfinite(array_angle_deg) or abs(array_angle_deg) > 180:
        raise ValueError(f"`array_angle_deg` must be in [-180, 180]; got {array_angle_deg}")
    if not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise ValueError(f"`n_samples` must be a positive integer; got {n_samples!r}")
    say = progress or (lambda message: None)
    family = hub_two_arrays()
    plant = family.lfr.subs({"array_angle": np.deg2rad(array_angle_deg)})
    nominal = plant.nominal()
    say("plant built: " + repr(plant).split(", inputs")[0] + ">")
    modes = _modes_hz(nominal.A)
    J_tot = np.linalg.inv(nominal.dcgain()[3:, 3:])
    J_tot = 0.5 * (J_tot + J_tot.T)

    # singular values of torque -> angular acceleration, nominal and N uncertain samples
    f = np.logspace(-2, 1, 300)
    w = 2.0 * np.pi * f
    channel = plant[[f"hub:G:acc[{i}]" for i in range(3, 6)], [f"hub:G:W[{i}]" for i in range(3, 6)]]
    sigma_nom = np.linalg.svd(channel.freqresp(w), compute_uv=False)
    sample = channel.sample(int(n_samples), rng=seed, kinds=("uncertain",))
    G = sample.systems.freqresp(w)
    sigma_max = np.linalg.svd(G, compute_uv=False)[..., 0]
    say(f"{n_samples} uncertain samples evaluated")

    closed = attitude_closed_loop(plant, J_tot, bandwidth_hz)
    hn = hinfnorm(closed.nominal())
    say(f"closed-loop H-infinity norm {hn.value:.4g}")
    rs = robust_stability(closed, seed=seed)
    say(f"robust stability margin in [{rs.lower:.4g}, {rs.upper:.4g}]")
    wc = worst_case_gain(closed, seed=seed)
    say(f"worst-case gain in [{wc.lower:.4g}, {wc.upper:.4g}]")

    # modes versus the drive angle (the varying parameter), nominal frequencies
    angles = np.arange(0.0, 181.0, 15.0)
    batch = family.lfr.evaluate_batch({"array_angle": np.deg2rad(angles)})
    modes_vs = np.array([_modes_hz(A) for A in batch.A])
    return FlagshipResult(
        array_angle_deg=float(array_angle_deg), bandwidth_hz=float(bandwidth_hz), inertia_tot=J_tot,
        modes_hz=modes, frequencies_hz=f, sigma_nominal=sigma_nom, sigma_max_samples=sigma_max,
        sample_values={k: np.asarray(v) for k, v in sample.values.items()},
        hinf=float(hn.value), hinf_peak_hz=float(hn.peak_frequency) / (2.0 * np.pi),
        robust_stability=rs, worst_case_gain=wc, angles_deg=angles, modes_vs_angle_hz=modes_vs)
