"""A position in which a player has no ship of their own at home is decided as it stands.

Positions come from cooked files and ``GameState.from_position`` (the ``successors`` and
``wins`` commands, archive replays, tests); they used to mark such a player eliminated but
set no result, so the game went on forever. Each preset's rulebook says the player is out:

- 001 (How to win): "A player is eliminated if, at the end of either player's turn, they do
  not control a ship at their own Homeworld" — a position between turns is the end of one
  (``looney``, ``sdg``, ``strict``; 000's GOAL says the same: "You lose the game if you
  have zero ships at your own Homeworld").
- 002 (Star-Systems and Star ships): "if at some point you don't own any ships in your Homeworld,
  your civilization is destroyed, and you are eliminated from the game" (``good-evil``).
- 003 (Ending the Game): "The game ends immediately when either condition is met."
  (``alternating-setup``).
"""

from __future__ import annotations

import pytest

from homeworlds.notation.cooked import CookedSystem
from homeworlds.rules import (
    Build,
    GameState,
    IllegalTurn,
    Pass,
    count_successors,
    find_winning_turn,
    preset,
    red_alert,
    successors,
)
from tests.rules.helpers import P, position

TWO_PLAYER = ("looney", "sdg", "strict", "alternating-setup", "good-evil")

#: Seat 1's home holds only seat 0's ships (seat 0 captured them on the turn before).
CAPTURED_HOME = """
    Home (0, g1y2) y3g2-
    Enemy (1, r1b3) r3g1-
    Far (g3) -b2
"""


@pytest.mark.parametrize("rules", TWO_PLAYER)
@pytest.mark.parametrize("to_move", [0, 1])
def test_a_player_without_a_ship_at_home_has_lost(rules, to_move):
    state = position(CAPTURED_HOME, rules=rules, to_move=to_move)
    assert state.eliminated == [False, True]
    assert state.result is not None and state.is_over
    assert state.result.kind == "opponent-eliminated" and state.result.winners == (0,)
    # Nothing goes on from a decided position: no turn, no successors, no win to find.
    with pytest.raises(IllegalTurn, match="the game is already over"):
        state.apply_turn([Build(P("g1"), "Home")])
    with pytest.raises(ValueError, match="the game is over"):
        list(successors(state))
    with pytest.raises(ValueError, match="the game is over"):
        count_successors(state)
    assert find_winning_turn(state) is None
    assert red_alert(state, 0) is None


def test_both_players_without_a_ship_at_home_is_a_draw():
    """001 (Rule summary): "If both players lose homeworld control on the same turn, the game
    is a draw.\""""
    state = position("""
        Home (0, g1y2) -y3
        Enemy (1, r1b3) g1-
    """)
    assert state.eliminated == [True, True]
    assert state.result is not None and state.result.kind == "draw"
    assert state.result.winners == ()


def test_a_position_with_every_home_held_goes_on():
    state = position("""
        Home (0, g1y2) y3-r1
        Enemy (1, r1b3) g1-r3
    """, to_move=1)
    assert state.result is None and state.to_move == 1
    assert count_successors(state) > 0


def _pieces(text: str) -> tuple:
    return tuple(P(text[i:i + 2]) for i in range(0, len(text), 2))


def _three_seats(home1: str, home2: str, rules: str, to_move: int = 0, alignments=None
                 ) -> GameState:
    """Three seats: ``home1``/``home2`` are seat 1's and seat 2's own ships at home (seat 0
    holds a ship at each)."""
    systems = [
        CookedSystem("Home0", 0, _pieces("g1y2"), (_pieces("y3"), (), ())),
        CookedSystem("Home1", 1, _pieces("r1b3"), (_pieces("g3"), _pieces(home1), ())),
        CookedSystem("Home2", 2, _pieces("b1r2"), (_pieces("r3"), (), _pieces(home2))),
    ]
    return GameState.from_position(systems, preset(rules), to_move=to_move, players=3,
                                   alignments=alignments)


@pytest.mark.parametrize("rules", ["last-standing", "sinister", "left-man-down"])
def test_a_player_out_of_three_is_eliminated_and_play_goes_on_without_them(rules):
    """000 (HOMEWORLDS FOR MORE THAN TWO): "You can fight to the last captain standing, each
    player can be seeking to destroy the one on their left" — one player out of three leaves
    two: no winner yet (who eliminated them is not known, so no Sinister hunter has won)."""
    state = _three_seats("b2", "", rules, to_move=2)
    assert state.eliminated == [False, False, True]
    assert state.result is None
    assert state.to_move == 0, "the turn passes to the next player still in the game"
    state.apply_turn([Pass()])
    assert state.to_move == 1
    state.apply_turn([Pass()])
    assert state.to_move == 0


def test_the_last_captain_standing_wins():
    """000 (HOMEWORLDS FOR MORE THAN TWO): "You can fight to the last captain standing"."""
    state = _three_seats("", "", "last-standing")
    assert state.eliminated == [False, True, True]
    assert state.result is not None and state.result.winners == (0,)


@pytest.mark.parametrize("alignments, winners", [
    (("good", "good", "evil"), (0, 1)),   # the only Evil player is out: the Good share the win
    (("good", "evil", "good"), None),     # a Good player is out: Evil is still in the game
])
def test_good_evil_position_with_a_player_out(alignments, winners):
    """002 (Elimination and Winning): "If there are no Evil players left, the game ends
    immediately, and al of the remaining Good players share the win. Otherwise, the game
    continues." No one is known to have eliminated them, so no Evil player wins by it."""
    state = _three_seats("b2", "", "good-evil", alignments=alignments)
    assert state.eliminated == [False, False, True]
    if winners is None:
        assert state.result is None
    else:
        assert state.result is not None and state.result.winners == winners


def test_a_seat_to_move_that_does_not_exist_is_refused():
    with pytest.raises(ValueError, match="seat 2 cannot be to move: the seats are 0 to 1"):
        position(CAPTURED_HOME, to_move=2)
