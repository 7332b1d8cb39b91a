"""The outbox of a table's store (``homeworlds.store.outbox``): which games belong to an
event, how far the broker acknowledged each, and what is still to send."""

from __future__ import annotations

import pytest

from homeworlds.store import GameStore, StoredResult, StoreUnavailable
from homeworlds.store.outbox import Cursor, Outbox

from .helpers import FaultyStore, disk_full, play_opening


def test_an_empty_store_publishes_from_its_first_game(store):
    outbox = Outbox(store, "club-1", "club")
    assert outbox.first_game == 1 and outbox.games() == []
    play_opening(store, "g1", 2)
    assert [g.uid for g in outbox.games()] == ["g1"]


def test_the_game_in_progress_when_the_table_joins_is_published_older_ones_not(store):
    play_opening(store, "home", 6)
    store.finish_game("home", StoredResult("resigned", (1,), 0, "2026-11-24T12:10:00", 6))
    play_opening(store, "g2", 3)
    outbox = Outbox(store, "club-1", "club")
    assert outbox.first_game == 2
    assert [g.uid for g in outbox.games()] == ["g2"]


def test_after_a_finished_game_the_next_game_is_the_first_published(store):
    play_opening(store, "home", 2)
    store.finish_game("home", StoredResult("agreed-draw", (), None, "2026-11-24T12:10:00", 2))
    outbox = Outbox(store, "club-1", "club")
    assert outbox.first_game == 2 and outbox.games() == []
    play_opening(store, "g2", 1)
    assert [g.uid for g in outbox.games()] == ["g2"]


def test_joining_again_keeps_the_first_game_and_another_event_has_its_own(store):
    play_opening(store, "g1", 2)
    assert Outbox(store, "club-1", "club").first_game == 1
    store.finish_game("g1", StoredResult("resigned", (0,), 1, "2026-11-24T12:10:00", 2))
    play_opening(store, "g2", 2)
    store.close()
    reopened = GameStore.open(store.path)  # a restarted table host
    try:
        assert Outbox(reopened, "club-1", "club").first_game == 1
        assert Outbox(reopened, "club-1", "cup").first_game == 2
    finally:
        reopened.close()


def test_only_the_tables_own_games_are_in_its_outbox(store):
    outbox = Outbox(store, "club-1", "club")
    play_opening(store, "mine", 2, table="club-1")
    play_opening(store, "other", 2, table="club-2")
    outbox.acknowledge({g.id: Cursor(2) for g in store.games()})
    assert [g.uid for g in outbox.games()] == ["mine"]
    assert outbox.cursors() == {store.games("club-1")[0].id: Cursor(2)}


def test_turns_after_a_number_come_in_order_at_most_limit(store):
    play_opening(store, "g1", 6)
    outbox = Outbox(store, "club-1", "club")
    game = outbox.games()[0]
    assert [t.number for t in outbox.turns_after(game, 2, 3)] == [3, 4, 5]
    assert [t.number for t in outbox.turns_after(game, 4, 10)] == [5, 6]
    assert outbox.turns_after(game, 6, 10) == []
    assert outbox.turns_after(game, 0, 1)[0].sdg == "Homeworld Y1 B2 G3"


def test_cursors_move_forward_never_back(store):
    play_opening(store, "g1", 6)
    outbox = Outbox(store, "club-1", "club")
    game_id = outbox.games()[0].id
    assert outbox.cursors() == {}
    outbox.acknowledge({game_id: Cursor(4)})
    assert outbox.cursors() == {game_id: Cursor(4, False)}
    outbox.acknowledge({game_id: Cursor(2, True)})  # a late PUBACK of turn 2, the result
    assert outbox.cursors() == {game_id: Cursor(4, True)}
    outbox.acknowledge({game_id: Cursor(6, False)})
    assert outbox.cursors() == {game_id: Cursor(6, True)}
    outbox.acknowledge({})  # nothing to write
    store.close()
    reopened = GameStore.open(store.path)
    try:
        assert Outbox(reopened, "club-1", "club").cursors() == {game_id: Cursor(6, True)}
    finally:
        reopened.close()


def test_an_acknowledgement_that_cannot_be_written_changes_nothing(tmp_path):
    store = FaultyStore.open(tmp_path / "t1.sqlite")
    try:
        outbox = Outbox(store, "club-1", "club")
        play_opening(store, "g1", 2)
        play_opening(store, "g2", 2)
        first, second = (g.id for g in outbox.games())
        outbox.acknowledge({first: Cursor(1)})
        FaultyStore.fault = disk_full()
        with pytest.raises(StoreUnavailable, match="disk is full"):
            outbox.acknowledge({first: Cursor(2), second: Cursor(2, True)})
        FaultyStore.fault = None
        assert outbox.cursors() == {first: Cursor(1)}
    finally:
        FaultyStore.fault = None
        store.close()
