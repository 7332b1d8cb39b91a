"""A preview of the LED chain in a terminal, as ANSI true-colour blocks.

Layout-agnostic: the chain is drawn in pixel-index order, as one row or
wrapped every ``columns`` pixels; without ``columns``, on a terminal, the rows are
as wide as the terminal (measured at every frame, so a resized window is followed)
rather than one row that the terminal would wrap (and the in-place redraw would then
climb too few lines). Dark pixels are drawn as a grey dot so the
length of the chain stays visible. On a terminal each frame redraws the
previous one in place; on a file or pipe every frame is appended.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from homeworlds.pixels.frame import Frame
from homeworlds.pixels.sink import PixelSink

_RESET = "\x1b[0m"
_DARK = "\x1b[38;2;90;90;90m\u00b7"
_CLEAR_TO_END = "\x1b[K"
_BLOCK = "\x1b[38;2;{};{};{}m\u2588"


class TerminalSink(PixelSink):
    """Writes each frame to ``stream`` (standard output by default)."""

    kind = "terminal"

    def __init__(self, pixel_count: int, *, stream: TextIO | None = None,
                 columns: int | None = None, in_place: bool | None = None):
        super().__init__(pixel_count)
        if columns is not None and (isinstance(columns, bool) or not isinstance(columns, int)
                                    or columns < 1):
            raise ValueError(f"terminal sink: columns must be a whole number of at least 1, "
                             f"not {columns!r}")
        self._stream = stream if stream is not None else sys.stdout
        self._columns = columns or pixel_count
        self._fit_terminal = columns is None
        if in_place is None:
            isatty = getattr(self._stream, "isatty", None)
            in_place = bool(isatty and isatty())
        self._in_place = in_place
        self._lines_drawn = 0

    def render(self, frame: Frame) -> str:
        """The text one frame is drawn as (without the cursor movement)."""
        cells = [_DARK if rgb == (0, 0, 0) else _BLOCK.format(*rgb)
                 for rgb in frame]
        rows = ["".join(cells[start:start + self._columns]) + _RESET + _CLEAR_TO_END
                for start in range(0, len(cells), self._columns)]
        return "\n".join(rows) + "\n"

    def _terminal_columns(self) -> int | None:
        try:
            return os.get_terminal_size(self._stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            return None

    def _write(self, frame: Frame) -> None:
        if self._fit_terminal and self._in_place:
            width = self._terminal_columns()
            if width is not None:
                # One column spare: a row that fills the last column leaves the cursor
                # waiting to wrap, and the erase after it would take the last LED.
                self._columns = max(1, min(self.pixel_count, width - 1))
        text = self.render(frame)
        if self._in_place and self._lines_drawn:
            # Cursor to the start of the first line of the previous frame.
            text = f"\x1b[{self._lines_drawn}F" + text
        self._stream.write(text)
        self._stream.flush()
        self._lines_drawn = -(-self.pixel_count // self._columns)
