"""Positions for tests, from the cooked text of the C++ engine's format.

One default rule set for every test helper: the table's default preset. Tests that
compare with the C++ engine name its rules (``"strict"``) where they build positions.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from homeworlds.notation import read_cooked, read_cooked_file
from homeworlds.rules import DEFAULT_PRESET, Action, GameState, IllegalAction, Trade, preset


def position(text: str, rules: str = DEFAULT_PRESET, to_move: int = 0) -> GameState:
    """``text``: one system per line, ``Name (owner, stars) ships0-ships1`` (indentation
    ignored)."""
    lines = "\n".join(line.strip() for line in text.strip().splitlines())
    return GameState.from_position(read_cooked(lines).systems, preset(rules), to_move)


def position_file(path: Path, rules: str = DEFAULT_PRESET) -> GameState:
    return GameState.from_position(read_cooked_file(path).systems, preset(rules), to_move=0)


def replay_cooked(path: Path, rules: str = DEFAULT_PRESET
                  ) -> Iterator[tuple[int, GameState, tuple[Action, ...] | None]]:
    """(index, position, the turn recorded there) before each turn of a cooked game and
    (with turn None) after the last, until the game ends."""
    game = read_cooked_file(path)
    state = GameState.from_position(game.systems, preset(rules), to_move=0)
    turns = [tuple(turn) for turn in game.turns]
    for index in range(len(turns) + 1):
        if state.is_over:
            return
        turn = turns[index] if index < len(turns) else None
        yield index, state, turn
        if turn is None:
            return
        state = state.copy()
        try:
            state.apply_turn(turn)
        except IllegalAction:
            # Game 32225 records "convert b1 to b1", which the C++ engine applied as a no-op
            # (its counts go on after it); our rules refuse it, so replay it as the no-op.
            kept = tuple(a for a in turn if not (isinstance(a, Trade) and a.old == a.new))
            if len(kept) == len(turn):
                raise
            state.apply_turn(kept)
