"""The static evaluation: it prefers what a player would prefer."""

from __future__ import annotations

from homeworlds.ai.evaluate import WIN, Evaluator, MaterialEvaluator
from homeworlds.rules import Capture, Piece, canonical_key, preset
from tests.ai.helpers import after, opened, position

RULES = preset("looney")


def score(text: str, seat: int = 0, to_move: int = 1) -> float:
    return Evaluator(RULES).score_state(position(text, to_move=to_move), seat)


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
