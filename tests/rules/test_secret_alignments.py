"""Good/Evil with cards a table does not know (remote play, docs/rules.md "Across
tables"): stand-ins are never shown and decide nothing; the card revealed decides."""

from __future__ import annotations

from homeworlds.notation import parse_sdg_action
from homeworlds.rules import Alignment, GameState, preset

G, E = Alignment.GOOD, Alignment.EVIL
#: Ann captures Bob's only ship at his home: Bob is eliminated at the end of turn 13.
TURNS = [("Ann", "Homeworld Y1 B2 G3"), ("Bob", "Homeworld Y3 G3 G1"),
         ("Cat", "Homeworld R2 B1 G3"), ("Ann", "Build G1 Ann"), ("Bob", "Pass"),
         ("Cat", "Build G1 Cat"), ("Ann", "Trade G3 R3 Ann"), ("Bob", "Pass"), ("Cat", "Pass"),
         ("Ann", "Move R3 Ann Bob"), ("Bob", "Pass"), ("Cat", "Pass"), ("Ann", "Attack G1 Bob")]


def played(alignments, secret=frozenset()) -> GameState:
    state = GameState(preset("good-evil"), 3, alignments=alignments)
    state.secret_seats = frozenset(secret)
    for who, text in TURNS:
        state.push([parse_sdg_action(text, player=who)])
    return state


def test_a_stand_in_card_decides_nothing_until_the_card_is_revealed():
    """002 (Elimination and Winning): "the remaining Good players share the win" — Ann
    (Good, known here) eliminates Bob, whose card is a stand-in (Good) at Ann's table:
    nothing is decided until Bob's table reveals Evil; then Ann and Cat win."""
    state = played((G, G, E), secret={1, 2})
    assert state.eliminated[1] and state.result is None
    assert state.revealed_alignments() == {0: G}  # Bob's stand-in is not shown
    state.learn_alignments((G, E, G), {2})
    assert state.result is not None and state.result.winners == (0, 2)
    assert state.to_move == 0 and state.revealed_alignments() == {0: G, 1: E}
    # The same as a table that knew every card at the turn's end.
    known = played((G, E, G))
    assert (known.result, known.to_move) == (state.result, state.to_move)


def test_a_known_evil_eliminator_wins_at_once_and_two_good_play_on():
    """002 (Elimination and Winning): "If you are Evil, you win the game immediately.\""""
    assert played((E, G, G), secret={1, 2}).result.winners == (0,)
    state = played((G, E, G), secret={1, 2})
    state.learn_alignments((G, G, E), {2})
    assert state.result is None and state.to_move == 2  # Cat (Evil, unknown) plays on
