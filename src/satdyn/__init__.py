"""satdyn: dynamics, robust analysis and control of flexible spacecraft and space robots.

Layers (imports point downward only; see docs/architecture in the project README):
``satdyn.spatial`` (6-vector algebra, rotations) -> engines (``lfr``, ``robust``,
``titop``, ``equilibrium``, ``multibody``) -> applications (``freefloating``,
``detumbling``, ``missions``) -> ``plotting`` -> ``cli``.
"""

__version__ = "0.1.0.dev0"

from . import spatial  # noqa: E402

__all__ = ["spatial", "__version__"]
