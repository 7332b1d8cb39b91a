"""Guidance: the physical steps that take the table from what it shows to a wanted position.

Pure (no I/O, no clock). Two entry points:

* :func:`plan_turn` — the table after a given turn (the computer's, or a suggestion for a
  learner) from the committed position: which slot every system of the result lies on
  (systems keep their slots; a discovered system or a new home takes an empty slot, the
  home slot of its seat or the free slot nearest the ship's origin).
* :func:`plan_position` — the table showing a given position with its systems on given
  slots (e.g. "guide the table back to the position before the last turn").

:func:`guide` then compares a table :class:`~homeworlds.table.view.Observation` with the
plan and says, in order, what is left to do (:class:`GuideStep`: lift piece P from a place,
put it on another place; take a piece from the bank; return one; clear a catastrophe; hand
the turn token on) and what is wrong (:class:`GuideMistake`: a piece put where no step puts
it, with its correction, or a piece lifted that belongs to no step). Nothing is remembered
between calls: whatever the players did, the next observation is judged afresh, so a step
undone reappears and a correction disappears as soon as it is made.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from homeworlds.rules import Catastrophe, Discover, GameState, Piece
from homeworlds.table.layout import Layout
from homeworlds.table.view import Observation

SIZE_WORDS = {1: "small", 2: "medium", 3: "large"}
COLOR_WORDS = ("red", "yellow", "green", "blue")


class GuidanceError(ValueError):
    """The wanted position cannot be laid out on this table (e.g. no free slot)."""


@dataclass(frozen=True, slots=True)
class Place:
    """Where a piece lies: ``kind`` "star" (a slot's star pad), "ships" (seat ``seat``'s
    ship pad of a slot), "bank" (the bank: its tray compartment, or off the table) or
    "hand" (lifted; ``slot``/``seat`` say where it was last seen)."""

    kind: str
    slot: int | None = None
    seat: int | None = None

    def to_json(self) -> dict:
        return {"kind": self.kind, "slot": self.slot, "seat": self.seat}


BANK = Place("bank")


def piece_words(piece: Piece) -> str:
    return f"{SIZE_WORDS[int(piece.size)]} {COLOR_WORDS[int(piece.color)]}"


@dataclass(frozen=True, slots=True)
class GuideStep:
    """One physical step. ``kind``:

    * "move": lift ``piece`` from ``source`` and put it on ``target`` (another pad; a
      capture turns the ship to the other side of the same slot);
    * "from-bank": take ``piece`` from the bank and put it on ``target`` (a build, a
      trade's new ship, a discovered system's or a new home's star);
    * "to-bank": lift ``piece`` from ``source`` and return it to the bank (a sacrifice, a
      trade's old ship, a catastrophe, a star of a system that is gone);
    * "token": move the turn token to seat ``target.seat``'s token pad.

    ``reason`` is the action the step belongs to (its text), ``catastrophe`` the colour
    index cleared when it belongs to a catastrophe, ``new_system`` True when ``target`` is
    an empty slot where a system begins (lit in the new star's colour)."""

    kind: str
    piece: Piece | None
    source: Place
    target: Place
    reason: str = ""
    catastrophe: int | None = None
    new_system: bool = False

    @property
    def lift_slot(self) -> int | None:
        """The slot whose ring shows the piece to lift (None: from the bank or the hand)."""
        return self.source.slot if self.source.kind in ("star", "ships") else None

    @property
    def put_slot(self) -> int | None:
        return self.target.slot if self.target.kind in ("star", "ships") else None

    def text(self, layout: Layout, players: Sequence[str] = (),
             names: Mapping[int, str] | None = None) -> str:
        """The step in words, for the terminal and the display."""
        if self.kind == "token":
            return f"Hand the turn token to {_seat_name(layout, players, self.target.seat)}"
        words = piece_words(self.piece) if self.piece is not None else "unknown"
        what = f"the {words} {'star' if self.source.kind == 'star' else 'ship'}" \
            if self.piece is not None else "the piece"
        if self.kind == "from-bank":
            kind = "star" if self.target.kind == "star" else "ship"
            what = f"a {words} {kind}"
            text = f"Take {what} from the bank and put it on " \
                   f"{_place_words(layout, players, names, self.target, self.new_system)}"
        elif self.kind == "to-bank" and self.source.kind == "hand":
            text = f"Put the {words} piece back in the bank"
        elif self.kind == "to-bank":
            text = (f"Lift {what} from {_place_words(layout, players, names, self.source)} "
                    "and return it to the bank")
        elif self.source.kind == "ships" and self.target.kind == "ships" \
                and self.source.slot == self.target.slot:
            text = (f"Turn {what} on {_place_words(layout, players, names, self.source)} "
                    f"round to {_seat_name(layout, players, self.target.seat)}'s side "
                    "(a capture)")
        else:
            verb = "Lift" if self.source.kind != "hand" else "Put"
            origin = "" if self.source.kind == "hand" else \
                f" from {_place_words(layout, players, names, self.source)}"
            text = (f"{verb} {what}{origin} "
                    f"{'and put it ' if verb == 'Lift' else ''}on "
                    f"{_place_words(layout, players, names, self.target, self.new_system)}")
        if self.catastrophe is not None:
            text += f" (catastrophe: {COLOR_WORDS[self.catastrophe]})"
        return text

    def to_json(self) -> dict:
        return {"kind": self.kind, "piece": self.piece.to_text() if self.piece else None,
                "source": self.source.to_json(), "target": self.target.to_json(),
                "reason": self.reason, "catastrophe": None if self.catastrophe is None
                else COLOR_WORDS[self.catastrophe], "new_system": self.new_system}


@dataclass(frozen=True, slots=True)
class GuideMistake:
    """Something on the table no step asked for. ``kind``: "wrong-place" (a piece put on a
    pad where the plan does not want it) or "unrelated-lift" (a piece lifted that no step
    moves: put it back). ``correction`` is the step that fixes it."""

    kind: str
    slot: int | None
    piece: Piece
    correction: GuideStep

    def text(self, layout: Layout, players: Sequence[str] = (),
             names: Mapping[int, str] | None = None) -> str:
        fix = self.correction.text(layout, players, names)
        if self.kind == "unrelated-lift" and self.correction.target.kind == "bank":
            return (f"the {piece_words(self.piece)} piece taken from the bank is not part "
                    "of this turn: put it back in the bank")
        if self.kind == "unrelated-lift":
            return (f"the {piece_words(self.piece)} piece lifted from "
                    f"{_place_words(layout, players, names, self.correction.target)} is not "
                    f"part of this turn: put it back")
        return f"wrong place: the {piece_words(self.piece)} piece does not belong there. {fix}"

    def to_json(self, layout: Layout, players: Sequence[str] = (),
                names: Mapping[int, str] | None = None) -> dict:
        return {"kind": self.kind, "slot": self.slot, "piece": self.piece.to_text(),
                "text": self.text(layout, players, names),
                "correction": self.correction.to_json()}


@dataclass(frozen=True)
class TablePlan:
    """The table as it should look: ``position``, its systems on ``slot_of`` (system key
    -> slot), the pieces each place wants, and (for a turn) the actions in order."""

    position: GameState
    slot_of: Mapping[str, int]
    wanted: Mapping[Place, Counter]
    #: pieces each place held at the start (a piece added beyond them was put there)
    start: Mapping[Place, Counter]
    #: per action (in order): its text and the (piece, place) it adds or removes
    touches: tuple[tuple[str, frozenset], ...] = ()
    #: catastrophes of the turn: (slot, colour index)
    catastrophes: frozenset = frozenset()
    #: the seat the turn token goes to when the pieces are done (None: no token step)
    token_to: int | None = None
    #: slots where a system begins (their stars come from the bank)
    new_slots: frozenset[int] = frozenset()
    #: ``start`` is what the table held when the guidance began (a plan of a turn)
    start_known: bool = False

    #: slot -> system name at the start (systems that are gone keep their names in words)
    start_names: Mapping[int, str] = field(default_factory=dict)

    def system_at(self) -> dict[int, str]:
        """Slot -> system name: the planned position's, else the start's."""
        names = {s.key: s.name for s in self.position.systems}
        out = dict(self.start_names)
        out.update({slot: names[key] for key, slot in self.slot_of.items() if key in names})
        for slot in self.new_slots:
            out[slot] = "the new system"  # its name is given when the turn is committed
        return out


@dataclass(frozen=True)
class Guidance:
    """What is left to do (``steps``, in order; the first is the current one) and what is
    wrong (``mistakes``, each with its correction). ``done``: the pieces lie as planned
    (the token step, if any, may remain)."""

    steps: tuple[GuideStep, ...]
    mistakes: tuple[GuideMistake, ...]
    total: int
    plan: TablePlan = field(repr=False)

    @property
    def current(self) -> GuideStep | None:
        if self.mistakes:
            return self.mistakes[0].correction
        return self.steps[0] if self.steps else None

    @property
    def pieces_done(self) -> bool:
        return not self.mistakes and all(s.kind == "token" for s in self.steps)

    @property
    def complete(self) -> bool:
        return not self.mistakes and not self.steps

    @property
    def mistake_slots(self) -> frozenset[int]:
        return frozenset(m.slot for m in self.mistakes if m.slot is not None)

    def to_json(self, layout: Layout, players: Sequence[str] = ()) -> dict:
        names = self.plan.system_at()
        current = self.current
        return {"steps_total": self.total, "steps_left": len(self.steps),
                "current": None if current is None else {
                    **current.to_json(), "text": current.text(layout, players, names)},
                "mistakes": [m.to_json(layout, players, names) for m in self.mistakes],
                "steps": [s.text(layout, players, names) for s in self.steps]}


# ---------------------------------------------------------------------- planning


def _position_places(layout: Layout, position: GameState, slot_of: Mapping[str, int]
                     ) -> dict[Place, Counter]:
    out: dict[Place, Counter] = {}
    for system in position.systems:
        slot = slot_of[system.key]
        out[Place("star", slot)] = Counter(system.star_pieces)
        for seat in range(position.players):
            ships = system.ship_pieces(seat)
            if ships:
                out[Place("ships", slot, seat)] = Counter(ships)
    return {k: v for k, v in out.items() if v}


def _keyed(slot_of: Mapping[str, int]) -> dict[str, int]:
    return {name.casefold(): slot for name, slot in slot_of.items()}


def plan_position(layout: Layout, position: GameState, slot_of: Mapping[str, int], *,
                  start: Mapping[Place, Counter] | None = None,
                  token_to: int | None = None, fill: bool = False,
                  avoid: Iterable[int] = ()) -> TablePlan:
    """The plan of a table showing ``position`` with its systems on ``slot_of`` (system
    name -> slot; names of systems not in ``position`` are ignored).

    This is the entry point for guiding the table back to an earlier position (an undo):
    ``slot_of`` is where the systems lie now (``TurnTracker.slot_of_system``), ``start``
    what the table shows now (``observed_places(observation)``: a piece put beyond it is
    then judged a wrong place). With ``fill`` a system that has no slot (it faded or was
    destroyed since) gets a free one, not in ``avoid`` (e.g. slots holding pieces now),
    its seat's home slot for a home; without it, a system without a slot is an error."""
    present = {s.key for s in position.systems}
    keyed = {k: v for k, v in _keyed(slot_of).items() if k in present}
    missing = [s for s in position.systems if s.key not in keyed]
    if missing and not fill:
        raise GuidanceError(f"no slot for {', '.join(s.name for s in missing)}")
    used = set(keyed.values()) | set(avoid)
    new_slots = set()
    for system in missing:
        slot = _free_slot(layout, used, system, position.to_move, None)
        keyed[system.key] = slot
        used.add(slot)
        new_slots.add(slot)
    wanted = _position_places(layout, position, keyed)
    return TablePlan(position, keyed, wanted, dict(start or {}), token_to=token_to,
                     new_slots=frozenset(new_slots), start_known=start is not None)


def plan_turn(layout: Layout, state: GameState, slot_of: Mapping[str, int], turn,
              *, token_to: int | None = None) -> TablePlan:
    """The plan of the table after ``turn`` is played from ``state`` (the committed
    position, its systems on ``slot_of``). Rules errors propagate (an illegal turn)."""
    keyed = _keyed(slot_of)
    missing = [s.name for s in state.systems if s.key not in keyed]
    if missing:
        raise GuidanceError(f"no slot for {', '.join(missing)}")
    start = _position_places(layout, state, keyed)
    used = set(keyed.values())
    tip = state.begin_turn()
    before = start
    touches = []
    catastrophes = set()
    new_slots = set()
    seat = state.to_move
    for action in turn:
        origin_slot = None
        if isinstance(action, Discover):
            origin_slot = keyed.get(action.origin.casefold())
        tip.apply(action)
        after_state = tip.state
        for system in after_state.systems:
            if system.key not in keyed:
                slot = _free_slot(layout, used, system, seat, origin_slot)
                keyed[system.key] = slot
                used.add(slot)
                new_slots.add(slot)
        if isinstance(action, Catastrophe):
            struck = keyed.get(action.system.casefold())
            if struck is not None:
                catastrophes.add((struck, int(action.color)))
        present = {s.key for s in after_state.systems}
        after = _position_places(layout, after_state, {k: v for k, v in keyed.items()
                                                       if k in present})
        changed = set()
        for place in set(before) | set(after):
            diff = after.get(place, Counter()).copy()
            diff.subtract(before.get(place, Counter()))
            for piece, n in diff.items():
                if n:
                    changed.add((piece, place, n > 0))
        touches.append((str(action), frozenset(changed)))
        before = after
    final = tip.finish()
    present = {s.key for s in final.systems}
    final_slots = {k: v for k, v in keyed.items() if k in present}
    wanted = _position_places(layout, final, final_slots)
    start_names = {keyed[s.key]: s.name for s in state.systems}
    return TablePlan(final, final_slots, wanted, start, tuple(touches),
                     frozenset(catastrophes), token_to, frozenset(new_slots), True,
                     start_names)


def _free_slot(layout: Layout, used: set[int], system, seat: int,
               near: int | None) -> int:
    free = [s.index for s in layout.slots if s.index not in used]
    if not free:
        raise GuidanceError(f"no free slot for the new system {system.name}: all "
                            f"{len(layout.slots)} slots are taken")
    if system.home_of is not None and system.home_of < len(layout.seats):
        home = layout.seats[system.home_of].home_slot
        if home is not None and home in free:
            return home
        near = home if near is None else near
    homes = {s.home_slot for s in layout.seats if s.home_slot is not None}
    return min(free, key=lambda s: (s in homes, abs(s - near) if near is not None else 0, s))


# ---------------------------------------------------------------------- judging


def observed_places(observation: Observation) -> dict[Place, Counter]:
    out: dict[Place, Counter] = {}
    for contents in observation.slots:
        if contents.stars:
            out[Place("star", contents.slot)] = Counter(p for _, p in contents.stars)
        for seat, fleet in enumerate(contents.ships):
            if fleet:
                out[Place("ships", contents.slot, seat)] = Counter(p for _, p in fleet)
    return out


def _hand_places(observation: Observation) -> list[tuple[Piece, Place | None]]:
    out: list[tuple[Piece, Place | None]] = []
    for held in observation.in_hand:
        kind, slot, seat = held.origin
        if kind == "ships":
            out.append((held.piece, Place("ships", slot, seat)))
        elif kind == "star":
            out.append((held.piece, Place("star", slot)))
        else:
            out.append((held.piece, None))  # from the bank, or nobody knows
    return out


def _balance(plan: TablePlan, piece: Piece, places: set[Place],
             current: dict[Place, Counter[Piece]]) -> tuple[list[Place], list[Place], Counter]:
    """Where ``piece`` lies once too often (surplus, a place per unit) and where it is
    missing (deficit), in the places' order; and of the surplus, the units that were put
    there (beyond what the place held at the start)."""
    wanted = plan.wanted
    surplus: list[Place] = []
    deficit: list[Place] = []
    placed: Counter = Counter()
    for place in sorted(places, key=_place_order):
        have = current.get(place, Counter())[piece]
        want = wanted.get(place, Counter())[piece]
        n = have - want
        (surplus if n > 0 else deficit).extend([place] * abs(n))
        if n > 0 and plan.start_known:
            placed[place] = max(0, have - max(want, plan.start.get(place, Counter())[piece]))
    return surplus, deficit, placed


def guide(plan: TablePlan, observation: Observation) -> Guidance:
    """Judge ``observation`` against ``plan``: the steps left, in order, and the mistakes."""
    current = observed_places(observation)
    wanted = plan.wanted
    hand = _hand_places(observation)
    places = set(current) | set(wanted)
    mistakes: list[GuideMistake] = []
    steps: list[tuple[tuple, GuideStep]] = []
    pieces = {p for c in current.values() for p in c} | {p for c in wanted.values() for p in c}
    pieces |= {p for p, _ in hand}
    for piece in sorted(pieces):
        surplus, deficit, placed = _balance(plan, piece, places, current)
        held = [origin for p, origin in hand if p == piece]
        # 1. A lifted piece whose pad wants it back belongs to no step: put it back.
        for origin in list(held):
            if origin is not None and origin in deficit:
                held.remove(origin)
                deficit.remove(origin)
                fix = GuideStep("move", piece, Place("hand", origin.slot, origin.seat), origin,
                                "put back")
                mistakes.append(GuideMistake("unrelated-lift", origin.slot, piece, fix))
        # 2. Surplus on the same slot's other side: a capture (turn the ship round).
        for src in list(surplus):
            if src.kind != "ships":
                continue
            dst = next((d for d in deficit if d.kind == "ships" and d.slot == src.slot), None)
            if dst is not None:
                surplus.remove(src)
                deficit.remove(dst)
                steps.append(_judged(plan, piece, src, dst, "move", mistakes,
                                     _take(placed, src)))
        # 3. Pieces in hand go where a piece is missing, else back to the bank.
        for origin in held:
            src = Place("hand", origin.slot if origin else None, origin.seat if origin else None)
            if deficit:
                dst = _best(plan, piece, deficit, origin)
                deficit.remove(dst)
                steps.append(_judged(plan, piece, src, dst, "move", mistakes))
            elif origin is None:
                # Taken from the bank, and no step needs it: it goes back.
                fix = GuideStep("to-bank", piece, src, BANK, "put back")
                mistakes.append(GuideMistake("unrelated-lift", None, piece, fix))
            else:
                steps.append(_judged(plan, piece, src, BANK, "to-bank", mistakes))
        # 4. Surplus to where a piece is missing (the nearest in the turn's order), else
        #    to the bank; what is still missing comes from the bank.
        for src in surplus:
            wrong = _take(placed, src)
            if deficit:
                dst = _best(plan, piece, deficit, src)
                deficit.remove(dst)
                steps.append(_judged(plan, piece, src, dst, "move", mistakes, wrong))
            else:
                steps.append(_judged(plan, piece, src, BANK, "to-bank", mistakes, wrong))
        for dst in deficit:
            steps.append(_judged(plan, piece, BANK, dst, "from-bank", mistakes))
    ordered = [s for _, s in sorted(steps, key=lambda pair: pair[0])]
    if plan.token_to is not None and observation.token_seat != plan.token_to:
        ordered.append(GuideStep("token", None, Place("token", None, observation.token_seat),
                                 Place("token", None, plan.token_to), "end of turn"))
    correcting = {id(m.correction) for m in mistakes}
    remaining = tuple(s for s in ordered if id(s) not in correcting)
    total = max(len(remaining), sum(1 for _ in _all_steps(plan)))
    return Guidance(remaining, tuple(mistakes), total, plan)


def _take(placed: Counter, place: Place) -> bool:
    if placed[place] > 0:
        placed[place] -= 1
        return True
    return False


def _all_steps(plan: TablePlan):
    """The steps from the start of the turn (to count them)."""
    for place in set(plan.start) | set(plan.wanted):
        diff = plan.wanted.get(place, Counter()).copy()
        diff.subtract(plan.start.get(place, Counter()))
        for _, n in diff.items():
            for _ in range(max(0, n)):
                yield place
    if plan.token_to is not None:
        yield None


def _place_order(place: Place) -> tuple:
    return (place.slot if place.slot is not None else -1, place.kind,
            place.seat if place.seat is not None else -1)


def _action_index(plan: TablePlan, piece: Piece, src: Place, dst: Place) -> int:
    for index, (_, changed) in enumerate(plan.touches):
        if (piece, dst, True) in changed or (piece, src, False) in changed:
            return index
    return len(plan.touches)


def _best(plan: TablePlan, piece: Piece, deficit: list[Place], src: Place | None) -> Place:
    def rank(dst: Place) -> tuple:
        return (_action_index(plan, piece, src or BANK, dst), _place_order(dst))
    return min(deficit, key=rank)


def _judged(plan: TablePlan, piece: Piece, src: Place, dst: Place, kind: str,
            mistakes: list[GuideMistake], wrong: bool = False) -> tuple[tuple, GuideStep]:
    """The step moving ``piece`` from ``src`` to ``dst``; ``wrong``: the piece was put on
    ``src`` although no step puts it there (the step is then a correction)."""
    index = _action_index(plan, piece, src, dst)
    reason = plan.touches[index][0] if index < len(plan.touches) else ""
    catastrophe = None
    if kind == "to-bank" and src.slot is not None:
        for slot, color in plan.catastrophes:
            if slot == src.slot and int(piece.color) == color:
                catastrophe = color
    new_system = dst.kind == "star" and dst.slot in plan.new_slots
    step = GuideStep(kind, piece, src, dst, "correction" if wrong else reason, catastrophe,
                     new_system)
    if wrong:
        mistakes.append(GuideMistake("wrong-place", src.slot, piece, step))
    return (_order_key(index, src, dst), step)


def _order_key(index: int, src: Place, dst: Place) -> tuple:
    # Within one action: a new system's star before the ship that flies there, a piece
    # already in hand before one still to lift, a ship going back to the bank before one
    # taken from it, ships before stars that go back to the
    # bank (a system whose last ship leaves, or that a catastrophe destroys, keeps its
    # star until its ships are gone: a slot never shows ships without a star).
    if dst.kind == "star":
        rank = 0
    elif src.kind == "hand":
        rank = 1
    elif src.kind == "star":
        rank = 4
    elif dst.kind == "bank":
        rank = 2  # a trade: the old ship goes back before the new one is taken
    else:
        rank = 3
    return (index, rank)


def _seat_name(layout: Layout, players: Sequence[str], seat: int | None) -> str:
    if seat is None:
        return "the next player"
    if seat < len(players):
        return players[seat]
    return layout.seats[seat].name if seat < len(layout.seats) else f"seat {seat}"


def _place_words(layout: Layout, players: Sequence[str], names: Mapping[int, str] | None,
                 place: Place, new_system: bool = False) -> str:
    if place.kind == "bank":
        return "the bank"
    if place.slot is None:
        return "where it was"
    slot = layout.slots[place.slot]
    label = slot.label or str(slot.index)
    system = (names or {}).get(place.slot)
    where = f"slot {label}" + (f" ({system})" if system and not new_system else "")
    if new_system:
        where = f"the empty slot {label} (a new system)"
    if place.kind == "star":
        return f"the star pad of {where}" if not new_system else where
    return f"{_seat_name(layout, players, place.seat)}'s side of {where}"


__all__ = ["BANK", "GuideMistake", "GuideStep", "Guidance", "GuidanceError", "Place",
           "TablePlan", "guide", "observed_places", "piece_words", "plan_position", "plan_turn"]
