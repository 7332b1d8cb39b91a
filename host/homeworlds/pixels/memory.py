"""A sink that records every frame, for tests (like gpiozero's mock pins)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from homeworlds.pixels.frame import RGB, Frame, check_frame
from homeworlds.pixels.sink import PixelSink


@dataclass(frozen=True, slots=True)
class ShownFrame:
    """One frame as the sink received it, and when (by the sink's clock)."""

    time: float
    frame: Frame


class MemorySink(PixelSink):
    """Keeps every shown frame with a timestamp from an injectable clock.

    Close records the blank frame it shows, like a strip would display it.
    Test helpers: :attr:`frames`, :attr:`last`, :attr:`history`,
    :meth:`assert_frames`, :meth:`assert_history`, :meth:`clear_history`.
    """

    kind = "memory"

    def __init__(self, pixel_count: int, *, clock: Callable[[], float] = time.monotonic):
        super().__init__(pixel_count)
        self._clock = clock
        self._history: list[ShownFrame] = []

    def _write(self, frame: Frame) -> None:
        self._history.append(ShownFrame(self._clock(), frame))

    # -- what tests read

    @property
    def history(self) -> tuple[ShownFrame, ...]:
        return tuple(self._history)

    @property
    def frames(self) -> tuple[Frame, ...]:
        return tuple(shown.frame for shown in self._history)

    @property
    def last(self) -> Frame | None:
        """The frame the pixels show now (None if nothing was ever shown)."""
        return self._history[-1].frame if self._history else None

    def pixel(self, index: int) -> RGB:
        """What pixel ``index`` shows now."""
        if not self._history:
            raise LookupError("nothing has been shown on this sink yet")
        return self._history[-1].frame[index]

    def clear_history(self) -> None:
        self._history.clear()

    def assert_frames(self, expected: Iterable[Frame]) -> None:
        """Fail with the first differing frame and pixel unless exactly ``expected`` were shown."""
        wanted = [check_frame(frame, self.pixel_count) for frame in expected]
        shown = self.frames
        for position, (got, want) in enumerate(zip(shown, wanted, strict=False)):
            if got != want:
                raise AssertionError(f"frame {position} of {len(shown)}: "
                                     f"{_first_difference(got, want)}")
        if len(shown) != len(wanted):
            raise AssertionError(f"{len(shown)} frames were shown, expected {len(wanted)}"
                                 f"{_extra(shown, wanted)}")

    def assert_history(self, expected: Iterable[tuple[float, Frame]], *,
                       abs_tol: float = 1e-6) -> None:
        """Like :meth:`assert_frames`, also checking each frame's time within ``abs_tol``."""
        expected = list(expected)
        self.assert_frames(frame for _, frame in expected)
        for position, (shown, (when, _)) in enumerate(zip(self._history, expected, strict=True)):
            if not math.isclose(shown.time, when, rel_tol=0.0, abs_tol=abs_tol):
                raise AssertionError(f"frame {position} was shown at {shown.time!r}, "
                                     f"expected {when!r}")


def _first_difference(got: Frame, want: Frame) -> str:
    for index, (a, b) in enumerate(zip(got, want, strict=True)):
        if a != b:
            return f"pixel {index} shows {a}, expected {b}"
    return "frames differ"  # pragma: no cover - only called on unequal frames


def _extra(shown: Sequence[Frame], wanted: Sequence[Frame]) -> str:
    if len(shown) > len(wanted):
        return f" (first unexpected: frame {len(wanted)})"
    return f" (first missing: frame {len(shown)})"
