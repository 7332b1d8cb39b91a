"""The turn tracker: the one owner of the committed game, fed with table observations.

At every change it checks whether the board can be the middle of a legal turn of the
active seat (partial legality, for hints and early mistakes). When the turn token moves to
the next seat's token pad, or the active seat's button is pressed, it infers the whole
turn (``rules.inference``), commits it and hands the turn over — or refuses, keeps the
position, and says which slots differ from the nearest legal outcome. It stays in the
"hand-over requested" state while the token lies on the next seat's pad, so fixing the
table is enough: the turn commits as soon as it is legal.

Systems are identified by their star pieces' tags, not by slot, so a system may be moved
to another slot between turns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace

from homeworlds.rules import (
    AmbiguousAction,
    BrainTransference,
    Catastrophe,
    Color,
    Discover,
    GameResult,
    GameState,
    Homeworld,
    IllegalAction,
    ObservedSystem,
    PartialResult,
    Pass,
    Piece,
    Rules,
    SetupPick,
    SystemDifference,
    Turn,
    TurnInProgress,
    canonical_key,
    explain_partial,
    infer_turn,
)
from homeworlds.rules.citations import Citation, citation_for, cite
from homeworlds.rules.diagnosis import diagnose
from homeworlds.rules.inference import observed_key
from homeworlds.table.layout import Layout
from homeworlds.table.view import Anomaly, Observation, SlotContents

#: Anomalies that make a hand-over impossible until the table is fixed.
BLOCKING = {"duplicate", "too-many-stars", "ships-without-star", "unknown-tag", "not-a-piece",
            "in-hand", "piece-on-token-zone"}

#: What the hand-over says when inference gives up at its node budget (the players then
#: show the turn in steps: each settled step is read on from the one before).
TOO_INTRICATE = ("too many ways to read this turn at once: undo it, then play it again one "
                 "action at a time, letting the table settle after each, and hand over again")

#: Names given to discovered systems, in order (then "Star 1", "Star 2", ...).
STAR_NAMES = ("Altair", "Betelgeuse", "Capella", "Deneb", "Electra", "Fomalhaut", "Gemma",
              "Hadar", "Izar", "Jabbah", "Kochab", "Lesath", "Mira", "Nashira", "Polaris",
              "Rigel", "Sirius", "Thuban", "Unuk", "Vega", "Wezen", "Zosma")


@dataclass(frozen=True, slots=True)
class Status:
    """What the tracker makes of the table right now (the hints are drawn from it)."""

    #: "setup", "playing", "handover-refused", "over", "waiting" (no snapshot yet)
    phase: str
    active_seat: int
    message: str = ""
    #: slots to mark as mistakes
    mistake_slots: frozenset[int] = frozenset()
    anomalies: tuple[Anomaly, ...] = ()
    differences: tuple[SystemDifference, ...] = ()
    #: the partial turn that explains the board (for hints): actions so far and progress
    partial: TurnInProgress | None = None
    refused_seat: int | None = None
    #: The rule the mistake breaks, with its sentence from the preset's rulebook
    #: (``rules.citations``; docs/rules.md, "The rule behind a mistake"); None: none known.
    rule: Citation | None = None


@dataclass
class Commit:
    """A committed turn: the record grows by one."""

    seat: int
    turn: Turn
    state: GameState
    #: Good/Evil: the alignments revealed at the end of this turn, by seat (an elimination:
    #: the eliminating player and those eliminated; ``GameState.revealed``).
    revealed: dict[int, str] = field(default_factory=dict)


@dataclass
class TurnTracker:
    layout: Layout
    rules: Rules
    players: tuple[str, ...] = ("South", "North")
    on_commit: Callable[[Commit], None] | None = None
    #: The seat that takes the game's first turn (where the turn token lies at the start).
    first_seat: int = 0
    #: Good/Evil: each seat's secret alignment (dealt before the game), else None.
    alignments: tuple[str, ...] | None = None
    state: GameState = field(init=False)
    record: list[tuple[int, Turn]] = field(init=False, default_factory=list)
    #: system name -> tags of its star pieces
    star_tags: dict[str, frozenset[str]] = field(init=False, default_factory=dict)
    status: Status = field(init=False)
    #: (uid, seat) of every ship when the turn began (systems may move between slots)
    turn_start_ships: frozenset = field(init=False, default=frozenset())
    #: Called with the observation whenever a hand-over is asked (token moved, button),
    #: before the turn is inferred: the store journals what the table showed.
    on_handover: Callable[[Observation], None] | None = None
    #: Called when a cleared table after a finished game starts a new game.
    on_new_game: Callable[[], None] | None = None
    #: How the game ended off the board ("resigned", "agreed-draw", "abandoned", "flag"),
    #: if it did.
    ended_by: str | None = field(init=False, default=None)
    #: (seat, turn): the turn a computer seat chose. While the seat is to move, a hand-over
    #: commits this turn when the table shows its outcome and nothing else (a different
    #: legal turn is refused: the players are guided to the computer's turn instead).
    expected: tuple[int, Turn] | None = field(init=False, default=None)
    #: Seats whose turns are played elsewhere (a remote game's other table): such a seat's
    #: turn is committed only as ``expected``; before it has arrived a hand-over is refused.
    elsewhere_seats: frozenset[int] = field(init=False, default=frozenset())
    #: Off-board changes of the turn order in a game of three or more, in order:
    #: (turns recorded when it happened, "resigned" or "skipped", seat). A resigned player
    #: has left the game, which goes on; a skipped one missed that turn (SDG's players who
    #: ran out of time did). The SDG record holds neither as a line: the seat's turns stop,
    #: or one is missing, which is how the archive's transcripts show them too.
    departures: list[tuple[int, str, int]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self._partial_cache: tuple[tuple, PartialResult] | None = None
        #: (record length, turn in progress) of the last partial explanation found
        self._progress: tuple[int, TurnInProgress | None] | None = None
        self._resumed = False
        self._journal_tags: dict[str, frozenset[str]] = {}
        #: After an undo: hand-overs wait until the token is back with the seat to move.
        self._token_must_return = False
        self.new_game()

    # ---- game lifecycle ----

    def new_game(self) -> None:
        self.state = GameState(self.rules, len(self.players), first_to_move=self.first_seat,
                               alignments=self.alignments)
        self.record = []
        self.star_tags = {}
        self._progress = None
        self._names_used = 0
        self._resumed = False
        self._token_must_return = False
        self._token_note: str | None = None
        self.ended_by = None
        self.expected = None
        self.departures = []
        self._declared: dict[tuple[str, Color], int] = {}
        self.status = Status("setup", self.state.to_move, "set up your homeworld")

    def set_alignments(self, alignments: tuple[str, ...] | None) -> None:
        """Good/Evil: the secret deal of the game about to begin (before its first turn)."""
        if self.record:
            raise ValueError("alignments are dealt before the first turn")
        self.alignments = alignments
        self.state = GameState(self.rules, len(self.players), first_to_move=self.first_seat,
                               alignments=alignments)

    def resume(self, record: Sequence[tuple[int, Turn]],
               star_tags: Mapping[str, Iterable[str]] | None = None,
               departures: Sequence[tuple[int, str, int]] = ()) -> None:
        """Continue a game from its committed turns (after a restart or power cut). Which
        slot holds which system is learnt from the first observation of the table, by the
        star tags journalled with the last turn (``star_tags``) when there are any.
        ``departures`` (as ``self.departures``; the store keeps them) are applied where they
        happened; in a game of three or more, a turn of a seat that was not to move without
        one (a record from an SDG export) means that the seats between missed their turns:
        the turns alone cannot tell a player who left from one who missed a turn until the
        game ends."""
        self.new_game()
        pending = sorted(departures, key=lambda d: d[0])
        for seat, turn in record:
            while pending and pending[0][0] <= len(self.record):
                self._depart(*pending.pop(0)[1:])
            if self.state.to_move != seat and len(self.players) > 2 \
                    and not self.state.eliminated[seat]:
                while self.state.to_move != seat:
                    self._depart("skipped", self.state.to_move)
            if self.state.to_move != seat:
                raise ValueError(f"turn {len(self.record) + 1} of the record is seat {seat}'s, "
                                 f"but seat {self.state.to_move} was to move")
            self.state.push(turn)
            self.record.append((seat, turn))
            for action in turn:
                if isinstance(action, Discover):
                    self._names_used = max(self._names_used, _star_name_index(action.name) + 1)
        # Only a departure after the last turn leaves the token with a seat not to move.
        self._token_must_return, self._token_note = False, None
        for _, kind, seat in pending:
            self._depart(kind, seat)
        if star_tags:
            names = {s.key: s.name for s in self.state.systems}
            self.star_tags = {names[n.casefold()]: frozenset(t) for n, t in star_tags.items()
                              if n.casefold() in names}
        self._journal_tags = dict(self.star_tags)
        self._resumed = True
        self.status = Status("resume", self.state.to_move, "lay the table out as recorded")

    @property
    def resuming(self) -> bool:
        """A resumed game waits for the table to be laid out as recorded (nothing is
        inferred, nobody is advised until it is)."""
        return self._resumed

    @property
    def active_seat(self) -> int:
        return self.state.to_move

    def slot_of_system(self, observation: Observation) -> dict[str, int]:
        """Where each committed system lies now (by its star tags)."""
        out = {}
        for contents in observation.slots:
            name = self._system_name(contents)
            if name is not None:
                out[name] = contents.slot
        return out

    # ---- observations ----

    def wants_handover(self, observation: Observation, button_seat: int | None = None) -> bool:
        """The seat to move ends its turn: its button, or the token on another seat's pad."""
        seat = self.state.to_move
        return (button_seat == seat or observation.token_seat is not None
                and observation.token_seat != seat)

    @property
    def is_over(self) -> bool:
        return self.state.is_over or self.ended_by is not None

    def end_game(self, kind: str, seat: int | None = None) -> None:
        """End the game off the board: "resigned" (by ``seat``), "flag" (``seat``'s clock
        ran out: it loses, docs/clocks.md), "agreed-draw" or "abandoned". Rules errors
        (IllegalAction) propagate; nothing changes then."""
        if self.is_over:
            raise IllegalAction("the game is already over")
        if kind in ("resigned", "flag"):
            if seat is None or not 0 <= seat < len(self.players):
                verb = "resign" if kind == "resigned" else "lose on time"
                raise IllegalAction(f"no seat {seat} to {verb}")
            trial = self.state.copy()
            trial.resign(seat)
            if not trial.is_over:
                if kind == "flag":
                    raise IllegalAction("with three or more players a flag fall does not "
                                        "end the game: the player misses the turn (skip) "
                                        "or resigns and leaves it")
                raise IllegalAction("with three or more players a resignation does not end "
                                    "the game: the player leaves it and the others play on")
            self.state.resign(seat)
            if kind == "flag":
                # The same elimination as a resignation; the result says why.
                result = self.state.result
                assert result is not None
                self.state.result = GameResult("flag", result.winners, result.turn_index)
        elif kind == "agreed-draw":
            self.state.copy().agree_draw()
            self.state.agree_draw()
        elif kind != "abandoned":
            raise ValueError(f"unknown way to end a game: {kind!r}")
        self.ended_by = kind
        self.status = Status("over", self.state.to_move, {
            "resigned": f"game over: {self.players[seat] if seat is not None else ''} resigned",
            "flag": f"game over: {self.players[seat] if seat is not None else ''}'s flag fell "
                    "(out of time)",
            "agreed-draw": "game over: draw by agreement",
            "abandoned": "game abandoned"}[kind] + "; clear the table for a new game")

    def leave(self, seat: int) -> bool:
        """A player resigns. With two players (or when one player would be left) the game
        ends (``end_game("resigned", seat)``; True). In a game of three or more that goes
        on, the player leaves it: their seat is out (its ships stay on the board, 002:
        "An eliminated player's ships are not automatically removed from the board"), the
        turn passes over it, and when it was theirs the token must be passed to the next
        seat in the game (False). IllegalAction when it cannot be done."""
        if self.is_over:
            raise IllegalAction("the game is already over")
        if not 0 <= seat < len(self.players):
            raise IllegalAction(f"no seat {seat} to resign")
        if self.state.eliminated[seat]:
            raise IllegalAction(f"{self.players[seat]} is out of the game already")
        trial = self.state.copy()
        trial.resign(seat)
        if trial.is_over or len(self.players) <= 2:
            self.end_game("resigned", seat)
            return True
        self._depart("resigned", seat)
        self.status = self._departed_status()
        return False

    def _departed_status(self) -> Status:
        return Status("setup" if self.state.in_setup else "playing", self.state.to_move,
                      self._token_note or "")

    def skip_turn(self) -> int:
        """The player to move misses the turn (a game of three or more: SDG's players who
        ran out of time did); the next seat in the game is to move, and the token must be
        passed to it. Returns the seat that missed it. IllegalAction with two players (the
        record cannot show a missed turn: pass instead) or after the game."""
        if self.is_over:
            raise IllegalAction("the game is over")
        if len(self.players) <= 2:
            raise IllegalAction("with two players a turn cannot be missed: pass instead")
        seat = self.state.to_move
        self._depart("skipped", seat)
        self.status = self._departed_status()
        return seat

    # ---- Brain Transference: the players change places, the pieces stay

    @property
    def sides_swapped(self) -> bool:
        """After Brain Transference (000, NOVICE VS. EXPERT) the two players have changed
        places: each now plays from the other's side of the table, the pieces where they
        lie. Side s of the table (its ship pads, token pad, button, bar) is then seat
        ``1 - s``'s."""
        return self.state.brain_transference_used and len(self.players) == 2

    def seat_at_side(self, side: int) -> int:
        """The seat that plays from ``side`` of the table now."""
        return 1 - side if self.sides_swapped and side in (0, 1) else side

    def _seated(self, obs: Observation) -> Observation:
        """The observation by seat rather than by side of the table."""
        if not self.sides_swapped:
            return obs
        slots = tuple(replace(c, ships=(c.ships[1], c.ships[0], *c.ships[2:]))
                      for c in obs.slots)
        in_hand = tuple(replace(h, origin=(h.origin[0], h.origin[1],
                                           self.seat_at_side(h.origin[2])))
                        if h.origin[0] == "ships" else h for h in obs.in_hand)
        token = None if obs.token_seat is None else self.seat_at_side(obs.token_seat)
        return replace(obs, slots=slots, in_hand=in_hand, token_seat=token)

    def brain_transference(self) -> None:
        """The junior player uses Brain Transference instead of a turn: ``(BrainTransference(),)``
        is committed, nothing on the table moves, and from now on the two players play
        from each other's side (``sides_swapped``). IllegalAction when it is not open now
        (not enabled, not the junior's turn, used already) or the table shows a turn in
        progress."""
        state = self.state
        if self.is_over:
            raise IllegalAction("the game is over")
        if not state.brain_transference_open():
            junior = state.rules.handicaps.junior_seat
            raise IllegalAction(
                "Brain Transference is not enabled for this game"
                if not state.rules.handicaps.brain_transference or len(self.players) != 2
                else "Brain Transference was already used in this game"
                if state.brain_transference_used
                else f"only {self.players[junior]} (the junior officer) may use Brain "
                     f"Transference, on their turn after setup")
        partial = self.status.partial
        if partial is not None and partial.actions:
            raise IllegalAction("the table shows a turn in progress: put the pieces back as "
                                "they were, then ask again")
        seat, turn = state.to_move, (BrainTransference(),)
        state.push(turn)
        self.record.append((seat, turn))
        self.expected = None
        self._declared = {}
        self._progress = None
        self._partial_cache = None
        # The pieces stay; the seats of the ships seen at the turn's start change.
        self.turn_start_ships = frozenset((uid, self.seat_at_side(s))
                                          for uid, s in self.turn_start_ships)
        self.status = Status("playing", self.state.to_move,
                             f"Brain Transference: {self.players[seat]} and "
                             f"{self.players[1 - seat]} change places (the pieces stay)")
        if self.on_commit is not None:
            self.on_commit(Commit(seat, turn, self.state.copy()))

    def declare_overpopulations(self, seat: int) -> tuple[tuple[str, Color], ...]:
        """``seat``, not to move, declares the overpopulations the table shows now (003:
        either player may, where ``catastrophe_by_any_player``): the catastrophes of
        those systems and colours that the turn being played holds are then recorded as
        declared by ``seat`` (``Catastrophe Sys Green by Name``). Returns what was declared
        (empty: nothing overpopulated, or the rules or the moment do not allow it)."""
        state = self.state
        if not self.rules.catastrophe_by_any_player or self.is_over or state.in_setup \
                or seat == state.to_move or not 0 <= seat < len(self.players) \
                or state.eliminated[seat]:
            return ()
        partial = self.status.partial
        shown = partial.state if partial is not None else state
        found = tuple((system.name, Color(color)) for system in shown.systems
                      for color in system.overpopulated_colors())
        for name, color in found:
            self._declared[(name.casefold(), color)] = seat
        return found

    def _with_declarers(self, turn: Turn) -> Turn:
        """The turn with its catastrophes declared by the players who declared them (a
        reading the engine refuses keeps the mover as declarer)."""
        if not self._declared:
            return turn
        out = tuple(replace(a, declarer=self._declared[(a.system.casefold(), a.color)])
                    if isinstance(a, Catastrophe) and a.declarer is None
                    and (a.system.casefold(), a.color) in self._declared else a for a in turn)
        if out == turn:
            return turn
        try:
            self.state.copy().apply_turn(out)
        except (IllegalAction, AmbiguousAction):
            return turn
        return out

    def _depart(self, kind: str, seat: int) -> None:
        """Apply a departure (``leave``, ``skip_turn``, a resumed one) to the position."""
        mover = self.state.to_move
        if kind == "resigned":
            self.state.resign(seat)
        if mover == seat:
            self.state.to_move = self.state.next_seat(seat)
            what = "misses the turn" if kind == "skipped" else "has left the game"
            self.expect_token_return(
                f"{self.players[seat]} {what}: pass the turn token to "
                f"{self.players[self.state.to_move]}")
        self._progress = None
        self._partial_cache = None
        self.departures.append((len(self.record), kind, seat))

    def withdraw_last_turn(self) -> tuple[int, Turn]:
        """Undo the last committed turn (an admin action): the committed position goes back
        one turn and the players put the pieces back — until the table shows that position
        again the tracker guides them as after a restart (slots that differ are mistakes).
        Returns (seat, turn) withdrawn. IllegalAction when there is none or the game is
        over (start a new game instead)."""
        if not self.record:
            raise IllegalAction("no committed turn to undo")
        if self.is_over:
            raise IllegalAction("the game is over: its turns stay as played (start a new "
                                "game instead)")
        withdrawn = self.record[-1]
        tags = dict(self.star_tags)
        kept = len(self.record) - 1
        self.resume(self.record[:-1], tags, [d for d in self.departures if d[0] <= kept])
        self.expect_token_return()
        self.status = Status("resume", self.state.to_move, self._withdrawn_message())
        return withdrawn

    def expect_token_return(self, note: str | None = None) -> None:
        """After an undo (also one found in the store at a restart): the turn token still
        lies where the withdrawn turn's hand-over put it, and that must not hand the turn
        over again — committing the same turn — before it has come back to the mover. After
        a departure (``note`` says which) it lies with a seat that is no longer to move."""
        self._token_must_return = True
        self._token_note = note

    def _withdrawn_message(self) -> str:
        if self._token_note is not None:
            return self._token_note
        return (f"turn {len(self.record) + 1} withdrawn: put the pieces back as they stood "
                f"before it, and the turn token back to {self.players[self.state.to_move]}")

    def update(self, observation: Observation, *, button_seat: int | None = None) -> Status:
        """Re-evaluate after a settled change of the table (or a button press of
        ``button_seat``, a seat: ``seat_at_side`` of the button's side)."""
        observation = self._seated(observation)
        state = self.state
        if self.is_over:
            if all(c.empty for c in observation.slots):
                self.new_game()
                self.status = Status("setup", self.state.to_move, "new game: set up your "
                                     "homeworld")
                if self.on_new_game is not None:
                    self.on_new_game()
            return self.status
        if self._token_must_return:
            if observation.token_seat is not None and observation.token_seat != state.to_move:
                button_seat = None
                observation = replace(observation, token_seat=None)
                holding = True
            else:
                self._token_must_return = holding = False
                self._token_note = None
        else:
            holding = False
        handover = self.wants_handover(observation, button_seat)
        if handover and self.on_handover is not None:
            self.on_handover(observation)
        if self._resumed:
            # Name the systems on the table after the recorded position, by their stars and
            # ships; until every system is found, guide the players (mistakes = slots that
            # differ) and accept no hand-over.
            self._update_star_tags(observation)
            self.turn_start_ships = _ship_tags(observation)
            if len(self.star_tags) == len(state.systems):
                self._resumed = False
            else:
                recovered = self._recover(observation, handover)
                if recovered is not None:
                    return recovered
                missing = sorted(s.name for s in state.systems if s.name not in self.star_tags)
                self.status = Status("resume", state.to_move, "the table differs from the "
                                     "recorded position: lay out " + ", ".join(missing),
                                     anomalies=tuple(observation.anomalies))
                return self.status
        if handover:
            self.status = self._try_handover(observation)
        else:
            self.status = self._check_partial(observation)
        if holding and not self.status.message:
            self.status = replace(self.status, message=self._withdrawn_message())
        return self.status

    def _recover(self, obs: Observation, handover: bool) -> Status | None:
        """After a restart, a table that lacks recorded systems may show a turn played
        after the last committed one (a system faded, a star was destroyed): with the
        token passed on it is that turn, inferred and committed; with the token still at
        the mover it is a turn in progress, to go on with. None: neither, keep guiding."""
        if self.state.in_setup or any(a.kind in BLOCKING and a.kind != "in-hand"
                                      for a in obs.anomalies):
            return None
        self._resumed = False
        if handover:
            status = self._try_handover(obs)
            if status.phase != "handover-refused":
                self.status = status
                return status
        else:
            status = self._check_partial(obs)
            if status.partial is not None:
                self.status = replace(status, message="resumed: the table shows the turn in "
                                      "progress; finish it and hand the token over")
                return self.status
        self._resumed = True
        self.turn_start_ships = _ship_tags(obs)
        return None

    def _check_partial(self, obs: Observation) -> Status:
        seat = self.state.to_move
        phase = "setup" if self.state.in_setup else "playing"
        blocking = [a for a in obs.anomalies if a.kind in BLOCKING and a.kind != "in-hand"]
        if blocking:
            return Status(phase, seat, blocking[0].message,
                          frozenset(s for a in blocking for s in a.slots), tuple(obs.anomalies))
        if self.state.in_setup:
            return Status(phase, seat, "set up your homeworld", anomalies=tuple(obs.anomalies))
        observed = self._observed_systems(obs, restore_in_hand=True)
        key = (len(self.record), observed_key(observed, len(self.players)),
               tuple(o.name for o in observed))
        if self._partial_cache is not None and self._partial_cache[0] == key:
            result = self._partial_cache[1]  # lifting a piece changes nothing to judge
        else:
            continued: PartialResult | None = None
            earlier = self._last_progress()
            if earlier is not None:
                # Most changes continue what the table saw last: try that first (it is
                # also how a turn too intricate to read at once is read in steps).
                continued = explain_partial(self.state, observed, progress=earlier)
            result = continued if continued is not None and continued.ok \
                else explain_partial(self.state, observed)
            self._partial_cache = (key, result)
            if result.ok:
                self._progress = (len(self.record), result.progress)
        if result.ok:
            return Status(phase, seat, "", anomalies=tuple(obs.anomalies),
                          partial=result.progress)
        if result.exhausted:
            # Too intricate to judge at once: no mistake is claimed (the hand-over says more).
            return Status(phase, seat, "", anomalies=tuple(obs.anomalies))
        earlier = self._last_progress()
        message, rule = self._explained("no legal turn leads here", earlier.copy()
                                        if earlier is not None else self.state.begin_turn(),
                                        observed, finished=False)
        return Status(phase, seat, message, self._slots_for(
            result.differences, obs), tuple(obs.anomalies), result.differences, rule=rule)

    def _try_handover(self, obs: Observation) -> Status:
        seat = self.state.to_move
        blocking = [a for a in obs.anomalies if a.kind in BLOCKING]
        if blocking:
            return Status("handover-refused", seat, "cannot end the turn: " + blocking[0].message,
                          frozenset(s for a in blocking for s in a.slots), tuple(obs.anomalies),
                          refused_seat=seat)
        try:
            expected = self.expected[1] if self.expected is not None \
                and self.expected[0] == seat else None
            if expected is None and seat in self.elsewhere_seats:
                raise _Refusal(f"{self.players[seat]}'s turn is played at the other table: "
                               "wait for it, then follow the lights", frozenset())
            turn = self._setup_turn(obs) if self.state.in_setup else self._infer(
                obs, rename=expected is None)
            if expected is not None:
                turn = self._as_expected(turn, expected)
            if not self.state.in_setup:
                turn = self._with_declarers(turn)
        except _Refusal as refusal:
            return Status("handover-refused", seat, refusal.message, refusal.slots,
                          tuple(obs.anomalies), refusal.differences, refused_seat=seat,
                          rule=refusal.rule)
        self._commit(turn, obs)
        result = self.state.result
        if result is not None:
            winners = ", ".join(self.players[s] for s in result.winners) or "nobody"
            return Status("over", self.state.to_move, f"game over: {winners} wins"
                          if result.winners else "game over: draw")
        phase = "setup" if self.state.in_setup else "playing"
        return Status(phase, self.state.to_move, "")

    # ---- inference ----

    def _infer(self, obs: Observation, rename: bool = True) -> Turn:
        observed = self._observed_systems(obs, restore_in_hand=False)
        result = infer_turn(self.state, observed)
        earlier = self._last_progress()
        if result.exhausted and earlier is not None:
            # Too many readings from the start of the turn: continue from what the table
            # saw mid-turn instead.
            result = infer_turn(self.state, observed, progress=earlier)
        if result.found:
            turn = result.turn
            assert turn is not None  # found
            if turn == (Pass(),):
                self._refuse_swaps(obs)
            return self._rename_discoveries(turn) if rename else turn
        if result.exhausted:
            raise _Refusal(TOO_INTRICATE, frozenset())
        tip = earlier.copy() if earlier is not None else self.state.begin_turn()
        message, rule = self._explained("no legal turn leads to this table", tip, observed,
                                        finished=True)
        raise _Refusal(message, self._slots_for(result.differences, obs),
                       result.differences, rule)

    def _explained(self, message: str, tip: TurnInProgress, observed,
                   finished: bool) -> tuple[str, Citation | None]:
        """The mistake's message with the rules' reason when the table shows one action
        beyond ``tip`` that they refuse (``rules.diagnosis``), and that rule's sentence
        from the preset's rulebook (``rules.citations``)."""
        refusal = diagnose(tip, observed, finished=finished)
        if refusal is None:
            return message, None
        return f"{message}: {refusal.reason}", cite(refusal, self.rules)

    def _as_expected(self, read: Turn, expected: Turn) -> Turn:
        """The computer's turn when the table shows its outcome (the turn read from the
        table may spell it differently: a capture read as the same position), else a
        refusal: the table shows another turn than the computer chose."""
        try:
            want = self.state.copy()
            want.apply_turn(expected)
            got = self.state.copy()
            got.apply_turn(read)
        except (IllegalAction, AmbiguousAction) as exc:
            raise _Refusal(f"the computer's turn does not fit the position ({exc})",
                           frozenset()) from None
        if canonical_key(want) != canonical_key(got):
            raise _Refusal(f"the table shows another turn than {self.players[self.state.to_move]}"
                           f" chose ({'; '.join(map(str, read))}): follow the lights",
                           frozenset())
        if self.state.in_setup:
            return read
        return self._rename_discoveries(expected)

    def _last_progress(self) -> TurnInProgress | None:
        """The turn in progress that explained the table at its last settled change during
        this turn (None: none yet, or nothing done yet)."""
        if self._progress is None or self._progress[0] != len(self.record):
            return None
        progress = self._progress[1]
        return progress if progress is not None and progress.actions else None

    def _refuse_swaps(self, obs: Observation) -> None:
        """A board that looks untouched although ships were exchanged for other copies of
        the same piece is a same-colour trade, not a pass."""
        now = _ship_tags(obs)
        changed = {uid for uid, _ in now ^ self.turn_start_ships}
        swapped = {contents.slot for contents in obs.slots for fleet in contents.ships
                   for uid, _ in fleet if uid in changed}
        if changed:
            raise _Refusal("a ship was exchanged for another of the same colour and size: a "
                           "trade must change colour", frozenset(swapped),
                           rule=citation_for("trade", self.rules))

    def _observed_systems(self, obs: Observation, restore_in_hand: bool
                          ) -> list[ObservedSystem]:
        players = len(self.players)
        extra_ships: dict[tuple[int, int], list[Piece]] = {}
        extra_stars: dict[int, list[Piece]] = {}
        if restore_in_hand:
            # A lifted piece is in transit from where it lay.
            for piece in obs.in_hand:
                kind, slot, seat = piece.origin
                if kind == "ships":
                    extra_ships.setdefault((slot, seat), []).append(piece.piece)
                elif kind == "star":
                    extra_stars.setdefault(slot, []).append(piece.piece)
        out = []
        for contents in obs.slots:
            stars = [p for _, p in contents.stars] + extra_stars.get(contents.slot, [])
            ships = tuple(tuple(p for _, p in contents.ships[s])
                          + tuple(extra_ships.get((contents.slot, s), ()))
                          for s in range(players))
            if not stars and not any(ships):
                continue
            out.append(ObservedSystem(self._system_name(contents), tuple(stars), ships))
        return out

    def _system_name(self, contents: SlotContents) -> str | None:
        tags = contents.star_uids
        if not tags:
            return None
        for name, stars in self.star_tags.items():
            if tags & stars:
                return name
        if self._resumed:
            # A system the players lay out again after a restart: its journalled tags.
            for name, stars in self._journal_tags.items():
                if tags & stars and name not in self.star_tags:
                    return name
        return None

    def _rename_discoveries(self, turn: Turn) -> Turn:
        """Give discovered systems real star names instead of the search's placeholders."""
        renamed: dict[str, str] = {}
        out = []
        taken = {s.key for s in self.state.systems}
        for action in turn:
            action = _rename_in(action, renamed)  # systems discovered earlier this turn
            if isinstance(action, Discover):
                name = self._next_star_name(taken)
                taken.add(name.casefold())
                renamed[action.name] = name
                action = replace(action, name=name)
            out.append(action)
        return tuple(out)

    def _next_star_name(self, taken: set[str]) -> str:
        while True:
            k = self._names_used
            self._names_used += 1
            name = STAR_NAMES[k] if k < len(STAR_NAMES) else f"Star {k - len(STAR_NAMES) + 1}"
            if name.casefold() not in taken:
                return name

    # ---- setup ----

    def _setup_turn(self, obs: Observation) -> Turn:
        seat = self.state.to_move
        known = set(self.star_tags.values())
        fresh = [c for c in obs.slots if c.stars and c.star_uids not in known]
        if self.rules.setup_mode == "alternating":
            return self._setup_pick(obs, fresh)
        if not fresh and self.rules.setup_pass:
            return (Pass(),)  # the preset lets a player pass instead of setting up
        if len(fresh) != 1:
            raise _Refusal("set up exactly one homeworld: two stars and a ship on one slot "
                           f"({len(fresh)} new star slots found)", frozenset(c.slot for c in fresh),
                           rule=citation_for("setup", self.rules))
        home = fresh[0]
        ships = home.ships[seat]
        others = [s for k, s in enumerate(home.ships) if k != seat and s]
        if len(ships) != 1 or others:
            raise _Refusal("a homeworld starts with exactly one ship, on your side of the slot",
                           frozenset({home.slot}), rule=citation_for("setup", self.rules))
        return (Homeworld(tuple(p for _, p in home.stars), ships[0][1], self.players[seat]),)

    def _setup_pick(self, obs: Observation, fresh: list[SlotContents]) -> Turn:
        seat = self.state.to_move
        name = self.players[seat]
        home = self.state.home_of(seat)
        if home is None:
            if len(fresh) != 1 or len(fresh[0].stars) != 1 or any(fresh[0].ships):
                raise _Refusal("pick one star for your homeworld on an empty slot",
                               frozenset(c.slot for c in fresh),
                               rule=citation_for("setup", self.rules))
            return (SetupPick(fresh[0].stars[0][1], "star", name),)
        slot = next((c for c in obs.slots if self._system_name(c) == home.name), None)
        if slot is None:
            raise _Refusal("your homeworld's star is not on the table", frozenset())
        if len(slot.stars) == 2 and len(home.stars) == 1:
            new = [p for uid, p in slot.stars if uid not in self.star_tags[home.name]]
            return (SetupPick(new[0], "star", name),)
        if len(slot.ships[seat]) == 1 and len(home.stars) == 2:
            return (SetupPick(slot.ships[seat][0][1], "ship", name),)
        raise _Refusal("add one piece to your homeworld: a second star, then your ship",
                       frozenset({slot.slot}), rule=citation_for("setup", self.rules))

    # ---- commit ----

    def _commit(self, turn: Turn, obs: Observation) -> None:
        seat = self.state.to_move
        try:
            self.state.push(turn)
        except (IllegalAction, AmbiguousAction) as exc:  # inference only yields legal turns
            raise RuntimeError(f"inferred turn was refused by the engine: {exc}") from exc
        self.record.append((seat, turn))
        self.expected = None
        self._declared = {}
        self._update_star_tags(obs)
        self.turn_start_ships = _ship_tags(obs)
        if self.on_commit is not None:
            revealed = self.reveals().get(len(self.record), {})
            self.on_commit(Commit(seat, turn, self.state.copy(), revealed))

    def reveals(self) -> dict[int, dict[int, str]]:
        """Good/Evil: the alignments revealed so far, by the number of the turn (1 = the
        record's first) at whose end they were revealed, then by seat (a card this table
        does not know yet, ``GameState.secret_seats``, is left out)."""
        out: dict[int, dict[int, str]] = {}
        alignments = self.state.alignments
        if alignments is None:
            return out
        for seat, index in enumerate(self.state.revealed):
            if index is not None and seat not in self.state.secret_seats:
                out.setdefault(index + 1, {})[seat] = alignments[seat]
        return out

    @property
    def known_alignments(self) -> tuple[str | None, ...] | None:
        """Good/Evil: the deal as this table knows it, None for a seat whose card it does
        not know (a remote game's other tables' seats until revealed: their
        ``alignments`` are stand-ins that must not be stored, exported or printed)."""
        if self.alignments is None:
            return None
        return tuple(None if seat in self.state.secret_seats else a
                     for seat, a in enumerate(self.alignments))

    def _update_star_tags(self, obs: Observation) -> None:
        """Name each occupied slot's system after the committed position."""
        tags: dict[str, frozenset[str]] = {}
        unclaimed = {s.key: s for s in self.state.systems}
        pending = []
        for contents in obs.slots:
            if not contents.stars:
                continue
            name = self._system_name(contents)
            system = self.state.system(name) if name is not None else None
            if system is not None and system.key in unclaimed:
                tags[system.name] = contents.star_uids
                del unclaimed[system.key]
            else:
                pending.append(contents)
        for contents in pending:
            stars = sorted(p.index for _, p in contents.stars)
            # The seats in play only: a table may have more seats than players.
            ships = [sorted(p.index for _, p in fleet)
                     for fleet in contents.ships[:len(self.players)]]
            match = None
            for system in unclaimed.values():
                if sorted(system.stars) == stars and [
                        sorted(i for i in range(12) for _ in range(f[i])) for f in system.ships
                ] == ships:
                    match = system
                    break
            if match is None:
                match = next((s for s in unclaimed.values() if sorted(s.stars) == stars), None)
            if match is not None:
                tags[match.name] = contents.star_uids
                del unclaimed[match.key]
        self.star_tags = tags

    def _slots_for(self, differences: Sequence[SystemDifference], obs: Observation
                   ) -> frozenset[int]:
        where = self.slot_of_system(obs)
        slots = set()
        for d in differences:
            if d.name is not None and d.name in where:
                slots.add(where[d.name])
            elif d.name is None:
                for contents in obs.slots:
                    if contents.stars and self._system_name(contents) is None:
                        slots.add(contents.slot)
        return frozenset(slots)


def _star_name_index(name: str) -> int:
    """Where a name stands in the sequence the tracker gives discovered systems (-1: not
    one of its names), so that a resumed game goes on naming where it stopped."""
    key = name.casefold()
    for k, star in enumerate(STAR_NAMES):
        if star.casefold() == key:
            return k
    if key.startswith("star ") and key[5:].isdigit():
        return len(STAR_NAMES) + int(key[5:]) - 1
    return -1


def _ship_tags(obs: Observation) -> frozenset:
    return frozenset((uid, seat) for contents in obs.slots
                     for seat, fleet in enumerate(contents.ships) for uid, _ in fleet)


class _Refusal(Exception):
    def __init__(self, message: str, slots: frozenset[int],
                 differences: tuple[SystemDifference, ...] = (),
                 rule: Citation | None = None):
        super().__init__(message)
        self.message = message
        self.slots = slots
        self.differences = differences
        self.rule = rule


def _rename_in(action, renamed: dict[str, str]):
    """The same action with systems renamed (for moves into a system discovered earlier)."""
    changes = {}
    for f in fields(action):
        value = getattr(action, f.name)
        if isinstance(value, str) and value in renamed and f.name != "name":
            changes[f.name] = renamed[value]
    return replace(action, **changes) if changes else action
