"""Game state and turn application with full legality checking.

The state is mutable with cheap ``copy()`` and python-chess style
``push(turn)`` / ``pop()``. Inside, pieces are dense indices (see
``pieces.py``) and fleets are count lists, so that copying and checking are
cheap; value types appear at the API's edges.

A turn is applied through ``TurnInProgress``, which checks every action as it
comes (the physical table uses it for partial-turn legality) and the whole
turn when it ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NoReturn

from homeworlds.rules.actions import (
    POWER_OF,
    Action,
    BrainTransference,
    Build,
    Capture,
    Catastrophe,
    Discover,
    Homeworld,
    Move,
    Pass,
    Sacrifice,
    SetupPick,
    Trade,
    Turn,
)
from homeworlds.rules.alignments import (
    Alignment,
    AlignmentError,
    Alignments,
    check_alignments,
)
from homeworlds.rules.errors import AmbiguousAction, IllegalAction, IllegalTurn
from homeworlds.rules.pieces import HOME_STARS, OVERPOPULATION, PIECES, Color, Piece
from homeworlds.rules.presets import LOONEY, Rules


class System:
    """One star system: its stars, and each seat's ships as 12 counts."""

    __slots__ = ("name", "key", "stars", "ships", "home_of")

    def __init__(self, name: str, stars: list[int], ships: list[list[int]],
                 home_of: int | None = None):
        self.name = name
        self.key = name.casefold()
        self.stars = stars
        self.ships = ships
        self.home_of = home_of

    def copy(self) -> System:
        s = System.__new__(System)
        s.name = self.name
        s.key = self.key
        s.stars = self.stars[:]
        s.ships = [f[:] for f in self.ships]
        s.home_of = self.home_of
        return s

    @property
    def star_pieces(self) -> tuple[Piece, ...]:
        return tuple(PIECES[i] for i in self.stars)

    def ship_pieces(self, seat: int) -> tuple[Piece, ...]:
        fleet = self.ships[seat]
        return tuple(PIECES[i] for i in range(12) for _ in range(fleet[i]))

    def has_ships(self) -> bool:
        return any(any(f) for f in self.ships)

    def count_color(self, color: int) -> int:
        lo = color * 3
        n = sum(1 for s in self.stars if lo <= s < lo + 3)
        for fleet in self.ships:
            n += fleet[lo] + fleet[lo + 1] + fleet[lo + 2]
        return n

    def color_counts(self) -> list[int]:
        """Pieces of each colour here, stars and every ship counted."""
        counts = [0, 0, 0, 0]
        for i in self.stars:
            counts[i // 3] += 1
        for fleet in self.ships:
            for i, n in enumerate(fleet):
                if n:
                    counts[i // 3] += n
        return counts

    def overpopulated_colors(self) -> list[int]:
        return [c for c, n in enumerate(self.color_counts()) if n >= OVERPOPULATION]

    def has_access(self, seat: int, color: int) -> bool:
        """Technology: the colour is a star here or one of the seat's own ships here."""
        lo = color * 3
        if any(lo <= s < lo + 3 for s in self.stars):
            return True
        fleet = self.ships[seat]
        return bool(fleet[lo] or fleet[lo + 1] or fleet[lo + 2])

    def star_sizes(self) -> set[int]:
        return {s % 3 for s in self.stars}

    def connected_to(self, other: System) -> bool:
        """Connected when the two systems share no star size."""
        return not (self.star_sizes() & other.star_sizes())

    def __repr__(self) -> str:
        stars = "".join(PIECES[i].to_text() for i in self.stars)
        fleets = "-".join("".join(p.to_text() for p in self.ship_pieces(s))
                          for s in range(len(self.ships)))
        home = f"home of {self.home_of}, " if self.home_of is not None else ""
        return f"<System {self.name} ({home}{stars}) {fleets}>"


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended on the board."""

    #: "opponent-eliminated", "self-eliminated", "draw", "agreed-draw", "resigned"
    kind: str
    winners: tuple[int, ...]
    #: Index into the record of the turn that ended the game.
    turn_index: int


class GameState:
    """A position plus whose turn it is and the game's progress."""

    def __init__(self, rules: Rules = LOONEY, players: int = 2, first_to_move: int = 0,
                 alignments: Iterable[str] | None = None):
        if not rules.min_players <= players <= rules.max_players:
            raise ValueError(f"the {rules.name} rules are for {rules.min_players}-"
                             f"{rules.max_players} players, not {players}")
        checked = _checked_alignments(rules, players, alignments)
        self.rules = rules
        self.players = players
        self.bank = [rules.bank_copies(players)] * 12
        self.systems: list[System] = []
        self.to_move = first_to_move
        #: Seats that have completed setup.
        self.set_up = [False] * players
        self.eliminated = [False] * players
        #: Who eliminated each seat (seat index), for the multi-player goals.
        self.eliminated_by: list[int | None] = [None] * players
        self.result: GameResult | None = None
        #: Turns applied so far (setup turns included).
        self.ply = 0
        #: Bonus turns the junior seat still has (Second Turn Timewarp).
        self.bonus_turns = rules.handicaps.timewarp_turns
        self.brain_transference_used = False
        #: Good/Evil: each seat's secret alignment (homeworlds.rules.alignments), else None.
        self.alignments: Alignments | None = checked
        #: Good/Evil: per seat, the index of the turn at whose end its alignment was revealed
        #: (an elimination: the eliminating player and those eliminated), or None while it
        #: is secret (``revealed_alignments``).
        self.revealed: list[int | None] = [None] * players
        #: Good/Evil across tables (remote play): the seats whose cards this table does not
        #: know; their ``alignments`` are stand-ins (a deal of the right cards) until the
        #: card is revealed (``learn_alignments``). A result that depends on one waits.
        self.secret_seats: frozenset[int] = frozenset()
        self._stack: list[tuple[GameState, Turn]] = []

    # ---- construction -------------------------------------------------

    @classmethod
    def from_position(cls, systems: Iterable, rules: Rules = LOONEY, to_move: int = 0,
                      players: int = 2, alignments: Iterable[str] | None = None) -> GameState:
        """Build a state after setup from system descriptions.

        Each item needs ``name``, ``home_of`` (seat or None), ``stars`` (pieces)
        and ``ships`` (one sequence of pieces per seat) — e.g. a
        ``CookedSystem``. The bank holds whatever is not on the board.
        """
        if not 0 <= to_move < players:
            raise ValueError(f"seat {to_move} cannot be to move: the seats are 0 to {players - 1}")
        st = cls(rules, players, alignments=alignments)
        for spec in systems:
            fleets = [[0] * 12 for _ in range(players)]
            for seat, ships in enumerate(spec.ships):
                for p in ships:
                    fleets[seat][p.index] += 1
            system = System(spec.name, [p.index for p in spec.stars], fleets, spec.home_of)
            st.systems.append(system)
            for i in system.stars:
                st.bank[i] -= 1
            for fleet in fleets:
                for i, n in enumerate(fleet):
                    st.bank[i] -= n
        if any(n < 0 for n in st.bank):
            over = [PIECES[i].to_text() for i, n in enumerate(st.bank) if n < 0]
            raise ValueError(f"position uses more pieces than the bank holds: {', '.join(over)}")
        homes = {s.home_of for s in st.systems if s.home_of is not None}
        st.set_up = [seat in homes for seat in range(players)]
        st.to_move = to_move
        st.ply = sum(st.set_up)
        # A player without a ship of their own at home is out, whoever brought that about
        # (001, How to win: "at the end of either player's turn"; 002: "if at some point"):
        # the position is decided as the end of a turn would decide it, with no known
        # eliminator (docs/rules.md, "Positions").
        st._decide_result(None, st._update_eliminations(mover=None), at=st.ply - 1)
        if st.result is None and st.eliminated[to_move]:
            st.to_move = st.next_seat(to_move)
        return st

    def copy(self) -> GameState:
        st = GameState.__new__(GameState)
        st.rules = self.rules
        st.players = self.players
        st.bank = self.bank[:]
        st.systems = [s.copy() for s in self.systems]
        st.to_move = self.to_move
        st.set_up = self.set_up[:]
        st.eliminated = self.eliminated[:]
        st.eliminated_by = self.eliminated_by[:]
        st.result = self.result
        st.ply = self.ply
        st.bonus_turns = self.bonus_turns
        st.brain_transference_used = self.brain_transference_used
        st.alignments = self.alignments
        st.revealed = self.revealed[:]
        st.secret_seats = self.secret_seats
        st._stack = []
        return st

    def _assign(self, other: GameState) -> None:
        stack = self._stack
        for name in ("bank", "systems", "to_move", "set_up", "eliminated", "eliminated_by",
                     "result", "ply", "bonus_turns", "brain_transference_used", "alignments",
                     "revealed", "secret_seats"):
            setattr(self, name, getattr(other, name))
        self._stack = stack

    # ---- queries --------------------------------------------------------

    @property
    def in_setup(self) -> bool:
        return not all(done or out for done, out in zip(self.set_up, self.eliminated, strict=True))

    @property
    def is_over(self) -> bool:
        return self.result is not None

    def system(self, name: str) -> System | None:
        key = name.casefold()
        for s in self.systems:
            if s.key == key:
                return s
        return None

    def home_of(self, seat: int) -> System | None:
        for s in self.systems:
            if s.home_of == seat:
                return s
        return None

    def has_lost_home(self, seat: int) -> bool:
        """No home star left, or no own ship at home."""
        home = self.home_of(seat)
        return home is None or not home.stars or not any(home.ships[seat])

    def bank_count(self, piece: Piece) -> int:
        return self.bank[piece.index]

    def bank_pieces(self) -> list[Piece]:
        return [PIECES[i] for i in range(12) for _ in range(self.bank[i])]

    def total_pieces(self) -> list[int]:
        """Bank plus board, per piece kind (for conservation checks)."""
        total = self.bank[:]
        for s in self.systems:
            for i in s.stars:
                total[i] += 1
            for fleet in s.ships:
                for i in range(12):
                    total[i] += fleet[i]
        return total

    def brain_transference_open(self) -> bool:
        """Whether the player to move may play ``BrainTransference()`` as the turn: the
        handicap is on, the game has two players, the junior player is to move and has not
        used it (``TurnInProgress.apply`` says why not, precisely)."""
        handicaps = self.rules.handicaps
        return (handicaps.brain_transference and self.players == 2
                and self.to_move == handicaps.junior_seat and not self.brain_transference_used
                and self.result is None and not self.in_setup)

    def revealed_alignments(self) -> dict[int, Alignment]:
        """The alignments revealed so far, by seat (Good/Evil; empty in other games). A
        seat whose card this table does not know yet (``secret_seats``) is left out."""
        if self.alignments is None:
            return {}
        return {seat: self.alignments[seat] for seat, when in enumerate(self.revealed)
                if when is not None and seat not in self.secret_seats}

    def learn_alignments(self, alignments: Iterable[str],
                         secret_seats: Iterable[int] = ()) -> None:
        """Good/Evil across tables: cards learnt since (revealed by their tables) replace
        their stand-ins; ``secret_seats`` are those still unknown. A result that waited
        for them (the last turn eliminated a player whose card was unknown) is decided
        now, as it would have been had the cards been known at the turn's end."""
        self.alignments = check_alignments(alignments, self.players)
        self.secret_seats = frozenset(secret_seats)
        if self.result is not None or not self._stack:
            return
        before, _turn = self._stack[-1]
        newly = [s for s in range(self.players) if self.eliminated[s]
                 and not before.eliminated[s]]
        if not newly or self.rules.goal != "good-evil":
            return
        decided = self._outcome(before.to_move, newly)
        if decided is not None:
            kind, winners = decided
            self.result = GameResult(kind, winners, self.ply - 1)
            self.to_move = before.to_move

    def active_seats(self) -> list[int]:
        return [s for s in range(self.players) if not self.eliminated[s]]

    def __repr__(self) -> str:
        lines = [f"<GameState {self.rules.name} seat {self.to_move} to move, ply {self.ply}"]
        lines += [f"  {s!r}" for s in self.systems]
        return "\n".join(lines) + ">"

    def describe(self) -> str:
        """A compact human-readable position (one system per line)."""
        out = []
        for s in self.systems:
            home = f" home of {s.home_of}" if s.home_of is not None else ""
            stars = " ".join(PIECES[i].to_text() for i in s.stars)
            fleets = "; ".join(
                f"seat {seat}: {' '.join(p.to_text() for p in s.ship_pieces(seat)) or '-'}"
                for seat in range(self.players))
            out.append(f"{s.name} [{stars}]{home} — {fleets}")
        bank = " ".join(f"{PIECES[i].to_text()}x{n}" for i, n in enumerate(self.bank) if n)
        out.append(f"bank: {bank or 'empty'}")
        return "\n".join(out)

    # ---- applying turns -------------------------------------------------

    def begin_turn(self) -> TurnInProgress:
        return TurnInProgress(self)

    def apply_turn(self, turn: Sequence[Action]) -> None:
        """Apply a whole turn or raise (IllegalAction/IllegalTurn/AmbiguousAction),
        leaving the state unchanged on error."""
        tip = TurnInProgress(self)
        for action in turn:
            tip.apply(action)
        tip.finish()
        self._assign(tip.state)

    def push(self, turn: Sequence[Action]) -> None:
        before = self.copy()
        self.apply_turn(turn)
        self._stack.append((before, tuple(turn)))

    def pop(self) -> Turn:
        before, turn = self._stack.pop()
        self._assign(before)
        return turn

    # ---- elimination and results ---------------------------------------

    def next_seat(self, seat: int) -> int:
        for k in range(1, self.players + 1):
            s = (seat + k) % self.players
            if not self.eliminated[s]:
                return s
        return seat

    def _update_eliminations(self, mover: int | None) -> list[int]:
        """Mark newly eliminated seats (after setup); return them."""
        if self.in_setup:
            return []
        newly = []
        for seat in range(self.players):
            if not self.eliminated[seat] and self.has_lost_home(seat):
                newly.append(seat)
        for seat in newly:
            self.eliminated[seat] = True
            self.eliminated_by[seat] = mover
            home = self.home_of(seat)
            if home is not None:
                # An eliminated player's home is no longer a home; it fades if empty.
                home.home_of = None
                if not home.has_ships() or not home.stars:
                    self._remove_system(home)
        return newly

    def _overpopulation(self, system: System, color: int) -> None:
        """A catastrophe's effect: every piece of ``color`` in ``system`` returns to the
        bank; a system left without a star leaves the board."""
        lo = color * 3
        for i in [i for i in system.stars if lo <= i < lo + 3]:
            system.stars.remove(i)
            self.bank[i] += 1
        for fleet in system.ships:
            for i in range(lo, lo + 3):
                self.bank[i] += fleet[i]
                fleet[i] = 0
        if not system.stars:
            self._remove_system(system)

    def _remove_system(self, system: System) -> None:
        for i in system.stars:
            self.bank[i] += 1
        for fleet in system.ships:
            for i in range(12):
                self.bank[i] += fleet[i]
        self.systems.remove(system)

    def _decide_result(self, mover: int | None, newly: list[int],
                       at: int | None = None) -> None:
        """Set the result after ``newly`` were eliminated by ``mover`` (None: not known, a
        position taken as it stands) in the turn of index ``at`` (default: this ply)."""
        if not newly:
            return
        self._reveal(mover, newly, self.ply if at is None else at)
        decided = self._outcome(mover, newly)
        if decided is not None:
            kind, winners = decided
            self.result = GameResult(kind, winners, self.ply if at is None else at)

    def _reveal(self, mover: int | None, newly: list[int], at: int) -> None:
        """002 (Elimination and Winning): "At the end of your turn, if you've eliminated
        someone, reveal your secret alignment (if you haven't aready); any players that you
        eliminated should aso reveal their aignments (if they haven't already)." With no
        known eliminator (a position as it stands) the eliminated players reveal theirs."""
        if self.alignments is None:
            return
        victims = [s for s in newly if s != mover]
        if mover is not None and victims and self.revealed[mover] is None:
            self.revealed[mover] = at
        for seat in victims:
            if self.revealed[seat] is None:
                self.revealed[seat] = at

    def _outcome(self, mover: int | None, newly: list[int]
                 ) -> tuple[str, tuple[int, ...]] | None:
        goal = self.rules.goal
        alive = tuple(self.active_seats())
        if goal == "eliminate-opponent" or self.players == 2 and goal != "good-evil":
            if not alive:
                return "draw", ()
            return ("self-eliminated" if mover in newly else "opponent-eliminated"), alive
        if not alive:
            return "draw", ()
        kind = "self-eliminated" if newly == [mover] else "opponent-eliminated"
        if goal == "sinister":
            # Your target is the nearest surviving seat on your left (the next seat in turn
            # order); you win by being the one who eliminates your current target.
            for seat in newly:
                hunter = self._previous_alive_or_self(seat)
                if hunter is not None and self.eliminated_by[seat] == hunter:
                    return kind, (hunter,)
        elif goal == "good-evil" and self.alignments is not None:
            secret = self.secret_seats
            if mover is not None and mover not in secret and self.alignments[mover] == "evil" \
                    and any(s != mover for s in newly):
                return kind, (mover,)
            if mover in secret or any(self.eliminated[s] for s in secret):
                return None  # decided when the cards are revealed (remote play)
            if not any(self.alignments[s] == "evil" for s in alive):
                # "the remaining Good players share the win" (002): eliminated ones do not.
                return kind, tuple(s for s in alive if self.alignments[s] == "good")
        if len(alive) == 1:
            return kind, alive
        return None

    def _previous_alive_or_self(self, seat: int) -> int | None:
        """The surviving seat that has ``seat`` as its left neighbour (the one before it)."""
        for k in range(1, self.players):
            s = (seat - k) % self.players
            if not self.eliminated[s]:
                return s
        return None

    def agree_draw(self) -> None:
        if self.result is not None:
            raise IllegalAction("the game is already over")
        if not self.rules.draw_by_agreement:
            raise IllegalAction(f"the {self.rules.name} rules have no draw by agreement")
        self.result = GameResult("agreed-draw", (), self.ply)

    def resign(self, seat: int) -> None:
        if self.result is not None:
            raise IllegalAction("the game is already over")
        self.eliminated[seat] = True
        alive = self.active_seats()
        if len(alive) == 1:
            self.result = GameResult("resigned", tuple(alive), self.ply)


def _checked_alignments(rules: Rules, players: int, alignments: Iterable[str] | None
                        ) -> Alignments | None:
    """Good/Evil needs the deal: with three or more players who wins depends on it. With two
    it cannot (one Good, one Evil: whoever eliminates the other wins under either card), so
    two-player positions may leave it out."""
    if alignments is None:
        if rules.goal == "good-evil" and players > 2:
            raise AlignmentError(f"the {rules.name} rules need each player's secret alignment "
                                 f"for {players} players: deal them with "
                                 "deal_alignments(players, seed) (homeworlds.rules.alignments)")
        return None
    if rules.goal != "good-evil":
        raise AlignmentError(f"the {rules.name} rules have no Good/Evil alignments")
    return check_alignments(alignments, players)


def _piece_text(i: int) -> str:
    return PIECES[i].to_text()


def _after_setup(rules: Rules) -> str:
    """Why a setup action after setup is refused: it would take a piece from the bank for
    nothing (a free ship every turn)."""
    if rules.setup_mode == "alternating":
        # 003, Initial Phase (Setup): "The setup phase consists of 6 alternating choices,
        # with each player making 3 selections total (2 stars + 1 ship)."
        return ("setup is over: the setup phase consists of 6 alternating choices, each "
                "player making 3 (2 stars + 1 ship); now take a basic action or a sacrifice")
    return ("setup is over: every player has placed a homeworld, which is done once, on "
            "the player's first turn")


class TurnInProgress:
    """Actions of one turn applied one by one to a private copy of the state."""

    def __init__(self, state: GameState):
        if state.result is not None:
            raise IllegalTurn("the game is already over", None, state)
        self.start = state
        self.state = state.copy()
        self.seat = state.to_move
        self.actions: list[Action] = []
        self.free_action_used = False
        self.sacrifice_color: int | None = None
        self.sacrifice_left = 0
        #: A non-catastrophe action followed a catastrophe ("ends" timing bookkeeping).
        self.closed_by_catastrophe = False
        self.passed = False

    def copy(self) -> TurnInProgress:
        """An independent copy (searches branch from a turn in progress)."""
        new = TurnInProgress.__new__(TurnInProgress)
        new.start = self.start
        new.state = self.state.copy()
        new.seat = self.seat
        new.actions = list(self.actions)
        new.free_action_used = self.free_action_used
        new.sacrifice_color = self.sacrifice_color
        new.sacrifice_left = self.sacrifice_left
        new.closed_by_catastrophe = self.closed_by_catastrophe
        new.passed = self.passed
        return new

    # ---- helpers ----

    def _fail(self, message: str, action: Action | None) -> NoReturn:
        prefix = f"{action}: " if action is not None else ""
        raise IllegalAction(prefix + message, action, self.start)

    def _system(self, name: str, action: Action) -> System:
        s = self.state.system(name)
        if s is None:
            self._fail(f"there is no system named {name!r}", action)
        return s

    def _after_action(self, touched: System, action: Action) -> None:
        """Star fading and the mid-turn home rules after an action emptied a system."""
        st = self.state
        if touched not in st.systems or touched.has_ships():
            return
        if touched.home_of is None:
            st._remove_system(touched)
        elif st.rules.home_may_be_empty_midturn:
            pass  # an empty home stays until the turn ends (it may be re-occupied)
        elif touched.home_of == self.seat:
            self._fail("this leaves your homeworld empty (suicide under these rules)", action)
        else:
            st._remove_system(touched)

    def _check_immediate_end(self, action: Action) -> None:
        st = self.state
        if st.rules.elimination_check != "immediate":
            return
        # Whoever acted eliminated the seats that fell: a catastrophe may be declared by a
        # player who is not to move.
        actor = self.seat
        if isinstance(action, Catastrophe) and action.declarer is not None:
            actor = action.declarer
        newly = st._update_eliminations(actor)
        if newly:
            st._decide_result(actor, newly)
            if st.result is None:
                return
            self.closed_by_catastrophe = True
            self.passed = True  # nothing more may happen this turn

    # ---- the public API ----

    def apply(self, action: Action) -> None:
        st = self.state
        if st.result is not None:
            self._fail("the game is already over", action)
        if isinstance(action, (Homeworld, SetupPick)) and not st.in_setup:
            self._fail(_after_setup(st.rules), action)
        if st.in_setup:
            self._apply_setup(action)
            self.actions.append(action)
            return
        if isinstance(action, BrainTransference):
            self._brain_transference(action)
        elif isinstance(action, Catastrophe):
            self._catastrophe(action)
        elif isinstance(action, Sacrifice):
            self._sacrifice(action)
        elif isinstance(action, Pass):
            self._pass(action)
        elif isinstance(action, (Build, Move, Discover, Trade, Capture)):
            self._power_action(action, POWER_OF[type(action)])
        else:
            self._fail(f"unknown action {action!r}", action)
        self.actions.append(action)
        self._check_immediate_end(action)

    def _brain_transference(self, action: BrainTransference) -> None:
        st = self.state
        h = st.rules.handicaps
        if not h.brain_transference or st.players != 2:
            self._fail("Brain Transference is not enabled for this game", action)
        if self.seat != h.junior_seat:
            self._fail("only the junior player may use Brain Transference", action)
        if st.brain_transference_used:
            self._fail("Brain Transference was already used in this game", action)
        if self.actions:
            self._fail("Brain Transference replaces the whole turn", action)
        for system in st.systems:
            system.ships.reverse()
            if system.home_of is not None:
                system.home_of = 1 - system.home_of
        st.brain_transference_used = True
        self.free_action_used = True
        self.passed = True

    def _pass(self, action: Pass) -> None:
        if self.sacrifice_color is not None and self.sacrifice_left > 0:
            self.sacrifice_left -= 1  # one sacrifice action given up
            return
        if not self.free_action_used:
            if not self.state.rules.whole_turn_pass:
                self._fail(f"the {self.state.rules.name} rules do not allow passing", action)
            self.free_action_used = True
            self.passed = True
            return
        # Nothing is left to give up: SDG records such closing passes; they change nothing.

    def _timing_check(self, action: Action) -> None:
        if self.closed_by_catastrophe:
            self._fail("catastrophes must come after the turn's other actions under the "
                       f"{self.state.rules.name} rules", action)

    def _catastrophe(self, action: Catastrophe) -> None:
        st = self.state
        declarer = self._declarer(action)
        # The timing rules bind the player to move; another player who may declare an
        # overpopulation does so "at any time" (003).
        timing = st.rules.catastrophe_timing if declarer == self.seat else "anytime"
        if timing == "after" and not self.free_action_used and not self.passed:
            self._fail(f"the {st.rules.name} rules allow catastrophes only after your action",
                       action)
        system = self._system(action.system, action)
        color = int(action.color)
        if system.count_color(color) < OVERPOPULATION:
            self._fail(f"{system.name} is not overpopulated in {action.color.to_text()} "
                       f"({system.count_color(color)} pieces)", action)
        if timing == "ends" and self.free_action_used:
            self.closed_by_catastrophe = True
        elif timing == "after" and self.free_action_used:
            self.closed_by_catastrophe = True
        st._overpopulation(system, color)
        self._after_action(system, action)  # (nothing to do if the system went with its stars)

    def _declarer(self, action: Catastrophe) -> int:
        st = self.state
        if action.declarer is None:
            return self.seat
        declarer = action.declarer
        if declarer == self.seat:
            # One way to write each action: the mover's own declaration names nobody.
            self._fail("a catastrophe of the player to move names no declarer", action)
        if not st.rules.catastrophe_by_any_player:
            self._fail(f"only the player to move may declare a catastrophe under the "
                       f"{st.rules.name} rules", action)
        if not 0 <= declarer < st.players:
            self._fail(f"there is no seat {declarer}", action)
        if st.eliminated[declarer]:
            self._fail(f"seat {declarer} is out of the game", action)
        return declarer

    def _sacrifice(self, action: Sacrifice) -> None:
        if self.passed:
            self._fail("the turn was passed; no further action is possible", action)
        if self.free_action_used:
            self._fail("a sacrifice replaces the turn's action, which was already taken",
                       action)
        self._timing_check(action)
        st = self.state
        system = self._system(action.system, action)
        i = action.piece.index
        if system.ships[self.seat][i] == 0:
            self._fail(f"you have no {action.piece} at {system.name}", action)
        system.ships[self.seat][i] -= 1
        st.bank[i] += 1
        self.free_action_used = True
        self.sacrifice_color = i // 3
        self.sacrifice_left = i % 3 + 1
        self._after_action(system, action)

    def _power_action(self, action: Build | Move | Discover | Trade | Capture,
                      color: int) -> None:
        self._timing_check(action)
        where_name = action.origin if isinstance(action, (Move, Discover)) else action.system
        where = self._system(where_name, action)
        if self.sacrifice_color is not None:
            if self.sacrifice_left <= 0:
                self._fail("the sacrifice's actions are used up", action)
            if color != self.sacrifice_color:
                self._fail(f"the sacrifice gives {Color(self.sacrifice_color).power} actions, "
                           f"not {Color(color).power}", action)
            self.sacrifice_left -= 1
        else:
            if self.passed:
                self._fail("the turn was passed; no further action is possible", action)
            if self.free_action_used:
                self._fail("the turn's one free action was already taken", action)
            if not where.has_access(self.seat, color):
                self._fail(f"no {Color(color).to_text()} technology at {where.name} (needs a "
                           f"{Color(color).to_text()} star or one of your own "
                           f"{Color(color).to_text()} ships there)", action)
            self.free_action_used = True
        if isinstance(action, Build):
            self._build(action, where)
        elif isinstance(action, Move):
            self._move(action, where)
        elif isinstance(action, Discover):
            self._discover(action, where)
        elif isinstance(action, Trade):
            self._trade(action, where)
        else:
            self._capture(action, where)

    def _own(self, where: System, piece: Piece, action: Action) -> None:
        if where.ships[self.seat][piece.index] == 0:
            self._fail(f"you have no {piece} at {where.name}", action)

    def _build(self, action: Build, where: System) -> None:
        st = self.state
        p = action.piece
        lo = p.color * 3
        fleet = where.ships[self.seat]
        if not (fleet[lo] or fleet[lo + 1] or fleet[lo + 2]):
            self._fail(f"you need a {p.color.to_text()} ship of your own at {where.name} "
                       f"to build a {p.color.to_text()} ship", action)
        smallest = next((i for i in range(lo, lo + 3) if st.bank[i]), None)
        if smallest is None:
            self._fail(f"no {p.color.to_text()} pieces are left in the bank", action)
        if smallest != p.index:
            self._fail(f"you must build the smallest {p.color.to_text()} in the bank, "
                       f"{_piece_text(smallest)}", action)
        st.bank[p.index] -= 1
        fleet[p.index] += 1

    def _move(self, action: Move, origin: System) -> None:
        self._own(origin, action.piece, action)
        dest = self._system(action.destination, action)
        if dest is origin:
            self._fail("a ship cannot move to the system it is in", action)
        if not origin.connected_to(dest):
            self._fail(f"{origin.name} and {dest.name} are not connected (they share a "
                       f"star size)", action)
        i = action.piece.index
        origin.ships[self.seat][i] -= 1
        dest.ships[self.seat][i] += 1
        self._after_action(origin, action)

    def _discover(self, action: Discover, origin: System) -> None:
        st = self.state
        self._own(origin, action.piece, action)
        star = action.star.index
        if st.bank[star] == 0:
            self._fail(f"no {action.star} is left in the bank for the new star", action)
        if st.system(action.name) is not None:
            self._fail(f"a system named {action.name!r} already exists", action)
        if star % 3 in origin.star_sizes():
            self._fail(f"a size-{star % 3 + 1} star is not connected to {origin.name}", action)
        st.bank[star] -= 1
        fleets = [[0] * 12 for _ in range(st.players)]
        i = action.piece.index
        fleets[self.seat][i] = 1
        origin.ships[self.seat][i] -= 1
        st.systems.append(System(action.name, [star], fleets))
        self._after_action(origin, action)

    def _trade(self, action: Trade, where: System) -> None:
        st = self.state
        self._own(where, action.old, action)
        if action.new.size != action.old.size:
            self._fail("a trade must keep the ship's size", action)
        if action.new.color == action.old.color:
            self._fail("a trade must change the ship's colour", action)
        if st.bank[action.new.index] == 0:
            self._fail(f"no {action.new} is left in the bank", action)
        fleet = where.ships[self.seat]
        fleet[action.old.index] -= 1
        fleet[action.new.index] += 1
        st.bank[action.old.index] += 1
        st.bank[action.new.index] -= 1

    def _capture(self, action: Capture, where: System) -> None:
        i = action.piece.index
        if action.owner is not None:
            if action.owner == self.seat:
                self._fail("you cannot capture your own ship", action)
            if not 0 <= action.owner < self.state.players:
                self._fail(f"there is no seat {action.owner}", action)
            victim = action.owner
            if where.ships[victim][i] == 0:
                self._fail(f"seat {victim} has no {action.piece} at {where.name}", action)
        else:
            owners = [s for s in range(self.state.players)
                      if s != self.seat and where.ships[s][i]]
            if not owners:
                self._fail(f"no enemy {action.piece} at {where.name}", action)
            if len(owners) > 1:
                raise AmbiguousAction(f"{action}: several players have a {action.piece} at "
                                      f"{where.name}; name the owner", action, self.start,
                                      tuple(owners))
            victim = owners[0]
        mine = where.ships[self.seat]
        largest = max((k % 3 + 1 for k in range(12) if mine[k]), default=0)
        if largest < action.piece.size:
            self._fail(f"your largest ship at {where.name} is smaller than the "
                       f"{action.piece}", action)
        where.ships[victim][i] -= 1
        mine[i] += 1

    # ---- setup ----

    def _apply_setup(self, action: Action) -> None:
        st = self.state
        if isinstance(action, Pass):
            if self.actions:
                return  # a closing pass after the homeworld changes nothing
            if st.rules.setup_pass:
                self.free_action_used = True
                self.passed = True
                return
            self._fail("setup is not finished: this turn must place a homeworld", action)
        if isinstance(action, SetupPick) and st.rules.setup_mode == "alternating":
            self._apply_setup_pick(action)
            return
        if st.rules.setup_mode == "alternating":
            self._fail("setup is by single picks under the alternating-setup rules", action)
        if isinstance(action, SetupPick):
            self._fail(f"the {st.rules.name} rules set up a whole homeworld in one turn "
                       "(two stars and a ship), not by single picks", action)
        if not isinstance(action, Homeworld):
            waiting = [s for s in range(st.players) if not st.set_up[s]]
            self._fail("setup is not finished: seat(s) "
                       f"{', '.join(map(str, waiting))} have no homeworld yet", action)
        if self.actions:
            self._fail("a setup turn places exactly one homeworld", action)
        seat = self.seat
        if st.set_up[seat]:
            self._fail("this player already has a homeworld", action)
        rules = st.rules
        n_stars = len(action.stars)
        if n_stars == 1 and not rules.setup_single_star or n_stars not in (1, 2):
            self._fail(f"a homeworld has {'one or ' if rules.setup_single_star else ''}two "
                       f"stars under the {rules.name} rules", action)
        self._check_setup_ship(action.ship, action)
        if st.system(action.name) is not None:
            self._fail(f"a system named {action.name!r} already exists", action)
        need = [p.index for p in action.stars] + [action.ship.index]
        for i in set(need):
            if st.bank[i] < need.count(i):
                self._fail(f"not enough {_piece_text(i)} left in the bank", action)
        for i in need:
            st.bank[i] -= 1
        fleets = [[0] * 12 for _ in range(st.players)]
        fleets[seat][action.ship.index] = 1
        st.systems.append(System(action.name, [p.index for p in action.stars], fleets, seat))
        st.set_up[seat] = True
        self.free_action_used = True

    def _check_setup_ship(self, ship: Piece, action: Action) -> None:
        sizes = self.state.rules.setup_ship_sizes
        if ship.size not in sizes:
            allowed = "/".join(str(s) for s in sorted(sizes))
            self._fail(f"the starting ship must be of size {allowed} under the "
                       f"{self.state.rules.name} rules", action)

    def _apply_setup_pick(self, action: SetupPick) -> None:
        """P1 star, P2 star, P1 star, P2 star, P1 ship, P2 ship (for two players)."""
        st = self.state
        seat = self.seat
        if self.actions:
            self._fail("each setup pick is a turn of its own", action)
        if st.bank[action.piece.index] == 0:
            self._fail(f"no {action.piece} is left in the bank", action)
        home = st.home_of(seat)
        stars_placed = len(home.stars) if home is not None else 0
        all_stars_done = all((h := st.home_of(s)) is not None and len(h.stars) == 2
                             for s in range(st.players))
        if action.role == "star":
            if stars_placed >= HOME_STARS:
                self._fail("you already have two home stars; pick your ship", action)
            if home is None:
                if st.system(action.name) is not None:
                    self._fail(f"a system named {action.name!r} already exists", action)
                home = System(action.name, [], [[0] * 12 for _ in range(st.players)], seat)
                st.systems.append(home)
            home.stars.append(action.piece.index)
        elif action.role == "ship":
            if not all_stars_done:
                self._fail("every player picks both home stars before any ship", action)
            if st.set_up[seat]:
                self._fail("you already picked your ship: each player makes 3 setup picks "
                           "(2 stars + 1 ship)", action)
            self._check_setup_ship(action.piece, action)
            assert home is not None  # every seat has its two stars by now
            home.ships[seat][action.piece.index] += 1
            st.set_up[seat] = True
        else:
            self._fail(f"a setup pick is a 'star' or a 'ship', not {action.role!r}", action)
        st.bank[action.piece.index] -= 1
        self.free_action_used = True

    # ---- ending the turn ----

    def finish(self) -> GameState:
        """Check the turn as a whole and return the state after it (not yet committed)."""
        st = self.state
        if not self.actions:
            self._fail("a turn needs at least one action (or a pass)", None)
        if (not st.rules.whole_turn_pass and not self.free_action_used and st.result is None
                and not self.start.in_setup):
            # 003: "the active player must choose exactly one of the following" (a basic
            # action or a sacrifice); catastrophes alone are no turn.
            raise IllegalTurn(f"{'; '.join(map(str, self.actions))}: the {st.rules.name} rules "
                              "do not allow passing: take a basic action or a sacrifice",
                              self.actions, self.start)
        if st.result is None and not st.in_setup and not self.start.in_setup:
            lost_self = st.has_lost_home(self.seat)
            if lost_self and not st.rules.self_elimination_allowed:
                raise IllegalTurn(f"{'; '.join(map(str, self.actions))}: the turn ends with "
                                  "no ship of yours at your homeworld (suicide is illegal "
                                  f"under the {st.rules.name} rules)", self.actions, self.start)
            if st.rules.post_catastrophe_suicide_check and not lost_self:
                self._post_catastrophe_check()
            newly = st._update_eliminations(self.seat)
            st._decide_result(self.seat, newly)
        st.ply += 1
        if st.result is None:
            st.to_move = self._next_to_move()
        return st

    def _post_catastrophe_check(self) -> None:
        st = self.state
        opponents_lost = [s for s in range(st.players)
                          if s != self.seat and not st.eliminated[s] and st.has_lost_home(s)]
        home = st.home_of(self.seat)
        if not opponents_lost or home is None or not home.overpopulated_colors():
            return
        trial = st.copy()
        for system in list(trial.systems):
            for color in system.overpopulated_colors():
                trial._overpopulation(system, color)
            if system in trial.systems and not system.has_ships():
                trial._remove_system(system)
        if trial.has_lost_home(self.seat):
            raise IllegalTurn("this win leaves an overpopulation that would destroy your own "
                              "homeworld (refused under the strict rules)", self.actions,
                              self.start)

    def _next_to_move(self) -> int:
        st = self.state
        if st.in_setup:
            if st.rules.setup_mode == "alternating":
                return (self.seat + 1) % st.players
            return st.next_seat(self.seat)
        is_setup_turn = self.start.in_setup
        if (not is_setup_turn and self.seat == st.rules.handicaps.junior_seat
                and st.bonus_turns > 0):
            # Second Turn Timewarp: the junior seat's bonus turns follow its first turn.
            st.bonus_turns -= 1
            return self.seat
        return st.next_seat(self.seat)
