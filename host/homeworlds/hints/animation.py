"""Animations as pure functions of time.

Every animated hint is a function of ``now`` (seconds on any clock, usually
``time.monotonic()``) and a period, so a frame never depends on how often it
was rendered, two renders at the same time agree, and tests can ask for the
frame at any moment. Phases are taken modulo the period, so all hints sharing
a period run in step (every blinking mistake blinks together).
"""

from __future__ import annotations

import colorsys
import math

from homeworlds.pixels import RGB


def phase(now: float, period: float) -> float:
    """Where ``now`` falls in the cycle, 0 <= phase < 1."""
    p = (now % period) / period
    return p if p < 1.0 else 0.0  # float rounding of now % period near the period


def blink_on(now: float, period: float) -> bool:
    """A square blink: on for the first half of each period, off for the second."""
    return phase(now, period) < 0.5


def pulse_level(now: float, period: float, low: float, high: float) -> float:
    """A smooth (raised-cosine) pulse: ``low`` at the start of each period, ``high``
    half-way through."""
    return low + (high - low) * (1.0 - math.cos(2.0 * math.pi * phase(now, period))) / 2.0


#: Red Alert's double flash: the parts of the period in which the bar is red.
HEARTBEAT_FLASHES = ((0.0, 0.1), (0.2, 0.3))


def heartbeat_on(now: float, period: float) -> bool:
    """Two short flashes at the start of each period, then a pause (a heartbeat)."""
    p = phase(now, period)
    return any(start <= p < end for start, end in HEARTBEAT_FLASHES)


def spinner_head(now: float, period: float, length: int) -> int:
    """The ring position of a spinner that goes once round ``length`` pixels per period."""
    return int(phase(now, period) * length) % length


def rainbow(now: float, period: float, length: int, level: float) -> tuple[RGB, ...]:
    """A rainbow along ``length`` pixels that runs one whole hue cycle per period."""
    start = phase(now, period)
    out = []
    for i in range(length):
        r, g, b = colorsys.hsv_to_rgb((i / length - start) % 1.0, 1.0, level)
        out.append((round(r * 255), round(g * 255), round(b * 255)))
    return tuple(out)


def scale(color: RGB, level: float) -> RGB:
    """``color`` at ``level`` (0..1) of its brightness."""
    return (round(color[0] * level), round(color[1] * level), round(color[2] * level))
