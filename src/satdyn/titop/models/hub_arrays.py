"""Model 1 (SYNTHETIC data): a rigid hub with two flexible solar arrays on drive mechanisms.

``hub_two_arrays(data=None, *, shared_angle=True, angle=None, uncertain=True, uncertain_modes=(0,),
frequency_percent=None)``

Each array hangs from the hub at its drive point P_k through a frozen revolute joint (the
solar-array drive mechanism, axis = the array's long axis y_a, angle varying in [-pi, pi]
with tan(a/4)); each array is a one-port TITOP whose first modal frequency is uncertain
(+/- 20 %, parameters "<array>.omega1").  With ``shared_angle`` both drives follow one
parameter "array_angle" (the usual sun-tracking law); otherwise "<array>.angle".
External port "hub.G": input W_ext at the hub CoM (group "hub:G:W"), output x''_G ("hub:G:acc").
``angle`` (float) freezes the drive angle instead (no angle parameter).
"""

from __future__ import annotations

import numpy as np

from ...lfr import ureal, vreal
from ..connect import connect
from ..data import HubTwoArraysData, load_hub_two_arrays
from ..flexible import flexible_body
from ..joints import revolute_joint
from ..rigid import rigid_body

__all__ = ["hub_two_arrays"]


def hub_two_arrays(data: HubTwoArraysData | None = None, *, shared_angle: bool = True, angle=None,
                   uncertain: bool = True, uncertain_modes=(0,), frequency_percent: float | None = None):
    """Hub + two flexible arrays as one PortModel (see the module docstring)."""
    d = load_hub_two_arrays() if data is None else data
    n_modes = len(d.array_modes.omega)
    modes = sorted(set(uncertain_modes)) if uncertain else []
    if any(not isinstance(j, (int, np.integer)) or not 0 <= j < n_modes for j in modes):
        raise ValueError(f"`uncertain_modes` must be mode indices in 0..{n_modes - 1}; got {uncertain_modes!r}")
    percent = 100.0 * d.r_omega if frequency_percent is None else float(frequency_percent)
    if not (np.isfinite(percent) and 0.0 < percent < 100.0):
        raise ValueError(f"`frequency_percent` must be in (0, 100); got {frequency_percent!r}")
    names = d.array_names
    ports = {nm: d.r_G_P[k] for k, nm in enumerate(names)}
    blocks = [rigid_body("hub", d.hub_mass, d.hub_inertia, ports, frame="b")]
    wires = []
    shared = vreal("array_angle", 0.0, range=d.angle_range, transform="tan_quarter")
    for k, nm in enumerate(names):
        if angle is not None:
            a = float(angle)
        elif shared_angle:
            a = shared
        else:
            a = vreal(f"{nm}.angle", 0.0, range=d.angle_range, transform="tan_quarter")
        omega = list(d.array_modes.omega)
        for j in modes:
            omega[j] = ureal(f"{nm}.omega{j + 1}", d.array_modes.omega[j], percent=percent)
        blocks.append(revolute_joint(f"{nm}_drive", d.drive_axes[k], a, offset=d.P_a_b_at_zero[k],
                                     frames=("b", f"{nm}.a")))
        blocks.append(flexible_body(nm, d.array_D_P, omega, d.array_modes.damping, d.array_modes.L_P,
                                    frame=f"{nm}.a"))
        wires += [(f"hub.{nm}", f"{nm}_drive.parent"), (f"{nm}_drive.child", f"{nm}.P")]
    return connect(blocks, wires, external=["hub.G"], name="hub_two_arrays")
