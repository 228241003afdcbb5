"""satdyn.freefloating (in construction)."""
from .model import SpacecraftManipulator, from_dh
