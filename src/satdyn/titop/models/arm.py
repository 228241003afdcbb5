"""Model 2: the 5-joint, 6-link robotic arm Z_{J0 J6} (arXiv:2409.06017) with frozen joint angles.

``robotic_arm(name, geometry="Y45", angles=None, reverse=False)``

Arguments
---------
name : str                       model name; link/joint blocks are "<name>_L<i>", "<name>_q<k>"
geometry : str or ArmGeometry    "Y45" (default, assumed geometry, docs/titop.md), "Y45-h22.5", "spec-M1"
                                 (a placeholder geometry)
angles : None, (5,) floats or Parameters
                                 None: varying parameters "<name>.alpha<k>" in [-pi, pi] with
                                 tan(a/4) (16 occurrences per joint, 80 per arm)
reverse : bool                   False: parent port J0 (foot, direct, frame "<name>.l0"), child
                                 port J6 (hub side, inverse, frame "<name>.l5");
                                 True: the reversed TITOP, parent J6 (direct), child J0 (inverse),
                                 built from J6 down to J0 (arXiv:2409.06017, construction (b))

Returns a PortModel with ports "J0" and "J6" (keys "<name>.J0", "<name>.J6").
"""

from __future__ import annotations

import numpy as np

from ...lfr import Parameter, vreal
from ..connect import connect
from ..data import ArmGeometry, load_arm_geometry
from ..joints import revolute_joint
from ..ports import rename_ports
from ..rigid import rigid_body

__all__ = ["robotic_arm", "arm_angle_parameters"]


def arm_angle_parameters(name: str, nominal=None) -> list:
    """Five varying joint-angle parameters "<name>.alpha1..5" (range [-pi, pi], tan(a/4))."""
    nominal = np.zeros(5) if nominal is None else np.asarray(nominal, dtype=float)
    return [vreal(f"{name}.alpha{k + 1}", float(nominal[k]), range=(-np.pi, np.pi), transform="tan_quarter")
            for k in range(5)]


def robotic_arm(name: str = "R", geometry="Y45", angles=None, *, reverse: bool = False):
    """The arm chain L0 * R(a1) * L1 * ... * R(a5) * L5 as one port model (module docstring)."""
    arm = geometry if isinstance(geometry, ArmGeometry) else load_arm_geometry(geometry)
    if angles is None:
        angles = arm_angle_parameters(name)
    angles = list(angles)
    if len(angles) != 5 or not all(isinstance(a, (Parameter, float, int, np.floating)) for a in angles):
        raise ValueError("`angles` must be 5 floats [rad] or Parameters")
    blocks, wires = [], []
    for i in range(6):
        # link i in frame l_i: ports at J_i (origin) and J_{i+1}; r_GP = port - CoM
        com = arm.link_coms[i]
        ports = {"Ji": -com, "Jn": arm.link_vectors[i] - com}
        direct = "Jn" if reverse else "Ji"
        blocks.append(rigid_body(f"{name}_L{i}", arm.link_masses[i], arm.link_inertias[i], ports,
                                 direct=direct, com_port=None, frame=f"{name}.l{i}"))
    for k in range(1, 6):
        if reverse:   # parent = link k (frame l_k), child = link k-1
            frames = (f"{name}.l{k}", f"{name}.l{k - 1}")
        else:
            frames = (f"{name}.l{k - 1}", f"{name}.l{k}")
        blocks.append(revolute_joint(f"{name}_q{k}", arm.axes[k - 1], angles[k - 1], offset=arm.offsets[k - 1],
                                     frames=frames, reverse=reverse))
        if reverse:
            wires += [(f"{name}_L{k}.Ji", f"{name}_q{k}.parent"), (f"{name}_q{k}.child", f"{name}_L{k - 1}.Jn")]
        else:
            wires += [(f"{name}_L{k - 1}.Jn", f"{name}_q{k}.parent"), (f"{name}_q{k}.child", f"{name}_L{k}.Ji")]
    if reverse:
        ext = [f"{name}_L5.Jn", f"{name}_L0.Ji"]
    else:
        ext = [f"{name}_L0.Ji", f"{name}_L5.Jn"]
    model = connect(blocks, wires, external=ext, name=name)
    return rename_ports(model, name, {f"{name}_L0.Ji": "J0", f"{name}_L5.Jn": "J6"})
