"""`homeworlds replay` as a user runs it: output format and exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from homeworlds.cli import main

GAME = """Homeworlds Online (SDG# 1)
Participants: alice (S), bob (N)
Winner: bob

1) alice: Homeworld Y1 B2 G3

2) bob: Homeworld R1 Y2 G3

3) alice: Build G1 Alice

4) bob: Build G1 Bob
"""


def test_json_line_for_a_legal_game(tmp_path, capsys):
    f = tmp_path / "1.raw"
    f.write_text(GAME)
    assert main(["replay", "--json", str(f)]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record == {"file": "1.raw", "game": 1, "players": ["alice", "bob"], "legal": True,
                      "error": None, "board_end": "none", "end_turn": None,
                      "board_winner": None, "board_winners": [], "rules": "sdg",
                      "alignments": None}


def test_json_line_for_an_illegal_game(tmp_path, capsys):
    f = tmp_path / "2.raw"
    f.write_text(GAME.replace("Build G1 Bob", "Build G2 Bob"))
    assert main(["replay", "--json", str(f)]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["legal"] is False
    assert record["error"]["turn"] == 4 and record["error"]["text"] == "Build G2 Bob"
    assert "smallest green in the bank, g1" in record["error"]["reason"]


def test_readable_output_names_the_reason_and_position(tmp_path, capsys):
    f = tmp_path / "2.raw"
    f.write_text(GAME.replace("Build G1 Bob", "Build G2 Bob"))
    assert main(["replay", str(f)]) == 0
    out = capsys.readouterr().out
    assert "ILLEGAL at turn 4" in out and "bob [r1 y2]" in out


def test_unreadable_file_exits_2_naming_file_and_line(tmp_path, capsys):
    f = tmp_path / "3.raw"
    f.write_text(GAME.replace("3) alice: Build G1 Alice", "3) alice: Bulid G1 Alice"))
    assert main(["replay", "--json", str(f)]) == 2
    err = capsys.readouterr().err
    assert "3.raw" in err and ":9" in err


def test_missing_file_exits_2(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.raw")]) == 2
    assert "nope.raw" in capsys.readouterr().err


def test_archive_game_end_and_winner(shared_dir):
    out = subprocess.run([sys.executable, "-m", "homeworlds", "replay", "--json",
                          str(shared_dir / "games" / "sdg" / "608.raw")],
                         capture_output=True, text=True, check=True).stdout
    record = json.loads(out)
    assert record["players"] == ["Aaron", "MatrixFrog"]
    assert (record["board_end"], record["end_turn"], record["board_winner"]) == (
        "opponent-eliminated", 50, 1)


def test_demo_plays_the_bundled_game_on_the_simulated_table_headless():
    out = subprocess.run([sys.executable, "-m", "homeworlds", "demo", "--speed", "0"],
                         capture_output=True, text=True, check=True, timeout=300).stdout
    assert "3) Aaron: Build G1 Aaron" in out  # the host inferred and recorded the turn
    # (the host names the systems discovered on the table itself)
    assert re.search(r"50\) MatrixFrog: Sacrifice R3 \w+; Attack B1 Aaron", out)
    assert out.rstrip().endswith("game over (opponent-eliminated): MatrixFrog wins")
    assert "bank:" in out and " * y1 b2" in out  # Aaron's home stars on its slot
    assert "[########] Aaron" in out  # the active seat's bar lit at the start


def test_demo_versus_computer_a_simulated_person_carries_out_the_computers_turns():
    out = subprocess.run([sys.executable, "-m", "homeworlds", "demo", "--versus-computer",
                          "--speed", "0", "--turns", "6"],
                         capture_output=True, text=True, check=True, timeout=300).stdout
    # The computer's setup, guided on the lights and committed by the table.
    assert "The computer asks you to: Take a " in out
    assert "The computer asks you to: Hand the turn token to Person" in out
    # The status line counts the steps the lights show.
    assert re.search(r"Computer \(the computer\), step 1 of \d+: Take a ", out)
    assert re.search(r"2\) Computer: Homeworld \w\d \w\d \w\d", out)
    assert re.search(r"6\) Computer: ", out)
    assert out.rstrip().endswith("stopped after 6 turns")
