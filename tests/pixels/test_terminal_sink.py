from __future__ import annotations

import io

import pytest

from homeworlds.pixels import TerminalSink

from .helpers import GREEN, OFF, RED

RED_BLOCK = "\x1b[38;2;255;0;0m\u2588"
GREEN_BLOCK = "\x1b[38;2;0;255;0m\u2588"
DARK = "\x1b[38;2;90;90;90m\u00b7"
END = "\x1b[0m\x1b[K\n"


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_frame_is_a_row_of_true_colour_blocks_with_dark_pixels_as_dots():
    stream = io.StringIO()
    sink = TerminalSink(3, stream=stream)
    sink.show((RED, OFF, (1, 2, 3)))
    assert stream.getvalue() == RED_BLOCK + DARK + "\x1b[38;2;1;2;3m\u2588" + END


def test_frames_are_appended_on_a_pipe():
    stream = io.StringIO()
    sink = TerminalSink(1, stream=stream)
    sink.show((RED,))
    sink.show((GREEN,))
    assert stream.getvalue() == RED_BLOCK + END + GREEN_BLOCK + END


def test_frames_redraw_in_place_on_a_terminal():
    stream = FakeTty()
    sink = TerminalSink(4, stream=stream, columns=2)
    sink.show((RED, RED, GREEN, GREEN))
    sink.show((GREEN, GREEN, RED, RED))
    first = RED_BLOCK * 2 + END + GREEN_BLOCK * 2 + END
    second = "\x1b[2F" + GREEN_BLOCK * 2 + END + RED_BLOCK * 2 + END
    assert stream.getvalue() == first + second


def test_close_draws_the_blank_frame():
    stream = io.StringIO()
    with TerminalSink(2, stream=stream) as sink:
        sink.show((RED, GREEN))
    assert stream.getvalue().endswith(DARK * 2 + END)
    assert sink.closed


def test_columns_must_be_positive():
    with pytest.raises(ValueError, match="columns must be a whole number of at least 1, not 0"):
        TerminalSink(3, stream=io.StringIO(), columns=0)


class _Pty(io.StringIO):
    """Captured output that reports itself as the terminal ``fd`` (for its size)."""

    def __init__(self, fd: int):
        super().__init__()
        self.fd = fd

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd


def test_on_a_terminal_the_rows_are_as_wide_as_the_terminal_and_follow_a_resize():
    import fcntl
    import os
    import struct
    import termios

    master, slave = os.openpty()
    try:
        def size(columns):
            fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))

        size(81)
        stream = _Pty(slave)
        sink = TerminalSink(240, stream=stream)
        sink.show((RED,) * 240)
        first = stream.getvalue()
        assert first == (RED_BLOCK * 80 + END) * 3  # 240 LEDs in three rows of 80
        size(61)
        sink.show((GREEN,) * 240)
        second = stream.getvalue()[len(first):]
        assert second == "\x1b[3F" + (GREEN_BLOCK * 60 + END) * 4
    finally:
        os.close(master)
        os.close(slave)
