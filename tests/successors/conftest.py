"""Helpers for the successor, win-in-one and partial-turn tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from homeworlds.rules import DEFAULT_PRESET
from tests.positions import position, position_file, replay_cooked
from tests.shared import SHARED, shared_path

__all__ = ["SHARED", "position", "position_file", "replay_positions"]


def replay_positions(game_path: Path, rules: str = DEFAULT_PRESET):
    """(index, state) before each turn after setup and after the last, until the game ends."""
    for index, state, _ in replay_cooked(game_path, rules):
        yield index, state


@pytest.fixture(scope="session")
def shared() -> Path:
    shared_path("games")
    return SHARED


@pytest.fixture(scope="session")
def branching_factors(shared: Path) -> dict[str, list[int]]:
    return json.loads((shared / "games" / "branching-factors.json").read_text())
