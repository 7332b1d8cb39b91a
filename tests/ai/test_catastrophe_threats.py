"""Level 4 sees the opponent's sacrifice-driven catastrophe on its crowded ships: the
evaluation counts the pieces a big yellow sacrifice can bring in from two jumps away, and
the search lists the whole sacrifice group of such a turn near the root."""

from __future__ import annotations

import dataclasses

from homeworlds.ai import LEVELS
from homeworlds.ai.search import Budget, SearchPlayer
from homeworlds.notation import parse_cooked_turn
from homeworlds.rules import GameState, canonical_key, find_material_turn
from tests.ai.helpers import after, opened, position

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


def level_4_plays(board: str, to_move: int, node_limit: int) -> GameState:
    """The position after level 4's turn (its shipped settings; a node limit, not the
    clock, so the same search on any machine)."""
    state = position(board, "looney", to_move=to_move)
    settings = dataclasses.replace(LEVELS[4], time_limit=60.0)
    turn = SearchPlayer(settings, seed=0, node_limit=node_limit).choose_turn(state)
    return after(state, turn)


def test_level_4_does_not_crowd_a_system_the_opponent_can_catastrophe():
    later = level_4_plays(GREEN_CROWD, to_move=0, node_limit=1_000)
    assert find_material_turn(later, min_pips=5) is None, later.describe()


# From another game against the old level 3 (looney rules, seat 1 to move). The tempting
# turn sacrifices the g3 for a y3 at home and two b3s at New1, next to seat 0's b1 at
# New4; seat 0 then sacrifices its y2 at home, moves the b1 in (four blues: the b1 and
# both b3s of seat 1 gone) and follows with its b3. The evaluation sees the threat, but
# the search scored the line as about even: the y2 sacrifice group is too big for the
# replies it lists, and the one turn the targeted search found first moved the home's
# r3 away, a reply the search refutes.
BLUE_CROWD = """
    Player1 (0, y3g2) r3y2g2b1b2b2-
    Player2 (1, y1b2) -r1y1g3
    New2 (y1) -r1
    New1 (r3) -y2b1
    New3 (g1) -y2y3
    New4 (g1) b1b3-
"""


def test_the_replies_hold_the_whole_sacrifice_group_of_a_catastrophe():
    later = level_4_plays(BLUE_CROWD, to_move=1, node_limit=600)
    assert find_material_turn(later, min_pips=7) is None, later.describe()


def test_the_group_of_a_catastrophe_is_listed_even_when_its_estimate_is_too_big():
    state = position(BLUE_CROWD, "looney", to_move=1)
    crowded = after(state, parse_cooked_turn(
        "sacrifice g3 at Player2; build y3 at Player2; build b3 at New1; build b3 at New1"))
    reply = after(crowded, parse_cooked_turn(
        "sacrifice y2 at Player1; move b1 from New4 to New1; catastrophe blue at New1;"
        " move b3 from New4 to New1"))
    search = SearchPlayer(LEVELS[4], seed=0)
    estimate = LEVELS[4].reply_estimate

    def listed(threats: bool) -> set[tuple]:
        found = search._expand(crowded, Budget(60.0), estimate, threats=threats)
        return {succ.key for succ in found}

    # The y2 group is beyond the estimate budget of the replies ...
    assert canonical_key(reply) not in listed(threats=False)
    # ... and there with the group of the threat the targeted search finds.
    assert canonical_key(reply) in listed(threats=True)


def test_the_targeted_search_is_asked_only_when_a_group_was_left_out(monkeypatch):
    asked: list[GameState] = []

    def counting(state: GameState, **kwargs):
        asked.append(state)
        return find_material_turn(state, **kwargs)

    monkeypatch.setattr("homeworlds.ai.search.find_material_turn", counting)
    search = SearchPlayer(LEVELS[4], seed=0)
    estimate = LEVELS[4].reply_estimate
    search._expand(opened(0, "looney"), Budget(60.0), estimate, threats=True)
    assert asked == []  # right after the opening every group fits the estimate
    search._expand(position(BLUE_CROWD, "looney", to_move=1), Budget(60.0), estimate,
                   threats=True)
    assert len(asked) == 1
