"""Level 4 sees the opponent's sacrifice-driven catastrophe on its crowded ships: the
evaluation counts the pieces a big yellow sacrifice can bring in from two jumps away."""

from __future__ import annotations

import dataclasses

from homeworlds.ai.players import LEVELS
from homeworlds.ai.search import SearchPlayer
from homeworlds.rules import find_material_turn
from tests.ai.helpers import after, position

# From a game of level 4 against the old level 3 (looney rules, seat 0 to move). The
# tempting turn sacrifices the g3 to build up to three greens at New1; seat 1 then
# sacrifices its y2, discovers a system with a g1 and moves it on into New1: four greens,
# a catastrophe, 7 pips of seat 0's ships gone. Level 4 played it (and lost) while its
# evaluation counted only pieces one jump away; the y2 sacrifice group was too big for
# the replies it lists.
GREEN_CROWD = """
    Player1 (0, g1b2) r1y1g3b1-
    Player2 (1, b1y3) -r1y2g1g1g2b3
    New1 (y3) g2-
"""


def test_level_4_does_not_crowd_a_system_the_opponent_can_catastrophe():
    state = position(GREEN_CROWD, "looney", to_move=0)
    settings = dataclasses.replace(LEVELS[4], time_limit=60.0)
    # A node limit, not the clock: the same search on any machine.
    turn = SearchPlayer(settings, seed=0, node_limit=1_000).choose_turn(state)
    later = after(state, turn)
    assert find_material_turn(later, min_pips=5) is None, later.describe()
