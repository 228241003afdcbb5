"""satdyn.freefloating: free-floating / free-flying spacecraft-manipulators (Front. Robot. AI 5:41 (2018)).

Generalized inertia, Generalized Jacobian Matrix (GJM), the five maneuvering modes, symbolic
and numeric equations of motion, computed-torque control and simulation, after Wilde, Kwok
Choon, Grompone & Romano (2018) with the corrections of Front. Robot. AI 5:41 (2018) §9.

Conventions: inside this package base twists are the paper's **inertial-frame** [v0; ω0]
(base CoM velocity and angular velocity, both in 𝒥); satdyn's architecture (and Pinocchio)
use body-frame base velocities — convert with :func:`base_twist_to_body` /
:func:`base_twist_from_body`.  The paper's "Euler 1-2-3" base attitude is satdyn's Euler 3-2-1
matrix Rz(ψ)Ry(θ)Rx(ϕ) (``satdyn.spatial.dcm_from_euler``).  6-vectors are [linear; angular];
quaternions scalar-last.  Models are built from the DH table (:func:`from_dh`), from joint
placements (:class:`SpacecraftManipulator`), or from a URDF / multibody tree through
``satdyn.multibody``'s reader (:func:`from_urdf`, :func:`from_multibody`).

Also: reaction-wheel and thruster actuators with allocation (:mod:`.actuators`), the Virtual
and Dynamically Equivalent Manipulators (:mod:`.virtual`, :mod:`.dem`), and Pinocchio as an
optional runtime back-end (``backend="pinocchio"``, :mod:`.backend`).
"""

from .control import ComputedTorqueController, JointSequenceCommand, gains_from_torque_limits
from .derivatives import (
    block_derivatives,
    block_derivatives_dh_route,
    block_rates,
    christoffel_matrix,
    coriolis_terms,
    coriolis_vector,
    generalized_inertia_rate,
    inertia_derivative,
)
from .dynamics import (
    FullAcceleration,
    base_twist_from_momentum,
    full_forward_dynamics,
    momentum_from_twist,
    reduced_forward_dynamics,
    reduced_forward_dynamics_with_momentum,
    reduced_inverse_dynamics,
    reduced_terms,
)
from .examples import EXAMPLES, ExampleSystem, load_example
from .inertia import (
    InertiaBlocks,
    base_inertia_inverse,
    generalized_inertia,
    inertia_blocks,
    schur_complement_elements,
    system_mass_matrix,
)
from .jacobian import generalized_jacobian, momentum_twist_offset, point_jacobians, rmrc_joint_rates
from .kinematics import (
    Kinematics,
    base_twist_from_body,
    base_twist_to_body,
    forward_kinematics,
    forward_kinematics_quaternion,
    link_velocities,
    point_velocity,
    system_com,
)
from .from_multibody import from_multibody, from_urdf
from .model import SpacecraftManipulator, dh_transform, from_dh
from .modes import ManeuveringMode, base_wrench
from .simulate import SimulationResult, momentum_report, simulate
from .tree import tree_generalized_jacobians
from .virtual import VirtualManipulator, virtual_manipulator

__all__ = [
    "SpacecraftManipulator", "from_dh", "dh_transform", "from_multibody", "from_urdf",
    "Kinematics", "forward_kinematics", "forward_kinematics_quaternion", "point_velocity", "link_velocities",
    "system_com", "base_twist_to_body", "base_twist_from_body",
    "InertiaBlocks", "inertia_blocks", "generalized_inertia", "system_mass_matrix", "base_inertia_inverse",
    "schur_complement_elements",
    "block_derivatives", "block_derivatives_dh_route", "block_rates", "inertia_derivative",
    "generalized_inertia_rate", "coriolis_vector",
    "coriolis_terms", "christoffel_matrix",
    "reduced_terms", "reduced_forward_dynamics", "reduced_inverse_dynamics", "base_twist_from_momentum",
    "momentum_from_twist", "reduced_forward_dynamics_with_momentum", "FullAcceleration", "full_forward_dynamics",
    "generalized_jacobian", "point_jacobians", "momentum_twist_offset", "rmrc_joint_rates",
    "ManeuveringMode", "base_wrench",
    "JointSequenceCommand", "ComputedTorqueController", "gains_from_torque_limits",
    "SimulationResult", "simulate", "momentum_report",
    "ExampleSystem", "EXAMPLES", "load_example",
    "VirtualManipulator", "virtual_manipulator", "tree_generalized_jacobians",
]

from .dem import DynamicallyEquivalentManipulator, dynamically_equivalent_manipulator  # noqa: E402

__all__ += ["DynamicallyEquivalentManipulator", "dynamically_equivalent_manipulator"]

from .actuators import (  # noqa: E402
    AttitudeController,
    ReactionWheelArray,
    ThrustAllocation,
    ThrusterSet,
    WheelAllocation,
    thruster_wrench,
    wheel_attitude_control,
)

__all__ += ["ReactionWheelArray", "WheelAllocation", "ThrusterSet", "ThrustAllocation", "AttitudeController",
            "wheel_attitude_control", "thruster_wrench"]

from .backend import PinocchioTerms, pinocchio_terms, to_pinocchio  # noqa: E402

__all__ += ["PinocchioTerms", "pinocchio_terms", "to_pinocchio"]
