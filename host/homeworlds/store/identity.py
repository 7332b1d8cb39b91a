"""What the event's signatures need kept across restarts (docs/event.md, "Identity";
docs/store.md): at the hub, every table's keys (issued, retired, revoked) and the highest
sequence number accepted per key and channel; at a table, how far its sequence numbers
were reserved. Sequence numbers that were persisted are never accepted (hub) or used
(table) again, so a restart does not reopen replays.

The tables are created on first use (they are additive: a store without them is a store
that never took part in a signed event).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from homeworlds.store.database import GameStore, StoreUnavailable, describe_sqlite_error

_TABLES = """
CREATE TABLE IF NOT EXISTS event_keys (
    key_id      TEXT PRIMARY KEY,
    table_name  TEXT NOT NULL,
    secret      TEXT NOT NULL,
    issued      TEXT NOT NULL,
    retired     TEXT,
    revoked     TEXT
);
CREATE INDEX IF NOT EXISTS event_keys_by_table ON event_keys(table_name, issued);
CREATE TABLE IF NOT EXISTS event_seen (
    key_id   TEXT NOT NULL,
    channel  TEXT NOT NULL,
    highest  INTEGER NOT NULL CHECK (highest >= 0),
    PRIMARY KEY (key_id, channel)
);
CREATE TABLE IF NOT EXISTS event_sequence (
    key_id     TEXT PRIMARY KEY,
    next_free  INTEGER NOT NULL CHECK (next_free >= 1)
);
"""


@dataclass(frozen=True, slots=True)
class StoredKey:
    key_id: str
    table: str
    #: hex
    secret: str
    issued: str
    #: when a newer key of the table was first used (rotation), or None
    retired: str | None
    #: when the organiser revoked it, or None
    revoked: str | None

    @property
    def valid(self) -> bool:
        return self.retired is None and self.revoked is None


class StoredIdentity:
    """The signature state kept in ``store``; every write is one transaction."""

    def __init__(self, store: GameStore):
        self.store = store
        if not self.store._read("SELECT name FROM sqlite_master WHERE type = 'table' "
                                "AND name = 'event_sequence'"):
            def work(c: sqlite3.Connection) -> None:
                for statement in _TABLES.split(";"):
                    if statement.strip():
                        c.execute(statement)
            self.store._write(work)

    # ------------------------------------------------------------------ the hub's keys

    def keys(self, table: str | None = None) -> list[StoredKey]:
        sql = ("SELECT key_id, table_name, secret, issued, retired, revoked FROM event_keys" +
               (" WHERE table_name = ?" if table is not None else "") +
               " ORDER BY table_name, issued, key_id")
        return [StoredKey(*r) for r in self.store._read(sql, () if table is None else
                                                        (table,))]

    def key(self, key_id: str) -> StoredKey | None:
        rows = self.store._read("SELECT key_id, table_name, secret, issued, retired, revoked "
                                "FROM event_keys WHERE key_id = ?", (key_id,))
        return StoredKey(*rows[0]) if rows else None

    def add_key(self, key_id: str, table: str, secret_hex: str, issued: str) -> None:
        self.store._write(lambda c: c.execute(
            "INSERT INTO event_keys(key_id, table_name, secret, issued) VALUES (?, ?, ?, ?)",
            (key_id, table, secret_hex, issued)))

    def retire_older(self, key: StoredKey, at: str) -> list[str]:
        """A newer key of the table was used: the table's valid keys issued before it are
        retired. Returns their ids."""
        def work(c: sqlite3.Connection) -> list[str]:
            ids = [r[0] for r in c.execute(
                "SELECT key_id FROM event_keys WHERE table_name = ? AND issued < ? AND "
                "retired IS NULL AND revoked IS NULL ORDER BY key_id", (key.table, key.issued))]
            c.executemany("UPDATE event_keys SET retired = ? WHERE key_id = ?",
                          [(at, k) for k in ids])
            return ids
        return self.store._write(work)

    def revoke(self, table: str, key_id: str | None, at: str) -> list[str]:
        """Revoke one key of ``table`` (or all of them); returns the ids revoked now."""
        def work(c: sqlite3.Connection) -> list[str]:
            sql = "SELECT key_id FROM event_keys WHERE table_name = ? AND revoked IS NULL"
            params: tuple = (table,)
            if key_id is not None:
                sql += " AND key_id = ?"
                params += (key_id,)
            ids = [r[0] for r in c.execute(sql + " ORDER BY key_id", params)]
            c.executemany("UPDATE event_keys SET revoked = ? WHERE key_id = ?",
                          [(at, k) for k in ids])
            return ids
        return self.store._write(work)

    # ------------------------------------------------------------------ the hub's windows

    def seen(self, key_id: str) -> dict[str, int]:
        """Channel -> the highest sequence number accepted under ``key_id``."""
        return dict(self.store._read("SELECT channel, highest FROM event_seen WHERE "
                                     "key_id = ?", (key_id,)))

    def record_seen(self, key_id: str, channel: str, highest: int) -> None:
        """Persist the highest accepted number of a channel (never lowered).

        Committed without its own fsync (``synchronous = NORMAL`` in WAL mode): it survives
        the hub's process being killed at once, and the next durable commit (the turn the
        message carries, written right after) makes it durable on the disk too, in order.
        So after a power cut the hub may accept again only a message whose effect was lost
        with it, never one it acted on durably (a turn is idempotent besides)."""
        self._synchronous("NORMAL")  # a flag of the connection: no I/O
        try:
            self.store._write(lambda c: c.execute(
                "INSERT INTO event_seen(key_id, channel, highest) VALUES (?, ?, ?) "
                "ON CONFLICT(key_id, channel) DO UPDATE SET highest = "
                "max(highest, excluded.highest)", (key_id, channel, highest)))
        finally:
            self._synchronous("FULL")  # every other write of the store stays durable

    def _synchronous(self, mode: str) -> None:
        try:
            self.store._conn.execute(f"PRAGMA synchronous = {mode}")
        except sqlite3.Error as exc:
            raise StoreUnavailable(self.store.path, describe_sqlite_error(exc)[1]) from None

    # ------------------------------------------------------------------ a table's numbers

    def reserve(self, key_id: str, count: int) -> int:
        """The first of ``count`` sequence numbers under ``key_id`` never reserved before;
        durable when it returns."""
        def work(c: sqlite3.Connection) -> int:
            row = c.execute("SELECT next_free FROM event_sequence WHERE key_id = ?",
                            (key_id,)).fetchone()
            first = 1 if row is None else row[0]
            c.execute("INSERT INTO event_sequence(key_id, next_free) VALUES (?, ?) "
                      "ON CONFLICT(key_id) DO UPDATE SET next_free = excluded.next_free",
                      (key_id, first + count))
            return first
        return self.store._write(work)
