"""Positions for the computer-opponent tests."""

from __future__ import annotations

import random

from homeworlds.ai import random_legal_turn
from homeworlds.ai.openings import OPENINGS, opening_homeworld
from homeworlds.rules import DEFAULT_PRESET, GameState, preset
from tests.positions import position

__all__ = ["after", "opened", "position", "random_positions"]


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
