"""The computer at the table: its seats' turns and the learners' hints, as guidance.

When a computer seat is to move the computer thinks in a worker thread (``advisor``); its
chosen turn is planned on the table (``table.guidance.plan_turn``) and every observation
of the table is judged against that plan, step by step, until the players have carried it
out. A learner's long press asks for a hint the same way, shown in the suggestion colour;
after an undo the players are guided back to the earlier position (``guide_back``).
Nothing here commits a turn: the tracker does, when the table is handed over.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from homeworlds.hints import GuidanceShown
from homeworlds.rules import GameState, HomeworldsError, Turn
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
from homeworlds.table.tracker import TurnTracker
from homeworlds.table.view import Observation


@dataclass(frozen=True)
class SeatSettings:
    """Who the computer plays and how it thinks (docs/computer-opponent.md, "At the table").

    ``seats``: the seats the computer plays; ``time_limits``: seconds per move by level
    (the defaults for levels not given); ``suggestion_level``: the level of a learner's
    hint; ``suggestions``: hints allowed at all (off in tournament mode);
    ``player_factory``: (level, seed, rules, names) -> a player with ``choose_turn``."""

    seats: dict[int, ComputerSeat] = field(default_factory=dict)
    time_limits: dict[int, float] = field(default_factory=dict)
    suggestion_level: int = 1
    suggestions: bool = True
    player_factory: Callable = make_player


class PlannedTurn(NamedTuple):
    """A turn the computer chose, laid out on the table: for the committed position
    ``key``, ``seat`` plays ``turn``, which the table shows as ``plan``."""

    key: tuple
    seat: int
    turn: Turn
    plan: TablePlan
    #: a seat played elsewhere: where its turn came from ("the other table"); None: the
    #: computer chose it
    played_from: str | None = None


class ComputerAtTable:
    """The computer seats and the learners' hints of one table.

    ``request_handover(seat)`` is called when the computer's pieces lie as planned on a
    table without a turn token (its turn then ends as if its button were pressed);
    ``notices`` receives lines for the terminal."""

    def __init__(self, layout: Layout, tracker: TurnTracker, clock: Callable[[], float],
                 settings: SeatSettings, *, has_token: bool,
                 request_handover: Callable[[int], None], notices: deque[str]):
        self.layout = layout
        self.tracker = tracker
        self.clock = clock
        #: Seats the computer plays.
        self.seats: dict[int, ComputerSeat] = dict(settings.seats)
        self.time_limits = {**DEFAULT_TIME_LIMITS, **settings.time_limits}
        self.suggestion_level = settings.suggestion_level
        self.suggestions = settings.suggestions
        self._player_factory = settings.player_factory
        self._has_token = has_token
        self._request_handover = request_handover
        self.notices = notices
        self.thinking: Thinking | None = None
        #: The computer's turn being guided, and its judgement.
        self.planned_turn: PlannedTurn | None = None
        self.guidance: Guidance | None = None
        #: A learner's hint, and its judgement.
        self.hint: PlannedTurn | None = None
        self.hint_guidance: Guidance | None = None
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

    def _game_key(self) -> tuple:
        """Identifies the committed position (a new game, a commit or a departure changes
        it: a player who left or missed the turn passes the move on, and a question asked
        for them no longer applies). It holds the game's state object itself, compared by
        identity (``GameState`` defines no equality), so a new game is never taken for an
        old one."""
        return (self.tracker.state, len(self.tracker.record), len(self.tracker.departures))

    def _note(self, text: str) -> None:
        self.notices.append(text)

    def advise(self, obs: Observation | None) -> None:
        """Start the computer thinking when a computer seat is to move; once it has chosen,
        plan the turn on the table and judge the table (``obs``) against it (and likewise
        a hint)."""
        tracker = self.tracker
        state = tracker.state
        key = self._game_key()
        playing = not tracker.is_over and obs is not None and not tracker.resuming \
            and tracker.status.phase != "resume"
        self._drop_stale(key, playing)
        thinking = self.thinking
        if self._restore_plan is not None and obs is not None:
            self.restore_guidance = guide(self._restore_plan, obs)
            if not self.restore_guidance.complete:
                return  # the computer waits until the table shows the position again
            self._note("the table shows the earlier position again")
            self._restore_plan, self.restore_guidance = None, None
        if not playing or obs is None:
            return
        seat = state.to_move
        if self._chosen is not None and self._chosen.key != key:
            self._chosen = None
        if seat in self.seats:
            if thinking is not None and thinking.done and thinking.purpose == "turn":
                self.thinking = None
                self._chosen = thinking
            if self._chosen is not None and self.planned_turn is None:
                self._computer_chose(self._chosen, obs)
            elif self.planned_turn is None and self.thinking is None \
                    and self._chosen is None and self._failed_key != key:
                self._think(seat, "turn", self.seats[seat].level,
                            self.seats[seat].time_limit, self.seats[seat].seed)
        elif thinking is not None and thinking.done and thinking.purpose == "suggestion":
            self.thinking = None
            self._suggestion_ready(thinking, obs)
        if self.planned_turn is not None:
            self.guidance = guide(self.planned_turn.plan, obs)
            self._announce(self.guidance)
            if self.guidance.pieces_done and not self._has_token:
                # No turn token: the computer's turn ends when its pieces lie as planned.
                self._request_handover(seat)
        if self.hint is not None:
            self._follow_hint(self.hint, obs)

    def _drop_stale(self, key: tuple, playing: bool) -> None:
        """Forget the question, plan and hint of another position (or of a game that
        stopped): their answers no longer apply."""
        thinking = self.thinking
        if thinking is not None and (thinking.key != key or not playing):
            self.thinking = None  # a stale question: its answer is dropped
        if self.planned_turn is not None and self.planned_turn.key != key:
            self.planned_turn = None
            self.guidance = None
        if self.hint is not None and self.hint.key != key:
            self.hint = None
            self.hint_guidance = None

    def _follow_hint(self, hint: PlannedTurn, obs: Observation) -> None:
        """Judge the table against the hint laid out: cancelled, done, or going on."""
        judged = guide(hint.plan, obs)
        if judged.mistakes:
            self._note("hint cancelled: the table no longer follows the suggestion")
            self.hint, self.hint_guidance = None, None
        elif judged.pieces_done:
            self._note("the suggestion is on the table: hand the turn on when ready")
            self.hint, self.hint_guidance = None, None
        else:
            self.hint_guidance = judged

    def answer_ready(self) -> bool:
        """The computer has finished thinking (its answer waits to be laid out)."""
        return self.thinking is not None and self.thinking.done

    def guide_back(self, position: GameState, obs: Observation | None) -> Guidance:
        """Guide the players from what the table shows now (``obs``) to ``position`` (e.g.
        the position before an undone turn, which the caller has made the tracker's): the
        systems keep their slots, systems gone from the table get free ones. Shown like
        the computer's steps until the table shows it; raises ``GuidanceError`` when the
        table is not known yet."""
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
                       + current.text(self.layout, self.tracker.players, plan.system_at()))
        return self.restore_guidance

    def cancel_guide_back(self) -> None:
        """Stop guiding the table back (a new game, or a game ended off the board)."""
        self._restore_plan, self.restore_guidance = None, None

    def _think(self, seat: int, purpose: str, level: int, time_limit: float | None,
               seed: int | None) -> None:
        limit = time_limit if time_limit is not None else self.time_limits.get(level)
        player = self._player_factory(level, seed, self.tracker.rules, self.tracker.players)
        self.thinking = Thinking(player, self.tracker.state, purpose=purpose,
                                 key=self._game_key(), time_limit=limit, clock=self.clock)
        who = self.tracker.players[seat]
        # A seat played elsewhere (a remote game's other table) says what it waits for.
        waiting = self.thinking.waiting_text
        self._note(f"{who}: {waiting}" if waiting is not None else
                   f"{who}: the computer (level {level}) is thinking…" if purpose == "turn"
                   else f"{who} asked for a hint: the computer (level {level}) is thinking…")

    def _whose(self, thinking: Thinking) -> str:
        """Whose turn a note speaks of: the computer's, or (a seat played elsewhere) the
        seat's turn from where it is played."""
        if thinking.played_from is None:
            return "the computer's turn"
        return f"{self.tracker.players[thinking.seat]}'s turn from {thinking.played_from}"

    def _plan(self, thinking: Thinking, obs: Observation, token: bool
              ) -> tuple[Turn, TablePlan] | None:
        """The chosen turn and the table after it; None when there is none. Raises
        ``GuidanceError`` while the table does not show every system (tried again at the
        next observation)."""
        state = self.tracker.state
        turn = thinking.turn
        if thinking.error is not None or turn is None:
            self._note(f"the computer could not choose a turn: {thinking.error}"
                       if thinking.played_from is None
                       else f"{self._whose(thinking)} did not come: {thinking.error}")
            return None
        token_to = None
        try:  # a turn the rules refuse is reported, never raised into the table loop
            if token and self._has_token:
                after = state.copy()
                after.apply_turn(turn)
                token_to = after.to_move if not after.is_over else \
                    state.next_seat(state.to_move)
                if token_to == state.to_move:
                    token_to = None  # a bonus turn: the token stays
            return turn, plan_turn(self.layout, state, self.tracker.slot_of_system(obs),
                                   turn, token_to=token_to)
        except HomeworldsError as exc:
            self._note(f"the computer chose a turn the rules refuse: {exc}"
                       if thinking.played_from is None
                       else f"{self._whose(thinking)} is refused by the rules: {exc}")
            return None

    def _computer_chose(self, thinking: Thinking, obs: Observation) -> None:
        try:
            planned = self._plan(thinking, obs, token=True)
        except GuidanceError as exc:
            # E.g. a star lifted at this instant: its system is on no slot. Kept, and
            # planned again at the next observation of the table.
            text = f"{self._whose(thinking)} cannot be shown yet: {exc}"
            if text != self._last_step_text:
                self._note(text)
            self._last_step_text = text
            return
        if planned is None:
            self._failed_key = thinking.key
            self._chosen = None
            return
        self._chosen = None
        seat = thinking.seat
        turn, plan = planned
        self.planned_turn = PlannedTurn(thinking.key, seat, turn, plan, thinking.played_from)
        self.tracker.expected = (seat, turn)
        self._note(f"{self.tracker.players[seat]} plays: " + "; ".join(map(str, turn))
                   + f" ({thinking.seconds():.1f} s): follow the lights")

    def _suggestion_ready(self, thinking: Thinking, obs: Observation) -> None:
        try:
            planned = self._plan(thinking, obs, token=False)
        except GuidanceError as exc:
            self._note(f"the hint cannot be shown: {exc}; long-press again")
            return
        if planned is None:
            return
        turn, plan = planned
        self.hint = PlannedTurn(thinking.key, thinking.seat, turn, plan)
        self.hint_guidance = guide(plan, obs)
        self._note(f"hint for {self.tracker.players[thinking.seat]}: " + "; ".join(map(str, turn)))
        current = self.hint_guidance.current
        if current is not None:
            self._note("  " + current.text(self.layout, self.tracker.players, plan.system_at()))

    def _announce(self, guidance: Guidance) -> None:
        current = guidance.current
        text = None if current is None else current.text(self.layout, self.tracker.players,
                                                          guidance.plan.system_at())
        if guidance.mistakes:
            text = guidance.mistakes[0].text(self.layout, self.tracker.players,
                                             guidance.plan.system_at())
        if text is not None and text != self._last_step_text:
            self._note(text)
        self._last_step_text = text

    def long_press(self, seat: int) -> None:
        """A learner's hint: the computer's suggestion for ``seat``, shown as guidance in
        the suggestion colour; nothing is committed. A second long press cancels it."""
        state = self.tracker.state
        if not self.suggestions:
            self.suggestions_refused += 1
            self._note("suggestions are turned off at this table (tournament mode)")
            return
        asked = self.thinking is not None and self.thinking.purpose == "suggestion"
        if self.hint is not None or asked:
            self.hint, self.hint_guidance = None, None
            if asked:
                self.thinking = None
            self._note("hint cancelled")
            return
        if self.tracker.is_over or seat != state.to_move or seat in self.seats \
                or state.in_setup:
            self._note(f"a hint is for the player to move, during the game "
                       f"({self.tracker.players[state.to_move]} is to move)")
            return
        if self.thinking is not None:
            return  # the computer is busy with its own turn
        self._think(seat, "suggestion", self.suggestion_level, None, None)

    def mistake_slots(self, shown: GuidanceShown | None) -> frozenset[int]:
        """The slots the guidance being shown finds wrong (the lights mark them)."""
        slots: frozenset[int] = frozenset()
        if shown is None or shown.phase != "guiding":
            return slots
        for judged in (self.guidance, self.hint_guidance, self.restore_guidance):
            if judged is not None:
                slots = slots | judged.mistake_slots
        return slots

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
                                 suggestion=thinking.purpose == "suggestion",
                                 text=thinking.waiting_text or "",
                                 played_from=thinking.played_from)
        restore = None if self._restore_plan is None else PlannedTurn(
            (), self.tracker.state.to_move, (), self._restore_plan)
        for judged, suggestion, planned, restoring in (
                (self.restore_guidance, False, restore, True),
                (self.guidance, False, self.planned_turn, False),
                (self.hint_guidance, True, self.hint, False)):
            if judged is None or planned is None:
                continue
            step = judged.current
            names = judged.plan.system_at()
            if step is None:
                continue
            text = step.text(self.layout, self.tracker.players, names)
            if judged.mistakes:
                text = judged.mistakes[0].text(self.layout, self.tracker.players, names)
            return GuidanceShown(
                planned.seat, "guiding", suggestion=suggestion, kind=step.kind,
                piece=step.piece, lift_slot=step.lift_slot, put_slot=step.put_slot,
                from_bank=step.kind == "from-bank", new_system=step.new_system,
                token_seat=step.target.seat if step.kind == "token" else None, text=text,
                detail=judged.to_json(self.layout, self.tracker.players), restore=restoring,
                played_from=planned.played_from)
        return None
