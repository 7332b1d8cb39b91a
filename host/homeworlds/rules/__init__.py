"""The pure rules engine (no I/O). See docs/rules.md."""

from homeworlds.rules.actions import (
    Action,
    Build,
    Capture,
    Catastrophe,
    Discover,
    Homeworld,
    Move,
    Pass,
    Sacrifice,
    Trade,
    Turn,
)
from homeworlds.rules.errors import (
    AmbiguousAction,
    HomeworldsError,
    IllegalAction,
    IllegalTurn,
    InvalidNotation,
)
from homeworlds.rules.pieces import PIECES, Color, Piece, Size

__all__ = [
    "Action", "AmbiguousAction", "Build", "Capture", "Catastrophe", "Color", "Discover",
    "HomeworldsError", "Homeworld", "IllegalAction", "IllegalTurn", "InvalidNotation", "Move",
    "PIECES", "Pass", "Piece", "Sacrifice", "Size", "Trade", "Turn",
]
