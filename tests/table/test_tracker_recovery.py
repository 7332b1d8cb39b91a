"""After a restart the tracker resumes from the committed record and the star tags the
store journalled: a turn played while the host was down is inferred from the table —
also when it removed a system (which used to leave it asking to "lay out" that system for
ever) — and a half-played turn goes on. Games also end off the board."""

from __future__ import annotations

import pytest

from homeworlds.rules import Discover, IllegalAction, Piece, preset
from homeworlds.table.tracker import TurnTracker

from .test_tracker import LAYOUT, REGISTRY, Table, _set_up, uid

P = Piece.from_text


def _tracker():
    return TurnTracker(LAYOUT, preset("looney"), ("Ann", "Bob"))


def _hand_over(table, tracker, seat):
    table.token(seat)
    status = tracker.update(table.observe())
    assert status.phase == "playing" and status.active_seat == seat, status
    return status


def _six_turns():
    """Setup; Ann builds g1; Bob builds g1; Ann discovers Altair (b3) with her g1; Bob
    builds g1. Altair lies on slot 5 with Ann's g1."""
    table, tracker = Table(), _tracker()
    _set_up(table, tracker)
    table.ship(3, 0, "g1")
    _hand_over(table, tracker, 1)
    table.ship(10, 1, "g1", "b")
    _hand_over(table, tracker, 0)
    table.star(5, "b3")
    table.ship(5, 0, "g1")
    _hand_over(table, tracker, 1)
    table.ship(10, 1, "g1", "c")
    _hand_over(table, tracker, 0)
    assert tracker.record[4] == (0, (Discover(P("g1"), "Ann", P("b3"), "Altair"),))
    return table, tracker


def _fading_turn(table):
    """Ann's g1 goes home: Altair is left without ships and its star returns to the bank."""
    table.ship(3, 0, "g1")
    table.put(table_uid("b3"), LAYOUT.bank_zone(P("b3")))


def table_uid(piece, copy="a"):
    return uid(piece, copy)


def test_a_turn_that_removed_a_system_is_recovered_from_the_table():
    table, before = _six_turns()
    _fading_turn(table)
    table.token(1)  # handed over, but the host died before committing
    tracker = _tracker()
    tracker.resume(before.record, {n: sorted(t) for n, t in before.star_tags.items()})
    status = tracker.update(table.observe())
    assert status.phase == "playing" and status.active_seat == 1, status
    assert len(tracker.record) == 7 and tracker.record[-1][0] == 0
    assert tracker.state.system("Altair") is None
    assert tracker.state.system("Ann").ships[0][P("g1").index] == 1


def test_without_journalled_tags_the_systems_are_matched_and_the_turn_recovered():
    table, before = _six_turns()
    _fading_turn(table)
    table.token(1)
    tracker = _tracker()
    tracker.resume(before.record)
    tracker.update(table.observe())
    assert len(tracker.record) == 7 and tracker.active_seat == 1


def test_a_half_played_turn_goes_on_after_a_restart():
    table, before = _six_turns()
    _fading_turn(table)  # the token still lies at Ann's seat
    tracker = _tracker()
    tracker.resume(before.record, {n: sorted(t) for n, t in before.star_tags.items()})
    status = tracker.update(table.observe())
    assert status.phase == "playing" and status.partial is not None, status
    assert "resumed" in status.message and len(tracker.record) == 6
    _hand_over(table, tracker, 1)
    assert len(tracker.record) == 7 and tracker.state.system("Altair") is None


def test_a_table_that_is_no_successor_keeps_guiding():
    table, before = _six_turns()
    _fading_turn(table)
    table.ship(10, 1, "r3")  # no turn of Ann's gives Bob a ship
    table.token(1)
    tracker = _tracker()
    tracker.resume(before.record, {n: sorted(t) for n, t in before.star_tags.items()})
    status = tracker.update(table.observe())
    assert status.phase == "resume" and "lay out Altair" in status.message
    assert len(tracker.record) == 6


def test_names_of_discovered_systems_go_on_where_they_stopped():
    """Altair was discovered and has faded: the next discovery is Betelgeuse, as it would
    have been without the restart (not a second, different Altair)."""
    table, before = _six_turns()
    _fading_turn(table)
    table.token(1)
    tracker = _tracker()
    tracker.resume(before.record, {n: sorted(t) for n, t in before.star_tags.items()})
    tracker.update(table.observe())
    table.star(7, "b3", "b")
    table.ship(7, 1, "g1", "b")
    _hand_over(table, tracker, 0)
    (action,) = tracker.record[-1][1]
    assert action == Discover(P("g1"), "Bob", P("b3"), "Betelgeuse")


@pytest.mark.parametrize("kind, seat, message", [
    ("resigned", 1, "Bob resigned"), ("agreed-draw", None, "draw by agreement"),
    ("abandoned", None, "abandoned")])
def test_a_game_ended_off_the_board_waits_for_a_cleared_table(kind, seat, message):
    table, tracker = Table(), _tracker()
    _set_up(table, tracker)
    new_games = []
    tracker.on_new_game = lambda: new_games.append(True)
    tracker.end_game(kind, seat)
    assert tracker.is_over and message in tracker.status.message
    with pytest.raises(IllegalAction, match="already over"):
        tracker.end_game("abandoned")
    assert tracker.update(table.observe()).phase == "over"
    for slot in (3, 10):
        for zone in (LAYOUT.slots[slot].star_zone, *LAYOUT.slots[slot].ship_zones):
            for tag in list(table.zones[zone]):
                table.put(tag, LAYOUT.bank_zone(REGISTRY_piece(tag)))
    status = tracker.update(table.observe())
    assert status.phase == "setup" and new_games == [True] and tracker.record == []


def REGISTRY_piece(tag):  # noqa: N802
    return dict(REGISTRY.items())[tag].piece
