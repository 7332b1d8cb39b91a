"""A phone's claim on a seat, kept across restarts (docs/remote-play.md, "A seat played
from a phone"; docs/store.md): the hash of the seat's one-time code and the hash of the
claimed phone's session token, per table and seat. Only hashes are kept: the store never
holds a secret that would let its reader play the seat.

The table is created on first use (additive, like ``store.identity``'s): a store without it
is a store of a table that never had a phone seat. Every write is one durable transaction
of its own connection, so that the phone's web thread never shares the recorder's.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from homeworlds.store.database import GameStore

_TABLE = """
CREATE TABLE IF NOT EXISTS phone_claims (
    table_name  TEXT NOT NULL,
    seat        INTEGER NOT NULL CHECK (seat >= 0),
    code_hash   BLOB NOT NULL CHECK (length(code_hash) = 32),
    token_hash  BLOB CHECK (token_hash IS NULL OR length(token_hash) = 32),
    changed     TEXT NOT NULL,
    PRIMARY KEY (table_name, seat)
)
"""


@dataclass(frozen=True, slots=True)
class StoredClaim:
    #: SHA-256 of the current one-time code
    code_hash: bytes
    #: SHA-256 of the session token of the phone that claimed the seat; None: unclaimed
    token_hash: bytes | None


class PhoneClaims:
    """The claims of table ``table`` in the store at ``path`` (opened for each use)."""

    def __init__(self, path: str | Path, table: str):
        self.path = Path(path)
        self.table = table

    def _open(self) -> GameStore:
        store = GameStore.open(self.path)
        try:
            store._write(lambda c: c.execute(_TABLE))
        except BaseException:
            store.close()
            raise
        return store

    def load(self, seat: int) -> StoredClaim | None:
        """The claim kept for ``seat`` (None: none). StoreError when the store cannot be
        read."""
        store = self._open()
        try:
            rows = store._read("SELECT code_hash, token_hash FROM phone_claims WHERE "
                               "table_name = ? AND seat = ?", (self.table, seat))
        finally:
            store.close()
        if not rows:
            return None
        code_hash, token_hash = rows[0]
        return StoredClaim(bytes(code_hash), None if token_hash is None else bytes(token_hash))

    def save(self, seat: int, claim: StoredClaim) -> None:
        """Keep ``claim`` for ``seat``, durably when it returns (StoreError otherwise)."""
        changed = datetime.now(UTC).isoformat(timespec="seconds")

        def work(c: sqlite3.Connection) -> None:
            c.execute("INSERT INTO phone_claims(table_name, seat, code_hash, token_hash, "
                      "changed) VALUES (?, ?, ?, ?, ?) ON CONFLICT(table_name, seat) DO "
                      "UPDATE SET code_hash = excluded.code_hash, token_hash = "
                      "excluded.token_hash, changed = excluded.changed",
                      (self.table, seat, claim.code_hash, claim.token_hash, changed))

        store = self._open()
        try:
            store._write(work)
        finally:
            store.close()


__all__ = ["PhoneClaims", "StoredClaim"]
