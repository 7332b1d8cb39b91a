"""The live page's clocks and turn timer do not jump when the host's wall clock steps
(issue 27, defect 9): the feed's moments (a snapshot's, a turn's start) and the display's
``clock`` events come from the host's steady clock, the wall time at an anchor plus the
monotonic time since; the page counts on from them with ``performance.now()``."""

from __future__ import annotations

import time

import pytest

from homeworlds.clock import SteadyClock
from homeworlds.feed import SnapshotEvent, TurnEvent
from homeworlds.web.live import attach_feed
from tests.test_session_clocks import SETUP, Table

pytest.importorskip("starlette")

from homeworlds.web.app import _clock  # noqa: E402


def _host_now() -> float:
    """The host's time as a page reads it: the data of a ``clock`` event."""
    return float(_clock().split("data: ")[1])


def test_a_wall_clock_step_of_an_hour_moves_neither_the_turn_timer_nor_a_turns_time(
        monkeypatch):
    table = Table()
    events: list = []
    _hub, producer, _control, _queue = attach_feed(table.session, table="t",
                                                   rules_name="looney", sinks=[events.append])
    table.play(SETUP[0])
    started = producer.latest.game.turn_started_at
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 3600.0)  # date -s '+1 hour'
    # The page's turn timer: the host's time now minus the turn's start.
    assert -0.01 <= _host_now() - started < 60, "the turn timer jumped by the wall clock's step"
    table.play(SETUP[1])
    turn = [e for e in events if isinstance(e, TurnEvent)][-1]
    assert turn.elapsed_ms is not None and 0 <= turn.elapsed_ms < 60_000
    snapshots = [e for e in events if isinstance(e, SnapshotEvent)]
    assert [s.at for s in snapshots] == sorted(s.at for s in snapshots)
    assert -0.01 <= _host_now() - snapshots[-1].at < 60


def test_the_steady_clock_counts_monotonic_time_from_its_anchor():
    wall, mono = [1_765_000_000.0], [50.0]
    clock = SteadyClock(monotonic=lambda: mono[0], wall=lambda: wall[0])
    assert clock() == 1_765_000_000.0
    wall[0] += 3600.0  # stepped
    mono[0] += 2.5
    assert clock() == 1_765_000_002.5


@pytest.mark.parametrize("change, words", [
    (lambda c: c["seats"][0].update(remaining_ms=-115_000), "remaining_ms: -115000 is out"),
    (lambda c: c["seats"][0].update(remaining_ms=10**12), "out of range"),
    (lambda c: c["seats"][1].update(delay_ms=-1), "delay_ms: -1 is out of range"),
    (lambda c: c["seats"][0].update(remaining_ms="many"), "is not a"),
    (lambda c: c.update(seats=[c["seats"][0]] * 9), "1 to 8 seats"),
    (lambda c: c.update(paused="<b>nap</b>"), "paused"),
    (lambda c: c["seats"][1].update(left="yes"), "left: 'yes' is not a"),
])
def test_clock_values_are_range_checked_where_a_feed_is_read(change, words):
    from homeworlds.feed import FeedError, event_from_json

    table = Table(mode="fischer", initial_s=60, increment_s=5)
    _hub, producer, _control, _queue = attach_feed(table.session, table="t",
                                                   rules_name="looney")
    for text in SETUP:
        table.play(text)
    data = producer.latest.to_json()
    assert event_from_json(data).clocks["seats"][0]["remaining_ms"] == 60_000
    change(data["clocks"])
    with pytest.raises(FeedError, match=words):
        event_from_json(data)


@pytest.mark.parametrize("moment", [float("nan"), -1.0, 1e15])
def test_a_snapshot_moment_that_is_no_time_is_refused(moment):
    from homeworlds.feed import FeedError, event_from_json

    table = Table()
    _hub, producer, _control, _queue = attach_feed(table.session, table="t",
                                                   rules_name="looney")
    table.play(SETUP[0])
    data = producer.latest.to_json()
    data["at"] = moment
    with pytest.raises(FeedError, match="snapshot.at"):
        event_from_json(data)
