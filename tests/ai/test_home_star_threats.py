"""The opponent's one-turn threat on a home star (``find_home_star_turn``): found when
there, never invented — held to an exhaustive look at every successor."""

from __future__ import annotations

import pytest

from homeworlds.ai.wins import home_stars_out_of_reach
from homeworlds.rules import GameState, find_home_star_turn, successors
from tests.ai.helpers import after, cooked_game_positions, position, random_positions

# Seat 1 to move can sacrifice its y2 and move both greens from Gamma into Alpha: four
# greens there destroy the g1 star (and seat 0's g3).
GREEN_RAID = """
    Alpha (0, g1b2) g3-
    Beta (1, y3b1) -g3
    Gamma (r3) -g1g2y2
"""


def _stars(state: GameState, seat: int) -> int:
    home = state.home_of(seat)
    return 0 if home is None else len(home.stars)


def _hits_a_home_star(state: GameState, turn) -> bool:
    target = 1 - state.to_move
    return _stars(after(state, turn), target) < _stars(state, target)


def _scan(state: GameState) -> bool:
    """Exact but slow: does any successor destroy a star of the opponent's home?"""
    return any(_hits_a_home_star(state, succ.turn) for succ in successors(state))


def test_a_sacrifice_driven_catastrophe_on_a_home_star_is_found():
    state = position(GREEN_RAID)
    state.to_move = 1
    turn = find_home_star_turn(state)
    assert turn is not None and _hits_a_home_star(state, turn)


def test_no_threat_is_claimed_where_none_is():
    state = position(GREEN_RAID)  # seat 0 to move: nothing of its own reaches Beta
    assert find_home_star_turn(state) is None
    assert not _scan(state)


@pytest.mark.parametrize("rules", ["looney", "strict"])
def test_the_targeted_search_agrees_with_the_exhaustive_scan(rules: str):
    found = 0
    positions = [*cooked_game_positions(rules), *random_positions(20, seed=23, rules=rules)]
    for state in positions:
        turn = find_home_star_turn(state)
        if home_stars_out_of_reach(state, 1 - state.to_move):
            assert turn is None, state.describe()  # the shortcut never hides a threat
        if turn is None:
            assert not _scan(state), state.describe()
        else:
            assert _hits_a_home_star(state, turn), (state.describe(), turn)
            found += 1
    assert found >= 1  # the sample holds threats, so both branches are exercised
