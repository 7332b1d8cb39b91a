"""The running table: link events → table view → turn tracker → hints → LEDs.

One object owns the whole chain so that every entry point (``homeworlds play`` on real
hardware, ``table-replay`` and ``demo`` on the simulator) behaves the same. It is driven
by events from ``homeworlds.link`` and by the clock (``tick`` renders the LEDs); it never
reads bytes itself. Its parts live in their own modules: ``watch`` (the table's reports,
the seat buttons), ``clocks`` (the game clocks), ``computer`` (computer seats and hints),
``lights`` (the hint view and the LEDs), ``events`` (who is told what, in which order).

With a time control (``clock_spec``) it also runs the game clocks (docs/clocks.md): the
clock of the seat to move runs from the moment the turn was handed over, pauses while
the link is down, a reader reports faults, or the table asks for a mistake to be
corrected, and a flag fall ends the game when the time control says so.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from homeworlds.clock import ClockSpec, GameClocks, TurnTime
from homeworlds.hints import GuidanceShown, HintSettings, HintView
from homeworlds.link import LinkDown, LinkUp, ReaderFault
from homeworlds.pixels import PixelOutput
from homeworlds.rules import GameState, IllegalAction, Rules, Turn
from homeworlds.session.advisor import ComputerSeat, make_player
from homeworlds.session.clocks import SessionClocks, TableConditions
from homeworlds.session.computer import ComputerAtTable, SeatSettings
from homeworlds.session.events import Stage, TableEvents
from homeworlds.session.lights import TableLights
from homeworlds.session.watch import SeatButtons, TableWatch
from homeworlds.table.guidance import Guidance, GuidanceError
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


class TableSession:
    """The running table: link events → table view → turn tracker → hints → LEDs.

    Its parts, each with its own job: ``watch`` (what the table reports and when it may be
    judged), ``buttons`` (the seat buttons' gestures), ``tracker`` (the game, the one
    owner of game state), ``timekeeper`` (the game clocks), ``computer`` (computer seats
    and learners' hints) and ``lights`` (the hint view and the LEDs). The session drives
    them in order and tells the rest of the host what happened through ``events``.
    ``new_session`` builds one from plain settings.
    """

    def __init__(self, tracker: TurnTracker, watch: TableWatch, buttons: SeatButtons,
                 timekeeper: SessionClocks, lights: TableLights, seats: SeatSettings, *,
                 red_alert: Callable | None = None):
        self.tracker = tracker
        self.watch = watch
        self.buttons = buttons
        self.timekeeper = timekeeper
        self.lights = lights
        self.events = TableEvents()
        self.log = SessionLog()
        #: Lines for the terminal (the host prints and clears them).
        self.notices: deque[str] = deque(maxlen=SESSION_LOG_LIMIT)
        #: Pause reasons from outside the table, asked at every clock update (a remote
        #: game's side: "remote" while the other table is away; docs/remote-play.md).
        self.pause_sources: list[Callable[[], str | None]] = []
        self.computer = ComputerAtTable(
            tracker.layout, tracker, watch.clock, seats,
            has_token=watch.view.registry.token_uid is not None,
            request_handover=self._computer_hands_over, notices=self.notices)
        self.observation: Observation | None = None
        self.status: Status = tracker.status
        self._red_alert = red_alert
        self.red_alert_seat: int | None = None
        #: The seat whose button asked for a hand-over, judged with the table next.
        self._handover_seat: int | None = None
        #: When the table took the shape being judged (a hand-over's moment).
        self._judged_since: float | None = None
        #: Seconds each judgement of a settled table took (for benchmarks).
        self.evaluation_seconds: list[float] = []
        #: The hint view of the tick being told (``tick_view``), and whether one is.
        self._tick_view: HintView | None = None
        self._in_tick = False
        tracker.on_commit = self._committed
        tracker.on_handover = self.events.handover.emit
        tracker.on_new_game = self.events.new_game.emit

    # ---- the parts' state, as the host and the displays read it ----

    @property
    def layout(self) -> Layout:
        return self.tracker.layout

    @property
    def players(self) -> tuple[str, ...]:
        return self.tracker.players

    @property
    def rules(self) -> Rules:
        return self.tracker.rules

    @property
    def clock(self) -> Callable[[], float]:
        """The session's monotonic time (injected: tests and simulations pass their own)."""
        return self.watch.clock

    @property
    def view(self) -> TableView:
        return self.watch.view

    @property
    def link_up(self) -> bool:
        return self.watch.link_up

    @property
    def judged(self) -> bool:
        """Every change of the table seen so far has been judged (status and guidance
        describe the table as last reported)."""
        return self.watch.judged

    @property
    def handover_seat(self) -> int | None:
        """The seat whose button asked for a hand-over, judged with the table next."""
        return self._handover_seat

    @property
    def output(self) -> PixelOutput | None:
        return self.lights.output

    @property
    def clocks(self) -> GameClocks | None:
        """The current game's clocks (None: untimed)."""
        return self.timekeeper.clocks

    @property
    def clock_spec(self) -> ClockSpec | None:
        """The table's time control for new games (None: untimed)."""
        return self.timekeeper.spec

    @clock_spec.setter
    def clock_spec(self, spec: ClockSpec | None) -> None:
        self.timekeeper.spec = spec

    @property
    def game_clock_spec(self) -> ClockSpec | None:
        """The time control of the game being played (None: untimed)."""
        return self.timekeeper.game_spec

    @property
    def last_turn_time(self) -> TurnTime | None:
        """The time of the turn committed last (set before the commit listeners run)."""
        return self.timekeeper.last_turn_time

    # ---- events ----

    def handle(self, event: object) -> None:
        """Apply one link event to the table view (cheap); the tracker judges the table
        when it has settled (see ``evaluate``)."""
        if self.watch.handle(event):
            if isinstance(event, LinkUp | LinkDown):
                self.log.note("link_events", event)
                self.update_clocks()  # paused from this moment, not from the next tick
            elif isinstance(event, ReaderFault):
                self.log.note("reader_faults", event)
                if event.reader is not None:
                    self.update_clocks()
            return
        gesture = self.buttons.handle(event)
        if gesture is None:
            return
        kind, side = gesture
        if kind == "press":
            self._press(self.tracker.seat_at_side(side))
        elif kind == "together":
            self._held_together()
        else:
            self.watch.changed()  # a long press: judged (and answered) with the table

    def _press(self, seat: int) -> None:
        if self._shows_alignment(seat):
            return
        self._handover_seat = seat
        self.watch.changed()

    def _held_together(self) -> None:
        """Both seat buttons held together: the junior player's Brain Transference (000,
        NOVICE VS. EXPERT), or a notice why it cannot be now."""
        if self.buttons.take_together() is None:
            return
        try:
            self.brain_transference()
        except IllegalAction as exc:
            self.notices.append(f"both buttons held: {exc}")

    def brain_transference(self) -> None:
        """The junior player uses Brain Transference (``TurnTracker.brain_transference``;
        IllegalAction when it cannot be now): the turn is committed, both bars blink to
        confirm it, and the players are told to change places — the pieces stay."""
        seat = self.tracker.state.to_move
        self.tracker.brain_transference()
        self.status = self.tracker.status
        self.red_alert_seat = None
        self.lights.acknowledge(0, 1)
        self.notices.append(
            f"turn {len(self.tracker.record)}: {self.players[seat]} uses Brain Transference: "
            f"{self.players[seat]} and {self.players[1 - seat]} change places, the pieces "
            "stay where they are")
        self.watch.changed()

    def _computer_hands_over(self, seat: int) -> None:
        if self._handover_seat is None:
            self._handover_seat = seat
            self.watch.changed()

    def _shows_alignment(self, seat: int) -> bool:
        """Good/Evil: a player learns their secret alignment by pressing their seat's
        button while it is not their turn (pressed on their turn, it hands over): their
        own bar alone shows it for ``ALIGNMENT_SHOWN_S`` (docs/leds.md). A card this table
        does not know (a remote game's other tables' seats, or before the cards are dealt
        across the tables: ``GameState.secret_seats``) is never shown."""
        state = self.tracker.state
        if self.tracker.alignments is None or state.is_over or seat == state.to_move \
                or seat in state.secret_seats:
            return False
        self.lights.show_alignment(seat)
        return True

    def evaluate(self, force: bool = False) -> bool:
        """Let the tracker judge the table if it changed and has been still for
        ``settle_s`` (or at once with ``force``); True when it judged."""
        since = self.watch.take_settled(force)
        if since is None:
            return False
        self._judged_since = since
        button, self._handover_seat = self._handover_seat, None
        t0 = time.perf_counter()
        self.observation = self.watch.view.observe()
        try:
            self.status = self.tracker.update(self.observation, button_seat=button)
        finally:
            self._judged_since = None
        self.evaluation_seconds.append(time.perf_counter() - t0)
        if self.status.phase == "handover-refused":
            self.log.note("refusals", self.status)
        held = self.buttons.take_held()
        if held is not None:
            held = self.tracker.seat_at_side(held)
            if not self._declares(held):
                self.computer.long_press(held)
        self.computer.advise(self.observation)
        if self.computer.guidance is not None and self.status.phase == "playing" \
                and self.status.differences:
            # Mid-way through the computer's turn the table may show what no legal turn
            # leaves (a star whose last ship has just left): the guidance judges it.
            self.status = replace(self.status, message="", mistake_slots=frozenset(),
                                  differences=())
        return True

    def _declares(self, seat: int) -> bool:
        """003 (Overpopulation): either player may declare an overpopulation at any time.
        A long press of the button of a seat not to move, while the table shows one (its
        ring marks it), declares it for that player: the catastrophe the turn then shows
        is recorded as theirs (``by Name``); their bar blinks to say it was heard. False:
        nothing to declare (the press is a hint request, as for every long press)."""
        declared = self.tracker.declare_overpopulations(seat)
        if not declared:
            return False
        self.lights.acknowledge(seat)
        what = ", ".join(f"{name} ({color.name.lower()})" for name, color in declared)
        text = (f"{self.players[seat]} declares the overpopulation of {what}: clear it; "
                f"the record says by {self.players[seat]}")
        self.notices.append(text)
        self.status = replace(self.status, message=text)
        return True

    def _committed(self, commit: Commit) -> None:
        self.log.commits.append(commit)
        if commit.revealed:
            # 002 (Elimination and Winning): the eliminating and eliminated players reveal
            # their alignments at the end of the turn: the bars show them to everyone.
            self.lights.show_revealed(commit.revealed)
            self.notices.append(revealed_text(len(self.tracker.record), self.players,
                                              commit.revealed))
        self.timekeeper.committed(commit, self._judged_since, self.watch.view.known)
        self.red_alert_seat = None
        if self._red_alert is not None and not commit.state.is_over \
                and not commit.state.in_setup:
            endangered = commit.state.to_move
            if self._red_alert(commit.state, endangered) is not None:
                self.red_alert_seat = endangered
        self.events.committed.emit(commit)

    # ---- the game changed from outside the table (admin commands, the terminal) ----

    def end_game(self, kind: str, seat: int | None = None) -> None:
        """End the game off the board (``resigned`` by ``seat``, ``agreed-draw``,
        ``abandoned``); IllegalAction when it cannot end so."""
        self.tracker.end_game(kind, seat)
        self.status = self.tracker.status

    def resign(self, seat: int) -> bool:
        """``seat`` resigns: the game ends (True) or, with three or more players who play
        on, the player leaves it (False; ``TurnTracker.leave``). IllegalAction when it
        cannot be done."""
        now = self.clock()
        ended = self.tracker.leave(seat)
        if not ended:
            self.timekeeper.departed("resigned", seat, now)
        self.status = self.tracker.status
        self.red_alert_seat = None
        self.watch.changed()  # judged again: the turn may have passed on
        return ended

    def skip_turn(self) -> int:
        """The player to move misses the turn (three or more players:
        ``TurnTracker.skip_turn``); returns their seat."""
        now = self.clock()
        seat = self.tracker.skip_turn()
        self.timekeeper.departed("skipped", seat, now)
        self.status = self.tracker.status
        self.red_alert_seat = None
        self.watch.changed()
        return seat

    def new_game(self, prepare: Callable[[], None] | None = None) -> None:
        """Start the next game now (the last one ended or is abandoned); ``prepare`` runs
        once the tracker holds the new game (the host's store, export and deal)."""
        self.tracker.new_game()
        if prepare is not None:
            prepare()
        self.status = self.tracker.status
        self.red_alert_seat = None
        self.computer.cancel_guide_back()

    def withdraw_last_turn(self) -> tuple[int, int, Turn]:
        """Undo: the last turn leaves the record (number, seat and turn are returned;
        IllegalAction when there is none). The clocks keep each seat's time; the LEDs guide
        the players back to the position before it, and the table is judged again."""
        number = len(self.tracker.record)
        now = self.clock() if self.timekeeper.clocks is not None else None
        seat, turn = self.tracker.withdraw_last_turn()
        if now is not None:
            self.timekeeper.undone(now)
        self.status = self.tracker.status
        self.red_alert_seat = None
        self.log.commits[:] = self.log.commits[:number - 1]
        try:
            self.guide_back(self.tracker.state)
        except GuidanceError as exc:
            self.notices.append(
                f"turn {number} withdrawn: put the pieces back as the display shows "
                f"(the lights cannot guide: {exc})")
        # The table changed nothing, but the tracker must judge it against the restored
        # position at once.
        self.watch.changed()
        return number, seat, turn

    # ---- game clocks ----

    def restore_clocks(self, remaining_ms: tuple[int | None, ...],
                       spec: ClockSpec | None = None) -> None:
        """A resumed game's clocks (see ``SessionClocks.restore``)."""
        self.timekeeper.restore(remaining_ms, spec)

    def _conditions(self) -> TableConditions:
        watch = self.watch
        elsewhere = frozenset(r for source in self.pause_sources if (r := source()))
        return TableConditions(watch.link_up, watch.reader_fault_at, watch.view.known,
                               watch.judged, self.status, elsewhere)

    def pause_reasons(self, now: float) -> frozenset[str]:
        """Why the game clocks must not run at ``now`` (docs/clocks.md)."""
        return self.timekeeper.pause_reasons(now, self._conditions())

    def update_clocks(self, now: float | None = None) -> None:
        """Start, pause, resume or stop the clocks as the table stands, and let a flag
        fall (``tick`` calls it)."""
        fallen = self.timekeeper.update(now, self._conditions())
        if fallen is None:
            return
        seat, at = fallen
        if self.timekeeper.flag_fell(seat, at):
            self.status = self.tracker.status
            self.red_alert_seat = None
        self.events.flag.emit(seat)

    def clocks_feed(self, now: float | None = None) -> dict | None:
        """The ``clocks`` member of the table feed's snapshot (None: untimed)."""
        if self.timekeeper.clocks is None:
            return None
        return self.timekeeper.feed(self.clock() if now is None else now)

    # ---- the computer at the table ----

    def guidance_shown(self) -> GuidanceShown | None:
        """What the lights and displays show of the computer: thinking, or the step."""
        return self.computer.guidance_shown()

    def guide_back(self, position: GameState) -> Guidance:
        """Guide the players from what the table shows now to ``position`` (see
        ``ComputerAtTable.guide_back``)."""
        return self.computer.guide_back(position, self.observation)

    # ---- LEDs ----

    def hint_view(self) -> HintView:
        """The table as the LEDs show it now."""
        guidance = self.computer.guidance_shown()
        return self.lights.hint_view(
            self.tracker, self.observation, self.status, clocks=self.timekeeper.clocks,
            guidance=guidance, guidance_mistakes=self.computer.mistake_slots(guidance),
            link_up=self.watch.link_up, red_alert_seat=self.red_alert_seat)

    def tick_view(self) -> HintView:
        """The hint view of the tick being told: built once, for the LEDs and the displays
        alike. Outside a tick, the view as the table stands now."""
        if not self._in_tick:
            return self.hint_view()
        if self._tick_view is None:
            self._tick_view = self.hint_view()
        return self._tick_view

    def render(self, now: float | None = None):
        return self.lights.render(self.tick_view(), now)

    def tick(self) -> None:
        """One tick of the table loop: act on a press released before it became a long
        one; judge the table if it settled (or lay out the computer's answer); let what
        acts on the table from outside act (the tick's listeners before ``Stage.FEED``:
        admin commands, the event's clock); run the clocks; then build the hint view once,
        show it on the LEDs (the output skips repeats) and tell the tick's later listeners
        (the displays), which read the same view (``tick_view``)."""
        due = self.buttons.due()
        if due is not None:
            self._press(self.tracker.seat_at_side(due))  # released before a long press
        if self.buttons.hold_due():
            self.watch.changed()  # a long press alone, no other seat's with it
        if not self.evaluate() and self.computer.answer_ready():
            self.computer.advise(self.observation)
        self.events.tick.emit(before=Stage.FEED)
        self.update_clocks()
        self._in_tick, self._tick_view = True, None
        try:
            if self.lights.output is not None:
                self.lights.show(self.render())
            self.events.tick.emit(since=Stage.FEED)
        finally:
            self._in_tick, self._tick_view = False, None


#: Seconds within which the two seat buttons' long presses count as held together
#: (Brain Transference); a long press alone waits this long before it is acted on.
TOGETHER_S = 1.0


def revealed_text(number: int, players: tuple[str, ...], revealed: dict[int, str]) -> str:
    """``turn 12: alignments revealed: Ann Evil, Bob Good`` (Good/Evil, an elimination)."""
    return f"turn {number}: alignments revealed: " + ", ".join(
        f"{players[seat]} {alignment.capitalize()}" for seat, alignment in sorted(revealed.items()))


def new_session(layout: Layout, registry: Registry, rules: Rules, players: tuple[str, ...],
                *, output: PixelOutput | None = None,
                hint_settings: HintSettings | None = None,
                clock: Callable[[], float] = time.monotonic,
                red_alert: Callable | None = None, first_seat: int = 0,
                alignments: tuple[str, ...] | None = None, settle_s: float = 0.1,
                clock_spec: ClockSpec | None = None,
                computer_seats: dict[int, ComputerSeat] | None = None,
                time_limits: dict[int, float] | None = None, suggestion_level: int = 1,
                long_press_s: float | None = None, player_factory=make_player
                ) -> TableSession:
    """A ``TableSession`` with its parts, from plain settings (the runtime builds one from
    a table's configuration; tests and simulations call this)."""
    hint_settings = hint_settings or HintSettings()
    tracker = TurnTracker(layout, rules, players, first_seat=first_seat,
                          alignments=alignments)
    watch = TableWatch(layout, registry, clock, settle_s=settle_s)
    buttons = SeatButtons(layout, clock, long_press_s=long_press_s,
                          waits=hint_settings.suggestions,
                          together_s=TOGETHER_S if rules.handicaps.brain_transference
                          and len(players) == 2 else None)
    timekeeper = SessionClocks(tracker, clock, clock_spec)
    lights = TableLights(layout, output, hint_settings, clock)
    seats = SeatSettings(dict(computer_seats or {}), dict(time_limits or {}),
                         suggestion_level, hint_settings.suggestions, player_factory)
    return TableSession(tracker, watch, buttons, timekeeper, lights, seats,
                        red_alert=red_alert)
