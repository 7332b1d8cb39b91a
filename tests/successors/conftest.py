"""Helpers for the successor, win-in-one and partial-turn tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homeworlds.notation.cooked import read_cooked, read_cooked_file
from homeworlds.rules.actions import Trade
from homeworlds.rules.errors import IllegalAction
from homeworlds.rules.presets import preset
from homeworlds.rules.state import GameState
from tests.shared import SHARED, shared_path


def position(text: str, rules: str = "strict", to_move: int = 0) -> GameState:
    """A position from cooked system lines (indentation ignored)."""
    lines = "\n".join(line.strip() for line in text.strip().splitlines())
    return GameState.from_position(read_cooked(lines).systems, preset(rules), to_move)


def position_file(path: Path, rules: str = "strict") -> GameState:
    return GameState.from_position(read_cooked_file(path).systems, preset(rules), to_move=0)


def replay_positions(game_path: Path, rules: str = "strict"):
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
