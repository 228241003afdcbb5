"""satdyn.equilibrium (work in progress)."""
