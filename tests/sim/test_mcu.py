"""The firmware core in-process, following the virtual table (virtual clock)."""

from __future__ import annotations

import pytest

from homeworlds.rules import Piece
from homeworlds.sim import SimClock, SimError, SimulatedMcu, corrupt_line
from tablefw import protocol as p

from .helpers import HostView

G3 = Piece.from_text("g3")
Y1 = Piece.from_text("y1")
R2 = Piece.from_text("r2")


@pytest.fixture
def mcu(table):
    return SimulatedMcu(table)


@pytest.fixture
def host():
    return HostView()


def started(mcu, host):
    """Run until the firmware has sent HELLO and its first snapshot."""
    assert mcu.run_until(lambda: mcu.scanner.ready)
    host.feed(mcu.read())
    return host


def test_hello_and_snapshot_show_the_starting_table(layout, table, mcu, host):
    assert mcu.read() == b""  # nothing before the warm-up
    started(mcu, host)
    hello, snapshot = host.messages[:2]
    assert hello == p.Hello("0.1.0", p.PROTOCOL_VERSION, layout.zone_count, 4, 2)
    assert hello.seq == 0
    assert isinstance(snapshot, p.Snapshot)
    assert snapshot.zones == table.zone_sets()
    assert host.decoder.dropped == 0


def test_zone_lines_follow_placed_and_lifted_tags(layout, table, mcu, host):
    started(mcu, host)
    star = layout.slots[3].star_zone
    ships = layout.ship_zone(3, 0)
    g3 = table.take_from_bank(G3)
    y1 = table.take_from_bank(Y1)
    table.place(g3, star)
    table.place(y1, ships)
    mcu.run_for(1000)
    host.feed(mcu.read())
    changes = {m.zone: m.uids for m in host.of_type(p.ZoneState)}
    assert changes[star] == (g3,)
    assert changes[ships] == (y1,)
    assert g3 not in changes[layout.bank_zone(G3)]
    assert host.zone_sets(layout.zone_count) == table.zone_sets()

    table.move(y1, layout.ship_zone(3, 1))
    mcu.run_for(1000)
    host.feed(mcu.read())
    assert host.zones[ships] == ()
    assert host.zones[layout.ship_zone(3, 1)] == (y1,)
    assert host.zone_sets(layout.zone_count) == table.zone_sets()


def test_a_tag_lying_for_less_than_the_debounce_is_not_reported(layout, table, mcu, host):
    started(mcu, host)
    uid = table.take_from_bank(G3)
    zone = layout.slots[0].star_zone
    table.place(uid, zone)
    mcu.step()  # scanned once (zone 0 comes first in the round), then gone again
    table.lift(uid)
    mcu.run_for(1000)
    host.feed(mcu.read())
    assert all(m.zone != zone for m in host.of_type(p.ZoneState))


def test_missed_reads_still_converge(layout, registry, table):
    mcu = SimulatedMcu(table, miss_rate=0.3, seed=7)
    host = HostView()
    for slot in (2, 3, 4):
        for piece in (G3, Y1, R2):
            table.place(table.take_from_bank(piece), layout.ship_zone(slot, 0))
    mcu.settle()
    # The host's view, built only from the lines, matches the table too.
    host.feed(mcu.read())
    assert host.zone_sets(layout.zone_count) == table.zone_sets()
    assert host.decoder.dropped == 0
    # The table did not change after the start: every ZONE line came from missed reads.
    assert host.of_type(p.ZoneState)


def test_same_seed_same_lines(layout, registry):
    from homeworlds.sim import VirtualTable

    def run(seed):
        table = VirtualTable(layout, registry)
        mcu = SimulatedMcu(table, miss_rate=0.4, seed=seed)
        table.place(table.take_from_bank(G3), 0)
        mcu.run_for(2000)
        return mcu.read()

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_host_requests_are_answered(mcu, host):
    started(mcu, host)
    mcu.write(host.request(p.Ping(42)))
    mcu.write(host.request(p.Config({"snap_ms": 0})))
    mcu.run_for(10)
    new = host.feed(mcu.read())
    assert p.Pong(42) in new
    answer = [m for m in new if isinstance(m, p.Config)][0]
    assert answer.as_dict()["snap_ms"] == 0


def test_heartbeats_and_periodic_snapshots(mcu, host):
    started(mcu, host)
    mcu.run_for(5100)
    host.feed(mcu.read())
    assert len(host.of_type(p.Heartbeat)) == 5
    assert len(host.of_type(p.Snapshot)) == 2  # the first one, then one every 5 s


def test_button_press_is_reported(table, mcu, host):
    started(mcu, host)
    table.press(1)
    table.press(1)
    host.feed(mcu.read())
    assert host.of_type(p.ButtonPress) == [p.ButtonPress(1, 1), p.ButtonPress(1, 2)]


def test_scan_time_sets_the_pace_of_virtual_time(table):
    mcu = SimulatedMcu(table, scan_time=10)
    mcu.step()
    assert mcu.clock() == 10
    mcu.set_scan_time(0)
    mcu.step()
    assert mcu.clock() == 10


def test_a_given_fake_clock_is_advanced_too(table):
    clock = SimClock(5000)
    mcu = SimulatedMcu(table, clock=clock, scan_time=3)
    mcu.run_for(30)
    assert clock() == 5030
    assert mcu.scanner.scans == 10


# ---------------------------------------------------------------- link faults


def test_corrupt_next_line_yields_a_line_the_codec_drops(table, mcu, host):
    started(mcu, host)
    next_seq = host.messages[-1].seq + 1
    table.corrupt_next_line()
    table.press(0)
    table.press(0)
    data = mcu.read()
    lines = data.splitlines(keepends=True)
    assert lines[0].split(b" ")[1] == b"bTN"  # one byte changed after the CRC was made
    new = host.feed(data)
    assert host.decoder.counts[p.BAD_CRC] == 1
    assert new[0] == p.SequenceGap(next_seq, next_seq + 1)
    assert new[1] == p.ButtonPress(0, 2)
    assert mcu.lines_corrupted == 1


def test_corrupt_line_changes_one_printable_byte():
    line = p.encode(p.ZoneState(3, []), seq=58)
    bad = corrupt_line(line)
    assert len(bad) == len(line) and bad != line
    assert sum(a != b for a, b in zip(bad, line, strict=True)) == 1
    assert bad.isascii() and bad.endswith(b"\n")
    with pytest.raises(p.ProtocolError) as info:
        p.parse_line(bad[:-1])
    assert info.value.reason == p.BAD_CRC


def test_drop_lines_causes_a_sequence_gap(table, mcu, host):
    started(mcu, host)
    next_seq = host.messages[-1].seq + 1
    table.drop_lines(2)
    for _ in range(3):
        table.press(0)
    new = host.feed(mcu.read())
    assert new == [p.SequenceGap(next_seq, next_seq + 2), p.ButtonPress(0, 3)]
    assert mcu.lines_dropped == 2


def test_unplug_is_silence_and_replug_a_fresh_hello(layout, table, mcu, host):
    started(mcu, host)
    mcu.run_for(2500)
    host.feed(mcu.read())
    last_seq = host.messages[-1].seq
    assert last_seq > 2
    table.unplug()
    assert not mcu.plugged
    table.place(table.take_from_bank(G3), 0)
    table.press(0)  # lost: the board is off
    mcu.write(host.request(p.Ping(1)))  # lost too
    mcu.run_for(5000)
    assert mcu.read() == b""
    table.replug()
    mcu.run_for(2000)
    new = host.feed(mcu.read())
    assert isinstance(new[0], p.Hello) and new[0].seq == 0  # numbering restarts
    assert isinstance(new[1], p.Snapshot)
    assert new[1].zones == table.zone_sets()
    assert not any(isinstance(m, (p.SequenceGap, p.Pong, p.ButtonPress)) for m in new)
    assert mcu.resets == 1
    with pytest.raises(SimError, match="is plugged in"):
        table.replug()


def test_reader_fault_yields_err_and_the_reader_comes_back(layout, table, mcu, host):
    started(mcu, host)
    table.reader_fault(2, scans=None, code="NOREPLY", message="no answer")
    mcu.run_for(500)
    host.feed(mcu.read())
    errors = host.of_type(p.ErrorReport)
    assert len(errors) == 1
    assert (errors[0].reader, errors[0].code) == (2, "NOREPLY")
    assert "no answer" in errors[0].text
    # Zones of the faulted reader keep their contents; the others keep scanning.
    uid = table.take_from_bank(G3)
    table.place(uid, layout.slots[0].star_zone)
    mcu.run_for(500)
    host.feed(mcu.read())
    assert host.zones[layout.slots[0].star_zone] == (uid,)
    heartbeat = host.of_type(p.Heartbeat)[-1]
    assert heartbeat.faulted == (2,)
    table.clear_reader_fault(2)
    mcu.run_for(2500)
    host.feed(mcu.read())
    assert host.of_type(p.Heartbeat)[-1].faulted == ()


def test_a_short_reader_fault_is_reported_once(table, mcu, host):
    started(mcu, host)
    table.reader_fault(0, scans=1)
    mcu.run_for(300)
    host.feed(mcu.read())
    assert [(e.reader, e.code) for e in host.of_type(p.ErrorReport)] == [(0, "TIMEOUT")]


def test_settle_reports_a_table_it_cannot_reach(layout, table):
    mcu = SimulatedMcu(table)
    mcu.settle()
    table.reader_fault(0, scans=None)
    mcu.run_for(100)
    table.place(table.take_from_bank(G3), 0)  # zone 0 is on the dead reader
    with pytest.raises(SimError, match=r"did not settle within 2000 ms .*zones differing: \[0\]"):
        mcu.settle(timeout_ms=2000)


def test_run_for_needs_a_virtual_clock(table):
    from tablefw.clock import monotonic_ms

    mcu = SimulatedMcu(table, clock=monotonic_ms, scan_time=0)
    with pytest.raises(SimError, match="needs a virtual clock"):
        mcu.run_for(10)
    mcu.step()  # real time: one scan, nothing more


def test_invalid_settings_are_named(table):
    with pytest.raises(SimError, match="unknown setting 'debounce'"):
        SimulatedMcu(table, settings={"debounce": 3})
    with pytest.raises(SimError, match="scan time"):
        SimulatedMcu(table, scan_time=-1)


def test_read_takes_at_most_size_bytes(mcu):
    mcu.run_until(lambda: mcu.scanner.ready)
    waiting = mcu.in_waiting
    first = mcu.read(10)
    assert len(first) == 10 and mcu.in_waiting == waiting - 10
    rest = mcu.read()
    assert len(first + rest) == waiting and (first + rest).startswith(b"0 HELLO ")
    assert mcu.in_waiting == 0 and mcu.read(5) == b""
