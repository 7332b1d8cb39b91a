"""Colour correction: the one place where frame colours become LED duty cycles.

The hint renderer works in "what it should look like" colours. LEDs are not a
monitor: their light output is linear in the PWM duty while eyes (and the
renderer's colours, picked on sRGB screens) are not, and undiffused LEDs at full
duty glare and draw amps. :class:`ColorCorrection` applies, in this order,

1. gamma and the brightness limit, through one 256-entry lookup table
   (``out = round(255 * brightness * (in / 255) ** gamma)``), except that a
   non-zero channel never becomes 0 while brightness is above 0, so a dim hint
   stays visible instead of vanishing;
2. an optional estimated-current cap: if the frame would draw more than
   ``max_current_ma``, every channel is scaled down by the same factor (a lit
   channel stays at 1 unless that alone would break the cap: the cap wins).

The pixel byte order on the wire (GRB, RGB...) is not colour maths and belongs
to the strip: the strip sinks take it as their ``order`` setting.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from homeworlds.pixels.errors import PixelSettingsError
from homeworlds.pixels.frame import Frame, frame_from_bytes, frame_to_bytes

_IDENTITY = bytes(range(256))


@dataclass(frozen=True, slots=True)
class ColorCorrection:
    """Brightness limit, gamma and current cap; the default changes nothing."""

    brightness: float = 1.0
    """0..1, scales every channel (after gamma, so it scales light output)."""
    gamma: float = 1.0
    """Exponent applied to each channel (2.2 suits WS2812B; 1.0 = off)."""
    max_current_ma: float | None = None
    """Cap on the estimated strip current, None for no cap."""
    channel_current_ma: float = 20.0
    """Estimated current of one fully-on colour channel (WS2812B: about 20 mA)."""
    idle_current_ma: float = 1.0
    """Estimated quiescent current of one dark pixel (WS2812B: about 1 mA)."""
    lookup: bytes = field(init=False, repr=False, compare=False)
    """The 256-entry table mapping an input channel value to its output value."""

    def __post_init__(self) -> None:
        _check_number("brightness", self.brightness, low=0.0, high=1.0)
        _check_number("gamma", self.gamma, low=0.1, high=5.0)
        if self.max_current_ma is not None:
            _check_number("max_current_ma", self.max_current_ma, low=0.0, low_open=True)
        _check_number("channel_current_ma", self.channel_current_ma, low=0.0, low_open=True)
        _check_number("idle_current_ma", self.idle_current_ma, low=0.0)
        object.__setattr__(self, "lookup", _lookup_table(self.brightness, self.gamma))

    @property
    def is_identity(self) -> bool:
        return self.lookup == _IDENTITY and self.max_current_ma is None

    def apply(self, frame: Frame) -> Frame:
        """The corrected frame (checked: raises FrameError on a bad one)."""
        return frame_from_bytes(self.apply_bytes(frame_to_bytes(frame)))

    def apply_bytes(self, data: bytes) -> bytes:
        """Correct ``r g b r g b ...`` bytes (the fast path used by the output loop)."""
        corrected = data.translate(self.lookup)
        if self.max_current_ma is None:
            return corrected
        scale = self._current_scale(corrected)
        if scale >= 1.0:
            return corrected
        scaled = corrected.translate(_scale_table(scale))
        if self._idle(scaled) + self._active(scaled) <= self.max_current_ma:
            return scaled
        # Many dim channels each held at 1 still draw more than the cap: the cap wins.
        return corrected.translate(_scale_table(scale, keep_lit=False))

    def estimate_current_ma(self, corrected: Frame | bytes) -> float:
        """Estimated strip current for an already-corrected frame (or its bytes)."""
        data = corrected if isinstance(corrected, bytes | bytearray) else frame_to_bytes(corrected)
        return self._idle(data) + self._active(data)

    def _idle(self, data: bytes) -> float:
        return self.idle_current_ma * (len(data) // 3)

    def _active(self, data: bytes) -> float:
        return self.channel_current_ma * sum(data) / 255.0

    def _current_scale(self, data: bytes) -> float:
        assert self.max_current_ma is not None
        active = self._active(data)
        if active == 0.0 or self._idle(data) + active <= self.max_current_ma:
            return 1.0
        # The dark-pixel current is drawn whatever we do; only the lit part can shrink.
        return max(0.0, self.max_current_ma - self._idle(data)) / active


def _lookup_table(brightness: float, gamma: float) -> bytes:
    table = bytearray(256)
    for value in range(1, 256):
        out = round(255.0 * brightness * (value / 255.0) ** gamma)
        table[value] = max(out, 1) if brightness > 0.0 else 0
    return bytes(table)


def _scale_table(scale: float, *, keep_lit: bool = True) -> bytes:
    """Every value times ``scale``, rounded down; ``keep_lit`` keeps a lit channel at 1."""
    if scale <= 0.0:
        return bytes(256)
    floor = 1 if keep_lit else 0
    return bytes([0] + [max(floor, int(value * scale)) for value in range(1, 256)])


def _check_number(name: str, value: object, *, low: float, high: float | None = None,
                  low_open: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise PixelSettingsError(f"must be a number, not {value!r}", key=name)
    if value < low or (low_open and value == low) or (high is not None and value > high):
        if high is None:
            bound = f"more than {low:g}" if low_open else f"at least {low:g}"
        else:
            bound = f"between {low:g} and {high:g}"
        raise PixelSettingsError(f"must be {bound}, not {value!r}", key=name)
