"""One writer of a position as cooked text (``store.records.cooked_position``), used by the
feed, the event payloads, the hub and the cooked export. The cooked format seats two
players ("Name (owner, stars) ships0-ships1", owner 0 or 1): a position of three or more
seats has no cooked text, rather than a wrong one without the other seats."""

from __future__ import annotations

from homeworlds.display.svg import render_snapshot_svg
from homeworlds.event.payloads import snapshot_message, turn_message
from homeworlds.notation import read_cooked
from homeworlds.rules import GameState, preset
from homeworlds.store import StoredGame, StoredTurn
from homeworlds.store.records import (
    cooked_position,
    cooked_systems,
    position_to_json,
    turn_from_sdg,
)
from homeworlds.web.kit import map_svg

THREE = ("Alice", "Bob", "Carol")
TWO = ("Ann", "Bob")


def _three_seats() -> GameState:
    """A last-standing game of three after a move into Carol's home (constructed)."""
    state = GameState(preset("last-standing"), 3)
    for seat, text in enumerate(["Homeworld Y1 G2 R3", "Homeworld G3 B3 G1",
                                 "Homeworld Y3 B3 B1", "Build R1 Alice", "Pass", "Pass",
                                 "Move R3 Alice Carol"]):
        state.push(turn_from_sdg(text, seat % 3, THREE))
    return state


def _two_seats() -> GameState:
    state = GameState(preset("sdg"), 2)
    for seat, text in enumerate(["Homeworld Y1 B2 G3", "Homeworld R1 Y2 G3", "Build G1 Ann"]):
        state.push(turn_from_sdg(text, seat % 2, TWO))
    return state


def test_two_seats_are_written_and_read_back_as_the_same_position():
    state = _two_seats()
    text = cooked_position(position_to_json(state))
    assert text == "Ann (0, y1b2) g1g3-\nBob (1, r1y2) -g3\n"
    again = GameState.from_position(read_cooked(text).systems, preset("sdg"))
    assert position_to_json(again)["systems"] == position_to_json(state)["systems"]


def test_three_seats_have_no_cooked_text_rather_than_a_wrong_one():
    state = _three_seats()
    position = position_to_json(state)
    assert [len(s["ships"]) for s in position["systems"]] == [3, 3, 3]
    assert cooked_systems(position) is None and cooked_position(position) is None


def test_a_stored_position_that_is_not_one_has_no_cooked_text():
    assert cooked_position({"systems": [{"name": "X"}]}) is None
    assert cooked_position({}) is None


def _stored(players, turns: int) -> StoredGame:
    return StoredGame(1, "uid-1", "t1", "last-standing", {}, 0, "2026-11-24T12:00:00",
                      None, "playing", players, (None,) * len(players), turns)


def test_event_messages_of_three_seats_carry_the_stored_position_only():
    state = _three_seats()
    turn = StoredTurn(7, 0, "Move R3 Alice Carol", position_to_json(state), {},
                      "2026-11-24T12:01:00")
    message = turn_message("t1", _stored(THREE, 7), turn)
    assert message["position"] is None and message["position_json"] == turn.position
    snapshot = snapshot_message("t1", 1, _stored(THREE, 7), state, [turn], None)
    assert snapshot["position"] == ""  # text, as the feed's, which the hub's reader checks
    two = _two_seats()
    turn2 = StoredTurn(3, 0, "Build G1 Ann", position_to_json(two), {}, "2026-11-24T12:01:00")
    assert turn_message("t1", _stored(TWO, 3), turn2)["position"] == \
        "Ann (0, y1b2) g1g3-\nBob (1, r1y2) -g3\n"


def test_the_live_map_of_three_seats_is_drawn_from_the_systems_or_says_it_cannot_be():
    snapshot = {"game": {"players": list(THREE), "rules": "last-standing", "to_move": 1},
                "position": "", "bank": {}, "hints": None}
    svg = map_svg(lambda: render_snapshot_svg(snapshot))  # a snapshot without systems
    assert "the map cannot be drawn" in svg and "has no systems to draw" in svg
    snapshot["systems"] = position_to_json(_three_seats())["systems"]
    svg = map_svg(lambda: render_snapshot_svg(snapshot))
    assert "cannot be drawn" not in svg and all(name in svg for name in THREE)
