"""The output loop: corrected, de-duplicated, rate-limited writes to one sink.

The hint renderer may produce a frame on every sensor event and every
animation tick; the LEDs need a write only when what they show changes, and
never faster than the strip (and the CPU) can usefully take. :class:`PixelOutput`
does that without threads, for callers with their own loop::

    with PixelOutput(sink, correction, max_fps=60) as output:
        while playing:
            output.submit(render(game, view, now))     # written now, held, or skipped
            wait = output.due_in()                     # None: nothing held
            selector.select(timeout=wait)              # wake up in time for it
            output.poll()                              # writes a held frame once due

A frame submitted too soon after the last write is held (a newer one replaces
it) and written by :meth:`PixelOutput.poll` or :meth:`PixelOutput.flush` once
``1 / max_fps`` has passed. :class:`BackgroundPixelOutput` runs the same logic
on its own thread for callers that prefer fire-and-forget. Both blank the LEDs
when closed, including when a ``with`` block exits on an exception.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

from homeworlds.pixels.correction import ColorCorrection
from homeworlds.pixels.errors import PixelSinkClosed
from homeworlds.pixels.frame import Frame, check_frame, frame_from_bytes, frame_to_bytes
from homeworlds.pixels.sink import PixelSink


@dataclass(frozen=True, slots=True)
class OutputStats:
    """What became of every submitted frame.

    ``submitted == written + unchanged + superseded + held`` at any time.
    """

    submitted: int = 0
    written: int = 0
    """Frames written to the sink."""
    unchanged: int = 0
    """Frames skipped because they (after correction) equal what is shown or already held."""
    superseded: int = 0
    """Frames held for the rate limit and replaced by a newer one before their turn."""
    held: int = 0
    """1 while a frame waits for its turn, else 0."""

    @property
    def skipped(self) -> int:
        return self.unchanged + self.superseded


class PixelOutput:
    """Writes frames to ``sink`` through ``correction`` when they change, at most ``max_fps``.

    ``clock`` (seconds, monotonic) and ``sleep`` are injectable so tests can
    drive time; ``max_fps=None`` removes the rate limit. The output owns the
    sink: :meth:`close` blanks the LEDs and closes it.
    """

    def __init__(self, sink: PixelSink, correction: ColorCorrection | None = None, *,
                 max_fps: float | None = 60.0, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        if max_fps is not None and (isinstance(max_fps, bool)
                                    or not isinstance(max_fps, int | float)
                                    or not math.isfinite(max_fps) or max_fps <= 0):
            raise ValueError(f"max_fps must be a positive number (or None for no limit), "
                             f"not {max_fps!r}")
        self._sink = sink
        self._correction = correction if correction is not None else ColorCorrection()
        self._interval = 0.0 if max_fps is None else 1.0 / max_fps
        self._max_fps = max_fps
        self._clock = clock
        self._sleep = sleep
        self._shown: bytes | None = None  # corrected bytes the LEDs show now
        self._held: bytes | None = None  # corrected bytes waiting for their turn
        self._next_write = -math.inf
        self._last_input: bytes | None = None
        self._last_input_corrected = b""
        self._counts = {"submitted": 0, "written": 0, "unchanged": 0, "superseded": 0}
        self._closed = False

    # -- configuration and state

    @property
    def sink(self) -> PixelSink:
        return self._sink

    @property
    def correction(self) -> ColorCorrection:
        return self._correction

    @property
    def max_fps(self) -> float | None:
        return self._max_fps

    @property
    def pixel_count(self) -> int:
        return self._sink.pixel_count

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def stats(self) -> OutputStats:
        return OutputStats(held=int(self._held is not None), **self._counts)

    @property
    def shown(self) -> Frame | None:
        """The corrected frame the LEDs show (None before the first write)."""
        return None if self._shown is None else frame_from_bytes(self._shown)

    def set_correction(self, correction: ColorCorrection) -> None:
        """Change brightness or gamma while running (the display's admin settings); the
        next submitted frame is corrected afresh."""
        self._correction = correction
        self._last_input = None

    @property
    def pending(self) -> bool:
        """Whether a frame is held, waiting for the rate limit."""
        return self._held is not None

    # -- the loop

    def submit(self, frame: Frame) -> bool:
        """Offer the frame the LEDs should show now; True if it was written now.

        Raises FrameError on a malformed frame (naming the pixel) and
        PixelSinkClosed after :meth:`close`.
        """
        self._check_open()
        data = frame_to_bytes(frame, self.pixel_count)
        self._counts["submitted"] += 1
        if data != self._last_input:
            self._last_input = data
            self._last_input_corrected = self._correction.apply_bytes(data)
        corrected = self._last_input_corrected
        if corrected == self._shown:
            if self._held is not None:
                # The held frame would now undo nothing: what is shown is wanted again.
                self._held = None
                self._counts["superseded"] += 1
            self._counts["unchanged"] += 1
            return False
        if corrected == self._held:
            self._counts["unchanged"] += 1
        else:
            if self._held is not None:
                self._counts["superseded"] += 1
            self._held = corrected
        return self.poll()

    def poll(self) -> bool:
        """Write the held frame if its time has come; True if it wrote."""
        self._check_open()
        if self._held is None:
            return False
        now = self._clock()
        if now < self._next_write:
            return False
        self._write(self._held, now)
        return True

    def due_in(self) -> float | None:
        """Seconds until the held frame may be written (0.0: now), None if none is held."""
        if self._held is None:
            return None
        return max(0.0, self._next_write - self._clock())

    def flush(self) -> bool:
        """Wait out the rate limit (with ``sleep``) and write the held frame; True if it wrote."""
        self._check_open()
        if self._held is None:
            return False
        wait = self._next_write - self._clock()
        if wait > 0:
            self._sleep(wait)
        self._write(self._held, max(self._clock(), self._next_write))
        return True

    def close(self) -> None:
        """Drop any held frame, blank the LEDs and close the sink. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._held = None
        wait = self._next_write - self._clock()
        if 0 < wait <= self._interval:
            self._sleep(wait)  # keep the rate promise even for the last write
        self._sink.close()

    def __enter__(self) -> PixelOutput:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<PixelOutput to {self._sink!r}, max_fps={self._max_fps}, "
                f"{self.stats.written} written>")

    def _write(self, corrected: bytes, now: float) -> None:
        self._sink.show(frame_from_bytes(corrected))
        # Only once the sink took it: a failed write leaves the frame held.
        self._shown = corrected
        self._held = None
        self._next_write = now + self._interval
        self._counts["written"] += 1

    def _check_open(self) -> None:
        if self._closed:
            raise PixelSinkClosed("the pixel output is closed")


class BackgroundPixelOutput:
    """A :class:`PixelOutput` driven by its own thread.

    :meth:`submit` only checks the frame and hands it over, so the caller never
    waits for a strip write (the PWM backend of a Pi 4 sleeps about 1 ms per 100
    bytes). Frames handed over faster than the thread takes them count as
    superseded. If the sink fails, the thread stops and the error is raised by
    the next :meth:`submit`, :meth:`flush` or :meth:`close`. Use a real clock
    with it: the thread waits in real time.
    """

    def __init__(self, output: PixelOutput):
        self._output = output
        self._wake = threading.Condition()
        self._io = threading.Lock()  # guards the PixelOutput, touched by the thread and close
        self._incoming: Frame | None = None
        self._dropped = 0
        self._busy = False
        self._in_flight = 0  # 1 while the thread carries a frame from _incoming to the output
        self._stopping = False
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="pixel-output", daemon=True)
        self._thread.start()

    @property
    def output(self) -> PixelOutput:
        return self._output

    @property
    def pixel_count(self) -> int:
        return self._output.pixel_count

    @property
    def stats(self) -> OutputStats:
        # Lock order everywhere: _io, then _wake.
        with self._io:
            stats = self._output.stats
            with self._wake:
                dropped = self._dropped
                incoming = int(self._incoming is not None) + self._in_flight
        return OutputStats(submitted=stats.submitted + dropped + incoming,
                           written=stats.written, unchanged=stats.unchanged,
                           superseded=stats.superseded + dropped, held=stats.held + incoming)

    def submit(self, frame: Frame) -> None:
        """Hand the frame to the writer thread (FrameError at once if malformed)."""
        frame = check_frame(frame, self.pixel_count)
        with self._wake:
            self._raise_failure()
            if self._stopping:
                raise PixelSinkClosed("the pixel output is closed")
            if self._incoming is not None:
                self._dropped += 1
            self._incoming = frame
            self._wake.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every handed-over frame is written or skipped; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._wake:
            while True:
                self._raise_failure()
                if self._incoming is None and not self._busy and self._output.due_in() is None:
                    return True
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._wake.wait(remaining)

    def close(self) -> None:
        """Stop the thread, blank the LEDs, close the sink; re-raises a writer failure."""
        with self._wake:
            self._stopping = True
            self._incoming = None
            self._wake.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join()
        with self._io:
            self._output.close()
        with self._wake:
            self._raise_failure()

    def __enter__(self) -> BackgroundPixelOutput:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def _raise_failure(self) -> None:
        if self._error is not None:
            raise RuntimeError(f"the LED writer thread failed: {self._error}") from self._error

    def _run(self) -> None:
        while True:
            frame: Frame | None
            with self._wake:
                while True:
                    if self._stopping:
                        return
                    if self._incoming is not None:
                        frame, self._incoming = self._incoming, None
                        self._in_flight = 1
                        break
                    wait = self._output.due_in()
                    if wait is not None and wait <= 0:
                        frame = None
                        break
                    self._wake.wait(wait)
                self._busy = True
            try:
                with self._io:
                    if frame is not None:
                        self._output.submit(frame)
                    else:
                        self._output.poll()
                    self._done()
            except BaseException as error:  # noqa: BLE001 - reported to the caller, not lost
                self._done(error)
                return

    def _done(self, error: BaseException | None = None) -> None:
        with self._wake:
            if error is not None:
                self._error = error
            self._busy = False
            self._in_flight = 0
            self._wake.notify_all()
