"""The computer players: legal turns, setup, safety against a win-in-one, a small match."""

from __future__ import annotations

import random

import pytest

from homeworlds.ai import ComputerPlayer, GreedyPlayer, RandomPlayer, play_game
from homeworlds.ai.candidates import candidate_successors
from homeworlds.ai.match import play_match_game
from homeworlds.ai.wins import opponent_threatens_win
from homeworlds.rules import GameState, Homeworld, SetupPick, count_successors, preset
from tests.ai.helpers import after, opened, position, random_positions

# Seat 0 to move. Its home holds three reds and three greens, and seat 1 already has a
# green ship there: a turn that adds a fourth red and a fourth green (the big sacrifice
# builds it likes) lets seat 1 clear both colours and empty the home.
CROWDED_HOME = """
    Player1 (0, y1b2) r1r1r1g1g2g3-g1
    Player2 (1, y2b1) -g1b1
    New1 (b3) g2g3-
    New2 (y3) -g2
"""


def _loses_at_once(state: GameState, turn) -> bool:
    nxt = after(state, turn)
    if nxt.result is not None:
        return state.to_move not in nxt.result.winners
    return opponent_threatens_win(nxt)


def test_computer_avoids_a_turn_that_hands_over_a_win_in_one():
    state = position(CROWDED_HOME)
    candidates = candidate_successors(state).successors
    losing = [s for s in candidates if _loses_at_once(state, s.turn)]
    assert losing, "the position must offer losing turns for the test to mean anything"
    for seed in range(3):
        turn = ComputerPlayer(level=1, seed=seed).choose_turn(state)
        assert not _loses_at_once(state, turn), turn


def test_the_safety_filter_passes_over_a_favourite_that_loses():
    state = position(CROWDED_HOME)
    candidates = candidate_successors(state).successors
    losing = next(s for s in candidates if _loses_at_once(state, s.turn))
    safe = next(s for s in candidates if not _loses_at_once(state, s.turn))
    player = ComputerPlayer(level=1, seed=0)
    # However the evaluation ranks them, a losing favourite is passed over.
    kept = player._safe_candidates(state, [(50.0, losing), (1.0, safe)], wanted=1)
    assert [s for _, s in kept] == [safe]


def test_when_every_turn_loses_the_computer_still_returns_a_legal_turn():
    # Seat 1 has a large red ship at seat 0's home and an r2 to sacrifice for two
    # captures: whatever seat 0 builds, its home is cleared next turn. A turn must still
    # be played.
    state = position("""
        Player1 (0, b2) g1-r3
        Player2 (1, y2b1) -g3r2
    """)
    turn = ComputerPlayer(level=1, seed=0).choose_turn(state)
    after(state, turn)  # legal
    assert all(_loses_at_once(state, s.turn) for s in candidate_successors(state).successors)


@pytest.mark.parametrize("rules", ["looney", "sdg", "strict"])
def test_every_player_returns_legal_turns_in_random_positions(rules: str):
    players = [ComputerPlayer(level=1, seed=3), GreedyPlayer(seed=3), RandomPlayer(seed=3)]
    for index, state in enumerate(random_positions(4, seed=len(rules), rules=rules)):
        player = players[index % len(players)]
        turn = player.choose_turn(state)
        after(state, turn)  # raises if illegal


def test_level_one_is_legal_across_a_whole_game_against_itself():
    state = opened(2)
    play_game([ComputerPlayer(level=1, seed=4), ComputerPlayer(level=1, seed=5)], state,
              max_turns=16)
    assert state.ply == 2 + 16 or state.result is not None


@pytest.mark.parametrize("rules", ["looney", "sdg", "strict"])
def test_computer_sets_up_a_sound_homeworld(rules: str):
    state = GameState(preset(rules))
    for seat in range(2):
        turn = ComputerPlayer(seed=seat, names=("North", "South")).choose_turn(state)
        (home,) = turn
        assert isinstance(home, Homeworld)
        assert home.name == ("North", "South")[seat]
        assert len({p.size for p in home.stars}) == 2  # two different star sizes
        assert home.ship.size == 3
        colors = {p.color.name for p in home.stars} | {home.ship.color.name}
        assert {"GREEN", "BLUE"} <= colors or {"GREEN", "YELLOW"} <= colors
        state.apply_turn(turn)
    sizes = [{p.size for p in state.home_of(s).star_pieces} for s in range(2)]
    assert sizes[0] != sizes[1]  # a large universe: the homes are three jumps apart


def test_computer_handles_the_alternating_setup():
    state = GameState(preset("alternating-setup"))
    players = [ComputerPlayer(seed=1), ComputerPlayer(seed=2)]
    while state.in_setup:
        turn = players[state.to_move].choose_turn(state)
        assert isinstance(turn[0], SetupPick)
        state.apply_turn(turn)
    assert all(state.home_of(s) is not None and len(state.home_of(s).stars) == 2
               for s in range(2))


def test_random_player_is_reproducible_and_varied():
    state = opened(0)
    first = [RandomPlayer(seed=7).choose_turn(state) for _ in range(2)]
    assert first[0] == first[1]
    seen = {RandomPlayer(seed=s).choose_turn(state) for s in range(30)}
    assert len(seen) > 5  # it does spread over the successors
    assert len(seen) <= count_successors(state)


def test_random_player_sets_up_legally():
    rng = random.Random(0)
    for _ in range(5):
        state = GameState(preset(rng.choice(["looney", "sdg"])))
        for _ in range(2):
            state.apply_turn(RandomPlayer(seed=rng.randrange(1000)).choose_turn(state))
        assert not state.in_setup


def test_computer_wins_a_small_match_against_the_random_mover():
    won = 0
    for game in range(6):
        state = opened(game // 2)
        computer, other = ComputerPlayer(level=1, seed=game), RandomPlayer(seed=100 + game)
        seats = [computer, other] if game % 2 == 0 else [other, computer]
        play_game(seats, state, max_turns=120)
        if state.result is not None and seats.index(computer) in state.result.winners:
            won += 1
    assert won == 6


def test_bad_arguments_are_refused_clearly():
    with pytest.raises(ValueError, match="unknown level"):
        ComputerPlayer(level=0)
    with pytest.raises(ValueError, match="two-player"):
        ComputerPlayer().choose_turn(GameState(preset("last-standing"), players=3))
    with pytest.raises(ValueError, match="set up for the strict rules"):
        ComputerPlayer(rules="strict").choose_turn(opened(0))
    state = position("""
        Alpha (0, y1b2) g3-
        Beta (1, y3g2) r3-g2
    """)
    state.apply_turn(ComputerPlayer(seed=0).choose_turn(state))  # the capture that wins
    with pytest.raises(ValueError, match="game is over"):
        ComputerPlayer().choose_turn(state)


def test_a_match_game_record_from_the_standard_openings():
    record = play_match_game(3, "random")  # odd index: the computer moves second
    assert record.outcome == "win" and record.opponent == "random"
    assert record.turns >= 1 and len(record.times) == record.turns // 2
