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
  :func:`positive_float`, :func:`seed`, :func:`bounded_int`, :func:`input_file`, :func:`folder`, ...;
  ``--out`` must be a creatable, writable folder). Options that decide how much the study allocates
  (sample counts, grid steps, horizons over recording steps) are capped: an option's type carries
  its cap, or the module's ``check`` calls :func:`check_size` on the size the options imply;
* runs the study inside :func:`satdyn.runtime.limit_blas_threads` (one BLAS thread unless the
  environment says otherwise) and :func:`satdyn.runtime.quiet` with ``--quiet``;
* writes ``results.json`` and ``<name>.png`` under ``--out`` (default ``./satdyn-out/<subcommand>/``)
  and lists them in ``satdyn-manifest.json`` there; a later run in the same folder first removes
  the files that manifest lists (and only those: never a file satdyn did not write), and says so;
* turns bad input (argparse errors, ``ValueError``/``TypeError`` from the study) into one line
  ``satdyn <study>: error: ...`` and exit status 2, Ctrl-C into one line and status 130, and a
  standard output closed by its reader (``satdyn ... | head -1``) into status 141 (128 + SIGPIPE).
  ``MemoryError`` is the one other exception it reports in one line (status 2): the caps above
  keep every study's arrays small, so it means the machine had less memory than the study needs.
  Anything else is a bug and shows its traceback. (Bad input is meant to be one base error,
  ``SatdynInputError(ValueError)``; until it exists, ``ValueError``/``TypeError`` stand for it.)
"""

from __future__ import annotations

import argparse
import errno
import importlib
import json
import math
import os
import stat
import sys
import tempfile
from pathlib import Path

from ..results import to_jsonable

__all__ = ["main", "SUBCOMMANDS", "positive_float", "nonnegative_float", "finite_float", "positive_int",
           "seed", "bounded_int", "bounded_float", "workers", "input_file", "json_file", "folder", "output_folder",
           "check_size", "MAX_INPUT_FILE_BYTES", "MAX_RECORDED_SAMPLES", "MANIFEST", "SimulationProgress"]

MAX_INPUT_FILE_BYTES = 256 * 1024**2
"""Largest file an option reads (256 MiB): far above any scenario or model file (kilobytes to a few
megabytes), and it keeps ``/dev/zero``-like or mistaken multi-gigabyte inputs from exhausting memory."""

MAX_RECORDED_SAMPLES = 1_000_000
"""Largest number of recorded time samples of one simulation run (horizon / recording step): a
run records a few dozen floats per sample plus derived signals, i.e. up to about a gigabyte at this cap;
the default runs record a few thousand."""

MANIFEST = "satdyn-manifest.json"
"""File in ``--out`` listing the files the last run wrote there (removed by the next run)."""

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


def bounded_int(low: int, high: int, why: str = ""):
    """Option type: an integer in ``[low, high]`` (``why``: the reason for ``high``, shown on refusal)."""
    def parse(text: str) -> int:
        value = _parsed(int, text, "an integer")
        reason = f" ({why})" if why else ""
        return _checked(value, text, low <= value <= high, f"an integer in [{low}, {high}]{reason}")

    parse.__name__ = f"integer in [{low}, {high}]"
    return parse


def bounded_float(low: float, high: float, unit: str = "", why: str = ""):
    """Option type: a finite number in ``[low, high]`` (``unit`` shown with the bounds)."""
    def parse(text: str) -> float:
        value = finite_float(text)
        reason = f" ({why})" if why else ""
        unit_text = f" {unit}" if unit else ""
        return _checked(value, text, low <= value <= high, f"a number in [{low:g}, {high:g}]{unit_text}{reason}")

    parse.__name__ = f"number in [{low:g}, {high:g}]"
    return parse


def workers(text: str) -> int:
    """Number of worker processes: an integer in [1, 4 x the CPU count] (more processes than that
    only divide the same cores and multiply the memory each one holds)."""
    limit = 4 * (os.cpu_count() or 1)
    return bounded_int(1, limit, f"4 x the {os.cpu_count() or 1} CPUs of this machine")(text)


def check_size(option: str, size: float, limit: float, what: str) -> None:
    """Refuse (``ValueError`` naming ``option``) when the ``size`` an option implies exceeds ``limit``.

    For sizes that several options decide together (a horizon over a recording step, say), called
    from a subcommand's ``check`` before any work. ``what`` names the counted thing ("recorded samples").
    """
    if not (math.isfinite(size) and size <= limit):
        raise ValueError(f"{option} implies {size:.3g} {what}; at most {limit:.3g} are allowed "
                         f"(a cap that keeps the study's arrays in memory)")


def _path_problem(exc: OSError) -> str:
    if exc.errno == errno.ENAMETOOLONG:
        return "the name is too long for the file system"
    return exc.strerror or str(exc)


def input_file(text: str) -> Path:
    """A readable regular file of at most :data:`MAX_INPUT_FILE_BYTES` (not a folder, device or pipe)."""
    path = Path(text)
    try:
        info = path.stat()
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot read {_short(text)}: {_path_problem(exc)}") from None
    except ValueError as exc:            # an embedded NUL byte
        raise argparse.ArgumentTypeError(f"cannot read {_short(text)}: {exc}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise argparse.ArgumentTypeError(f"cannot read {_short(text)}: it is {kind}")
    if info.st_size > MAX_INPUT_FILE_BYTES:
        raise argparse.ArgumentTypeError(f"{_short(text)} has {info.st_size} bytes; input files are limited to "
                                         f"{MAX_INPUT_FILE_BYTES // 1024**2} MiB")
    if not os.access(path, os.R_OK):
        raise argparse.ArgumentTypeError(f"cannot read {_short(text)}: permission denied")
    return path


def json_file(text: str) -> Path:
    """A readable file holding valid JSON (checked now, so a typo costs no study time)."""
    path = input_file(text)
    try:
        json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot read {_short(text)}: {_path_problem(exc)}") from None
    except UnicodeDecodeError as exc:
        raise argparse.ArgumentTypeError(f"{_short(text)} is not UTF-8 text (byte {exc.start}: "
                                         f"{exc.object[exc.start:exc.start + 1]!r})") from None
    except RecursionError:
        raise argparse.ArgumentTypeError(f"{_short(text)} is nested too deeply to be a satdyn JSON file") from None
    except ValueError as exc:            # json.JSONDecodeError, or an integer of more than 4300 digits
        raise argparse.ArgumentTypeError(f"{_short(text)} is not valid JSON ({exc})") from None
    return path


def _can_write_in(where: Path) -> str | None:
    """None if a file can be created in the folder ``where`` (tried for real: permissions alone lie to root)."""
    try:
        with tempfile.TemporaryFile(dir=where):
            pass
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def folder(text: str) -> Path:
    """Option type of every folder option (``--out``, caches, checkpoints): a folder that exists and is
    writable, or can be created (its nearest existing parent is a writable folder).

    A path naming a file (or a dangling link), a name longer than the file system takes, or an empty
    string is refused with the reason.
    """
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder name; got an empty string")
    if "\0" in text:
        raise argparse.ArgumentTypeError(f"cannot use {_short(text)}: a path cannot hold a NUL character")
    path = Path(text)
    try:
        target = path.absolute()
        name_max, path_max = _name_limits()
        if len(os.fsencode(str(target))) >= path_max:
            raise argparse.ArgumentTypeError(f"cannot create {_short(text)}: the path has "
                                             f"{len(os.fsencode(str(target)))} bytes; the system takes "
                                             f"fewer than {path_max}")
        long_part = next((part for part in target.parts if len(os.fsencode(part)) > name_max), None)
        if long_part is not None:
            raise argparse.ArgumentTypeError(f"cannot create {_short(text)}: a name in it has "
                                             f"{len(os.fsencode(long_part))} bytes; the file system takes "
                                             f"at most {name_max}")
        nearest = target
        while not (nearest.exists() or nearest.is_symlink()):   # the folder that must accept a new entry
            nearest = nearest.parent
        existing = nearest == target
        if not nearest.is_dir():
            what = "a dangling link" if not nearest.exists() else "not a folder"
            raise argparse.ArgumentTypeError(f"{_short(text)} exists and is {what}" if existing
                                             else f"cannot create {_short(text)}: {str(nearest)!r} is {what}")
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot use {_short(text)}: {_path_problem(exc)}") from None
    problem = _can_write_in(nearest)
    if problem:
        where = f"write in {_short(text)}" if existing else f"create {_short(text)} in {str(nearest)!r}"
        raise argparse.ArgumentTypeError(f"cannot {where}: {problem}")
    return path


def _name_limits() -> tuple[int, int]:
    """(longest file name, longest path) in bytes, as the system states them (POSIX: 255, 4096)."""
    try:
        return os.pathconf("/", "PC_NAME_MAX"), os.pathconf("/", "PC_PATH_MAX")
    except (AttributeError, OSError, ValueError):   # no pathconf (Windows): the common limits
        return 255, 4096


def _short(text: str, limit: int = 120) -> str:
    """``repr`` of a user's path, shortened in the middle (a 5000-character name stays one readable line)."""
    return repr(text) if len(text) <= limit else repr(text[:limit // 2]) + "..." + repr(text[-limit // 2:])


output_folder = folder
"""The ``--out`` type (the same checks as every folder option)."""


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


def _one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (a multi-line message would break the CLI's contract)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text


def _manifest_names(out: Path) -> list[str]:
    """File names the previous run listed in ``out/satdyn-manifest.json`` (empty if none or unreadable).

    Only plain names of the kinds satdyn writes (``*.json``, ``*.png``) are returned, so a damaged or
    edited manifest can never make satdyn delete a file outside ``out`` or of another kind.
    """
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return []
    names = data.get("files") if isinstance(data, dict) else None
    if not isinstance(names, list):
        return []
    return [n for n in names if isinstance(n, str) and n not in (".", "..", MANIFEST) and Path(n).name == n
            and "/" not in n and "\\" not in n and Path(n).suffix in (".json", ".png")]


def _clear_previous_run(out: Path) -> list[str]:
    """Remove the files the previous run listed in the manifest of ``out``; return their names."""
    removed = []
    for name in _manifest_names(out):
        path = out / name
        if path.is_symlink() or path.is_file():
            path.unlink()
            removed.append(name)
    return removed


def _write_outputs(out: Path, command: str, result, figures) -> tuple[list[Path], list[str], list[str]]:
    """Write results.json, the figures and the manifest; return (written, removed, others)."""
    out.mkdir(parents=True, exist_ok=True)
    removed = _clear_previous_run(out)
    names = ["results.json"] + [f"{name}.png" for name in figures]
    others = sorted(p.name for p in out.iterdir() if p.is_file() and p.name not in names and p.name != MANIFEST)
    # the manifest first: an interrupted write still leaves every file it made listed for the next run
    (out / MANIFEST).write_text(json.dumps({"study": command, "files": names}, indent=1) + "\n")
    results_path = out / "results.json"
    results_path.write_text(json.dumps(to_jsonable(result), indent=2) + "\n")
    written = [results_path]
    for name, figure in figures.items():
        path = out / f"{name}.png"
        figure.savefig(path, dpi=120)
        written.append(path)
    return written, removed, others


def _folder_note(out: Path, written: list[Path], removed: list[str], others: list[str]) -> str | None:
    """The line saying what became of the files already in ``--out`` (None if it held none)."""
    if removed:
        kept = f"; left {len(others)} other files alone" if others else ""
        stale = [name for name in removed if name not in {p.name for p in written}]
        if stale:
            return (f"cleared the previous run in {out} first: removed the {len(removed)} files {MANIFEST} listed, "
                    f"{len(stale)} of them not written again ({', '.join(stale)}){kept}")
        return f"replaced the previous run's files in {out} (listed in {MANIFEST}){kept}"
    if others:
        more = ", ..." if len(others) > 5 else ""
        return (f"note: {out} also holds {len(others)} files this run did not write ({', '.join(others[:5])}{more}): "
                "left as they are")
    return None


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):   # a stdout without a file descriptor (tests, IDEs)
        pass


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``satdyn`` console script; returns the exit status."""
    where = {"prog": "satdyn"}     # named once the subcommand is known
    try:
        return _main(argv, where)
    except KeyboardInterrupt:      # anywhere: importing the studies, reading input files, the study, writing
        print(f"{where['prog']}: interrupted", file=sys.stderr)
        return 130


def _main(argv: list[str] | None, where: dict) -> int:
    from ..runtime import limit_blas_threads, quiet

    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    module = args._module
    prog = where["prog"] = f"satdyn {args.command}"
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
        print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except MemoryError as exc:
        print(f"{prog}: error: not enough memory for this study ({_one_line(exc)}); ask for fewer samples "
              "or a coarser grid", file=sys.stderr)
        return 2

    try:
        written, removed, others = _write_outputs(out, args.command, result, figures)
    except OSError as exc:
        print(f"{prog}: error: --out {_short(str(out))}: {_path_problem(exc)}", file=sys.stderr)
        return 2

    try:
        print(module.summary(result))
        note = _folder_note(out, written, removed, others)
        if note:
            print(note)
        print("wrote " + ", ".join(str(p) for p in written))
        sys.stdout.flush()                   # inside the try: a closed pipe fails here, not at exit
    except BrokenPipeError:
        # the reader of standard output went away (`satdyn ... | head -1`): the files are written;
        # point stdout at /dev/null so the interpreter's final flush cannot fail again
        _silence_stdout()
        return 141
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
