"""satdyn.detumbling: adaptive detumbling of a non-rigid satellite by two space tugs (arXiv:2407.17617).

The client is two rigid links joined at a hinge point H by a spherical hinge with torsional
spring, damper and smooth Coulomb friction; two tugs grasp it (one per link) and bring it
to rest without knowing its parameters or their exact grasp points, and without
communicating. Modules (one concept each):

* :mod:`.client` -- immutable model data, the 29-parameter vector, Table I with its resolutions;
* :mod:`.scenario` -- scenarios (JSON files), initial state, gains, solver settings;
* :mod:`.dynamics` -- ``M``, ``C``, ``D``, spring/friction forces, forward dynamics, energy, momenta, grasp maps;
* :mod:`.regressors` -- full-chain (9x29), composite (6x29), rigid (6x10), grasp regressors;
* :mod:`.controllers` -- controllers B, known, A, R, velocity; reference; Lyapunov function and rate;
* :mod:`.projection` -- convex physical parameter set and the projected adaptation law;
* :mod:`.simulate` -- closed-loop ``solve_ivp`` runs logging the paper's Figs. 5-11 signals;
* :mod:`.tugs` -- the tugs' limits: lumped mass, 6-thruster allocation and saturation;
* :mod:`.metrics` -- metrics of a run (settling times, peaks, energy) and named views of parameters.

The studies (the paper study, the B/A/R/known/velocity comparison, the hinge-stiffness sweep,
the tug-limits comparison and the gain-sensitivity sweep) live in :mod:`satdyn.studies.detumbling`.
"""

from .client import (
                     N_PARAMETERS,
                     PARAMETER_NAMES,
                     ClientParams,
                     HingeParams,
                     LinkParams,
                     TableResolutions,
                     client_from_table,
)
from .controllers import (
                     CONTROLLER_KINDS,
                     ControllerGains,
                     DesiredPose,
                     TugController,
                     lyapunov,
                     lyapunov_rate,
                     make_tugs,
                     measure,
                     reference_velocity,
                     tug_command,
)
from .dynamics import (
                     angular_momentum,
                     coriolis_matrix,
                     damping_matrix,
                     energy,
                     forward_dynamics,
                     friction_force,
                     generalized_force,
                     grasp_map,
                     grasp_twists,
                     hinge_angle,
                     hinge_rate,
                     kinetic_energy,
                     linear_momentum,
                     mass_matrix,
                     spring_force,
)
from .metrics import RunMetrics, named_grasps, named_parameters, run_metrics
from .projection import ParameterSet, physical_parameter_set
from .regressors import composite_regressor, full_regressor, grasp_regressor, link_regressor, rigid_regressor
from .scenario import InitialState, Scenario, SimulationOptions, load_scenario, paper_scenario
from .simulate import DetumblingRun, closed_loop, simulate, simulate_free_motion
from .tugs import TugModel, with_tug_masses

__all__ = [
    "N_PARAMETERS", "PARAMETER_NAMES", "LinkParams", "HingeParams", "ClientParams", "TableResolutions",
    "client_from_table",
    "InitialState", "SimulationOptions", "Scenario", "load_scenario", "paper_scenario",
    "mass_matrix", "coriolis_matrix", "damping_matrix", "spring_force", "friction_force", "forward_dynamics",
    "hinge_angle", "hinge_rate", "grasp_map", "generalized_force", "grasp_twists",
    "kinetic_energy", "energy", "linear_momentum", "angular_momentum",
    "link_regressor", "full_regressor", "composite_regressor", "rigid_regressor", "grasp_regressor",
    "CONTROLLER_KINDS", "DesiredPose", "ControllerGains", "TugController", "make_tugs", "reference_velocity",
    "measure", "tug_command", "lyapunov", "lyapunov_rate",
    "ParameterSet", "physical_parameter_set",
    "DetumblingRun", "closed_loop", "simulate", "simulate_free_motion",
    "RunMetrics", "run_metrics", "named_parameters", "named_grasps",
    "TugModel", "with_tug_masses",
]
