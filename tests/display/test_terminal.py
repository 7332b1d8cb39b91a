"""The position as ``versus`` prints it, wrapped at the terminal's width."""

from __future__ import annotations

import argparse
import fcntl
import io
import os
import re
import struct
import termios
from importlib import resources

import pytest

from homeworlds.commands import versus
from homeworlds.display.terminal import render_position, terminal_width
from homeworlds.notation import read_sdg
from homeworlds.rules import GameState, preset

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def position():
    game = read_sdg(resources.files("homeworlds.data").joinpath("demo-game.raw").read_text(),
                    source="demo-game.raw")
    state = GameState(preset("sdg"), 2, first_to_move=game.turns[0].seat)
    for turn in game.turns[:30]:
        state.apply_turn(turn.actions)
    return state, game.players


def _pieces(text: str) -> list[str]:
    return sorted(re.findall(r"\b[rygb][123](?:×\d+)?", ANSI.sub("", text)))


@pytest.mark.parametrize("width", [30, 40, 60, 80])
def test_every_line_fits_and_nothing_is_dropped(position, width):
    state, players = position
    wide = render_position(state, players, color=True)
    narrow = render_position(state, players, color=True, width=width)
    assert all(len(ANSI.sub("", line)) <= width for line in narrow.split("\n"))
    assert _pieces(narrow) == _pieces(wide)
    for system in state.systems:
        assert system.name in narrow


def test_without_a_width_the_lines_are_as_before(position):
    state, players = position
    assert render_position(state, players).split("\n")[:2] == [
        "  Aaron       [y1 b2] home of Aaron",
        "                Aaron: r3 y1 g3 b1"]


def test_long_fleets_wrap_under_their_first_piece(position):
    state, players = position
    lines = render_position(state, players, width=40).split("\n")
    at = lines.index("                MatrixFrog: r1 r1 r3 y1")
    assert lines[at + 1] == "                  y3"


class _Terminal(io.StringIO):
    """Captured output that reports itself as the terminal ``fd`` (for its size)."""

    def __init__(self, fd: int):
        super().__init__()
        self.fd = fd

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd


def test_versus_wraps_at_the_terminal_width():
    master, slave = os.openpty()
    try:
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 44, 0, 0))
        out = _Terminal(slave)
        assert terminal_width(out) == 44
        args = argparse.Namespace(name="Human", rules="sdg", level=1, seed=3,
                                  human_first=True, no_color=False)
        typed = "Homeworld Y1 B2 G3\nBuild G1 Human\nBuild G1 Human\nhelp\nshow\nquit\n"
        assert versus.run(args, stdin=io.StringIO(typed), stdout=out) == 0
    finally:
        os.close(master)
        os.close(slave)
    text = out.getvalue()
    assert "\x1b[32m" in text  # a terminal gets colours
    position = [line for line in text.split("\n") if "bank" in line or "home of" in line]
    assert position and all(len(ANSI.sub("", line)) <= 44 for line in position)
    assert not io.StringIO().isatty() and terminal_width(io.StringIO()) is None


def test_versus_help_fits_80_columns():
    for line in versus.HELP.format(me="Human", cpu="Computer").split("\n"):
        assert len(line) <= 80, line
