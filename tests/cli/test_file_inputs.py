"""Bad files and options given to the file commands: exit 2 (or 1) with file:line and the
fix, never a traceback (issue 10)."""

from __future__ import annotations

import json

import pytest

from homeworlds.cli import main
from homeworlds.notation.textfile import MAX_NOTATION_BYTES

GAME = """Homeworlds Online (SDG# 1)
Participants: alice (S), bob (N)

1) alice: Homeworld Y1 B2 G3

2) bob: Homeworld R1 Y2 G3

3) alice: Build G1 Alice
"""
POSITION = "Home0 (0, y1b2) g3-\nHome1 (1, y3b1) -g3\n"


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@pytest.mark.parametrize("command", ["successors", "wins", "replay", "branching"])
def test_non_utf8_file(tmp_path, capsys, command):
    f = tmp_path / "p.cooked"
    f.write_bytes(POSITION.encode() + b"Alpha (b1) r1\xff-\n")
    code, _, err = _run(capsys, command, str(f))
    assert code == 2
    assert "p.cooked:3: not UTF-8 text" in err and "save the file as UTF-8" in err


@pytest.mark.parametrize("command", ["replay", "table-replay"])
def test_huge_number_in_a_transcript(tmp_path, capsys, command):
    f = tmp_path / "g.raw"
    f.write_text(GAME.replace("SDG# 1", "SDG# " + "9" * 5000))
    code, _, err = _run(capsys, command, str(f))
    assert code == 2 and "g.raw:1: game number" in err and "5000 digits" in err
    f.write_text(GAME.replace("3) alice", "3" * 5000 + ") alice"))
    code, _, err = _run(capsys, command, str(f))
    assert code == 2 and "g.raw:8: turn number" in err


@pytest.mark.parametrize("command", ["successors", "wins", "replay"])
def test_huge_number_in_a_position(tmp_path, capsys, command):
    f = tmp_path / "p.cooked"
    f.write_text(POSITION.replace("(1,", "(" + "1" * 5000 + ","))
    code, _, err = _run(capsys, command, str(f))
    assert code == 2 and "p.cooked:2: homeworld owner" in err


@pytest.mark.parametrize("command", ["successors", "wins", "replay"])
def test_system_without_a_name(tmp_path, capsys, command):
    f = tmp_path / "p.cooked"
    f.write_text(POSITION + "(b1) r1-\n")
    code, out, err = _run(capsys, command, str(f))
    assert code == 2 and out == ""
    assert "p.cooked:3: system without a name: '(b1) r1-' (write it as 'Name (b1) r1-')" in err


@pytest.mark.parametrize("command", ["successors", "wins"])
def test_unfinished_setup_is_refused_by_both(tmp_path, capsys, command):
    f = tmp_path / "p.cooked"
    f.write_text("Home0 (0, y1b2) g3-\n")
    code, out, err = _run(capsys, command, str(f))
    assert code == 2 and out == ""
    assert "p.cooked: setup is not finished: no home for seat 1" in err


def test_branching_names_the_file_of_an_unfinished_setup(tmp_path, capsys):
    f = tmp_path / "p.cooked"
    f.write_text("Home0 (0, y1b2) g3-\n")
    code, out, err = _run(capsys, "branching", str(f))
    assert (code, out) == (2, "")
    assert err.startswith(f"homeworlds branching: {f}: setup is not finished")


@pytest.mark.parametrize("command", ["successors", "wins"])
def test_a_position_where_a_player_has_no_ship_at_home_is_over(tmp_path, capsys, command):
    """001 (How to win): "A player is eliminated if, at the end of either player's turn, they
    do not control a ship at their own Homeworld" — seat 0 has none: the game is over (the
    commands used to look for seat 0's turns)."""
    f = tmp_path / "p.cooked"
    f.write_text("Home0 (0, y1b2) -\nHome1 (1, y3b1) r1-g3\n")
    code, out, err = _run(capsys, command, str(f))
    assert (code, out) == (1, "")
    assert err.endswith(": the game is over: seat 0 is out (no ship of its own at home, or no "
                        "home star); seat 1 won\n")


@pytest.mark.parametrize("option", [["--miss-rate", "2"], ["--miss-rate", "-1"],
                                    ["--miss-rate", "nan"], ["--timeout", "0"],
                                    ["--timeout", "-5"], ["--timeout", "inf"]])
def test_table_replay_refuses_out_of_range_options(tmp_path, capsys, option):
    f = tmp_path / "g.raw"
    f.write_text(GAME)
    with pytest.raises(SystemExit) as exit_:
        main(["table-replay", *option, str(f)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option[0]}" in err and "Traceback" not in err


def test_table_replay_that_infers_nothing_is_not_a_success(tmp_path, capsys):
    f = tmp_path / "g.raw"
    f.write_text(GAME)
    code, out, _ = _run(capsys, "table-replay", "--timeout", "0.000001", str(f))
    assert code == 1
    assert "0/3 turns inferred" in out and "stopped: the host did not" in out


@pytest.mark.parametrize("suffix, text", [(".raw", GAME), (".cooked", POSITION)])
def test_oversized_files_are_refused_before_being_read(tmp_path, capsys, suffix, text):
    f = tmp_path / f"big{suffix}"
    with open(f, "w") as fh:
        fh.write(text)
        fh.write("\n" * (MAX_NOTATION_BYTES + 1))
    command = "replay" if suffix == ".raw" else "successors"
    code, _, err = _run(capsys, command, str(f))
    assert code == 2 and f"big{suffix}: larger than 1,048,576 bytes: refused" in err


def test_replay_prints_no_control_characters(tmp_path, capsys):
    f = tmp_path / "g.raw"
    f.write_text(GAME.replace("alice", "al\x1b[2Jice").replace("Build G1 Alice",
                                                                "Build G1 X\x1b]0;pwned\x07"))
    code, out, _ = _run(capsys, "replay", str(f))
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "al\\x1b[2Jice" in out and "X\\x1b]0;pwned\\x07" in out
    code, out, _ = _run(capsys, "replay", "--json", str(f))
    assert json.loads(out)["players"][0] == "al\x1b[2Jice" and "\x1b" not in out


def test_successors_prints_no_control_characters(tmp_path, capsys):
    f = tmp_path / "p.cooked"
    f.write_text("Ho\x1bme0 (0, y1b2) g3-\nHome1 (1, y3b1) -g3\n")
    code, out, _ = _run(capsys, "successors", "--limit", "5", str(f))
    assert code == 0 and "\x1b" not in out and "Ho\\x1bme0" in out


def test_successors_listing_prints_as_it_searches(tmp_path):
    """12,169 successors, most after one sacrifice: the listing holds the positions' keys
    only (about 1.5 MB here), not the turns until their group is done (7.7 MB before)."""
    import argparse
    import contextlib
    import tracemalloc

    from homeworlds.commands import successors

    class Sink:
        lines = 0

        def write(self, text):
            self.lines += text.count("\n")

        def flush(self):
            pass

    f = tmp_path / "p.cooked"
    f.write_text("Home0 (0, y1b2) y3y3-g1\nHome1 (1, g2b3) b1-y2r2\nA (y2) g2b1-\n"
                 "B (b1) r1y1-\nC (r2) g2-\n")
    sink = Sink()
    tracemalloc.start()
    try:
        with contextlib.redirect_stdout(sink):
            assert successors.run(argparse.Namespace(rules="strict", count=False, limit=None,
                                                     position=str(f))) == 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sink.lines == 12169
    assert peak < 4_000_000


@pytest.mark.parametrize("option", [["--miss-rate", "2"], ["--miss-rate", "nan"],
                                    ["--speed", "-1"], ["--speed", "inf"]])
def test_demo_refuses_out_of_range_options(capsys, option):
    with pytest.raises(SystemExit) as exit_:
        main(["demo", *option])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option[0]}" in err and "Traceback" not in err


def test_demo_refuses_a_game_with_control_characters(tmp_path, capsys):
    f = tmp_path / "g.raw"
    f.write_text(GAME.replace("Build G1 Alice", "Build G1 Al\x1b[2Jice"))
    code, out, err = _run(capsys, "demo", "--speed", "0", "--game", str(f))
    assert (code, out) == (2, "")
    assert "g.raw:8: 'Build G1 Al\\x1b[2Jice' contains a control character" in err
    assert "\x1b" not in err
