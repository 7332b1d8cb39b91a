"""A command line typed under a live view, edited by the program rather than the terminal.

Under a live view that redraws the whole screen the terminal's own echo would write typed
characters wherever the cursor was left, and the next redraw would wipe them. ``LineInput``
puts the terminal in cbreak mode (no echo, a key at a time; Ctrl-C still interrupts), keeps
the line being typed (``text``, shown by the view as its prompt line) and puts each finished
line on ``lines``. Backspace deletes, Ctrl-U clears the line, other control keys and escape
sequences (arrow keys) are ignored. ``close()`` gives the terminal its settings back.
"""

from __future__ import annotations

import codecs
import os
import queue
import select
import termios
import threading
import tty

_ERASE = ("\x7f", "\b")
_KILL = "\x15"  # Ctrl-U
_ESC = "\x1b"


class LineInput:
    """Lines typed on the terminal ``fd``, read by a background thread."""

    def __init__(self, fd: int, on_change=None):
        self.fd = fd
        self.lines: queue.Queue[str] = queue.Queue()
        self.on_change = on_change
        self._text: list[str] = []
        self._lock = threading.Lock()
        self._saved = termios.tcgetattr(fd)
        self._stop = threading.Event()
        tty.setcbreak(fd)
        self._thread = threading.Thread(target=self._read, name="line-input", daemon=True)
        self._thread.start()

    @property
    def text(self) -> str:
        with self._lock:
            return "".join(self._text)

    def feed(self, chars: str) -> None:
        """Apply typed characters (what the reader thread does with each key)."""
        escape = False
        for ch in chars:
            if escape:
                # An escape sequence ends with a letter or '~' (arrows, function keys).
                escape = not (ch.isalpha() or ch == "~")
                continue
            with self._lock:
                if ch in ("\r", "\n"):
                    line, self._text = "".join(self._text), []
                    self.lines.put(line + "\n")
                elif ch in _ERASE:
                    if self._text:
                        self._text.pop()
                elif ch == _KILL:
                    self._text = []
                elif ch == _ESC:
                    escape = True
                elif ch.isprintable():
                    self._text.append(ch)
        if self.on_change is not None:
            self.on_change()

    def _read(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.1)
                if not ready:
                    continue
                data = os.read(self.fd, 1024)
            except (OSError, ValueError):
                return
            if not data:
                return
            self.feed(decoder.decode(data))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(1.0)
        try:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
        except termios.error:
            pass
