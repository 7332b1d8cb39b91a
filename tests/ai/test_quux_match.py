"""benchmarks/quux_match.py referees games against the C++ engine's AI. The real program
is not part of CI: ``fake_quux.py`` speaks its protocol (as observed from the real build)
and misbehaves on request."""

from __future__ import annotations

import importlib.util
import stat
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAKE = Path(__file__).resolve().parent / "fake_quux.py"


def _load():
    spec = importlib.util.spec_from_file_location("quux_match", ROOT / "benchmarks"
                                                  / "quux_match.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["quux_match"] = module
    spec.loader.exec_module(module)
    return module


quux_match = _load()


@pytest.fixture
def build(tmp_path, monkeypatch):
    """A QUUX_DIR whose homeworlds-cli is the fake; returns a function setting its plan."""
    program = tmp_path / "homeworlds-cli"
    program.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE} \"$@\"\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "host"))

    def plan(*steps: str) -> Path:
        monkeypatch.setenv("FAKE_QUUX_PLAN", ",".join(steps))
        return quux_match.find_program(tmp_path)
    return plan


def test_a_clean_game_is_refereed_turn_by_turn(build):
    program = build()  # every answer legal
    game = quux_match.play_quux_game(program, 0, player="random", max_turns=8)
    assert game.outcome in quux_match.GAME_OUTCOMES, game.detail
    assert game.seat == 0
    assert game.turns == len(game.turn_log)
    assert len(game.times) + len(game.reference_times) == game.turns
    assert len(game.reference_times) == game.turns // 2  # the C++ side moves second


def test_an_illegal_reference_turn_ends_the_game_with_its_own_verdict(build):
    program = build("illegal")
    game = quux_match.play_quux_game(program, 0, player="random")
    assert game.outcome == "reference-illegal"
    assert game.turns == 1  # our first turn was played, its reply was refused
    assert "turn 2: 'catastrophe red at Player1' is illegal under the strict rules" \
        in game.detail
    assert "position before it:\nPlayer1 (0, " in game.detail


def test_garbage_for_a_turn_is_reported_as_unparseable(build):
    program = build("legal", "garbage")
    game = quux_match.play_quux_game(program, 1, player="random")  # C++ moves first
    assert game.outcome == "reference-unparseable"
    assert "'fly me to the moon' is not a turn in cooked notation" in game.detail


def test_text_that_is_no_answer_at_all_is_reported_as_unparseable(build):
    program = build("noise")
    game = quux_match.play_quux_game(program, 1, player="random")
    assert game.outcome == "reference-unparseable"
    assert "answered ai_move with '*** stack smashing detected ***'" in game.detail


def test_a_program_that_exits_is_a_fault_with_its_status(build):
    program = build("exit")
    game = quux_match.play_quux_game(program, 1, player="random")
    assert game.outcome == "reference-fault"
    assert "exited (status 3)" in game.detail


def test_a_program_that_hangs_is_a_fault_after_the_timeout(build):
    program = build("hang")
    game = quux_match.play_quux_game(program, 1, player="random", timeout=1.0)
    assert game.outcome == "reference-fault"
    assert "no answer to its AI's turn within 1 s" in game.detail


def test_a_turn_the_program_played_differently_from_what_it_said_is_a_mismatch(build):
    program = build("lie")
    game = quux_match.play_quux_game(program, 1, player="random")
    assert game.outcome == "position-mismatch"
    assert "after turn 1 ('pass') the engines disagree" in game.detail
    assert "the C++ engine's:" in game.detail


def test_our_turn_refused_by_the_program_is_a_disagreement(build):
    program = build("refuse")
    game = quux_match.play_quux_game(program, 1, player="random")
    assert game.outcome == "reference-refused"
    assert game.turns == 1
    assert "the C++ engine refused" in game.detail


def test_the_report_counts_faults_apart_from_results(build):
    program = build("legal", "garbage")
    games = quux_match.run_match(program, "random", 2, max_turns=4)
    summary = quux_match.summarize(games)
    assert summary["games"] == 2
    assert sum(summary[k] for k in (*quux_match.GAME_OUTCOMES, *quux_match.FAULTS)) == 2
    lines = quux_match.format_report("random", summary, rules="strict", max_turns=4)
    assert lines[0].startswith("random vs C++ AI (2 games, strict rules, cap 4 turns): ")
    if any(g.outcome in quux_match.FAULTS for g in games):
        assert "reference faults: none" not in lines[2]
    assert any(line.startswith("  think time C++ AI: p50 ") for line in lines)


def test_without_quux_dir_it_says_how_to_get_one_and_succeeds(monkeypatch, capsys):
    monkeypatch.delenv("QUUX_DIR", raising=False)
    assert quux_match.main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("quux_match: skipped: set QUUX_DIR")
    assert "git clone https://github.com/Quuxplusone/Homeworlds" in out


def test_a_quux_dir_without_the_program_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("QUUX_DIR", str(tmp_path))
    assert quux_match.main([]) == 2
    assert f"QUUX_DIR={tmp_path}: no executable homeworlds-cli" in capsys.readouterr().err


def test_the_player_under_test_is_chosen_by_name(monkeypatch, tmp_path):
    monkeypatch.setenv("QUUX_DIR", str(tmp_path))
    with pytest.raises(SystemExit):
        quux_match.main(["--player", "level99"])



def test_the_summary_of_recorded_games():
    def game(index, outcome, turns, material=(0, 0), log=()):
        return quux_match.QuuxGame(index, "level1", index % 2, outcome, turns, (0.5, 1.5),
                                   (0.01,), "", material, log)

    shuttle = ("build g1 at A", "move g1 from A to B", "build y1 at B", "move g1 from B to A")

    summary = quux_match.summarize([
        game(0, "win", 40), game(1, "loss", 60),
        game(2, "unfinished", 150, (30, 3), ("pass",) * 3 + shuttle * 2),
        game(3, "unfinished", 150, (4, 9)), game(4, "reference-illegal", 7)])
    assert (summary["win"], summary["loss"], summary["unfinished"],
            summary["reference-illegal"]) == (1, 1, 2, 1)
    assert summary["unfinished_ahead"] == 1
    assert summary["unfinished_cycling"] == 1
    assert summary["mean_turns"] == 100.0  # faults are not games of a normal length
    assert summary["player_seconds"]["max"] == 1.5 and summary["player_seconds"]["moves"] == 10
    lines = quux_match.format_report("level1", summary, rules="strict", max_turns=150)
    assert "2 unfinished (1 of them ahead in ship material, 1 ending in a four-turn " \
        "cycle)" in lines[0]
    assert summary["by_seat"] == [{"win": 1, "loss": 0, "unfinished": 1},
                                  {"win": 0, "loss": 1, "unfinished": 1}]
    assert lines[1] == ("  moving first: 1 won, 0 lost, 1 unfinished; moving second: 0 won, "
                        "1 lost, 1 unfinished")
    assert lines[2] == "  reference faults: 1 reference-illegal"
    assert lines[-1] == "  game 4: reference-illegal: "


def test_a_run_recorded_to_jsonl_can_be_reported_again(build, tmp_path, monkeypatch, capsys):
    program = build("legal", "garbage")
    monkeypatch.setenv("QUUX_DIR", str(program.parent))
    record = tmp_path / "run.jsonl"
    assert quux_match.main(["--player", "random", "--games", "2", "--max-turns", "6",
                            "--jsonl", str(record)]) == 0
    played = capsys.readouterr().out
    assert sum(1 for line in played.splitlines() if line.startswith("  game ")
               and "(seat " in line) == 2
    assert quux_match.main(["--summarize", str(record), "--max-turns", "6"]) == 0
    again = capsys.readouterr().out
    assert again.splitlines()[0] in played.splitlines()
    record.write_text(record.read_text() + "{not json\n")
    assert quux_match.main(["--summarize", str(record)]) == 2
    assert f"{record}, line 3: not a recorded game" in capsys.readouterr().err
