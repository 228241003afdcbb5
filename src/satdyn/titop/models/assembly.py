"""Model 3: the on-orbit assembly spacecraft of arXiv:2409.06017 (section 2.6, Tables 2-3), every F_n.

``assembly_spacecraft(n=26, dock=1, port=None, carry_tile=False, ...)`` assembles, with :func:`connect`:

    hub B (all-inverse rigid, ports P1 P2 P3 G, frame b)
    +- K(P_a/b) - solar array A (one-port TITOP, first mode omega_1 +/- 20 %: "A.omega1")
    +- K(P_s/b) - stack S (one-port direct rigid, eq. 13)         [absent when empty]
    +- K(P_f/b) - structure F_n (TITOP, child port C_j, + external wrench "W_ext_C" at C_j)
                  +- K(I) - docked leg R_a (arm, J0 -> J6)
                             +- K(P_c/l5) - robot hub C (J6^a direct; J6^b, J6^3, D inverse)
                                            +- K(P_l5b/c) - free leg R_b (reversed arm), foot free
                                            +- K(P_l53/c) - arm R3 (reversed) +- K(I) - tile T (delta = 1)

External: port "B.G" (input W_ext/B,G group "B:G:W", output x''_G group "B:G:acc") and the
wrench input "W_ext_C" (6, frame f).  Delta channels, in this order: A.omega1 (2),
R1.alpha1..5 (16 each), R2.alpha1..5, R3.alpha1..5: 2 + 240 = 242 (reconstruction notes
docs/spec-map/000a-titop-modeling.md §2.6.4).

Modal data of F_n (``structure``):

* ``"fe"`` (default): every n = 1..28 from the FE tile structures (``satdyn.fe``, property set
  S5 -- synthetic, calibrated to the paper's F1/F26 frequencies --, layout B, RBE3 feet of
  radius 0.125 m at every tile centre, 20 modes stored), read from the shipped file
  ``satdyn/data/fe/tile_family_S5.npz`` (titop never imports ``satdyn.fe``);
  ``n_modes`` of them are kept (10 by default, 3 = the paper's setting, "auto" = all below
  20 Hz, 6..20);
* ``"table"``: Table 2 of arXiv:2409.06017 (n = 1 and 26 only, port C1 / C25), in the reading
  of ``data`` (``reading="interpreted"`` or ``"as-printed"``);
* a mapping with the :func:`~satdyn.titop.flexible_body` inputs ``D_P, frequencies, damping,
  L_P, children`` (one child port, or one named "C<port>"), e.g. ``satdyn.fe.tile_structure(n,
  ...).port_data([port])`` for any other FE option.

:func:`assembly_configurations` enumerates the 2N(N+1) = 1624 discrete configurations
(n, docking port j <= n, docked arm a, tile carried delta), with ``valid`` False for the 56
void ones (n = N with a carried tile: negative stack), which the builder refuses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from ...lfr import ureal
from ..connect import connect
from ..family import split_assembly
from ..data import AssemblySpacecraftData, ModalData, StructureData, load_assembly_spacecraft
from ..flexible import flexible_body
from ..joints import frame_change
from ..rigid import rigid_body
from .arm import robotic_arm

__all__ = ["AssemblyConfiguration", "assembly_spacecraft", "robot_subsystem", "assembly_configurations",
           "fe_structure_data", "STRUCTURE_SOURCES", "FE_FAMILY_FILE"]

STRUCTURE_SOURCES = ("fe", "table")
FE_FAMILY_FILE = "tile_family_S5.npz"      # in satdyn/data/fe, written by satdyn.fe.TileFamily.save
_FE_LAYOUT = "B"
_AUTO_MODES = (20.0, 6, 20)                # "auto": modes below 20 Hz, at least 6, at most 20 (as satdyn.fe)


@dataclass(frozen=True)
class AssemblyConfiguration:
    """Discrete indices of one model of the family: (n, j, a, delta) of arXiv:2409.06017 section 2.6.

    ``n`` tiles laid, docking port ``port`` = j (tile centre C_j, j <= n), docked arm ``dock``
    = a in {1, 2}, ``carry_tile`` = delta.  ``n_total`` is the number of tiles N.
    """

    n: int
    port: int
    dock: int
    carry_tile: bool
    n_total: int = 28

    @property
    def valid(self) -> bool:
        """False for the void combinations (n = N with a carried tile: negative stack)."""
        return self.n + int(self.carry_tile) <= self.n_total

    @property
    def stack_count(self) -> int:
        """Tiles left in the stack, N - n - delta (negative when not ``valid``)."""
        return self.n_total - self.n - int(self.carry_tile)


def assembly_configurations(n_total: int = 28, *, include_invalid: bool = True) -> list[AssemblyConfiguration]:
    """All (n, j, a, delta) with 1 <= j <= n <= N: 2N(N+1) configurations (1624 for N = 28).

    Order: n, then j, then a, then delta.  ``include_invalid=False`` drops the 2N void ones
    (n = N, delta = 1)."""
    if isinstance(n_total, bool) or not isinstance(n_total, (int, np.integer)) or n_total < 1:
        raise ValueError(f"`n_total` must be a positive int; got {n_total!r}")
    out = [AssemblyConfiguration(n, j, a, bool(d), int(n_total))
           for n in range(1, n_total + 1) for j in range(1, n + 1) for a in (1, 2) for d in (0, 1)]
    return out if include_invalid else [c for c in out if c.valid]


@lru_cache(maxsize=1)
def _fe_family() -> dict:
    with resources.files("satdyn.data.fe").joinpath(FE_FAMILY_FILE).open("rb") as fh:
        with np.load(fh, allow_pickle=False) as z:
            return {k: np.array(z[k]) for k in z.files}


def _mode_count(frequencies_hz, n_modes, available) -> int:
    if isinstance(n_modes, str) and n_modes == "auto":
        below = int(np.sum(np.asarray(frequencies_hz) < _AUTO_MODES[0]))
        return int(np.clip(below, _AUTO_MODES[1], _AUTO_MODES[2]))
    if isinstance(n_modes, bool) or not isinstance(n_modes, (int, np.integer)) or not 1 <= n_modes <= available:
        raise ValueError(f"`n_modes` must be an int in 1..{available} or 'auto'; got {n_modes!r}")
    return int(n_modes)


def fe_structure_data(n: int, port: int, n_modes=10) -> StructureData:
    """F_n with child port C_``port`` from the shipped FE family (property set S5, layout B).

    ``n_modes``: int (1..20) or "auto".  D_P2 is the FE rigid mass matrix (equal to the rigid
    composition of the tiles to round-off)."""
    fam = _fe_family()
    count_total = len(fam["D_P"])
    _check_index(n, "n", 1, count_total)
    _check_index(port, "port", 1, n)
    omega = fam[f"frequencies_{n}"]
    m = _mode_count(omega / (2.0 * np.pi), n_modes, len(omega))
    return StructureData(
        n_tiles=n, port=port, r_P2_C=fam[f"r_P_C_{n}"][port - 1].copy(),
        modes=ModalData(omega=omega[:m].copy(), damping=np.full(m, float(fam["damping"])),
                        L_P=fam[f"L_P_{n}"][:m].copy()),
        Phi_C=fam[f"Phi_{n}"][port - 1][:, :m].copy(), D_P2=fam["D_P"][n - 1].copy(), reading="fe-S5")


def _check_index(value, name, lo, hi):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"`{name}` must be an integer in {lo}..{hi}; got {value!r}")


def _structure_from_mapping(st: Mapping, n: int, port: int) -> StructureData:
    missing = [k for k in ("D_P", "frequencies", "damping", "L_P", "children") if k not in st]
    if missing:
        raise ValueError(f"`structure` mapping lacks {missing} (flexible_body inputs expected)")
    children = dict(st["children"])
    key = f"C{port}"
    if key in children:
        r, phi = children[key]
    elif len(children) == 1:
        r, phi = next(iter(children.values()))
    else:
        raise ValueError(f"`structure` has child ports {list(children)}: give one, or one named {key!r}")
    omega = np.asarray(st["frequencies"], dtype=float).ravel()
    return StructureData(
        n_tiles=n, port=port, r_P2_C=np.asarray(r, dtype=float).reshape(3),
        modes=ModalData(omega=omega,
                        damping=np.broadcast_to(np.asarray(st["damping"], dtype=float), omega.shape).copy(),
                        L_P=np.asarray(st["L_P"], dtype=float).reshape(len(omega), 6)),
        Phi_C=np.asarray(phi, dtype=float).reshape(6, len(omega)), D_P2=np.asarray(st["D_P"], dtype=float),
        reading="user")


def _structure(data, structure, n, port, n_modes, layout):
    """(StructureData of F_n at C_port, its port) for the chosen modal-data source."""
    if isinstance(structure, Mapping):
        _check_index(port if port is not None else n, "port", 1, n)
        return _structure_from_mapping(structure, n, n if port is None else port)
    if structure == "fe":
        if layout != _FE_LAYOUT:
            raise ValueError(f"`layout` {layout!r}: the shipped FE family uses layout 'B'; for layout 'A' pass "
                             "structure=satdyn.fe.tile_structure(n, layout='A').port_data([port])")
        port = n if port is None else port
        return fe_structure_data(n, port, n_modes)
    if structure == "table":
        if n not in data.structures:
            raise ValueError(f"structure F_{n} has no Table 2 data; available n: {sorted(data.structures)} "
                             "(use structure='fe' for every n)")
        st = data.structures[n]
        if port is not None and port != st.port:
            raise ValueError(f"`port` {port!r}: Table 2 gives F_{n} only at port C{st.port}")
        return st
    raise ValueError(f"`structure` must be one of {STRUCTURE_SOURCES} or a flexible_body-input mapping; got "
                     f"{structure!r}")


def _arm_angles(angles, k):
    if angles is None:
        return None
    a = np.asarray(angles, dtype=float)
    if a.shape != (3, 5):
        raise ValueError(f"`angles` must have shape (3, 5) [rad] (arms R1, R2, R3); got {a.shape}")
    return [float(x) for x in a[k]]


_VARYING_ARMS: dict = {}


def _arm(name, geometry, angles, reverse):
    """The arm's port model; with varying angles (the same LFR for every configuration of the
    family) built once per (name, geometry, direction) and reused -- port models are immutable."""
    if angles is not None:
        return robotic_arm(name, geometry, angles, reverse=reverse)
    key = (name, id(geometry), reverse)
    hit = _VARYING_ARMS.get(key)
    if hit is None or hit[0] is not geometry:
        hit = _VARYING_ARMS[key] = (geometry, robotic_arm(name, geometry, None, reverse=reverse))
    return hit[1]


def _robot_blocks(data, dock, carry_tile, angles, root_frame):
    """Blocks and wiring of the robot, root = docked foot port "R<a>.J0" (frame ``root_frame``)."""
    if dock not in (1, 2):
        raise ValueError(f"`dock` must be 1 or 2; got {dock!r}")
    robot = data.robot
    a, b = dock - 1, 2 - dock
    arms = {}
    for k in range(3):
        arms[k] = _arm(f"R{k + 1}", robot.arm, _arm_angles(angles, k), k != a)
    blocks = [arms[0], arms[1], arms[2]]
    ra, rb = f"R{a + 1}", f"R{b + 1}"
    blocks += [
        frame_change("KD", np.eye(3), frames=(root_frame, f"{ra}.l0")),
        frame_change("KC", robot.P_l5_c[a].T, frames=(f"{ra}.l5", "c")),
        rigid_body("C", robot.hub_mass, robot.hub_inertia,
                   {"J6a": robot.r_D_J6[a], "J6b": robot.r_D_J6[b], "J63": robot.r_D_J6[2]},
                   direct="J6a", com_port="D", frame="c"),
        frame_change("Kb", robot.P_l5_c[b], frames=("c", f"{rb}.l5")),
        frame_change("K3", robot.P_l5_c[2], frames=("c", "R3.l5")),
    ]
    wires = [("KD.child", f"{ra}.J0"), (f"{ra}.J6", "KC.parent"), ("KC.child", "C.J6a"),
             ("C.J6b", "Kb.parent"), ("Kb.child", f"{rb}.J6"), ("C.J63", "K3.parent"), ("K3.child", "R3.J6")]
    free = [f"{rb}.J0", "C.D"]
    if carry_tile:
        blocks += [frame_change("KT", np.eye(3), frames=("R3.l0", "t")),
                   rigid_body("T", robot.tile_mass, robot.tile_inertia, {"P": np.zeros(3)},
                              direct="P", com_port=None, frame="t")]
        wires += [("R3.J0", "KT.parent"), ("KT.child", "T.P")]
    else:
        free.append("R3.J0")
    return blocks, wires, free


def robot_subsystem(data: AssemblySpacecraftData | None = None, *, dock: int = 1, carry_tile: bool = False,
                    angles=None, frame: str = "f"):
    """The robot (3 arms, hub, tile) as a one-port direct model at the docked foot, port
    "robot.foot" in frame ``frame`` (reconstruction notes docs/spec-map/000a-titop-modeling.md §2.6.4:
    -D^rob_Cj(alpha, delta) when frozen)."""
    from ..ports import rename_ports

    data = load_assembly_spacecraft() if data is None else data
    blocks, wires, free = _robot_blocks(data, dock, carry_tile, angles, frame)
    model = connect(blocks, wires, external=["KD.parent"], free=free, name="robot")
    return rename_ports(model, "robot", {"KD.parent": "foot"})


def assembly_spacecraft(n: int = 26, dock: int = 1, port: int | None = None, carry_tile: bool = False, *,
                        angles=None, structure="fe", n_modes=10, data: AssemblySpacecraftData | None = None,
                        uncertain_array: bool = True, reading: str = "interpreted", layout: str = "B",
                        arm_geometry: str = "Y45", robot_as_block: bool = False, split_arms: bool = False):
    """One model of the assembly family as a PortModel (see the module docstring).

    Parameters
    ----------
    n : int
        Tiles laid, 1..28: structure F_n.
    dock : {1, 2}
        Docked arm a (the other one, b = 3 - a, is free).
    port : int, optional
        Docking port j (tile centre C_j), 1..n.  Default: n (the tile laid last); with
        ``structure="table"`` the printed port (C1 for F1, C25 for F26).
    carry_tile : bool
        delta: arm R3 carries a tile (taken from the stack).  n = 28 with a carried tile is
        void (negative stack) and raises ``ValueError``.
    angles : None or (3, 5) array_like
        None: varying parameters "Rk.alphaj" (80 Delta channels per arm); floats [rad]: frozen.
    structure : {"fe", "table"} or mapping
        Modal data of F_n (module docstring).  ``n_modes``: modes kept for "fe" (int or "auto").
    data : AssemblySpacecraftData, optional
        Hub, array, robot (and Table 2) data; default ``load_assembly_spacecraft(reading,
        layout=layout, arm_geometry=arm_geometry)``.
    uncertain_array : bool
        omega_1 of the array as ureal("A.omega1", +/- 20 %).
    robot_as_block : bool
        Condense the robot into a one-port first (:func:`robot_subsystem`): same response.
    split_arms : bool
        Return a :class:`~satdyn.titop.family.SplitAssembly` whose ``evaluate_batch`` evaluates
        the three arms apart (fast batched evaluation of the family along waypoints).
    """
    if data is None:
        data = load_assembly_spacecraft(reading, layout=layout, arm_geometry=arm_geometry)
    elif not isinstance(data, AssemblySpacecraftData):
        raise TypeError(f"`data` must be an AssemblySpacecraftData or None; got {type(data).__name__}")
    _check_index(n, "n", 1, data.n_tiles_total)
    if port is not None:
        _check_index(port, "port", 1, n)
    if not isinstance(carry_tile, (bool, np.bool_)):
        raise TypeError(f"`carry_tile` must be a bool; got {carry_tile!r}")
    if dock not in (1, 2) or isinstance(dock, bool):
        raise ValueError(f"`dock` must be 1 or 2; got {dock!r}")
    stack_count = data.n_tiles_total - n - int(carry_tile)
    if stack_count < 0:
        raise ValueError(f"n = {n} with carry_tile leaves a negative stack: void configuration")
    st = _structure(data, structure, n, port, n_modes, data.layout)
    am = data.array_modes
    omega = list(am.omega)
    if uncertain_array:
        omega[0] = ureal("A.omega1", am.omega[0], percent=100.0 * data.array_r_omega)
    blocks = [
        flexible_body("A", data.array_D_P1, omega, am.damping, am.L_P, frame="a"),
        rigid_body("B", data.hub_mass, data.hub_inertia,
                   {"P1": data.r_G_P[0], "P2": data.r_G_P[1], "P3": data.r_G_P[2]}, frame="b"),
        frame_change("KA", data.P_a_b, frames=("b", "a")),
        frame_change("KF", data.P_f_b, frames=("b", "f")),
        flexible_body("F", st.D_P2, st.modes.omega, st.modes.damping, st.modes.L_P,
                      {"C": (st.r_P2_C, st.Phi_C)}, frame="f"),
    ]
    wires = [("B.P1", "KA.parent"), ("KA.child", "A.P"), ("B.P2", "KF.parent"), ("KF.child", "F.P")]
    free = []
    if stack_count > 0:
        blocks += [frame_change("KS", data.P_s_b, frames=("b", "s")),
                   rigid_body("S", data.tile_mass * stack_count, data.robot.tile_inertia * stack_count,
                              {"P": -data.r_P3_C0}, direct="P", com_port=None, frame="s")]
        wires += [("B.P3", "KS.parent"), ("KS.child", "S.P")]
    else:
        free.append("B.P3")
    if robot_as_block:
        blocks.append(robot_subsystem(data, dock=dock, carry_tile=carry_tile, angles=angles, frame="f"))
        wires.append(("F.C", "robot.foot"))
    else:
        rb, rw, rf = _robot_blocks(data, dock, carry_tile, angles, "f")
        blocks = blocks[:1] + rb[:3] + blocks[1:] + rb[3:]      # Delta order: A, R1, R2, R3
        wires += [("F.C", "KD.parent")] + rw
        free += rf
    if split_arms:
        if robot_as_block:
            raise ValueError("`split_arms` and `robot_as_block` are exclusive")
        return split_assembly(blocks, wires, separate=["R1", "R2", "R3"], external=["B.G"], free=free,
                              disturbances={"F.C": "W_ext_C"}, name="spacecraft")
    return connect(blocks, wires, external=["B.G"], free=free, disturbances={"F.C": "W_ext_C"},
                   name="spacecraft")
