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


@pytest.mark.parametrize("argv, match", [
    (["--hard", "nope=1"], "--hard"),
    (["--hard", "mu=x"], "VALUE"),
    (["--workers", "0"], "--workers"),
])
def test_cli_bad_input(tmp_path, capsys, argv, match):
    assert main(["assembly", "--out", str(tmp_path), "--quiet", *argv]) == 2
    assert match in capsys.readouterr().err


def test_hard_thresholds_parse_db():
    # x dB of a gain is 10^(x/20) in linear units (-20 dB = 0.1)
    from satdyn.cli.assembly import _thresholds

    assert _thresholds(["hinf_wrench=-20dB", "mu=1"]) == {"hinf_wrench": pytest.approx(0.1, rel=1e-15), "mu": 1.0}


def test_cli_bad_cost_choice(tmp_path, capsys):
    # the frame turns argparse errors into exit status 2 with the option named
    assert main(["assembly", "--out", str(tmp_path), "--cost", "h3"]) == 2
    assert "--cost" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_example_end_to_end(tmp_path):
    assert main(["assembly", "--example", "--out", str(tmp_path), "--quiet", "--workers", "2"]) == 0
    res = json.loads((tmp_path / "results.json").read_text())
    assert res["closed_loops"] == 14 * res["edges_evaluated"]
    for cost, comp in res["comparisons"].items():
        assert comp["bfs"]["hops"] == 7
        assert len(comp["bfs"]["trace"]) == 98
        assert comp["weighted"]["cumulative"] <= comp["bfs"]["cumulative"] * (1 + 1e-12)
    for name in ("traces", "plan", "sigma"):
        assert (tmp_path / f"{name}.png").stat().st_size > 0
