"""satdyn.multibody: non-linear dynamics of multibody trees (arXiv:2505.03248, the non-linear TITOP recursion).

Pinocchio-style: an immutable :class:`Model` (built with :class:`ModelBuilder`, :func:`body`
and the joint factories, or read with :func:`load_urdf`) and algorithm functions over it,
all batched over leading dimensions of ``q`` (..., nq) and ``v`` (..., nv):

* :func:`forward_dynamics` (O(n) articulated sweep, arXiv:2505.03248 §3.6 option b),
  :func:`forward_dynamics_cut_and_solve` (option a, test reference), :func:`hybrid_dynamics`;
* :func:`inverse_dynamics` (RNEA = the loop-free inverse diagram), :func:`interface_wrenches`;
* :func:`mass_matrix`, :func:`nonlinear_effects`, :func:`generalized_gravity`;
* :func:`simulate` (compiled Runge-Kutta, or scipy ``solve_ivp``), :func:`simulate_batch` (many
  initial conditions; compiled: 32 at a time in SIMD lanes), :func:`mechanical_energy`, :func:`momentum`,
  :func:`center_of_mass`, :func:`body_poses`;
* :func:`linearize` -> ``control.StateSpace`` with named signals;
* :func:`example_g` -- the paper's balloon / slider / double-pendulum example.

Layout: floating-root ``q = [r_i (3), quaternion (4, [x, y, z, w]), joints]``,
``v = [v; omega] (root body frame), joint rates]``; 6-vectors ``[linear; angular]``.
"""

from .energy import body_poses, center_of_mass, kinetic_energy, mechanical_energy, momentum
from .examples import EXAMPLE_G_DEFAULTS, ExampleGParameters, example_g, example_g_initial_state
from .forward_dynamics import forward_dynamics, forward_dynamics_cut_and_solve
from .hybrid_dynamics import hybrid_dynamics
from .inverse_dynamics import InterfaceWrenches, interface_wrenches, inverse_dynamics
from .joints import (
    Joint,
    fixed_root,
    floating_euler_root,
    floating_root,
    prescribed_root,
    prismatic_joint,
    revolute_joint,
    spherical_joint,
    weld_joint,
)
from .linearize import linearize
from .mass_matrix import generalized_gravity, mass_matrix, nonlinear_effects
from .mimic import CoupledModel
from .model import Body, ExternalWrench, LoopClosure, Model, ModelBuilder, body
from .batch_simulate import BatchSimulationResult, simulate_batch
from .simulate import SimulationResult, simulate
from .urdf import load_urdf
from .blocks import (
    FloatingBodyBlock, GroundBlock, LoopClosureBlock, PrismaticBlock, RevoluteBlock, WeldBlock,
)
from .diagram import BlockDiagram, DiagramSignals, DiagramSimulation
from .signals import MotionVector, Wrench

__all__ = [
    "Model", "ModelBuilder", "Body", "body", "Joint", "ExternalWrench", "LoopClosure",
    "weld_joint", "revolute_joint", "prismatic_joint", "spherical_joint",
    "floating_root", "floating_euler_root", "fixed_root", "prescribed_root",
    "forward_dynamics", "forward_dynamics_cut_and_solve", "hybrid_dynamics",
    "inverse_dynamics", "interface_wrenches", "InterfaceWrenches",
    "mass_matrix", "nonlinear_effects", "generalized_gravity",
    "simulate", "SimulationResult", "simulate_batch", "BatchSimulationResult",
    "mechanical_energy", "kinetic_energy", "momentum", "center_of_mass", "body_poses",
    "linearize", "load_urdf", "CoupledModel",
    "example_g", "example_g_initial_state", "ExampleGParameters", "EXAMPLE_G_DEFAULTS",
    "FloatingBodyBlock", "GroundBlock", "WeldBlock", "RevoluteBlock", "PrismaticBlock", "LoopClosureBlock",
    "BlockDiagram", "DiagramSignals", "DiagramSimulation", "MotionVector", "Wrench",
]
