"""A program run on a pseudo-terminal of a set size, as a user's terminal would run it:
what it draws is collected, keys can be typed and the window resized."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time

# Cursor movements and screen switches end a line as far as the eye is concerned.
BREAKS = re.compile(r"\x1b\[\?1049[hl]|\x1b\[H|\x1b\[\d*[ABEF]|\x1b\[\d+;\d+H")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Z]|\x1b[=>78]")
LEAVE_ALT_SCREEN = "\x1b[?1049l"


def set_size(fd: int, width: int, height: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))


def terminal_env() -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")}
    env["TERM"] = "xterm-256color"
    return env


class PtyTerminal:
    """``python -m homeworlds ARGS`` with a ``width``×``height`` pty as its terminal (its
    controlling terminal: Ctrl-C and resizes reach it as they would)."""

    def __init__(self, args, width: int, height: int, *, cwd=None):
        self.master, slave = os.openpty()
        set_size(self.master, width, height)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "homeworlds", *args], stdin=slave, stdout=slave,
            stderr=slave, env=terminal_env(), cwd=cwd, start_new_session=True,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
        os.close(slave)
        self._out = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.2)
                if not ready:
                    if self.proc.poll() is not None:
                        return
                    continue
                data = os.read(self.master, 65536)
            except OSError:  # EIO: the program ended and closed the terminal
                return
            if not data:
                return
            with self._lock:
                self._out += data

    @property
    def output(self) -> str:
        with self._lock:
            return self._out.decode("utf-8", "replace")

    def wait_for(self, predicate, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self.output):
                return
            if self.proc.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.05)
        raise AssertionError(f"timed out; the terminal shows:\n{self.output[-3000:]}")

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def resize(self, width: int, height: int) -> None:
        set_size(self.master, width, height)

    def interrupt(self) -> None:
        self.proc.send_signal(signal.SIGINT)

    def finish(self, timeout: float = 60.0) -> int:
        try:
            code = self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._reader.join(5)
            os.close(self.master)
        return code


def lines(raw: str) -> list[str]:
    """Every line written, escape codes removed."""
    return [ANSI.sub("", line) for line in BREAKS.sub("\n", raw).replace("\r", "").split("\n")]


def screens(raw: str) -> list[list[str]]:
    """Each screen drawn on the alternate screen (they begin at the cursor's home)."""
    live = raw.split(LEAVE_ALT_SCREEN)[0]
    return [[ANSI.sub("", line) for line in chunk.replace("\r", "").split("\n")]
            for chunk in live.split("\x1b[H")[1:] if ANSI.sub("", chunk).strip()]


def after_live(raw: str) -> str:
    """What stays on the terminal once the live view has closed, escape codes removed."""
    return ANSI.sub("", raw.split(LEAVE_ALT_SCREEN)[-1]).replace("\r", "")
