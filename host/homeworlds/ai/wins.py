"""Win-in-one, seen from the computer opponent.

The rules engine owns the real search (``find_winning_turn``); this module is
the one place the opponent asks it, so that the players never import search
internals. While the engine's function is not available (it is being written
alongside this package) a slow but exact fallback scans every successor for
one that eliminates the opponent.
"""

from __future__ import annotations

from collections.abc import Callable

from homeworlds.rules.actions import Turn
from homeworlds.rules.fast import Layout, layout_for
from homeworlds.rules.state import GameState
from homeworlds.rules.successors import successors


def _engine_search() -> Callable[[GameState], Turn | None] | None:
    for module in ("homeworlds.rules.winning", "homeworlds.rules.successors"):
        try:
            found = getattr(__import__(module, fromlist=["find_winning_turn"]),
                            "find_winning_turn", None)
        except ImportError:
            continue
        if found is not None:
            return found
    return None


_ENGINE = _engine_search()

#: True when the engine's own win-in-one search is used (False: the successor scan).
USES_ENGINE_SEARCH = _ENGINE is not None


def wins_for_mover(state: GameState, after: GameState) -> bool:
    """Whether ``after`` (the position after a turn from ``state``) is a win for that mover."""
    result = after.result
    return (result is not None and result.kind == "opponent-eliminated"
            and state.to_move in result.winners)


def lost_homes(key: tuple, layout: Layout) -> list[bool]:
    """Per seat, from a successor's canonical key: has that seat lost its home?

    Lost means gone (``None``), or a signature without a star or without a ship of its
    owner (a key may keep such a home in place)."""
    lost = []
    for seat, sig in enumerate(key[0]):
        if sig is None:
            lost.append(True)
            continue
        info = layout.info(sig)
        lost.append(not info.stars or not info.count[seat])
    return lost


def scan_for_winning_turn(state: GameState) -> Turn | None:
    """Exact but slow: the first successor whose position has the mover's opponent gone."""
    me = state.to_move
    layout = layout_for(state.players, state.rules.bank_copies(state.players))
    for succ in successors(state):
        lost = lost_homes(succ.key, layout)
        if lost[me] or not any(lost):
            continue
        after = state.copy()
        after.apply_turn(succ.turn)
        if wins_for_mover(state, after):
            return succ.turn
    return None


def home_out_of_reach(state: GameState, seat: int) -> bool:
    """A cheap proof that the player to move cannot eliminate ``seat`` this turn.

    Only a capture or a catastrophe at ``seat``'s home can eliminate it, and a turn's
    actions all share one colour (one free action, or a sacrifice's actions of the
    sacrificed ship's colour). So a player without ships at that home can neither capture
    nor build nor trade there this turn; it can only move ships in (at most one per yellow
    action) and then trigger a catastrophe. When no colour can reach four pieces there that
    way, the home is safe for this turn.
    """
    me = state.to_move
    home = state.home_of(seat)
    if home is None or seat == me:
        return False
    if any(home.ships[me]):
        return False
    own_ships = [0, 0, 0, 0]
    biggest_yellow = 0
    for s in state.systems:
        fleet = s.ships[me]
        for k in range(12):
            if fleet[k]:
                own_ships[k // 3] += fleet[k]
                if k // 3 == 1:
                    biggest_yellow = max(biggest_yellow, k % 3 + 1)
    moves = max(1, biggest_yellow)
    return all(home.count_color(c) + min(moves, own_ships[c]) < 4 for c in range(4))


def find_winning_turn(state: GameState) -> Turn | None:
    """A turn that wins the game at once for the player to move, or None."""
    if state.result is not None or state.in_setup:
        return None
    if state.players == 2 and home_out_of_reach(state, 1 - state.to_move):
        return None
    if _ENGINE is not None:
        return _ENGINE(state)
    return scan_for_winning_turn(state)


def opponent_threatens_win(after: GameState) -> bool:
    """After one's own turn: can the player now to move win at once? (Red Alert.)"""
    return find_winning_turn(after) is not None
