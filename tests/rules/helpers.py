"""Building positions for rules tests from the compact cooked position text."""

from __future__ import annotations

from homeworlds.rules import GameState, Piece
from tests.positions import position

__all__ = ["P", "position", "ships"]


def P(text: str) -> Piece:
    return Piece.from_text(text)


def ships(state: GameState, system: str, seat: int) -> list[str]:
    s = state.system(system)
    assert s is not None, f"no system {system}"
    return sorted(p.to_text() for p in s.ship_pieces(seat))
