"""Win-in-one, seen from the computer opponent.

The rules engine owns the real search (``homeworlds.rules.winning``); this
module is the one place the opponent asks it. Two things are added around it:
a cheap proof that the opponent's home is out of reach this turn (most
positions), and a slow but exact scan of the successors for one that
eliminates the opponent — used when the engine's search is not available, and
to re-check its "no" in the narrow case where it is known to miss wins (see
``engine_may_miss``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from homeworlds.rules.actions import Sacrifice, Turn
from homeworlds.rules.fast import Layout, layout_for
from homeworlds.rules.pieces import Color
from homeworlds.rules.state import GameState
from homeworlds.rules.successors import successors


def _engine_search() -> Callable[[GameState], Turn | None] | None:
    """The engine's ``find_winning_turn``, wherever it lives (None: not available)."""
    for name in ("homeworlds.rules.winning", "homeworlds.rules.successors"):
        try:
            found = getattr(importlib.import_module(name), "find_winning_turn", None)
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


def scan_for_winning_turn(state: GameState, **filters) -> Turn | None:
    """Exact but slow: the first successor whose position has the mover's opponent gone.
    ``filters`` are those of ``successors`` (e.g. only yellow sacrifices)."""
    me = state.to_move
    layout = layout_for(state.players, state.rules.bank_copies(state.players))
    for succ in successors(state, **filters):
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

    During the mover's turn ``seat``'s ships never move, so its home falls only to
    captures and catastrophes there. The counting behind the proof:

    - a turn is one free action or a sacrifice's actions, all of one colour, so at most
      ``max(1, size of the mover's largest ship)`` actions;
    - each action adds at most one piece of one colour to the home (a ship moved in, built
      there, or traded there); captures add nothing, and only red actions capture;
    - without a ship of its own there the mover cannot build, trade or capture there:
      only ships moved in (yellow actions) add pieces, at most as many of a colour as it
      has ships of that colour;
    - a catastrophe of colour c there needs four pieces of c: ``4 - count`` additions;
    - a capture takes one ship no larger than the capturer's largest ship there, and
      needs one of the mover's ships there at the start (it cannot move in and capture
      in one turn: those are actions of two colours).

    The home falls when every star goes (catastrophes of each star colour) or every ship
    of its owner goes (each colour of them by catastrophe, or every ship not already in
    an overpopulated colour by capture). When neither is within the turn's actions, no
    winning turn exists. The bound is optimistic, never pessimistic, so a win is never
    hidden (a test checks it against the exhaustive scan).
    """
    me = state.to_move
    home = state.home_of(seat)
    if home is None or seat == me:
        return False
    largest = [0, 0, 0, 0]  # the mover's largest ship of each colour
    own = [0, 0, 0, 0]  # how many ships of each colour the mover has
    for s in state.systems:
        fleet = s.ships[me]
        for k in range(12):
            if fleet[k]:
                own[k // 3] += fleet[k]
                largest[k // 3] = max(largest[k // 3], k % 3 + 1)
    invaders = [k % 3 + 1 for k in range(12) if home.ships[me][k]]
    if invaders:
        # Moves, builds and trades can all add pieces; no cap per colour.
        actions = max(1, *largest)
        cap = [99, 99, 99, 99]
    else:
        # Without a ship there, only ships moved in add pieces: yellow actions only.
        actions = max(1, largest[1])
        cap = own
    counts = [home.count_color(c) for c in range(4)]

    def within_reach(colors: set[int]) -> bool:
        need = 0
        for c in colors:
            deficit = max(0, 4 - counts[c])
            if deficit > cap[c]:
                return False
            need += deficit
        return need <= actions

    if within_reach({i // 3 for i in home.stars}):
        return False
    defenders = [k for k in range(12) for _ in range(home.ships[seat][k])]
    if within_reach({k // 3 for k in defenders}):
        return False
    if invaders:
        to_capture = [k for k in defenders if counts[k // 3] < 4]
        if all(k % 3 + 1 <= max(invaders) for k in to_capture) \
                and len(to_capture) <= max(1, largest[0]):
            return False
    return True


def engine_may_miss(state: GameState) -> bool:
    """Whether the engine's pruned search could miss a win here (see below).

    Its bound counts a ship that is not adjacent to the target home as two moves away.
    When catastrophes may come at any point of a turn, one at the target home can remove
    one of its two stars mid-turn, which changes the home's star sizes and so makes such
    a ship adjacent: the bound then overestimates and a win is pruned away. That needs a
    yellow sacrifice of two or more moves, a home with stars of two sizes, and a home
    colour the moves can bring to four. Outside that, the engine's "no" is trusted.
    Drop this once ``homeworlds.rules.winning`` accounts for it.
    """
    if state.rules.catastrophe_timing != "anytime" or state.players != 2:
        return False
    me = state.to_move
    target = 1 - me
    home = state.home_of(target)
    if home is None or len({i % 3 for i in home.stars}) < 2:
        return False
    moves = 0
    own = [0, 0, 0, 0]
    for s in state.systems:
        fleet = s.ships[me]
        for k in range(12):
            if fleet[k]:
                own[k // 3] += fleet[k]
                if k // 3 == 1:
                    moves = max(moves, k % 3 + 1)
    if moves < 2:
        return False
    counts = [home.count_color(c) for c in range(4)]

    def cost(colors: set[int]) -> int:
        need = 0
        for c in colors:
            deficit = max(0, 4 - counts[c])
            if deficit > own[c]:
                return 99
            need += deficit
        return need

    star_colors = {i // 3 for i in home.stars}
    if min(cost({c}) for c in star_colors) > moves - 1:
        return False  # no star can fall early enough to leave a move after it
    defenders = {k // 3 for k in range(12) if home.ships[target][k]}
    return cost(star_colors) <= moves or cost(defenders) <= moves


def find_winning_turn(state: GameState) -> Turn | None:
    """A turn that wins the game at once for the player to move, or None."""
    if state.result is not None or state.in_setup:
        return None
    if state.players == 2 and home_out_of_reach(state, 1 - state.to_move):
        return None
    if _ENGINE is None:
        return scan_for_winning_turn(state)
    turn = _ENGINE(state)
    if turn is None and engine_may_miss(state):
        turn = scan_for_winning_turn(state, first_kind=Sacrifice, color=Color.YELLOW)
    return turn


def opponent_threatens_win(after: GameState) -> bool:
    """After one's own turn: can the player now to move win at once? (Red Alert.)"""
    return find_winning_turn(after) is not None
