"""satdyn.control: structured, multi-model and LPV H-infinity controller tuning (systune-like).

Public face:

- tunable blocks that own their parameters (:class:`StaticGain`, :class:`PID`,
  :class:`TunableSS` full / tridiagonal / companion, :class:`TunableTF`,
  :class:`ScheduledBlock` affine-LPV surfaces scheduled by ``vreal`` parameters);
- goals (:class:`Gain`, :class:`Tracking`, :class:`Sensitivity`, :func:`H2`,
  :class:`Poles`), hard or soft;
- :func:`systune` (nonsmooth SQP min-max with a progress function, or HANSO-style BFGS;
  parallel random starts) returning a :class:`TuneResult`;
- :func:`robust_tune`: the robust / LPV outer loop (tune on active scenarios, worst-case
  search over the parameter box, add violators, repeat, certify).

See docs/control.md.
"""

from .blocks import PID, AffineBlock, ScheduledBlock, StaticGain, TunableBlock, TunableSS, TunableTF
from .goals import H2, Gain, Goal, Poles, Sensitivity, Tracking
from .hinfsyn import GammaStep, HinfsynResult, SynthesisFailure, SynthesisInputError, hinfsyn
from .lpv import controller_lfr
from .musyn import DScaleFit, MusynIteration, MusynResult, fit_magnitude, musyn
from .problem import Controller, TuningProblem
from .robust_loop import Certification, RobustOptions, certify, robust_tune, worst_case_search
from .systune import StartRecord, TuneOptions, TuneResult, systune, tune_problem

__all__ = [
    "TunableBlock", "AffineBlock", "StaticGain", "PID", "TunableSS", "TunableTF", "ScheduledBlock",
    "Goal", "Gain", "Tracking", "Sensitivity", "H2", "Poles",
    "Controller", "TuningProblem", "controller_lfr",
    "robust_tune", "RobustOptions", "Certification", "certify", "worst_case_search",
    "systune", "tune_problem", "TuneOptions", "TuneResult", "StartRecord",
    "hinfsyn", "HinfsynResult", "GammaStep", "SynthesisInputError", "SynthesisFailure",
    "musyn", "MusynResult", "MusynIteration", "DScaleFit", "fit_magnitude",
]
