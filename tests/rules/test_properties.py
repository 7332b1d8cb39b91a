"""Property tests: random legal play conserves pieces, and push/pop undo exactly."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from homeworlds.rules import (
    PIECES,
    PRESETS,
    GameState,
    Homeworld,
    IllegalAction,
    Piece,
    legal_actions,
    preset,
)


def _setup(rules: str, rng: random.Random) -> GameState:
    game = GameState(preset(rules))
    ship_sizes = sorted(game.rules.setup_ship_sizes)
    star_pool = rng.sample(list(PIECES), 4)
    for seat in range(2):
        stars = (star_pool[2 * seat], star_pool[2 * seat + 1])
        ship = Piece.from_text("g" + str(rng.choice(ship_sizes)))
        game.push([Homeworld(stars, ship, f"Home{seat}")])
    return game


def random_turn(game: GameState, rng: random.Random):
    """A random legal turn: random legal actions until a random stop."""
    for _ in range(20):
        tip = game.begin_turn()
        for _ in range(rng.randint(1, 5)):
            options = list(legal_actions(tip))
            if not options:
                break
            tip.apply(rng.choice(options))
        if not tip.actions:
            continue
        try:
            tip.finish()
        except IllegalAction:
            continue
        return tuple(tip.actions)
    return None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rules=st.sampled_from(["looney", "sdg", "strict"]))
def test_random_play_conserves_pieces_and_undoes_exactly(seed, rules):
    rng = random.Random(seed)
    game = _setup(rules, rng)
    snapshots = []
    for _ in range(rng.randint(5, 40)):
        if game.is_over:
            break
        turn = random_turn(game, rng)
        if turn is None:
            break
        snapshots.append((game.describe(), game.to_move))
        game.push(turn)
        assert game.total_pieces() == [3] * 12, f"pieces not conserved after {turn}"
        assert all(n >= 0 for n in game.bank)
        for system in game.systems:
            assert system.stars, "a system without a star stayed on the board"
            assert system.has_ships() or system.home_of is not None
    while snapshots:
        game.pop()
        assert (game.describe(), game.to_move) == snapshots.pop()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_listed_action_is_accepted(seed):
    rng = random.Random(seed)
    game = _setup("looney", rng)
    for _ in range(rng.randint(1, 25)):
        if game.is_over:
            break
        turn = random_turn(game, rng)
        if turn is None:
            break
        game.push(turn)
    if game.is_over:
        return
    tip = game.begin_turn()
    for action in legal_actions(tip):
        probe = game.begin_turn()
        probe.apply(action)  # raises if the lazy view listed something illegal


def test_every_preset_is_named_and_described():
    for name, rules in PRESETS.items():
        assert rules.name == name and rules.description
