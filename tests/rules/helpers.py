"""Building positions for rules tests from the compact cooked position text."""

from __future__ import annotations

from homeworlds.notation.cooked import read_cooked
from homeworlds.rules import Piece
from homeworlds.rules.presets import preset
from homeworlds.rules.state import GameState


def position(text: str, rules: str = "looney", to_move: int = 0) -> GameState:
    """``text``: one system per line, ``Name (owner, stars) ships0-ships1``."""
    lines = "\n".join(line.strip() for line in text.strip().splitlines())
    return GameState.from_position(read_cooked(lines).systems, preset(rules), to_move)


def P(text: str) -> Piece:
    return Piece.from_text(text)


def ships(state: GameState, system: str, seat: int) -> list[str]:
    s = state.system(system)
    assert s is not None, f"no system {system}"
    return sorted(p.to_text() for p in s.ship_pieces(seat))
