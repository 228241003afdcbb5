"""satdyn.titop: linear TITOP / N-port models of flexible multibody spacecraft.

Every body and joint is a port model (acceleration twists and wrenches at its connection
points, arXiv:2409.06017); parameters (masses, modal frequencies, joint angles) may be
uncertain or varying (:mod:`satdyn.lfr`), and :func:`connect` assembles the blocks into
one LFR with named external ports.  See docs/titop.md.
"""

from .connect import PortConnectionError, connect
from .flexible import ResidualMassWarning, flexible_body, residual_mass
from .joints import actuated_revolute_joint, frame_change, joint_dcm, prismatic_joint, revolute_joint
from .ports import ACC, WRENCH, Port, PortModel
from .rigid import invert_port, rigid_body

__all__ = [
    "Port", "PortModel", "ACC", "WRENCH",
    "rigid_body", "invert_port", "flexible_body", "residual_mass", "ResidualMassWarning",
    "frame_change", "revolute_joint", "actuated_revolute_joint", "prismatic_joint", "joint_dcm",
    "connect", "PortConnectionError",
]
