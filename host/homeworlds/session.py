"""The running table: link events → table view → turn tracker → hints → LEDs.

One object owns the whole chain so that every entry point (``homeworlds play`` on real
hardware, ``table-replay`` and ``demo`` on the simulator) behaves the same. It is driven
by events from ``homeworlds.link`` and by the clock (``tick`` renders the LEDs); it never
reads bytes itself.

With a time control (``clock_spec``) it also runs the game clocks (docs/clocks.md): the
clock of the seat to move runs from the moment the turn was handed over, pauses while
the link is down, a reader reports faults, or the table asks for a mistake to be
corrected, and a flag fall ends the game when the time control says so.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from homeworlds.clock import LOW_TIME_S, ClockSpec, GameClocks, TurnTime
from homeworlds.hints import HintSettings, HintView, LiftedShip, Renderer
from homeworlds.link import (
    ButtonPressed,
    LinkDown,
    LinkUp,
    ReaderFault,
    SnapshotReceived,
    ZoneChanged,
)
from homeworlds.pixels import PixelOutput
from homeworlds.rules import IllegalAction, Rules
from homeworlds.table.layout import Layout
from homeworlds.table.registry import Registry
from homeworlds.table.tracker import Commit, Status, TurnTracker
from homeworlds.table.view import Observation, TableView

#: Entries kept of each kind of event in the session log. A failing reader reports an ERR
#: line every scan (tens a second), for hours: the log keeps the latest and counts the rest.
SESSION_LOG_LIMIT = 500


def _recent() -> deque:
    return deque(maxlen=SESSION_LOG_LIMIT)


@dataclass
class SessionLog:
    """What happened, for displays and tests: commits, refusals, link changes.

    Refusals, link events and reader faults keep the latest ``SESSION_LOG_LIMIT`` entries;
    ``totals`` counts every one. Commits are the game itself and are all kept."""

    commits: list[Commit] = field(default_factory=list)
    refusals: deque[Status] = field(default_factory=_recent)
    link_events: deque[object] = field(default_factory=_recent)
    reader_faults: deque[object] = field(default_factory=_recent)
    totals: Counter[str] = field(default_factory=Counter)

    def note(self, kind: str, entry: object) -> None:
        getattr(self, kind).append(entry)
        self.totals[kind] += 1


#: Seconds a seat's bar shows its Good/Evil alignment after the button press.
ALIGNMENT_SHOWN_S = 3.0

#: Seconds the game clocks stay paused after the last reader fault report: a failing reader
#: reports every scan (many a second), a recovered one falls silent.
READER_FAULT_HOLD_S = 3.0


class TableSession:
    def __init__(self, layout: Layout, registry: Registry, rules: Rules,
                 players: tuple[str, ...], *, output: PixelOutput | None = None,
                 hint_settings: HintSettings | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 red_alert: Callable | None = None, first_seat: int = 0,
                 alignments: tuple[str, ...] | None = None,
                 settle_s: float = 0.1, clock_spec: ClockSpec | None = None):
        self.layout = layout
        self.view = TableView(layout, registry)
        self.log = SessionLog()
        self.tracker = TurnTracker(layout, rules, players, on_commit=self._committed,
                                   first_seat=first_seat, alignments=alignments)
        self.output = output
        self.renderer = Renderer(layout, hint_settings or HintSettings())
        self.clock = clock
        self.link_up = False
        self.observation: Observation | None = None
        self.status: Status = self.tracker.status
        self._red_alert = red_alert
        self.red_alert_seat: int | None = None
        self.changes = 0
        #: The tracker judges the table once it has been still this long ("settled").
        self.settle_s = settle_s
        self._dirty_since: float | None = None
        self._button_seat: int | None = None
        #: Good/Evil: the seat whose alignment its bar shows, and until when.
        self._alignment_shown: tuple[int, float] | None = None
        #: Seconds each judgement of a settled table took (for benchmarks).
        self.evaluation_seconds: list[float] = []
        #: Set by the host while the game store cannot be written (an LED mark shows it).
        self.store_fault = False
        #: The table's time control for new games; None or mode "none": untimed.
        self.clock_spec = clock_spec if clock_spec is not None and clock_spec.timed else None
        self._game_clock_spec = self.clock_spec
        #: The current game's clocks (None: untimed).
        self.clocks: GameClocks | None = None
        self._clocks_game: object = None
        #: The time of the turn committed last (set before the other commit listeners run).
        self.last_turn_time: TurnTime | None = None
        #: Called with the seat whose flag fell (after the game ended, when it loses).
        self.on_flag: Callable[[int], None] | None = None
        self._reader_fault_at: float | None = None
        #: When the table took the shape being judged (a hand-over's moment).
        self._judged_since: float | None = None
        self._reset_clocks()

    # ---- events ----

    def handle(self, event: object) -> None:
        """Apply one link event to the table view (cheap); the tracker judges the table
        when it has settled (see ``evaluate``)."""
        if isinstance(event, ZoneChanged):
            self.view.set_zone(event.zone, event.uids)
            self._changed()
        elif isinstance(event, SnapshotReceived):
            self.view.replace_all(event.zones)
            self._changed()
        elif isinstance(event, ButtonPressed):
            seat = next((s.index for s in self.layout.seats if s.button == event.button), None)
            if seat is not None and self._shows_alignment(seat):
                return
            if seat is not None:
                self._button_seat = seat
                self._changed()
        elif isinstance(event, LinkUp):
            self.link_up = True
            self.log.note("link_events", event)
            self.update_clocks()
        elif isinstance(event, LinkDown):
            self.link_up = False
            self.log.note("link_events", event)
            self.update_clocks()  # paused from this moment, not from the next tick
        elif isinstance(event, ReaderFault):
            self.log.note("reader_faults", event)
            if event.reader is not None:  # None: a request the firmware rejected
                self._reader_fault_at = self.clock()
                self.update_clocks()

    def _shows_alignment(self, seat: int) -> bool:
        """Good/Evil: a player learns their secret alignment by pressing their seat's
        button while it is not their turn (pressed on their turn, it hands over): their
        own bar alone shows it for ``ALIGNMENT_SHOWN_S`` (docs/leds.md)."""
        state = self.tracker.state
        if self.tracker.alignments is None or state.is_over or seat == state.to_move:
            return False
        self._alignment_shown = (seat, self.clock() + ALIGNMENT_SHOWN_S)
        return True

    def _changed(self) -> None:
        self.changes += 1
        if self._dirty_since is None:
            self._dirty_since = self.clock()
        else:
            self._dirty_since = max(self._dirty_since, self.clock())

    def evaluate(self, force: bool = False) -> bool:
        """Let the tracker judge the table if it changed and has been still for
        ``settle_s`` (or at once with ``force``); True when it judged."""
        if self._dirty_since is None or not self.view.known:
            return False
        if not force and self.clock() - self._dirty_since < self.settle_s:
            return False
        self._judged_since, self._dirty_since = self._dirty_since, None
        button, self._button_seat = self._button_seat, None
        t0 = time.perf_counter()
        self.observation = self.view.observe()
        try:
            self.status = self.tracker.update(self.observation, button_seat=button)
        finally:
            self._judged_since = None
        self.evaluation_seconds.append(time.perf_counter() - t0)
        if self.status.phase == "handover-refused":
            self.log.note("refusals", self.status)
        return True

    def _committed(self, commit: Commit) -> None:
        self.log.commits.append(commit)
        self._clock_commit(commit)
        self.red_alert_seat = None
        if self._red_alert is not None and not commit.state.is_over \
                and not commit.state.in_setup:
            endangered = commit.state.to_move
            if self._red_alert(commit.state, endangered) is not None:
                self.red_alert_seat = endangered

    # ---- game clocks ----

    def _reset_clocks(self) -> None:
        """Fresh clocks for the tracker's current game (the table's time control)."""
        self._game_clock_spec = self.clock_spec
        spec = self._game_clock_spec
        self.clocks = GameClocks.new(spec, len(self.tracker.players)) if spec else None
        self._clocks_game = self.tracker.state

    def restore_clocks(self, remaining_ms: tuple[int | None, ...],
                       spec: ClockSpec | None = None) -> None:
        """A resumed game's clocks: each seat's time after its last stored turn (None: its
        main time is whole). ``spec``: the time control the game began with (default the
        table's). Time the host was down is not charged; the clock of the seat to move
        starts again once the table is laid out as recorded."""
        spec = self.clock_spec if spec is None else spec
        spec = spec if spec is not None and spec.timed else None
        self._game_clock_spec = spec
        self.clocks = GameClocks.restored(spec, remaining_ms) if spec else None
        self._clocks_game = self.tracker.state

    @property
    def game_clock_spec(self) -> ClockSpec | None:
        """The time control of the game being played (None: untimed)."""
        return self._game_clock_spec

    def _clocks_start_now(self) -> bool:
        spec = self._game_clock_spec
        state = self.tracker.state
        return (spec is not None and not self.tracker.is_over
                and (spec.timed_setup or not state.in_setup))

    def _clock_commit(self, commit: Commit) -> None:
        """A turn was committed: the mover's clock stops (with its increment), the next
        seat's starts, from the moment the table took the committed shape."""
        self.last_turn_time = None
        clocks = self.clocks
        if clocks is None or self.tracker.state is not self._clocks_game:
            return
        at = self._judged_since if self._judged_since is not None else self.clock()
        state = commit.state
        if clocks.started:
            following = None if state.is_over else state.to_move
            self.clocks, self.last_turn_time = clocks.hand_over(following, at)
        elif self._clocks_start_now() and self.view.known:
            self.clocks = clocks.start(state.to_move, at)

    def pause_reasons(self, now: float) -> frozenset[str]:
        """Why the game clocks must not run at ``now`` (docs/clocks.md)."""
        reasons = set()
        if not self.link_up:
            reasons.add("link-down")
        if self._reader_fault_at is not None and now - self._reader_fault_at < \
                READER_FAULT_HOLD_S:
            reasons.add("reader-fault")
        status = self.status
        if status.phase == "handover-refused" or status.mistake_slots:
            reasons.add("mistake")
        if status.phase == "resume":
            reasons.add("resume")
        return frozenset(reasons)

    def update_clocks(self, now: float | None = None) -> None:
        """Start, pause, resume or stop the clocks as the table stands, and let a flag
        fall (``tick`` calls it)."""
        if self.tracker.state is not self._clocks_game:
            self._reset_clocks()  # a new game
        clocks = self.clocks
        if clocks is None:
            return
        now = self.clock() if now is None else now
        if self.tracker.is_over:
            if clocks.started:
                self.clocks = clocks.stop(now)
            return
        if not clocks.started:
            if not (self._clocks_start_now() and self.view.known):
                return
            clocks = clocks.start(self.tracker.state.to_move, now)
        wanted = self.pause_reasons(now)
        for reason in clocks.paused - wanted:
            when = now
            if reason == "reader-fault" and self._reader_fault_at is not None:
                when = min(now, self._reader_fault_at + READER_FAULT_HOLD_S)  # exact end
            clocks = clocks.resume(reason, when)
        for reason in wanted - clocks.paused:
            clocks = clocks.pause(reason, now)
        # While a change waits to settle it may be the hand-over that stops this clock in
        # time: the flag is judged on a settled table.
        seat = clocks.fallen(now) if self._dirty_since is None else None
        self.clocks = clocks
        if seat is not None:
            self.clocks = clocks.flag(now)
            self._flag_fell(seat, now)

    def _flag_fell(self, seat: int, now: float) -> None:
        spec = self._game_clock_spec
        if spec is not None and spec.on_flag == "loss":
            try:
                self.tracker.end_game("flag", seat)
            except IllegalAction:
                pass  # three or more players: the record cannot hold it; the flag shows
            else:
                self.status = self.tracker.status
                self.red_alert_seat = None
                if self.clocks is not None:
                    self.clocks = self.clocks.stop(now)
        if self.on_flag is not None:
            self.on_flag(seat)

    def clocks_feed(self, now: float | None = None) -> dict | None:
        """The ``clocks`` member of the table feed's snapshot (None: untimed)."""
        if self.clocks is None:
            return None
        return self.clocks.feed(self.clock() if now is None else now)

    # ---- LEDs ----

    def hint_view(self) -> HintView:
        obs = self.observation
        state = self.tracker.state
        system_at: dict[int, str] = {}
        lifted = None
        if obs is not None:
            system_at = {slot: name for name, slot in self.tracker.slot_of_system(obs).items()}
            seat = state.to_move
            for piece in obs.in_hand:
                kind, slot, owner = piece.origin
                if kind == "ships" and owner == seat and slot in system_at:
                    lifted = LiftedShip(seat, piece.piece, slot)
                    break
        status = self.status
        shown = None
        if self._alignment_shown is not None and self.tracker.alignments is not None:
            seat, until = self._alignment_shown
            if self.clock() < until:
                shown = (seat, self.tracker.alignments[seat])
            else:
                self._alignment_shown = None
        clock_fraction, clock_low, flagged = None, False, frozenset[int]()
        clocks = self.clocks
        if clocks is not None:
            now = self.clock()
            flagged = frozenset(clocks.flagged)
            mover = clocks.to_move
            if mover is not None and mover not in flagged:
                clock_fraction = clocks.fraction(mover, now)
                clock_low = clocks.running and clocks.remaining_s(mover, now) < LOW_TIME_S
        return HintView(
            layout=self.layout,
            game=state,
            system_at=system_at,
            active_seat=state.to_move,
            lifted=lifted,
            turn=status.partial,
            mistake_slots=status.mistake_slots,
            refused_handover_seat=status.refused_seat,
            link_down=not self.link_up,
            red_alert_seat=self.red_alert_seat,
            store_fault=self.store_fault,
            alignment_shown=shown,
            clock_fraction=clock_fraction,
            clock_low=clock_low,
            flagged_seats=flagged,
        )

    def render(self, now: float | None = None):
        return self.renderer.render(self.hint_view(), self.clock() if now is None else now)

    def tick(self) -> None:
        """Judge the table if it settled, render the current frame and hand it to the LED
        output (which skips repeats)."""
        self.evaluate()
        self.update_clocks()
        if self.output is not None:
            self.output.submit(self.render())
            self.output.poll()
