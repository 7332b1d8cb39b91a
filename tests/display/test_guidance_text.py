"""The computer's thinking and steps as a terminal status line."""

from __future__ import annotations

from homeworlds.display.guidance_text import guidance_text
from homeworlds.hints import GuidanceShown
from homeworlds.rules import Piece

PLAYERS = ("Ann", "Hal")


def _step(**kw):
    return GuidanceShown(1, "guiding", kind="move", piece=Piece.from_text("b2"), lift_slot=3,
                         put_slot=5, text="Lift the medium blue ship from slot 3",
                         detail={"steps_total": 4, "steps_left": 3}, **kw)


def test_nothing_shown_is_no_line():
    assert guidance_text(None, PLAYERS) is None


def test_thinking_names_the_seat_or_the_learner():
    assert guidance_text(GuidanceShown(1, "thinking"), PLAYERS) == \
        "Hal (the computer) is thinking…"
    assert guidance_text(GuidanceShown(0, "thinking", suggestion=True), PLAYERS) == \
        "hint for Ann: the computer is thinking…"


def test_a_step_is_counted_and_a_hint_and_an_undo_are_marked():
    assert guidance_text(_step(), PLAYERS) == \
        "Hal (the computer), step 2 of 4: Lift the medium blue ship from slot 3"
    assert guidance_text(_step(suggestion=True), PLAYERS).startswith("HINT for Hal, step 2 of 4: ")
    assert guidance_text(_step(restore=True), PLAYERS).startswith(
        "undo: back to the earlier position, step 2 of 4: Lift")


def test_a_remote_seat_waits_for_the_other_table_instead_of_thinking():
    waiting = GuidanceShown(1, "thinking", text="waiting for the turn from the other table…")
    assert guidance_text(waiting, PLAYERS) == "Hal: waiting for the turn from the other table…"
    assert guidance_text(GuidanceShown(1, "thinking"), PLAYERS) == \
        "Hal (the computer) is thinking…"
