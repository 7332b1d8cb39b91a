"""The one small interface every LED sink implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import ClassVar

from homeworlds.pixels.errors import PixelSinkClosed
from homeworlds.pixels.frame import Frame, blank, check_frame


class PixelSink(ABC):
    """Somewhere frames go: a LED strip, a recorder, a terminal preview.

    ``show(frame)`` displays one frame (already colour-corrected: sinks do no
    colour maths), ``close()`` blanks the pixels and releases the hardware.
    Closing twice is harmless; showing after close raises
    :class:`PixelSinkClosed`. A sink is also a context manager that closes on
    exit, exceptions included, so a crash leaves the table dark rather than
    frozen on its last hint.
    """

    kind: ClassVar[str]
    """The name :func:`homeworlds.pixels.open_sink` knows this sink by."""

    def __init__(self, pixel_count: int):
        if isinstance(pixel_count, bool) or not isinstance(pixel_count, int) or pixel_count < 1:
            raise ValueError(f"{self.kind} sink: pixel_count must be a whole number of at least 1,"
                             f" not {pixel_count!r}")
        self._pixel_count = pixel_count
        self._closed = False

    @property
    def pixel_count(self) -> int:
        return self._pixel_count

    @property
    def closed(self) -> bool:
        return self._closed

    def show(self, frame: Frame) -> None:
        """Display ``frame`` (one (r, g, b) per pixel; FrameError if malformed)."""
        if self._closed:
            raise PixelSinkClosed(f"the {self.kind} sink is closed")
        self._write(check_frame(frame, self._pixel_count))

    def close(self) -> None:
        """Blank every pixel, then release the hardware. Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            self._write(blank(self._pixel_count))
        finally:
            self._release()

    def __enter__(self) -> PixelSink:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<{type(self).__name__} {self._pixel_count} pixels, {state}>"

    @abstractmethod
    def _write(self, frame: Frame) -> None:
        """Put a checked frame on the pixels."""

    def _release(self) -> None:  # noqa: B027 - most sinks hold nothing to release
        """Free what the sink holds (pins, buses); called once, after the blank."""
