"""Losing the table: silence, unplugging, restarts, backoff, close."""

from __future__ import annotations

from homeworlds.link import (
    LinesLost,
    LinkDown,
    LinkState,
    LinkUp,
    PipeTransport,
    SerialTransport,
    SnapshotReceived,
    TableLink,
    ZoneChanged,
)
from tablefw import protocol as p

from .fakes import A, B, Bench, FakeClock, of_type


def go_silent(bench: Bench) -> None:
    bench.mcu.answer_sync = False
    bench.mcu.answer_ping = False


def wait_for_down(bench: Bench, step: float = 0.1, limit: int = 100) -> LinkDown:
    for _ in range(limit):
        downs = of_type(bench.advance(step), LinkDown)
        if downs:
            return downs[0]
    raise AssertionError("the link never went down")


def test_heartbeat_silence_takes_the_link_down_and_reconnects_with_backoff():
    bench = Bench()
    bench.connect()
    go_silent(bench)

    down = wait_for_down(bench)
    assert down.reason == "no data for 3.0 s"
    assert down.retry_in == 0.2
    assert bench.link.state is LinkState.WAITING
    assert not bench.host_end.is_open
    assert bench.link.hello is None and bench.link.zones is None
    # Before the silence ran out, a PING tried to get an answer.
    assert bench.mcu.received_of(p.Ping)

    # Each further silent attempt waits longer: 0.5, 1, 2, 5, 5 s.
    delays = []
    for _ in range(5):
        delays.append(wait_for_down(bench).retry_in)
    assert delays == [0.5, 1.0, 2.0, 5.0, 5.0]
    assert bench.host_end.opens == 6
    assert bench.link.stats.reconnects == 6

    # Every attempt asked for a snapshot; once the table answers, it is back.
    syncs = len(bench.mcu.received_of(p.Sync))
    bench.mcu.answer_sync = bench.mcu.answer_ping = True
    events = []
    for _ in range(60):
        events += bench.advance(0.1)
    assert [type(e) for e in events] == [LinkUp, SnapshotReceived]
    assert len(bench.mcu.received_of(p.Sync)) > syncs
    # A working link resets the backoff.
    go_silent(bench)
    assert wait_for_down(bench).retry_in == 0.2


def test_no_reconnect_before_the_backoff_delay():
    bench = Bench(backoff=(2.0,))
    bench.connect()
    go_silent(bench)
    wait_for_down(bench)
    opens = bench.host_end.opens
    bench.advance(1.9)
    assert bench.host_end.opens == opens
    assert bench.link.retry_at is not None
    bench.advance(0.2)
    assert bench.host_end.opens == opens + 1


def test_garbage_only_hints_at_the_console_port():
    bench = Bench()
    bench.connect()
    bench.mcu.answer_sync = bench.mcu.answer_ping = False
    down = None
    for _ in range(40):
        bench.mcu.send_raw(b"Adafruit CircuitPython 9.2 on RP2040\r\n>>> ")
        downs = of_type(bench.advance(0.1), LinkDown)
        if downs:
            down = downs[0]
            break
    assert down is not None
    assert down.reason.startswith("no data for 3.0 s")
    assert "console port" in down.reason


def test_unplugged_device_goes_down_and_is_retried_until_back():
    bench = Bench()
    bench.connect()
    bench.host_end.unplug()

    (down,) = bench.poll()
    assert isinstance(down, LinkDown)
    assert "device unplugged" in down.reason
    assert down.retry_in == 0.2

    # Opening fails while unplugged: reported, retried with growing delays.
    (again,) = bench.advance(0.2)
    assert isinstance(again, LinkDown)
    assert again.reason.startswith("cannot open table:host")
    assert again.retry_in == 0.5
    assert bench.link.stats.open_failures == 1

    bench.host_end.replug()
    bench.mcu.set_zone(1, [A], report=False)  # moved while unplugged
    received = len(bench.mcu.received)
    events = bench.advance(0.5)
    assert [type(e) for e in events] == [LinkUp, SnapshotReceived]
    assert events[1].changed == (1,)
    # A new connection: the host numbers its lines from 0 again, SYNC first.
    first = bench.mcu.received[received]
    assert isinstance(first, p.Sync) and first.seq == 0


def test_a_write_failure_is_a_link_down_too():
    bench = Bench()
    bench.connect()
    bench.link.ping()
    bench.host_end.unplug("write failed: broken pipe")
    events = bench.poll()
    assert [type(e) for e in events] == [LinkDown]
    assert "broken pipe" in events[0].reason


def test_a_factory_that_raises_is_a_link_down():
    clock = FakeClock()
    link = TableLink(lambda: SerialTransport("/nonexistent/ttyACM9"), clock=clock)
    (down,) = link.poll(0)
    assert isinstance(down, LinkDown)
    assert "cannot open /nonexistent/ttyACM9" in down.reason
    assert "plugged in" in down.reason
    assert link.state is LinkState.WAITING
    assert link.poll(0) == []  # nothing until the retry is due
    clock.advance(0.2)
    assert isinstance(link.poll(0)[0], LinkDown)
    assert link.stats.open_failures == 2


def test_mcu_reset_mid_stream_is_a_reconnect_with_sync():
    bench = Bench()
    bench.connect()
    bench.mcu.set_zone(0, [A])
    bench.exchange()
    syncs = len(bench.mcu.received_of(p.Sync))

    bench.mcu.tags = [(), (), (B,), ()]  # what the rebooted firmware sees
    bench.mcu.reboot()                   # sequence numbers restart at 0
    events = bench.poll()
    assert [type(e) for e in events] == [LinkDown, LinkUp, SnapshotReceived]
    down, up, snap = events
    assert "restarted" in down.reason
    assert down.retry_in == 0.0
    assert up.hello.zones == 4
    assert snap.changed == (0, 2)
    assert of_type(events, LinesLost) == []  # a restart is not lost lines
    stats = bench.link.stats
    assert stats.mcu_restarts == 1 and stats.reconnects == 1
    # The host asked for a snapshot of its own after the restart.
    bench.mcu.service()
    assert len(bench.mcu.received_of(p.Sync)) == syncs + 1
    bench.exchange()
    assert bench.link.table_known
    bench.mcu.set_zone(3, [A])
    assert of_type(bench.exchange(), ZoneChanged) == [ZoneChanged(3, frozenset({A}),
                                                                  at=bench.clock())]


def test_a_restarted_table_with_other_firmware_is_refused():
    bench = Bench()
    bench.connect()
    bench.mcu.protocol_version = p.PROTOCOL_VERSION + 1
    bench.mcu.reboot()
    events = bench.poll()
    assert [type(e).__name__ for e in events] == ["HandshakeRefused"]
    assert bench.link.state is LinkState.REFUSED


def test_close_reports_the_final_link_down_and_stops():
    bench = Bench()
    bench.connect()
    (down,) = bench.link.close()
    assert down == LinkDown(reason="closed by the host", retry_in=None, at=bench.clock())
    assert bench.link.state is LinkState.CLOSED
    assert not bench.host_end.is_open
    bench.clock.advance(10)
    assert bench.link.poll(0) == []
    assert bench.host_end.opens == 1
    assert bench.link.close() == []


def test_context_manager_closes_the_port():
    host, device = PipeTransport.pair()
    with TableLink(lambda: host, clock=FakeClock()) as link:
        link.poll(0)
        assert host.is_open
    assert not host.is_open
