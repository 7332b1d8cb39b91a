"""Laying a ``TablePicture`` out for a terminal of a given size.

``fit(picture, width, height)`` picks the richest form that fits, in this order:

``full``
    the table as it lies, every slot 18 columns wide with its LED ring pixel by pixel
    (needs 128 columns on the 14-slot table);
``compact``
    the same rows in narrower slots (10-17 columns): two LEDs per character, pieces
    grouped (``g1×2``) or cut with ``+n`` when a fleet does not fit;
``split``
    each row of the table drawn as two rows of slots (for 42-79 columns on the 14-slot
    table, when the height allows);
``record``
    no slot picture: one line per star system, then the turns of the record, newest at
    the bottom (scrolls as turns are played);
``too-small``
    below ``MIN_WIDTH`` × ``MIN_HEIGHT``: a message naming the minimum and the current size
    (only with a height: a log or the scroll-back gets the ``record`` form cut to the width).

Every line of the result is at most ``width`` cells wide and there are at most ``height``
lines (``None``: no limit, as for a log file). Lines are tuples of ``(text, style)``
segments, the style a rich style string or None, so the same layout is drawn in colour by
rich or as plain text without it. The status-line region (``picture.status``) always gets
its lines, between the bank and the record.
"""

from __future__ import annotations

import math
import textwrap
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from homeworlds.display.picture import RGB, SlotPicture, TablePicture

Segment = tuple[str, str | None]
Line = tuple[Segment, ...]

MIN_WIDTH = 40
MIN_HEIGHT = 10
FULL_CELL = 18
MIN_CELL = 10
MARGIN = "  "
#: turns shown when the height is not limited (a log file or pipe)
UNLIMITED_RECORD = 4
#: at most this many lines of the tracker's message (a mistake with the rulebook's sentence
#: it breaks takes four at 80 columns)
MESSAGE_LINES = 5

_PIECE_STYLE = {"r": "red", "y": "yellow", "g": "green", "b": "blue"}


@dataclass(frozen=True, slots=True)
class Fitted:
    """A picture laid out: its form's name and its lines."""

    form: str
    lines: tuple[Line, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "lines", tuple(_rstrip(line) for line in self.lines))

    def plain(self) -> str:
        return "\n".join("".join(text for text, _ in line) for line in self.lines)


# ----------------------------------------------------------------------------- text cells

def cell_len(text: str) -> int:
    """Terminal columns ``text`` takes: wide (East Asian) characters two, combining none."""
    if text.isascii():
        return len(text)
    n = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        n += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return n


def line_len(line: Line) -> int:
    return sum(cell_len(text) for text, _ in line)


def _cut(text: str, width: int) -> str:
    """The longest start of ``text`` at most ``width`` cells wide."""
    if cell_len(text) <= width:
        return text
    out, n = [], 0
    for ch in text:
        w = cell_len(ch)
        if n + w > width:
            break
        out.append(ch)
        n += w
    return "".join(out)


def truncate(line: Line, width: int) -> Line:
    """``line`` cut to ``width`` cells, ending in '…' when something was cut."""
    if line_len(line) <= width:
        return line
    room = max(0, width - 1)
    out: list[Segment] = []
    for text, style in line:
        piece = _cut(text, room)
        if piece:
            out.append((piece, style))
        room -= cell_len(piece)
        if cell_len(piece) < cell_len(text):
            break
    if width >= 1:
        out.append(("…", None))
    return tuple(out)


def _rstrip(line: Line) -> Line:
    """``line`` without trailing spaces (padding a log file does not need)."""
    segments = list(line)
    while segments and not segments[-1][0].strip(" "):
        segments.pop()
    if segments and segments[-1][0].endswith(" "):
        segments[-1] = (segments[-1][0].rstrip(" "), segments[-1][1])
    return tuple(segments)


def pad(line: Line, width: int) -> Line:
    line = truncate(line, width)
    gap = width - line_len(line)
    return line + ((" " * gap, None),) if gap > 0 else line


def plain(text: str) -> Line:
    return ((text, None),) if text else ()


def wrap_text(text: str, width: int, *, indent: str = "", hanging: str = "") -> list[Line]:
    """``text`` wrapped at spaces to ``width`` cells; words longer than a line are cut."""
    if not text:
        return []
    lines = textwrap.wrap(text, width=max(1, width), initial_indent=indent,
                          subsequent_indent=hanging, break_long_words=True,
                          break_on_hyphens=False)
    return [truncate(plain(line), width) for line in lines]


def wrap_items(items: Sequence[Line], width: int, *, first: str, hanging: str) -> list[Line]:
    """Items (short lines) laid side by side, separated by a space, wrapped to ``width``."""
    lines: list[Line] = []
    current: Line = plain(first)
    fresh = True
    for item in items:
        sep: Line = () if fresh else ((" ", None),)
        if not fresh and line_len(current) + 1 + line_len(item) > width:
            lines.append(current)
            current, sep = plain(hanging), ()
        current = current + sep + item
        fresh = False
    lines.append(current)
    return [truncate(line, width) for line in lines]


# ----------------------------------------------------------------------------- pieces, LEDs

def piece(text: str, color: bool) -> Line:
    return ((text, _PIECE_STYLE.get(text[:1]) if color else None),)


def _join(parts: Iterable[Line]) -> Line:
    out: Line = ()
    for k, part in enumerate(parts):
        out = out + ((" ", None),) + part if k else part
    return out


def pieces_line(pieces: Sequence[str], width: int, color: bool) -> Line:
    """Pieces in at most ``width`` cells: all of them spaced (``g1 g1 y3``), else grouped
    (``g1×2 y3``), else as many groups as fit and ``+n`` for the pieces left out."""
    spaced = _join(piece(p, color) for p in pieces)
    if line_len(spaced) <= width:
        return spaced
    groups: list[tuple[str, int]] = []
    for p in pieces:
        if groups and groups[-1][0] == p:
            groups[-1] = (p, groups[-1][1] + 1)
        else:
            groups.append((p, 1))

    def group(p: str, n: int) -> Line:
        return piece(p, color) + ((f"×{n}", None),) if n > 1 else piece(p, color)

    grouped = _join(group(p, n) for p, n in groups)
    if line_len(grouped) <= width:
        return grouped
    shown: Line = ()
    left = len(pieces)
    for p, n in groups:
        candidate = _join([shown, group(p, n)]) if shown else group(p, n)
        rest = left - n
        if line_len(candidate) + (len(f" +{rest}") if rest else 0) > width:
            break
        shown, left = candidate, rest
    return shown + (((" " if shown else "") + f"+{left}", None),)


def _lit(rgb: RGB) -> bool:
    return sum(rgb) > 60


def _rgb_style(rgb: RGB) -> str:
    r, g, b = rgb
    return f"rgb({r},{g},{b})"


def leds(pixels: Sequence[RGB], width: int, color: bool) -> Line:
    """LEDs in at most ``width`` cells: one character each (a block; a dot when dark), two
    per character (a half block in each LED's colour; without colour '#' both lit, '+'
    one, '.' none), or the count lit (``5/16``)."""
    if not pixels:
        return ()
    if len(pixels) <= width:
        if not color:
            return (("".join("#" if _lit(p) else "." for p in pixels), None),)
        return tuple(("█", _rgb_style(p)) if sum(p) else ("·", _rgb_style((60, 60, 60)))
                     for p in pixels)
    if math.ceil(len(pixels) / 2) <= width:
        pairs = [tuple(pixels[k:k + 2]) for k in range(0, len(pixels), 2)]
        if not color:
            return (("".join("#" if all(map(_lit, pair)) else "+" if any(map(_lit, pair))
                             else "." for pair in pairs), None),)
        out: list[Segment] = []
        for pair in pairs:
            left, right = pair[0], pair[-1] if len(pair) > 1 else (0, 0, 0)
            if sum(left) and sum(right):
                out.append(("▌", f"{_rgb_style(left)} on {_rgb_style(right)}"))
            elif sum(left):
                out.append(("▌", _rgb_style(left)))
            elif sum(right):
                out.append(("▐", _rgb_style(right)))
            else:
                out.append(("·", _rgb_style((60, 60, 60))))
        return tuple(out)
    return truncate(plain(f"{sum(map(_lit, pixels))}/{len(pixels)}"), width)


# ----------------------------------------------------------------------------- the forms

def fit(picture: TablePicture, width: int | None, height: int | None, *,
        color: bool = False) -> Fitted:
    """The richest form of ``picture`` that fits ``width`` × ``height`` cells.

    Without a height (a log, the scroll-back after the live view) nothing is too small: a
    narrow width gets the ``record`` form, its lines cut to the width."""
    if height is None and width is not None and width < MIN_WIDTH:
        return Fitted("record", tuple(_record_form(picture, max(1, width), None, color)))
    if (width is not None and width < MIN_WIDTH) or (height is not None and height < MIN_HEIGHT):
        return too_small(width, height)
    columns = max(len(row) for row in picture.rows) if picture.rows else 1
    for form, per_line in (("grid", columns), ("split", math.ceil(columns / 2))):
        if form == "split" and per_line == columns:
            continue
        cell = FULL_CELL if width is None else min(FULL_CELL, (width - len(MARGIN)) // per_line)
        if cell < MIN_CELL:
            continue
        for gaps in (True, False):
            lines = _grid(picture, per_line, cell, width, height, color, gaps)
            if lines is not None:
                name = form if form == "split" else "full" if cell == FULL_CELL else "compact"
                return Fitted(name, tuple(lines))
    return Fitted("record", tuple(_record_form(picture, width or 10**6, height, color)))


def too_small(width: int | None, height: int | None) -> Fitted:
    w, h = width or 0, height or 0
    text = (f"Terminal too small: {w}×{h}. The table view needs at least "
            f"{MIN_WIDTH}×{MIN_HEIGHT} (columns×lines); enlarge the window.")
    lines = wrap_text(text, max(1, w))
    return Fitted("too-small", tuple(lines[:max(1, h)]))


def _bar(seat, width: int, color: bool, prefix: str = MARGIN) -> Line:
    return truncate(plain(f"{prefix}[") + leds(seat.bar, 64, color) + plain(f"] {seat.name}"),
                    width)


def _fleet_lines(head: str, pieces: Sequence[str], width: int, color: bool) -> list[Line]:
    """Pieces after ``head``, on as many lines as they need within ``width`` cells:
    spaced when they fit on one line, else grouped (``g1×2``) and wrapped."""
    one = pieces_line(pieces, 10**6, color)
    if len(head) + line_len(one) <= width:
        return [plain(head) + one]
    groups: list[tuple[str, int]] = []
    for p in pieces:
        if groups and groups[-1][0] == p:
            groups[-1] = (p, groups[-1][1] + 1)
        else:
            groups.append((p, 1))
    items = [piece(p, color) + (plain(f"×{n}") if n > 1 else ()) for p, n in groups]
    return wrap_items(items, width, first=head, hanging=" " * len(head))


def _slot_lines(slot: SlotPicture, cell: int, seat_order: Sequence[int], color: bool
                ) -> list[list[Line]]:
    """The slot's lines in groups: title, ring, then one group per seat order entry (a
    fleet or the stars: one line, or more when the pieces do not fit the cell)."""
    inner = cell - 1  # a space between slots
    # Narrow slots show the system's name alone (the slot number when it has none).
    title = plain(f"{slot.index:>2} {slot.name}" if cell == FULL_CELL or not slot.name
                  else slot.name)
    groups = [[truncate(title, inner)], [leds(slot.ring, inner, color)]]
    wide = cell >= 14
    for seat in seat_order:
        if seat == -1:
            label, pieces = "*", slot.stars
        else:
            label = seat_label(seat)
            pieces = slot.ships[seat] if seat < len(slot.ships) else ()
        head = f" {label} " if wide else f"{label} "
        groups.append(_fleet_lines(head, pieces, inner, color) if pieces else [()])
    return groups


def seat_label(seat: int) -> str:
    """How a seat's fleet is marked: N for the far edge (seat 1), S for the near one."""
    return {0: "S", 1: "N"}.get(seat, str(seat))


def _grid(picture: TablePicture, per_line: int, cell: int, width: int | None,
          height: int | None, color: bool, gaps: bool) -> list[Line] | None:
    limit = width if width is not None else 10**6
    seats = picture.seats
    seat_order = ([1, -1, 0] if len(seats) >= 2 else [-1, 0]) + list(range(2, len(seats)))
    top = [_bar(seats[1], limit, color)] if len(seats) > 1 else []
    bottom = [_bar(seats[0], limit, color)] + [_bar(s, limit, color) for s in seats[2:]]
    board: list[Line] = []
    chunks = [row[k:k + per_line] for row in picture.rows for k in range(0, len(row), per_line)]
    for number, chunk in enumerate(chunks):
        if number and gaps:
            board.append(())
        cells = [_slot_lines(slot, cell, seat_order, color) for slot in chunk]
        for g in range(len(cells[0])):
            tall = max(len(c[g]) for c in cells)
            for k in range(tall):
                board.append(truncate(plain(MARGIN) + tuple(
                    s for c in cells
                    for s in pad(c[g][k] if k < len(c[g]) else (), cell)), limit))
    if gaps:
        board.append(())
    head = [truncate(plain(picture.title), limit), truncate(plain(f"{MARGIN}{picture.turn}"),
                                                            limit)]
    lines = head + top + board + bottom
    return _with_footer(picture, lines, limit, height, color, labelled=cell == FULL_CELL)


def _footer_parts(picture: TablePicture, width: int, color: bool):
    bank = wrap_items([piece(p, color) + plain(f"×{n}") for p, n in picture.bank] or
                      [plain("empty")], width, first=f"{MARGIN}bank: ", hanging=MARGIN + "  ")
    hand = wrap_items([piece(p, color) for p in picture.in_hand], width,
                      first=f"{MARGIN}in hand: ", hanging=MARGIN + "  ") \
        if picture.in_hand else []
    status = [truncate(plain(f"{MARGIN}{s}"), width) for s in picture.status]
    message = wrap_text(picture.message, width, indent=MARGIN, hanging=MARGIN)
    if len(message) > MESSAGE_LINES:
        message = _cut_lines(message, MESSAGE_LINES, width)
    if picture.prompt is not None:
        typed = picture.prompt
        room = max(1, width - len(MARGIN) - 3)
        if cell_len(typed) > room:  # the end of the line is where the typing is
            while cell_len(typed) > room - 1:
                typed = typed[1:]
            typed = "…" + typed
        message.append(truncate(plain(f"{MARGIN}> {typed}"), width))
    return bank + hand + status, message


def _record_lines(picture: TablePicture, width: int, room: int | None, labelled: bool
                  ) -> list[Line]:
    """The newest turns that fit in ``room`` lines (None: the last few), each wrapped."""
    indent = MARGIN * 2 if labelled else MARGIN
    entries = picture.record if room is not None else picture.record[-UNLIMITED_RECORD:]
    out: list[Line] = []
    for entry in reversed(entries):
        wrapped = wrap_text(entry, width, indent=indent, hanging=indent + "    ")
        label = 1 if labelled else 0
        if room is not None and len(out) + len(wrapped) + label > room:
            if not out and room > label:
                # The newest entry alone is taller than the room (a long answer typed for):
                # its beginning is shown cut, never nothing at all.
                out = _cut_lines(wrapped, room - label, width)
            break
        out = wrapped + out
    if labelled and out:
        out = [plain(f"{MARGIN}record:")] + out
    return out


def _cut_lines(lines: list[Line], count: int, width: int) -> list[Line]:
    """The first ``count`` of ``lines``, the last of them ending in an ellipsis."""
    kept = lines[:count]
    last = kept[-1]
    kept[-1] = last + plain("…") if line_len(last) < width else truncate(last + plain("…"),
                                                                          width)
    return kept


def _with_footer(picture: TablePicture, lines: list[Line], width: int, height: int | None,
                 color: bool, *, labelled: bool) -> list[Line] | None:
    middle, message = _footer_parts(picture, width, color)
    fixed = lines + middle
    if height is None:
        return fixed + _record_lines(picture, width, None, labelled) + message
    room = height - len(fixed) - len(message)
    if room < (1 if picture.record else 0):
        return None
    return fixed + _record_lines(picture, width, room, labelled) + message


def _system_line(slot: SlotPicture, name_width: int, width: int, color: bool) -> list[Line]:
    name = _cut(slot.name, name_width)
    parts: list[Line] = [plain(f"{slot.index:>2} {name}{' ' * (name_width - cell_len(name))}"),
                         plain("*") + plain(" ") + _join(piece(p, color) for p in slot.stars)]
    for seat in [1, 0] + list(range(2, len(slot.ships))):
        fleet = slot.ships[seat] if seat < len(slot.ships) else ()
        if fleet:
            parts.append(plain(f"{seat_label(seat)} ") + pieces_line(fleet, 10**6, color))
    hanging = MARGIN + " " * (3 + name_width + 1)
    return wrap_items(parts, width, first=MARGIN, hanging=hanging)


def _record_form(picture: TablePicture, width: int, height: int | None, color: bool
                 ) -> list[Line]:
    head = [truncate(plain(picture.title), width), truncate(plain(f"{MARGIN}{picture.turn}"),
                                                            width)]
    bars = [_bar(s, width, color, f"{seat_label(s.index)} ")
            for s in sorted(picture.seats, key=lambda s: s.index == 0)]
    slots = [s for row in picture.rows for s in row if not s.empty]
    name_width = min(10, max((cell_len(s.name) for s in slots), default=0))
    systems = [line for s in slots for line in _system_line(s, name_width, width, color)]
    middle, message = _footer_parts(picture, width, color)
    if height is None:
        return head + bars + systems + middle + _record_lines(picture, width, None, False) \
            + message
    # The height decides what is cut: first the record, then the bars, then the systems.
    fixed = head + middle + message
    room = height - len(fixed)
    if room < len(systems) + len(bars):
        bars = []
    if room < len(systems):
        keep = max(0, room - 1)
        systems = systems[:keep] + [plain(f"{MARGIN}… {len(systems) - keep} more lines of "
                                          "systems: enlarge the window")]
        systems = [truncate(line, width) for line in systems]
    room -= len(systems) + len(bars)
    lines = head + bars + systems + middle + _record_lines(picture, width, max(0, room), False) \
        + message
    return lines[:height]
