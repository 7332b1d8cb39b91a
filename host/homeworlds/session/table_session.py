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
from dataclasses import dataclass, field, replace

from homeworlds.clock import LOW_TIME_S, ClockSpec, GameClocks, TurnTime
from homeworlds.hints import HintSettings, HintView, LiftedShip, Renderer
from homeworlds.hints.view import GuidanceShown
from homeworlds.link import (
    ButtonHeld,
    ButtonPressed,
    LinkDown,
    LinkUp,
    ReaderFault,
    SnapshotReceived,
    ZoneChanged,
)
from homeworlds.pixels import PixelOutput
from homeworlds.rules import GameState, HomeworldsError, IllegalAction, Rules
from homeworlds.session.advisor import DEFAULT_TIME_LIMITS, ComputerSeat, Thinking, make_player
from homeworlds.table.guidance import (
    Guidance,
    GuidanceError,
    TablePlan,
    guide,
    observed_places,
    plan_position,
    plan_turn,
)
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
                 settle_s: float = 0.1, clock_spec: ClockSpec | None = None,
                 computer_seats: dict[int, ComputerSeat] | None = None,
                 time_limits: dict[int, float] | None = None,
                 suggestion_level: int = 1, long_press_s: float | None = None,
                 player_factory=make_player):
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
        self.players = players
        self.rules = rules
        self.hint_settings = hint_settings or HintSettings()
        #: Seats the computer plays (docs/computer-opponent.md, "At the table").
        self.computer: dict[int, ComputerSeat] = dict(computer_seats or {})
        self.time_limits = {**DEFAULT_TIME_LIMITS, **(time_limits or {})}
        self.suggestion_level = suggestion_level
        self._player_factory = player_factory
        #: A long press is told from a short one by the table's HOLD report; a press is
        #: acted on only once it cannot become a long press (this many seconds after it).
        self.long_press_s = long_press_s
        self._pending_press: tuple[int, float] | None = None
        self._held_seat: int | None = None
        self.thinking: Thinking | None = None
        #: The computer's turn being guided: (key, seat, turn, plan), and its judgement.
        self._computer_plan: tuple[tuple, int, tuple, TablePlan] | None = None
        self.guidance: Guidance | None = None
        #: A learner's hint: (key, seat, turn, plan), and its judgement.
        self._hint_plan: tuple[tuple, int, tuple, TablePlan] | None = None
        self.hint_guidance: Guidance | None = None
        #: Lines for the terminal (the host prints and clears them).
        self.notices: deque[str] = deque(maxlen=SESSION_LOG_LIMIT)
        self.suggestions_refused = 0
        self._last_step_text: str | None = None
        #: The position whose computer turn could not be chosen or shown (not retried:
        #: the terminal says why, and the players may end the game off the board).
        self._failed_key: tuple | None = None
        self._shown_cache: tuple[tuple, GuidanceShown | None] | None = None
        #: The computer's answer for its turn, until its plan can be laid on the table.
        self._chosen: Thinking | None = None
        #: Guiding the table back to a position (``guide_back``): the plan, its judgement.
        self._restore_plan: TablePlan | None = None
        self.restore_guidance: Guidance | None = None
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
            seat = self._seat_of_button(event.button)
            if seat is None:
                return
            if self.long_press_s is not None and self.hint_settings.suggestions:
                # It may be the start of a long press (a hint): wait to see.
                self._pending_press = (seat, self.clock())
                return
            self._press(seat)
        elif isinstance(event, ButtonHeld):
            seat = self._seat_of_button(event.button)
            if seat is not None:
                if self._pending_press is not None and self._pending_press[0] == seat:
                    self._pending_press = None
                self._held_seat = seat
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

    def _seat_of_button(self, button: int) -> int | None:
        return next((s.index for s in self.layout.seats if s.button == button), None)

    def _press(self, seat: int) -> None:
        if self._shows_alignment(seat):
            return
        self._button_seat = seat
        self._changed()

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

    @property
    def judged(self) -> bool:
        """Every change of the table seen so far has been judged (status and guidance
        describe the table as last reported)."""
        return self._dirty_since is None

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
        held, self._held_seat = self._held_seat, None
        if held is not None:
            self._long_press(held)
        self._advise()
        if self.guidance is not None and self.status.phase == "playing" \
                and self.status.differences:
            # Mid-way through the computer's turn the table may show what no legal turn
            # leaves (a star whose last ship has just left): the guidance judges it.
            self.status = replace(self.status, message="", mistake_slots=frozenset(),
                                  differences=())
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
    # ---- the computer at the table ----

    def _game_key(self) -> tuple:
        """Identifies the committed position (a new game or a commit changes it). It holds
        the game's state object itself, compared by identity (``GameState`` defines no
        equality), so a new game is never taken for an old one."""
        return (self.tracker.state, len(self.tracker.record))

    def _note(self, text: str) -> None:
        self.notices.append(text)

    def _advise(self) -> None:
        """Start the computer thinking when a computer seat is to move; once it has chosen,
        plan the turn on the table and judge the table against it (and likewise a hint)."""
        tracker = self.tracker
        state = tracker.state
        obs = self.observation
        key = self._game_key()
        playing = not tracker.is_over and obs is not None and not tracker._resumed \
            and tracker.status.phase != "resume"
        thinking = self.thinking
        if thinking is not None and (thinking.key != key or not playing):
            self.thinking = None  # a stale question: its answer is dropped
            thinking = None
        if self._computer_plan is not None and self._computer_plan[0] != key:
            self._computer_plan = None
            self.guidance = None
        if self._hint_plan is not None and self._hint_plan[0] != key:
            self._hint_plan = None
            self.hint_guidance = None
        if self._restore_plan is not None and obs is not None:
            self.restore_guidance = guide(self._restore_plan, obs)
            if not self.restore_guidance.complete:
                return  # the computer waits until the table shows the position again
            self._note("the table shows the earlier position again")
            self._restore_plan, self.restore_guidance = None, None
        if not playing:
            return
        seat = state.to_move
        if self._chosen is not None and self._chosen.key != key:
            self._chosen = None
        if seat in self.computer:
            if thinking is not None and thinking.done and thinking.purpose == "turn":
                self.thinking = None
                self._chosen = thinking
            if self._chosen is not None and self._computer_plan is None:
                self._computer_chose(self._chosen, obs)
            elif self._computer_plan is None and self.thinking is None \
                    and self._chosen is None and self._failed_key != key:
                self._think(seat, "turn", self.computer[seat].level,
                            self.computer[seat].time_limit, self.computer[seat].seed)
        elif thinking is not None and thinking.done and thinking.purpose == "suggestion":
            self.thinking = None
            self._suggestion_ready(thinking, obs)
        if self._computer_plan is not None:
            self.guidance = guide(self._computer_plan[3], obs)
            self._announce(self.guidance)
            if self.guidance.pieces_done and self.view.registry.token_uid is None \
                    and self._button_seat is None:
                # No turn token: the computer's turn ends when its pieces lie as planned.
                self._button_seat = seat
                self._changed()
        if self._hint_plan is not None:
            judged = guide(self._hint_plan[3], obs)
            if judged.mistakes:
                self._note("hint cancelled: the table no longer follows the suggestion")
                self._hint_plan, self.hint_guidance = None, None
            elif judged.pieces_done:
                self._note("the suggestion is on the table: hand the turn on when ready")
                self._hint_plan, self.hint_guidance = None, None
            else:
                self.hint_guidance = judged

    def guide_back(self, position: GameState) -> Guidance:
        """Guide the players from what the table shows now to ``position`` (e.g. the
        position before an undone turn, which the caller has made the tracker's): the
        systems keep their slots, systems gone from the table get free ones. Shown like
        the computer's steps until the table shows it; raises ``GuidanceError`` when the
        table is not known yet."""
        obs = self.observation
        if obs is None:
            raise GuidanceError("the table has not been seen yet")
        slot_of = self.tracker.slot_of_system(obs)
        busy = {c.slot for c in obs.slots if not c.empty}
        plan = plan_position(self.layout, position, slot_of, start=observed_places(obs),
                             fill=True, avoid=busy)
        self._restore_plan = plan
        self.restore_guidance = guide(plan, obs)
        current = self.restore_guidance.current
        if current is not None:
            self._note("back to the earlier position: "
                       + current.text(self.layout, self.players, plan.system_at()))
        return self.restore_guidance

    def cancel_guide_back(self) -> None:
        """Stop guiding the table back (a new game, or a game ended off the board)."""
        self._restore_plan, self.restore_guidance = None, None

    def _think(self, seat: int, purpose: str, level: int, time_limit: float | None,
               seed: int | None) -> None:
        limit = time_limit if time_limit is not None else self.time_limits.get(level)
        player = self._player_factory(level, seed, self.rules, self.players)
        self.thinking = Thinking(player, self.tracker.state, purpose=purpose,
                                 key=self._game_key(), time_limit=limit, clock=self.clock)
        who = self.players[seat]
        self._note(f"{who}: the computer (level {level}) is thinking…" if purpose == "turn"
                   else f"{who} asked for a hint: the computer (level {level}) is thinking…")

    def _plan(self, thinking: Thinking, obs: Observation, token: bool) -> TablePlan | None:
        """The table after the chosen turn; None when there is none. Raises
        ``GuidanceError`` while the table does not show every system (tried again at the
        next observation)."""
        state = self.tracker.state
        if thinking.error is not None or thinking.turn is None:
            self._note(f"the computer could not choose a turn: {thinking.error}")
            return None
        token_to = None
        if token and self.view.registry.token_uid is not None:
            after = state.copy()
            after.apply_turn(thinking.turn)
            token_to = after.to_move if not after.is_over else state.next_seat(state.to_move)
            if token_to == state.to_move:
                token_to = None  # a bonus turn: the token stays
        try:
            return plan_turn(self.layout, state, self.tracker.slot_of_system(obs),
                             thinking.turn, token_to=token_to)
        except HomeworldsError as exc:
            self._note(f"the computer chose a turn the rules refuse: {exc}")
            return None

    def _computer_chose(self, thinking: Thinking, obs: Observation) -> None:
        try:
            plan = self._plan(thinking, obs, token=True)
        except GuidanceError as exc:
            # E.g. a star lifted at this instant: its system is on no slot. Kept, and
            # planned again at the next observation of the table.
            text = f"the computer's turn cannot be shown yet: {exc}"
            if text != self._last_step_text:
                self._note(text)
            self._last_step_text = text
            return
        if plan is None:
            self._failed_key = thinking.key
            self._chosen = None
            return
        self._chosen = None
        seat = thinking.seat
        self._computer_plan = (thinking.key, seat, thinking.turn, plan)
        self.tracker.expected = (seat, thinking.turn)
        self._note(f"{self.players[seat]} plays: " + "; ".join(map(str, thinking.turn))
                   + f" ({thinking.seconds():.1f} s): follow the lights")

    def _suggestion_ready(self, thinking: Thinking, obs: Observation) -> None:
        try:
            plan = self._plan(thinking, obs, token=False)
        except GuidanceError as exc:
            self._note(f"the hint cannot be shown: {exc}; long-press again")
            return
        if plan is None:
            return
        self._hint_plan = (thinking.key, thinking.seat, thinking.turn, plan)
        self.hint_guidance = guide(plan, obs)
        self._note(f"hint for {self.players[thinking.seat]}: "
                   + "; ".join(map(str, thinking.turn)))
        current = self.hint_guidance.current
        if current is not None:
            self._note("  " + current.text(self.layout, self.players, plan.system_at()))

    def _announce(self, guidance: Guidance) -> None:
        current = guidance.current
        text = None if current is None else current.text(self.layout, self.players,
                                                          guidance.plan.system_at())
        if guidance.mistakes:
            text = guidance.mistakes[0].text(self.layout, self.players,
                                             guidance.plan.system_at())
        if text is not None and text != self._last_step_text:
            self._note(text)
        self._last_step_text = text

    def _long_press(self, seat: int) -> None:
        """A learner's hint: the computer's suggestion for ``seat``, shown as guidance in
        the suggestion colour; nothing is committed. A second long press cancels it."""
        state = self.tracker.state
        if not self.hint_settings.suggestions:
            self.suggestions_refused += 1
            self._note("suggestions are turned off at this table (tournament mode)")
            return
        asked = self.thinking is not None and self.thinking.purpose == "suggestion"
        if self._hint_plan is not None or asked:
            self._hint_plan, self.hint_guidance = None, None
            if asked:
                self.thinking = None
            self._note("hint cancelled")
            return
        if self.tracker.is_over or seat != state.to_move or seat in self.computer \
                or state.in_setup:
            self._note(f"a hint is for the player to move, during the game "
                       f"({self.players[state.to_move]} is to move)")
            return
        if self.thinking is not None:
            return  # the computer is busy with its own turn
        self._think(seat, "suggestion", self.suggestion_level, None, None)

    def guidance_shown(self) -> GuidanceShown | None:
        """What the lights and displays show of the computer: thinking, or the step
        (worked out once per judgement of the table, not per frame)."""
        thinking = self.thinking
        # The cache holds the objects themselves (compared by identity), so a new
        # judgement is never mistaken for an old one.
        key = (thinking, thinking is not None and thinking.done, self.guidance,
               self.hint_guidance, self.restore_guidance)
        cached = self._shown_cache
        if cached is not None and all(a is b for a, b in zip(cached[0], key, strict=True)):
            return cached[1]
        shown = self._guidance_shown()
        self._shown_cache = (key, shown)
        return shown

    def _guidance_shown(self) -> GuidanceShown | None:
        thinking = self.thinking
        if thinking is not None and not thinking.done:
            return GuidanceShown(thinking.seat, "thinking",
                                 suggestion=thinking.purpose == "suggestion")
        restore = None if self._restore_plan is None else (
            (), self.tracker.state.to_move, (), self._restore_plan)
        for judged, suggestion, plan, restoring in (
                (self.restore_guidance, False, restore, True),
                (self.guidance, False, self._computer_plan, False),
                (self.hint_guidance, True, self._hint_plan, False)):
            if judged is None or plan is None:
                continue
            step = judged.current
            names = judged.plan.system_at()
            if step is None:
                continue
            text = step.text(self.layout, self.players, names)
            if judged.mistakes:
                text = judged.mistakes[0].text(self.layout, self.players, names)
            return GuidanceShown(
                plan[1], "guiding", suggestion=suggestion, kind=step.kind, piece=step.piece,
                lift_slot=step.lift_slot, put_slot=step.put_slot,
                from_bank=step.kind == "from-bank", new_system=step.new_system,
                token_seat=step.target.seat if step.kind == "token" else None, text=text,
                detail=judged.to_json(self.layout, self.players), restore=restoring)
        return None

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
        guidance = self.guidance_shown()
        mistakes = status.mistake_slots
        for judged in (self.guidance, self.hint_guidance, self.restore_guidance):
            if judged is not None and guidance is not None and guidance.phase == "guiding":
                mistakes = mistakes | judged.mistake_slots
        return HintView(
            layout=self.layout,
            game=state,
            system_at=system_at,
            active_seat=state.to_move,
            lifted=lifted,
            turn=status.partial,
            mistake_slots=mistakes,
            guidance=guidance,
            refused_handover_seat=status.refused_seat,
            link_down=not self.link_up,
            red_alert_seat=self.red_alert_seat,
            store_fault=self.store_fault,
            alignment_shown=shown,
            clock_fraction=clock_fraction,
            clock_low=clock_low,
            flagged_seats=flagged,
        ) if self.hint_level == "full" else self._reduced_view(
            lifted, status, shown, guidance, mistakes, clock_fraction, clock_low, flagged)

    def _reduced_view(self, lifted, status, shown, guidance, mistakes, clock_fraction,
                      clock_low, flagged) -> HintView:
        """The hint view of a lower hint level: no lifted ship (no move hints); at
        "minimal" no Red Alert either. The computer's guidance and the clocks stay."""
        state = self.tracker.state
        obs = self.observation
        system_at = {slot: name for name, slot in self.tracker.slot_of_system(obs).items()} \
            if obs is not None else {}
        return HintView(
            layout=self.layout, game=state, system_at=system_at, active_seat=state.to_move,
            lifted=None, turn=status.partial, mistake_slots=mistakes, guidance=guidance,
            refused_handover_seat=status.refused_seat, link_down=not self.link_up,
            red_alert_seat=None if self.hint_level == "minimal" else self.red_alert_seat,
            store_fault=self.store_fault, alignment_shown=shown,
            clock_fraction=clock_fraction, clock_low=clock_low, flagged_seats=flagged)

    def render(self, now: float | None = None):
        return self.renderer.render(self.hint_view(), self.clock() if now is None else now)

    def tick(self) -> None:
        """Judge the table if it settled, render the current frame and hand it to the LED
        output (which skips repeats)."""
        if self._pending_press is not None and self.long_press_s is not None \
                and self.clock() - self._pending_press[1] >= self.long_press_s:
            seat, _ = self._pending_press
            self._pending_press = None
            self._press(seat)  # released before it became a long press
        if not self.evaluate() and self.thinking is not None and self.thinking.done:
            self._advise()
        self.update_clocks()
        if self.output is not None:
            self.output.submit(self.render())
            self.output.poll()
        for hook in self.tick_hooks:
            hook()
