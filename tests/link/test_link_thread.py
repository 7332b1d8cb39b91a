"""LinkThread: the same link on a background thread, events to a queue or a callback."""

from __future__ import annotations

import queue
import time

from homeworlds.link import (
    LinkDown,
    LinkThread,
    LinkUp,
    PipeTransport,
    SnapshotReceived,
    TableLink,
    ZoneChanged,
)
from tablefw import protocol as p

from .fakes import A, FakeMcu

DEADLINE = 10.0  # a guard against hanging, not a timing assertion


def serve_until(mcu: FakeMcu, done) -> None:
    deadline = time.monotonic() + DEADLINE
    while not done():
        assert time.monotonic() < deadline, "the link thread did not get there"
        mcu.service()
        time.sleep(0.001)


def next_event(events: queue.Queue, mcu: FakeMcu, kind: type):
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        mcu.service()
        try:
            event = events.get(timeout=0.01)
        except queue.Empty:
            continue
        if isinstance(event, kind):
            return event
    raise AssertionError(f"no {kind.__name__} arrived")


def test_events_arrive_on_the_queue_and_stop_closes_the_link():
    host, device = PipeTransport.pair()
    mcu = FakeMcu.on_pipe(device, zones=2)
    thread = LinkThread(TableLink(lambda: host), poll_interval=0.01).start()
    try:
        assert isinstance(next_event(thread.events, mcu, LinkUp), LinkUp)
        assert next_event(thread.events, mcu, SnapshotReceived).zones == {0: set(), 1: set()}
        mcu.set_zone(1, [A])
        assert next_event(thread.events, mcu, ZoneChanged).uids == {A}
        # Requests from this thread are carried out by the link thread.
        thread.link.request_sync()
        serve_until(mcu, lambda: len(mcu.received_of(p.Sync)) >= 2)
    finally:
        thread.stop()
    assert not thread.running
    assert not host.is_open
    last = None
    while not thread.events.empty():
        last = thread.events.get_nowait()
    assert last == LinkDown(reason="closed by the host", retry_in=None, at=last.at)


def test_a_failing_callback_does_not_stop_the_link():
    host, device = PipeTransport.pair()
    mcu = FakeMcu.on_pipe(device, zones=2)
    seen: list = []

    def callback(event):
        seen.append(event)
        if isinstance(event, LinkUp):
            raise RuntimeError("bug in the application")

    with LinkThread(TableLink(lambda: host), callback, poll_interval=0.01) as thread:
        serve_until(mcu, lambda: any(isinstance(e, SnapshotReceived) for e in seen))
        assert thread.callback_errors == 1
        assert thread.events.empty()  # with a callback, the queue stays unused
    assert isinstance(seen[-1], LinkDown)
