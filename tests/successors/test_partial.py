"""Partial turns in the C++ engine's notation, completed from the position."""

from __future__ import annotations

import pytest

from homeworlds.notation import read_cooked_file
from homeworlds.rules import (
    AmbiguousAction,
    Build,
    Capture,
    Catastrophe,
    Discover,
    IllegalAction,
    InvalidNotation,
    Move,
    Piece,
    Sacrifice,
    match_partial_turn,
    parse_partial_turn,
)

from .conftest import SHARED, position, position_file

WIN_DIR = SHARED / "positions" / "win-in-one"


def _samples():
    if not WIN_DIR.is_dir():
        return []
    out = []
    for path in sorted(WIN_DIR.glob("*.txt")):
        for verdict, text in read_cooked_file(path).samples:
            out.append(pytest.param(path.name, verdict, text, id=f"{path.stem}:{text}"))
    return out


SAMPLES = _samples()


def test_there_are_samples_of_every_verdict(shared):
    verdicts = [p.values[1] for p in SAMPLES]
    assert len(verdicts) == 118
    assert {"LEGAL", "ILLEGAL", "AMBIG"} == set(verdicts)


@pytest.mark.parametrize("name, verdict, text", SAMPLES)
def test_reference_samples(shared, name, verdict, text):
    state = position_file(shared / "positions" / "win-in-one" / name, "strict")
    if verdict == "LEGAL":
        turn = match_partial_turn(state, text)
        state.copy().apply_turn(turn)
    elif verdict == "ILLEGAL":
        with pytest.raises(IllegalAction):
            match_partial_turn(state, text)
    else:
        with pytest.raises(AmbiguousAction) as info:
            match_partial_turn(state, text)
        assert len(info.value.candidates) >= 2


def test_completions_fill_in_the_position():
    state = position("""
        Player1 (0, y1b3) r3g1-
        Player2 (1, y1b3) -y2y3
        Alpha (g3) g2-r2r2y2b2
        Beta (g1) g2-y2b2
        Gamma (b1) g2-b2
    """, rules="strict")
    turn = match_partial_turn(state, "sacrifice r3; capture y2y2")
    assert turn[0] == Sacrifice(turn[0].piece, "Player1")
    assert sorted(a.system for a in turn[1:]) == ["Alpha", "Beta"]
    assert all(isinstance(a, Capture) for a in turn[1:])
    with pytest.raises(AmbiguousAction, match="3 different turns"):
        match_partial_turn(state, "sacrifice r3; capture b2b2")


def test_moves_discoveries_and_builds():
    state = position("""
        Player1 (0, r2r3) r1r1r1-
        Alpha (r2) y2-
        Player2 (1, g3) b2-y1y1y1y2g1g1g1b1b1b1
    """, rules="strict")
    turn = match_partial_turn(state, "catastrophe green; sacrifice y2; move r1r1 to Elsewhere (y1)")
    assert isinstance(turn[0], Catastrophe)
    assert isinstance(turn[2], Discover) and turn[2].name == "Elsewhere"
    assert isinstance(turn[3], Move) and turn[3].destination == "Elsewhere"
    assert match_partial_turn(state, "build at Player2") == (Build(Piece.from_text("b2"),
                                                                   "Player2"),)


def test_syntax_errors_name_the_problem():
    for text, words in [("", "empty"), ("fly y1 to Home", "unknown action"),
                        ("move", "needs a piece"), ("build x9 at Home", "not a piece"),
                        ("convert g2 to b3", "keeps the size"), ("pass now", "pass")]:
        with pytest.raises(InvalidNotation, match=words):
            parse_partial_turn(text)


def test_illegal_names_the_reason():
    state = position("""
        Home0 (0, y1b2) g3-
        Home1 (1, y3b1) -g3
    """, rules="strict")
    with pytest.raises(IllegalAction, match="no legal turn matches"):
        match_partial_turn(state, "capture g3")
    with pytest.raises(IllegalAction):
        match_partial_turn(state, "move g3 to Nowhere")
