"""Games to record, and a store whose write seam can be made to fail."""

from __future__ import annotations

import sqlite3
import time

from homeworlds.notation import parse_sdg_action
from homeworlds.rules import GameState, preset
from homeworlds.store import GameStore, StoredResult
from homeworlds.store.records import position_to_json, turn_to_sdg

PLAYERS = ("Ann", "Bob")

#: A short legal game: setup, then building.
OPENING = ["Homeworld Y1 B2 G3", "Homeworld R1 Y2 G3", "Build G1 Ann", "Build G1 Bob",
           "Build G1 Ann", "Build G2 Bob"]


def turns_of(texts, players=PLAYERS):
    return [tuple(parse_sdg_action(a.strip(), player=players[k % len(players)])
                  for a in text.split(";")) for k, text in enumerate(texts)]


def positions(turns, rules="looney"):
    state = GameState(preset(rules))
    out = []
    for turn in turns:
        state.push(turn)
        out.append(state.copy())
    return out


def new_game(store: GameStore, uid="g1", players=PLAYERS, table="club-1"):
    store.create_game(uid, table=table, layout="standard-2p", rules="looney",
                      handicaps={}, first_seat=0, players=players,
                      alignments=None, started="2026-11-24T12:00:00+00:00")


def commit(store, uid, number, turn, state, result: StoredResult | None = None):
    store.commit_turn(uid, number, number % 2 ^ 1, turn_to_sdg(turn, PLAYERS),
                      position_to_json(state), {}, "2026-11-24T12:01:00+00:00", result)


def play_opening(store: GameStore, uid="g1", turns=6, table="club-1") -> None:
    """A new game ``uid`` at ``table`` with the first ``turns`` turns of OPENING."""
    new_game(store, uid, table=table)
    played = turns_of(OPENING[:turns])
    for number, (turn, state) in enumerate(zip(played, positions(played), strict=True), 1):
        commit(store, uid, number, turn, state)


class FaultyStore(GameStore):
    """A store whose writes fail while ``fault`` holds an exception to raise."""

    fault: Exception | None = None

    def _write(self, work):
        if FaultyStore.fault is not None:
            # As SQLite reports it: the seam classifies it like any sqlite3 error.
            def fail(_conn: sqlite3.Connection):
                raise FaultyStore.fault
            return super()._write(fail)
        return super()._write(work)


def disk_full() -> sqlite3.OperationalError:
    return sqlite3.OperationalError("database or disk is full")


def wait_for(predicate, timeout=20.0, what="the host"):
    """Poll ``predicate`` until it holds; fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
