"""satdyn.studies: one module per ``satdyn`` subcommand, each a short composition of named,
tested steps of the engines and applications returning a result dataclass of numbers.

* :mod:`.demo` -- the flagship (assembly walk with every cost), the hub-and-arrays study, the
  rigid composite-inertia check (``satdyn demo``);
* :mod:`.assembly` -- the F_27 walk example and the whole 28-tile assembly (``satdyn assembly``,
  arXiv:2409.06017);
* :mod:`.equilibrium` -- Figs. 5 and 6 of arXiv:2109.00407 for the two-link arm (``satdyn equilibrium``);
* :mod:`.fe` -- modes and port data of one tile structure (``satdyn fe``);
* :mod:`.model` -- what a user wants to see of their model file (``satdyn model FILE``);
* :mod:`.freefloating` -- the two example maneuvers of the free-floating paper (``satdyn freefloating``);
* :mod:`.detumbling` -- the detumbling run, controller comparison, hinge sweep, tug limits and
  gain sweep (``satdyn detumbling``, arXiv:2407.17617).

Layer rule (docs/architecture.md): studies import engines, applications, :mod:`satdyn.io`,
:mod:`satdyn.runtime` and :mod:`satdyn.results`; nothing below imports a study; figures of
their results live in :mod:`satdyn.plotting` and the command line in :mod:`satdyn.cli`. The
modules are not imported here, so ``import satdyn.studies.fe`` does not load the assembly
mission's dependencies.
"""

__all__ = ["demo", "assembly", "equilibrium", "fe", "model", "freefloating", "detumbling"]
