"""``find_material_turn``: a turn that takes at least so many pips of the opponent's
ships (captures, catastrophes) — found when there, never invented, held to an exhaustive
look at every successor."""

from __future__ import annotations

import pytest

from homeworlds.rules import GameState, find_material_turn, successors
from tests.ai.helpers import after, cooked_game_positions, random_positions
from tests.positions import position

# From a game of level 4 against the old level 3 (looney rules, seat 1 to move): seat 0
# has just built three greens at New1. Seat 1 sacrifices its y2 and brings a green in
# through a new system: four greens at New1 destroy seat 0's ships there (7 pips).
GREEN_CROWD = """
    Player1 (0, g1b2) r1y1y1b1-
    Player2 (1, b1y3) -r1y2g1g1g2b3
    New1 (y3) g2g2g3-
"""


def _pips(state: GameState, seat: int) -> int:
    return sum(piece.size for system in state.systems for piece in system.ship_pieces(seat))


def _takes(state: GameState, turn, min_pips: int) -> bool:
    """The turn takes the pips (or the opponent's home), and the mover survives it (a
    turn that loses the mover its own home is no threat)."""
    me, target = state.to_move, 1 - state.to_move
    later = after(state, turn)
    if later.eliminated[me] or later.result is not None and list(later.result.winners) != [me]:
        return False
    return (later.home_of(target) is None or later.eliminated[target]
            or _pips(state, target) - _pips(later, target) >= min_pips)


def _scan(state: GameState, min_pips: int) -> bool:
    """Exact but slow: does any successor take ``min_pips`` of the opponent's ships?"""
    return any(_takes(state, succ.turn, min_pips) for succ in successors(state))


def test_a_sacrifice_driven_catastrophe_on_ships_is_found():
    state = position(GREEN_CROWD, "looney", to_move=1)
    turn = find_material_turn(state, min_pips=7)
    assert turn is not None and _takes(state, turn, 7), turn
    assert find_material_turn(state, min_pips=8) is None  # no turn takes more
    assert not _scan(state, 8)


def test_the_bound_asks_for_a_whole_number_of_pips():
    state = position(GREEN_CROWD, "looney", to_move=1)
    with pytest.raises(ValueError, match="min_pips"):
        find_material_turn(state, min_pips=0)


@pytest.mark.parametrize("rules", ["looney", "strict"])
def test_the_targeted_search_agrees_with_the_exhaustive_scan(rules: str):
    found = missed = 0
    positions = [*cooked_game_positions(rules),
                 *random_positions(80, seed=29, rules=rules, max_plies=40)]
    for n, state in enumerate(positions):
        min_pips = (1, 2, 3, 5)[n % 4]
        turn = find_material_turn(state, min_pips=min_pips)
        if turn is None:
            assert not _scan(state, min_pips), (state.describe(), min_pips)
            missed += 1
        else:
            assert _takes(state, turn, min_pips), (state.describe(), turn, min_pips)
            found += 1
    assert found >= 10 and missed >= 30, (found, missed)  # both answers are exercised
