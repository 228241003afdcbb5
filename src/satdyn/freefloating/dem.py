"""The Dynamically Equivalent Manipulator (DEM) of a free-floating spacecraft-manipulator.

Liang, Xu & Bergerman (1998, *J. Dyn. Syst. Meas. Control* 120:1-7) map a free-floating arm
with zero linear momentum onto a **fixed-base** manipulator: a passive spherical joint pinned
at the system centre of mass C, followed by the real revolute joints.  Its geometry is the
Virtual Manipulator's (:mod:`satdyn.freefloating.virtual`), and its masses are chosen so that
its kinetic energy equals the free-floating one for every configuration and rate; the
coordinates being the same (base attitude, q), the DEM moves exactly as the free-floating arm
under the same joint torques.  The introduction of Front. Robot. AI 5:41 (2018) cites it as a
classical alternative to the Generalized Jacobian.

Parameter mapping (cumulative masses ``M_j = m_0 + ... + m_j``, ``M = M_N``, ``W_j = M_j / M``;
per body, ``b_j`` = joint j -> CoM j and ``a_j`` = CoM j -> joint j+1 (-> end effector for the
last link), ``a_0`` = base CoM -> joint 1; all body-fixed):

* DEM base: spherical joint at C, its CoM at the pivot, inertia ``I_0``;
* DEM joint j+1 placed at ``W_{j-1} b_j + W_j a_j`` in link j (``W_0 a_0`` on the base), same
  rotation as the real joint;
* DEM link j: mass ``m'_j = M² m_j / (M_{j-1} M_j)``, CoM at ``W_{j-1} b_j``, inertia ``I_j``.

(Derivation: with P = 0 the translational kinetic energy about C is
``½ Σ_{k,l} M W_min(k,l) (1 − W_max(k,l)) ġ_k·ġ_l`` with ``g_k`` the vector from CoM k to CoM
k+1; the cross terms between bodies factor as ``(W_{k-1}ḃ_k + W_kȧ_k)·(...)`` which fixes the
DEM link vectors, the masses above, and leaves every inertia unchanged.)

``dynamically_equivalent_manipulator(model) -> DynamicallyEquivalentManipulator``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .inertia import blocks_from_kinematics, system_mass_matrix
from .kinematics import Kinematics, _check_config, _forward_kinematics
from .model import SpacecraftManipulator

__all__ = ["DynamicallyEquivalentManipulator", "dynamically_equivalent_manipulator"]


@dataclasses.dataclass(frozen=True)
class DynamicallyEquivalentManipulator:
    """A fixed-base manipulator with a passive spherical joint at its pivot (the system CoM).

    Attributes
    ----------
    chain : SpacecraftManipulator
        The DEM's links in the joint-placement form; its "base" is the DEM's first body, whose
        frame origin is the spherical joint (the pivot) and whose CoM is the pivot.  Use its
        kinematics with ``base_position = pivot``; only its rotation is free.
    mass_fractions : ndarray, shape (N + 1,)
        W_0 .. W_N.
    source : SpacecraftManipulator
        The free-floating system it is equivalent to.
    """

    chain: SpacecraftManipulator
    mass_fractions: np.ndarray
    source: SpacecraftManipulator

    @property
    def n_joints(self) -> int:
        return self.chain.n_joints

    @property
    def link_masses(self) -> np.ndarray:
        """DEM link masses m'_1 .. m'_N [kg]."""
        return self.chain.link_masses

    def kinematics(self, q, base_attitude=None, pivot=None) -> Kinematics:
        """DEM poses (inertial frame) with the spherical joint at ``pivot`` (..., 3) [m], default 0."""
        q, r0, R0 = _check_config(self.chain, q, pivot, base_attitude)
        return _forward_kinematics(self.chain, q, r0, R0)

    def mass_matrix(self, q) -> np.ndarray:
        """Fixed-pivot mass matrix in the velocities [ω0 (inertial); q̇], shape (..., 3 + N, 3 + N).

        The pivot does not translate, so this is the [ω0, q̇] block of the chain's (6+N) matrix
        𝒜 (base CoM = pivot, attitude-independent up to the rotation of ω0's frame; identity
        attitude here).
        """
        q, r0, R0 = _check_config(self.chain, q, None, None)
        A = system_mass_matrix(blocks_from_kinematics(self.chain, _forward_kinematics(self.chain, q, r0, R0)))
        return A[..., 3:, 3:]


def dynamically_equivalent_manipulator(model) -> DynamicallyEquivalentManipulator:
    """The DEM of ``model`` (Liang, Xu & Bergerman 1998; see the module doc for the mapping).

    Parameters
    ----------
    model : SpacecraftManipulator

    Returns
    -------
    DynamicallyEquivalentManipulator
        Configuration-independent parameters; equivalent for zero linear momentum (the DEM's
        pivot is the fixed system CoM).
    """
    if not isinstance(model, SpacecraftManipulator):
        raise TypeError(f"`model` must be a SpacecraftManipulator; got {type(model).__name__}")
    masses = np.concatenate([[model.base_mass], model.link_masses])
    cumulative = np.cumsum(masses)
    total = cumulative[-1]
    W = cumulative / total
    P = model.joint_placements
    b = model.link_coms                                               # joint j -> CoM j, in 𝒦_j
    ends = np.concatenate([P[1:, :3, 3], model.ee_placement[None, :3, 3]], axis=0)
    a = ends - b                                                      # CoM j -> joint j+1 (-> EE)
    placements = P.copy()
    placements[0, :3, 3] = W[0] * P[0, :3, 3]
    vm_links = W[:-1, None] * b + W[1:, None] * a                     # VM link vectors of links 1..N
    placements[1:, :3, 3] = vm_links[:-1]
    ee = model.ee_placement.copy()
    ee[:3, 3] = vm_links[-1]
    dem_masses = total ** 2 * model.link_masses / (cumulative[:-1] * cumulative[1:])
    chain = SpacecraftManipulator(
        base_mass=model.base_mass, base_inertia=model.base_inertia, joint_placements=placements,
        link_masses=dem_masses, link_coms=W[:-1, None] * b, link_inertias=model.link_inertias,
        ee_placement=ee, name=f"DEM of {model.name}", synthetic=model.synthetic)
    W.setflags(write=False)
    return DynamicallyEquivalentManipulator(chain=chain, mass_fractions=W, source=model)
