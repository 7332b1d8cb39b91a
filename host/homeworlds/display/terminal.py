"""Plain-text rendering of a game position for terminals and logs.

Given a ``width`` (the terminal's columns), fleets and the bank wrap at that width, piece
by piece under their first line, so the position stays readable on a narrow terminal.
"""

from __future__ import annotations

import os

from homeworlds.display.printable import printable
from homeworlds.rules import PIECES, GameState

_ANSI = {0: "\x1b[31m", 1: "\x1b[33m", 2: "\x1b[32m", 3: "\x1b[34m"}
_RESET = "\x1b[0m"


def piece_text(index: int, color: bool) -> str:
    text = PIECES[index].to_text()
    return f"{_ANSI[index // 3]}{text}{_RESET}" if color else text


# An item is (its visible text, what is printed for it); the visible text is what counts
# against the width.
_Item = tuple[str, str]


def _piece_item(index: int, color: bool, suffix: str = "") -> _Item:
    return PIECES[index].to_text() + suffix, piece_text(index, color) + suffix


def _word(text: str) -> _Item:
    return text, text


def _wrapped(first: str, items: list[_Item], hanging: str, width: int | None) -> list[str]:
    """Items after ``first``, separated by spaces, on as many lines as ``width`` needs."""
    lines: list[str] = []
    shown, visible = first, len(first)
    fresh = True
    for seen, printed in items:
        if not fresh and width is not None and visible + 1 + len(seen) > width:
            lines.append(shown)
            shown, visible, fresh = hanging, len(hanging), True
        if not fresh:
            shown, visible = shown + " ", visible + 1
        shown, visible = shown + printed, visible + len(seen)
        fresh = False
    lines.append(shown)
    return lines


def terminal_width(stream) -> int | None:
    """The columns of the terminal ``stream`` writes to (measured now, so a resized window
    counts); None when it is not a terminal."""
    try:
        if stream.isatty():
            return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        pass
    return None


def render_position(state: GameState, players: tuple[str, ...], *, color: bool = False,
                    width: int | None = None) -> str:
    """Systems (stars, ships by owner), then the bank; a line per system and one for its
    fleets, each wrapped at ``width`` columns when given."""
    players = tuple(printable(p) for p in players)
    name_width = max((len(printable(s.name)) for s in state.systems), default=4)
    if width is not None:
        name_width = min(name_width, max(4, width // 3))
    lines = []
    for s in state.systems:
        name = printable(s.name)
        stars = (f"[{' '.join(PIECES[i].to_text() for i in s.stars)}]",
                 f"[{' '.join(piece_text(i, color) for i in s.stars)}]")
        tag = f"home of {players[s.home_of]}".split() if s.home_of is not None else []
        if width is not None and len(name) > name_width:
            lines.append(f"  {name}")
            name = ""
        lines.extend(_wrapped(f"  {name:<{name_width}}  ", [stars, *map(_word, tag)],
                              " " * (name_width + 6), width))
        items: list[_Item] = []
        for seat in range(state.players):
            fleet = [i for i in range(12) for _ in range(s.ships[seat][i])]
            if fleet:
                if items:
                    items[-1] = (items[-1][0] + ";", items[-1][1] + ";")
                items.append(_word(f"{players[seat]}:"))
                items.extend(_piece_item(i, color) for i in fleet)
        indent = f"  {'':<{name_width}}    "
        lines.extend(_wrapped(indent, items or [_word("(no ships)")], indent + "  ", width))
    bank = [_piece_item(i, color, f"×{state.bank[i]}") for i in range(12) if state.bank[i]]
    lines.extend(_wrapped("  bank: ", bank or [_word("empty")], "        ", width))
    return "\n".join(lines)
