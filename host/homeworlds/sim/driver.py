"""Physical handling: play recorded turns on a :class:`VirtualTable` as a player would.

The driver knows the game position before a turn and which slot each system
lies in. For each action of a turn it applies the action to a private copy of
the position (``TurnInProgress``, so every action is checked by the rules
engine) and then makes the table show the engine's position after it:

1. **Slots.** Systems that are gone (faded, destroyed) free their slot. A new
   system takes a free slot: a home its seat's ``home_slot`` when the layout
   names one; a discovered system the free slot nearest to its origin's. A slot
   is free when no system is assigned to it and no tag lies on any of its zones;
   while some seat has not set up yet, its home slot is kept for it.
2. **Wanted pieces.** Per zone: the star pieces on a slot's star zone, each
   seat's ships on that seat's ship zone of the slot, and in each bank-tray
   compartment the copies of its colour-size that are not wanted elsewhere.
   Everything else (token zones, slots without a system) wants no pieces.
3. **Handling.** A ship wanted on another seat's side of the same slot is
   flipped there (a capture). The other surplus tags are lifted into the hand;
   then every missing piece is placed, taken from the hand if a tag of that
   colour-size is there (so a moving ship keeps its physical piece, and a piece
   going back to the bank lands in its compartment), else from the bank (the
   tray compartment, or off the table). Pieces left in hand go back to the bank.

Ending the turn moves the turn token to the next seat's token zone
(:meth:`TableDriver.hand_over`), which is what tells the host the turn is done.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from homeworlds.rules import PIECES, Action, Discover, GameState, Piece, System, TurnInProgress
from homeworlds.sim.table import SimError, TableEvent, VirtualTable, pieces_text
from homeworlds.table.layout import Layout


@dataclass(frozen=True, slots=True)
class DriverStep:
    """What the driver did for one action (or for arranging, ending a turn, handing over)."""

    what: str
    events: tuple[TableEvent, ...]

    def to_text(self) -> str:
        lines = [self.what]
        lines += [f"  {event.to_text()}" for event in self.events]
        return "\n".join(lines)


class TableDriver:
    """Turns recorded turns into handling of ``table``.

    ``state_before``: the position the table shows now (copied; the driver keeps its
    own). ``slot_of``: system name -> slot index for the systems already on the table
    (names match without regard to case); systems without a slot get one from
    :meth:`arrange` or as soon as an action touches the table.
    """

    def __init__(self, table: VirtualTable, state_before: GameState,
                 slot_of: Mapping[str, int] | None = None):
        self.table = table
        self.layout: Layout = table.layout
        self.registry = table.registry
        if state_before.players > self.layout.seat_count:
            raise SimError(f"a {state_before.players}-player game needs {state_before.players} "
                           f"seats; layout {self.layout.name!r} has {self.layout.seat_count}")
        self.state = state_before.copy()
        self.slot_of: dict[str, int] = {}
        seen: dict[int, str] = {}
        for name, slot in (slot_of or {}).items():
            system = self.state.system(name)
            if system is None:
                raise SimError(f"slot_of: there is no system named {name!r} in the position")
            if isinstance(slot, bool) or not isinstance(slot, int) \
                    or not 0 <= slot < len(self.layout.slots):
                raise SimError(f"slot_of[{name!r}]: no slot {slot!r} (layout "
                               f"{self.layout.name!r} has slots 0-{len(self.layout.slots) - 1})")
            if slot in seen:
                raise SimError(f"slot_of: slot {slot} is given to both {seen[slot]!r} and {name!r}")
            seen[slot] = name
            self.slot_of[system.name] = slot
        #: One entry per action, end of turn, hand-over or arrangement, in order.
        self.log: list[DriverStep] = []
        self._turn: TurnInProgress | None = None

    # ------------------------------------------------------------------ queries

    @property
    def position(self) -> GameState:
        """The engine's position the table shows (mid-turn: after the last action)."""
        return self._turn.state if self._turn is not None else self.state

    def slot(self, system_name: str) -> int | None:
        key = system_name.casefold()
        for name, slot in self.slot_of.items():
            if name.casefold() == key:
                return slot
        return None

    def differences(self) -> list[str]:
        """Where the table differs from :attr:`position` (empty: it matches)."""
        return compare_table(self.table, self.position, self.slot_of)

    # ------------------------------------------------------------------ turns

    def arrange(self) -> None:
        """Make the table show the current position (e.g. a position set up from a
        file), with the turn token at the seat to move."""
        self._reconcile(self.position, {}, "arrange")
        if self.registry.token_uid is not None and not self.state.is_over:
            self.hand_over(self.position.to_move)

    def play_turn(self, turn: Sequence[Action], *, hand_over: bool = True) -> GameState:
        """Handle every action of ``turn``, end it and (by default) pass the token on.
        Returns the position after the turn. Rules errors (IllegalAction...) propagate."""
        self.begin_turn()
        for action in turn:
            self.act(action)
        return self.end_turn(hand_over=hand_over)

    def begin_turn(self) -> None:
        """Start the turn of the seat to move; the token is brought to it if it lies
        elsewhere (as at the very start of a game whose second seat opens)."""
        if self._turn is not None:
            raise SimError("a turn is already in progress; end it first")
        self._turn = self.state.begin_turn()
        if self.registry.token_uid is not None and self.table.token_seat() != self._turn.seat:
            self.hand_over(self._turn.seat)

    def act(self, action: Action) -> None:
        """Apply one action to the engine's copy and handle the table to match."""
        if self._turn is None:
            self.begin_turn()
        turn = self._turn
        assert turn is not None  # begun above
        hints = self._slot_hints(action, turn.state)
        turn.apply(action)
        self._reconcile(turn.state, hints, str(action))

    def end_turn(self, *, hand_over: bool = True) -> GameState:
        """Finish the turn (the engine checks it as a whole), clear what the end of the
        turn removes (an eliminated player's empty home) and pass the token on."""
        tip = self._turn
        if tip is None:
            raise SimError("no turn in progress")
        after = tip.finish()
        self._turn = None
        self.state = after
        self._reconcile(after, {}, "end of turn")
        if hand_over:
            following = tip.start.next_seat(tip.seat)
            if not after.is_over:
                following = after.to_move
            if following != tip.seat:
                self.hand_over(following)
            else:
                # A bonus turn for the same seat: the token stays, the button sends.
                button = self.layout.seats[tip.seat].button
                if button is not None and self.table.listeners:
                    self._recorded(f"seat {tip.seat} presses its button",
                                   lambda: self.table.press(button))
        return after

    def hand_over(self, seat: int) -> None:
        """Move the turn token to ``seat``'s token zone (nothing if it lies there)."""
        if self.registry.token_uid is None:
            raise SimError("hand_over: the registry has no turn token")
        if self.table.token_seat() != seat:
            self._recorded(f"hand over to seat {seat}", lambda: self.table.move_token(seat))

    # ------------------------------------------------------------------ reconciling

    def _recorded(self, what: str, handle) -> None:
        start = len(self.table.history)
        handle()
        self.log.append(DriverStep(what, tuple(self.table.history[start:])))

    def _slot_hints(self, action: Action, before: GameState) -> dict[str, int]:
        """Preferred slots for systems the action creates: near the origin."""
        if isinstance(action, Discover):
            origin = before.system(action.origin)
            slot = self.slot(origin.name) if origin is not None else None
            if slot is not None:
                return {action.name.casefold(): slot}
        return {}

    def _reconcile(self, position: GameState, hints: Mapping[str, int], what: str) -> None:
        self._recorded(what, lambda: self._handle(position, hints, what))

    def _handle(self, position: GameState, hints: Mapping[str, int], what: str) -> None:
        table = self.table
        self._assign_slots(position, hints, what)
        surplus, deficit = self._differences(self._wanted(position, what))
        self._flip_captured(surplus, deficit)
        for zone in sorted(surplus):
            for uid in surplus[zone]:
                table.lift(uid)
        self._fill(deficit, what)

    def _differences(self, want: dict[int, Counter[Piece]]
                     ) -> tuple[dict[int, list[str]], dict[int, Counter[Piece]]]:
        """Per zone, the tags too many there (surplus) and the pieces missing (deficit)."""
        table = self.table
        surplus: dict[int, list[str]] = {}
        deficit: dict[int, Counter[Piece]] = {}
        for zone in self.layout.all_zones:
            have: dict[Piece, list[str]] = {}
            for uid in table.tags_on(zone):
                piece = self._piece_of(uid)
                if piece is not None:
                    have.setdefault(piece, []).append(uid)
            wanted = want.get(zone, Counter())
            for piece in set(have) | set(wanted):
                extra = len(have.get(piece, ())) - wanted[piece]
                if extra > 0:
                    # Keep the tags with the lowest UIDs: the choice is then repeatable.
                    surplus.setdefault(zone, []).extend(sorted(have[piece])[-extra:])
                elif extra < 0:
                    deficit.setdefault(zone, Counter())[piece] -= extra
        return surplus, deficit

    def _flip_captured(self, surplus: dict[int, list[str]],
                       deficit: dict[int, Counter[Piece]]) -> None:
        """Captures (and Brain Transference): a ship wanted on another side of its slot
        is turned round there (taken out of ``surplus`` and ``deficit``)."""
        table = self.table
        for slot in self.layout.slots:
            for zone in slot.ship_zones:
                for uid in list(surplus.get(zone, ())):
                    piece = self._piece_of(uid)
                    if piece is None:
                        continue  # not a piece's tag: nothing to flip
                    for seat, other in enumerate(slot.ship_zones):
                        if other != zone and deficit.get(other, Counter())[piece] > 0:
                            table.flip(uid, seat)
                            surplus[zone].remove(uid)
                            deficit[other][piece] -= 1
                            break

    def _fill(self, deficit: dict[int, Counter[Piece]], what: str) -> None:
        """Put the missing pieces down: from the hand first, else from the bank."""
        table = self.table
        in_hand: dict[Piece, list[str]] = {}
        for uid in sorted(table.in_hand()):
            piece = self._piece_of(uid)
            if piece is not None:
                in_hand.setdefault(piece, []).append(uid)
        for zone in sorted(deficit):
            for piece in sorted(deficit[zone]):
                for _ in range(deficit[zone][piece]):
                    if in_hand.get(piece):
                        uid = in_hand[piece].pop(0)
                    else:
                        uid = self._from_bank(piece, zone, what)
                        table.lift(uid)
                    table.place(uid, zone)
        for piece in sorted(in_hand):
            for uid in in_hand[piece]:
                table.to_bank(uid)

    def _from_bank(self, piece: Piece, zone: int, what: str) -> str:
        spare = sorted(uid for uid in self.table.off_table() if self._piece_of(uid) == piece)
        if not spare:
            raise SimError(f"{what}: no {piece} tag is free to put on "
                           f"{self.layout.describe_zone(zone)} (every copy is in use)")
        return spare[0]

    def _assign_slots(self, position: GameState, hints: Mapping[str, int], what: str) -> None:
        present = {system.key for system in position.systems}
        for name in list(self.slot_of):
            if name.casefold() not in present:
                del self.slot_of[name]
        assigned = {name.casefold() for name in self.slot_of}
        for system in position.systems:
            if system.key not in assigned:
                self.slot_of[system.name] = self._choose_slot(system, position,
                                                              hints.get(system.key), what)

    def _choose_slot(self, system: System, position: GameState, near: int | None,
                     what: str) -> int:
        layout = self.layout
        occupied = set(self.slot_of.values())
        for slot in layout.slots:
            if any(self.table.tags_on(zone) for zone in slot.zones):
                occupied.add(slot.index)
        free = [slot.index for slot in layout.slots if slot.index not in occupied]
        if not free:
            raise SimError(f"{what}: no free slot for system {system.name!r}: all "
                           f"{len(layout.slots)} slots of layout {layout.name!r} are occupied")
        if system.home_of is not None and system.home_of < layout.seat_count:
            home = layout.seats[system.home_of].home_slot
            if home is not None and home in free:
                return home
            if near is None:
                near = home
        reserved = {seat.home_slot for seat in layout.seats
                    if seat.home_slot is not None and seat.index < position.players
                    and not position.set_up[seat.index] and position.home_of(seat.index) is None}

        def rank(slot: int) -> tuple[bool, int, int]:
            return (slot in reserved, abs(slot - near) if near is not None else 0, slot)

        return min(free, key=rank)

    def _wanted(self, position: GameState, what: str) -> dict[int, Counter[Piece]]:
        layout = self.layout
        want: dict[int, Counter[Piece]] = {}
        board: Counter[Piece] = Counter()
        for system in position.systems:
            slot_index = self.slot(system.name)
            if slot_index is None:
                raise SimError(f"{what}: {system.name} has no slot on the table")
            slot = layout.slots[slot_index]
            stars = Counter(system.star_pieces)
            want[slot.star_zone] = stars
            board.update(stars)
            for seat, zone in enumerate(slot.ship_zones):
                ships = Counter(system.ship_pieces(seat)) if seat < position.players else Counter()
                want[zone] = ships
                board.update(ships)
        for piece in PIECES:
            copies = len(self.registry.copies_of(piece))
            if board[piece] > copies:
                raise SimError(f"{what}: the position has {board[piece]} {piece} on the board "
                               f"but the registry has only {copies} {piece} tag(s)")
            compartment = layout.bank_zone(piece)
            if compartment is not None:  # the table has a bank tray
                want[compartment] = Counter({piece: copies - board[piece]})
        return want

    def _piece_of(self, uid: str) -> Piece | None:
        info = self.registry.lookup(uid)
        return info.piece if info is not None and info.is_piece else None


# ---------------------------------------------------------------------- comparing


def compare_table(table: VirtualTable, position: GameState,
                  slot_of: Mapping[str, int]) -> list[str]:
    """Every way the table's pieces (tags -> registry -> pieces per zone) differ from
    ``position`` with its systems in the slots ``slot_of`` names; empty when the
    table shows exactly the position (the bank included, nothing in hand)."""
    layout = table.layout
    problems: list[str] = []
    slots: dict[str, int] = {name.casefold(): slot for name, slot in slot_of.items()}
    used: dict[int, str] = {}
    for system in position.systems:
        slot_index = slots.get(system.key)
        if slot_index is None:
            problems.append(f"{system.name}: has no slot")
            continue
        if slot_index in used:
            problems.append(f"{system.name}: slot {slot_index} also holds {used[slot_index]}")
            continue
        used[slot_index] = system.name
        slot = layout.slots[slot_index]
        _expect(problems, table, slot.star_zone, system.star_pieces,
                f"{system.name} stars ({slot.title})")
        for seat, zone in enumerate(slot.ship_zones):
            ships = system.ship_pieces(seat) if seat < position.players else ()
            _expect(problems, table, zone, ships, f"{system.name} ships of seat {seat} "
                    f"({slot.title})")
    for slot in layout.slots:
        if slot.index not in used:
            for zone in slot.zones:
                _expect(problems, table, zone, (), f"{slot.title} (no system there)")
    for place in layout.seats:
        _expect(problems, table, place.token_zone, (), f"token zone of seat {place.index}")
    bank = position.bank_pieces()
    if layout.has_bank:
        for compartment in layout.bank:
            _expect(problems, table, compartment.zone,
                    [p for p in bank if p == compartment.piece], f"bank {compartment.piece}")
    else:
        _expect_pieces(problems, table, table.off_table(), bank, "bank (off the table)")
    held = _pieces(table, table.in_hand())
    if held:
        problems.append(f"in hand: {pieces_text(held)}")
    return problems


def _pieces(table: VirtualTable, uids: Iterable[str]) -> list[Piece]:
    found = []
    for uid in uids:
        info = table.registry.lookup(uid)
        if info is not None and info.piece is not None:  # a piece's tag
            found.append(info.piece)
    return sorted(found)


def _expect(problems: list[str], table: VirtualTable, zone: int, pieces: Iterable[Piece],
            what: str) -> None:
    _expect_pieces(problems, table, table.tags_on(zone), pieces, f"{what}, zone {zone}")


def _expect_pieces(problems: list[str], table: VirtualTable, uids: Iterable[str],
                   pieces: Iterable[Piece], what: str) -> None:
    got = _pieces(table, uids)
    wanted = sorted(pieces)
    if got != wanted:
        problems.append(f"{what}: table has {pieces_text(got)}, position has "
                        f"{pieces_text(wanted)}")

