"""The legal next actions of a turn in progress, as a lazy view.

``legal_actions(tip)`` yields every action that ``tip.apply`` would accept
now, one at a time, with optional filters so that callers (hints, the table's
partial-turn checks, random play in tests) can ask narrow questions without
enumerating everything. Whole-turn successor generation builds on the same
rules in ``successors.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

from homeworlds.rules.actions import (
    Action,
    BrainTransference,
    Build,
    Capture,
    Catastrophe,
    Discover,
    Move,
    Pass,
    Sacrifice,
    Trade,
)
from homeworlds.rules.errors import HomeworldsError
from homeworlds.rules.pieces import PIECES, Color
from homeworlds.rules.state import GameState, TurnInProgress

#: Names given to systems discovered by generated actions (the table may rename them).
_NAME_STEM = "New"


def fresh_system_name(state: GameState, taken: set[str] | None = None) -> str:
    used = {s.key for s in state.systems} | (taken or set())
    n = 1
    while f"{_NAME_STEM}{n}".casefold() in used:
        n += 1
    return f"{_NAME_STEM}{n}"


def legal_actions(tip: TurnInProgress, *, kinds: tuple[type, ...] | None = None,
                  system: str | None = None, color: Color | None = None) -> Iterator[Action]:
    """Every action ``tip.apply`` accepts next.

    ``kinds`` keeps only those action classes, ``system`` only actions taken at (or, for
    moves, from) that system, ``color`` only power actions of that colour and sacrifices
    of ships of that colour.
    """
    st = tip.state
    if st.result is not None or st.in_setup:
        return
    seat = tip.seat
    rules = st.rules
    key = system.casefold() if system is not None else None
    wanted = (lambda k: True) if kinds is None else (lambda k: k in kinds)

    systems = [s for s in st.systems if key is None or s.key == key]

    whole_turn = key is None and color is None
    if wanted(Pass) and whole_turn and (tip.free_action_used or rules.whole_turn_pass):
        # At the start: a whole-turn pass. Later: giving up what is left of a sacrifice,
        # or a closing pass that changes nothing (SDG transcripts record those).
        yield Pass()
    if wanted(BrainTransference) and whole_turn and not tip.actions \
            and st.brain_transference_open():
        yield BrainTransference()

    if wanted(Catastrophe):
        yield from _catastrophes(tip, systems, color)

    if tip.passed or tip.closed_by_catastrophe:
        return

    if not tip.free_action_used:
        if wanted(Sacrifice):
            yield from _sacrifices(tip, systems, color)
        for s in systems:
            for c in range(4):
                if (color is None or c == color) and s.has_access(seat, c):
                    yield from _power_actions(tip, s, c, wanted)
    elif tip.sacrifice_left > 0 and tip.sacrifice_color is not None:
        sacrificed = tip.sacrifice_color
        if color is None or sacrificed == color:
            for s in systems:
                yield from _power_actions(tip, s, sacrificed, wanted)


def _catastrophes(tip: TurnInProgress, systems, color: Color | None) -> Iterator[Action]:
    """Catastrophes the mover may declare (unless the timing forbids one before the turn's
    action), and those other players may declare where the rules let them."""
    rules = tip.state.rules
    if not (rules.catastrophe_timing == "after" and not tip.free_action_used):
        for s in systems:
            for c in s.overpopulated_colors():
                if (color is None or c == color) and not _catastrophe_empties_own_home(tip, s, c):
                    yield Catastrophe(s.name, Color(c))
    if rules.catastrophe_by_any_player:
        yield from _declared_by_others(tip, systems, color)


def _sacrifices(tip: TurnInProgress, systems, color: Color | None) -> Iterator[Action]:
    """Sacrifices of the mover's ships (of ``color``), not emptying their own home."""
    seat = tip.seat
    for s in systems:
        fleet = s.ships[seat]
        for i in range(12):
            if fleet[i] and (color is None or i // 3 == color) and not _empties_own_home(tip, s):
                yield Sacrifice(PIECES[i], s.name)


def _power_actions(tip: TurnInProgress, s, c: int, wanted) -> Iterator[Action]:
    st = tip.state
    fleet = s.ships[tip.seat]
    if c == 0 and wanted(Capture):
        yield from _captures(tip, s)
    elif c == 1:
        yield from _moves_and_discoveries(tip, s, wanted)
    elif c == 2 and wanted(Build):
        for col in range(4):
            lo = col * 3
            if fleet[lo] or fleet[lo + 1] or fleet[lo + 2]:
                smallest = next((i for i in range(lo, lo + 3) if st.bank[i]), None)
                if smallest is not None:
                    yield Build(PIECES[smallest], s.name)
    elif c == 3 and wanted(Trade):
        for i in range(12):
            if fleet[i]:
                for j in range(i % 3, 12, 3):
                    if j // 3 != i // 3 and st.bank[j]:
                        yield Trade(PIECES[i], PIECES[j], s.name)


def _captures(tip: TurnInProgress, s) -> Iterator[Action]:
    """Red: another player's ship at ``s`` no larger than the mover's largest there."""
    st = tip.state
    seat = tip.seat
    fleet = s.ships[seat]
    largest = max((i % 3 + 1 for i in range(12) if fleet[i]), default=0)
    for owner in range(st.players):
        if owner == seat:
            continue
        for i in range(12):
            if s.ships[owner][i] and i % 3 + 1 <= largest:
                yield Capture(PIECES[i], s.name, owner if st.players > 2 else None)


def _moves_and_discoveries(tip: TurnInProgress, s, wanted) -> Iterator[Action]:
    """Yellow: the mover's ships at ``s`` to each connected system, or to a new one made of
    a bank piece (not from their own home when that would empty it)."""
    st = tip.state
    fleet = s.ships[tip.seat]
    sizes = s.star_sizes()
    mine = [] if _empties_own_home(tip, s) else [i for i in range(12) if fleet[i]]
    if wanted(Move):
        for dest in st.systems:
            if dest is not s and not (sizes & dest.star_sizes()):
                for i in mine:
                    yield Move(PIECES[i], s.name, dest.name)
    if wanted(Discover) and mine:
        name = fresh_system_name(st)
        for star in range(12):
            if st.bank[star] and star % 3 not in sizes:
                for i in mine:
                    yield Discover(PIECES[i], s.name, PIECES[star], name)


def _empties_own_home(tip: TurnInProgress, s) -> bool:
    """Taking the last ship out of your own home, where the rules call that suicide."""
    if s.home_of != tip.seat or tip.state.rules.home_may_be_empty_midturn:
        return False
    return sum(sum(f) for f in s.ships) == 1


def _catastrophe_empties_own_home(tip: TurnInProgress, s, color: int) -> bool:
    """A catastrophe leaving your own home with a star but no ships, where that is suicide."""
    if s.home_of != tip.seat or tip.state.rules.home_may_be_empty_midturn:
        return False
    lo = color * 3
    star_left = any(not lo <= i < lo + 3 for i in s.stars)
    ships_left = any(fleet[i] for fleet in s.ships for i in range(12) if not lo <= i < lo + 3)
    return star_left and not ships_left


def _declared_by_others(tip: TurnInProgress, systems, color: Color | None
                        ) -> Iterator[Catastrophe]:
    """Overpopulations a player not to move may declare (rulebooks/003, Overpopulation:
    "can be declared by either player"). Rare and cheap, so the authority decides."""
    st = tip.state
    for s in systems:
        for c in s.overpopulated_colors():
            if color is not None and c != color:
                continue
            for seat in range(st.players):
                if seat == tip.seat or st.eliminated[seat]:
                    continue
                action = Catastrophe(s.name, Color(c), seat)
                try:
                    tip.copy().apply(action)
                except HomeworldsError:
                    continue
                yield action
