"""Typed data of the shipped TITOP models and their loaders.

Data files live in ``satdyn/data/titop/``:

* ``paper000_table2_as_printed.json``, ``paper000_table3_as_printed.json``: Tables 2-3 of
  arXiv:2409.06017 verbatim;
* ``paper000_table2_interpreted.json``: satdyn's interpreted reading (docs/titop.md) (L_P and Phi_C
  swapped back, F1 mode-2 L_Ry corrected, tile grid layouts);
* ``arm_geometries.json``: the (unpublished, assumed) arm kinematics "Y45" (default),
  "Y45-h22.5" and "spec-M1" (assumed geometry, docs/titop.md);
* ``synthetic_hub_two_arrays.json``: the SYNTHETIC hub + two solar arrays of model 1.

Units: SI; frequencies are given in Hz in the files (``*_hz``) and converted to rad/s once,
here (``omega``). Off-diagonal inertia entries of the paper tables are products of inertia
by default (``inertia_convention="poi"``, satdyn's reading, docs/titop.md): tensor = [[Jxx, -Pxy, -Pxz], ...].
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import numpy as np

from ..spatial import rigid_mass_matrix, rodrigues

__all__ = [
    "ModalData", "StructureData", "ArmGeometry", "RobotData", "AssemblySpacecraftData",
    "HubTwoArraysData", "ARM_GEOMETRIES", "TABLE2_READINGS", "TILE_LAYOUTS", "INERTIA_CONVENTIONS",
    "load_arm_geometry", "load_robot", "load_assembly_spacecraft", "load_hub_two_arrays",
    "tile_centres", "structure_mass_matrix", "inertia_tensor",
]

TABLE2_READINGS = ("interpreted", "as-printed")
TILE_LAYOUTS = ("B", "A")
INERTIA_CONVENTIONS = ("poi", "tensor")
ARM_GEOMETRIES = ("Y45", "Y45-h22.5", "spec-M1")
_SQRT3_2 = np.sqrt(3.0) / 2.0


def _read(name: str) -> dict:
    return json.loads(resources.files("satdyn.data.titop").joinpath(name).read_text())


def _choice(value, allowed, name):
    if value not in allowed:
        raise ValueError(f"`{name}` must be one of {allowed}; got {value!r}")
    return value


def inertia_tensor(printed, convention: str = "poi") -> np.ndarray:
    """Inertia tensor from a printed symmetric table (off-diagonals PoI or tensor entries)."""
    _choice(convention, INERTIA_CONVENTIONS, "inertia_convention")
    J = np.array(printed, dtype=float)
    if convention == "poi":
        J = np.diag(np.diag(J)) - (J - np.diag(np.diag(J)))
    return J


def _exact_sqrt3(P, scale: float = 1.0) -> np.ndarray:
    """Replace the printed ``scale * 0.866`` by ``scale * sqrt(3)/2`` (satdyn's reading, docs/titop.md)."""
    P = np.array(P, dtype=float)
    return np.where(np.isclose(np.abs(P), 0.866 * scale, atol=5e-4 * scale), np.sign(P) * _SQRT3_2 * scale, P)


@dataclass(frozen=True)
class ModalData:
    """Clamped-free modal data of a flexible body at its parent port P.

    ``omega`` [rad/s] (n,), ``damping`` (n,), ``L_P`` (n, 6) participation factors
    (rows = modes, columns [Tx Ty Tz Rx Ry Rz]), mass-normalised modes.
    """

    omega: np.ndarray
    damping: np.ndarray
    L_P: np.ndarray

    @property
    def frequencies_hz(self) -> np.ndarray:
        return self.omega / (2.0 * np.pi)


@dataclass(frozen=True)
class StructureData:
    """Flexible structure F_n clamped at P2 with one child port C_j (Table 2)."""

    n_tiles: int
    port: int
    r_P2_C: np.ndarray
    modes: ModalData
    Phi_C: np.ndarray
    D_P2: np.ndarray
    reading: str


@dataclass(frozen=True)
class ArmGeometry:
    """One 5-joint, 6-link arm: link i runs from J_i to J_{i+1} (frame l_i at J_i).

    Attributes
    ----------
    link_vectors : (6, 3) r_i = J_i J_{i+1} in l_i [m]
    link_masses : (6,) [kg]; link_coms : (6, 3) CoM from J_i in l_i [m];
    link_inertias : (6, 3, 3) at the CoM [kg m^2]
    axes : (5, 3) joint axes v_k in the child frame l_k
    offsets : (5, 3, 3) P0_k, with P_{l_k/l_{k-1}}(a) = P0_k expm(a *v_k)
    synthetic : True (the geometry is not published)
    """

    name: str
    link_vectors: np.ndarray
    link_masses: np.ndarray
    link_coms: np.ndarray
    link_inertias: np.ndarray
    axes: np.ndarray
    offsets: np.ndarray
    synthetic: bool = True

    def joint_dcm(self, k: int, angle: float) -> np.ndarray:
        """P_{l_k/l_{k-1}}(angle) for joint k = 1..5."""
        return self.offsets[k - 1] @ rodrigues(self.axes[k - 1], angle)

    def link_mass_matrix(self, i: int) -> np.ndarray:
        """Rigid mass matrix of link i at J_i in l_i."""
        return rigid_mass_matrix(self.link_masses[i], self.link_inertias[i], self.link_coms[i])


@dataclass(frozen=True)
class RobotData:
    """Three identical arms on a rigid hub C (Table 3), plus the tile carried by arm 3."""

    arm: ArmGeometry
    hub_mass: float
    hub_inertia: np.ndarray
    r_D_J6: np.ndarray          # (3, 3): D J6^{Rk} in R_c, k = 1..3
    P_l5_c: np.ndarray          # (3, 3, 3): P_{l5^{Rk}/c}
    tile_mass: float
    tile_inertia: np.ndarray    # at J0^{R3} in R_t

    @property
    def mass(self) -> float:
        return 3.0 * float(self.arm.link_masses.sum()) + self.hub_mass


@dataclass(frozen=True)
class AssemblySpacecraftData:
    """Spacecraft of the on-orbit assembly scenario (Tables 2-3, arXiv:2409.06017)."""

    reading: str
    layout: str
    hub_mass: float
    hub_inertia: np.ndarray
    r_G_P: np.ndarray           # (3, 3): G P1, G P2, G P3 in R_b
    P_a_b: np.ndarray
    P_s_b: np.ndarray
    P_f_b: np.ndarray
    array_D_P1: np.ndarray
    array_modes: ModalData      # the 2 listed modes (satdyn's reading, docs/titop.md)
    array_r_omega: float
    r_P3_C0: np.ndarray
    tile_centres: np.ndarray    # (28, 3) in R_fn, assembly order
    structures: dict = field(default_factory=dict)   # n -> StructureData
    robot: RobotData | None = None
    n_tiles_total: int = 28

    @property
    def tile_mass(self) -> float:
        return self.robot.tile_mass

    @property
    def total_mass(self) -> float:
        return self.hub_mass + self.array_D_P1[0, 0] + self.n_tiles_total * self.tile_mass + self.robot.mass


def tile_centres(layout: str = "B") -> np.ndarray:
    """(28, 3) tile centres in R_fn in assembly order (satdyn's interpreted reading, docs/titop.md:
    layout 'B' default)."""
    _choice(layout, TILE_LAYOUTS, "layout")
    grid = _read("paper000_table2_interpreted.json")["tile_grid"]
    return np.array([[x, y, 0.0] for y, xs in zip(grid["row_y"], grid["row_x_order"][layout]) for x in xs])


def structure_mass_matrix(n: int, centres, tile_mass: float, tile_inertia) -> np.ndarray:
    """Rigid mass matrix of F_n at P2 by rigid composition of its n tiles (satdyn's reading, docs/titop.md)."""
    centres = np.asarray(centres, dtype=float)
    if not 1 <= n <= len(centres):
        raise ValueError(f"`n` must be in 1..{len(centres)}; got {n}")
    return rigid_mass_matrix(np.full(n, tile_mass), np.broadcast_to(tile_inertia, (n, 3, 3)),
                             centres[:n]).sum(axis=0)


@lru_cache(maxsize=None)
def _arm_geometry(name: str) -> ArmGeometry:
    table3 = _read("paper000_table3_as_printed.json")["links"]
    geo = _read("arm_geometries.json")["geometries"][name]
    offsets = np.array([rodrigues(o["axis"], np.deg2rad(o["angle_deg"])) for o in geo["offsets"]])
    arm = ArmGeometry(
        name=name,
        link_vectors=np.array(geo["link_vectors"], dtype=float),
        link_masses=np.array(table3["mass"], dtype=float),
        link_coms=np.array(table3["com"], dtype=float),
        link_inertias=np.array([d * np.eye(3) for d in table3["inertia_diagonal_at_com"]]),
        axes=np.array(geo["axes"], dtype=float),
        offsets=offsets,
        synthetic=bool(geo["synthetic"]),
    )
    for a in (arm.link_vectors, arm.link_masses, arm.link_coms, arm.link_inertias, arm.axes, arm.offsets):
        a.setflags(write=False)
    return arm


def load_arm_geometry(name: str = "Y45") -> ArmGeometry:
    """Arm geometry by name: "Y45" (default, assumed geometry, docs/titop.md), "Y45-h22.5" or "spec-M1"
    (a placeholder geometry)."""
    return _arm_geometry(_choice(name, ARM_GEOMETRIES, "arm_geometry"))


def load_robot(arm_geometry: str = "Y45") -> RobotData:
    """The three-arm walking robot of Table 3 with the named arm geometry."""
    t3 = _read("paper000_table3_as_printed.json")
    hub = t3["robot_hub"]
    return RobotData(
        arm=load_arm_geometry(arm_geometry),
        hub_mass=float(hub["mass"]),
        hub_inertia=np.array(hub["inertia_at_D"], dtype=float),
        r_D_J6=np.array([_exact_sqrt3(hub["r_D_J6"][k], 0.1) for k in ("R1", "R2", "R3")]),
        P_l5_c=np.array([_exact_sqrt3(hub["P_l5_c"][k]) for k in ("R1", "R2", "R3")]),
        tile_mass=float(t3["tile"]["mass"]),
        tile_inertia=np.array(t3["tile"]["inertia_at_J0"], dtype=float),
    )


def load_assembly_spacecraft(reading: str = "interpreted", *, layout: str = "B",
                             inertia_convention: str = "poi", arm_geometry: str = "Y45") -> AssemblySpacecraftData:
    """Tables 2-3 as typed data (arXiv:2409.06017, satdyn's interpreted reading, docs/titop.md).

    Parameters
    ----------
    reading : {"interpreted", "as-printed"}
        Which reading of Table 2's L_P / Phi_C for F1 and F26 (satdyn's interpreted reading, docs/titop.md).
    layout : {"B", "A"}
        Tile assembly order; "B" puts tile 25 at (-0.5, 6.5) as printed (satdyn's interpreted reading, docs/titop.md).
    inertia_convention : {"poi", "tensor"}
        Meaning of the printed off-diagonal inertia entries of the hub and array (satdyn's reading, docs/titop.md).
    arm_geometry : str
        Robot arm geometry (:func:`load_arm_geometry`).
    """
    _choice(reading, TABLE2_READINGS, "reading")
    t2 = _read("paper000_table2_as_printed.json")
    interp = _read("paper000_table2_interpreted.json")
    robot = load_robot(arm_geometry)
    centres = tile_centres(layout)
    hub = t2["hub"]
    sa = t2["solar_array"]
    array_D = rigid_mass_matrix(sa["mass"], inertia_tensor(sa["inertia_at_S1_printed"], inertia_convention),
                                sa["r_P1_S1"])
    n_array = len(sa["frequencies_hz"])       # rows 1-2 of the printed 6x6 L (satdyn's reading, docs/titop.md)
    array_modes = ModalData(omega=2.0 * np.pi * np.array(sa["frequencies_hz"]),
                            damping=np.array(sa["damping"], dtype=float),
                            L_P=np.array(sa["L_P1"], dtype=float)[:n_array])
    structures = {}
    for key in ("structure_F1", "structure_F26"):
        printed = t2[key]
        if reading == "interpreted":
            L, Phi = interp[key]["L_P2"], interp[key]["Phi_C"]
        else:
            L, Phi = printed["L_P2_printed"], printed["Phi_C_printed"]
        n = printed["n_tiles"]
        structures[n] = StructureData(
            n_tiles=n, port=printed["port"], r_P2_C=np.array(printed["r_P2_C"], dtype=float),
            modes=ModalData(omega=2.0 * np.pi * np.array(printed["frequencies_hz"]),
                            damping=np.array(printed["damping"], dtype=float), L_P=np.array(L, dtype=float)),
            Phi_C=np.array(Phi, dtype=float),
            D_P2=structure_mass_matrix(n, centres, robot.tile_mass, robot.tile_inertia),
            reading=reading,
        )
    return AssemblySpacecraftData(
        reading=reading, layout=layout,
        hub_mass=float(hub["mass"]),
        hub_inertia=inertia_tensor(hub["inertia_at_G_printed"], inertia_convention),
        r_G_P=np.array([hub["r_G_P1"], hub["r_G_P2"], hub["r_G_P3"]], dtype=float),
        P_a_b=np.array(hub["P_a_b"], dtype=float), P_s_b=np.array(hub["P_s_b"], dtype=float),
        P_f_b=np.array(hub["P_fn_b"], dtype=float),
        array_D_P1=array_D, array_modes=array_modes,
        array_r_omega=sa["first_frequency_uncertainty_percent"] / 100.0,
        r_P3_C0=np.array(t2["stack"]["r_P3_C0"], dtype=float),
        tile_centres=centres, structures=structures, robot=robot,
        n_tiles_total=int(_read("paper000_table3_as_printed.json")["n_tiles_total"]),
    )


@dataclass(frozen=True)
class HubTwoArraysData:
    """SYNTHETIC hub + two flexible solar arrays on drive mechanisms (model 1)."""

    hub_mass: float
    hub_inertia: np.ndarray
    array_names: tuple
    r_G_P: np.ndarray            # (2, 3)
    P_a_b_at_zero: np.ndarray    # (2, 3, 3)
    drive_axes: np.ndarray       # (2, 3), in the array frame
    array_D_P: np.ndarray        # (6, 6) at the drive point, array frame
    array_modes: ModalData
    r_omega: float
    angle_range: tuple
    synthetic: bool = True
    mode_names: tuple = ()       # names of the array's clamped modes, in order


def load_hub_two_arrays() -> HubTwoArraysData:
    """Data of model 1 (synthetic; see the data file's "source")."""
    d = _read("synthetic_hub_two_arrays.json")
    arr = d["array"]
    return HubTwoArraysData(
        hub_mass=float(d["hub"]["mass"]), hub_inertia=np.array(d["hub"]["inertia_at_G"], dtype=float),
        array_names=tuple(a["name"] for a in d["arrays"]),
        r_G_P=np.array([a["r_G_P"] for a in d["arrays"]], dtype=float),
        P_a_b_at_zero=np.array([a["P_a_b_at_zero"] for a in d["arrays"]], dtype=float),
        drive_axes=np.array([a["drive_axis_in_array_frame"] for a in d["arrays"]], dtype=float),
        array_D_P=rigid_mass_matrix(arr["mass"], arr["inertia_at_com"], arr["r_P_com"]),
        array_modes=ModalData(omega=2.0 * np.pi * np.array(arr["frequencies_hz"]),
                              damping=np.array(arr["damping"], dtype=float),
                              L_P=np.array(arr["L_P"], dtype=float)),
        r_omega=arr["first_frequency_uncertainty_percent"] / 100.0,
        angle_range=tuple(np.deg2rad(d["array_angle_range_deg"])),
        mode_names=tuple(arr.get("mode_names", ())),
    )
