from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from homeworlds.pixels import (
    BackgroundPixelOutput,
    ColorCorrection,
    FrameError,
    MemorySink,
    OutputStats,
    PixelOutput,
    PixelSink,
    PixelSinkClosed,
    blank,
)

from .helpers import BLUE, GREEN, OFF, RED, FakeClock

FPS = 50  # one write per 20 ms


def make_output(pixels: int = 2, correction: ColorCorrection | None = None,
                max_fps: float | None = FPS) -> tuple[PixelOutput, MemorySink, FakeClock]:
    clock = FakeClock()
    sink = MemorySink(pixels, clock=clock)
    return PixelOutput(sink, correction, max_fps=max_fps, clock=clock, sleep=clock.sleep), \
        sink, clock


def test_the_first_frame_is_written_at_once():
    output, sink, clock = make_output()
    assert output.submit((RED, OFF)) is True
    sink.assert_history([(100.0, (RED, OFF))])
    assert output.shown == (RED, OFF)
    assert output.stats == OutputStats(submitted=1, written=1)


def test_an_unchanged_frame_is_not_written_again():
    output, sink, clock = make_output()
    output.submit((RED, OFF))
    clock.advance(1.0)
    assert output.submit((RED, OFF)) is False
    assert output.submit([[255, 0, 0], [0, 0, 0]]) is False  # equal though spelt differently
    sink.assert_frames([(RED, OFF)])
    assert output.stats == OutputStats(submitted=3, written=1, unchanged=2)
    assert output.stats.skipped == 2


def test_frames_that_differ_only_before_correction_count_as_unchanged():
    # Brightness 0 makes every frame dark: nothing after the first write changes the LEDs.
    output, sink, clock = make_output(correction=ColorCorrection(brightness=0.0))
    output.submit((RED, OFF))
    clock.advance(1.0)
    output.submit((GREEN, BLUE))
    sink.assert_frames([blank(2)])
    assert output.stats.unchanged == 1


def test_correction_is_applied_before_the_sink():
    output, sink, _ = make_output(correction=ColorCorrection(brightness=0.5, gamma=2.2))
    output.submit(((255, 128, 0), OFF))
    sink.assert_frames([((128, 28, 0), OFF)])


def test_a_frame_too_soon_is_held_and_written_by_poll_when_due():
    output, sink, clock = make_output()
    output.submit((RED, OFF))
    clock.advance(0.005)
    assert output.submit((GREEN, OFF)) is False
    assert output.pending
    assert output.due_in() == pytest.approx(0.015)
    clock.advance(0.010)
    assert output.poll() is False  # 15 ms after the last write: still too soon
    clock.advance(0.005)
    assert output.poll() is True
    sink.assert_history([(100.0, (RED, OFF)), (100.02, (GREEN, OFF))])
    assert not output.pending
    assert output.due_in() is None
    assert output.poll() is False


def test_a_newer_frame_replaces_the_held_one():
    output, sink, clock = make_output()
    output.submit((RED, OFF))
    clock.advance(0.001)
    output.submit((GREEN, OFF))
    clock.advance(0.001)
    output.submit((BLUE, OFF))
    clock.advance(0.018)
    output.poll()
    sink.assert_frames([(RED, OFF), (BLUE, OFF)])
    assert output.stats == OutputStats(submitted=3, written=2, superseded=1)


def test_returning_to_the_shown_frame_cancels_the_held_one():
    output, sink, clock = make_output()
    output.submit((RED, OFF))
    clock.advance(0.001)
    output.submit((GREEN, OFF))  # held
    output.submit((RED, OFF))  # back to what is shown: nothing to write any more
    assert not output.pending
    clock.advance(1.0)
    assert output.poll() is False
    sink.assert_frames([(RED, OFF)])
    assert output.stats == OutputStats(submitted=3, written=1, unchanged=1, superseded=1)


def test_resubmitting_the_held_frame_keeps_it_held():
    output, sink, clock = make_output()
    output.submit((RED, OFF))
    output.submit((GREEN, OFF))
    output.submit((GREEN, OFF))
    assert output.stats == OutputStats(submitted=3, written=1, unchanged=1, held=1)


def test_a_submit_after_the_interval_writes_at_once():
    output, sink, clock = make_output()
    output.submit((RED, OFF))
    clock.advance(0.020)
    assert output.submit((GREEN, OFF)) is True
    clock.advance(0.020)
    assert output.submit((BLUE, OFF)) is True
    sink.assert_history([(100.0, (RED, OFF)), (100.02, (GREEN, OFF)), (100.04, (BLUE, OFF))])


def test_writes_never_come_closer_than_the_interval():
    output, sink, clock = make_output()
    colours = [RED, GREEN, BLUE, OFF]
    for step in range(200):
        output.submit((colours[step % 4], OFF))
        output.poll()
        clock.advance(0.003)
    times = [shown.time for shown in sink.history]
    assert len(times) > 20
    assert all(later - earlier >= 0.020 - 1e-9 for earlier,
               later in zip(times, times[1:], strict=False))


def test_flush_sleeps_out_the_interval_then_writes():
    output, sink, clock = make_output()
    output.submit((RED, OFF))
    clock.advance(0.004)
    output.submit((GREEN, OFF))
    assert output.flush() is True
    assert clock.slept == [pytest.approx(0.016)]
    sink.assert_history([(100.0, (RED, OFF)), (100.02, (GREEN, OFF))])
    assert output.flush() is False


def test_no_rate_limit_writes_every_change():
    output, sink, _ = make_output(max_fps=None)
    for colour in (RED, GREEN, BLUE):
        assert output.submit((colour, OFF)) is True
    assert len(sink.frames) == 3


def test_close_blanks_the_leds_and_drops_a_held_frame():
    output, sink, clock = make_output()
    output.submit((RED, OFF))
    clock.advance(0.001)
    output.submit((GREEN, OFF))
    output.close()
    # The blank still keeps the 20 ms spacing after the last write.
    sink.assert_history([(100.0, (RED, OFF)), (100.02, blank(2))])
    assert sink.closed and output.closed
    output.close()
    with pytest.raises(PixelSinkClosed):
        output.submit((RED, OFF))
    with pytest.raises(PixelSinkClosed):
        output.poll()


def test_the_context_manager_blanks_on_an_exception():
    output, sink, clock = make_output()
    with pytest.raises(RuntimeError, match="renderer crashed"), output:
        output.submit((RED, GREEN))
        clock.advance(1.0)
        raise RuntimeError("renderer crashed")
    assert sink.last == blank(2)
    assert sink.closed


def test_a_malformed_frame_is_refused_without_counting_it():
    output, sink, _ = make_output()
    with pytest.raises(FrameError, match="frame has 1 pixels but the chain has 2"):
        output.submit((RED,))
    with pytest.raises(FrameError, match="pixel 1 is"):
        output.submit((RED, (0, 0, 999)))
    assert output.stats == OutputStats()
    assert sink.frames == ()


class FlakySink(PixelSink):
    kind = "flaky"

    def __init__(self, pixel_count: int):
        super().__init__(pixel_count)
        self.fail = False
        self.shown: list = []

    def _write(self, frame):
        if self.fail:
            raise OSError("SPI transfer failed")
        self.shown.append(frame)


def test_a_failed_write_keeps_the_frame_held_for_the_next_try():
    clock = FakeClock()
    sink = FlakySink(1)
    output = PixelOutput(sink, max_fps=FPS, clock=clock)
    sink.fail = True
    with pytest.raises(OSError, match="SPI transfer failed"):
        output.submit((RED,))
    assert output.pending and output.shown is None
    sink.fail = False
    assert output.poll() is True
    assert sink.shown == [(RED,)]


@pytest.mark.parametrize("fps", [0, -5, float("inf"), "60"])
def test_max_fps_must_be_positive(fps):
    with pytest.raises(ValueError, match="max_fps must be a positive number"):
        PixelOutput(MemorySink(1), max_fps=fps)


actions = st.lists(st.tuples(st.sampled_from(["submit", "poll", "flush"]),
                             st.sampled_from([RED, GREEN, BLUE, OFF]),
                             st.sampled_from([0.0, 0.001, 0.007, 0.02, 0.05])), max_size=60)


@settings(max_examples=150, deadline=None)
@given(actions)
def test_every_submitted_frame_is_accounted_for(steps):
    output, sink, clock = make_output(pixels=1)
    for action, colour, pause in steps:
        if action == "submit":
            output.submit((colour,))
        elif action == "poll":
            output.poll()
        else:
            output.flush()
        clock.advance(pause)
        stats = output.stats
        assert stats.submitted == stats.written + stats.unchanged + stats.superseded + stats.held
        assert stats.written == len(sink.frames)
    frames = sink.frames
    # consecutive writes always differ
    assert all(a != b for a, b in zip(frames, frames[1:], strict=False))
    times = [shown.time for shown in sink.history]
    assert all(b - a >= 0.02 - 1e-9 for a, b in zip(times, times[1:], strict=False))


# --------------------------------------------------------------------------- background thread


def test_background_output_writes_the_latest_frame():
    sink = MemorySink(1)
    with BackgroundPixelOutput(PixelOutput(sink, max_fps=1000)) as output:
        for colour in (RED, GREEN, BLUE):
            output.submit((colour,))
        assert output.flush(timeout=10)
        assert sink.last == (BLUE,)
        stats = output.stats
        assert stats.submitted == 3
        assert stats.submitted == stats.written + stats.unchanged + stats.superseded + stats.held
    assert sink.last == (OFF,)
    assert sink.closed


def test_background_output_blanks_on_an_exception():
    sink = MemorySink(1)
    with pytest.raises(KeyError), BackgroundPixelOutput(PixelOutput(sink)) as output:
        output.submit((RED,))
        raise KeyError("boom")
    assert sink.last == (OFF,)
    with pytest.raises(PixelSinkClosed):
        output.submit((RED,))


def test_background_output_checks_frames_in_the_callers_thread():
    with BackgroundPixelOutput(PixelOutput(MemorySink(2))) as output, \
            pytest.raises(FrameError, match="frame has 1 pixels"):
        output.submit((RED,))


class StuckSink(PixelSink):
    """Blocks inside a write until released, to show submit never waits for one."""

    kind = "stuck"

    def __init__(self, pixel_count: int):
        super().__init__(pixel_count)
        self.entered = threading.Event()
        self.release = threading.Event()
        self.shown: list = []

    def _write(self, frame):
        if frame != blank(self.pixel_count):
            self.entered.set()
            assert self.release.wait(10), "test never released the sink"
        self.shown.append(frame)


def test_background_submit_does_not_wait_for_a_slow_write():
    sink = StuckSink(1)
    output = BackgroundPixelOutput(PixelOutput(sink, max_fps=None))
    output.submit((RED,))
    assert sink.entered.wait(10)
    # The writer is stuck inside the sink until released below; had these submits waited
    # for it, the sink would have given up and the flush would raise.
    output.submit((GREEN,))
    output.submit((BLUE,))
    sink.release.set()
    assert output.flush(timeout=10)
    output.close()
    assert sink.shown == [(RED,), (BLUE,), (OFF,)]
    assert output.stats.superseded == 1


def test_a_writer_failure_reaches_the_caller():
    sink = FlakySink(1)
    sink.fail = True
    output = BackgroundPixelOutput(PixelOutput(sink))
    output.submit((RED,))
    with pytest.raises(RuntimeError, match="the LED writer thread failed: SPI transfer failed"):
        output.flush(timeout=10)
    sink.fail = False
    with pytest.raises(RuntimeError, match="writer thread failed"):
        output.close()
    assert sink.shown == [(OFF,)]  # closed (blanked) all the same
