"""An event's rounds in the hub's store (``homeworlds.store.rounds``): players, rounds with
their pairings, corrected results; each write one transaction."""

from __future__ import annotations

import pytest

from homeworlds.store import GameStore, StoreUnavailable
from homeworlds.store.rounds import StoredPairing, StoredRound, StoredRounds

from .helpers import FaultyStore, disk_full, play_opening

STARTED = "2026-11-24T13:00:00+00:00"


def test_players_keep_the_order_they_were_named_in(store):
    rounds = StoredRounds(store)
    assert rounds.players() == []
    rounds.replace_players(["Felix", "kanzenryu", "jeep"])
    assert rounds.players() == ["Felix", "kanzenryu", "jeep"]
    rounds.replace_players(["jeep", "Danner"])
    assert rounds.players() == ["jeep", "Danner"]


def test_a_round_is_kept_with_its_pairings_and_byes(store):
    rounds = StoredRounds(store)
    rounds.add_round(1, STARTED, [("Felix", "kanzenryu"), ("jeep", None)])
    rounds.add_round(2, "2026-11-24T14:00:00+00:00", [("jeep", "Felix")])
    store.close()
    reopened = StoredRounds(GameStore.open(store.path))
    try:
        assert reopened.rounds() == [StoredRound(1, STARTED),
                                     StoredRound(2, "2026-11-24T14:00:00+00:00")]
        assert reopened.pairings() == [
            StoredPairing(1, 1, "Felix", "kanzenryu", STARTED),
            StoredPairing(1, 2, "jeep", None, STARTED),
            StoredPairing(2, 1, "jeep", "Felix", "2026-11-24T14:00:00+00:00")]
    finally:
        reopened.store.close()


def test_a_round_that_cannot_be_written_leaves_no_pairing_behind(store):
    rounds = StoredRounds(store)
    rounds.add_round(1, STARTED, [("Felix", "kanzenryu")])
    with pytest.raises(StoreUnavailable):  # round 1 exists: the whole round is refused
        rounds.add_round(1, STARTED, [("jeep", "Danner"), ("Felix", None)])
    assert rounds.pairings() == [StoredPairing(1, 1, "Felix", "kanzenryu", STARTED)]


def test_a_corrected_result_replaces_an_earlier_correction(store):
    play_opening(store, "g1", 2)
    game_id = store.games()[0].id
    rounds = StoredRounds(store)
    assert rounds.corrections() == {}
    rounds.correct_result(game_id, [1], "flag fell unseen", STARTED)
    assert rounds.corrections() == {game_id: [1]}
    rounds.correct_result(game_id, [], "agreed a draw", STARTED)
    assert rounds.corrections() == {game_id: []}


def test_writes_that_fail_change_nothing(tmp_path):
    store = FaultyStore.open(tmp_path / "hub.sqlite")
    rounds = StoredRounds(store)
    try:
        rounds.replace_players(["Felix", "jeep"])
        FaultyStore.fault = disk_full()
        for write in (lambda: rounds.replace_players(["Danner"]),
                      lambda: rounds.add_round(1, STARTED, [("Felix", "jeep")])):
            with pytest.raises(StoreUnavailable, match="disk is full"):
                write()
        FaultyStore.fault = None
        assert rounds.players() == ["Felix", "jeep"] and rounds.rounds() == []
    finally:
        FaultyStore.fault = None
        store.close()
