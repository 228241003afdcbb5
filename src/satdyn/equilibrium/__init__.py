"""satdyn.equilibrium: LFT models of multibody systems around a parameter-dependent
equilibrium in a uniform acceleration field (arXiv:2109.00407; Kassarian et al. 2021).

Each substructure is trimmed and linearised first (rigid body, revolute joint with the
corrected eq. (22)); the equilibrium quantities (DCMs, field seen by each body, trim
wrenches, static torques) are propagated through the tree as LFRs and re-injected, so the
assembled model is one LFR exactly covering every equilibrium angle and parameter.

Model: :class:`RigidBody`, :class:`RevoluteJoint`, :class:`Weld`, :class:`EquilibriumTree`,
optionally on a :class:`FreeBase` (12-state forward base) with :class:`ExternalWrench` trim loads;
optional pose outputs (:func:`pose_maps`).
Algorithms: :func:`forward_recurrence` (step 1), :func:`backward_recurrence` (step 2),
:func:`linear_inverse_dynamics` (option B recursion), :func:`equilibrium_lfr` (step 3,
options A/B), :func:`equilibrium_linearisation` (the same algorithm numerically).
Shipped model: :func:`load_two_link_arm`, :func:`two_link_arm_lfr`; its analytic reference
and numerical trim + linearisation: :mod:`satdyn.equilibrium.reference`. The paper's
study (Figs. 5 and 6) is :func:`satdyn.studies.equilibrium.equilibrium_study`.
"""

from .arm import (GEOMETRIES, UNCERTAIN_PARAMETERS, TwoLinkArm, load_two_link_arm, two_link_arm_lfr,
                  two_link_arm_parameters, two_link_arm_tree)
from .assembly import EquilibriumLFR, EquilibriumLinearisation, equilibrium_lfr, equilibrium_linearisation
from .blocks import free_base_block, revolute_joint_block, rigid_body_block, weld_block
from .base import ExternalWrench, FreeBase
from .body import RigidBody, Scaled
from .joint import RevoluteJoint, Weld
from .recurrence import (EquilibriumTree, Trim, backward_recurrence, forward_recurrence, linear_inverse_dynamics,
                         pose_maps)
from .reference import (arm_gravity_stiffness, arm_linear_state_space, arm_mass_matrix, arm_static_torques,
                        relative_error, trim_and_linearise)

__all__ = [
    "GEOMETRIES",
    "UNCERTAIN_PARAMETERS",
    "TwoLinkArm",
    "load_two_link_arm",
    "two_link_arm_tree",
    "two_link_arm_parameters",
    "two_link_arm_lfr",
    "RigidBody",
    "Scaled",
    "FreeBase",
    "ExternalWrench",
    "pose_maps",
    "revolute_joint_block",
    "rigid_body_block",
    "weld_block",
    "free_base_block",
    "RevoluteJoint",
    "Weld",
    "EquilibriumTree",
    "Trim",
    "forward_recurrence",
    "backward_recurrence",
    "linear_inverse_dynamics",
    "EquilibriumLFR",
    "EquilibriumLinearisation",
    "equilibrium_lfr",
    "equilibrium_linearisation",
    "arm_mass_matrix",
    "arm_static_torques",
    "arm_gravity_stiffness",
    "arm_linear_state_space",
    "trim_and_linearise",
    "relative_error",
]

