"""Model 3: the on-orbit assembly spacecraft of spec 000a section 2.6 (Tables 2-3).

``assembly_spacecraft(n=26, dock=1, carry_tile=False, ...)`` assembles, with :func:`connect`:

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
R1.alpha1..5 (16 each), R2.alpha1..5, R3.alpha1..5: 2 + 240 = 242 (spec 000a 2.6.4).

Arguments
---------
data : AssemblySpacecraftData or None   default: ``load_assembly_spacecraft(reading, ...)``
n : int                                 structure F_n; only n with shipped data (1, 26)
dock : 1 or 2                           docked leg a
carry_tile : bool                       delta: the tile is carried by R3 (removed from the stack)
angles : None or (3, 5)                 None: varying parameters "Rk.alphaj"; floats [rad]: frozen
uncertain_array : bool                  omega_1 of the array as ureal("A.omega1", +/- r_omega)
reading, layout, arm_geometry : str     data options when ``data`` is None
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...lfr import ureal
from ..connect import connect
from ..family import split_assembly
from ..data import AssemblySpacecraftData, load_assembly_spacecraft
from ..flexible import flexible_body
from ..joints import frame_change
from ..rigid import rigid_body
from .arm import robotic_arm

__all__ = ["AssemblyConfiguration", "assembly_spacecraft", "robot_subsystem"]


@dataclass(frozen=True)
class AssemblyConfiguration:
    """Discrete indices of one model of the family: (n, j, a, delta) of spec 000a 2.6.1."""

    n: int
    port: int
    dock: int
    carry_tile: bool


def _arm_angles(angles, k):
    if angles is None:
        return None
    a = np.asarray(angles, dtype=float)
    if a.shape != (3, 5):
        raise ValueError(f"`angles` must have shape (3, 5) [rad] (arms R1, R2, R3); got {a.shape}")
    return [float(x) for x in a[k]]


def _robot_blocks(data, dock, carry_tile, angles, root_frame):
    """Blocks and wiring of the robot, root = docked foot port "R<a>.J0" (frame ``root_frame``)."""
    if dock not in (1, 2):
        raise ValueError(f"`dock` must be 1 or 2; got {dock!r}")
    robot = data.robot
    a, b = dock - 1, 2 - dock
    arms = {}
    for k in range(3):
        arms[k] = robotic_arm(f"R{k + 1}", robot.arm, _arm_angles(angles, k), reverse=(k != a))
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
    "robot.foot" in frame ``frame`` (spec 000a 2.6.4: -D^rob_Cj(alpha, delta) when frozen)."""
    from ..ports import rename_ports

    data = load_assembly_spacecraft() if data is None else data
    blocks, wires, free = _robot_blocks(data, dock, carry_tile, angles, frame)
    model = connect(blocks, wires, external=["KD.parent"], free=free, name="robot")
    return rename_ports(model, "robot", {"KD.parent": "foot"})


def assembly_spacecraft(data: AssemblySpacecraftData | None = None, *, n: int = 26, dock: int = 1,
                        carry_tile: bool = False, angles=None, uncertain_array: bool = True,
                        reading: str = "interpreted", layout: str = "B", arm_geometry: str = "Y45",
                        robot_as_block: bool = False, split_arms: bool = False):
    """One model of the assembly family as a PortModel (see the module docstring).

    ``robot_as_block=True`` first condenses the robot into a one-port (:func:`robot_subsystem`)
    and then attaches it: a second assembly order with the same frequency response.
    ``split_arms=True`` returns a :class:`~satdyn.titop.family.SplitAssembly` instead, whose
    ``evaluate_batch`` evaluates the three arms apart (faster batched family evaluation).
    """
    if data is None:
        data = load_assembly_spacecraft(reading, layout=layout, arm_geometry=arm_geometry)
    if n not in data.structures:
        raise ValueError(f"structure F_{n} has no shipped modal data; available n: {sorted(data.structures)}")
    st = data.structures[n]
    stack_count = data.n_tiles_total - n - int(carry_tile)
    if stack_count < 0:
        raise ValueError(f"n = {n} with carry_tile leaves a negative stack (spec 000a D8)")
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
