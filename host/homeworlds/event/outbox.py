"""The table's outbox: the committed turns and results in its store that the event's
broker has not acknowledged yet.

The store's turns are the record; ``publish_cursor`` says, per game, whether the game was
announced, how many of its turns the broker acknowledged (QoS 1 PUBACK) and whether its
result was. Nothing else is kept: what lies beyond the cursor is sent again after a broker
outage or a restart of the table host.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from homeworlds.store.database import GameStore, StoredGame, StoredTurn


@dataclass(frozen=True, slots=True)
class Cursor:
    turns_acked: int = 0
    result_acked: bool = False


class Outbox:
    def __init__(self, store: GameStore, table: str):
        self.store = store
        self.table = table

    def games(self) -> list[StoredGame]:
        return self.store.games(self.table)

    def cursors(self) -> dict[int, Cursor]:
        rows = self.store._read("SELECT c.game_id, c.turns_acked, c.result_acked FROM "
                                "publish_cursor c JOIN games g ON g.id = c.game_id JOIN "
                                "tables t ON t.id = g.table_id WHERE t.name = ?", (self.table,))
        return {r[0]: Cursor(r[1], bool(r[2])) for r in rows}

    def pending(self) -> list[tuple[StoredGame, Cursor]]:
        """Games with turns or a result the broker has not acknowledged, oldest first."""
        cursors = self.cursors()
        out = []
        for game in self.games():
            cursor = cursors.get(game.id, Cursor())
            if cursor.turns_acked < game.turns or (game.finished and not cursor.result_acked):
                out.append((game, cursor))
        return out

    def turns_after(self, game: StoredGame, number: int, limit: int) -> list[StoredTurn]:
        rows = self.store._read(
            "SELECT number, seat, sdg, position, star_tags, committed FROM turns WHERE "
            "game_id = ? AND number > ? ORDER BY number LIMIT ?", (game.id, number, limit))
        return [StoredTurn(r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4]), r[5])
                for r in rows]

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
