"""`satdyn assembly` command: error paths (fast) and the F_27 example end to end (slow).

The slow test checks the paper's structural numbers on our models (7 moves, 98 grid
points, J_Dijkstra <= J_BFS for every cost) and that results.json and the figures are
written; the paper's percentages are reported by the command, never asserted.
"""

import json

import pytest

from satdyn.cli import SUBCOMMANDS, main


def test_registered():
    assert SUBCOMMANDS["assembly"] == "satdyn.cli.assembly"


def _closed_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]          # nothing listens there once the socket is closed


@pytest.mark.parametrize("argv, match", [
    (["--hard", "nope=1"], "--hard"),
    (["--hard", "mu=x"], "VALUE"),
    (["--hard", "mu=nan"], "switch the constraint off"),        # nan > x is never true: no constraint
    (["--hard", "mu=infdB"], "switch the constraint off"),
    (["--hard", "mu=inf"], "switch the constraint off"),
    (["--hard", "mu=-1"], "positive"),
    (["--hard", "mu=1", "--hard", "mu=2"], "twice"),
    (["--workers", "0"], "--workers"),
    (["--last", "3"], "--last applies only to --full"),
    (["--cache", "{tmp}/c", "--no-cache"], "--no-cache"),
    (["--cache", "{tmp}/afile"], "is not a folder"),
    (["--scheduler", "tcp://127.0.0.1:{port}"], "cannot reach the Dask scheduler"),
    (["--scheduler", "tcp://127.0.0.1:{port}", "--workers", "2"], "--workers applies"),
    (["--layout", "C"], "--layout"),
])
def test_cli_bad_input(tmp_path, capsys, argv, match):
    # refused before any work, in one line naming the option (exit status 2)
    (tmp_path / "afile").write_text("x")
    out = tmp_path / "out"
    argv = [a.format(tmp=tmp_path, port=_closed_port()) for a in argv]
    assert main(["assembly", "--out", str(out), "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert match in err and len(err.strip().splitlines()) == 1
    assert not out.exists()                       # no results, no cache: nothing started


def test_hard_thresholds_parse_db():
    # x dB of a gain is 10^(x/20) in linear units (-20 dB = 0.1)
    from satdyn.cli.assembly import _thresholds

    assert _thresholds(["hinf_wrench=-20dB", "mu=1"]) == {"hinf_wrench": pytest.approx(0.1, rel=1e-15), "mu": 1.0}


def test_cli_bad_cost_choice(tmp_path, capsys):
    # the frame turns argparse errors into exit status 2 with the option named
    assert main(["assembly", "--out", str(tmp_path), "--cost", "h3"]) == 2
    assert "--cost" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_layout_a_end_to_end(tmp_path):
    # --layout A on graphs and models alike (~20 s of CPU for one cost): the F_27 walk
    # still takes 7 moves, and results.json carries layout A's tile centres
    import numpy as np

    from satdyn.missions.assembly.layout import tile_layout

    assert main(["assembly", "--layout", "A", "--cost", "hinf_wrench", "--out", str(tmp_path), "--quiet",
                 "--workers", "2"]) == 0
    res = json.loads((tmp_path / "results.json").read_text())
    assert res["layout"] == "A"
    np.testing.assert_array_equal(np.array(res["centres"]), tile_layout("A").centres)
    comp = res["comparisons"]["hinf_wrench"]
    assert comp["bfs"]["hops"] == 7
    assert comp["weighted"]["cumulative"] <= comp["bfs"]["cumulative"] * (1 + 1e-12)


@pytest.mark.slow
def test_cli_example_end_to_end(tmp_path):
    assert main(["assembly", "--example", "--out", str(tmp_path), "--quiet", "--workers", "2"]) == 0
    res = json.loads((tmp_path / "results.json").read_text())
    assert res["closed_loops"] == 14 * res["edges_evaluated"]
    for comp in res["comparisons"].values():
        assert comp["bfs"]["hops"] == 7
        assert len(comp["bfs"]["trace"]) == 98
        assert comp["weighted"]["cumulative"] <= comp["bfs"]["cumulative"] * (1 + 1e-12)
    for name in ("traces", "plan", "sigma"):
        assert (tmp_path / f"{name}.png").stat().st_size > 0
