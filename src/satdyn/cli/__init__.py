"""The `satdyn` command: one subcommand per study.

Each subcommand lives in a module of this package that defines

* ``HELP`` (one line) and ``add_arguments(parser)``;
* ``run(args)`` -> a result dataclass (the study itself lives in the library);
* ``figures(result)`` -> ``{name: Figure}`` (from :mod:`satdyn.plotting`);
* ``summary(result)`` -> a few lines for the terminal.

The frame here writes ``results.json`` and ``<name>.png`` under ``--out`` (default
``./satdyn-out/<subcommand>/``) and turns bad input (``ValueError``/``TypeError`` from the
study, or argparse errors) into a one-line message and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from ..results import to_jsonable

__all__ = ["main", "SUBCOMMANDS"]

# subcommand name -> module implementing it (one entry per line; the modules are imported
# when the parser is built, to read their options).
SUBCOMMANDS: dict[str, str] = {
    "control": "satdyn.cli.control",
    "demo": "satdyn.cli.demo",
    "detumbling": "satdyn.cli.detumbling",
    "equilibrium": "satdyn.cli.equilibrium",
    "freefloating": "satdyn.cli.freefloating",
}


def _build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="satdyn",
        description="Dynamics, robust analysis and control of flexible spacecraft and space robots.",
    )
    parser.add_argument("--version", action="version", version=f"satdyn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="STUDY", required=True)
    for name, module_name in SUBCOMMANDS.items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        p.add_argument("--out", type=Path, default=None, metavar="DIR",
                       help=f"output folder (default: ./satdyn-out/{name}/)")
        module.add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``satdyn`` console script; returns the exit status."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    module = args._module
    prog = f"satdyn {args.command}"
    try:
        result = module.run(args)
    except (ValueError, TypeError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2

    out = args.out if args.out is not None else Path("satdyn-out") / args.command
    try:
        out.mkdir(parents=True, exist_ok=True)
        results_path = out / "results.json"
        results_path.write_text(json.dumps(to_jsonable(result), indent=2) + "\n")
        written = [results_path]
        for name, figure in module.figures(result).items():
            path = out / f"{name}.png"
            figure.savefig(path, dpi=120)
            written.append(path)
    except OSError as exc:
        print(f"{prog}: error: --out {str(out)!r}: {exc.strerror}", file=sys.stderr)
        return 2

    print(module.summary(result))
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
