"""Rigid-body N-port models (arXiv:2409.06017, eqs. 7-10).

``rigid_body(name, mass, inertia, ports, ...)``

Arguments
---------
mass : float, Parameter or 1x1 LFR         [kg]
inertia : (3, 3) array or 3x3 LFR           about the centre of mass G, model frame [kg m^2]
ports : dict name -> r_GP (3,)               vector from G to each port point [m], model frame
direct : str or None                         the one port with direct dynamics (acceleration in,
                                             wrench on the parent out); None = all inverse
com_port : str or None                       name of the external-wrench port at G (inverse);
                                             None drops it
frame : str                                  frame label of every port (default: the model name)

The all-inverse model is the static gain (eq. 9)

    [x''_P1; ...; x''_Pn; x''_G] = T D_G^{-1} T^T [W_P1; ...; W_Pn; W_ext,G],
    T = [tau_{P1 G}; ...; tau_{Pn G}; I_6],  D_G = diag(m I_3, J_G);

with ``direct`` set, that port's channel is inverted and its wrench sign flipped (eq. 10,
W_{B/parent} = -W_{parent/B}).  Mass and inertia may be LFR-valued (uncertain): the
formula is the same, evaluated with LFR algebra.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_batch_of, as_float_array, as_inertia
from ..lfr import as_lfr, blockdiag, invert_channels
from ..spatial import rigid_mass_matrix, tau
from ._lfrtools import is_parametric, negate, to_lfr
from .ports import ACC, WRENCH, make_port_model

__all__ = ["rigid_body", "rigid_mass_block"]


def rigid_mass_block(mass, inertia):
    """``D_G = diag(m I3, J_G)``: ndarray (6, 6), or an LFR when mass or inertia is parametric."""
    if not (is_parametric(mass) or is_parametric(inertia)):
        return rigid_mass_matrix(mass, as_batch_of(inertia, (3, 3), "inertia"))
    m = to_lfr(mass)
    if m.shape != (1, 1):
        raise ValueError(f"`mass` must be a scalar (1x1 LFR); got shape {m.shape}")
    J = to_lfr(inertia)
    if J.shape != (3, 3):
        raise ValueError(f"`inertia` must be 3x3; got shape {J.shape}")
    return blockdiag([m, m, m, J])


def rigid_body(name: str, mass, inertia, ports: dict, *, direct: str | None = None,
               com_port: str | None = "G", frame: str | None = None):
    """N-port rigid body model (see the module docstring). Returns a :class:`PortModel`."""
    if not isinstance(name, str) or not name or "." in name:
        raise ValueError(f"`name` must be a non-empty str without '.'; got {name!r}")
    if not isinstance(ports, dict):
        raise TypeError("`ports` must be a dict {port name: r_GP (3,)}")
    names = list(ports)
    if com_port is not None:
        if com_port in ports:
            raise ValueError(f"`com_port` {com_port!r} is also in `ports`")
    if direct is not None and direct not in ports:
        raise ValueError(f"`direct` must be one of the port names {names}; got {direct!r}")
    if not names and com_port is None:
        raise ValueError("`ports` is empty and `com_port` is None: a rigid body needs at least one port")
    if not is_parametric(mass):
        m = as_float_array(mass, "mass")
        if m.shape not in ((), (1,), (1, 1)) or not float(m.reshape(-1)[0]) > 0:
            raise ValueError(f"`mass` must be one positive number [kg]; got {mass!r}")
    if not is_parametric(inertia):
        # D_G is inverted: a zero (or singular) inertia has no port model
        as_inertia(inertia, "inertia", positive_definite=True)
        if np.shape(inertia) != (3, 3):
            raise ValueError(f"`inertia` must be one (3, 3) matrix [kg m^2]; got shape {np.shape(inertia)}")
    else:
        nominal = to_lfr(inertia)
        if nominal.shape == (3, 3) and nominal.is_static:
            as_inertia(np.asarray(nominal.nominal(), dtype=float), "inertia (nominal value)",
                       positive_definite=True)
    frame = name if frame is None else frame
    for p in names:
        if np.shape(as_batch_of(ports[p], (3,), f"ports[{p!r}]")) != (3,):
            raise ValueError(f"`ports[{p!r}]` must be one vector r_GP of shape (3,) [m]; got shape "
                             f"{np.shape(ports[p])}")
    T = [tau(-as_batch_of(ports[p], (3,), f"ports[{p!r}]")) for p in names]
    if com_port is not None:
        T.append(np.eye(6))
    T = np.vstack(T)
    D_G = rigid_mass_block(mass, inertia)
    if isinstance(D_G, np.ndarray):
        X = as_lfr(T @ np.linalg.solve(D_G, T.T))
    else:
        X = as_lfr(T) @ D_G.inv() @ as_lfr(T.T)
    all_ports = names + ([com_port] if com_port is not None else [])
    model = make_port_model(
        name, X, {p: ("inverse", frame) for p in all_ports},
        inputs=[(p, WRENCH) for p in all_ports], outputs=[(p, ACC) for p in all_ports])
    if direct is None:
        return model
    return invert_port(model, direct)


def invert_port(model, port: str):
    """Swap a port's input and output (SDTlib ``invio``): direct <-> inverse.

    The wrench keeps the "applied by the other body on this one" meaning at an inverse
    port and "applied by this body on its parent" at a direct port, so the wrench signal
    changes sign in the swap (arXiv:2409.06017). Inverting twice is the identity.
    Needs the port's feedthrough block to be invertible (rigid ports, the parent port of a
    TITOP with positive definite residual mass).
    """
    from .ports import PortModel

    p = model.port(port)
    lfr = invert_channels(model.lfr, p.input_group, p.output_group)
    # the wrench group changed sides: negate it where it now sits
    if p.kind == "inverse":   # wrench was an input, is now an output
        lfr = negate(lfr, outputs=[f"{p.prefix}:{WRENCH}"])
    else:                     # wrench was an output, is now an input
        lfr = negate(lfr, inputs=[f"{p.prefix}:{WRENCH}"])
    ports = dict(model.ports)
    ports[p.name] = p.flipped()
    return PortModel(model.name, lfr, ports, model.extra_inputs, model.extra_outputs)
