"""Pieces: four colours times three sizes, as small immutable values.

A piece is also addressable by a dense index 0..11 (``colour * 3 + size - 1``)
so that banks and fleets can be plain count lists; the engine works on those
indices and converts at its edges.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from homeworlds.rules.errors import InvalidNotation


class Color(IntEnum):
    RED = 0
    YELLOW = 1
    GREEN = 2
    BLUE = 3

    @property
    def letter(self) -> str:
        return "rygb"[self]

    @property
    def power(self) -> str:
        """The action this colour grants, as the rulebook names it."""
        return ("capture", "move", "build", "trade")[self]

    def to_text(self) -> str:
        return self.name.lower()

    @classmethod
    def from_text(cls, text: str) -> Color:
        key = text.strip().lower()
        for color in cls:
            if key in (color.letter, color.name.lower()):
                return color
        raise InvalidNotation(f"unknown colour {text!r} (expected r, y, g, b or a colour name)",
                              text)


class Size(IntEnum):
    SMALL = 1
    MEDIUM = 2
    LARGE = 3


class Piece(NamedTuple):
    color: Color
    size: Size

    # Shadows tuple.index (a piece is never searched as a sequence): the dense index
    # 0..11 is what the engine keeps its counts by.
    @property
    def index(self) -> int:  # type: ignore[override]
        return self.color * 3 + self.size - 1

    @classmethod
    def from_index(cls, index: int) -> Piece:
        return PIECES[index]

    def to_text(self) -> str:
        """Lower-case short form, ``r1`` .. ``b3``."""
        return f"{self.color.letter}{int(self.size)}"

    @classmethod
    def from_text(cls, text: str) -> Piece:
        """Parse ``r1``, ``R1``, ``1r`` (colour and size in either order)."""
        raw = text.strip()
        if len(raw) == 2:
            a, b = raw[0].lower(), raw[1].lower()
            if a in "rygb" and b in "123":
                return PIECES["rygb".index(a) * 3 + int(b) - 1]
            if b in "rygb" and a in "123":
                return PIECES["rygb".index(b) * 3 + int(a) - 1]
        raise InvalidNotation(f"not a piece: {text!r} (expected a colour letter and a size 1-3, "
                              "e.g. g3)", text)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"Piece.from_text({self.to_text()!r})"


PIECES: tuple[Piece, ...] = tuple(Piece(c, s) for c in Color for s in Size)


# ---- the rules' numbers -------------------------------------------------------------
# Each is quoted from a rulebook ("words" — file, *Section*), checked verbatim by
# tests/rules/test_rulebook_quotes.py.

#: Pieces of one colour in one system that make it overpopulated (a catastrophe may then be
#: declared there): "Overpopulation exists any time a single system contains four or more
#: pieces of the same color" — 000_ad12fc0a1f739089.txt, *OVERPOPULATION*
OVERPOPULATION = 4

#: Stars a homeworld starts with: "Each player's two stars form their binary home system."
#: — 003_30630e769415c554.txt, *Initial Phase (Setup)*
HOME_STARS = 2

#: Pieces of each colour-size a two-player bank holds: "Three Trios each of Red, Yellow,
#: Blue, and Green" — 000_ad12fc0a1f739089.txt, *EQUIPMENT*; "for atwo-player game, use
#: three pieces of each size/color" — 002_97f4ce8dbb4cee45.txt, *What You Need*. Beyond two
#: players the preset's bank rule decides (``Rules.bank``, ``Rules.bank_copies``).
TWO_PLAYER_COPIES = 3

#: Pieces of each colour-size in "A standard four-color Icehouse set" —
#: 002_97f4ce8dbb4cee45.txt, *What You Need*: four stashes of fifteen pyramids, five of
#: each size (docs/rules.md, "The bank").
ICEHOUSE_SET_COPIES = 5
