"""The `satdyn demo` studies.

0. The flagship (``satdyn demo``, :func:`assembly_flagship_study`): the on-orbit assembly of
   arXiv:2409.06017 section 3 on the F_27 structure -- a three-arm walking robot carries
   tile 27 from tile 2 (leg R1 docked) to tile 27 (leg R2), planned by BFS and by
   Dijkstra under four closed-loop costs of the whole flexible spacecraft (H-infinity and
   H2 of the wrench transfers, the input sensitivity, and mu for the +/-20 % first array
   mode).  It is :func:`satdyn.studies.assembly.walk_example` with every cost.

1. The hub-and-arrays study (``satdyn demo --hub-arrays``, :func:`flagship_study`): the SYNTHETIC hub with two
   flexible solar arrays on drive mechanisms (model 1 of :mod:`satdyn.titop.models`,
   first array frequencies +/- 20 %) closed by a PD attitude controller (arXiv:2409.06017,
   section 3.1) with a roll-off filter; modes, closed-loop singular values with uncertain
   samples, H-infinity norm, robust stability margin and worst-case gain
   (:mod:`satdyn.robust`). Every frequency of its results is in Hz. See :func:`flagship_study`.

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

from ..spatial import composite_inertia, composite_mass_matrix, mass_properties, rigid_mass_matrix, rodrigues

__all__ = ["assembly_flagship_study", "RigidBodyData", "PanelData", "RigidSpacecraft", "RigidSpacecraftInertia",
           "load_rigid_spacecraft", "rigid_spacecraft_inertia", "FlagshipResult", "flagship_study",
           "attitude_closed_loop", "track_modes"]


def assembly_flagship_study(*, workers: int | None = None, cache_dir=None, sigma_points: int = 200):
    """The F_27 assembly walk under the four costs (module docstring, item 0).

    Parameters
    ----------
    workers : int, optional
        Local worker processes (default: the number of CPUs).
    cache_dir : path, optional
        On-disk cache of edge metrics (a second run reads them back).
    sigma_points : int
        Frequencies of the singular-value plot along both H-infinity paths.

    Returns
    -------
    satdyn.studies.assembly.AssemblyStudy
    """
    import os

    from .assembly import walk_example

    if workers is None:
        workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"`workers` must be a positive integer; got {workers!r}")
    return walk_example(workers=workers, cache_dir=cache_dir, sigma_points=sigma_points)


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
def attitude_closed_loop(plant, inertia, bandwidth_hz: float = 0.02, damping: float = 1.0, *,
                         rolloff_hz: float | None = None, rolloff_damping: float = 0.7):
    """Close a hub model with a PD attitude controller (arXiv:2409.06017, section 3.1).

    ``T = d + F(s) (k theta + c omega)``, ``k = -w^2 J``, ``c = -2 xi w J`` (w = 2 pi bandwidth_hz),
    with omega, theta the integrals of the hub angular acceleration (small angles) and
    ``F(s) = wf^2 / (s^2 + 2 zf wf s + wf^2)`` per axis a roll-off filter on the torque command
    (``wf = 2 pi rolloff_hz``; none when ``rolloff_hz`` is None).

    Parameters
    ----------
    plant : LFR
        Inputs ``hub:G:W[0..5]`` (wrench at the hub CoM), outputs ``hub:G:acc[0..5]``.
    inertia : (3, 3)
        J_tot at G used for tuning [kg m^2].
    bandwidth_hz, damping : float
        Design bandwidth [Hz] and damping ratio of the rigid-body loop.
    rolloff_hz, rolloff_damping : float, optional
        Corner frequency [Hz] and damping ratio of the roll-off filter.

    Returns
    -------
    LFR
        Inputs ``d[0..2]`` (torque disturbance [N m]); outputs ``hub:G:acc[3..5]`` (hub
        angular acceleration [rad/s^2]); the plant's parameters are kept.
    """
    from ..lfr import as_lfr, integrator, interconnect, ss

    for name, value in (("bandwidth_hz", bandwidth_hz), ("damping", damping), ("rolloff_damping", rolloff_damping)):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"`{name}` must be positive and finite; got {value}")
    if rolloff_hz is not None and not (np.isfinite(rolloff_hz) and rolloff_hz > 0):
        raise ValueError(f"`rolloff_hz` must be positive and finite [Hz] (or None); got {rolloff_hz}")
    w = 2.0 * np.pi * bandwidth_hz
    J = np.asarray(inertia, dtype=float)
    acc = [f"hub:G:acc[{i}]" for i in range(3, 6)]
    torque = [f"hub:G:W[{i}]" for i in range(3, 6)]
    om, th, d, cmd, filtered = ([f"{p}[{i}]" for i in range(3)] for p in ("omega", "theta", "d", "cmd", "cmdf"))
    pd = as_lfr(np.hstack([-w**2 * J, -2.0 * damping * w * J])).rename(inputs=th + om, outputs=cmd)
    blocks = [plant, integrator(3, inputs=acc, outputs=om), integrator(3, inputs=om, outputs=th), pd]
    if rolloff_hz is None:
        blocks.append(as_lfr(np.eye(3)).rename(inputs=cmd, outputs=filtered))
    else:
        wf = 2.0 * np.pi * rolloff_hz
        axis = (np.array([[0.0, 1.0], [-wf**2, -2.0 * rolloff_damping * wf]]), np.array([[0.0], [wf**2]]),
                np.array([[1.0, 0.0]]))
        A, B, C = (np.kron(np.eye(3), m) for m in axis)
        blocks.append(ss(A, B, C, np.zeros((3, 3))).rename(inputs=cmd, outputs=filtered))
    blocks.append(as_lfr(np.hstack([np.eye(3), np.eye(3)])).rename(inputs=d + filtered, outputs=torque))
    # forces hub:G:W[0..2] stay zero (translation is free-floating)
    return interconnect(blocks, None, inputs=d, outputs=acc, check_unused=False)


@dataclass(frozen=True)
class FlagshipResult:
    """Result of :func:`flagship_study` (SYNTHETIC spacecraft data). Frequencies in Hz.

    Attributes
    ----------
    array_angle_deg : float            drive angle of the analysed configuration [deg]
    bandwidth_hz, rolloff_hz : float   PD bandwidth (xi = 1) and roll-off filter corner (zeta = 0.7) [Hz]
    inertia_tot : (3, 3)               J_tot at G used for tuning [kg m^2]
    uncertainty : dict                 name -> (nominal, low, high) of each uncertain first array
                                       frequency [Hz]
    modes_hz : (n,)                    flexible modes of the nominal plant (free-free) [Hz]
    frequencies_hz : (K,)              grid of the singular-value plot [Hz]
    sigma_nominal : (K, 3)             closed-loop singular values d -> hub angular acceleration
                                       [(rad/s^2)/(N m)]
    sigma_max_samples : (N, K)         largest singular value at N uniform samples of the box
    sigma_max_worst : (K,)             largest singular value at the worst-case-gain parameters
    sample_values_hz : dict            the sampled first array frequencies [Hz]
    hinf, hinf_peak_hz : float         nominal closed-loop H-infinity norm and its peak [Hz]
    robust_stability, worst_case_gain  satdyn.robust results (rad/s inside; converted by ``to_dict``)
    angles_deg, modes_vs_angle_hz      modes over a grid of drive angles, columns tracked by mode shape
    mode_labels : tuple                name of each tracked mode (column)
    """

    array_angle_deg: float
    bandwidth_hz: float
    rolloff_hz: float
    inertia_tot: np.ndarray
    uncertainty: dict
    modes_hz: np.ndarray
    frequencies_hz: np.ndarray
    sigma_nominal: np.ndarray
    sigma_max_samples: np.ndarray
    sigma_max_worst: np.ndarray
    sample_values_hz: dict
    hinf: float
    hinf_peak_hz: float
    robust_stability: object
    worst_case_gain: object
    angles_deg: np.ndarray
    modes_vs_angle_hz: np.ndarray
    mode_labels: tuple
    synthetic: bool = True

    @property
    def percent(self) -> float:
        """Half-width of the uncertainty box, percent of the nominal frequencies."""
        nominal, low, _ = next(iter(self.uncertainty.values()))
        return 100.0 * (nominal - low) / nominal

    def to_dict(self) -> dict:
        rs, wc = self.robust_stability, self.worst_case_gain
        hz = 1.0 / (2.0 * np.pi)
        gain_unit = "(rad/s^2)/(N m)"
        return {
            "units": "one system: frequencies in Hz (keys *_hz), angles in deg, gains in "
                     f"{gain_unit}, inertia in kg m^2; margins are multiples of the uncertainty box",
            "model": "hub + two flexible solar arrays (SYNTHETIC data, satdyn.titop.models.hub_two_arrays)",
            "synthetic": self.synthetic,
            "array_angle_deg": self.array_angle_deg,
            "controller": {"type": "PD attitude control with a second-order roll-off filter on the torque "
                                   "command (PD as in arXiv:2409.06017 section 3.1)",
                           "bandwidth_hz": self.bandwidth_hz, "damping": 1.0, "rolloff_hz": self.rolloff_hz,
                           "rolloff_damping": 0.7, "inertia_tot_kgm2": self.inertia_tot},
            "uncertainty": {
                "description": f"first clamped modal frequency of each array, +/-{self.percent:g} %, independent",
                "parameters_hz": {k: {"nominal": v[0], "low": v[1], "high": v[2]} for k, v in self.uncertainty.items()},
            },
            "modes_hz": self.modes_hz,
            "singular_values": {
                "channel": "CLOSED loop: torque disturbance at G [N m] -> hub angular acceleration [rad/s^2]",
                "unit": gain_unit,
                "frequencies_hz": self.frequencies_hz, "nominal": self.sigma_nominal,
                "samples": int(self.sigma_max_samples.shape[0]),
                "sigma_max_envelope": [self.sigma_max_samples.min(axis=0), self.sigma_max_samples.max(axis=0)],
                "sigma_max_of_samples": float(self.sigma_max_samples.max()),
                "sigma_max_at_worst_case": self.sigma_max_worst,
            },
            "hinf": {"value": self.hinf, "peak_frequency_hz": self.hinf_peak_hz, "unit": gain_unit,
                     "channel": "torque disturbance -> hub angular acceleration, closed loop, nominal"},
            "robust_stability": {
                "lower": rs.lower, "upper": rs.upper,
                "meaning": "the loop stays stable for every parameter in (margin x the uncertainty box)",
                "deviation_percent": [self.percent * rs.lower, self.percent * rs.upper],
                "critical_frequency_hz": rs.critical_frequency * hz,
                "worst_case_values_hz": {k: v * hz for k, v in rs.worst_case_values.items()},
                "nominal_stable": bool(rs.nominal_stable)},
            "worst_case_gain": {
                "lower": wc.lower, "upper": wc.upper, "nominal_gain": wc.nominal_gain, "unit": gain_unit,
                "critical_frequency_hz": wc.critical_frequency * hz,
                "worst_case_values_hz": {k: v * hz for k, v in wc.worst_case_values.items()},
                "destabilizing": bool(wc.destabilizing)},
            "modes_vs_array_angle": {"angles_deg": self.angles_deg, "modes_hz": self.modes_vs_angle_hz,
                                     "mode_labels": list(self.mode_labels),
                                     "tracking": "columns follow one mode shape (MAC between neighbouring angles)"},
        }


def _flexible_modes(A):
    """Frequencies [Hz] (ascending) and eigenvectors (columns) of the poles with positive imaginary part."""
    poles, vectors = np.linalg.eig(A)
    keep = poles.imag > 0
    poles, vectors = poles[keep], vectors[:, keep]
    order = np.argsort(np.abs(poles))
    return np.abs(poles[order]) / (2.0 * np.pi), vectors[:, order]


def _mac(a, b) -> np.ndarray:
    """Modal assurance criterion matrix between the columns of a and b (1: same shape)."""
    num = np.abs(a.conj().T @ b) ** 2
    return num / np.outer(np.sum(np.abs(a) ** 2, axis=0), np.sum(np.abs(b) ** 2, axis=0))


def track_modes(A_batch) -> tuple[np.ndarray, np.ndarray]:
    """Modes of a sequence of state matrices, each column following one mode shape.

    Neighbouring matrices are matched by the modal assurance criterion (MAC) of their
    eigenvectors (an assignment maximising the total MAC), so that a column stays with its
    mode where frequencies cross. Needs the same state coordinates along the sequence.

    Returns
    -------
    frequencies : ndarray (n_steps, n_modes)   [Hz]
    shapes : ndarray (n_steps, n_states, n_modes)
    """
    from scipy.optimize import linear_sum_assignment

    freqs, shapes = [], []
    for A in A_batch:
        f, v = _flexible_modes(A)
        if shapes:
            rows, cols = linear_sum_assignment(-_mac(shapes[-1], v))
            f, v = f[cols[np.argsort(rows)]], v[:, cols[np.argsort(rows)]]
        freqs.append(f)
        shapes.append(v)
    return np.array(freqs), np.array(shapes)


def _mode_label(shape, data) -> str:
    """'<array mode name>, symmetric|antisymmetric' from the array modal coordinates of a shape."""
    n = len(data.array_modes.omega)
    plus, minus = shape[:n], shape[2 * n:3 * n]         # eta of each array (states [eta; eta'] per array)
    k = int(np.argmax(np.abs(plus) ** 2 + np.abs(minus) ** 2))
    names = data.mode_names or tuple(f"array mode {j + 1}" for j in range(n))
    kind = "symmetric" if np.real(plus[k] * np.conj(minus[k])) > 0 else "antisymmetric"
    return f"{names[k]}, {kind}"


def flagship_study(*, array_angle_deg: float = 0.0, bandwidth_hz: float = 0.02, rolloff_hz: float = 0.3,
                   frequency_percent: float = 20.0, n_samples: int = 200, seed: int = 0) -> FlagshipResult:
    """Flexible spacecraft + PD attitude control with roll-off: modes, closed-loop singular values
    with uncertain samples, H-infinity norm, robust stability margin and worst-case gain.

    Uncertainty: the first clamped modal frequency (out-of-plane bending) of each array,
    +/- ``frequency_percent``, independent. The roll-off filter's phase lag near that mode is
    what the flexible arrays can destabilise: the margin says how far the frequency may
    drop, the worst-case gain how much the resonance grows inside the box.

    Parameters
    ----------
    array_angle_deg : float
        Drive angle of both arrays [deg] (the varying parameter is frozen there).
    bandwidth_hz : float
        Attitude controller bandwidth [Hz] (xi = 1).
    rolloff_hz : float
        Corner frequency of the second-order roll-off filter (zeta = 0.7) [Hz].
    frequency_percent : float
        Half-width of the uncertainty box [% of the nominal first array frequency].
    n_samples : int
        Uniform samples of the box for the singular-value plot.
    seed : int
        Seed of the sampling and of the robust searches.

    Returns
    -------
    FlagshipResult
    """
    from ..robust import hinfnorm, robust_stability, worst_case_gain
    from ..runtime import limit_blas_threads, progress
    from ..titop.data import load_hub_two_arrays
    from ..titop.models import hub_two_arrays

    if not np.isfinite(array_angle_deg) or abs(array_angle_deg) > 180:
        raise ValueError(f"`array_angle_deg` must be in [-180, 180]; got {array_angle_deg}")
    if not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise ValueError(f"`n_samples` must be a positive integer; got {n_samples!r}")
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"`seed` must be an integer >= 0; got {seed!r}")
    for name, value in (("bandwidth_hz", bandwidth_hz), ("rolloff_hz", rolloff_hz)):
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"`{name}` must be positive and finite [Hz]; got {value}")
    if not (np.isfinite(frequency_percent) and 0 < frequency_percent < 100):
        raise ValueError(f"`frequency_percent` must be in (0, 100); got {frequency_percent}")

    stages = progress(total=5, desc="flagship study", unit="stage")
    # many small dense problems: BLAS threads only fight for the cores
    with limit_blas_threads():
        try:
            data = load_hub_two_arrays()
            family = hub_two_arrays(data, uncertain_modes=(0,), frequency_percent=frequency_percent)
            plant = family.lfr.subs({"array_angle": np.deg2rad(array_angle_deg)})
            nominal = plant.nominal()
            modes = _flexible_modes(nominal.A)[0]
            J_tot = np.linalg.inv(nominal.dcgain()[3:, 3:])
            J_tot = 0.5 * (J_tot + J_tot.T)
            closed = attitude_closed_loop(plant, J_tot, bandwidth_hz, rolloff_hz=rolloff_hz)
            uncertainty = {k: tuple(np.array([p.nominal, *p.range]) / (2.0 * np.pi))
                           for k, p in closed.parameters.items()}
            stages.set_postfix_str("closed loop built")
            stages.update()

            hn = hinfnorm(closed.nominal())
            stages.set_postfix_str("robust stability margin")
            stages.update()
            rs = robust_stability(closed, seed=seed)
            stages.set_postfix_str("worst-case gain")
            stages.update()
            wc = worst_case_gain(closed, seed=seed)
            stages.set_postfix_str("samples")
            stages.update()

            # closed-loop singular values: nominal, uniform samples of the box, worst-case parameters
            # the grid holds the nominal and worst-case peaks, so the curves reach the reported norms
            f = np.unique(np.concatenate([np.logspace(-2, 1, 400),
                                          [hn.peak_frequency / (2.0 * np.pi), wc.critical_frequency / (2.0 * np.pi)]]))
            f = f[np.isfinite(f) & (f > 0)]
            w = 2.0 * np.pi * f
            sigma_nom = np.linalg.svd(closed.freqresp(w), compute_uv=False)
            sample = closed.sample(int(n_samples), rng=seed, kinds=("uncertain",))
            sigma_max = np.linalg.svd(sample.systems.freqresp(w), compute_uv=False)[..., 0]
            worst = {k: float(v) for k, v in wc.worst_case_values.items()}
            sigma_worst = np.linalg.svd(closed.freqresp(w, worst, strict=False), compute_uv=False)[..., 0]

            # modes versus the drive angle (nominal frequencies), tracked by shape
            angles = np.arange(0.0, 181.0, 5.0)
            batch = hub_two_arrays(data, uncertain=False).lfr.evaluate_batch({"array_angle": np.deg2rad(angles)})
            modes_vs, shapes = track_modes(batch.A)
            labels = tuple(_mode_label(shapes[0][:, j], data) for j in range(shapes.shape[2]))
            stages.update()
        finally:
            stages.close()
    return FlagshipResult(
        array_angle_deg=float(array_angle_deg), bandwidth_hz=float(bandwidth_hz), rolloff_hz=float(rolloff_hz),
        inertia_tot=J_tot, uncertainty=uncertainty, modes_hz=modes, frequencies_hz=f, sigma_nominal=sigma_nom,
        sigma_max_samples=sigma_max, sigma_max_worst=sigma_worst,
        sample_values_hz={k: np.asarray(v) / (2.0 * np.pi) for k, v in sample.values.items()},
        hinf=float(hn.value), hinf_peak_hz=float(hn.peak_frequency) / (2.0 * np.pi),
        robust_stability=rs, worst_case_gain=wc, angles_deg=angles, modes_vs_angle_hz=modes_vs,
        mode_labels=labels)
