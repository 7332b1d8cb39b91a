"""The remote games a hub arranged (docs/remote-play.md, "Invited by the hub"): which two
tables play one game over the broker, for which players and rules, and the game's shared
secret (the invitation code both tables get). Kept in the hub's store, so a hub restarted
after kill -9 still shows the game, seals the same invitation again and writes the broker's
ACL with the game's topics.

The table is created on first use (additive, as ``store.identity``'s tables are).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from homeworlds.store.database import GameStore

_TABLE = """
CREATE TABLE IF NOT EXISTS remote_games (
    game_id      TEXT PRIMARY KEY,
    secret       TEXT NOT NULL,
    host_table   TEXT NOT NULL,
    guest_table  TEXT NOT NULL,
    players      TEXT NOT NULL,
    rules        TEXT NOT NULL,
    created      TEXT NOT NULL,
    withdrawn    TEXT,
    joined       TEXT NOT NULL DEFAULT ''
)
"""


@dataclass(frozen=True, slots=True)
class StoredRemoteGame:
    game_id: str
    #: the invitation's secret, hex (never shown)
    secret: str
    host_table: str
    guest_table: str
    players: tuple[str, ...]
    rules: str
    created: str
    #: when the organiser withdrew it (its tables' ACL lines go), or None
    withdrawn: str | None
    #: the roles whose table joined the game (said hello on its topic) at least once
    joined: frozenset[str] = frozenset()

    @property
    def tables(self) -> tuple[str, str]:
        """(host, guest): the table of seat 0 and of seat 1."""
        return self.host_table, self.guest_table


class StoredRemoteGames:
    """The hub's remote games in ``store``; every write is one transaction."""

    def __init__(self, store: GameStore):
        self.store = store
        if not store._read("SELECT name FROM sqlite_master WHERE type = 'table' AND "
                           "name = 'remote_games'"):
            store._write(lambda c: c.execute(_TABLE))
        elif not any(row[1] == "joined" for row in
                     store._read("PRAGMA table_info(remote_games)")):
            store._write(lambda c: c.execute(
                "ALTER TABLE remote_games ADD COLUMN joined TEXT NOT NULL DEFAULT ''"))

    def games(self, *, include_withdrawn: bool = False) -> list[StoredRemoteGame]:
        rows = self.store._read(
            "SELECT game_id, secret, host_table, guest_table, players, rules, created, "
            "withdrawn, joined FROM remote_games" + ("" if include_withdrawn else
                                                     " WHERE withdrawn IS NULL") +
            " ORDER BY created, game_id")
        return [StoredRemoteGame(r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), r[5], r[6],
                                 r[7], frozenset(filter(None, r[8].split(","))))
                for r in rows]

    def joined(self, game_id: str, role: str) -> None:
        """Keep that ``role``'s table joined the game (its invitation is not sent again)."""
        def work(c: sqlite3.Connection) -> None:
            row = c.execute("SELECT joined FROM remote_games WHERE game_id = ?",
                            (game_id,)).fetchone()
            if row is not None and role not in row[0].split(","):
                roles = ",".join(sorted(filter(None, row[0].split(",") + [role])))
                c.execute("UPDATE remote_games SET joined = ? WHERE game_id = ?",
                          (roles, game_id))
        self.store._write(work)

    def add(self, game: StoredRemoteGame) -> None:
        self.store._write(lambda c: c.execute(
            "INSERT INTO remote_games(game_id, secret, host_table, guest_table, players, "
            "rules, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game.game_id, game.secret, game.host_table, game.guest_table,
             json.dumps(list(game.players)), game.rules, game.created)))

    def withdraw(self, game_id: str, at: str) -> bool:
        def work(c: sqlite3.Connection) -> bool:
            return c.execute("UPDATE remote_games SET withdrawn = ? WHERE game_id = ? AND "
                             "withdrawn IS NULL", (at, game_id)).rowcount > 0
        return self.store._write(work)
