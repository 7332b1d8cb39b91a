from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from homeworlds.pixels import (
    FrameError,
    blank,
    check_frame,
    frame_from_bytes,
    frame_to_bytes,
    solid,
)

colors = st.tuples(*[st.integers(0, 255)] * 3)
frames = st.lists(colors, max_size=40).map(tuple)


def test_blank_is_all_off_and_solid_repeats_one_colour():
    assert blank(3) == ((0, 0, 0), (0, 0, 0), (0, 0, 0))
    assert solid(2, (1, 2, 3)) == ((1, 2, 3), (1, 2, 3))
    assert blank(0) == ()


@given(frames)
def test_bytes_round_trip(frame):
    data = frame_to_bytes(frame)
    assert len(data) == 3 * len(frame)
    assert frame_from_bytes(data) == frame


def test_check_frame_converts_lists_to_the_frame_type():
    assert check_frame([[1, 2, 3], (4, 5, 6)], 2) == ((1, 2, 3), (4, 5, 6))
    assert check_frame(iter([(1, 2, 3)])) == ((1, 2, 3),)


@pytest.mark.parametrize(("frame", "message"), [
    (((0, 0, 0), (256, 0, 0)), "pixel 1 is (256, 0, 0): each channel must be an int 0..255"),
    (((0, 0, 0), (0, -1, 0)), "pixel 1 is (0, -1, 0): each channel must be an int 0..255"),
    (((0, 0, 0.5),), "pixel 0 is (0, 0, 0.5): each channel must be an int 0..255"),
    (((1, 2), (3, 4, 5, 6)), "pixel 0 is (1, 2): expected 3 channels (r, g, b), got 2"),
    ((7, (1, 2, 3)), "pixel 0 is 7, not an (r, g, b) triple"),
])
def test_a_bad_pixel_is_named(frame, message):
    with pytest.raises(FrameError) as caught:
        frame_to_bytes(frame)
    assert str(caught.value) == message


def test_length_mismatch_is_reported_with_both_counts():
    with pytest.raises(FrameError, match="frame has 2 pixels but the chain has 3"):
        check_frame(blank(2), 3)


def test_partial_pixels_in_bytes_are_refused():
    with pytest.raises(FrameError, match="4 bytes is not a whole number"):
        frame_from_bytes(b"\x00" * 4)


def test_solid_checks_its_colour():
    with pytest.raises(FrameError, match="each channel must be an int 0..255"):
        solid(3, (300, 0, 0))
