"""Hostile command lines: the `satdyn` command's rule "one line, status 2, before any work".

Each case is a command line that once ended in a traceback (MemoryError, RecursionError,
OverflowError, ZeroDivisionError, an OSError of a path, a non-UTF-8 file) or in hours of work
before a refusal. The oracle is the CLI's documented contract (docstring of satdyn.cli): exit
status 2, exactly one line on standard error starting with ``satdyn <study>: error:`` that names
the offending option (or file), no traceback, and no study work: each subcommand's ``run`` is
replaced by a function that fails the test, except for ``satdyn model FILE``, whose file is read
inside ``run`` -- there the analyses that follow the reading fail the test instead.

A few cases run in a subprocess (the installed entry point, with the interpreter's own handling of
uncaught exceptions), the rest in-process through ``satdyn.cli.main``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from satdyn import cli

DATA = Path(cli.__file__).resolve().parents[1] / "data"


def _entry_point_env() -> dict[str, str]:
    """Environment of a `python -m satdyn` subprocess running this checkout's satdyn."""
    return {"PYTHONPATH": str(Path(cli.__file__).resolve().parents[2]), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def _files(tmp: Path) -> dict[str, str]:
    """Hostile inputs, written once per test under ``tmp``; keys are the placeholders of CASES."""
    (tmp / "deep.json").write_text("[" * 100_000 + "]" * 100_000)          # RecursionError in json/yaml
    (tmp / "deep.yaml").write_text("a: " + "[" * 100_000 + "]" * 100_000)
    (tmp / "binary.yaml").write_bytes(bytes(range(256)) * 8)                # not text at all
    (tmp / "latin1.yaml").write_bytes("satdyn_model: 1\nname: caf\u00e9\n".encode("latin-1"))
    (tmp / "bigint.json").write_text('{"hub": {"mass": ' + "9" * 5000 + "}}")  # int() digit limit
    (tmp / "afile").write_text("not a folder\n")
    (tmp / "adir.yaml").mkdir()
    (tmp / "dangling").symlink_to(tmp / "nowhere")
    (tmp / "cached").mkdir()
    (tmp / "cached" / "cache").write_text("a file where the assembly cache folder goes\n")
    scenario = json.loads((DATA / "detumbling" / "paper_table1.json").read_text())
    scenario["simulation"]["sample_dt"] = 1e-300                            # 3e301 recorded samples
    (tmp / "tiny_dt.json").write_text(json.dumps(scenario))
    shutil.copy(DATA / "models" / "telecom.yaml", tmp / "telecom.yaml")
    shutil.copy(DATA / "models" / "telecom_antenna_modes.csv", tmp / "telecom_antenna_modes.csv")
    return {"{deep_json}": str(tmp / "deep.json"), "{deep_yaml}": str(tmp / "deep.yaml"),
            "{binary}": str(tmp / "binary.yaml"), "{latin1}": str(tmp / "latin1.yaml"),
            "{bigint}": str(tmp / "bigint.json"), "{file}": str(tmp / "afile"), "{dir}": str(tmp / "adir.yaml"),
            "{dangling}": str(tmp / "dangling"), "{cached}": str(tmp / "cached"),
            "{tiny_dt}": str(tmp / "tiny_dt.json"), "{telecom}": str(tmp / "telecom.yaml"),
            "{long_name}": str(tmp / ("x" * 300)), "{long_path}": str(tmp / "/".join(["abcdefgh"] * 600)),
            "{long_json}": str(tmp / ("y" * 300 + ".json"))}


# (command line, text the one line must contain: the option or the file)
CASES = [
    # demo: sizes, overflowing frequencies, worker counts, hostile scenario files, --out folders
    (["demo", "--hub-arrays", "--samples", "1000000000000"], "--samples"),
    (["demo", "--hub-arrays", "--bandwidth", "1e300"], "--bandwidth"),
    (["demo", "--hub-arrays", "--rolloff", "1e-300"], "--rolloff"),
    (["demo", "--workers", "1000000000"], "--workers"),
    (["demo", "--hub-arrays", "--seed", "9" * 5000], "--seed"),
    (["demo", "--rigid", "--scenario", "{deep_json}"], "--scenario"),
    (["demo", "--rigid", "--scenario", "/dev/zero"], "--scenario"),
    (["demo", "--rigid", "--scenario", "{binary}"], "--scenario"),
    (["demo", "--rigid", "--scenario", "{bigint}"], "--scenario"),
    (["demo", "--rigid", "--scenario", "{long_json}"], "--scenario"),
    (["demo", "--rigid", "--out", "{file}"], "--out"),
    (["demo", "--rigid", "--out", "{dangling}"], "--out"),
    (["demo", "--rigid", "--out", "{long_name}"], "--out"),
    (["demo", "--rigid", "--out", "{long_path}"], "--out"),
    (["demo", "--rigid", "--out", "bad\0name"], "--out"),
    (["demo", "--out", "{cached}"], "--out"),
    # detumbling: horizons over the recording step, tug ranges, hostile scenarios
    (["detumbling", "--duration", "1e300"], "--duration"),
    (["detumbling", "--duration", "1e5"], "--duration"),
    (["detumbling", "--scenario", "{tiny_dt}"], "--scenario"),
    (["detumbling", "--scenario", "{deep_json}"], "--scenario"),
    (["detumbling", "--tug-limits", "--tug-mass", "1e300"], "--tug-mass"),
    (["detumbling", "--tug-limits", "--max-thrust", "1e-300"], "--max-thrust"),
    (["detumbling", "--tug-limits", "--thruster-arm", "1e300"], "--thruster-arm"),
    # equilibrium: grid step (1e-300: OverflowError / 'Maximum allowed size'), samples, gravity
    (["equilibrium", "--step", "1e-300"], "--step"),
    (["equilibrium", "--step", "1e-9"], "--step"),
    (["equilibrium", "--samples", "1000000000000"], "--samples"),
    (["equilibrium", "--g0", "1e300"], "--g0"),
    # fe: mesh density, mode count, tile and port numbers
    (["fe", "--elements-per-edge", "100000"], "--elements-per-edge"),
    (["fe", "--modes", "1000000000"], "--modes"),
    (["fe", "--tiles", "1000000000"], "--tiles"),
    (["fe", "--ports", "99"], "--ports"),
    (["fe", "--tiles", "3", "--ports", "5"], "--ports"),
    # freefloating: recording step and settle time, tolerance, hostile system files
    (["freefloating", "--sample-dt", "1e-300"], "--sample-dt"),
    (["freefloating", "--sample-dt", "1e-6"], "--sample-dt"),
    (["freefloating", "--settle", "1e300"], "--settle"),
    (["freefloating", "--rtol", "1e-300"], "--rtol"),
    (["freefloating", "--systems", "{deep_json}"], "--systems"),
    (["freefloating", "--systems", "/dev/zero"], "--systems"),
    (["freefloating", "--systems", "{long_json}"], "--systems"),
    # model: size options and values (refused before the file is read)
    (["model", "{telecom}", "--samples", "1000000000000"], "--samples"),
    (["model", "{telecom}", "--grid", "1000000"], "--grid"),
    (["model", "{telecom}", "--seed", "-1"], "--seed"),
    (["model", "{telecom}", "--at", "sada_angle=inf"], "--at"),
    (["model", "{telecom}", "--at", "=1"], "--at"),
    (["model", "{dir}"], "FILE"),
    (["model", "/dev/zero"], "FILE"),
]

# model files whose problem is found by reading them (inside `run`): the line names the file
MODEL_FILES = ["{binary}", "{latin1}", "{deep_yaml}", "{deep_json}"]


def _substitute(argv, files):
    return [files.get(a, a) for a in argv]


def _never(*args, **kwargs):
    raise AssertionError("the study started before the input was refused")


def _assert_one_line_error(status, err, study, name):
    lines = err.strip().splitlines()
    assert status == 2, err
    assert len(lines) == 1, err[:2000]
    assert lines[0].startswith(f"satdyn {study}: error:"), lines[0]
    assert name in lines[0], lines[0]
    assert "Traceback" not in err


@pytest.mark.parametrize("argv, name", CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_hostile_option_is_one_line_before_any_work(argv, name, tmp_path, capsys, monkeypatch):
    files = _files(tmp_path)
    argv = _substitute(argv, files)
    out = [] if "--out" in argv else ["--out", str(tmp_path / "out")]
    for module_name in cli.SUBCOMMANDS.values():
        monkeypatch.setattr(__import__(module_name, fromlist=["run"]), "run", _never)
    status = cli.main(argv + out)
    _assert_one_line_error(status, capsys.readouterr().err, argv[0], files.get(name, name))
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("placeholder", MODEL_FILES)
def test_unreadable_model_file_is_named_in_one_line(placeholder, tmp_path, capsys, monkeypatch):
    import satdyn.robust as robust

    files = _files(tmp_path)
    for analysis in ("uncertain_frequency_response", "robust_stability", "worst_case_gain", "loop_margins"):
        monkeypatch.setattr(robust, analysis, _never)
    status = cli.main(["model", files[placeholder], "--quiet", "--out", str(tmp_path / "out")])
    _assert_one_line_error(status, capsys.readouterr().err, "model", Path(files[placeholder]).name)


def test_nan_controller_gain_is_refused_before_the_analyses(tmp_path, capsys, monkeypatch):
    # a NaN gain once reached the closed loop as numpy.linalg.LinAlgError after the singular values;
    # the model reader refuses non-finite numbers, naming file and key, before any analysis
    import satdyn.robust as robust

    files = _files(tmp_path)
    text = Path(files["{telecom}"]).read_text()
    assert "kp: [35.84, 35.84, 35.84]" in text
    bad = tmp_path / "nan_gain.yaml"
    bad.write_text(text.replace("kp: [35.84, 35.84, 35.84]", "kp: [.nan, 35.84, 35.84]"))
    from satdyn.io import load_model

    try:
        load_model(bad)
    except ValueError:
        pass
    else:
        pytest.skip("this satdyn's model reader does not yet refuse non-finite numbers (io)")
    for analysis in ("uncertain_frequency_response", "robust_stability", "worst_case_gain", "loop_margins"):
        monkeypatch.setattr(robust, analysis, _never)
    status = cli.main(["model", str(bad), "--quiet", "--out", str(tmp_path / "out")])
    _assert_one_line_error(status, capsys.readouterr().err, "model", "nan_gain.yaml")


def test_out_of_memory_in_a_study_is_one_line(tmp_path, capsys, monkeypatch):
    # the frame's net: a MemoryError the caps did not foresee is reported, not a traceback
    import satdyn.cli.demo as demo_cli

    def greedy(args):
        raise MemoryError("Unable to allocate 7.28 TiB for an array with shape (1000000000000,)")

    monkeypatch.setattr(demo_cli, "run", greedy)
    assert cli.main(["demo", "--rigid", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("satdyn demo: error: not enough memory")


def test_a_multi_line_message_is_printed_on_one_line(tmp_path, capsys, monkeypatch):
    import satdyn.cli.demo as demo_cli

    def two_lines(args):
        raise ValueError("first line\nsecond line")

    monkeypatch.setattr(demo_cli, "run", two_lines)
    assert cli.main(["demo", "--rigid", "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == "satdyn demo: error: first line second line\n"


# ------------------------------------------------------------------------------------------
# reusing an --out folder: the previous run's files go, the user's stay
# ------------------------------------------------------------------------------------------
def test_reused_out_folder_drops_the_previous_runs_files_only(tmp_path, capsys, monkeypatch):
    import satdyn.cli.demo as demo_cli

    out = tmp_path / "out"
    original = demo_cli.figures

    def with_extra_figure(result):          # a first study with one more figure than the second
        figures = original(result)
        figures["extra_figure"] = next(iter(figures.values()))
        return figures

    monkeypatch.setattr(demo_cli, "figures", with_extra_figure)
    assert cli.main(["demo", "--rigid", "--quiet", "--angles", "0", "--out", str(out)]) == 0
    manifest = json.loads((out / cli.MANIFEST).read_text())
    assert manifest["study"] == "demo"
    assert sorted(manifest["files"]) == ["com_vs_angle.png", "extra_figure.png", "inertia_vs_angle.png",
                                         "results.json"]
    (out / "notes.txt").write_text("the user's own notes\n")
    (out / "mine.png").write_bytes(b"the user's own figure")
    capsys.readouterr()

    monkeypatch.setattr(demo_cli, "figures", original)
    assert cli.main(["demo", "--rigid", "--quiet", "--angles", "0", "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert "1 of them not written again (extra_figure.png)" in stdout
    assert not (out / "extra_figure.png").exists()                       # the stale figure is gone
    assert (out / "notes.txt").exists() and (out / "mine.png").exists()  # never the user's files
    assert "cleared the previous run" in stdout and "extra_figure.png" in stdout
    assert "left 2 other files alone" in stdout
    assert sorted(json.loads((out / cli.MANIFEST).read_text())["files"]) == [
        "com_vs_angle.png", "inertia_vs_angle.png", "results.json"]
    # a third run writes the same files: it says it replaced them
    assert cli.main(["demo", "--rigid", "--quiet", "--angles", "0", "--out", str(out)]) == 0
    assert "replaced the previous run's files" in capsys.readouterr().out


def test_an_edited_manifest_never_removes_files_outside_the_folder_or_of_other_kinds(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "outside.png").write_bytes(b"x")
    (out / "notes.txt").write_text("x")
    (out / "old.png").write_bytes(b"x")
    (out / cli.MANIFEST).write_text(json.dumps({"study": "demo", "files": [
        "../outside.png", str(tmp_path / "outside.png"), "notes.txt", "old.png", "."]}))
    assert cli.main(["demo", "--rigid", "--quiet", "--angles", "0", "--out", str(out)]) == 0
    assert (tmp_path / "outside.png").exists() and (out / "notes.txt").exists()
    assert not (out / "old.png").exists()
    assert "1 of them not written again (old.png)" in capsys.readouterr().out


# ------------------------------------------------------------------------------------------
# the installed entry point (uncaught exceptions would print the interpreter's traceback)
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, name", [
    (["equilibrium", "--step", "1e-300"], "--step"),
    (["model", "{binary}"], "binary.yaml"),
])
def test_hostile_lines_through_the_console_entry_point(argv, name, tmp_path):
    files = _files(tmp_path)
    argv = _substitute(argv, files)
    out = [] if "--out" in argv else ["--out", str(tmp_path / "out")]
    done = subprocess.run([sys.executable, "-m", "satdyn", *argv, "--quiet", *out], capture_output=True,
                          text=True, env=_entry_point_env(), timeout=300)
    _assert_one_line_error(done.returncode, done.stderr, argv[0], name)


def test_a_folder_without_manifest_keeps_its_files_and_says_so(tmp_path, capsys):
    # a folder from before the manifest (or the user's own): nothing in it is removed
    out = tmp_path / "out"
    out.mkdir()
    (out / "old_figure.png").write_bytes(b"x")
    assert cli.main(["demo", "--rigid", "--quiet", "--angles", "0", "--out", str(out)]) == 0
    assert (out / "old_figure.png").exists()
    assert "1 files this run did not write (old_figure.png): left as they are" in capsys.readouterr().out


def test_closed_standard_output_is_status_141_without_traceback(tmp_path):
    # `satdyn demo --rigid | true`: the reader is gone before the summary is printed. The files are
    # written; the command ends with 128 + SIGPIPE, as a shell reports a process killed by SIGPIPE,
    # and without the interpreter's BrokenPipeError traceback (the pipe's read end is closed first)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "satdyn", "demo", "--rigid", "--quiet", "--angles", "0",
                               "--out", str(tmp_path / "out")], stdout=write_end, stderr=subprocess.PIPE,
                              text=True, env=_entry_point_env(), timeout=300)
    finally:
        os.close(write_end)
    assert done.returncode == 141, done.stderr
    assert done.stderr == ""
    assert (tmp_path / "out" / "results.json").exists()


def test_interrupt_while_reading_an_input_file_is_one_line_and_130(tmp_path, capsys, monkeypatch):
    # Ctrl-C before the subcommand's study (here: while --scenario is read at parse time) is the
    # same one line and status 130 as during the study
    import satdyn.cli as frame

    def interrupted(text):
        raise KeyboardInterrupt

    monkeypatch.setattr(frame, "input_file", interrupted)
    scenario = tmp_path / "scenario.json"
    scenario.write_text("{}")
    assert cli.main(["demo", "--rigid", "--scenario", str(scenario), "--out", str(tmp_path / "out")]) == 130
    assert capsys.readouterr().err == "satdyn: interrupted\n"
