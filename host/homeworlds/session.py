"""The running table: link events → table view → turn tracker → hints → LEDs.

One object owns the whole chain so that every entry point (``homeworlds play`` on real
hardware, ``table-replay`` and ``demo`` on the simulator) behaves the same. It is driven
by events from ``homeworlds.link`` and by the clock (``tick`` renders the LEDs); it never
reads bytes itself.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

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
from homeworlds.rules import Rules
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


#: How much the LEDs show (the display's admin settings): "full" (move hints and
#: warnings), "warnings" (no move hints: mistakes, Red Alert, overpopulation), "minimal"
#: (the turn bars and mistakes only).
HINT_LEVELS = ("full", "warnings", "minimal")

#: Seconds a seat's bar shows its Good/Evil alignment after the button press.
ALIGNMENT_SHOWN_S = 3.0


class TableSession:
    def __init__(self, layout: Layout, registry: Registry, rules: Rules,
                 players: tuple[str, ...], *, output: PixelOutput | None = None,
                 hint_settings: HintSettings | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 red_alert: Callable | None = None, first_seat: int = 0,
                 alignments: tuple[str, ...] | None = None,
                 settle_s: float = 0.1):
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
        #: Called at the end of every tick, on the table's thread: the display's admin
        #: commands and its feed producer (homeworlds.web.live) hang here.
        self.tick_hooks: list[Callable[[], None]] = []
        #: One of HINT_LEVELS (changed from the display's admin page).
        self.hint_level = "full"
        #: The LED brightness now (the admin page may lower it below the configured one).
        self.brightness = output.correction.brightness if output is not None else None

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
        elif isinstance(event, LinkDown):
            self.link_up = False
            self.log.note("link_events", event)
        elif isinstance(event, ReaderFault):
            self.log.note("reader_faults", event)

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
        self._dirty_since = None
        button, self._button_seat = self._button_seat, None
        t0 = time.perf_counter()
        self.observation = self.view.observe()
        self.status = self.tracker.update(self.observation, button_seat=button)
        self.evaluation_seconds.append(time.perf_counter() - t0)
        if self.status.phase == "handover-refused":
            self.log.note("refusals", self.status)
        return True

    def _committed(self, commit: Commit) -> None:
        self.log.commits.append(commit)
        self.red_alert_seat = None
        if self._red_alert is not None and not commit.state.is_over \
                and not commit.state.in_setup:
            endangered = commit.state.to_move
            if self._red_alert(commit.state, endangered) is not None:
                self.red_alert_seat = endangered

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
        ) if self.hint_level == "full" else self._reduced_view(lifted, status, shown)

    def _reduced_view(self, lifted, status, shown) -> HintView:
        """The hint view of a lower hint level: no lifted ship (no move hints); at
        "minimal" no Red Alert either."""
        state = self.tracker.state
        obs = self.observation
        system_at = {slot: name for name, slot in self.tracker.slot_of_system(obs).items()} \
            if obs is not None else {}
        return HintView(
            layout=self.layout, game=state, system_at=system_at, active_seat=state.to_move,
            lifted=None, turn=status.partial, mistake_slots=status.mistake_slots,
            refused_handover_seat=status.refused_seat, link_down=not self.link_up,
            red_alert_seat=None if self.hint_level == "minimal" else self.red_alert_seat,
            store_fault=self.store_fault, alignment_shown=shown)

    def render(self, now: float | None = None):
        return self.renderer.render(self.hint_view(), self.clock() if now is None else now)

    def tick(self) -> None:
        """Judge the table if it settled, render the current frame and hand it to the LED
        output (which skips repeats)."""
        self.evaluate()
        if self.output is not None:
            self.output.submit(self.render())
            self.output.poll()
        for hook in self.tick_hooks:
            hook()
