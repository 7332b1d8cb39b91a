"""`homeworlds demo` on a real pseudo-terminal of a set size: every line it draws fits the
terminal's width, every screen its height, and a resized terminal is followed; piped, it
writes plain text without a single escape code."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.integration.pty_terminal import (
    PtyTerminal,
    after_live,
    lines,
    screens,
    terminal_env,
)

SHORT_GAME = """Homeworlds Online (SDG# 1)
Participants: alice (S), bob (N)

1) alice: Homeworld Y1 B2 G3

2) bob: Homeworld R1 Y2 G3

3) alice: Build G1 Alice

4) bob: Build G1 Bob

5) alice: Discover G1 Alice B3 Delta
"""


def _short_game(tmp_path):
    game = tmp_path / "short.raw"
    game.write_text(SHORT_GAME)
    return str(game)


def test_demo_on_an_80x24_terminal_never_draws_past_the_edge(tmp_path):
    term = PtyTerminal(["demo", "--game", _short_game(tmp_path), "--speed", "20"], 80, 24)
    assert term.finish() == 0, term.output[-2000:]
    raw = term.output
    too_long = [line for line in lines(raw) if len(line) > 80]
    assert not too_long, too_long[:3]
    drawn = screens(raw)
    assert len(drawn) >= 3  # redrawn in place as the game goes on
    assert all(len(screen) <= 24 for screen in drawn)
    last = "\n".join(drawn[-1])
    assert re.search(r"5\) alice: Discover G1 alice B3 (\w+)", last)
    assert "turn 6: bob to play" in last
    assert "\x1b[2J" not in raw  # never cleared: no flicker
    after = after_live(raw)  # the terminal's own screen again
    assert "turn 6: bob to play" in after
    assert after.rstrip().endswith(
        "the record ends here (resigned or unfinished); recorded winner: unknown")


def test_demo_follows_a_terminal_made_smaller_while_it_runs():
    term = PtyTerminal(["demo", "--speed", "40"], 120, 40)
    term.wait_for(lambda out: "to play" in out)
    term.resize(50, 20)
    assert term.finish() == 0, term.output[-2000:]
    drawn = screens(term.output)
    assert max(len(line) for line in drawn[0]) > 50  # drawn for 120 columns at first
    last = drawn[-1]
    assert len(last) <= 20 and all(len(line) <= 50 for line in last), last
    assert "MatrixFrog" in "\n".join(last)
    after = after_live(term.output)
    assert all(len(line) <= 50 for line in after.split("\n"))
    assert "game over (opponent-eliminated): MatrixFrog wins" in after


def test_demo_on_a_tiny_terminal_says_how_big_it_must_be(tmp_path):
    term = PtyTerminal(["demo", "--game", _short_game(tmp_path), "--speed", "20"], 36, 8)
    assert term.finish() == 0
    text = " ".join(" ".join(screens(term.output)[-1]).split())
    assert "Terminal too small: 36×8. The table view needs at least 40×10" in text
    after = after_live(term.output)  # the game itself stays in the scroll-back
    assert "turn 6: bob to play" in after and "too small" not in after
    picture = after.rstrip().split("\n")[:-1]  # the last line is the demo's own sentence
    assert all(len(line) <= 36 for line in picture)


def test_demo_piped_is_plain_text(tmp_path):
    out = subprocess.run([sys.executable, "-m", "homeworlds", "demo", "--game",
                          _short_game(tmp_path), "--speed", "50"], capture_output=True,
                         text=True, env=terminal_env(), timeout=60, check=True).stdout
    assert "\x1b" not in out
    assert re.search(r"5\) alice: Discover G1 alice B3 \w+", out)
    assert "[########] bob" in out  # bob's bar lit once alice handed over
    assert out.count("turn 6: bob to play") == 1  # one frame per turn, appended
