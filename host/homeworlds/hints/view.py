"""Everything the hint renderer looks at, in one immutable value.

The table layer knows which system lies on which slot, whose turn it is, what
is in a player's hand and what is wrong; the renderer only turns that into
colours. Building a :class:`HintView` does no I/O and copies nothing big: the
game position is referenced, not copied, and must not change while a frame is
rendered from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from homeworlds.hints.settings import HintSettingsError, parse_color
from homeworlds.pixels import RGB
from homeworlds.rules import GameResult, GameState, Piece, TurnInProgress
from homeworlds.table.layout import Layout

_NO_SYSTEMS: Mapping[int, str] = MappingProxyType({})


class HintViewError(ValueError):
    """A view that names a seat or slot the layout does not have."""


@dataclass(frozen=True, slots=True)
class LiftedShip:
    """A ship in a player's hand: whose it is, what it is, and the slot it came from."""

    seat: int
    piece: Piece
    origin_slot: int


@dataclass(frozen=True, slots=True)
class GuidanceShown:
    """The computer at the table, as the lights and displays show it.

    ``phase`` "thinking": the computer is choosing a turn for ``seat`` (its bar
    animates). "guiding": the current step of its turn (or, with ``suggestion``, of a
    learner's hint): ``lift_slot`` shows the piece to lift (``piece``: colour on the
    ring, size by the number of marks), ``put_slot`` where it goes (``from_bank``: the
    piece comes from the bank, so the destination shows it; ``new_system``: an empty slot
    where a new system begins, lit in the star's colour), ``token_seat`` the bar of the
    seat the turn token goes to. ``text`` is the step in words, ``detail`` the whole
    guidance as JSON-able data (steps left, mistakes with their corrections).
    ``restore``: the steps put the table back to an earlier position (an undo), not a
    turn; lit like the computer's steps. ``played_from``: the seat is played elsewhere
    ("the other table", "the phone"), not by the computer: while its turn is awaited
    ("thinking") its bar shows the waiting, not the computer's thinking; its steps are
    lit as the computer's and named after where the turn came from."""

    seat: int
    phase: str
    suggestion: bool = False
    kind: str | None = None
    piece: Piece | None = None
    lift_slot: int | None = None
    put_slot: int | None = None
    from_bank: bool = False
    new_system: bool = False
    token_seat: int | None = None
    text: str = ""
    detail: Mapping | None = None
    restore: bool = False
    played_from: str | None = None

    def to_json(self) -> dict:
        """What a display needs (the feed's ``hints.guidance``)."""
        out = {"seat": self.seat, "phase": self.phase, "suggestion": self.suggestion,
               "kind": self.kind, "piece": self.piece.to_text() if self.piece else None,
               "lift_slot": self.lift_slot, "put_slot": self.put_slot,
               "from_bank": self.from_bank, "new_system": self.new_system,
               "token_seat": self.token_seat, "text": self.text, "restore": self.restore,
               "played_from": self.played_from}
        if self.detail is not None:
            out.update(self.detail)
        return out


@dataclass(frozen=True, slots=True)
class Outcome:
    """How the game ended, as the bars show it: the winning seats; none is a draw."""

    winners: tuple[int, ...] = ()

    @property
    def is_draw(self) -> bool:
        return not self.winners

    @classmethod
    def draw(cls) -> Outcome:
        return cls(())

    @classmethod
    def win(cls, *seats: int) -> Outcome:
        return cls(tuple(seats))

    @classmethod
    def from_game_result(cls, result: GameResult) -> Outcome:
        return cls(tuple(result.winners))


def _parse_seat_colors(seat_colors: Iterable[object]) -> tuple[RGB, ...]:
    try:
        return tuple(parse_color(c, f"seat_colors[{i}]") for i, c in enumerate(seat_colors))
    except HintSettingsError as error:
        raise HintViewError(f"HintView.{error.key}: {error.reason}") from None


@dataclass(frozen=True, slots=True)
class HintView:
    """One moment of the table as the lights should show it.

    ``game`` is the position to show (None before a game: only the bars light).
    ``system_at`` maps slot index -> system name (matched without regard to case);
    a slot missing from it is *empty*. ``turn``, when given, is the turn in
    progress: the renderer asks the rules which moves it still allows, and shows
    ``turn.state`` when ``game`` is None. ``moves_available_now`` overrides that
    question (True: every connection of the lifted ship is usable now, False:
    none is); left None it is worked out from ``turn``, or else from the
    position: the active player may move now when the origin has yellow (a yellow
    star, or a yellow ship of their own there). ``result`` None falls back to
    ``game.result``. ``red_alert_seat`` is the seat that can be eliminated by
    the opponent's next turn. ``seat_colors`` overrides the settings' player
    colours for this game (seats past it use the settings). ``alignment_shown``
    (Good/Evil): a seat and its secret alignment, shown on that seat's bar alone.
    ``clock_fraction`` (game clocks, docs/clocks.md): the share of its main time the seat
    to move has left, 0..1; its bar lights that share (None: no clock, the whole bar).
    ``clock_low``: that seat is in its last minute (the bar blinks). ``flagged_seats``:
    seats whose flag fell (the last LED of their bar is red).
    """

    layout: Layout
    game: GameState | None = None
    system_at: Mapping[int, str] = field(default_factory=lambda: _NO_SYSTEMS)
    active_seat: int | None = None
    lifted: LiftedShip | None = None
    turn: TurnInProgress | None = None
    moves_available_now: bool | None = None
    mistake_slots: frozenset[int] = frozenset()
    refused_handover_seat: int | None = None
    link_down: bool = False
    result: Outcome | None = None
    red_alert_seat: int | None = None
    seat_colors: tuple[RGB, ...] | None = None
    #: The game store cannot be written: turns are kept in memory only (docs/store.md).
    store_fault: bool = False
    alignment_shown: tuple[int, str] | None = None
    #: Good/Evil: alignments revealed to everyone at the end of the last turn (an
    #: elimination), (seat, alignment), each on that seat's bar.
    alignments_revealed: tuple[tuple[int, str], ...] = ()
    #: Seats whose button gesture the table heard (a declaration, Brain Transference):
    #: their bars blink fast in the seat's colour.
    acknowledged_seats: tuple[int, ...] = ()
    #: The seat each seat's side of the table (its bar, its pads) now belongs to, when the
    #: players changed places (Brain Transference: ``(1, 0)``); None: side s is seat s.
    seat_at_side: tuple[int, ...] | None = None
    clock_fraction: float | None = None
    clock_low: bool = False
    flagged_seats: frozenset[int] = frozenset()
    #: The computer thinking, or guiding a turn (its own, or a learner's hint).
    guidance: GuidanceShown | None = None

    def _check_bar_seats(self, seats: int) -> None:
        """The seats whose bars show an alignment, a heard gesture, or a new occupant."""
        layout = self.layout
        if self.alignment_shown is not None:
            _check_index(self.alignment_shown[0], seats, "seat", "alignment_shown", layout)
        for seat, _ in self.alignments_revealed:
            _check_index(seat, seats, "seat", "alignments_revealed", layout)
        for seat in self.acknowledged_seats:
            _check_index(seat, seats, "seat", "acknowledged_seats", layout)
        for seat in self.seat_at_side or ():
            _check_index(seat, seats, "seat", "seat_at_side", layout)

    def __post_init__(self) -> None:
        # Cheap checks only (a handful of ints): a wrong index here is a bug in the
        # table layer, and it should read as one rather than as a dark LED.
        layout = self.layout
        seats, slots = len(layout.seats), len(layout.slots)
        if not isinstance(self.mistake_slots, frozenset):
            object.__setattr__(self, "mistake_slots", frozenset(self.mistake_slots))
        for name in ("active_seat", "refused_handover_seat", "red_alert_seat"):
            _check_index(getattr(self, name), seats, "seat", name, layout)
        if self.lifted is not None:
            self._check_lifted(self.lifted, seats, slots)
        if self.result is not None:
            for seat in self.result.winners:
                _check_index(seat, seats, "seat", "result.winners", layout)
        for slot in self.mistake_slots:
            _check_index(slot, slots, "slot", "mistake_slots", layout)
        if not isinstance(self.flagged_seats, frozenset):
            object.__setattr__(self, "flagged_seats", frozenset(self.flagged_seats))
        for seat in self.flagged_seats:
            _check_index(seat, seats, "seat", "flagged_seats", layout)
        fraction = self.clock_fraction
        if fraction is not None and (isinstance(fraction, bool)
                                     or not isinstance(fraction, int | float)
                                     or not 0.0 <= fraction <= 1.0):
            raise HintViewError(f"HintView.clock_fraction: a share of the main time from 0 "
                                f"to 1, not {fraction!r}")
        self._check_bar_seats(seats)
        if self.guidance is not None:
            self._check_guidance(self.guidance, seats, slots)
        if self.seat_colors is not None:
            object.__setattr__(self, "seat_colors", _parse_seat_colors(self.seat_colors))
        for slot, name in self.system_at.items():
            _check_index(slot, slots, "slot", "system_at", layout)
            if not isinstance(name, str):
                raise HintViewError(f"HintView.system_at[{slot}]: a system name is a string, "
                                    f"not {name!r}")

    def _check_lifted(self, lifted: LiftedShip, seats: int, slots: int) -> None:
        if not isinstance(lifted.piece, Piece):
            raise HintViewError(f"HintView.lifted.piece: a Piece (e.g. Piece.from_text('y1')), "
                                f"not {lifted.piece!r}")
        _check_index(lifted.seat, seats, "seat", "lifted.seat", self.layout)
        _check_index(lifted.origin_slot, slots, "slot", "lifted.origin_slot", self.layout)

    def _check_guidance(self, guidance: GuidanceShown, seats: int, slots: int) -> None:
        layout = self.layout
        _check_index(guidance.seat, seats, "seat", "guidance.seat", layout)
        _check_index(guidance.token_seat, seats, "seat", "guidance.token_seat", layout)
        _check_index(guidance.lift_slot, slots, "slot", "guidance.lift_slot", layout)
        _check_index(guidance.put_slot, slots, "slot", "guidance.put_slot", layout)

    @property
    def position(self) -> GameState | None:
        """The position shown: ``game``, or the turn in progress's state."""
        if self.game is not None:
            return self.game
        return self.turn.state if self.turn is not None else None

    @property
    def outcome(self) -> Outcome | None:
        """``result``, or the shown position's own result."""
        if self.result is not None:
            return self.result
        position = self.position
        if position is not None and position.result is not None:
            return Outcome.from_game_result(position.result)
        return None

    def slot_of(self, system_name: str) -> int | None:
        """The slot holding ``system_name`` (any case), None if it is on no slot."""
        key = system_name.casefold()
        if self.seat_colors is not None:
            object.__setattr__(self, "seat_colors", _parse_seat_colors(self.seat_colors))
        for slot, name in self.system_at.items():
            if name.casefold() == key:
                return slot
        return None


def slots_by_name(pairs: Iterable[tuple[int, str]]) -> Mapping[int, str]:
    """An immutable ``system_at`` mapping from (slot, name) pairs."""
    return MappingProxyType(dict(pairs))


def _check_index(value: int | None, count: int, what: str, name: str, layout: Layout) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
        raise HintViewError(f"HintView.{name}: no {what} {value!r} in layout {layout.name!r} "
                            f"({what}s 0-{count - 1})")
