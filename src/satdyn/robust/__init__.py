"""satdyn.robust: H2/H-infinity norms, mixed mu bounds, robust stability, worst-case gain.

Public face:

- :func:`hinfnorm`, :func:`h2norm` — norms of a ``control.StateSpace`` or of a batch with
  stacked ``A, B, C, D`` (e.g. ``satdyn.lfr.StateSpaceBatch``), without slycot;
- :func:`mussv` — mu upper/lower bounds for M (..., n, m) with repeated real, repeated
  complex and full complex blocks (:func:`real_block`, :func:`complex_block`,
  :func:`full_block`, or MATLAB rows); :func:`lmi_upper_bound` is the cvxpy cross-check;
- :func:`robust_stability` / :func:`worst_case_gain` on an LFR (like ``robstab`` / ``wcgain``),
  and their array counterparts :func:`robust_stability_mdelta` /
  :func:`worst_case_gain_mdelta` on an explicit :func:`mdelta_system`.

Rule: varying (``vreal``) parameters are gridded, one result per grid point; uncertain
(``ureal``) parameters go into mu.
"""

from .frequency_grid import modal_frequency_grid, refine_peaks
from .mdelta import MDeltaSystem, mdelta_system
from .mu_upper import DGScalings
from .mu_bounds import MussvResult, lmi_margin, lmi_upper_bound, mussv
from .norms import HinfNorm, h2norm, hinfnorm
from .stability import GriddedResults, RobustStabilityResult, robust_stability, robust_stability_mdelta
from .structure import BlockStructure, UncertaintyBlock, complex_block, full_block, real_block
from .wcgain import WorstCaseGainResult, worst_case_gain, worst_case_gain_mdelta

__all__ = [
    "hinfnorm", "h2norm", "HinfNorm",
    "mussv", "MussvResult", "DGScalings", "lmi_upper_bound", "lmi_margin",
    "BlockStructure", "UncertaintyBlock", "real_block", "complex_block", "full_block",
    "MDeltaSystem", "mdelta_system",
    "robust_stability", "robust_stability_mdelta", "RobustStabilityResult", "GriddedResults",
    "worst_case_gain", "worst_case_gain_mdelta", "WorstCaseGainResult",
    "modal_frequency_grid", "refine_peaks",
]
from .responses import (UncertainFrequencyResponse, UncertainTimeResponse, uncertain_frequency_response,  # noqa: E402
                        uncertain_time_response)
from .margins import LoopMarginsResult, MarginSet, disk_gain_phase, loop_margins  # noqa: E402

__all__ += ["UncertainFrequencyResponse", "UncertainTimeResponse", "uncertain_frequency_response",
            "uncertain_time_response", "LoopMarginsResult", "MarginSet", "disk_gain_phase", "loop_margins"]
