"""Positions for the computer-opponent tests."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

from homeworlds.ai import random_legal_turn
from homeworlds.ai.openings import OPENINGS, opening_homeworld
from homeworlds.notation import read_cooked_file
from homeworlds.rules import DEFAULT_PRESET, GameState, preset
from tests.positions import position

__all__ = ["after", "cooked_game_positions", "opened", "position", "random_positions"]

COOKED_GAMES = Path(__file__).resolve().parents[1] / "data" / "games" / "cooked"


def opened(index: int = 0, rules: str = DEFAULT_PRESET) -> GameState:
    """A game right after one of the standard openings."""
    state = GameState(preset(rules))
    first, second = OPENINGS[index % len(OPENINGS)]
    state.apply_turn((opening_homeworld(first, "Player1"),))
    state.apply_turn((opening_homeworld(second, "Player2"),))
    return state


def random_positions(count: int, seed: int, rules: str = DEFAULT_PRESET,
                     max_plies: int = 24) -> list[GameState]:
    """Positions reached by random legal play (games that ended are skipped)."""
    rng = random.Random(seed)
    out: list[GameState] = []
    while len(out) < count:
        state = opened(rng.randrange(len(OPENINGS)), rules)
        for _ in range(rng.randint(2, max_plies)):
            if state.result is not None:
                break
            state.apply_turn(random_legal_turn(state, rng, max_actions=3))
        if state.result is None:
            out.append(state)
    return out


def after(state: GameState, turn) -> GameState:
    copy = state.copy()
    copy.apply_turn(turn)
    return copy


def cooked_game_positions(rules: str) -> Iterator[GameState]:
    """Every position of the cooked games in tests/data (real play: crowded homes, big
    ships), under ``rules``."""
    for path in sorted(COOKED_GAMES.glob("*.cooked")):
        game = read_cooked_file(path)
        state = GameState.from_position(game.systems, preset(rules))
        for turn in game.turns:
            state.apply_turn(turn)
            if state.result is not None:
                break
            yield state.copy()
