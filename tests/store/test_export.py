"""Exports: the atomic file write (unique temporary file, no symlink followed, read-only
files not replaced) and the three formats of `homeworlds games export`."""

from __future__ import annotations

import json
import os

import pytest

from homeworlds.cli import main
from homeworlds.notation import read_cooked, read_sdg
from homeworlds.rules import preset
from homeworlds.store import GameRecorder
from homeworlds.store.export import (
    TEMP_PREFIX,
    ExportError,
    remove_stale_temporaries,
    write_atomically,
)

from .helpers import OPENING, PLAYERS, positions, turns_of


def test_the_file_is_replaced_whole_and_no_temporary_is_left(tmp_path):
    target = tmp_path / "game.raw"
    write_atomically(target, "one\n")
    write_atomically(target, "two\n")
    assert target.read_text() == "two\n"
    assert [p.name for p in tmp_path.iterdir()] == ["game.raw"]


def test_a_symlink_is_not_followed(tmp_path):
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me\n")
    link = tmp_path / "game.raw"
    link.symlink_to(victim)
    with pytest.raises(ExportError, match="symbolic link"):
        write_atomically(link, "game\n")
    assert victim.read_text() == "keep me\n" and link.is_symlink()


def test_a_planted_temporary_name_is_not_used(tmp_path):
    """The old writer used `<record>.tmp`, a name anyone could plant as a symlink."""
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me\n")
    (tmp_path / "game.raw.tmp").symlink_to(victim)
    write_atomically(tmp_path / "game.raw", "game\n")
    assert victim.read_text() == "keep me\n"
    assert (tmp_path / "game.raw").read_text() == "game\n"


def test_a_read_only_file_is_not_replaced(tmp_path):
    target = tmp_path / "game.raw"
    target.write_text("old\n")
    os.chmod(target, 0o444)
    with pytest.raises(ExportError, match="read-only"):
        write_atomically(target, "new\n")
    assert target.read_text() == "old\n"


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "game.raw"
    target.write_text("old\n")

    def full(_fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space"):
        write_atomically(target, "new\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["game.raw"]


def test_stale_temporaries_of_a_crash_are_removed(tmp_path):
    (tmp_path / f"{TEMP_PREFIX}game.raw.abc123.tmp").write_text("half")
    (tmp_path / "other.tmp").write_text("not ours")
    remove_stale_temporaries(tmp_path / "game.raw")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.tmp"]


@pytest.fixture
def store_with_a_game(tmp_path):
    path = tmp_path / "games.sqlite"
    recorder = GameRecorder(path, table="club-1", layout="standard-2p")
    recorder.open()
    recorder.start_game(preset("looney"), PLAYERS)
    turns = turns_of(OPENING)
    for number, (turn, state) in enumerate(zip(turns, positions(turns), strict=True), 1):
        recorder.turn(number, (number - 1) % 2, turn, state, PLAYERS, {})
    recorder.finish("resigned", (0,), 1, len(turns))
    recorder.start_game(preset("looney"), PLAYERS)
    recorder.turn(1, 0, turns[0], positions(turns[:1])[0], PLAYERS, {})
    recorder.close()
    return path


def test_games_list_and_show(store_with_a_game, capsys):
    assert main(["games", "--store", str(store_with_a_game), "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert "Ann v Bob" in lines[0] and "6 turns" in lines[0] and "Bob resigned" in lines[0]
    assert "1 turns" in lines[1] and lines[1].endswith("playing")
    assert main(["games", "show", "1", "--store", str(store_with_a_game)]) == 0
    out = capsys.readouterr().out
    assert "   3) Ann: Build G1 Ann" in out
    assert "result: Bob resigned (Ann wins) at " in out and "after turn 6" in out


def test_export_sdg_reads_back_to_the_same_turns(store_with_a_game, capsys):
    assert main(["games", "--store", str(store_with_a_game), "export", "1"]) == 0
    game = read_sdg(capsys.readouterr().out)
    assert [t.actions for t in game.turns] == turns_of(OPENING)
    assert game.winner == "Ann" and game.number == 1


def test_export_cooked_is_the_position_after_setup_and_the_turns(store_with_a_game, capsys):
    assert main(["games", "--store", str(store_with_a_game), "export", "1",
                 "--format", "cooked"]) == 0
    cooked = read_cooked(capsys.readouterr().out)
    assert [s.name for s in cooked.systems] == ["Ann", "Bob"]
    assert list(cooked.turns) == turns_of(OPENING)[2:]


def test_export_json_to_a_file(store_with_a_game, tmp_path):
    out = tmp_path / "game1.json"
    assert main(["games", "--store", str(store_with_a_game), "export", "1", "--format",
                 "json", "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["status"] == "resigned"
    assert data["result"]["by"] == "Bob" and data["result"]["winners"] == ["Ann"]
    assert [t["sdg"] for t in data["turns"]] == [[t] for t in OPENING]
    assert data["players"][0] == {"seat": 0, "name": "Ann", "alignment": None}


def test_games_says_what_is_wrong(tmp_path, store_with_a_game, capsys):
    assert main(["games", "--store", str(tmp_path / "none.sqlite"), "list"]) == 2
    assert "no game store at" in capsys.readouterr().err
    assert main(["games", "--store", str(store_with_a_game), "show", "9"]) == 2
    assert "no game 9" in capsys.readouterr().err
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"garbage" * 100)
    assert main(["games", "--store", str(bad), "list"]) == 2
    assert "not a readable game store" in capsys.readouterr().err
    assert bad.read_bytes() == b"garbage" * 100


def test_games_abandon_ends_an_unfinished_game_only(store_with_a_game, capsys):
    assert main(["games", "--store", str(store_with_a_game), "abandon", "1"]) == 2
    assert "never changed" in capsys.readouterr().err
    assert main(["games", "--store", str(store_with_a_game), "abandon", "2"]) == 0
    assert capsys.readouterr().out == "game 2 abandoned after 1 turns\n"
    main(["games", "--store", str(store_with_a_game), "list"])
    assert capsys.readouterr().out.splitlines()[1].endswith("abandoned")


def test_export_sdg_names_the_games_handicaps(tmp_path, capsys):
    """000 (NOVICE VS. EXPERT): "The Junior Officer is given one chance" — a game stored
    with Brain Transference is exported with its Handicaps: header, so that it replays."""
    from homeworlds.rules import BrainTransference, GameState
    from homeworlds.store.records import turn_from_sdg

    rules = preset("looney").with_handicaps(brain_transference=True)
    path = tmp_path / "games.sqlite"
    recorder = GameRecorder(path, table="t1", layout="standard-2p")
    recorder.open()
    recorder.start_game(rules, PLAYERS)
    state = GameState(rules)
    turns = [turn_from_sdg(t, k % 2, PLAYERS) for k, t in enumerate(
        ["Homeworld G1 B2 Y3", "Homeworld R1 Y2 G3", f"Build Y1 {PLAYERS[0]}"])]
    turns.append((BrainTransference(),))
    for number, turn in enumerate(turns, start=1):
        seat = state.to_move
        state.push(turn)
        recorder.turn(number, seat, turn, state.copy(), PLAYERS, {})
    recorder.close()
    assert main(["games", "--store", str(path), "export", "1"]) == 0
    text = capsys.readouterr().out
    assert f"Handicaps: {PLAYERS[1]} (junior), brain transference" in text
    game = read_sdg(text)
    assert game.handicaps == rules.handicaps and game.turns[-1].actions == (BrainTransference(),)
