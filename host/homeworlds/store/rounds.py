"""The rounds of an event as the hub's store keeps them (docs/event.md, "Rounds"): the
players in their seeding order, each round with its pairings, and the results an organiser
corrected. A table's store has none of them. Which game a pairing's players played, and
who leads, the hub works out (``homeworlds.event.rounds``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from homeworlds.store.database import GameStore


@dataclass(frozen=True, slots=True)
class StoredRound:
    number: int
    #: when the round was started (ISO 8601, UTC)
    started: str


@dataclass(frozen=True, slots=True)
class StoredPairing:
    round: int
    board: int
    player_a: str
    #: None: ``player_a`` has the bye
    player_b: str | None
    #: when the pairing's round was started
    started: str


class StoredRounds:
    """The hub's rounds in ``store``; every write is one transaction."""

    def __init__(self, store: GameStore):
        self.store = store

    def players(self) -> list[str]:
        """The event's players in the order they were named."""
        return [r[0] for r in self.store._read("SELECT name FROM event_players ORDER BY seq")]

    def replace_players(self, names: Sequence[str]) -> None:
        def work(c: sqlite3.Connection) -> None:
            c.execute("DELETE FROM event_players")
            c.executemany("INSERT INTO event_players(name, seq) VALUES (?, ?)",
                          [(n, k) for k, n in enumerate(names)])
        self.store._write(work)

    def rounds(self) -> list[StoredRound]:
        return [StoredRound(r[0], r[1]) for r in self.store._read(
            "SELECT number, started FROM event_rounds ORDER BY number")]

    def pairings(self) -> list[StoredPairing]:
        """Every round's pairings, by round and board."""
        return [StoredPairing(*r) for r in self.store._read(
            "SELECT p.round, p.board, p.player_a, p.player_b, r.started FROM event_pairings p "
            "JOIN event_rounds r ON r.number = p.round ORDER BY p.round, p.board")]

    def add_round(self, number: int, started: str,
                  pairs: Sequence[tuple[str, str | None]]) -> None:
        """Round ``number`` and its pairings (board 1 first), in one transaction."""
        def work(c: sqlite3.Connection) -> None:
            c.execute("INSERT INTO event_rounds(number, started) VALUES (?, ?)",
                      (number, started))
            c.executemany("INSERT INTO event_pairings(round, board, player_a, player_b) "
                          "VALUES (?, ?, ?, ?)",
                          [(number, k + 1, a, b) for k, (a, b) in enumerate(pairs)])
        self.store._write(work)

    def corrections(self) -> dict[int, list[int]]:
        """Game id -> the winning seats an organiser set (empty: a draw)."""
        return {r[0]: json.loads(r[1]) for r in self.store._read(
            "SELECT game_id, winners FROM result_corrections")}

    def correct_result(self, game_id: int, winners: Sequence[int], note: str, at: str
                       ) -> None:
        """Set (or replace) the corrected result of a game."""
        def work(c: sqlite3.Connection) -> None:
            c.execute("INSERT INTO result_corrections(game_id, winners, note, at) VALUES "
                      "(?, ?, ?, ?) ON CONFLICT(game_id) DO UPDATE SET winners = "
                      "excluded.winners, note = excluded.note, at = excluded.at",
                      (game_id, json.dumps(list(winners)), note, at))
        self.store._write(work)
