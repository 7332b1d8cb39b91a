"""The game store: one SQLite file holding every game a table played.

WAL journal, ``synchronous=FULL``: a transaction that returned has reached the disk, so a
committed turn survives a power cut. Every write is one transaction through ``_write``,
the store's one I/O seam (tests subclass it to inject disk-full or read-only faults).

Errors come in two kinds: :class:`StoreRefused` (the file is corrupted, foreign or from a
newer version: it is left untouched and play does not start on it) and
:class:`StoreUnavailable` (disk full, read-only, locked, cannot open: a fault that may
clear; the recorder keeps the game in memory and retries).
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from homeworlds.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA, SCHEMA_VERSION

T = TypeVar("T")

#: Seconds a write waits for another process's lock before it counts as a fault. Short:
#: the table's main loop must not stall; the recorder retries.
BUSY_TIMEOUT_S = 0.25

_CORRUPT = {"SQLITE_CORRUPT", "SQLITE_NOTADB"}


class StoreError(Exception):
    def __init__(self, path: str, reason: str):
        self.path, self.reason = path, reason
        super().__init__(f"game store {path}: {reason}")


class StoreRefused(StoreError):
    """The file is not a store this version can use; it was not changed."""


class StoreUnavailable(StoreError):
    """The store cannot be written (or opened) right now; the fault may clear."""


class StoreConflict(StoreError):
    """A write would change what the store already holds (a finished game, a turn)."""


def describe_sqlite_error(exc: BaseException) -> tuple[bool, str]:
    """(is corruption, a sentence for players) for an sqlite3 or OS error."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    low = text.lower()
    if name in _CORRUPT or "malformed" in low or "not a database" in low:
        return True, f"the file is corrupted ({text})"
    if name == "SQLITE_FULL" or "disk is full" in low or "no space" in low:
        return False, f"the disk is full ({text})"
    if name.startswith("SQLITE_READONLY") or "readonly" in low or "read-only" in low:
        return False, f"the store cannot be written: it is read-only ({text})"
    if name in ("SQLITE_BUSY", "SQLITE_LOCKED") or "locked" in low or "busy" in low:
        return False, f"the store is locked by another program ({text})"
    if name.startswith("SQLITE_IOERR") or "disk i/o error" in low or \
            getattr(exc, "errno", None) == errno.EIO:
        return False, (f"the store's disk cannot be read or written (card removed? failing?) "
                       f"({text})")
    if name.startswith("SQLITE_CANTOPEN") or "unable to open" in low:
        return False, f"the store cannot be opened ({text})"
    return False, text or type(exc).__name__


@dataclass(frozen=True, slots=True)
class StoredGame:
    id: int
    uid: str
    table: str
    rules: str
    handicaps: dict[str, Any]
    first_seat: int
    started: str
    ended: str | None
    status: str
    players: tuple[str, ...]
    alignments: tuple[str | None, ...]
    turns: int
    #: the game's time control (``ClockSpec.to_dict()``), None for an untimed game
    clock: dict[str, Any] | None = None

    @property
    def finished(self) -> bool:
        return self.status != "playing"


@dataclass(frozen=True, slots=True)
class StoredTurn:
    number: int
    seat: int
    #: the turn's actions in SDG notation, one per line
    sdg: str
    #: the position after the turn (see ``homeworlds.store.positions``)
    position: dict[str, Any]
    #: system name -> tags of its star pieces, as the table showed them at the hand-over
    star_tags: dict[str, list[str]]
    committed: str
    #: milliseconds the mover's clock ran during the turn (None: untimed)
    elapsed_ms: int | None = None
    #: milliseconds left on the mover's clock after the turn (None: untimed)
    clock_ms: int | None = None


@dataclass(frozen=True, slots=True)
class StoredResult:
    kind: str
    winners: tuple[int, ...]
    by_seat: int | None
    at: str
    after_turn: int


@dataclass(frozen=True, slots=True)
class StoredObservation:
    id: int
    after_turn: int
    seen: str
    #: zone number -> tag UIDs read there
    zones: dict[int, list[str]]


def status_of_result(kind: str, winners: Sequence[int]) -> str:
    if kind in ("resigned", "agreed-draw", "abandoned"):
        return kind
    return "won" if winners else "drawn"


class GameStore:
    """An open store file. ``GameStore.open(path)`` creates, migrates or refuses it."""

    def __init__(self, path: str | Path, connection: sqlite3.Connection):
        self.path = str(path)
        self._conn = connection
        #: the file opened (device, inode): a write checks the path still leads to it
        self._identity = _identity(self.path)

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: str | Path, *, busy_timeout: float = BUSY_TIMEOUT_S) -> GameStore:
        where = str(path)
        try:
            existed = Path(path).stat().st_size > 0
        except FileNotFoundError:
            existed = False
        except OSError as exc:
            raise StoreUnavailable(where, describe_sqlite_error(exc)[1]) from None
        try:
            conn = sqlite3.connect(where, isolation_level=None, timeout=busy_timeout,
                                   check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreUnavailable(where, describe_sqlite_error(exc)[1]) from None
        try:
            cls._prepare(conn, where, existed)
        except BaseException:
            conn.close()
            raise
        return cls(path, conn)

    @classmethod
    def open_read_only(cls, path: str | Path) -> GameStore:
        """The store at ``path`` for reading only: nothing in the file changes, no write,
        no migration (plain read-only mode, which still honours the locks of a table
        writing it; ``immutable`` would not). StoreRefused for a file this version cannot
        read as it is (absent, corrupted, foreign, newer, older), StoreUnavailable for an
        I/O fault."""
        where = str(path)
        try:
            conn = sqlite3.connect(f"file:{where}?mode=ro", uri=True, isolation_level=None,
                                   check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreRefused(where, describe_sqlite_error(exc)[1]) from None
        try:
            cls._check_readable(conn, where)
        except sqlite3.Error as exc:
            conn.close()
            raise StoreRefused(where, describe_sqlite_error(exc)[1]) from None
        except BaseException:
            conn.close()
            raise
        return cls(path, conn)

    @staticmethod
    def _prepare(conn: sqlite3.Connection, where: str, existed: bool) -> None:
        state = GameStore._inspect(conn, where, existed)
        if state == "empty":
            _create(conn, where)
            return
        if state == "older":
            _migrate(conn, where, conn.execute("PRAGMA user_version").fetchone()[0])
        _tune(conn, where)

    @staticmethod
    def _check_readable(conn: sqlite3.Connection, where: str) -> None:
        """Refuse (StoreRefused) a file that is not a store this version reads as it is."""
        state = GameStore._inspect(conn, where, True)
        if state == "empty":
            raise _refusal(where, "the file holds no game store")
        if state == "older":
            raise _refusal(where, "an older schema: run `homeworlds play` on it once to "
                           "migrate it")

    @staticmethod
    def _inspect(conn: sqlite3.Connection, where: str, existed: bool) -> str:
        """"empty", "current" or "older"; refuses corrupted, foreign and newer files."""
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            app = conn.execute("PRAGMA application_id").fetchone()[0]
            names = {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.Error as exc:
            corrupt, why = describe_sqlite_error(exc)
            if corrupt:
                raise _refusal(where, f"not a readable game store: {why}") from None
            raise StoreUnavailable(where, why) from None  # I/O trouble, not the file's
        if not names and version == 0 and app in (0, APPLICATION_ID):
            return "empty"
        if app != APPLICATION_ID:
            raise _refusal(where, "this SQLite file is not a Homeworlds game store")
        if version > SCHEMA_VERSION:
            raise _refusal(where, f"schema version {version} was written by a newer "
                           f"homeworlds (this one reads versions up to {SCHEMA_VERSION}); "
                           "upgrade it")
        try:
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
        except sqlite3.Error as exc:
            raise _refusal(where, "not a readable game store: "
                           f"{describe_sqlite_error(exc)[1]}") from None
        if check != "ok":
            raise _refusal(where, f"the file is corrupted (integrity check: {check})")
        if version < SCHEMA_VERSION:
            missing = [v for v in range(version, SCHEMA_VERSION) if v not in MIGRATIONS]
            if missing:
                raise _refusal(where, f"schema version {version} is older than "
                               f"{SCHEMA_VERSION} and cannot be migrated (no migration from "
                               f"version {missing[0]})")
            return "older"
        return "current"

    def close(self) -> None:
        self._conn.close()

    # ------------------------------------------------------------------ the write seam

    def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` in one transaction, committed durably before returning."""
        conn = self._conn
        if self._identity is not None and _identity(self.path) != self._identity:
            # Written through a file no longer there (its card removed, the file deleted
            # or replaced), a turn would be "saved" nowhere anyone finds it.
            raise StoreUnavailable(self.path, "the store file was removed or replaced while "
                                   "the table was playing (card removed?): nothing more is "
                                   "written to it")
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = work(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    try:
                        conn.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                raise
        except sqlite3.Error as exc:
            raise StoreUnavailable(self.path, describe_sqlite_error(exc)[1]) from None
        except OSError as exc:
            raise StoreUnavailable(self.path, describe_sqlite_error(exc)[1]) from None
        return result

    def _read(self, sql: str, params: Sequence = ()) -> list[tuple]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreUnavailable(self.path, describe_sqlite_error(exc)[1]) from None

    # ------------------------------------------------------------------ writes

    def create_game(self, uid: str, *, table: str, layout: str, rules: str,
                    handicaps: dict[str, Any], first_seat: int, players: Sequence[str],
                    alignments: Sequence[str | None] | None, started: str,
                    clock: dict[str, Any] | None = None) -> None:
        """A new game (nothing happens if one with ``uid`` exists: a retried write);
        ``clock`` is its time control (docs/clocks.md), None when untimed."""
        def work(c: sqlite3.Connection) -> None:
            if c.execute("SELECT 1 FROM games WHERE uid = ?", (uid,)).fetchone():
                return
            c.execute("INSERT OR IGNORE INTO tables(name, layout, created) VALUES (?, ?, ?)",
                      (table, layout, started))
            table_id = c.execute("SELECT id FROM tables WHERE name = ?", (table,)).fetchone()[0]
            cur = c.execute("INSERT INTO games(uid, table_id, rules, handicaps, first_seat, "
                            "started, clock) VALUES (?, ?, ?, ?, ?, ?, ?)",
                            (uid, table_id, rules, json.dumps(handicaps, sort_keys=True),
                             first_seat, started,
                             None if clock is None else json.dumps(clock, sort_keys=True)))
            game_id = cur.lastrowid
            for seat, name in enumerate(players):
                c.execute("INSERT OR IGNORE INTO players(name) VALUES (?)", (name,))
                player_id = c.execute("SELECT id FROM players WHERE name = ?",
                                      (name,)).fetchone()[0]
                alignment = alignments[seat] if alignments else None
                c.execute("INSERT INTO game_players(game_id, seat, player_id, alignment) "
                          "VALUES (?, ?, ?, ?)", (game_id, seat, player_id, alignment))
        self._write(work)

    def commit_turn(self, uid: str, number: int, seat: int, sdg: str, position: dict,
                    star_tags: dict[str, list[str]], committed: str,
                    result: StoredResult | None = None, *, elapsed_ms: int | None = None,
                    clock_ms: int | None = None) -> None:
        """Turn ``number`` of the game, and its result if it ended the game: one
        transaction. Writing the same turn again is a no-op; a different one is refused.
        ``elapsed_ms`` and ``clock_ms``: the turn's time on a timed game (docs/clocks.md)."""
        row = (seat, sdg, json.dumps(position, sort_keys=True),
               json.dumps(star_tags, sort_keys=True))

        def work(c: sqlite3.Connection) -> None:
            game_id, status = self._game_row(c, uid)
            old = c.execute("SELECT seat, sdg, position, star_tags FROM turns WHERE game_id = ? "
                            "AND number = ?", (game_id, number)).fetchone()
            if old is not None:
                if tuple(old[:2]) != row[:2]:
                    raise StoreConflict(self.path, f"game {game_id} already has a different "
                                        f"turn {number}; it is never overwritten")
                return
            if status != "playing":
                raise StoreConflict(self.path, f"game {game_id} is finished ({status}); "
                                    "it is never changed")
            have = c.execute("SELECT COUNT(*) FROM turns WHERE game_id = ?",
                             (game_id,)).fetchone()[0]
            if have != number - 1:
                raise StoreConflict(self.path, f"game {game_id} has {have} turns; turn "
                                    f"{number} cannot follow")
            c.execute("INSERT INTO turns(game_id, number, seat, sdg, position, star_tags, "
                      "committed, elapsed_ms, clock_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      (game_id, number, *row, committed, elapsed_ms, clock_ms))
            if result is not None:
                self._finish(c, game_id, result)
        self._write(work)

    def journal_observation(self, uid: str, after_turn: int, seen: str,
                            zones: dict[int, list[str]]) -> None:
        """What the table showed at a hand-over (before the turn was inferred)."""
        text = json.dumps({str(z): sorted(u) for z, u in sorted(zones.items())})

        def work(c: sqlite3.Connection) -> None:
            game_id, _ = self._game_row(c, uid)
            c.execute("INSERT INTO observations(game_id, after_turn, seen, zones) "
                      "VALUES (?, ?, ?, ?)", (game_id, after_turn, seen, text))
        self._write(work)

    def withdraw_turn(self, uid: str, number: int, withdrawn: str) -> None:
        """Undo: turn ``number`` (the game's last) moves to ``withdrawn_turns`` and the
        hand-overs journalled since the turn before it are marked withdrawn; nothing is
        deleted for good. Withdrawing a turn already withdrawn is a no-op (a retried
        write)."""
        def work(c: sqlite3.Connection) -> None:
            game_id, status = self._game_row(c, uid)
            if status != "playing":
                raise StoreConflict(self.path, f"game {game_id} is finished ({status}); "
                                    "its turns are never withdrawn")
            have = c.execute("SELECT COUNT(*) FROM turns WHERE game_id = ?",
                             (game_id,)).fetchone()[0]
            if have == number - 1 and c.execute(
                    "SELECT 1 FROM withdrawn_turns WHERE game_id = ? AND number = ? "
                    "AND withdrawn = ?", (game_id, number, withdrawn)).fetchone():
                return
            if have != number:
                raise StoreConflict(self.path, f"game {game_id} has {have} turns; only the "
                                    f"last can be withdrawn, not turn {number}")
            c.execute("INSERT INTO withdrawn_turns(game_id, number, seat, sdg, position, "
                      "star_tags, committed, elapsed_ms, clock_ms, withdrawn) SELECT game_id, "
                      "number, seat, sdg, position, star_tags, committed, elapsed_ms, "
                      "clock_ms, ? FROM turns WHERE game_id = ? AND number = ?",
                      (withdrawn, game_id, number))
            c.execute("DELETE FROM turns WHERE game_id = ? AND number = ?", (game_id, number))
            c.execute("UPDATE observations SET withdrawn = ? WHERE game_id = ? AND "
                      "after_turn >= ? AND withdrawn IS NULL", (withdrawn, game_id, number - 1))
            c.execute("UPDATE departures SET withdrawn = ? WHERE game_id = ? AND "
                      "after_turn >= ? AND withdrawn IS NULL", (withdrawn, game_id, number))
        self._write(work)

    def add_departure(self, uid: str, after_turn: int, kind: str, seat: int, at: str) -> None:
        """A player left the game (``resigned``) or missed a turn (``skipped``) after
        ``after_turn`` turns; a retried write (the same row) is a no-op."""
        def work(c: sqlite3.Connection) -> None:
            game_id, status = self._game_row(c, uid)
            if status != "playing":
                raise StoreConflict(self.path, f"game {game_id} is finished ({status}); "
                                    "nobody leaves it any more")
            if c.execute("SELECT 1 FROM departures WHERE game_id = ? AND after_turn = ? AND "
                         "kind = ? AND seat = ? AND at = ?",
                         (game_id, after_turn, kind, seat, at)).fetchone():
                return
            c.execute("INSERT INTO departures(game_id, after_turn, kind, seat, at) "
                      "VALUES (?, ?, ?, ?, ?)", (game_id, after_turn, kind, seat, at))
        self._write(work)

    def departures(self, game_id: int) -> list[tuple[int, str, int]]:
        """(after_turn, kind, seat) of the game's departures not withdrawn, in order."""
        rows = self._read("SELECT after_turn, kind, seat FROM departures WHERE game_id = ? "
                          "AND withdrawn IS NULL ORDER BY id", (game_id,))
        return [(r[0], r[1], r[2]) for r in rows]

    def withdrawn_turns(self, game_id: int) -> list[tuple[StoredTurn, str]]:
        """Every turn withdrawn from the game (undo), with when, oldest first."""
        rows = self._read("SELECT number, seat, sdg, position, star_tags, committed, withdrawn "
                          "FROM withdrawn_turns WHERE game_id = ? ORDER BY id", (game_id,))
        return [(StoredTurn(r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4]), r[5]), r[6])
                for r in rows]

    def finish_game(self, uid: str, result: StoredResult) -> None:
        """Record how a game ended off the board (resign, agreed draw, abandon)."""
        def work(c: sqlite3.Connection) -> None:
            game_id, status = self._game_row(c, uid)
            if status != "playing":
                old = c.execute("SELECT kind, by_seat FROM results WHERE game_id = ?",
                                (game_id,)).fetchone()
                if old is not None and (old[0], old[1]) == (result.kind, result.by_seat):
                    return  # a retried write
                raise StoreConflict(self.path, f"game {game_id} is already finished "
                                    f"({status})")
            self._finish(c, game_id, result)
        self._write(work)

    def _finish(self, c: sqlite3.Connection, game_id: int, result: StoredResult) -> None:
        c.execute("INSERT INTO results(game_id, kind, winners, by_seat, at, after_turn) "
                  "VALUES (?, ?, ?, ?, ?, ?)",
                  (game_id, result.kind, json.dumps(list(result.winners)), result.by_seat,
                   result.at, result.after_turn))
        c.execute("UPDATE games SET status = ?, ended = ? WHERE id = ?",
                  (status_of_result(result.kind, result.winners), result.at, game_id))

    def _game_row(self, c: sqlite3.Connection, uid: str) -> tuple[int, str]:
        row = c.execute("SELECT id, status FROM games WHERE uid = ?", (uid,)).fetchone()
        if row is None:
            raise StoreConflict(self.path, f"no game {uid} in the store")
        return row[0], row[1]

    # ------------------------------------------------------------------ reads

    _GAME_SQL = ("SELECT g.id, g.uid, t.name, g.rules, g.handicaps, g.first_seat, g.started, "
                 "g.ended, g.status, (SELECT COUNT(*) FROM turns WHERE game_id = g.id), "
                 "g.clock "
                 "FROM games g JOIN tables t ON t.id = g.table_id ")

    def _game(self, row: tuple) -> StoredGame:
        seats = self._read("SELECT p.name, gp.alignment FROM game_players gp JOIN players p "
                           "ON p.id = gp.player_id WHERE gp.game_id = ? ORDER BY gp.seat",
                           (row[0],))
        return StoredGame(row[0], row[1], row[2], row[3], json.loads(row[4]), row[5], row[6],
                          row[7], row[8], tuple(s[0] for s in seats),
                          tuple(s[1] for s in seats), row[9],
                          None if row[10] is None else json.loads(row[10]))

    def games(self, table: str | None = None) -> list[StoredGame]:
        if table is None:
            rows = self._read(self._GAME_SQL + "ORDER BY g.id")
        else:
            rows = self._read(self._GAME_SQL + "WHERE t.name = ? ORDER BY g.id", (table,))
        return [self._game(r) for r in rows]

    def game(self, game_id: int) -> StoredGame | None:
        rows = self._read(self._GAME_SQL + "WHERE g.id = ?", (game_id,))
        return self._game(rows[0]) if rows else None

    def game_by_uid(self, uid: str) -> StoredGame | None:
        rows = self._read(self._GAME_SQL + "WHERE g.uid = ?", (uid,))
        return self._game(rows[0]) if rows else None

    def latest_game(self, table: str) -> StoredGame | None:
        rows = self._read(self._GAME_SQL + "WHERE t.name = ? ORDER BY g.id DESC LIMIT 1",
                          (table,))
        return self._game(rows[0]) if rows else None

    def table_layout(self, table: str) -> str | None:
        """The layout table ``table`` was first stored with, None for a table not stored."""
        rows = self._read("SELECT layout FROM tables WHERE name = ?", (table,))
        return rows[0][0] if rows else None

    _TURN_SQL = ("SELECT number, seat, sdg, position, star_tags, committed, elapsed_ms, "
                 "clock_ms FROM turns WHERE game_id = ? ")

    @staticmethod
    def _turn(row: tuple) -> StoredTurn:
        return StoredTurn(row[0], row[1], row[2], json.loads(row[3]), json.loads(row[4]),
                          row[5], row[6], row[7])

    def turns(self, game_id: int, *, after: int = 0, limit: int | None = None
              ) -> list[StoredTurn]:
        """The game's turns in order: those numbered above ``after``, at most ``limit``."""
        rows = self._read(self._TURN_SQL + "AND number > ? ORDER BY number LIMIT ?",
                          (game_id, after, -1 if limit is None else limit))
        return [self._turn(r) for r in rows]

    def turn(self, game_id: int, number: int) -> StoredTurn | None:
        """Turn ``number`` of the game, None when the store has none."""
        rows = self._read(self._TURN_SQL + "AND number = ?", (game_id, number))
        return self._turn(rows[0]) if rows else None

    def result(self, game_id: int) -> StoredResult | None:
        rows = self._read("SELECT kind, winners, by_seat, at, after_turn FROM results "
                          "WHERE game_id = ?", (game_id,))
        if not rows:
            return None
        r = rows[0]
        return StoredResult(r[0], tuple(json.loads(r[1])), r[2], r[3], r[4])

    def observations(self, game_id: int, after_turn: int | None = None
                     ) -> list[StoredObservation]:
        sql = ("SELECT id, after_turn, seen, zones FROM observations WHERE game_id = ? "
               "AND withdrawn IS NULL")
        params: tuple = (game_id,)
        if after_turn is not None:
            sql += " AND after_turn = ?"
            params += (after_turn,)
        rows = self._read(sql + " ORDER BY id", params)
        return [StoredObservation(r[0], r[1], r[2],
                                  {int(z): u for z, u in json.loads(r[3]).items()})
                for r in rows]


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _refusal(where: str, reason: str) -> StoreRefused:
    return StoreRefused(where, reason + " — it was left untouched; start a new store beside "
                        "it (play --store NEW.sqlite, or [store] path)")


def _create(conn: sqlite3.Connection, where: str) -> None:
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript("BEGIN IMMEDIATE;\n" + SCHEMA +
                           f"\nPRAGMA application_id = {APPLICATION_ID};"
                           f"\nPRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;")
    except sqlite3.Error as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise StoreUnavailable(where, describe_sqlite_error(exc)[1]) from None
    _tune(conn, where)


def _migrate(conn: sqlite3.Connection, where: str, version: int) -> None:
    try:
        script = "".join(MIGRATIONS[v] for v in range(version, SCHEMA_VERSION))
        conn.executescript("BEGIN IMMEDIATE;\n" + script +
                           f"\nPRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;")
    except sqlite3.Error as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise StoreUnavailable(where, "cannot migrate: " + describe_sqlite_error(exc)[1]) \
            from None


def _tune(conn: sqlite3.Connection, where: str) -> None:
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = FULL")
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    except sqlite3.Error as exc:
        raise StoreUnavailable(where, describe_sqlite_error(exc)[1]) from None
    if str(mode).lower() != "wal":
        raise StoreUnavailable(where, f"cannot switch to the WAL journal (got {mode})")
