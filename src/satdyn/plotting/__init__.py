"""satdyn.plotting: matplotlib figures drawn from result objects (never computes physics).

Figures are built on :class:`matplotlib.figure.Figure` directly (no pyplot state, no
display needed: the Agg canvas renders PNGs). Each ``plot_*`` function takes one result
object and returns ``{name: Figure}``; the CLI saves them as ``<name>.png``.
"""

from .control import plot_arm_control
from .demo import plot_flagship, plot_rigid_spacecraft_inertia
from .detumbling import plot_detumbling_experiment, plot_detumbling_run, plot_detumbling_study
from .equilibrium import plot_equilibrium_study
from .freefloating import plot_freefloating
from .uncertain import plot_loop_margins, plot_uncertain_bode, plot_uncertain_sigma, plot_uncertain_time_response

# One entry per line, so that each study's branch adds its own lines.
__all__ = [
    "plot_rigid_spacecraft_inertia",
    "plot_flagship",
    "plot_detumbling_run",
    "plot_detumbling_experiment",
    "plot_detumbling_study",
    "plot_equilibrium_study",
    "plot_freefloating",
    "plot_uncertain_bode",
    "plot_uncertain_sigma",
    "plot_uncertain_time_response",
    "plot_loop_margins",
    "plot_arm_control",
]
