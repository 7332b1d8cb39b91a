"""The table's recorder: every committed turn, hand-over and result goes to the store, in
order, before the table confirms it.

When the store cannot be written (disk full, read-only, locked, corrupted under us, not
openable) the writes wait in memory in their order, ``fault`` says why, and ``poll``
retries every ``retry_s`` seconds (every new write tries at once too): the game goes on,
and nothing is lost once the fault clears. Only a store that is refused when opened
(corrupted, foreign, newer) stops the host before the game starts.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from homeworlds.rules import GameState, Rules, Turn
from homeworlds.store.database import (
    GameStore,
    StoredGame,
    StoredObservation,
    StoredResult,
    StoredTurn,
    StoreError,
    StoreRefused,
    StoreUnavailable,
)
from homeworlds.store.records import position_to_json, turn_from_sdg, turn_to_sdg

RETRY_S = 2.0


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True, slots=True)
class ResumePoint:
    """An unfinished game of this table, as the store holds it."""

    game: StoredGame
    record: tuple[tuple[int, Turn], ...]
    #: the position after the last turn, as stored (checked against the replay)
    position: dict | None
    #: system name -> star tags at the last committed hand-over
    star_tags: dict[str, list[str]]
    #: the table at a hand-over after the last committed turn (the host died before it
    #: committed that turn), or None
    pending_handover: StoredObservation | None
    #: how the game ended, when it is finished (the table then waits to be cleared)
    result: StoredResult | None = None
    #: per seat, the milliseconds its clock showed after its last timed turn (None: no
    #: timed turn yet); the clocks of a resumed game start from these (docs/clocks.md)
    clock_ms: tuple[int | None, ...] = ()
    #: the turn after the last was withdrawn (undo) and not played again: the table may
    #: still show it, with the turn token passed on (docs/display.md, "Undo")
    withdrawn_next: bool = False
    #: (after_turn, "resigned" or "skipped", seat): who left the game or missed a turn
    departures: tuple[tuple[int, str, int], ...] = ()


class GameRecorder:
    def __init__(self, path: str | Path, *, table: str, layout: str,
                 opener: Callable[[str | Path], GameStore] = GameStore.open,
                 wall_clock: Callable[[], str] = utc_now,
                 clock: Callable[[], float] = time.monotonic, retry_s: float = RETRY_S):
        self.path = Path(path)
        self.table = table
        self.layout = layout
        self._opener = opener
        self._wall = wall_clock
        self._clock = clock
        self.retry_s = retry_s
        self.store: GameStore | None = None
        #: why the store cannot be written now (None: everything is saved)
        self.fault: str | None = None
        self._pending: list[tuple[str, Callable[[GameStore], None]]] = []
        self._last_try = float("-inf")
        self.uid: str | None = None
        self.game_id: int | None = None
        self._unwritten_game: Callable[[GameStore], None] | None = None
        #: the latest time stamped on a write: stamps never go back (``_now``)
        self._last_stamp = ""
        #: whether the store was ever opened: a file gone since is not created anew
        self._opened = False

    def _now(self) -> str:
        """The wall time to store, never before the last one stamped: a step of the wall
        clock back (NTP, ``date -s``) leaves the stored times in order. A step forward is
        taken as it is (a table without a real-time clock corrects its time so)."""
        stamp = self._wall()
        if stamp < self._last_stamp:
            stamp = self._last_stamp
        self._last_stamp = stamp
        return stamp

    # ------------------------------------------------------------------ opening

    def open(self) -> None:
        """Open the store; StoreRefused propagates (the file is left as it is), any other
        trouble is a fault and the store is opened again on the next retry."""
        self._last_try = self._clock()
        try:
            self.store = self._opener(self.path)
            self._opened = True
        except StoreRefused:
            raise
        except StoreError as exc:
            self.fault = str(exc)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None

    @property
    def unsaved(self) -> int:
        return len(self._pending)

    def resume_point(self) -> ResumePoint | None:
        """The table's latest game in the store, finished or not (None: none, or the store
        is unreadable). A finished game is shown until the table is cleared."""
        if self.store is None:
            return None
        game = self.store.latest_game(self.table)
        if game is None:
            return None
        turns: list[StoredTurn] = self.store.turns(game.id)
        record = tuple((t.seat, turn_from_sdg(t.sdg, t.seat, game.players)) for t in turns)
        pending = self.store.observations(game.id, after_turn=len(turns))
        clock_ms: list[int | None] = [None] * len(game.players)
        for t in turns:
            if t.clock_ms is not None and 0 <= t.seat < len(clock_ms):
                clock_ms[t.seat] = t.clock_ms
        withdrawn = self.store.withdrawn_turns(game.id)
        if turns and turns[-1].committed > self._last_stamp:
            self._last_stamp = turns[-1].committed  # a resumed game's times stay in order
        return ResumePoint(game, record, turns[-1].position if turns else None,
                           turns[-1].star_tags if turns else {},
                           None if pending == [] or game.finished else pending[-1],
                           self.store.result(game.id) if game.finished else None,
                           clock_ms=tuple(clock_ms),
                           withdrawn_next=bool(withdrawn)
                           and withdrawn[-1][0].number == len(turns) + 1 and not pending,
                           departures=tuple(self.store.departures(game.id)))

    def stored_game(self, uid: str) -> StoredGame | None:
        """The store's game ``uid`` (of any table), None when it has none or cannot be
        read now."""
        if self.store is None:
            return None
        try:
            return self.store.game_by_uid(uid)
        except StoreError:
            return None

    # ------------------------------------------------------------------ games

    def start_game(self, rules: Rules, players: Sequence[str], first_seat: int = 0,
                   alignments: Sequence[str | None] | None = None,
                   clock: Mapping[str, object] | None = None) -> None:
        """A new game; it is written with its first turn or hand-over (so that a table
        started and stopped leaves no empty games). ``clock``: its time control
        (``ClockSpec.to_dict()``), None when untimed."""
        uid = uuid.uuid4().hex
        self.uid, self.game_id = uid, None
        handicaps = asdict(rules.handicaps)
        started = self._now()
        players = tuple(players)
        alignments = tuple(alignments) if alignments else None
        time_control = dict(clock) if clock is not None else None
        self._unwritten_game = lambda s: s.create_game(
            uid, table=self.table, layout=self.layout, rules=rules.name, handicaps=handicaps,
            first_seat=first_seat, players=players, alignments=alignments, started=started,
            clock=time_control)

    def write_game_now(self) -> None:
        """Write the current game before its first turn: once a Good/Evil deal has been
        shown to the players, a restart must find it (docs/store.md)."""
        self._need_game()
        self.flush()

    def continue_game(self, game: StoredGame) -> None:
        self.uid, self.game_id = game.uid, game.id
        self._unwritten_game = None

    def turn(self, number: int, seat: int, turn: Turn, state: GameState,
             players: Sequence[str], star_tags: Mapping[str, Iterable[str]], *,
             elapsed_ms: int | None = None, clock_ms: int | None = None) -> None:
        """Turn ``number`` was committed by the tracker; ``state`` is the position after it.
        ``elapsed_ms``/``clock_ms``: the mover's think time and clock after the turn, on a
        timed game (docs/clocks.md)."""
        uid = self._need_game()
        sdg = turn_to_sdg(turn, players)
        position = position_to_json(state)
        tags = {name: sorted(t) for name, t in star_tags.items()}
        committed = self._now()
        result = None
        if state.result is not None:
            result = StoredResult(state.result.kind, tuple(state.result.winners), None,
                                  committed, number)
        self._queue(f"turn {number}", lambda s: s.commit_turn(
            uid, number, seat, sdg, position, tags, committed, result,
            elapsed_ms=elapsed_ms, clock_ms=clock_ms))

    def handover(self, after_turn: int, zones: Mapping[int, Iterable[str]]) -> None:
        uid = self._need_game()
        seen = self._now()
        snapshot = {int(z): sorted(u) for z, u in zones.items() if u}
        self._queue(f"the table at the hand-over after turn {after_turn}",
                    lambda s: s.journal_observation(uid, after_turn, seen, snapshot))

    def departure(self, after_turn: int, kind: str, seat: int) -> None:
        """In a game of three or more, ``seat`` left it (``resigned``) or missed its turn
        (``skipped``) after ``after_turn`` turns (``TurnTracker.departures``)."""
        uid = self._need_game()
        at = self._now()
        self._queue(f"{kind} seat {seat} after turn {after_turn}",
                    lambda s: s.add_departure(uid, after_turn, kind, seat, at))

    def withdraw(self, number: int) -> None:
        """Undo: turn ``number``, the last committed, is withdrawn (kept in the store as
        withdrawn, never deleted)."""
        uid = self._need_game()
        at = self._now()
        self._queue(f"the withdrawal of turn {number}",
                    lambda s: s.withdraw_turn(uid, number, at))

    def finish(self, kind: str, winners: Sequence[int], by_seat: int | None,
               after_turn: int) -> None:
        uid = self._need_game()
        result = StoredResult(kind, tuple(winners), by_seat, self._now(), after_turn)
        self._queue(f"the end of the game ({kind})", lambda s: s.finish_game(uid, result))

    def _need_game(self) -> str:
        if self.uid is None:
            raise RuntimeError("the recorder has no current game: start_game first")
        if self._unwritten_game is not None:
            self._pending.append(("a new game", self._unwritten_game))
            self._unwritten_game = None
        return self.uid

    # ------------------------------------------------------------------ writing

    def _queue(self, what: str, write: Callable[[GameStore], None]) -> None:
        self._pending.append((what, write))
        self.flush()

    def flush(self) -> bool:
        """Write what waits, in order; True when nothing waits any more."""
        self._last_try = self._clock()
        if self.store is None:
            if self._opened and not self.path.exists():
                # The file this game was written to is gone (its card removed, deleted): a
                # store made anew would hold only the rest of the game.
                waiting = f" — not saved yet: {self._pending[0][0]}" if self._pending else ""
                self.fault = (f"game store {self.path}: the store file is gone (card removed? "
                              "deleted?); it is not made anew, so that the game is not split "
                              f"over two stores{waiting}")
                return False
            try:
                self.store = self._opener(self.path)
            except StoreError as exc:
                self.fault = str(exc)
                return False
            self._opened = True
        while self._pending:
            what, write = self._pending[0]
            try:
                write(self.store)
            except StoreUnavailable as exc:
                self.fault = f"{exc} — not saved yet: {what}"
                # SQLite keeps a file it opened read-only so: open it afresh next time.
                self.close()
                return False
            except StoreError as exc:  # a conflict: retrying cannot help, but keep it
                self.fault = f"{exc} — not saved: {what}"
                return False
            self._pending.pop(0)
        if self.game_id is None and self.uid is not None:
            try:
                game = self.store.game_by_uid(self.uid)
            except StoreError:
                game = None
            self.game_id = game.id if game else None
        self.fault = None
        return True

    def poll(self) -> None:
        """Retry a failed write (or open) when ``retry_s`` has passed."""
        if (self._pending or self.store is None) and \
                self._clock() - self._last_try >= self.retry_s:
            self.flush()
