"""A terminal picture of the physical table, laid out like the table.

Slots are drawn in rows as they lie (the layouts number them in a snake: the first half
west→east along seat 0's edge, the rest east→west along the far edge), each with its LED
ring as coloured blocks, its star(s) and each seat's ships; the seat bars sit at the edges;
then the bank, whose turn it is, the last turns of the record and the tracker's message.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from homeworlds.notation.sdg import format_sdg_action
from homeworlds.rules import PIECES
from homeworlds.table.layout import Layout
from homeworlds.table.view import Observation

_PIECE_ANSI = {0: "31", 1: "33", 2: "32", 3: "34"}
CELL = 18


def _rgb_block(rgb: tuple[int, int, int], color: bool) -> str:
    r, g, b = rgb
    if not color:
        return "#" if r + g + b > 60 else "."
    if r + g + b == 0:
        return "\x1b[38;2;60;60;60m·\x1b[0m"
    return f"\x1b[38;2;{r};{g};{b}m█\x1b[0m"


def _pieces_text(pieces: Sequence, color: bool) -> str:
    out = []
    for p in sorted(pieces):
        text = p.to_text()
        out.append(f"\x1b[{_PIECE_ANSI[p.color]}m{text}\x1b[0m" if color else text)
    return " ".join(out)


def _visible_len(text: str) -> int:
    n, skip = 0, False
    for ch in text:
        if ch == "\x1b":
            skip = True
        elif skip and ch == "m":
            skip = False
        elif not skip:
            n += 1
    return n


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _visible_len(text))


def slot_rows(layout: Layout) -> list[list[int]]:
    """Slot indices row by row as seen from above, seat 1's edge at the top."""
    n = len(layout.slots)
    width = 7 if n == 14 else 5 if n == 20 else math.ceil(n / 2)
    rows = [list(range(k, min(k + width, n))) for k in range(0, n, width)]
    for k in range(1, len(rows), 2):
        rows[k].reverse()  # the chain snakes back along the next row
    return list(reversed(rows))


def render_table(layout: Layout, observation: Observation | None, frame: Sequence | None,
                 *, names: dict[int, str] | None = None, players: Sequence[str] = (),
                 header: str = "", record: Sequence[str] = (), message: str = "",
                 color: bool = True) -> str:
    names = names or {}
    lines = [header] if header else []
    seats = layout.seats

    def bar(seat) -> str:
        pixels = "".join(_rgb_block(frame[i], color) for i in seat.bar) if frame else ""
        who = players[seat.index] if seat.index < len(players) else seat.name
        return f"  [{pixels}] {who}"

    if len(seats) > 1:
        lines.append(bar(seats[1]))
    for row in slot_rows(layout):
        cells = [[], [], [], [], []]
        for index in row:
            slot = layout.slots[index]
            contents = observation.slots[index] if observation else None
            ring = "".join(_rgb_block(frame[i], color) for i in slot.ring) if frame else ""
            title = names.get(index, "") or ("" if contents is None or contents.empty
                                             else "(new)")
            cells[0].append(_pad(f"{index:>2} {title[:CELL - 4]}", CELL))
            cells[1].append(_pad(ring, CELL))
            if contents is not None:
                north = _pieces_text([p for _, p in contents.ships[1]], color) \
                    if len(contents.ships) > 1 else ""
                stars = _pieces_text([p for _, p in contents.stars], color)
                south = _pieces_text([p for _, p in contents.ships[0]], color)
            else:
                north = stars = south = ""
            cells[2].append(_pad(f" N {north}" if north else "", CELL))
            cells[3].append(_pad(f" * {stars}" if stars else "", CELL))
            cells[4].append(_pad(f" S {south}" if south else "", CELL))
        lines.extend("  " + "".join(c) for c in cells)
        lines.append("")
    lines.append(bar(seats[0]))
    for seat in seats[2:]:
        lines.append(bar(seat))
    if observation is not None:
        bank = {}
        for _, p in observation.bank:
            bank[p.index] = bank.get(p.index, 0) + 1
        shown = " ".join(f"{_pieces_text([PIECES[i]], color)}×{n}" for i, n in sorted(bank.items()))
        lines.append(f"  bank: {shown or 'empty'}")
        if observation.in_hand:
            lines.append("  in hand: " + _pieces_text([h.piece for h in observation.in_hand],
                                                      color))
    if record:
        lines.append("  record:")
        lines.extend(f"    {r}" for r in record)
    if message:
        lines.append(f"  {message}")
    return "\n".join(lines)


def record_lines(record: Sequence[tuple[int, tuple]], players: Sequence[str], last: int = 4
                 ) -> list[str]:
    out = []
    start = max(0, len(record) - last)
    for k, (seat, turn) in enumerate(record[start:], start + 1):
        text = "; ".join(format_sdg_action(a) for a in turn)
        out.append(f"{k}) {players[seat]}: {text}")
    return out
