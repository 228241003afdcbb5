"""satdyn.missions: application studies built on the engines (graphs, models, costs, plans)."""
