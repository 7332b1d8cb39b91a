"""Positions for the computer-opponent tests."""

from __future__ import annotations

import random

from homeworlds.ai import random_legal_turn
from homeworlds.ai.openings import OPENINGS, opening_homeworld
from homeworlds.notation.cooked import read_cooked
from homeworlds.rules.presets import preset
from homeworlds.rules.state import GameState


def position(text: str, rules: str = "looney", to_move: int = 0) -> GameState:
    """``text``: one system per line in cooked form, ``Name (owner, stars) ships0-ships1``."""
    lines = "\n".join(line.strip() for line in text.strip().splitlines())
    return GameState.from_position(read_cooked(lines).systems, preset(rules), to_move)


def opened(index: int = 0, rules: str = "looney") -> GameState:
    """A game right after one of the standard openings."""
    state = GameState(preset(rules))
    first, second = OPENINGS[index % len(OPENINGS)]
    state.apply_turn((opening_homeworld(first, "Player1"),))
    state.apply_turn((opening_homeworld(second, "Player2"),))
    return state


def random_positions(count: int, seed: int, rules: str = "looney",
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
