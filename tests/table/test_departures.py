"""Players who leave a game of three or more, and turns missed, at the tracker (issue 28,
item 6): the game goes on without them, the token must follow, and a resumed game applies
them where they happened."""

from __future__ import annotations

import pytest

from homeworlds.rules import IllegalAction, preset
from homeworlds.store.records import turn_from_sdg
from homeworlds.table.layout import builtin_layout
from homeworlds.table.tracker import TurnTracker

THREE = ("Ann", "Bob", "Cat")
OPENING = ["Homeworld Y1 G2 R3", "Homeworld G3 B3 G1", "Homeworld Y3 B1 B2", "Build R1 Ann"]


def _tracker(departures=()):
    tracker = TurnTracker(builtin_layout("four-seat"), preset("last-standing"), THREE)
    tracker.resume([(k % 3, turn_from_sdg(t, k % 3, THREE)) for k, t in enumerate(OPENING)],
                   departures=departures)
    return tracker


def test_a_player_who_resigns_leaves_and_the_others_play_on():
    """000 (HOMEWORLDS FOR MORE THAN TWO): "You can fight to the last captain standing" —
    one resignation of three does not end it."""
    tracker = _tracker()
    assert tracker.state.to_move == 1
    assert tracker.leave(1) is False
    assert not tracker.is_over and tracker.state.eliminated == [False, True, False]
    assert tracker.state.to_move == 2
    assert tracker.status.message == "Bob has left the game: pass the turn token to Cat"
    assert tracker.departures == [(4, "resigned", 1)]
    with pytest.raises(IllegalAction, match="Bob is out of the game already"):
        tracker.leave(1)
    # The last but one to resign ends it: the one left wins.
    assert tracker.leave(2) is True
    assert tracker.is_over and tracker.state.result.winners == (0,)


def test_a_missed_turn_passes_it_on():
    tracker = _tracker()
    assert tracker.skip_turn() == 1
    assert tracker.state.to_move == 2 and not any(tracker.state.eliminated)
    assert tracker.status.message == "Bob misses the turn: pass the turn token to Cat"
    two = TurnTracker(builtin_layout("standard-2p"), preset("sdg"), ("Ann", "Bob"))
    with pytest.raises(IllegalAction, match="with two players a turn cannot be missed"):
        two.skip_turn()


def test_a_resumed_game_applies_its_departures_where_they_happened():
    tracker = _tracker(departures=[(4, "resigned", 1)])
    assert tracker.state.eliminated == [False, True, False] and tracker.state.to_move == 2
    assert tracker.departures == [(4, "resigned", 1)]
    # Without them, a turn by a seat that was not to move is read as turns missed.
    record = [(k % 3, turn_from_sdg(t, k % 3, THREE)) for k, t in enumerate(OPENING)]
    record.append((2, turn_from_sdg("Trade B2 R2 Cat", 2, THREE)))
    again = TurnTracker(builtin_layout("four-seat"), preset("last-standing"), THREE)
    again.resume(record)
    assert again.departures == [(4, "skipped", 1)] and again.state.to_move == 0
