"""The branching, successors and wins commands."""

from __future__ import annotations

import argparse
import json

from homeworlds.commands import branching, successors, wins
from homeworlds.notation import parse_sdg_action


def test_branching_prints_the_reference_counts(shared, branching_factors, capsys):
    for game in ("1002", "10020", "1001"):
        code = branching.run(argparse.Namespace(
            rules="strict", game=str(shared / "games" / "cooked" / f"{game}.cooked")))
        assert code == 0
        assert json.loads(capsys.readouterr().out) == branching_factors[game]


def test_branching_reports_bad_files(tmp_path, capsys):
    bad = tmp_path / "bad.cooked"
    bad.write_text("Home0 (0, y1b2) g3-\nHome1 (1, y3b1) -g3\nbuild g9 at Home0\n")
    assert branching.run(argparse.Namespace(rules="strict", game=str(bad))) == 2
    err = capsys.readouterr().err
    assert "bad.cooked:3" in err
    illegal = tmp_path / "illegal.cooked"
    illegal.write_text("Home0 (0, y1b2) g3-\nHome1 (1, y3b1) -g3\ncapture g3 at Home1\n")
    assert branching.run(argparse.Namespace(rules="strict", game=str(illegal))) == 2
    assert "turn 1 is illegal" in capsys.readouterr().err
    assert branching.run(argparse.Namespace(rules="strict", game=str(tmp_path / "none"))) == 2
    assert "none" in capsys.readouterr().err


def test_successors_count_and_listing(shared, capsys):
    perf = str(shared / "positions" / "perf" / "perf-27635-moves.txt")
    assert successors.run(argparse.Namespace(rules="strict", count=True, limit=None,
                                             position=perf)) == 0
    assert capsys.readouterr().out.strip() == "27635"
    simple = str(shared / "positions" / "win-in-one" / "nowin-trivial-1.txt")
    assert successors.run(argparse.Namespace(rules="strict", count=False, limit=None,
                                             position=simple)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert successors.run(argparse.Namespace(rules="strict", count=True, limit=None,
                                             position=simple)) == 0
    assert len(lines) == int(capsys.readouterr().out)
    assert lines[0] == "Pass"
    for line in lines:
        for part in line.split("; "):
            parse_sdg_action(part)
    assert successors.run(argparse.Namespace(rules="strict", count=False, limit=2,
                                             position=simple)) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_wins(shared, capsys):
    folder = shared / "positions" / "win-in-one"
    assert wins.run(argparse.Namespace(rules="strict",
                                       position=str(folder / "win-by-build.txt"))) == 0
    assert capsys.readouterr().out.strip() == "win: Build B1 Player2; Catastrophe Player2 Blue"
    assert wins.run(argparse.Namespace(
        rules="strict", position=str(folder / "nowin-by-temporarily-abandon-homeworld.txt"))) == 0
    assert capsys.readouterr().out.strip() == "nowin"
    assert wins.run(argparse.Namespace(
        rules="looney", position=str(folder / "nowin-by-temporarily-abandon-homeworld.txt"))) == 0
    assert capsys.readouterr().out.startswith("win: ")


def test_commands_register_parsers():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    for module in (branching, successors, wins):
        module.register(sub)
    args = parser.parse_args(["successors", "--count", "--rules", "looney", "pos.txt"])
    assert args.func is successors.run and args.rules == "looney" and args.count
    args = parser.parse_args(["branching", "g.cooked"])
    assert args.rules == "strict" and args.func is branching.run
    args = parser.parse_args(["wins", "p.txt"])
    assert args.func is wins.run


def test_successors_of_a_game_file_count_after_its_turns(shared, branching_factors, capsys):
    game = shared / "games" / "cooked" / "1002.cooked"
    assert successors.run(argparse.Namespace(rules="strict", count=True, limit=None,
                                             position=str(game))) == 0
    assert int(capsys.readouterr().out) == branching_factors["1002"][-1]


def test_bad_arguments(shared, tmp_path, capsys):
    simple = str(shared / "positions" / "win-in-one" / "nowin-trivial-1.txt")
    assert successors.run(argparse.Namespace(rules="strict", count=False, limit=-1,
                                             position=simple)) == 2
    assert "--limit" in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing here\n")
    assert wins.run(argparse.Namespace(rules="strict", position=str(empty))) == 2
    assert "no position" in capsys.readouterr().err
