"""Positions for tests, from the cooked text of the C++ engine's format.

One default rule set for every test helper: the table's default preset. Tests that
compare with the C++ engine name its rules (``"strict"``) where they build positions.
"""

from __future__ import annotations

from pathlib import Path

from homeworlds.notation.cooked import read_cooked, read_cooked_file
from homeworlds.rules import DEFAULT_PRESET, GameState, preset


def position(text: str, rules: str = DEFAULT_PRESET, to_move: int = 0) -> GameState:
    """``text``: one system per line, ``Name (owner, stars) ships0-ships1`` (indentation
    ignored)."""
    lines = "\n".join(line.strip() for line in text.strip().splitlines())
    return GameState.from_position(read_cooked(lines).systems, preset(rules), to_move)


def position_file(path: Path, rules: str = DEFAULT_PRESET) -> GameState:
    return GameState.from_position(read_cooked_file(path).systems, preset(rules), to_move=0)
