"""satdyn.examples: models written the way users write them.

* :mod:`satdyn.examples.textbook` -- robust-control textbook problems (MATLAB Robust
  Control Toolbox documentation examples and classical margins), each built entry by
  entry with ``ureal`` arithmetic, ``ss``, ``@`` and ``feedback``, with the published
  answer and its source;
* :mod:`satdyn.examples.models` -- a suite of uncertain models written entry by entry
  (mass-spring-damper chains, a flexible spacecraft with uncertain modes, a DC motor
  servo, ...) used to check that automatic LFR simplification keeps them near minimal;
* :mod:`satdyn.examples.sof` -- COMPleib static-output-feedback H-infinity plants (BSD-3 data
  from NCAlgebra) with named signals, for :func:`satdyn.control.systune`.

See docs/examples.md.
"""

from .models import user_models
from .sof import SOFProblem, sof_problem, sof_problem_names
from .textbook import PublishedAnswer, TextbookProblem, textbook_problems

__all__ = ["PublishedAnswer", "TextbookProblem", "textbook_problems", "user_models",
           "SOFProblem", "sof_problem", "sof_problem_names"]
