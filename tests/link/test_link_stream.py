"""A connected link: zone changes, buttons, heartbeats, faults, bad lines, lost lines."""

from __future__ import annotations

import pytest

from homeworlds.link import (
    ButtonPressed,
    ConfigReported,
    Heartbeat,
    LinesLost,
    LinkState,
    McuStats,
    PongReceived,
    ReaderFault,
    SnapshotReceived,
    ZoneChanged,
)
from tablefw import protocol as p

from .fakes import A, B, Bench, C, of_type


@pytest.fixture
def bench() -> Bench:
    bench = Bench()
    bench.connect()
    assert bench.link.table_known
    bench.events.clear()
    return bench


def test_zone_lines_become_zone_changed(bench):
    bench.mcu.set_zone(0, [B, A])
    bench.mcu.set_zone(3, [C])
    bench.mcu.set_zone(0, [])
    events = bench.exchange()
    at = bench.clock()
    assert events == [
        ZoneChanged(0, frozenset({A, B}), at=at),
        ZoneChanged(3, frozenset({C}), at=at),
        ZoneChanged(0, frozenset(), at=at),
    ]
    assert bench.link.zones == {0: frozenset(), 1: frozenset(), 2: frozenset(), 3: frozenset({C})}
    assert bench.link.stats.zone_changes == 3


def test_a_repeated_zone_line_changes_nothing(bench):
    bench.mcu.set_zone(1, [A])
    bench.mcu.set_zone(1, [A])
    events = bench.exchange()
    assert len(of_type(events, ZoneChanged)) == 1


def test_periodic_snapshot_says_which_zones_changed(bench):
    bench.mcu.set_zone(2, [A], report=False)  # a change whose ZONE line the host never got
    bench.mcu.send_snapshot()
    (snap,) = bench.exchange()
    assert isinstance(snap, SnapshotReceived)
    assert snap.changed == (2,)
    assert bench.link.zones[2] == frozenset({A})


def test_zone_beyond_the_announced_count_is_dropped(bench):
    bench.mcu.send(p.ZoneState(7, [A]))
    assert bench.exchange() == []
    assert bench.link.stats.dropped["out_of_range"] == 1
    assert "ZONE 7" in bench.link.stats.last_error


def test_buttons_heartbeats_and_faults(bench):
    bench.mcu.press(1)
    bench.mcu.heartbeat(uptime_ms=4200)
    bench.mcu.send(p.ErrorReport(0, "TIMEOUT", "zone 2: no answer"))
    bench.mcu.send(p.ErrorReport(None, "CFG", "unknown setting 'x'"))
    bench.mcu.send(p.ButtonPress(5, 1))  # the table has 2 buttons
    at = bench.clock()
    assert bench.exchange() == [
        ButtonPressed(1, 1, at=at),
        Heartbeat(McuStats(4200, 500, 120, 33, (0,), (), 0, 0), at=at),
        ReaderFault(0, "TIMEOUT", "zone 2: no answer", at=at),
        ReaderFault(None, "CFG", "unknown setting 'x'", at=at),
    ]
    assert bench.link.stats.dropped["out_of_range"] == 1


def test_corrupted_lines_are_dropped_counted_and_decoding_goes_on(bench):
    mcu = bench.mcu
    first = mcu.encoder.seq
    good = mcu.encoder.encode(p.ZoneState(0, [A]))
    mcu.send_raw(good.replace(b"ZONE 0", b"ZONE 1"))        # CRC no longer matches
    mcu.send_raw(b"\x00\xff\xfe garbage\n")                 # non-ASCII noise
    mcu.send_raw(b"hello from the REPL\r\n")                # no frame at all
    mcu.send_raw(b"7" * 600 + b"\n")                        # overlong
    mcu.send_raw(p.frame(mcu.encoder.seq, "WHAT 1 2"))      # a type this host does not know
    mcu.encoder.seq += 1
    mcu.set_zone(2, [B])
    mcu.press(0)
    events = bench.exchange()

    stats = bench.link.stats
    assert stats.dropped["bad_crc"] == 1
    assert stats.dropped["non_ascii"] == 1
    assert stats.dropped["bad_syntax"] == 1
    assert stats.dropped["overlong"] == 1
    assert stats.dropped["unknown_type"] == 1
    assert stats.dropped_total == 5
    # The line with the bad CRC took a sequence number with it: lines were
    # lost, so the host resynced and the snapshot brought zone 2.
    at = bench.clock()
    assert [type(e) for e in events] == [LinesLost, ButtonPressed, SnapshotReceived]
    assert events[0] == LinesLost(1, first, first + 1, at=at)
    assert events[1] == ButtonPressed(0, 1, at=at)
    assert events[2].changed == (2,)
    assert bench.link.table_known
    assert bench.link.zones[2] == frozenset({B})
    assert bench.link.zones[0] == frozenset()  # the corrupted ZONE 0 never applied
    # And it goes on decoding.
    mcu.set_zone(3, [C])
    assert bench.exchange() == [ZoneChanged(3, frozenset({C}), at=at)]


def test_a_sequence_gap_sends_sync_and_waits_for_the_snapshot(bench):
    mcu = bench.mcu
    syncs_before = len(mcu.received_of(p.Sync))
    mcu.skip_lines(3)
    mcu.set_zone(1, [A])  # arrives, but after lost lines: not trusted alone
    events = bench.poll()
    assert [type(e) for e in events] == [LinesLost]
    assert events[0].lost == 3
    assert bench.link.state is LinkState.SYNCING
    assert not bench.link.table_known
    assert bench.link.stats.gaps == 1
    assert bench.link.stats.lines_lost == 3

    sent = mcu.service()
    assert any(isinstance(m, p.Sync) for m in sent)
    assert len(mcu.received_of(p.Sync)) == syncs_before + 1
    events = bench.exchange()
    assert [type(e) for e in events] == [SnapshotReceived]
    assert events[0].changed == (1,)
    assert bench.link.table_known


def test_several_gaps_in_a_row_send_one_sync(bench):
    mcu = bench.mcu
    before = len(mcu.received_of(p.Sync))
    for _ in range(5):
        mcu.skip_lines(1)
        mcu.heartbeat()
    events = bench.poll()
    assert len(of_type(events, LinesLost)) == 5
    mcu.answer_sync = False
    mcu.service()
    assert len(mcu.received_of(p.Sync)) == before + 1
    # Unanswered, the SYNC is repeated a second later.
    bench.advance(1.0)
    assert len(mcu.received_of(p.Sync)) == before + 2


def test_a_lost_snapshot_part_is_recovered(bench):
    mcu = bench.mcu
    for zone, uid in ((0, A), (1, B), (2, C)):
        mcu.set_zone(zone, [uid], report=False)
    lines = p.Encoder(mcu.encoder.seq, max_line=64).lines(p.Snapshot(9, mcu.tags))
    assert len(lines) > 2
    mcu.encoder.seq += len(lines)
    mcu.send_raw(b"".join(lines[:1] + lines[2:]))  # the second part is lost
    mcu.heartbeat()
    events = bench.exchange()
    assert of_type(events, LinesLost)
    assert bench.link.stats.dropped["snap_parts"] >= 1
    # The SYNC's answer brought the full picture.
    assert bench.link.table_known
    assert bench.link.zones == {0: {A}, 1: {B}, 2: {C}, 3: set()}


def test_ping_comes_back_as_pong_with_a_round_trip(bench):
    token = bench.link.ping()
    bench.poll()
    bench.clock.advance(0.004)
    bench.mcu.service()
    (pong,) = bench.poll()
    assert pong == PongReceived(token, pong.rtt, at=bench.clock())
    assert pong.rtt == pytest.approx(0.004)


def test_configure_is_sent_and_resent_after_reconnect(bench):
    bench.link.configure(hb_ms=500)
    events = bench.exchange()
    assert [type(e) for e in events] == [ConfigReported]
    assert events[0].settings["hb_ms"] == 500
    assert bench.mcu.received_of(p.Config)[-1].as_dict() == {"hb_ms": 500}

    bench.mcu.settings["hb_ms"] = 1000  # the board restarted with its defaults
    bench.mcu.reboot()
    events = bench.exchange()
    assert of_type(events, ConfigReported)[-1].settings["hb_ms"] == 500


def test_configure_rejects_bad_values_at_once(bench):
    with pytest.raises(ValueError, match="hb_ms"):
        bench.link.configure(hb_ms=-1)
    with pytest.raises(ValueError, match="Bad"):
        bench.link.configure(Bad=1)


def test_requested_sync_brings_a_snapshot_and_is_not_taken_for_a_restart(bench):
    bench.link.request_sync()
    events = bench.exchange()
    assert [type(e) for e in events] == [SnapshotReceived]
    assert events[0].changed == ()
    assert bench.link.stats.mcu_restarts == 0
