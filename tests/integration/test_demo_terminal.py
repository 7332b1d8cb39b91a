"""`homeworlds demo` on a real pseudo-terminal of a set size: every line it draws fits the
terminal's width, every screen its height, and a resized terminal is followed; piped, it
writes plain text without a single escape code."""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time

SHORT_GAME = """Homeworlds Online (SDG# 1)
Participants: alice (S), bob (N)

1) alice: Homeworld Y1 B2 G3

2) bob: Homeworld R1 Y2 G3

3) alice: Build G1 Alice

4) bob: Build G1 Bob

5) alice: Discover G1 Alice B3 Delta
"""
# Cursor movements and screen switches end a line as far as the eye is concerned.
BREAKS = re.compile(r"\x1b\[\?1049[hl]|\x1b\[H|\x1b\[\d*[ABEF]|\x1b\[\d+;\d+H")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Z]|\x1b[=>78]")


def _set_size(fd: int, width: int, height: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))


def _env() -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")}
    env["TERM"] = "xterm-256color"
    return env


def _run_on_pty(args, width, height, *, resize_to=None, timeout=60.0) -> tuple[int, str]:
    """Run ``homeworlds ARGS`` with a pty of ``width``×``height`` as its terminal; with
    ``resize_to`` the terminal is resized as soon as the first screen is drawn. Returns the
    exit status and everything written to the terminal."""
    master, slave = os.openpty()
    _set_size(master, width, height)
    proc = subprocess.Popen([sys.executable, "-m", "homeworlds", *args], stdin=slave,
                            stdout=slave, stderr=slave, env=_env(), start_new_session=True)
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the program has ended and closed the terminal
                break
            if not data:
                break
            out += data
            if resize_to is not None and b"to play" in out:
                _set_size(master, *resize_to)
                resize_to = None
        code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return code, out.decode("utf-8", "replace")


def _lines(raw: str) -> list[str]:
    return [ANSI.sub("", line) for line in BREAKS.sub("\n", raw).replace("\r", "").split("\n")]


def _screens(raw: str) -> list[list[str]]:
    """Each screen drawn on the alternate screen (they begin at the cursor's home)."""
    live = raw.split("\x1b[?1049l")[0]
    return [[ANSI.sub("", line) for line in chunk.replace("\r", "").split("\n")]
            for chunk in live.split("\x1b[H")[1:] if ANSI.sub("", chunk).strip()]


def test_demo_on_an_80x24_terminal_never_draws_past_the_edge(tmp_path):
    game = tmp_path / "short.raw"
    game.write_text(SHORT_GAME)
    code, raw = _run_on_pty(["demo", "--game", str(game), "--speed", "20"], 80, 24)
    assert code == 0, raw[-2000:]
    lines = _lines(raw)
    too_long = [line for line in lines if len(line) > 80]
    assert not too_long, too_long[:3]
    screens = _screens(raw)
    assert len(screens) >= 3  # redrawn in place as the game goes on
    assert all(len(screen) <= 24 for screen in screens)
    last = "\n".join(screens[-1])
    assert re.search(r"5\) alice: Discover G1 alice B3 (\w+)", last)
    assert "turn 6: bob to play" in last
    assert "\x1b[2J" not in raw  # never cleared: no flicker
    after = raw.split("\x1b[?1049l")[-1]  # the terminal's own screen again
    assert "turn 6: bob to play" in ANSI.sub("", after)
    assert ANSI.sub("", after).rstrip().endswith(
        "the record ends here (resigned or unfinished); recorded winner: unknown")


def test_demo_follows_a_terminal_made_smaller_while_it_runs():
    code, raw = _run_on_pty(["demo", "--speed", "40"], 120, 40, resize_to=(50, 20))
    assert code == 0, raw[-2000:]
    screens = _screens(raw)
    assert max(len(line) for line in screens[0]) > 50  # drawn for 120 columns at first
    last = screens[-1]
    assert len(last) <= 20 and all(len(line) <= 50 for line in last), last
    assert "MatrixFrog" in "\n".join(last)
    after = _lines(raw.split("\x1b[?1049l")[-1])
    assert all(len(line) <= 50 for line in after)
    assert after and "game over (opponent-eliminated): MatrixFrog wins" in "\n".join(after)


def test_demo_on_a_tiny_terminal_says_how_big_it_must_be(tmp_path):
    game = tmp_path / "short.raw"
    game.write_text(SHORT_GAME)
    code, raw = _run_on_pty(["demo", "--game", str(game), "--speed", "20"], 36, 8)
    assert code == 0
    text = " ".join(" ".join(_screens(raw)[-1]).split())
    assert "Terminal too small: 36×8. The table view needs at least 40×10" in text


def test_demo_piped_is_plain_text(tmp_path):
    game = tmp_path / "short.raw"
    game.write_text(SHORT_GAME)
    env = _env()
    out = subprocess.run([sys.executable, "-m", "homeworlds", "demo", "--game", str(game),
                          "--speed", "50"], capture_output=True, text=True, env=env,
                         timeout=60, check=True).stdout
    assert "\x1b" not in out
    assert re.search(r"5\) alice: Discover G1 alice B3 \w+", out)
    assert "[########] bob" in out  # bob's bar lit once alice handed over
    assert out.count("turn 6: bob to play") == 1  # one frame per turn, appended
