"""satdyn.examples: models written the way users write them.

* :mod:`satdyn.examples.textbook` -- robust-control textbook problems (MATLAB Robust
  Control Toolbox documentation examples and classical margins), each built entry by
  entry with ``ureal`` arithmetic, ``ss``, ``@`` and ``feedback``, with the published
  answer and its source;
* :mod:`satdyn.examples.models` -- a suite of uncertain models written entry by entry
  (mass-spring-damper chains, a flexible spacecraft with uncertain modes, a DC motor
  servo, ...) used to check that automatic LFR simplification keeps them near minimal.

See docs/examples.md.
"""

from .models import user_models
from .textbook import PublishedAnswer, TextbookProblem, textbook_problems

__all__ = ["PublishedAnswer", "TextbookProblem", "textbook_problems", "user_models"]
