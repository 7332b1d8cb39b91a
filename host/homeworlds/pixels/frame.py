"""Frames: what every pixel of the LED chain shows at one moment.

A frame is a plain immutable tuple with one ``(r, g, b)`` byte triple per pixel
index of the chain, in logical RGB order whatever order the LEDs expect on the
wire (the strip sinks reorder). Plain tuples rather than a class because the
hint renderer builds one per tick and compares them; tuples are cheap to build,
hash and compare, and tests can write them literally.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain
from typing import cast

RGB = tuple[int, int, int]
"""One pixel: red, green, blue, each 0..255."""

Frame = tuple[RGB, ...]
"""One colour per pixel index of the chain."""

BLACK: RGB = (0, 0, 0)


class FrameError(ValueError):
    """A frame that cannot be shown: wrong length, not a triple, not a byte."""


def blank(pixel_count: int) -> Frame:
    """All pixels off."""
    return solid(pixel_count, BLACK)


def solid(pixel_count: int, color: RGB) -> Frame:
    """Every pixel the same colour."""
    if pixel_count < 0:
        raise FrameError(f"pixel count must be 0 or more, not {pixel_count}")
    pixel = cast(RGB, tuple(color))  # a list in, a tuple out; checked next
    _check_pixel(0, pixel)
    return (pixel,) * pixel_count


def frame_to_bytes(frame: Sequence[RGB], pixel_count: int | None = None) -> bytes:
    """The frame as ``r g b r g b ...`` bytes, checked.

    Raises :class:`FrameError` naming the first bad pixel (or the length
    mismatch) so that a renderer bug reads as a renderer bug, not as a crash
    inside an LED driver.
    """
    if pixel_count is not None and len(frame) != pixel_count:
        raise FrameError(f"frame has {len(frame)} pixels but the chain has {pixel_count}")
    try:
        data = bytes(chain.from_iterable(frame))
    except (TypeError, ValueError):
        data = None
    if data is None or len(data) != 3 * len(frame) or any(len(pixel) != 3 for pixel in frame):
        _locate_bad_pixel(frame)
        raise FrameError("frame is not a sequence of (r, g, b) triples")  # pragma: no cover
    return data


def frame_from_bytes(data: bytes | bytearray | memoryview) -> Frame:
    """The inverse of :func:`frame_to_bytes`."""
    if len(data) % 3:
        raise FrameError(f"{len(data)} bytes is not a whole number of (r, g, b) pixels")
    values = iter(bytes(data))
    return tuple(zip(values, values, values, strict=True))


def check_frame(frame: Iterable[RGB], pixel_count: int | None = None) -> Frame:
    """``frame`` as a checked :data:`Frame` (converted if it was lists)."""
    if not isinstance(frame, Sequence):
        frame = tuple(frame)
    data = frame_to_bytes(frame, pixel_count)
    if type(frame) is tuple and all(type(pixel) is tuple for pixel in frame):
        return frame
    return frame_from_bytes(data)


def _locate_bad_pixel(frame: Sequence[object]) -> None:
    for index, pixel in enumerate(frame):
        _check_pixel(index, pixel)


def _check_pixel(index: int, pixel: object) -> None:
    try:
        channels = tuple(cast(Iterable[object], pixel))  # not iterable: TypeError
    except TypeError:
        raise FrameError(f"pixel {index} is {pixel!r}, not an (r, g, b) triple") from None
    if len(channels) != 3:
        raise FrameError(f"pixel {index} is {pixel!r}: expected 3 channels (r, g, b), "
                         f"got {len(channels)}")
    for channel in channels:
        if not isinstance(channel, int) or not 0 <= channel <= 255:
            raise FrameError(f"pixel {index} is {pixel!r}: each channel must be an int 0..255")
