"""The terminal view as drawn: rich's live display on a terminal of a fixed size (redrawn in
place on the alternate screen), plain appended frames elsewhere, and the status-line
region that other parts of the program fill."""

from __future__ import annotations

import io
import re
import time

from rich.console import Console

from homeworlds.display.screen import TerminalScreen

CURSOR_HOME = "\x1b[H"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _console(width, height):
    return Console(file=io.StringIO(), width=width, height=height, force_terminal=True,
                   color_system="truecolor", highlight=False, markup=False, emoji=False)


def _frames(raw: str) -> list[list[str]]:
    """The screens drawn on the alternate screen: each starts at the cursor's home."""
    live = raw.split("\x1b[?1049l")[0]
    return [ANSI.sub("", chunk).split("\n") for chunk in live.split(CURSOR_HOME)[1:]
            if ANSI.sub("", chunk).strip()]


def test_live_view_at_80x24_redraws_in_place_and_fits(game_in_progress):
    picture, _, _ = game_in_progress
    console = _console(80, 24)
    with TerminalScreen(console=console) as screen:
        assert screen.live
        screen.show(picture)
    raw = console.file.getvalue()
    assert raw.startswith("\x1b[?1049h")  # the alternate screen: the scroll-back is kept
    assert "\x1b[2J" not in raw  # redrawn over, never cleared first (no flicker)
    frames = _frames(raw)
    assert frames
    for frame in frames:
        assert len(frame) <= 24
        assert all(len(line) <= 80 for line in frame)
    last = "\n".join(frames[-1])
    assert "turn 31: Aaron to play" in last and "30) MatrixFrog: Build R1 MatrixFrog" in last
    # After the live view: the last picture once more, in the terminal's scroll-back.
    after = ANSI.sub("", raw.split("\x1b[?1049l")[1])
    assert "turn 31: Aaron to play" in after
    assert all(len(line) <= 80 for line in after.split("\n"))
    assert "\x1b[38;2;" in raw  # the LEDs and pieces in colour


def test_live_view_at_120x40(game_in_progress):
    picture, state, _ = game_in_progress
    console = _console(120, 40)
    with TerminalScreen(console=console) as screen:
        screen.show(picture)
    frame = _frames(console.file.getvalue())[-1]
    assert len(frame) <= 40 and all(len(line) <= 120 for line in frame)
    text = "\n".join(frame)
    for system in state.systems:
        assert system.name in text
    assert "21) Aaron: Trade Y3 R3 Aaron" in text  # 40 lines leave room for ten turns


def test_live_view_follows_a_resize(game_in_progress):
    picture, _, _ = game_in_progress
    console = _console(120, 40)
    def last_width():
        frames = _frames(console.file.getvalue())
        return max(len(line) for line in frames[-1]) if frames else None

    def wait_until(condition):
        deadline = time.monotonic() + 20
        while not condition() and time.monotonic() < deadline:
            time.sleep(0.05)

    with TerminalScreen(console=console) as screen:
        screen.show(picture)
        wait_until(lambda: last_width() is not None)
        assert last_width() > 50
        console.size = (50, 16)
        # The redraw thread notices the new size by itself, without another picture.
        wait_until(lambda: last_width() <= 50)
        frames_before_close = _frames(console.file.getvalue())
    frame = frames_before_close[-1]
    assert len(frame) <= 16 and all(len(line) <= 50 for line in frame)
    assert "turn 31: Aaron to play" in "\n".join(frame)


def test_live_view_on_a_tiny_terminal_says_it_is_too_small(game_in_progress):
    picture, _, _ = game_in_progress
    console = _console(36, 8)
    with TerminalScreen(console=console) as screen:
        screen.show(picture)
    frame = " ".join(" ".join(_frames(console.file.getvalue())[-1]).split())
    assert "Terminal too small: 36×8. The table view needs at least 40×10" in frame


def test_not_a_terminal_gets_plain_appended_frames_without_escape_codes(game_in_progress,
                                                                        monkeypatch):
    picture, state, _ = game_in_progress
    monkeypatch.delenv("COLUMNS", raising=False)
    out = io.StringIO()
    screen = TerminalScreen(out)
    assert not screen.live
    screen.show(picture)
    screen.show(picture)
    screen.close()
    text = out.getvalue()
    assert "\x1b" not in text
    assert text.count("turn 31: Aaron to play") == 2  # appended, not redrawn
    assert "[########] Aaron" in text and " * y1 b2" in text  # the full table
    for system in state.systems:
        assert system.name in text


def test_not_a_terminal_follows_columns(game_in_progress, monkeypatch):
    picture, _, _ = game_in_progress
    monkeypatch.setenv("COLUMNS", "80")
    out = io.StringIO()
    TerminalScreen(out).show(picture)
    assert max(len(line) for line in out.getvalue().split("\n")) <= 80


def test_status_sources_fill_the_status_region(game_in_progress):
    picture, _, _ = game_in_progress
    out = io.StringIO()
    screen = TerminalScreen(out)
    thinking = ["Computer thinking… 3 s"]
    screen.add_status(lambda: thinking[0])
    screen.add_status(lambda: None)  # a source with nothing to say takes no line
    screen.show(picture)
    thinking[0] = None
    screen.show(picture)
    first, second = out.getvalue().split(picture.title)[1:3]
    lines = first.split("\n")
    at = lines.index("  Computer thinking… 3 s")
    assert lines[at - 1].startswith("  bank:")  # between the bank and the record
    assert "thinking" not in second


def test_status_lines_are_kept_at_80x24(game_in_progress):
    picture, _, _ = game_in_progress
    console = _console(80, 24)
    with TerminalScreen(console=console) as screen:
        screen.add_status(lambda: "Aaron 4:31  MatrixFrog 3:02")
        screen.add_status(lambda: "LEDs: move the ship shown in white to Electra")
        screen.show(picture)
    frame = _frames(console.file.getvalue())[-1]
    assert len(frame) <= 24
    text = "\n".join(frame)
    assert "Aaron 4:31  MatrixFrog 3:02" in text and "shown in white to Electra" in text
    assert "30) MatrixFrog: Build R1 MatrixFrog" in text


def test_a_dumb_terminal_gets_plain_frames(game_in_progress, monkeypatch):
    picture, _, _ = game_in_progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setenv("TERM", "dumb")
    out = Tty()
    with TerminalScreen(out) as screen:
        assert not screen.live
        screen.show(picture)
    assert "\x1b" not in out.getvalue() and "turn 31: Aaron to play" in out.getvalue()


def test_nothing_is_drawn_before_the_view_is_entered_or_shown():
    console = _console(80, 24)
    screen = TerminalScreen(console=console)
    assert console.file.getvalue() == ""  # a failure before the first picture leaves the
    screen.close()                         # terminal's screen alone
    assert console.file.getvalue() == ""


def test_printed_output_goes_to_the_log_and_to_the_terminal_at_the_end(game_in_progress):
    import sys

    picture, _, _ = game_in_progress
    console = _console(80, 24)
    before = sys.stdout, sys.stderr
    with TerminalScreen(console=console) as screen, screen.capture_output():
        print("turn 1: Ann: homeworld y1 b2 g3 Ann")
        print("a control \x1b[2J character", file=sys.stderr, flush=True)
        assert screen.log_lines() == ("turn 1: Ann: homeworld y1 b2 g3 Ann",
                                      "a control \\x1b[2J character")
        screen.show(picture)
    raw = console.file.getvalue()
    after = raw.split("\x1b[?1049l")[1]
    assert after.endswith("turn 1: Ann: homeworld y1 b2 g3 Ann\n"
                          "a control \\x1b[2J character\n")
    assert (sys.stdout, sys.stderr) == before


def test_printed_lines_show_in_the_status_region_when_asked(game_in_progress):

    picture, _, _ = game_in_progress
    console = _console(80, 24)
    with TerminalScreen(console=console, log_in_status=2) as screen, screen.capture_output():
        print("live display: http://127.0.0.1:8080/")
        print("first")
        print("second")
        screen.show(picture)
    frame = "\n".join(line.rstrip() for line in _frames(console.file.getvalue())[-1])
    assert "  first\n  second\n" in frame and "8080" not in frame  # the last two
    assert len(_frames(console.file.getvalue())[-1]) <= 24
    after = console.file.getvalue().split("\x1b[?1049l")[1]
    assert after.endswith("live display: http://127.0.0.1:8080/\nfirst\nsecond\n")
