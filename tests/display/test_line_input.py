"""The command line typed under the live view: keys edited by the program, lines handed
over whole, the terminal's settings given back."""

from __future__ import annotations

import os
import queue
import termios
import time

import pytest

from homeworlds.display.line_input import LineInput


@pytest.fixture
def terminal():
    master, slave = os.openpty()
    yield master, slave
    os.close(master)
    os.close(slave)


def test_keys_are_edited_and_whole_lines_handed_over(terminal):
    master, slave = terminal
    before = termios.tcgetattr(slave)
    line_input = LineInput(slave)
    try:
        assert not termios.tcgetattr(slave)[3] & termios.ECHO  # the view shows the line
        os.write(master, b"resign Bxb")
        os.write(master, b"\x7f\x7fob")
        for _ in range(100):
            if line_input.text == "resign Bob":
                break
            time.sleep(0.02)
        assert line_input.text == "resign Bob"
        os.write(master, b"\r")
        assert line_input.lines.get(timeout=2) == "resign Bob\n"
        assert line_input.text == ""
        os.write(master, b"draw\x15he\x1b[Dlp \xc3\xa9\r")  # Ctrl-U, an arrow key, UTF-8
        assert line_input.lines.get(timeout=2) == "help é\n"
        with pytest.raises(queue.Empty):
            line_input.lines.get(timeout=0.1)
    finally:
        line_input.close()
    assert termios.tcgetattr(slave) == before
