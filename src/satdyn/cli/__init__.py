"""The `satdyn` command: one subcommand per study.

Each subcommand lives in a module of this package that defines

* ``HELP`` (one line) and ``add_arguments(parser)``;
* ``run(args)`` -> a result dataclass (the study itself lives in the library);
* ``figures(result)`` -> ``{name: Figure}`` (from :mod:`satdyn.plotting`);
* ``summary(result)`` -> a few lines for the terminal;
* optionally ``check(args)``: raise ``ValueError`` for option combinations the study refuses
  (e.g. a flag its mode ignores), called before any work.

The frame here adds ``--out`` and ``--quiet`` to every subcommand and

* validates every option before the study starts (argument types of this module:
  :func:`positive_float`, :func:`seed`, ...; ``--out`` must be a creatable, writable folder);
* runs the study inside :func:`satdyn.runtime.limit_blas_threads` (one BLAS thread unless the
  environment says otherwise) and :func:`satdyn.runtime.quiet` with ``--quiet``;
* writes ``results.json`` and ``<name>.png`` under ``--out`` (default ``./satdyn-out/<subcommand>/``);
* turns bad input (argparse errors, ``ValueError``/``TypeError`` from the study) into one line
  ``satdyn <study>: error: ...`` and exit status 2, and Ctrl-C into one line and status 130.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys
import tempfile
from pathlib import Path

from ..results import to_jsonable

__all__ = ["main", "SUBCOMMANDS", "positive_float", "nonnegative_float", "finite_float", "positive_int",
           "seed", "json_file", "output_folder", "SimulationProgress"]

# subcommand name -> module implementing it (one entry per line; the modules are imported
# when the parser is built, to read their options).
SUBCOMMANDS: dict[str, str] = {
    "assembly": "satdyn.cli.assembly",
    "control": "satdyn.cli.control",
    "demo": "satdyn.cli.demo",
    "detumbling": "satdyn.cli.detumbling",
    "equilibrium": "satdyn.cli.equilibrium",
    "fe": "satdyn.cli.fe",
    "freefloating": "satdyn.cli.freefloating",
    "model": "satdyn.cli.model",
}


# ----------------------------------------------------------------------------------------
# Option types: each refuses a bad value with a message argparse prefixes by the option name
# ----------------------------------------------------------------------------------------
def _parsed(kind, text: str, expected: str):
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}; got {text!r}") from None


def _checked(value, text: str, ok: bool, expected: str):
    if not ok:
        raise argparse.ArgumentTypeError(f"expected {expected}; got {text!r}")
    return value


def finite_float(text: str) -> float:
    """A finite number (no nan/inf)."""
    value = _parsed(float, text, "a number")
    return _checked(value, text, math.isfinite(value), "a finite number")


def positive_float(text: str) -> float:
    """A finite number > 0."""
    value = finite_float(text)
    return _checked(value, text, value > 0, "a positive finite number")


def nonnegative_float(text: str) -> float:
    """A finite number >= 0."""
    value = finite_float(text)
    return _checked(value, text, value >= 0, "a finite number >= 0")


def positive_int(text: str) -> int:
    """An integer >= 1."""
    value = _parsed(int, text, "an integer")
    return _checked(value, text, value >= 1, "a positive integer")


def seed(text: str) -> int:
    """A random seed: an integer >= 0 (numpy refuses negative seeds)."""
    value = _parsed(int, text, "an integer")
    return _checked(value, text, value >= 0, "an integer >= 0")


def json_file(text: str) -> Path:
    """A readable file holding valid JSON (checked now, so a typo costs no study time)."""
    path = Path(text)
    try:
        json.loads(path.read_text())
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot read {text!r}: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not valid JSON ({exc})") from None
    return path


def _can_write_in(folder: Path) -> str | None:
    """None if a file can be created in ``folder`` (tried for real: permissions alone lie to root)."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def output_folder(text: str) -> Path:
    """A folder that exists and is writable, or can be created (its nearest existing parent is)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder name; got an empty string")
    path = Path(text)
    folder = path.absolute()
    while not folder.exists():           # the folder that must accept a new entry
        folder = folder.parent
    existing = folder == path.absolute()
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} exists and is not a folder" if existing
                                         else f"cannot create {text!r}: {str(folder)!r} is not a folder")
    problem = _can_write_in(folder)
    if problem:
        where = f"write in {text!r}" if existing else f"create {text!r} in {str(folder)!r}"
        raise argparse.ArgumentTypeError(f"cannot {where}: {problem}")
    return path


class SimulationProgress:
    """``progress(label, t, T)`` callback of the simulations -> one bar per label (simulated seconds).

    Bars come from :func:`satdyn.runtime.progress` (ETA, standard error, silenced by ``--quiet``).
    """

    def __init__(self, desc: str = "simulate"):
        self.desc = desc
        self.bars: dict = {}

    def __call__(self, label, t, T):
        from ..runtime import progress

        bar = self.bars.get(label)
        if bar is None:
            bar = self.bars[label] = progress(total=round(float(T), 2), desc=f"{self.desc} {label}", unit="sim s")
        bar.update(round(min(float(t), float(T)) - bar.n, 2))
        if t >= T:
            bar.close()

    def close(self):
        for bar in self.bars.values():
            bar.close()


# ----------------------------------------------------------------------------------------
class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``prog: error: message``) and no exit from inside."""

    def error(self, message):
        raise _UsageError(f"{self.prog}: error: {message}")


def _build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = _Parser(
        prog="satdyn",
        description="Dynamics, robust analysis and control of flexible spacecraft and space robots.",
    )
    parser.add_argument("--version", action="version", version=f"satdyn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="STUDY", required=True, parser_class=_Parser)
    for name, module_name in SUBCOMMANDS.items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        p.add_argument("--out", type=output_folder, default=None, metavar="DIR",
                       help=f"output folder, checked before the study starts (default: ./satdyn-out/{name}/)")
        p.add_argument("--quiet", action="store_true", help="no progress bars")
        module.add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``satdyn`` console script; returns the exit status."""
    from ..runtime import limit_blas_threads, quiet

    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    module = args._module
    prog = f"satdyn {args.command}"
    try:
        out = args.out if args.out is not None else output_folder(str(Path("satdyn-out") / args.command))
    except argparse.ArgumentTypeError as exc:
        print(f"{prog}: error: argument --out: {exc}", file=sys.stderr)
        return 2
    try:
        if hasattr(module, "check"):
            module.check(args)
        with quiet(args.quiet), limit_blas_threads():
            result = module.run(args)
            figures = module.figures(result)
    except (ValueError, TypeError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130

    try:
        out.mkdir(parents=True, exist_ok=True)
        results_path = out / "results.json"
        results_path.write_text(json.dumps(to_jsonable(result), indent=2) + "\n")
        written = [results_path]
        for name, figure in figures.items():
            path = out / f"{name}.png"
            figure.savefig(path, dpi=120)
            written.append(path)
    except OSError as exc:
        print(f"{prog}: error: --out {str(out)!r}: {exc.strerror}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130

    print(module.summary(result))
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
