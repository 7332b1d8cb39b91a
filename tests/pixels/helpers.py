"""Test helpers for the LED output side."""

from __future__ import annotations


class FakeClock:
    """A monotonic clock that moves only when told (or when slept on)."""

    def __init__(self, start: float = 100.0):
        self.now = start
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


RED = (255, 0, 0)
GREEN = (0, 255, 0)
BLUE = (0, 0, 255)
OFF = (0, 0, 0)
