"""Win-in-one and Red Alert against the reference positions and against full enumeration."""

from __future__ import annotations

import random

import pytest

from homeworlds.rules import find_winning_turn, has_winning_turn, preset, red_alert, successors
from homeworlds.rules.fast import EncodedPosition

from .conftest import SHARED, position, position_file, replay_positions
from .randompos import random_position

WIN_DIR = SHARED / "positions" / "win-in-one"
WIN_FILES = sorted(p.name for p in WIN_DIR.glob("*.txt")) if WIN_DIR.is_dir() else []

#: nowin positions (under strict) that have an eliminating turn under the looney rules.
LOONEY_WINS = {
    # a catastrophe may come between a sacrifice and its actions
    "nowin-by-build-precatastrophe-other.txt",
    # no strict post-catastrophe check: the loser cannot answer once the game is over
    "nowin-by-doomed-homeworld.txt",
    "nowin-doomed-homeworld.txt",
    "nowin-by-simultaneous-catastrophe.txt",
    "nowin-by-simultaneous-catastrophe-2.txt",
    # your home may stand empty mid-turn if a ship is back by the end
    "nowin-by-temporarily-abandon-homeworld.txt",
}


def full_enumeration_win(state) -> bool:
    """Is some successor a win for the mover? (the slow, obviously complete way)"""
    layout = EncodedPosition(state).layout
    me = state.to_move
    for succ in successors(state):
        homes = succ.key[0]
        mine = homes[me]
        if mine is None or not layout.info(mine).count[me]:
            continue
        for seat, sig in enumerate(homes):
            if seat != me and not state.eliminated[seat] and (
                    sig is None or not layout.info(sig).count[seat]):
                return True
    return False


def assert_wins(state, turn):
    after = state.copy()
    after.apply_turn(turn)
    assert after.result is not None and after.result.winners == (state.to_move,), turn


@pytest.mark.parametrize("name", WIN_FILES)
def test_reference_positions_strict(shared, name):
    state = position_file(shared / "positions" / "win-in-one" / name, "strict")
    turn = find_winning_turn(state)
    assert (turn is not None) == name.startswith("win-")
    if turn is not None:
        assert_wins(state, turn)


def test_reference_positions_looney_differences(shared):
    assert len(WIN_FILES) == 61
    became_wins = set()
    for name in WIN_FILES:
        state = position_file(shared / "positions" / "win-in-one" / name, "looney")
        turn = find_winning_turn(state)
        if name.startswith("win-"):
            assert turn is not None, name
        elif turn is not None:
            became_wins.add(name)
        if turn is not None:
            assert_wins(state, turn)
    assert became_wins == LOONEY_WINS


def test_agrees_with_full_enumeration_on_archive_positions(shared, branching_factors):
    rng = random.Random(77)
    games = rng.sample(sorted(branching_factors), 12)
    checked = wins = 0
    for rules in ("strict", "looney"):
        for game in games:
            for index, state in replay_positions(shared / "games" / "cooked" / f"{game}.cooked",
                                                 rules="strict"):
                if branching_factors[game][index] > 1500:
                    continue
                probe = state.copy()
                probe.rules = preset(rules)
                turn = find_winning_turn(probe)
                assert (turn is not None) == full_enumeration_win(probe), (game, index, rules)
                if turn is not None:
                    assert_wins(probe, turn)
                    wins += 1
                checked += 1
    assert checked > 300


@pytest.mark.parametrize("rules", ["strict", "looney", "alternating-setup", "good-evil"])
def test_agrees_with_full_enumeration_on_crowded_random_positions(rules):
    wins = 0
    for seed in range(40):
        rng = random.Random(seed)
        state = random_position(rng, preset(rules), systems=rng.randrange(0, 4),
                                ships=rng.randrange(4, 12), crowd=0.5)
        if state.is_over:
            continue
        turn = find_winning_turn(state)
        assert (turn is not None) == full_enumeration_win(state), (seed, state.describe())
        if turn is not None:
            assert_wins(state, turn)
            wins += 1
    assert wins >= 8


def test_targets_and_red_alert():
    # Seat 1's r3 sits in seat 0's home next to seat 0's only ship there, a g1.
    state = position("""
        Home0 (0, y1b2) g1-r3
        Home1 (1, y3g1) y2-g3
    """, rules="strict")
    # Seat 0, to move, has no way to empty Home1 of seat 1's ships...
    assert find_winning_turn(state) is None
    assert not has_winning_turn(state)
    # ...but seat 1, moving next, captures seat 0's last ship at home.
    danger = red_alert(state, 0)
    assert danger is not None
    probe = state.copy()
    probe.to_move = 1
    assert_wins(probe, danger)
    assert red_alert(state, 1) is None
    with pytest.raises(ValueError):
        find_winning_turn(state, target=0)
    with pytest.raises(ValueError):
        red_alert(state, 5)


def test_three_players_target_choice():
    from homeworlds.notation import CookedSystem
    from homeworlds.rules import GameState, Piece
    p = Piece.from_text
    systems = [CookedSystem("Home0", 0, (p("y1"), p("b2")), ((p("g1"),), (), ())),
               CookedSystem("Home1", 1, (p("y3"), p("r1")), ((), (p("g3"),), ())),
               CookedSystem("Home2", 2, (p("g3"), p("b1")), ((p("r3"),), (), (p("b2"),)))]
    state = GameState.from_position(systems, preset("last-standing"), to_move=0, players=3)
    turn = find_winning_turn(state, target=2)
    assert turn is not None and "capture b2" in str(turn[0])
    assert find_winning_turn(state, target=1) is None
    assert find_winning_turn(state) == turn
    after = state.copy()
    after.apply_turn(turn)
    assert after.eliminated == [False, False, True]


def test_mid_turn_catastrophe_can_bring_a_far_ship_within_reach():
    # Looney: the b1 makes blue four at Home1, a catastrophe takes its b1 star away, and
    # Xanadu (a size-1 star, not connected to Home1 before) is now one move away: two red
    # ships move in and a red catastrophe clears Home1. Strict has no such turn.
    text = """
        Home0 (0, y2g1) y3b1-
        Home1 (1, b1g3) b2b2r1-r3
        Yonder (g2) b1-
        Xanadu (y1) r1r2-
    """
    looney = position(text, "looney")
    turn = find_winning_turn(looney)
    assert turn is not None and full_enumeration_win(looney)
    assert_wins(looney, turn)
    strict = position(text, "strict")
    assert find_winning_turn(strict) is None and not full_enumeration_win(strict)
