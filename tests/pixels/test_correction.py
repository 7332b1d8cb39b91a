from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from homeworlds.pixels import ColorCorrection, FrameError, PixelSettingsError, blank, solid

colors = st.tuples(*[st.integers(0, 255)] * 3)


def test_default_correction_changes_nothing():
    correction = ColorCorrection()
    frame = ((0, 1, 2), (128, 200, 255))
    assert correction.is_identity
    assert correction.apply(frame) == frame
    assert correction.lookup == bytes(range(256))


def test_brightness_scales_every_channel():
    correction = ColorCorrection(brightness=0.5)
    assert correction.apply(((255, 100, 10),)) == ((128, 50, 5),)


def test_gamma_follows_the_power_law():
    correction = ColorCorrection(gamma=2.2)
    # 255 * (128/255) ** 2.2 = 55.98; 255 * (64/255) ** 2.2 = 12.25
    assert correction.apply(((255, 128, 64),)) == ((255, 56, 12),)
    assert correction.apply(((0, 0, 0),)) == ((0, 0, 0),)


def test_gamma_and_brightness_share_one_lookup_table():
    correction = ColorCorrection(brightness=0.4, gamma=2.2)
    for value in (0, 17, 100, 128, 200, 255):
        expected = round(255 * 0.4 * (value / 255) ** 2.2) if value else 0
        assert correction.lookup[value] == max(expected, 1 if value else 0)
    assert len(correction.lookup) == 256


def test_a_dim_channel_never_vanishes_but_brightness_zero_is_dark():
    assert ColorCorrection(brightness=0.1, gamma=2.2).apply(((255, 10, 1),)) == ((26, 1, 1),)
    assert ColorCorrection(brightness=0.0).apply(((255, 255, 255),)) == ((0, 0, 0),)


@given(st.floats(0.0, 1.0), st.floats(0.1, 5.0))
def test_the_lookup_table_is_monotonic_and_bounded(brightness, gamma):
    table = ColorCorrection(brightness=brightness, gamma=gamma).lookup
    assert table[0] == 0
    assert all(a <= b for a, b in zip(table, table[1:], strict=False))
    assert table[255] <= max(1, round(255 * brightness))


def test_current_estimate_counts_lit_channels_and_idle_pixels():
    correction = ColorCorrection(channel_current_ma=20.0, idle_current_ma=1.0)
    assert correction.estimate_current_ma(blank(10)) == pytest.approx(10.0)
    assert correction.estimate_current_ma(solid(10, (255, 255, 255))) == pytest.approx(610.0)


def test_current_cap_scales_a_bright_frame_down_uniformly():
    correction = ColorCorrection(max_current_ma=310.0)  # 10 pixels: 10 idle + 300 for light
    corrected = correction.apply(solid(10, (255, 255, 255)))
    assert corrected == solid(10, (127, 127, 127))  # half of 600 mA of light
    assert correction.estimate_current_ma(corrected) <= 310.0


def test_current_cap_leaves_a_frame_under_budget_alone():
    correction = ColorCorrection(max_current_ma=5000.0)
    frame = solid(10, (255, 0, 0))
    assert correction.apply(frame) == frame


def test_current_cap_below_the_idle_current_leaves_the_strip_dark():
    correction = ColorCorrection(max_current_ma=5.0)
    assert correction.apply(solid(10, (255, 255, 255))) == blank(10)


@given(st.lists(colors, min_size=1, max_size=30).map(tuple), st.floats(10.0, 3000.0))
def test_capped_frames_stay_within_the_budget(frame, cap):
    correction = ColorCorrection(max_current_ma=cap, idle_current_ma=0.0)
    corrected = correction.apply(frame)
    # Only the "never vanish" floor of 1 per lit channel may exceed the budget.
    slack = sum(1 for pixel in corrected for channel in pixel if channel) * 20.0 / 255
    assert correction.estimate_current_ma(corrected) <= cap + slack + 1e-9
    for before, after in zip(frame, corrected, strict=True):
        assert all(b <= a for a, b in zip(before, after, strict=True))


@pytest.mark.parametrize(("settings", "message"), [
    ({"brightness": 1.5}, "brightness: must be between 0 and 1, not 1.5"),
    ({"brightness": -0.1}, "brightness: must be between 0 and 1, not -0.1"),
    ({"gamma": 0}, "gamma: must be between 0.1 and 5, not 0"),
    ({"gamma": float("nan")}, "gamma: must be a number, not nan"),
    ({"brightness": "bright"}, "brightness: must be a number, not 'bright'"),
    ({"max_current_ma": 0}, "max_current_ma: must be more than 0, not 0"),
    ({"idle_current_ma": -1}, "idle_current_ma: must be at least 0, not -1"),
])
def test_bad_settings_name_the_setting(settings, message):
    with pytest.raises(PixelSettingsError) as caught:
        ColorCorrection(**settings)
    assert str(caught.value) == message


def test_a_malformed_frame_is_refused_before_correction():
    with pytest.raises(FrameError, match="pixel 0"):
        ColorCorrection(gamma=2.2).apply(((-1, 0, 0),))
