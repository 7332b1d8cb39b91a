"""The static evaluation: it prefers what a player would prefer."""

from __future__ import annotations

from homeworlds.ai.evaluate import WIN, Evaluator, MaterialEvaluator, SearchEvaluator
from homeworlds.rules import Capture, Piece, canonical_key, preset
from tests.ai.helpers import after, cooked_game_positions, opened, position

RULES = preset("looney")


def score(text: str, seat: int = 0, to_move: int = 1) -> float:
    return Evaluator(RULES).score_state(position(text, to_move=to_move), seat)


def search_score(text: str, to_move: int, seat: int = 0) -> float:
    """The score level 4's search gives the position."""
    return SearchEvaluator(RULES).score_state(position(text, to_move=to_move), seat)


def test_the_score_is_zero_sum_between_the_seats():
    text = """
        Alpha (0, y1b2) g3g1-
        Beta (1, y3g2) -b3r1
        Gamma (r2) y1-g2
    """
    assert score(text, seat=0) == -score(text, seat=1)


def test_more_and_bigger_ships_are_better():
    base = "Alpha (0, y1b2) g3-\nBeta (1, y3g2) -g3"
    assert score(base.replace("g3-", "g3g1-")) > score(base)
    assert score(base.replace("g3-", "g3g2-")) > score(base.replace("g3-", "g3g1-"))


def test_a_lost_home_star_is_bad():
    two = "Alpha (0, y1b2) g3-\nBeta (1, y3g2) -g3"
    one = "Alpha (0, b2) g3-\nBeta (1, y3g2) -g3"
    assert score(one) < score(two) - 3


def test_an_enemy_ship_that_can_capture_at_home_is_a_threat():
    safe = "Alpha (0, y1b2) g3g1-\nBeta (1, y3g2) -g3r3\nGamma (r1) -g1"
    # The same enemy red sits in seat 0's home, ready to capture (seat 1 moves next).
    threatened = "Alpha (0, y1b2) g3g1-r3\nBeta (1, y3g2) -g3\nGamma (r1) -g1"
    assert score(threatened) < score(safe) - 3


def test_overpopulation_the_opponent_can_trigger_is_penalised():
    calm = "Alpha (0, y1b2) g3g1g2-\nBeta (1, y3g2) -b3\nGamma (b1) g1-"
    # A fourth green at home: seat 1, moving next, can clear every green ship there.
    crowded = "Alpha (0, y1b2) g3g1g2g1-\nBeta (1, y3g2) -b3\nGamma (b1) -"
    assert score(crowded) < score(calm) - 3


def test_terminal_positions_score_as_wins_and_losses():
    state = position("""
        Alpha (0, y1b2) g3-
        Beta (1, y3g2) r3-g2
    """)
    evaluator = Evaluator(RULES)
    won = after(state, (Capture(Piece.from_text("g2"), "Beta"),))
    assert evaluator.score_state(won, 0) == WIN
    assert evaluator.score_state(won, 1) == -WIN
    # A key that keeps the beaten home in place, empty of its owner's ships, is a win too.
    homes, others = canonical_key(state)
    layout = evaluator.layout
    g2 = Piece.from_text("g2").index
    emptied = homes[1] - layout.ship_weight[1][g2]  # seat 1's g2 gone from Beta
    assert evaluator.score_key(((homes[0], emptied), others), 0, 1) == WIN


def test_material_baseline_counts_ships_and_ignores_the_finer_points():
    material = MaterialEvaluator(RULES)
    state = opened(0)
    more = position("Player1 (0, y1b2) g3g1-\nPlayer2 (1, b1y3) -g3")
    assert material.score_state(more, 0) > material.score_state(state, 0)
    # Pieces of an overpopulated colour count as lost.
    doomed = position("Player1 (0, y1b2) g3g1g1g2-\nPlayer2 (1, b1y3) -g3")
    assert material.score_state(doomed, 0) < material.score_state(state, 0)


def threat_of_seat_0(text: str) -> float:
    """The most seat 0 could gain on its next turn, as the search's evaluation sees it."""
    evaluator = SearchEvaluator(RULES)
    homes, others = canonical_key(position(text, to_move=0))
    systems = [evaluator.system(sig) for sig in (*homes, *others)]
    return evaluator._threat(0, 1, systems)


def test_a_catastrophe_a_big_yellow_sacrifice_brings_two_jumps_is_a_threat():
    # Seat 0 has three greens at New1; seat 1's g1 is two jumps away (New1 and Player2
    # share size 3: through a new system). A y2 sacrifice makes both moves and the fourth
    # green clears 8 pips of seat 0's ships; a y1 sacrifice makes only one.
    crowded = """
        Player1 (0, g1b2) r1y1b1-
        Player2 (1, b1y3) -r1y2g1g2b3
        New1 (y3) g2g2g3-
    """
    small_yellow = crowded.replace("-r1y2", "-r1y1")
    assert search_score(crowded, to_move=1) < search_score(small_yellow, to_move=1) - 3


def test_a_catastrophe_threat_needs_a_route_to_the_system():
    # Seat 0 can sacrifice its y2 for two moves to bring a fourth blue into Beta (b3 star
    # and two blue defenders). From Gamma (size 3) the b1 goes through a new size-2
    # system; from Alpha (sizes 1 and 2) it cannot: a system two jumps from both Alpha
    # and Beta (sizes 1 and 3) would need a size neither has, and there is none.
    blocked = """
        Alpha (0, r1y2) y2b1g3-
        Beta (1, y1b3) -b1b1g3
        Gamma (g3) y1-
    """
    open_route = """
        Alpha (0, r1y2) y2y1g3-
        Beta (1, y1b3) -b1b1g3
        Gamma (g3) b1-
    """
    assert threat_of_seat_0(open_route) > threat_of_seat_0(blocked) + 5


def test_the_yellow_sacrificed_for_moves_is_not_also_the_piece_moved_in():
    # Beta holds three yellows (star and two defenders). Seat 0's only yellow is the y2
    # in Gamma, two jumps from Beta (they share size 1): sacrificed for the two moves,
    # it is gone, and no other yellow can come in. So it threatens no more than a g2
    # in its place.
    text = """
        Alpha (0, r1b2) g3-
        Beta (1, y1g3) -y1y2g3
        Gamma (b1) y2-
    """
    assert threat_of_seat_0(text) == threat_of_seat_0(text.replace("y2-", "g2-"))


def test_the_catastrophe_count_cut_short_gives_the_same_scores():
    # ``_threat`` skips a catastrophe that cannot beat the threat already found, bounding
    # its cost by the cheapest yellow given up; with no bound at all every catastrophe is
    # counted out. The scores must not differ on real, crowded positions.
    rules = preset("looney")
    bounded = SearchEvaluator(rules)
    unbounded = SearchEvaluator(rules)
    unbounded._least_ship = float("-inf")
    positions = list(cooked_game_positions("looney"))
    assert len(positions) > 50
    for state in positions:
        key = canonical_key(state)
        for to_move in (0, 1):
            assert bounded.score_key(key, 0, to_move) == unbounded.score_key(key, 0, to_move), \
                state.describe()
