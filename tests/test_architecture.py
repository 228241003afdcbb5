"""The house plan's layers, checked on the source (docs/architecture.md, "Layers" and "Rules of the house").

Every module of ``src/satdyn`` is parsed with :mod:`ast` (nothing is imported) and every import
statement is collected, including those inside functions: a late import is still an
import, and it is never the cure for a cycle. Each module is mapped to its layer; the tests fail

* on an import that points up the picture (an engine importing an application, a study, the
  plotting or the CLI; an application importing a study or the plotting; ...), unless it is one of
  the departures the docs accept (:data:`ACCEPTED_DEPARTURES`, each asked to be removed once the
  code no longer needs it);
* on a module that no layer claims (a new package must be placed in the picture);
* on an import cycle among modules (Tarjan's strongly connected components), except the known one
  inside :mod:`satdyn.lfr` (:data:`KNOWN_CYCLE_PACKAGES`); when that one is gone, the test asks for
  the exception to be removed.

What they are compared with: the house plan's picture, encoded below as ranks (an import from rank
``r`` may only reach ranks ``<= r``; imports inside one rank are allowed and policed by the cycle
check). No tolerance is involved.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "satdyn"

# Rank of each top-level part of satdyn (the house plan's picture, bottom = 0). Inside the engines
# the picture's arrows give sub-ranks: lfr below everything that builds LFRs; robust, titop, fe,
# multibody on it; control (-> robust) and equilibrium (-> titop, and multibody for its numerical
# comparator) above those.
LAYERS = {
    "spatial": 0, "results": 0, "_validation": 0, "runtime": 0,      # bottom: imports nothing above
    "lfr": 1,
    "robust": 2, "titop": 2, "fe": 2, "multibody": 2,                # engines
    "examples": 2,                                                    # textbook problems (engine level)
    "control": 3, "equilibrium": 3,                                   # engines on engines
    "freefloating": 4, "detumbling": 4, "missions": 4, "io": 4, "viz": 4,   # applications
    "studies": 5,
    "plotting": 6,
    "cli": 7,
    "": 7,            # satdyn/__init__.py: the facade re-exporting the everyday names
    "__main__": 8,    # `python -m satdyn` -> the CLI
}

# (importer part, imported part): why the docs accept it. Each must still be in use.
ACCEPTED_DEPARTURES = {
    ("examples", "control"): "docs/architecture.md: satdyn.examples imports satdyn.control for the COMPleib "
                             "SOF plants' blocks and goals",
}

# The import cycle inside satdyn.lfr (lfr.py <-> algebra/convert/evaluate/reduce/...) is known and
# being removed elsewhere; any cycle elsewhere fails. Remove "satdyn.lfr" here once it is gone.
KNOWN_CYCLE_PACKAGES = {"satdyn.lfr"}


def _modules() -> dict[str, Path]:
    mods = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        name = ".".join(path.relative_to(SRC).with_suffix("").parts)
        mods[name.removesuffix(".__init__")] = path
    return mods


MODULES = _modules()


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """Fully qualified names an import statement of ``module`` names (module or module.attribute)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        parts = module.split(".")
        base = parts if MODULES[module].name == "__init__.py" else parts[:-1]
        base = base[: len(base) - (node.level - 1)]
        stem = ".".join(base + ([node.module] if node.module else []))
    else:
        stem = node.module or ""
    return [f"{stem}.{alias.name}" if f"{stem}.{alias.name}" in MODULES else stem for alias in node.names]


def _import_graph() -> dict[str, set[str]]:
    """``{module: {satdyn modules it imports}}``, module-level and function-level imports alike."""
    edges = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or getattr(node, "module", None) == "__future__":
                continue
            for target in _targets(module, node):
                while target and target not in MODULES:      # `from satdyn.x import name` -> satdyn.x
                    target = target.rpartition(".")[0]
                if target and target != module:
                    edges[module].add(target)
    return edges


GRAPH = _import_graph()


def _part(module: str) -> str:
    """Top-level part of satdyn a module belongs to ("" for the package itself)."""
    return module.split(".")[1] if "." in module else ""


def _strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative): components of more than one module."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    return components


def test_every_module_has_a_layer():
    # A new top-level package must be placed in the picture (and in docs/architecture.md).
    unplaced = sorted({_part(m) for m in MODULES} - set(LAYERS))
    assert not unplaced, f"parts of satdyn with no layer in tests/test_architecture.py: {unplaced}"


def test_imports_point_down():
    upward, used_departures = [], set()
    for module, targets in GRAPH.items():
        for target in targets:
            src, dst = _part(module), _part(target)
            if LAYERS.get(dst, -1) <= LAYERS.get(src, -1):
                continue
            if (src, dst) in ACCEPTED_DEPARTURES:
                used_departures.add((src, dst))
                continue
            upward.append(f"{module} -> {target}")
    assert not upward, "imports pointing up the house plan's layers:\n" + "\n".join(sorted(upward))
    stale = set(ACCEPTED_DEPARTURES) - used_departures
    assert not stale, f"accepted departures no longer used, remove them from ACCEPTED_DEPARTURES: {sorted(stale)}"


def test_spatial_imports_nothing_of_ours():
    # The plan: "spatial imports nothing of ours" (stricter than its rank), but for the one
    # validation module below it (satdyn._validation: the base error and the array checks).
    outside = sorted(f"{m} -> {t}" for m, ts in GRAPH.items() if _part(m) == "spatial"
                     for t in ts if _part(t) not in ("spatial", "_validation"))
    assert not outside, outside


# The CLI parses options, runs a study, hands its result to plotting and writes files: it imports the
# studies, the plotting and the bottom utilities only (the names of the studies' options come
# re-exported by the studies).
CLI_MAY_IMPORT = {"cli", "studies", "plotting", "runtime", "results", "_validation", ""}
# None left: every subcommand runs its study from satdyn.studies.
CLI_KNOWN_EXCEPTIONS: set[str] = set()


def test_cli_imports_studies_and_plotting_only():
    found, used = [], set()
    for module, targets in GRAPH.items():
        if _part(module) != "cli":
            continue
        for target in targets:
            if _part(target) in CLI_MAY_IMPORT:
                continue
            if module in CLI_KNOWN_EXCEPTIONS:
                used.add(module)
                continue
            found.append(f"{module} -> {target}")
    assert not found, "the CLI imports below the studies:\n" + "\n".join(sorted(found))
    stale = CLI_KNOWN_EXCEPTIONS - used
    assert not stale, f"remove from CLI_KNOWN_EXCEPTIONS: {sorted(stale)}"


def test_engines_and_applications_hold_no_study_code():
    # Studies live in satdyn.studies only: no module named study/studies elsewhere.
    strays = sorted(m for m in MODULES if m.rpartition(".")[2] in ("study", "studies", "demo")
                    and _part(m) not in ("studies", "plotting", "cli"))
    assert not strays, f"study modules outside satdyn.studies: {strays}"


def test_no_import_cycle_but_the_known_one():
    cycles = _strongly_connected(GRAPH)
    packages = set()
    for component in cycles:
        # A cycle entirely inside one known package is that package's; anything else is new.
        owner = next((p for p in KNOWN_CYCLE_PACKAGES if all(m == p or m.startswith(p + ".") for m in component)),
                     None)
        packages.add(owner or " <-> ".join(component))
    new = packages - KNOWN_CYCLE_PACKAGES
    assert not new, "import cycles (counting imports inside functions):\n" + "\n".join(sorted(new))
    fixed = KNOWN_CYCLE_PACKAGES - packages
    assert not fixed, f"no cycle left in {sorted(fixed)}: remove it from KNOWN_CYCLE_PACKAGES"


@pytest.mark.parametrize("case", ["cycle", "upward"])
def test_the_checks_can_fail(case):
    # The two checks on a small made-up graph: a 3-cycle is found, an upward edge is seen as upward.
    if case == "cycle":
        graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
        assert _strongly_connected(graph) == [["a", "b", "c"]]
    else:
        assert LAYERS["fe"] < LAYERS["studies"] < LAYERS["plotting"] < LAYERS["cli"]
        assert _part("satdyn.fe.study") == "fe" and _part("satdyn") == ""


def test_engines_side_by_side_do_not_import_each_other():
    # The plan draws control -> robust and equilibrium -> titop side by side: neither imports the
    # other (the arm problem that needs both lives in satdyn.studies).
    pairs = {("control", "equilibrium"), ("equilibrium", "control")}
    found = sorted(f"{m} -> {t}" for m, targets in GRAPH.items() for t in targets if (_part(m), _part(t)) in pairs)
    assert not found, "\n".join(found)
