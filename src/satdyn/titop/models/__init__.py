"""The shipped models: hub + two flexible arrays (synthetic), the 5-joint arm, the assembly spacecraft."""

from .arm import arm_angle_parameters, robotic_arm
from .assembly import (
    AssemblyConfiguration, assembly_configurations, assembly_spacecraft, fe_structure_data, robot_subsystem,
)
from .hub_arrays import hub_two_arrays

__all__ = ["robotic_arm", "arm_angle_parameters", "assembly_spacecraft", "robot_subsystem",
           "AssemblyConfiguration", "assembly_configurations", "fe_structure_data", "hub_two_arrays"]
