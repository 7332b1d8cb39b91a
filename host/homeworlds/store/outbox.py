"""A table's outbox: the committed turns and results in its store that the event's broker
has not acknowledged yet (docs/event.md, "The outbox").

The store's turns are the record; ``publish_cursor`` says, per game, whether the game was
announced, how many of its turns the broker acknowledged (QoS 1 PUBACK) and whether its
result was. Nothing else is kept: what lies beyond the cursor is sent again after a broker
outage or a restart of the table host. ``publish_events`` says from which game on the table
belongs to an event.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from homeworlds.store import GameStore, StoredGame, StoredTurn
from homeworlds.store.recorder import utc_now


@dataclass(frozen=True, slots=True)
class Cursor:
    """How much of a game the broker acknowledged."""

    turns_acked: int = 0
    result_acked: bool = False


class Outbox:
    """The games of ``table`` that belong to ``event``: the one it was playing when it first
    published to the event, and every later one (older games stay private)."""

    def __init__(self, store: GameStore, table: str, event: str):
        self.store = store
        self.table = table
        self.event = event
        self.first_game = self._join()

    def _first_game(self) -> int | None:
        rows = self.store._read("SELECT first_game FROM publish_events WHERE event = ?",
                                (self.event,))
        return rows[0][0] if rows else None

    def _join(self) -> int:
        """The first game id of the event: the game in progress when the table first
        published to it, else the next game (one not yet written gets a higher id)."""
        first = self._first_game()
        if first is not None:
            return first

        def work(c: sqlite3.Connection) -> None:
            latest = c.execute("SELECT id, status FROM games ORDER BY id DESC LIMIT 1"
                               ).fetchone()
            first = 1 if latest is None else latest[0] + (latest[1] != "playing")
            c.execute("INSERT OR IGNORE INTO publish_events(event, first_game, since) "
                      "VALUES (?, ?, ?)", (self.event, first, utc_now()))
        self.store._write(work)
        joined = self._first_game()
        assert joined is not None  # written just now, or by another process before
        return joined

    def games(self) -> list[StoredGame]:
        return [g for g in self.store.games(self.table) if g.id >= self.first_game]

    def cursors(self) -> dict[int, Cursor]:
        """Game id -> its cursor, for every game of the table the broker acknowledged."""
        rows = self.store._read("SELECT c.game_id, c.turns_acked, c.result_acked FROM "
                                "publish_cursor c JOIN games g ON g.id = c.game_id JOIN "
                                "tables t ON t.id = g.table_id WHERE t.name = ?", (self.table,))
        return {r[0]: Cursor(r[1], bool(r[2])) for r in rows}

    def turns_after(self, game: StoredGame, number: int, limit: int) -> list[StoredTurn]:
        """At most ``limit`` turns of ``game`` after turn ``number``, in order."""
        return self.store.turns(game.id, after=number, limit=limit)

    def acknowledge(self, acked: dict[int, Cursor]) -> None:
        """Move the cursors forward (never back) in one transaction."""
        def work(c: sqlite3.Connection) -> None:
            for game_id, cur in acked.items():
                c.execute("INSERT INTO publish_cursor(game_id, announced, turns_acked, "
                          "result_acked) VALUES (?, 1, ?, ?) ON CONFLICT(game_id) DO UPDATE "
                          "SET turns_acked = MAX(turns_acked, excluded.turns_acked), "
                          "result_acked = MAX(result_acked, excluded.result_acked)",
                          (game_id, cur.turns_acked, int(cur.result_acked)))
        if acked:
            self.store._write(work)
