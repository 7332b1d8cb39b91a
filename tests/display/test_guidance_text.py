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


def test_a_step_of_a_turn_played_elsewhere_is_named_by_where_it_came_from():
    """The other table's (or the phone's) turn laid out here is not the computer's."""
    remote = _step(played_from="the other table")
    assert guidance_text(remote, PLAYERS).startswith(
        "Hal (from the other table), step 2 of 4: Lift")
    assert "computer" not in guidance_text(remote, PLAYERS)
    assert guidance_text(_step(), PLAYERS).startswith("Hal (the computer), step 2 of 4: ")
