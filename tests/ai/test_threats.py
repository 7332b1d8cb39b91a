"""Threats in words (homeworlds.ai.threats) and the top level's forced wins in two."""

from __future__ import annotations

from homeworlds.ai import ComputerPlayer
from homeworlds.ai.threats import (
    find_threats,
    forced_win_in_two,
    homes_in_danger,
    is_forced_win_in_two,
    overpopulation_near,
)
from homeworlds.ai.wins import immediate_win
from homeworlds.rules import Move, Piece, Trade
from tests.ai.helpers import after, opened, position

#: SDG game 650 before turn 37 (jesse to move): trading the y3 for an r3 at home leaves
#: pigasuspig no reply that stops jesse from capturing or starving its home next turn.
GAME_650 = """
    jesse (0, g2) y3b1-g2
    pigasuspig (1, g1b3) b3-y1y1
    Zoid (b1) r1g1-
"""
#: SDG game 1190 before turn 29 (TwoShort to move): Move G3 Troublemaker Laurie_Menke.
GAME_1190 = """
    TwoShort (0, y1b2) g1g3-
    Laurie_Menke (1, y3b2) -g3
    Troublemaker (y1) y2g1g2g3-
    Oceania (b3) r1y1g1g2g2-
"""
NAMES = ("Ann", "Ben")


def test_a_forced_win_in_two_is_found_and_checked_by_every_reply():
    state = position(GAME_650, rules="sdg")
    assert immediate_win(state) is None
    turn = forced_win_in_two(state)
    assert turn is not None
    assert is_forced_win_in_two(state, turn)
    # The turn jesse played is one; a quiet build elsewhere is not.
    assert is_forced_win_in_two(state, (Trade(Piece.from_text("y3"), Piece.from_text("r3"),
                                              "jesse"),))
    assert not is_forced_win_in_two(state, (Trade(Piece.from_text("b1"), Piece.from_text("g1"),
                                                  "jesse"),))


def test_no_forced_win_in_a_quiet_opening_and_a_sharp_one_for_the_other_side():
    state = opened(0)
    assert forced_win_in_two(state) is None
    assert find_threats(state, NAMES, forced_time=None) == ()
    # In game 650 with pigasuspig to move, a g1 built at jesse's one-star home (three
    # greens there) forces the win the other way.
    other = position(GAME_650, rules="sdg", to_move=1)
    turn = forced_win_in_two(other)
    assert turn is not None and is_forced_win_in_two(other, turn)


def test_threats_in_words_name_the_player_the_turn_and_the_place():
    state = position(GAME_1190, rules="sdg")
    threats = find_threats(state, NAMES, forced_time=None)  # no wall-clock limit
    kinds = [t.kind for t in threats]
    assert kinds[0] == "forced-win"
    forced = threats[0]
    assert forced.seat == 0 and forced.systems == ("Laurie_Menke",)
    assert forced.words.startswith("Ann has a forced win: after ")
    assert forced.turn is not None and is_forced_win_in_two(state, forced.turn)
    assert forced.to_json()["turn"] == forced.turn_text
    over = [t for t in threats if t.kind == "overpopulation"]
    assert {t.systems for t in over} == {("Troublemaker",), ("Oceania",)}
    assert "3 green pieces" in over[0].words
    # After the forcing move, the win-in-one is there for Ann whatever Ben does; with Ben
    # to move, Ann's home in danger is still named.
    played = after(state, (Move(Piece.from_text("g3"), "Troublemaker", "Laurie_Menke"),))
    assert not any(t.kind in ("win-in-one", "forced-win") and t.seat == 0
                   for t in find_threats(played, NAMES, forced_time=None))


def test_win_in_one_comes_first_and_skips_the_forced_search():
    state = position("""
        Alice (0, y2b1) g1r3-
        Bob (1, g3) -g2g1
    """, rules="sdg")
    threats = find_threats(state, NAMES, forced_time=None)
    assert threats[0].kind == "win-in-one"
    assert threats[0].words.startswith("Ann can win this turn: Move G1")
    assert not any(t.kind == "forced-win" for t in threats)
    danger = [t for t in threats if t.kind == "home-in-danger"]
    assert [(t.seat, t.systems) for t in danger] == [(1, ("Bob",))]
    assert "one more piece of green" in danger[0].words


def test_home_in_danger_and_overpopulation_as_pure_functions():
    state = position("""
        Alice (0, b1b2) g3-b3
        Bob (1, r1y2) -g2g2
        Far (g1) g1-g2
    """, rules="sdg")
    danger = homes_in_danger(state, NAMES)
    # Ann's stars are both blue with three blue pieces there; Ben's ships are all green
    # with only two greens at home (two short: still named).
    assert [(t.seat, "every star" in t.words) for t in danger] == [(0, True), (1, False)]
    assert "one more piece of blue" in danger[0].words
    over = overpopulation_near(state)
    assert [t.systems for t in over] == [("Alice",), ("Far",)]
    assert find_threats(state.copy(), NAMES, forced_time=0) == find_threats(
        state.copy(), NAMES, forced_time=0)


def test_the_top_level_plays_a_forced_win_in_two():
    for text in (GAME_650, GAME_1190):
        state = position(text, rules="sdg")
        # A generous time and a node budget: the forced-win step (35 % of the time) runs
        # to its end on any machine, and the search is the same everywhere.
        player = ComputerPlayer(4, seed=3, rules="sdg", time_limit=120, node_limit=300)
        turn = player.choose_turn(state.copy())
        assert is_forced_win_in_two(state, turn), turn
        assert player.last_stats.get("forced_win") == 1.0
