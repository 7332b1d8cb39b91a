"""The terminal view: table pictures drawn to fit the terminal, redrawn in place.

On a terminal (and with rich installed: the ``term`` extra) the view is a rich ``Live``
display on the alternate screen, redrawn by a thread of its own ``REDRAWS_PER_SECOND``
times a second at most, and only when the picture or the terminal's size changed: each
redraw lays the latest picture out for the size the terminal has then (``display.fit``), so
a resized window is redrawn to fit within a tenth of a second, and overwrites the last one
whole, without clearing it first (no flicker). ``show`` only hands the picture over, so the
caller's loop (the table's, under ``play --live``) never waits for a redraw. When the view
closes the terminal gets its screen back and the last picture is printed once, fitted to
its width, so it stays in the scroll-back.

Anywhere else (a pipe, a file, a test's capture) the view is plain text: each picture is
appended, no escape codes at all, laid out for ``$COLUMNS`` when set and unlimited
otherwise.

While the view is live, what the program prints to standard output and error becomes the
view's log instead of being drawn over by the next redraw: ``play`` shows it as its
scrolling record (``log_lines()``), the demo its last lines in the status region
(``log_in_status``); the whole log is printed to the terminal when the view closes, so
nothing printed is lost. A view left open is closed when the program exits.

Status lines (the seam for a computer's thinking indicator, LED guidance, game clocks):
``screen.add_status(source)`` registers a callable returning a line of text or None; each
picture shown gets one line per source that has something to say, between the bank and the
record. Sources are called on the thread that calls ``show``.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TextIO

from homeworlds.display.fit import Fitted, fit
from homeworlds.display.picture import TablePicture

if TYPE_CHECKING:
    from rich.live import Live

StatusSource = Callable[[], "str | None"]

#: how often the redraw thread looks for a new picture or a new terminal size
REDRAWS_PER_SECOND = 10
#: log lines kept for the view (all of them are printed when it closes)
LOG_SHOWN = 200

RICH_MISSING = ("the live terminal view needs rich: pip install 'homeworlds-table[term]'; "
                "showing plain frames instead")


def rich_available() -> bool:
    try:
        import rich  # noqa: F401
    except ImportError:
        return False
    return True


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _capable_terminal() -> bool:
    """A terminal that can move its cursor (not TERM=dumb, as in an editor's shell)."""
    return os.environ.get("TERM", "") not in ("dumb", "unknown")


def plain_width() -> int | None:
    """The width plain frames are laid out for: ``$COLUMNS`` when it is a number, else
    unlimited (a log file does not wrap)."""
    try:
        value = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return None
    return value if value > 0 else None


class TerminalScreen:
    """Shows ``TablePicture``s on ``stream`` (standard output by default).

    ``live``: None decides by the stream (a terminal that can move its cursor, and rich
    installed); True or False forces it (a test may pass a rich ``Console`` of fixed size
    as ``console``). The live view starts on entering the context (or at the first
    ``show``); leaving it, or ``close()``, gives the terminal its screen back.
    """

    def __init__(self, stream: TextIO | None = None, *, color: bool = True,
                 live: bool | None = None, console=None, notes: TextIO | None = None,
                 log_in_status: int = 0):
        if stream is None:
            stream = console.file if console is not None else sys.stdout
        self.stream = stream
        tty = _isatty(self.stream) if console is None else True
        if live is None:
            live = tty and _capable_terminal() and rich_available()
            if tty and _capable_terminal() and not live:
                print(f"homeworlds: {RICH_MISSING}", file=notes or sys.stderr)
        self.live = live
        self.color = color and tty
        self._status: list[StatusSource] = []
        self._picture: TablePicture | None = None
        self._lock = threading.Lock()
        self._live: Live | None = None
        self._redrawer: threading.Thread | None = None
        self._stop_redrawing = threading.Event()
        self._console = console
        self._log: list[str] = []
        self._log_shown: deque[str] = deque(maxlen=LOG_SHOWN)
        self._closed = False
        self._captured: tuple | None = None
        self.log_in_status = log_in_status

    # ------------------------------------------------------------------ status seam
    def add_status(self, source: StatusSource) -> None:
        """Register a status line source: called for every picture shown; its text (if
        not None or empty) is one line of the status region."""
        self._status.append(source)

    def _status_lines(self) -> list[str]:
        out = []
        for source in self._status:
            text = source()
            if text:
                out.append(text)
        return out

    # ------------------------------------------------------------------ the log
    def log(self, text: str) -> None:
        """Lines for the view's log (printed to the terminal as well when it closes)."""
        from homeworlds.display.printable import printable

        with self._lock:
            for line in text.split("\n"):
                self._log.append(printable(line.rstrip()))
                self._log_shown.append(self._log[-1])

    def log_lines(self) -> tuple[str, ...]:
        """The newest lines of the log, oldest first, made printable."""
        with self._lock:
            return tuple(self._log_shown)

    @contextlib.contextmanager
    def capture_output(self) -> Iterator[None]:
        """What is printed inside goes to the log while the view is live (it does from the
        start of the live view to its close in any case; this makes it explicit)."""
        self._capture()
        yield

    def _capture(self) -> None:
        if self._live is None or self._captured is not None:
            return
        self._captured = (sys.stdout, sys.stderr)
        sys.stdout = sys.stderr = _LogStream(self)

    def _release(self) -> None:
        if self._captured is None:
            return
        sys.stdout.flush()
        sys.stdout, sys.stderr = self._captured
        self._captured = None

    # ------------------------------------------------------------------ drawing
    def show(self, picture: TablePicture) -> None:
        sources = self._status_lines()
        if self.log_in_status:
            sources += list(self.log_lines()[-self.log_in_status:])
        if sources:
            picture = picture.with_status(picture.status + tuple(sources))
        with self._lock:
            self._picture = picture
        if self.live and self._live is None and not self._closed:
            self.start()
        if self._live is not None:
            return  # the redraw thread draws it
        self.stream.write(fit(picture, plain_width(), None).plain() + "\n\n")
        self.stream.flush()

    def fitted(self, width: int | None, height: int | None) -> Fitted | None:
        """The latest picture laid out for ``width`` × ``height`` (what a redraw shows)."""
        with self._lock:
            picture = self._picture
        if picture is None:
            return None
        return fit(picture, width, height, color=self.color)

    def start(self) -> None:
        """Switch to the live view (on the first ``show`` at the latest)."""
        if self.live and self._live is None and not self._closed:
            self._start_live()

    def close(self) -> None:
        """Give the terminal its screen back and print the last picture once."""
        self._closed = True
        live, self._live = self._live, None
        if live is None:
            return
        self._release()
        atexit.unregister(self.close)
        self._stop_redrawing.set()
        if self._redrawer is not None:
            self._redrawer.join()
        live.refresh()  # the last picture, however soon after the one before
        live.stop()
        final = self.fitted(self._console.size.width, None)
        if final is not None:
            self._console.print(_rich_lines(final), soft_wrap=False, crop=True)
        if self._log:
            self.stream.write("\n".join(self._log) + "\n")
            self.stream.flush()

    def __enter__(self) -> TerminalScreen:
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def print(self, text: str) -> None:
        """A line outside the view (after it closed, or in plain mode)."""
        self.stream.write(text + "\n")
        self.stream.flush()

    def _start_live(self) -> None:
        from rich.console import Console
        from rich.live import Live

        if self._console is None:
            self._console = Console(file=self.stream, no_color=not self.color,
                                    highlight=False, emoji=False, markup=False)
        live = self._live = Live(_Renderable(self), console=self._console, screen=True,
                                 auto_refresh=False, redirect_stdout=False,
                                 redirect_stderr=False, transient=False)
        live.start()
        atexit.register(self.close)
        self._redrawer = threading.Thread(target=self._redraw, args=(self._live,),
                                          name="terminal-view", daemon=True)
        self._redrawer.start()
        if self.stream is sys.stdout:
            self._capture()


    def _redraw(self, live) -> None:
        drawn: tuple | None = None
        while not self._stop_redrawing.wait(1 / REDRAWS_PER_SECOND):
            with self._lock:
                picture = self._picture
            size = self._console.size
            if picture is None or (picture, size) == drawn:
                continue
            drawn = (picture, size)
            try:
                live.refresh()
            except Exception as exc:  # a view that cannot draw must not stop the table
                self.log(f"homeworlds: the terminal view stopped drawing: {exc!r}")
                return


class _Renderable:
    """Laid out anew at every refresh for the size rich measures then (so a resize is
    followed)."""

    def __init__(self, screen: TerminalScreen):
        self.screen = screen

    def __rich_console__(self, console, options):
        width = options.max_width
        height = options.height if options.height is not None else console.size.height
        fitted = self.screen.fitted(width, height)
        if fitted is not None:
            yield _rich_lines(fitted)


def _rich_lines(fitted: Fitted):
    from rich.text import Text

    text = Text(no_wrap=True, overflow="crop", end="")
    for k, line in enumerate(fitted.lines):
        if k:
            text.append("\n")
        for segment, style in line:
            text.append(segment, style=style)
    return text


class _LogStream(io.TextIOBase):
    """Standard output and error while the view is live: whole lines go to its log."""

    def __init__(self, screen: TerminalScreen):
        self.screen = screen
        self._partial = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        if lines:
            self.screen.log("\n".join(lines))
        return len(text)

    def flush(self) -> None:
        if self._partial:
            self.screen.log(self._partial)
            self._partial = ""

    def isatty(self) -> bool:
        return False
