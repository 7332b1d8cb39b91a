"""Every conceivable next action, and the ones the authority (``TurnInProgress.apply``) accepts.

``conceivable_actions`` knows no rule: it names every action kind with every system
(plus one that does not exist), every piece, every colour, every seat, every
destination and every star, including what the rules forbid (trades that change size
or keep the colour, captures of one's own or larger ships, builds of any piece, moves
to the same system ...). ``accepted_actions`` keeps those that ``TurnInProgress.apply``
accepts on a copy of the turn in progress. Whatever another part of the engine lists
or proposes is compared with that.

Two spellings of one action are folded by ``normal``: a capture without an owner
(the only opponent with such a ship there) and with it, and discoveries whatever the
new system is called (any unused name is equally legal).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from homeworlds.rules import (
    PIECES,
    Action,
    AmbiguousAction,
    BrainTransference,
    Build,
    Capture,
    Catastrophe,
    Color,
    Discover,
    HomeworldsError,
    Move,
    Pass,
    Sacrifice,
    Trade,
    TurnInProgress,
)

#: The name every conceivable discovery gives its new system (no existing system has it).
NEW_NAME = "Zz-new"
#: A system that is never on the board.
NOWHERE = "Nowhere"


def conceivable_actions(tip: TurnInProgress) -> Iterator[Action]:
    """Every action of every kind, with no rule applied (setup actions aside)."""
    st = tip.state
    names = [s.name for s in st.systems] + [NOWHERE]
    yield Pass()
    yield BrainTransference()
    for name in names:
        for color in Color:
            yield Catastrophe(name, color)
            if "declarer" in Catastrophe.__dataclass_fields__:
                # Rules where a player not to move may declare an overpopulation.
                for seat in range(-1, st.players + 1):
                    yield Catastrophe(name, color, declarer=seat)  # type: ignore[call-arg]
        for p in PIECES:
            yield Sacrifice(p, name)
            yield Build(p, name)
            for owner in (None, *range(-1, st.players + 1)):
                yield Capture(p, name, owner)
            for q in PIECES:
                yield Trade(p, q, name)
                yield Discover(p, name, q, NEW_NAME)
            for dest in names:
                yield Move(p, name, dest)
        for p in PIECES:
            for taken in names:
                yield Discover(p, name, PIECES[0], taken)  # an existing name is refused


def accepts(tip: TurnInProgress, action: Action) -> bool:
    """Whether ``tip.apply`` accepts ``action`` now (tried on a copy)."""
    try:
        tip.copy().apply(action)
    except AmbiguousAction:
        return False  # an owner must be named: the named spellings are accepted instead
    except HomeworldsError:
        return False
    return True


def accepted_actions(tip: TurnInProgress) -> set[Action]:
    """The authority's answer: every conceivable action ``tip.apply`` accepts, folded."""
    return {normal(tip, a) for a in conceivable_actions(tip) if accepts(tip, a)}


def normal(tip: TurnInProgress, action: Action) -> Action:
    """One spelling per action (see the module's docstring)."""
    if isinstance(action, Capture) and action.owner is None:
        system = tip.state.system(action.system)
        if system is not None:
            owners = [s for s in range(tip.state.players)
                      if s != tip.seat and system.ships[s][action.piece.index]]
            if len(owners) == 1:
                return Capture(action.piece, system.name, owners[0])
    if isinstance(action, Discover):
        return Discover(action.piece, action.origin, action.star, NEW_NAME)
    return action


def folded(tip: TurnInProgress, actions: Iterable[Action]) -> set[Action]:
    return {normal(tip, a) for a in actions}
