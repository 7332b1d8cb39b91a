from __future__ import annotations

import pytest

from homeworlds.pixels import FrameError, MemorySink, PixelSinkClosed, ShownFrame, blank

from .helpers import GREEN, OFF, RED, FakeClock


def test_records_every_frame_with_the_time_it_was_shown():
    clock = FakeClock(5.0)
    sink = MemorySink(2, clock=clock)
    sink.show((RED, OFF))
    clock.advance(0.25)
    sink.show((RED, GREEN))
    assert sink.history == (ShownFrame(5.0, (RED, OFF)), ShownFrame(5.25, (RED, GREEN)))
    assert sink.frames == ((RED, OFF), (RED, GREEN))
    assert sink.last == (RED, GREEN)
    assert sink.pixel(1) == GREEN


def test_close_shows_a_blank_frame_and_is_idempotent():
    sink = MemorySink(3)
    sink.show((RED, RED, RED))
    sink.close()
    sink.close()
    assert sink.closed
    assert sink.frames == ((RED, RED, RED), blank(3))
    with pytest.raises(PixelSinkClosed):
        sink.show(blank(3))


def test_context_manager_blanks_on_an_exception():
    with pytest.raises(ZeroDivisionError), MemorySink(1) as sink:
        sink.show((GREEN,))
        1 / 0  # noqa: B018
    assert sink.last == (OFF,)


def test_assert_frames_passes_on_exactly_the_shown_frames():
    sink = MemorySink(2)
    sink.show((RED, OFF))
    sink.show([[0, 255, 0], [0, 0, 0]])
    sink.assert_frames([(RED, OFF), (GREEN, OFF)])


def test_assert_frames_names_the_first_differing_pixel():
    sink = MemorySink(2)
    sink.show((RED, OFF))
    sink.show((RED, GREEN))
    with pytest.raises(AssertionError, match=r"frame 1 of 2: pixel 1 shows \(0, 255, 0\), "
                                             r"expected \(0, 0, 0\)"):
        sink.assert_frames([(RED, OFF), (RED, OFF)])


def test_assert_frames_reports_missing_and_extra_frames():
    sink = MemorySink(1)
    sink.show((RED,))
    with pytest.raises(AssertionError, match=r"1 frames were shown, expected 2 \(first missing"):
        sink.assert_frames([(RED,), (GREEN,)])
    with pytest.raises(AssertionError, match=r"1 frames were shown, expected 0 \(first unexpected"):
        sink.assert_frames([])


def test_assert_history_checks_times_too():
    clock = FakeClock(1.0)
    sink = MemorySink(1, clock=clock)
    sink.show((RED,))
    clock.advance(0.5)
    sink.show((GREEN,))
    sink.assert_history([(1.0, (RED,)), (1.5, (GREEN,))])
    with pytest.raises(AssertionError, match="frame 1 was shown at 1.5, expected 1.4"):
        sink.assert_history([(1.0, (RED,)), (1.4, (GREEN,))])


def test_clear_history_forgets_what_was_shown():
    sink = MemorySink(1)
    sink.show((RED,))
    sink.clear_history()
    assert sink.frames == ()
    assert sink.last is None
    with pytest.raises(LookupError):
        sink.pixel(0)


def test_a_frame_of_the_wrong_length_is_refused():
    sink = MemorySink(3)
    with pytest.raises(FrameError, match="frame has 2 pixels but the chain has 3"):
        sink.show((RED, RED))
    assert sink.frames == ()


@pytest.mark.parametrize("count", [0, -1, 2.5, True])
def test_pixel_count_must_be_a_positive_whole_number(count):
    with pytest.raises(ValueError, match="memory sink: pixel_count must be a whole number"):
        MemorySink(count)
