"""Connecting: SYNC first, HELLO checked, snapshot before the table is known."""

from __future__ import annotations

from homeworlds.link import (
    HandshakeRefused,
    LinkDown,
    LinkState,
    LinkUp,
    McuInfo,
    SnapshotReceived,
    ZoneChanged,
)
from tablefw import protocol as p

from .fakes import A, B, Bench, of_type


def test_handshake_reports_link_up_then_the_snapshot():
    bench = Bench()
    bench.mcu.set_zone(1, [A], report=False)
    events = bench.connect()

    assert [type(e) for e in events] == [LinkUp, SnapshotReceived]
    up, snap = events
    assert up.hello == McuInfo("0.1.0", p.PROTOCOL_VERSION, 4, 1, 2)
    assert up.port == "table:host"
    assert snap.zones == {0: frozenset(), 1: frozenset({A}), 2: frozenset(), 3: frozenset()}
    assert snap.changed == (0, 1, 2, 3)
    assert bench.link.state is LinkState.READY
    assert bench.link.table_known
    assert bench.link.hello == up.hello
    assert bench.link.zones == snap.zones
    # Events carry the link clock.
    assert up.at == snap.at == bench.clock()


def test_the_host_sends_sync_first_on_connect():
    bench = Bench()
    bench.poll()
    sent = bench.mcu.service()
    assert isinstance(sent[0], p.Sync)
    assert sent[0].seq == 0
    assert any(isinstance(m, p.Ping) for m in sent)
    assert bench.link.state is LinkState.HANDSHAKE
    assert bench.link.stats.syncs_sent == 1


def test_a_table_in_warm_up_answers_ping_and_announces_itself_later():
    bench = Bench()
    bench.mcu.answer_sync = False  # the firmware ignores SYNC until its first picture
    for _ in range(5):
        assert of_type(bench.advance(1.0), LinkDown) == []
    assert bench.link.state is LinkState.HANDSHAKE
    # SYNC is repeated while no HELLO comes.
    assert len(bench.mcu.received_of(p.Sync)) >= 5
    bench.mcu.announce()
    events = bench.exchange()
    assert [type(e) for e in events] == [LinkUp, SnapshotReceived]


def test_zone_changes_before_the_first_snapshot_are_not_reported():
    bench = Bench()
    bench.mcu.answer_sync = False
    bench.poll()
    bench.mcu.service()
    bench.mcu.send(bench.mcu.hello())
    bench.mcu.set_zone(2, [A])
    events = bench.exchange()
    assert [type(e) for e in events] == [LinkUp]
    assert bench.link.state is LinkState.SYNCING
    assert not bench.link.table_known
    assert bench.link.zones is None
    assert bench.link.stats.zone_updates_ignored == 1

    bench.mcu.send_snapshot()
    bench.mcu.set_zone(2, [A, B])
    events = bench.exchange()
    assert [type(e) for e in events] == [SnapshotReceived, ZoneChanged]
    assert events[0].zones[2] == frozenset({A})
    assert events[1] == ZoneChanged(2, frozenset({A, B}), at=bench.clock())


def test_other_protocol_version_is_refused_naming_both_versions():
    bench = Bench(mcu_options={"protocol_version": p.PROTOCOL_VERSION + 1})
    events = bench.connect()

    assert [type(e) for e in events] == [HandshakeRefused]
    refused = events[0]
    assert isinstance(refused, LinkDown)
    assert f"protocol version {p.PROTOCOL_VERSION + 1}" in refused.reason
    assert f"version {p.PROTOCOL_VERSION}" in refused.reason.replace(
        f"version {p.PROTOCOL_VERSION + 1}", "")
    assert "update the host" in refused.reason
    assert refused.hello.protocol == p.PROTOCOL_VERSION + 1
    assert bench.link.state is LinkState.REFUSED
    assert not bench.host_end.is_open
    assert bench.link.stats.handshake_refusals == 1
    assert bench.link.hello is None


def test_older_firmware_is_told_to_reflash():
    bench = Bench(mcu_options={"protocol_version": 0})
    refused = of_type(bench.connect(), HandshakeRefused)[0]
    assert "protocol version 0" in refused.reason
    assert "flash" in refused.reason


def test_a_refused_table_is_retried_slowly_and_accepted_once_fixed():
    bench = Bench(mcu_options={"protocol_version": 7}, refused_retry=15.0)
    bench.connect()
    assert bench.host_end.opens == 1
    # A minute of polling ten times a second: no reconnect storm.
    for _ in range(600):
        bench.advance(0.1)
    assert bench.host_end.opens <= 5
    assert bench.link.stats.handshake_refusals == bench.host_end.opens
    assert of_type(bench.events, LinkUp) == []

    bench.mcu.protocol_version = p.PROTOCOL_VERSION  # reflashed
    events = []
    for _ in range(160):
        events += bench.advance(0.1)
    assert [type(e) for e in events] == [LinkUp, SnapshotReceived]
    assert bench.link.table_known


def test_zone_count_different_from_the_layout_is_refused():
    bench = Bench(expected_zones=14, mcu_options={"zones": 12})
    events = bench.connect()
    assert [type(e) for e in events] == [HandshakeRefused]
    assert "12 zones" in events[0].reason
    assert "layout has 14" in events[0].reason
    assert bench.link.state is LinkState.REFUSED


def test_without_a_layout_any_zone_count_is_accepted():
    bench = Bench(expected_zones=None, mcu_options={"zones": 9})
    events = bench.connect()
    assert [type(e) for e in events] == [LinkUp, SnapshotReceived]
    assert len(events[1].zones) == 9


def test_a_snapshot_with_another_zone_count_than_hello_is_dropped():
    bench = Bench()
    bench.mcu.answer_sync = False
    bench.poll()
    bench.mcu.send(bench.mcu.hello())
    bench.mcu.send(p.Snapshot(0, [(), ()]))
    events = bench.exchange()
    assert [type(e) for e in events] == [LinkUp]
    assert bench.link.stats.dropped["bad_snapshot"] == 1
    assert "2 zones" in bench.link.stats.last_error
    assert not bench.link.table_known


def test_lines_before_hello_do_not_count_as_the_table():
    bench = Bench()
    bench.mcu.answer_sync = False
    bench.poll()
    bench.mcu.send_snapshot()
    bench.mcu.press(0)
    events = bench.exchange()
    assert events == []
    assert bench.link.stats.dropped["before_hello"] == 2
    assert bench.link.state is LinkState.HANDSHAKE
