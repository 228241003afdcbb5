"""satdyn.spatial: 6-vector algebra, rigid mass matrices and rotations.

The bottom layer of satdyn: it imports nothing else of the package. Conventions
(docs/conventions.md): 6-vectors ``[linear; angular]``; DCM ``P_ab`` maps components
in frame a to frame b; ``tau(r_PB) = [[I, skew(PB)], [0, I]]``; quaternions
scalar-last; Euler angles 3-2-1, ``P_bi = Rz(psi) Ry(theta) Rx(phi)``.
Every function accepts leading batch dimensions. ``satdyn.spatial.unchecked`` holds
trusted-input variants of ``skew``, ``tau`` and ``frame_change_matrix`` for inner loops.
"""

from . import unchecked
from .adapters import (
    classical_from_spatial_acceleration,
    from_angular_linear,
    spatial_from_classical_acceleration,
    to_angular_linear,
)
from .algebra import frame_change_matrix, motion_transform, skew, tau, vee, wrench_transform
from .inertia import (
    composite_inertia,
    composite_mass_matrix,
    mass_properties,
    parallel_axis,
    rigid_mass_matrix,
    transport_mass_matrix,
)
from .rotations import (
    dcm_from_euler,
    dcm_from_quaternion,
    dcm_from_rotvec,
    euler_from_dcm,
    euler_rate_matrix,
    euler_rate_matrix_inverse,
    quaternion_conjugate,
    quaternion_derivative,
    quaternion_from_dcm,
    quaternion_from_wxyz,
    quaternion_multiply,
    quaternion_to_wxyz,
    rodrigues,
    rotvec_from_dcm,
    so3_exp,
    so3_left_jacobian,
    so3_left_jacobian_inverse,
    so3_log,
    so3_right_jacobian,
    so3_right_jacobian_inverse,
)
from .euler import (
    EULER_SEQUENCES,
    dcm_from_euler_sequence,
    euler_sequence_from_dcm,
    euler_sequence_rate_matrix,
    euler_sequence_rate_matrix_inverse,
)

__all__ = [
    "skew", "vee", "tau", "frame_change_matrix", "motion_transform", "wrench_transform",
    "rigid_mass_matrix", "parallel_axis", "mass_properties", "transport_mass_matrix",
    "composite_mass_matrix", "composite_inertia",
    "dcm_from_quaternion", "quaternion_from_dcm", "dcm_from_rotvec", "rotvec_from_dcm",
    "dcm_from_euler", "euler_from_dcm", "rodrigues", "so3_exp", "so3_log",
    "so3_left_jacobian", "so3_right_jacobian", "so3_left_jacobian_inverse", "so3_right_jacobian_inverse",
    "euler_rate_matrix", "euler_rate_matrix_inverse",
    "quaternion_multiply", "quaternion_conjugate", "quaternion_derivative",
    "quaternion_to_wxyz", "quaternion_from_wxyz",
    "classical_from_spatial_acceleration", "spatial_from_classical_acceleration",
    "to_angular_linear", "from_angular_linear",
    "EULER_SEQUENCES", "dcm_from_euler_sequence", "euler_sequence_from_dcm",
    "euler_sequence_rate_matrix", "euler_sequence_rate_matrix_inverse",
    "unchecked",
]
