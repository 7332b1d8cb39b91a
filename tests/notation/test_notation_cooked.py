"""The C++ engine's cooked format: systems, turns, test-suite extras, errors, archive."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeworlds.notation import (
    CookedGame,
    CookedSystem,
    format_cooked_turn,
    parse_cooked_turn,
    read_cooked,
    read_cooked_file,
    write_cooked,
    write_position,
)
from homeworlds.notation.cooked import parse_pieces
from homeworlds.rules import (
    BrainTransference,
    Build,
    Capture,
    Catastrophe,
    Color,
    Discover,
    Homeworld,
    InvalidNotation,
    Move,
    Pass,
    Piece,
    Sacrifice,
    SetupPick,
    Trade,
)

P = Piece.from_text

GAME = """\
Evilaxe (0, y2b1) g3-
Mrstickman (1, b3g2) -y3
Alpha (b1) r1r1-y2
build g1 at Evilaxe
move g3 from Evilaxe to Lorem (b1)
sacrifice y1 at Evilaxe; move g1 from New_Derbyshire to Lorem; catastrophe green at Lorem
convert y1 to b1 at Mrstickman
capture g1 at Lorem
pass
"""


def test_systems():
    game = read_cooked(GAME, source="1001.cooked")
    evilaxe, mrstickman, alpha = game.systems
    assert evilaxe == CookedSystem("Evilaxe", 0, (P("y2"), P("b1")), ((P("g3"),), ()))
    assert mrstickman == CookedSystem("Mrstickman", 1, (P("b3"), P("g2")), ((), (P("y3"),)))
    assert alpha == CookedSystem("Alpha", None, (P("b1"),), ((P("r1"), P("r1")), (P("y2"),)))
    assert game.source == "1001.cooked"


def test_turns():
    game = read_cooked(GAME)
    assert game.turns == (
        (Build(P("g1"), "Evilaxe"),),
        (Discover(P("g3"), "Evilaxe", P("b1"), "Lorem"),),
        (Sacrifice(P("y1"), "Evilaxe"), Move(P("g1"), "New_Derbyshire", "Lorem"),
         Catastrophe("Lorem", Color.GREEN)),
        (Trade(P("y1"), P("b1"), "Mrstickman"),),
        (Capture(P("g1"), "Lorem"),),
        (Pass(),),
    )


def test_write_is_the_text_read():
    game = read_cooked(GAME)
    assert write_cooked(game) == GAME
    assert CookedGame.from_text(game.to_text()) == game
    assert write_position(game.systems) == "".join(GAME.splitlines(keepends=True)[:3])


def test_system_text_round_trip_and_nameless_system():
    system = CookedSystem.from_text("(b1) g1-")
    assert system == CookedSystem("", None, (P("b1"),), ((P("g1"),), ()))
    assert system.to_text() == "(b1) g1-"
    assert str(CookedSystem.from_text("Earth (0, g1b3) r1y2b1y3-b2b3")) == (
        "Earth (0, g1b3) r1y2b1y3-b2b3")


def test_position_file_extras():
    text = """\
# Player1 needs to eliminate his red overpopulation
#
Player1 (0, r3) r2r2r3-r1

Player2 (1, b3) b3-g3g3b2b1b1
LEGAL sacrifice r3; capture g3g3 at Player2
ILLEGAL catastrophe red at Player1
AMBIG sacrifice
count_moves
"""
    game = read_cooked(text)
    assert len(game.systems) == 2
    assert game.turns == ()
    assert game.samples == (("LEGAL", "sacrifice r3; capture g3g3 at Player2"),
                            ("ILLEGAL", "catastrophe red at Player1"), ("AMBIG", "sacrifice"))
    assert game.commands == ("count_moves",)
    assert game.comments == ("Player1 needs to eliminate his red overpopulation", "")
    assert write_cooked(game) == text.replace("\n\n", "\n")


def test_systems_named_like_keywords_and_verdicts():
    text = "Build (0, g1b2) y3-\nLEGAL (1, r1b2) -g3\nbuild g1 at Build\n"
    game = read_cooked(text)
    assert [s.name for s in game.systems] == ["Build", "LEGAL"]
    assert game.turns == ((Build(P("g1"), "Build"),),)


def test_format_turn():
    assert format_cooked_turn([Pass()]) == "pass"
    # A given-up sacrifice action has no cooked word: it is left out.
    assert format_cooked_turn([Sacrifice(P("g2"), "A"), Build(P("g1"), "A"), Pass()]) == (
        "sacrifice g2 at A; build g1 at A")
    assert format_cooked_turn([Capture(P("y1"), "Home", 1)]) == "capture y1 at Home"
    assert parse_cooked_turn("Build G1 at Home") == (Build(P("g1"), "Home"),)
    assert parse_cooked_turn("build g1 at A;build g2 at A") == (Build(P("g1"), "A"),
                                                                 Build(P("g2"), "A"))
    with pytest.raises(InvalidNotation, match="no setup action"):
        format_cooked_turn([Homeworld((P("g1"),), P("y3"), "Me")])
    with pytest.raises(InvalidNotation, match="no setup action"):
        format_cooked_turn([SetupPick(P("g1"), "star", "Me")])
    with pytest.raises(InvalidNotation, match="has no Brain Transference: write the game in "
                       "SDG notation"):
        format_cooked_turn([BrainTransference()])
    with pytest.raises(InvalidNotation, match="cannot be written"):
        format_cooked_turn([Build(P("g1"), "Big Red")])
    with pytest.raises(InvalidNotation, match="at least one action"):
        format_cooked_turn([])


@pytest.mark.parametrize(("text", "message"), [
    ("build g1 on Home", "not a cooked action"),
    ("build x1 at Home", "'x1' is not a piece"),
    ("catastrophe pink at Home", "'pink' is not a colour"),
    ("build g1 at Home; ; pass", "empty action"),
    ("sacrifice g1 at Home; pass", "'pass' must be the whole turn"),
])
def test_malformed_turns(text, message):
    with pytest.raises(InvalidNotation, match=message):
        parse_cooked_turn(text)


@pytest.mark.parametrize(("text", "line", "message"), [
    ("Home (0, g1b2) y3-\nAlpha (b1) r1\n", 2, "not a system, turn"),
    ("Home (0, g1b2) y3-\nAlpha (x1) r1-\n", 2, "not a list of pieces"),
    ("Home (0, g1b2) y3-\nAlpha () r1-\n", 2, "system without a star"),
    ("Home (2, g1b2) y3-\n", 1, "homeworld owner 2"),
    ("Home (0, g1b2) y3-\npass\nAlpha (b1) r1-\n", 3, "after the position ended"),
    ("Home (0, g1b2) y3-\nbuild g1 at\n", 2, "not a cooked action"),
    ("Home (0, g1b2) y3-\nLEGAL\n", 2, "LEGAL without a turn"),
    ("Home (0, g1b2) y3-\nHello there\n", 2, "not a system, turn"),
])
def test_malformed_files_name_the_line(text, line, message):
    with pytest.raises(InvalidNotation) as caught:
        read_cooked(text, source="x.cooked")
    assert caught.value.line == line
    assert caught.value.source == "x.cooked"
    assert message in str(caught.value)
    assert str(caught.value).startswith(f"x.cooked:{line}: ")


def test_parse_pieces():
    assert parse_pieces("b3y3y2g1") == (P("b3"), P("y3"), P("y2"), P("g1"))
    assert parse_pieces("") == ()
    with pytest.raises(InvalidNotation):
        parse_pieces("b3y")


def test_read_file(tmp_path):
    path = tmp_path / "g.cooked"
    path.write_text(GAME, encoding="utf-8")
    game = read_cooked_file(path)
    assert game.source == str(path)
    assert isinstance(game, CookedGame)


# ------------------------------------------------------------------------------ archive


def _lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def test_every_cooked_game_reads_and_writes_back_the_same_text(cooked_paths, cooked_games):
    assert len(cooked_paths) == 2417
    for path in cooked_paths:
        game = cooked_games[int(path.stem)]
        assert [s.home_of for s in game.systems] == [0, 1]
        assert game.turns
        assert write_cooked(game).splitlines() == _lines(path)


def test_every_position_file_reads_and_writes_back(position_paths):
    assert len(position_paths) == 63
    samples = 0
    for path in position_paths:
        game = read_cooked_file(path)
        assert {s.home_of for s in game.systems} >= {0, 1}, path
        samples += len(game.samples)
        assert [line for line in write_cooked(game).splitlines()] == _lines(path)
    assert samples > 100


def test_perf_position(position_paths):
    path = next(p for p in position_paths if p.name == "perf-27635-moves.txt")
    game = read_cooked_file(path)
    assert [s.name for s in game.systems] == ["Player1", "Alpha", "Beta", "Gamma", "Delta",
                                              "Player2"]
    assert game.systems[-1].ships == ((P("b3"), P("y3"), P("y2"), P("g1")), (P("r2"), P("g2")))
    assert game.commands == ("count_moves",)
