"""Win-in-one and Red Alert: is there a turn that eliminates an opponent right now?

``find_winning_turn(state)`` returns one legal turn of the player to move after
which an opponent has lost its home (and the mover has not: a draw is not a
win), or None. It runs the successor search of ``successors.py`` in a
targeted mode: it stops at the first eliminating turn, and it prunes every
partial turn that provably cannot end in one. The bound is optimistic, so the
pruning loses no win: an action adds at most one piece of one colour to the
target's home, only red actions capture (one ship each, with a ship at least
as large), and a catastrophe there needs four pieces of its colour; if the
actions left (of the colour the turn is committed to) cannot bring the home to
a state where captures and catastrophes remove every ship of its owner (or
every star), the branch is cut.

``red_alert(state, seat)`` asks the same question for the player who moves
after ``seat``, with ``seat`` as the target: the Red Alert handicap warns
``seat`` that its opponent can eliminate it next turn.
"""

from __future__ import annotations

from collections.abc import Callable

from homeworlds.rules.actions import Turn
from homeworlds.rules.state import GameState
from homeworlds.rules.successors import SuccessorSearch, TurnWriter, transferred_search

__all__ = ["find_home_star_turn", "find_material_turn", "find_winning_turn",
           "has_winning_turn", "red_alert"]


def find_home_star_turn(state: GameState, *, target: int | None = None,
                        should_stop: Callable[[], bool] | None = None) -> Turn | None:
    """One legal turn of the player to move that destroys a star of ``target``'s home
    (default: any opponent still in the game) by a catastrophe, or eliminates it; None
    if there is none. The same targeted search as ``find_winning_turn``, pruned by its own
    bound (only a catastrophe destroys a star: some star colour of the home must reach
    four pieces within the turn's actions). The computer opponent asks it to see the
    opponent's sacrifice-driven catastrophes on its home without listing every turn of a
    big sacrifice."""
    return _targeted(state, target, should_stop, "home-star")


def find_material_turn(state: GameState, *, min_pips: int = 1, target: int | None = None,
                       should_stop: Callable[[], bool] | None = None) -> Turn | None:
    """One legal turn of the player to move that captures or destroys ships of
    ``target`` (default: any opponent still in the game) worth at least ``min_pips`` pips
    in all, or eliminates it; None if there is none. The same targeted search as
    ``find_winning_turn``, pruned by its own bound (captures need red actions and a ship
    at least as large; a catastrophe needs four pieces of a colour where the target has
    ships). It finds a sacrifice-driven catastrophe or capture without listing every
    turn of a big sacrifice (a tactics probe for analysis and tests)."""
    return _targeted(state, target, should_stop, "material", min_pips)


def find_winning_turn(state: GameState, *, target: int | None = None,
                      should_stop: Callable[[], bool] | None = None) -> Turn | None:
    """One legal turn of the player to move that eliminates ``target`` (default: any
    opponent still in the game), or None if there is none. None also when the game
    is over or still in setup.

    ``should_stop``: asked now and then during the search (a few busy positions take a
    second or more); when it returns True the search raises ``SearchInterrupted``."""
    return _targeted(state, target, should_stop, "eliminate")


def _targeted(state: GameState, target: int | None,
              should_stop: Callable[[], bool] | None, goal: str,
              min_pips: int = 1) -> Turn | None:
    if state.result is not None or state.in_setup:
        return None
    me = state.to_move
    if target is None:
        targets = tuple(s for s in range(state.players) if s != me and not state.eliminated[s])
    else:
        if not 0 <= target < state.players:
            raise ValueError(f"there is no seat {target}")
        if target == me:
            raise ValueError("a player cannot target itself")
        if state.eliminated[target]:
            return None
        targets = (target,)
    search = SuccessorSearch(state, keep_paths=False, win_targets=targets,
                             should_stop=should_stop, goal=goal, min_pips=min_pips)
    path = search.find_win()
    if path is not None:
        return TurnWriter(search).turn(path)
    # Brain Transference and the catastrophes after it (only when the handicap is open).
    transferred = transferred_search(state, keep_paths=False, win_targets=targets,
                                     should_stop=should_stop, goal=goal, min_pips=min_pips)
    if transferred is None:
        return None
    path = transferred.find_win()
    return None if path is None else TurnWriter(transferred).turn(path)


def has_winning_turn(state: GameState) -> bool:
    return find_winning_turn(state) is not None


def red_alert(state: GameState, seat: int) -> Turn | None:
    """The turn by which the player moving after ``seat`` could eliminate ``seat``.

    Meant to run after ``seat`` commits a turn (then that player is to move); on any
    position it asks about the next seat in turn order after ``seat``. None: no danger.
    """
    if state.result is not None or state.in_setup:
        return None
    if not 0 <= seat < state.players:
        raise ValueError(f"there is no seat {seat}")
    if state.eliminated[seat]:
        return None
    opponent = state.next_seat(seat)
    if opponent == seat:
        return None
    probe = state
    if state.to_move != opponent:
        probe = state.copy()
        probe.to_move = opponent
    return find_winning_turn(probe, target=seat)
