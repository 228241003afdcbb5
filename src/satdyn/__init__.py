"""satdyn: dynamics, robust analysis and control of flexible spacecraft and space robots.

Layers (imports point downward only; docs/architecture.md): ``satdyn.spatial``
(6-vector algebra, rotations) -> engines (``lfr``, ``robust``, ``titop``,
``equilibrium``, ``multibody``) -> applications (``freefloating``, ``detumbling``,
``missions``, ``demo``) -> ``plotting`` -> ``cli``.

The names a user types every day are re-exported here: ``ureal``, ``vreal``, ``LFR``, and the
one base error for bad input, ``SatdynInputError`` (a ``ValueError``).
"""

__version__ = "0.1.0.dev0"

from . import spatial  # noqa: E402
from ._validation import SatdynInputError  # noqa: E402
from .lfr import LFR, ureal, vreal  # noqa: E402

__all__ = ["spatial", "LFR", "ureal", "vreal", "SatdynInputError", "__version__"]
