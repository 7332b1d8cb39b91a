"""Helpers for the successor, win-in-one and partial-turn tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homeworlds.notation.cooked import read_cooked_file
from homeworlds.rules import DEFAULT_PRESET, GameState, IllegalAction, Trade, preset
from tests.positions import position, position_file
from tests.shared import SHARED, shared_path

__all__ = ["SHARED", "position", "position_file", "replay_positions"]


def replay_positions(game_path: Path, rules: str = DEFAULT_PRESET):
    """(index, state) before each turn after setup and after the last, until the game ends."""
    game = read_cooked_file(game_path)
    state = GameState.from_position(game.systems, preset(rules), to_move=0)
    turns = list(game.turns)
    for index in range(len(turns) + 1):
        if state.is_over:
            return
        yield index, state
        if index == len(turns):
            return
        state = state.copy()
        try:
            state.apply_turn(turns[index])
        except IllegalAction:
            # Game 32225 records "convert b1 to b1", which the C++ engine applied as a no-op
            # (its counts go on after it); our rules refuse it, so replay it as the no-op.
            kept = tuple(a for a in turns[index] if not (isinstance(a, Trade) and a.old == a.new))
            if len(kept) == len(turns[index]):
                raise
            state.apply_turn(kept)


@pytest.fixture(scope="session")
def shared() -> Path:
    shared_path("games")
    return SHARED


@pytest.fixture(scope="session")
def branching_factors(shared: Path) -> dict[str, list[int]]:
    return json.loads((shared / "games" / "branching-factors.json").read_text())
