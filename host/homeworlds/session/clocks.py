"""The game clocks of the table's current game, as the table stands (docs/clocks.md).

The clock of the seat to move runs from the moment the turn was handed over; it pauses
while the link is down, a reader reports faults, or the table asks for a mistake to be
corrected (``pause_reasons``); a flag fall ends the game when the time control says so.
The values themselves are ``homeworlds.clock``'s: this part only decides when they start,
pause, hand over and stop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from homeworlds.clock import MAX_REMAINING_S, ClockSpec, GameClocks, TurnTime
from homeworlds.rules import IllegalAction
from homeworlds.table.tracker import Commit, Status, TurnTracker

#: Seconds the game clocks stay paused after the last reader fault report: a failing reader
#: reports every scan (many a second), a recovered one falls silent.
READER_FAULT_HOLD_S = 3.0


@dataclass(frozen=True, slots=True)
class TableConditions:
    """What the clocks need to know of the table now (the session's watch supplies it)."""

    link_up: bool
    #: the table's last report of a reader fault (None: none yet)
    reader_fault_at: float | None
    #: the table's zones are known (a snapshot has been seen)
    known: bool
    #: every change of the table seen so far has been judged
    judged: bool
    status: Status
    #: pause reasons from outside the table (a remote game's other table away: "remote")
    elsewhere: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ClockReading:
    """The clocks as the table that made a turn read them at its commit (a remote game)."""

    #: each seat's milliseconds left, the mover's increment included
    remaining_ms: tuple[int, ...]
    #: seconds the mover's clock had run on this table for the turn when it arrived here
    used_at_arrival: float
    #: when it arrived (the session's clock): the clocks start from then when this turn
    #: ends the untimed setup
    arrived_at: float


class SessionClocks:
    """Every seat's clock for the tracker's current game, under the table's time control
    (``spec``; None: untimed). ``clock`` is the session's monotonic time."""

    def __init__(self, tracker: TurnTracker, clock: Callable[[], float],
                 spec: ClockSpec | None = None):
        self.tracker = tracker
        self.clock = clock
        #: The table's time control for new games; None or mode "none": untimed.
        self.spec = spec if spec is not None and spec.timed else None
        self._game_spec = self.spec
        #: The current game's clocks (None: untimed).
        self.clocks: GameClocks | None = None
        self._game: object = None
        #: The time of the turn committed last (set before the commit listeners run).
        self.last_turn_time: TurnTime | None = None
        #: A remote game's other table's reading of the clocks for a turn committed here
        #: (``RemoteGame.clock_reading``), or None: this table's own account stands.
        self.reading_for: Callable[[Commit], ClockReading | None] | None = None
        self.reset()

    @property
    def game_spec(self) -> ClockSpec | None:
        """The time control of the game being played (None: untimed)."""
        return self._game_spec

    def reset(self) -> None:
        """Fresh clocks for the tracker's current game (the table's time control)."""
        self._game_spec = self.spec
        spec = self._game_spec
        self.clocks = GameClocks.new(spec, len(self.tracker.players)) if spec else None
        self._game = self.tracker.state

    def restore(self, remaining_ms: tuple[int | None, ...], spec: ClockSpec | None = None
                ) -> None:
        """A resumed game's clocks: each seat's time after its last stored turn (None: its
        main time is whole). ``spec``: the time control the game began with (default the
        table's). Time the host was down is not charged; the clock of the seat to move
        starts again once the table is laid out as recorded."""
        spec = self.spec if spec is None else spec
        spec = spec if spec is not None and spec.timed else None
        self._game_spec = spec
        self.clocks = GameClocks.restored(spec, remaining_ms) if spec else None
        if self.clocks is not None:
            # Those who left the game (its departures, applied by the tracker) stay out.
            left = tuple(dict.fromkeys(seat for _, kind, seat in self.tracker.departures
                                       if kind == "resigned"))
            self.clocks = replace(self.clocks, departed=left)
        self._game = self.tracker.state

    def _start_now(self) -> bool:
        spec = self._game_spec
        state = self.tracker.state
        return (spec is not None and not self.tracker.is_over
                and (spec.timed_setup or not state.in_setup))

    def committed(self, commit: Commit, at: float | None, known: bool) -> None:
        """A turn was committed: the mover's clock stops (with its increment), the next
        seat's starts, from ``at``, the moment the table took the committed shape (None:
        now). ``known``: the table's zones are known."""
        self.last_turn_time = None
        clocks = self.clocks
        if clocks is None or self.tracker.state is not self._game:
            return
        at = self.clock() if at is None else at
        state = commit.state
        if clocks.started:
            following = None if state.is_over else state.to_move
            self.clocks, self.last_turn_time = clocks.hand_over(following, at)
            self._adopt(commit, at)
        elif self._start_now() and known:
            self.clocks = clocks.start(state.to_move, at)
            self._adopt(commit, at)

    def _adopt(self, commit: Commit, at: float) -> None:
        """A remote game's turn made at the other table: its clocks as that table read them
        at its commit; the next seat is charged what its clock ran here since the turn
        arrived (laying it out), so both tables agree within the link's delay."""
        reading = None if self.reading_for is None else self.reading_for(commit)
        turn_time, clocks = self.last_turn_time, self.clocks
        if reading is None or clocks is None \
                or len(reading.remaining_ms) != len(clocks.remaining):
            return
        if turn_time is None:  # the clocks start with this turn: they ran there since
            ran = at - reading.arrived_at
        else:
            ran = turn_time.elapsed_ms / 1000 - reading.used_at_arrival
        self.clocks = clocks = clocks.adopt(reading.remaining_ms, max(0.0, ran), at)
        if turn_time is not None:
            self.last_turn_time = replace(turn_time, clock_ms=clocks.remaining_ms(
                turn_time.seat, at))

    def agree(self, remaining_ms: tuple[int, ...], now: float | None = None) -> bool:
        """A remote game resumes after a cut: each seat's clock takes the larger of this
        table's reading and the other table's (``remaining_ms``), so both stand where the
        side that noticed the cut first stopped them (docs/remote-play.md). True when a
        clock here changed."""
        clocks = self.clocks
        if clocks is None or not clocks.started or clocks.ended \
                or len(remaining_ms) != len(clocks.remaining):
            return False
        now = self.clock() if now is None else now
        settled = clocks.at(now)
        left = list(settled.remaining)
        for seat, theirs in enumerate(remaining_ms):
            if seat not in settled.flagged and theirs > settled.remaining_ms(seat, now):
                left[seat] = min(MAX_REMAINING_S, theirs / 1000)
        if tuple(left) == settled.remaining:
            return False
        self.clocks = replace(settled, remaining=tuple(left))
        return True

    @staticmethod
    def pause_reasons(now: float, table: TableConditions) -> frozenset[str]:
        """Why the game clocks must not run at ``now`` (docs/clocks.md)."""
        reasons = set()
        if not table.link_up:
            reasons.add("link-down")
        if table.reader_fault_at is not None and now - table.reader_fault_at < \
                READER_FAULT_HOLD_S:
            reasons.add("reader-fault")
        status = table.status
        if status.phase == "handover-refused" or status.mistake_slots:
            reasons.add("mistake")
        if status.phase == "resume":
            reasons.add("resume")
        return frozenset(reasons | table.elsewhere)

    def update(self, now: float | None, table: TableConditions) -> tuple[int, float] | None:
        """Start, pause, resume or stop the clocks as the table stands at ``now`` (None:
        read the clock). Returns the seat whose flag fell, and when: its clocks are flagged;
        the caller ends the game when the time control says so (``flag_fell``)."""
        if self.tracker.state is not self._game:
            self.reset()  # a new game
        clocks = self.clocks
        if clocks is None:
            return None
        now = self.clock() if now is None else now
        if self.tracker.is_over:
            if clocks.started:
                self.clocks = clocks.stop(now)
            return None
        if not clocks.started:
            if not (self._start_now() and table.known):
                return None
            clocks = clocks.start(self.tracker.state.to_move, now)
        wanted = self.pause_reasons(now, table)
        for reason in clocks.paused - wanted:
            when = now
            if reason == "reader-fault" and table.reader_fault_at is not None:
                when = min(now, table.reader_fault_at + READER_FAULT_HOLD_S)  # exact end
            clocks = clocks.resume(reason, when)
        for reason in wanted - clocks.paused:
            clocks = clocks.pause(reason, now)
        # While a change waits to settle it may be the hand-over that stops this clock in
        # time: the flag is judged on a settled table.
        seat = clocks.fallen(now) if table.judged else None
        self.clocks = clocks
        if seat is None:
            return None
        self.clocks = clocks.flag(now)
        return seat, now

    def flag_fell(self, seat: int, now: float) -> bool:
        """End the game on ``seat``'s flag when the time control says a flag loses; True
        when it ended (three or more players: the record cannot hold it; the flag shows)."""
        spec = self._game_spec
        if spec is None or spec.on_flag != "loss":
            return False
        try:
            self.tracker.end_game("flag", seat)
        except IllegalAction:
            return False
        if self.clocks is not None:
            self.clocks = self.clocks.stop(now)
        return True

    def departed(self, kind: str, seat: int, now: float) -> None:
        """``seat`` left the game (``kind`` "resigned": a resignation in a game of three or
        more that goes on) or missed its turn ("skipped"), at ``now``, and the tracker has
        passed the turn on (``TurnTracker.leave``, ``skip_turn``). A player who left keeps
        the time they had, stopped for good; when the departed seat was to move, its clock
        stops (no increment: no turn was made) and the next seat's clock runs from ``now``
        — the players pass the token to it, as after a turn."""
        clocks = self.clocks
        if clocks is None or self.tracker.state is not self._game:
            return
        was_moving = clocks.started and clocks.to_move == seat
        if kind == "resigned":
            clocks = clocks.depart(seat, now)
        if was_moving and not self.tracker.is_over:
            clocks = clocks.start(self.tracker.state.to_move, now)
        self.clocks = clocks

    def undone(self, now: float) -> None:
        """A turn was withdrawn: the tracker's game goes on from the earlier position, the
        clocks keep the time each seat has now (an undo is no new game), and the withdrawn
        turn's mover's clock runs again once the table shows that position."""
        clocks = self.clocks
        if clocks is not None:
            self.restore(tuple(clocks.remaining_ms(s, now)
                               for s in range(len(clocks.remaining))), self._game_spec)

    def feed(self, now: float) -> dict | None:
        """The ``clocks`` member of the table feed's snapshot (None: untimed)."""
        return None if self.clocks is None else self.clocks.feed(now)
