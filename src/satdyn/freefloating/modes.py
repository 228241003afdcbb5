"""The five maneuvering modes of Front. Robot. AI 5:41 (2018) (Table 1, rebuilt in implementation notes §6)
as an explicit option.

A mode decides which external base wrench is allowed and which equations apply:

============================  ==================  ===============  =====================
mode                          base force f₀       base torque n₀   GJM (momentum conserved)
============================  ==================  ===============  =====================
``FLOATING``                  0                   0                yes
``ROTATION_FLOATING``         0                   0 (wheels are    yes (affine, wheel
                                                  internal)        momentum term)
``ROTATION_FLYING``           0                   commanded        no
``TRANSLATION_FLYING``        commanded           0                no
``FLYING``                    commanded           commanded        no
============================  ==================  ===============  =====================

Translation-flying: "angular momentum constant" (paper) holds only if the thrust line passes
through the reference point (implementation notes §9 item 35).  Rotation-floating adds a base-fixed reaction
wheel array with stored momentum h_w (base frame); its reaction is an internal torque on the
base, ``n_w = −d/dt(R₀ h_w) = −ω₀×(R₀h_w) − R₀ḣ_w``, and the total momentum includes R₀h_w.

Arguments (dimensions): ``mode`` (a :class:`ManeuveringMode` or its name), ``base_force``,
``base_torque`` (..., 3) in 𝒥 [N, N m]; ``wheel_momentum``, ``wheel_momentum_rate`` (..., 3) in
the base frame [N m s, N m]; ``base_attitude`` (..., 3, 3); ``base_angular_velocity`` (..., 3) in 𝒥.
"""

from __future__ import annotations

import enum

import numpy as np

from .._validation import as_batch_of

__all__ = ["ManeuveringMode", "as_mode", "base_wrench", "require_momentum_conserving"]


class ManeuveringMode(enum.Enum):
    """Maneuvering modes (new terms of Front. Robot. AI 5:41 (2018); old terms: free-floating / free-flying)."""

    FLOATING = "floating"
    ROTATION_FLOATING = "rotation-floating"
    ROTATION_FLYING = "rotation-flying"
    TRANSLATION_FLYING = "translation-flying"
    FLYING = "flying"

    @property
    def allows_force(self) -> bool:
        return self in (ManeuveringMode.TRANSLATION_FLYING, ManeuveringMode.FLYING)

    @property
    def allows_torque(self) -> bool:
        return self in (ManeuveringMode.ROTATION_FLYING, ManeuveringMode.FLYING)

    @property
    def uses_wheels(self) -> bool:
        return self in (ManeuveringMode.ROTATION_FLOATING, ManeuveringMode.TRANSLATION_FLYING)

    @property
    def conserves_momentum(self) -> bool:
        """True where the system momentum (wheels included) is constant: the GJM applies."""
        return self in (ManeuveringMode.FLOATING, ManeuveringMode.ROTATION_FLOATING)


def as_mode(mode) -> ManeuveringMode:
    """Accept a :class:`ManeuveringMode` or its name ("flying", "rotation_floating", ...)."""
    if isinstance(mode, ManeuveringMode):
        return mode
    if isinstance(mode, str):
        key = mode.strip().lower().replace("_", "-")
        for m in ManeuveringMode:
            if m.value == key:
                return m
    names = ", ".join(repr(m.value) for m in ManeuveringMode)
    raise ValueError(f"`mode` must be a ManeuveringMode or one of {names}; got {mode!r}")


def require_momentum_conserving(mode, what: str = "the Generalized Jacobian") -> ManeuveringMode:
    """Raise ``ValueError`` when ``what`` is requested in a mode where momentum is not conserved."""
    mode = as_mode(mode)
    if not mode.conserves_momentum:
        raise ValueError(
            f"{what} requires conserved system momentum (modes 'floating' or 'rotation-floating'); "
            f"in mode {mode.value!r} external base forces/torques change the momentum, so the base "
            "motion does not follow from the joint rates. Use the full (6+N) Jacobian [J0X, JmX] "
            "with full_forward_dynamics instead.")
    return mode


def base_wrench(mode, base_force=None, base_torque=None, *, base_attitude=None, base_angular_velocity=None,
                wheel_momentum=None, wheel_momentum_rate=None):
    """The external base force and torque (about the base CoM, in 𝒥) that ``mode`` allows.

    Checks that the commanded components are allowed (a force in a rotation mode, or any wrench
    in floating mode, is a ``ValueError``) and adds the reaction-wheel torque in the modes that
    use wheels (rotation-floating; translation-flying with wheel attitude control).

    Returns
    -------
    force, torque : ndarray, shape (..., 3)
    """
    mode = as_mode(mode)
    f = np.zeros(3) if base_force is None else as_batch_of(base_force, (3,), "base_force")
    n = np.zeros(3) if base_torque is None else as_batch_of(base_torque, (3,), "base_torque")
    if base_force is not None and not mode.allows_force and np.any(f != 0.0):
        raise ValueError(f"`base_force` must be zero in mode {mode.value!r} (no external force allowed)")
    if base_torque is not None and not mode.allows_torque and np.any(n != 0.0):
        raise ValueError(f"`base_torque` must be zero in mode {mode.value!r} (no external torque allowed; "
                         "use reaction wheels in 'rotation-floating')")
    if wheel_momentum is not None or wheel_momentum_rate is not None:
        if not mode.uses_wheels:
            raise ValueError(f"reaction wheels are not part of mode {mode.value!r}")
        R0 = np.eye(3) if base_attitude is None else as_batch_of(base_attitude, (3, 3), "base_attitude")
        hw = np.zeros(3) if wheel_momentum is None else as_batch_of(wheel_momentum, (3,), "wheel_momentum")
        hwd = np.zeros(3) if wheel_momentum_rate is None else as_batch_of(wheel_momentum_rate, (3,),
                                                                          "wheel_momentum_rate")
        w0 = np.zeros(3) if base_angular_velocity is None else as_batch_of(base_angular_velocity, (3,),
                                                                           "base_angular_velocity")
        n = n - np.cross(w0, np.einsum("...ij,...j->...i", R0, hw)) - np.einsum("...ij,...j->...i", R0, hwd)
    return f, n
