"""The terminal view laid out for a terminal's size: every line fits the width, the frame
fits the height, and what a spectator reads (the systems, whose turn, the last turns) is
there at 80×24 and 120×40; below the minimum it says so."""

from __future__ import annotations

import dataclasses
import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from homeworlds.display.fit import (
    MIN_HEIGHT,
    MIN_WIDTH,
    cell_len,
    fit,
    leds,
    line_len,
    pieces_line,
)
from homeworlds.display.picture import SeatPicture, SlotPicture, TablePicture, record_entries
from homeworlds.display.screen import TerminalScreen

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _systems(state):
    return [(s.name, s.stars) for s in state.systems]


def _assert_content(text, state, players, picture):
    for name, _ in _systems(state):
        assert name in text, f"system {name} is not shown"
    assert "turn 31: Aaron to play" in text
    assert picture.record[-1] in text  # the last turn: 30) MatrixFrog: Build R1 MatrixFrog
    assert "bank:" in text


@pytest.mark.parametrize("size, form", [((80, 24), "compact"), ((120, 40), "compact"),
                                        ((128, 40), "full"), ((60, 40), "split"),
                                        ((50, 20), "record"), ((MIN_WIDTH, MIN_HEIGHT),
                                                               "record")])
def test_every_line_fits_and_the_game_is_readable(game_in_progress, size, form):
    picture, state, players = game_in_progress
    width, height = size
    fitted = fit(picture, width, height, color=True)
    assert fitted.form == form
    assert len(fitted.lines) <= height
    assert all(line_len(line) <= width for line in fitted.lines)
    text = fitted.plain()
    assert "turn 31: Aaron to play" in text
    assert "30) MatrixFrog: Build R1 MatrixFrog" in text
    if width >= 50:
        _assert_content(text, state, players, picture)


def test_at_80x24_every_piece_on_the_board_is_shown(game_in_progress):
    """Narrow slots group or wrap a fleet rather than dropping ships."""
    picture, state, _ = game_in_progress
    text = fit(picture, 80, 24).plain()
    ships = sum(1 for row in picture.rows for slot in row for fleet in slot.ships
                for _ in fleet)
    assert ships == sum(sum(s.ships[seat]) for s in state.systems for seat in range(2))
    shown = sum(int(n or 1) for n in re.findall(r"\b[rygb][123](?:×(\d))?", text.split(
        "bank:")[0].split("\n", 2)[2]))
    stars = sum(len(s.stars) for s in state.systems)
    assert shown == ships + stars
    assert "+" not in "".join(re.findall(r" \+\d", text))


def test_the_frame_uses_the_height_it_is_given_for_more_turns(game_in_progress):
    picture, _, _ = game_in_progress
    small = fit(picture, 120, 30).plain()
    tall = fit(picture, 120, 40).plain()
    assert small.count(") Aaron:") + small.count(") MatrixFrog:") < \
        tall.count(") Aaron:") + tall.count(") MatrixFrog:")
    assert "21) Aaron: Trade Y3 R3 Aaron" in tall


@pytest.mark.parametrize("width, height", [(30, 8), (39, 24), (80, 9), (12, 3)])
def test_a_terminal_too_small_is_told_the_minimum_and_its_size(game_in_progress, width,
                                                                height):
    picture, _, _ = game_in_progress
    fitted = fit(picture, width, height)
    assert fitted.form == "too-small"
    assert all(line_len(line) <= width for line in fitted.lines)
    assert len(fitted.lines) <= height
    if width >= 30:
        text = " ".join(fitted.plain().split())
        assert f"Terminal too small: {width}×{height}." in text
        assert f"at least {MIN_WIDTH}×{MIN_HEIGHT}" in text


@settings(max_examples=60, deadline=None)
@given(width=st.integers(MIN_WIDTH, 220), height=st.integers(MIN_HEIGHT, 70))
def test_any_size_fits(game_in_progress, width, height):
    picture, _, _ = game_in_progress
    fitted = fit(picture, width, height, color=True)
    assert len(fitted.lines) <= height
    assert max(line_len(line) for line in fitted.lines) <= width
    assert "turn 31: Aaron to play" in fitted.plain()


def _crowded(name: str, message: str) -> TablePicture:
    fleet = ("b1", "b1", "g1", "g2", "g3", "r1", "r2", "r3", "y1", "y2", "y3")
    slots = tuple(SlotPicture(k, name if k % 2 else "", ((255, 0, 0),) * 16, ("y1", "b2"),
                              (fleet, fleet)) for k in range(7))
    return TablePicture(title=name * 4, turn=f"turn 2: {name} to play", rows=(slots, slots),
                        seats=(SeatPicture(0, name, ((0, 255, 0),) * 8),
                               SeatPicture(1, name)),
                        bank=(("r1", 3),), in_hand=("g3",) * 30,
                        record=(f"1) {name}: " + "Move G1 Alpha Beta; " * 12,),
                        message=message, status=("clock " + name * 20,))


@settings(max_examples=40, deadline=None)
@given(width=st.integers(MIN_WIDTH, 160), height=st.integers(MIN_HEIGHT, 50),
       name=st.sampled_from(["Aaron", "星系之王", "Ω" * 30, "x" * 60]))
def test_crowded_tables_and_wide_characters_still_fit(width, height, name):
    fitted = fit(_crowded(name, "a mistake " * 40), width, height, color=True)
    assert len(fitted.lines) <= height
    assert max(line_len(line) for line in fitted.lines) <= width


def test_cells_count_wide_characters_twice():
    assert cell_len("星系") == 4 and cell_len("Aaron") == 5 and cell_len("e\u0301") == 1


def test_fleets_are_grouped_then_cut_with_a_count_of_what_is_left():
    assert pieces_line(["g1", "g1", "y3"], 20, False) == (("g1", None), (" ", None),
                                                          ("g1", None), (" ", None),
                                                          ("y3", None))
    text = "".join(t for t, _ in pieces_line(["g1", "g1", "y3", "b2"], 10, False))
    assert text == "g1×2 y3 b2"
    text = "".join(t for t, _ in pieces_line(["g1", "g1", "y3", "b2", "r1"], 10, False))
    assert text == "g1×2 y3 +2"


def test_leds_one_or_two_per_character_or_a_count():
    ring = [(200, 0, 0)] * 5 + [(0, 0, 0)] * 11
    assert "".join(t for t, _ in leds(ring, 16, False)) == "#####..........."
    assert "".join(t for t, _ in leds(ring, 8, False)) == "##+....."
    assert "".join(t for t, _ in leds(ring, 5, False)) == "5/16"
    halves = leds(ring, 8, True)
    assert halves[2] == ("▌", "rgb(200,0,0)")  # the fifth LED lit, the sixth dark


def test_text_from_files_is_escaped_before_it_reaches_the_screen():
    entries = record_entries([(0, ())], ["Al\x1b[2Jice"])
    assert entries == ("1) Al\\x1b[2Jice: ",)
    picture = _crowded("x", "").with_status(["clock \x1b]0;pwned\x07"])
    out = io.StringIO()
    TerminalScreen(out).show(picture)
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()
    assert "clock \\x1b]0;pwned\\x07" in out.getvalue()


@pytest.mark.parametrize("width", [36, 12])
def test_without_a_height_a_narrow_width_gets_the_record_cut_to_it(game_in_progress, width):
    """The last picture printed to a tiny terminal's scroll-back is the game, not a
    complaint."""
    picture, _, _ = game_in_progress
    fitted = fit(picture, width, None)
    assert fitted.form == "record"
    assert all(line_len(line) <= width for line in fitted.lines)
    assert "too small" not in fitted.plain()
    if width == 36:
        assert "turn 31: Aaron to play" in fitted.plain()


def test_a_log_line_taller_than_the_room_left_shows_its_beginning(game_in_progress):
    """A long answer printed into the log (`help` lists every command) used to wipe the
    whole log at 80x24: the newest entry did not fit, so nothing was shown."""
    picture, _, _ = game_in_progress
    answer = "commands: " + " ".join(f"verb{k} (what verb {k} does at the table)"
                                     for k in range(40))
    picture = dataclasses.replace(picture, record=picture.record + (answer,))
    screen = fit(picture, 80, 24).plain()
    lines = screen.splitlines()
    assert len(lines) <= 24 and all(cell_len(line) <= 80 for line in lines)
    assert "commands: verb0 (what verb 0 does" in screen
    assert "…" in screen
