"""The scan core with virtual readers, a fake clock and a host-side decoder."""

from __future__ import annotations

import random

import pytest

from tablefw import protocol as p
from tablefw.readers import ReaderError
from tablefw.scan import ERR_REPEAT_MS, Scanner
from tablefw.settings import Settings
from tablefw.virtual import VirtualReader

from .fakes import FakeClock

A = "E004015000000001"
B = "E004015000000002"
C = "E004015000000003"


class Table:
    """A scanner wired to virtual readers, a fake clock and a host decoder."""

    def __init__(self, readers, settings=None, buttons=0, zone_count=None, ms_per_scan=5):
        self.clock = FakeClock(1000)
        self.readers = readers
        self.wire = bytearray()
        self.host = p.Decoder(accept=p.FROM_MCU)
        self.host_encoder = p.Encoder()
        self.ms_per_scan = ms_per_scan
        self.scanner = Scanner(readers, self.wire.extend, self.clock, Settings(settings or {}),
                               zone_count=zone_count, buttons=buttons)

    def step(self, count=1):
        for _ in range(count):
            wait = self.scanner.step()
            self.clock.advance(max(wait, self.ms_per_scan))

    def rounds(self, count):
        target = self.scanner.rounds + count
        while self.scanner.rounds < target:
            self.step()

    def received(self):
        data = bytes(self.wire)
        self.wire.clear()
        return self.host.feed(data)

    def send(self, message):
        self.scanner.feed(self.host_encoder.encode(message))

    def warm_up(self):
        while not self.scanner.ready:
            self.step()
        return self.received()


def of_type(messages, kind):
    return [m for m in messages if isinstance(m, kind)]


def two_readers(**options):
    return [VirtualReader([0, 1, 2], **options), VirtualReader([3, 4], **options)]


# ---------------------------------------------------------------- start-up


def test_hello_and_snapshot_follow_the_warm_up():
    readers = two_readers()
    readers[0].set_tags(1, [A])
    readers[1].set_tags(4, [B, C])
    table = Table(readers, buttons=2)
    table.step()
    assert table.received() == []  # nothing before the first debounced picture
    messages = table.warm_up()
    assert messages[0] == p.Hello("0.1.0", p.PROTOCOL_VERSION, 5, 2, 2)
    assert messages[1] == p.Snapshot(0, [(), (A,), (), (), (B, C)])
    assert table.scanner.rounds == 3  # debounce_on rounds and a spare one


def test_zone_count_may_exceed_the_served_zones_and_must_cover_them():
    table = Table([VirtualReader([0, 1])], zone_count=4)
    assert table.warm_up()[1].zones == ((), (), (), ())
    with pytest.raises(ValueError, match="zone_count 1 is too small"):
        Scanner([VirtualReader([0, 1])], lambda data: None, FakeClock(), zone_count=1)


def test_a_zone_served_twice_is_refused():
    with pytest.raises(ValueError, match="zone 2 is served by reader 0 and reader 1"):
        Scanner([VirtualReader([1, 2]), VirtualReader([2, 3])], lambda data: None, FakeClock())


def test_readers_take_turns_zone_by_zone():
    order = []

    class Recording(VirtualReader):
        def inventory(self, channel):
            order.append(self.zones[channel])
            return super().inventory(channel)

    table = Table([Recording([0, 1, 2]), Recording([3, 4])])
    table.rounds(2)
    assert order == [0, 3, 1, 4, 2] * 2


# ---------------------------------------------------------------- changes


def test_zone_messages_only_when_the_debounced_set_changes():
    readers = two_readers()
    table = Table(readers)
    table.warm_up()
    table.rounds(10)
    assert table.received() == []  # a quiet table sends no ZONE lines

    readers[0].set_tags(2, [A])
    table.rounds(1)
    assert of_type(table.received(), p.ZoneState) == []  # seen once: not yet
    table.rounds(1)
    assert of_type(table.received(), p.ZoneState) == [p.ZoneState(2, [A])]
    table.rounds(5)
    assert of_type(table.received(), p.ZoneState) == []


def test_moving_a_piece_reports_both_zones():
    readers = two_readers()
    readers[0].set_tags(0, [A])
    table = Table(readers)
    table.warm_up()
    readers[0].set_tags(0, [])
    readers[1].set_tags(3, [A])
    table.rounds(4)
    zones = of_type(table.received(), p.ZoneState)
    assert zones == [p.ZoneState(3, [A]), p.ZoneState(0, [])]


def test_occasional_misses_do_not_flap_the_table():
    rng = random.Random(5)
    readers = [VirtualReader(4, miss_probability=0.15, rng=rng)]
    for zone in range(4):
        readers[0].set_tags(zone, [A[:-1] + str(zone), B[:-1] + str(zone + 4)])
    table = Table(readers, settings={"debounce_on": 2, "debounce_off": 5})
    table.warm_up()
    table.rounds(10)
    table.received()
    assert all(len(zone) == 2 for zone in table.scanner.snapshot())
    table.rounds(200)
    assert of_type(table.received(), p.ZoneState) == []


# ---------------------------------------------------------------- timing


def test_heartbeat_about_every_second_with_statistics():
    table = Table(two_readers(), ms_per_scan=10)
    table.warm_up()
    start = table.clock.now
    beats = []
    while table.clock.now - start < 5000:
        table.step()
        beats += [(table.clock.now, m) for m in of_type(table.received(), p.Heartbeat)]
    assert len(beats) == 5
    intervals = [b[0] - a[0] for a, b in zip(beats, beats[1:], strict=False)]
    assert all(990 <= interval <= 1020 for interval in intervals)
    last = beats[-1][1]
    assert last.scan_rate == 100  # one zone scan per 10 ms
    assert last.refresh_ms == 50  # five zones
    assert last.reader_errors == (0, 0) and last.faulted == ()
    assert last.scans == table.scanner.scans
    assert last.uptime_ms == beats[-1][0] - 10 - 1000  # stamped before the clock moved on


def test_periodic_snapshots_and_their_ids():
    table = Table(two_readers(), settings={"snap_ms": 2000, "hb_ms": 60000})
    table.warm_up()
    start = table.clock.now
    snapshots = []
    while table.clock.now - start < 6500:
        table.step()
        snapshots += of_type(table.received(), p.Snapshot)
    assert [s.snap_id for s in snapshots] == [1, 2, 3]


def test_no_periodic_snapshots_when_disabled():
    table = Table(two_readers(), settings={"snap_ms": 0})
    table.warm_up()
    table.step(2000)
    assert of_type(table.received(), p.Snapshot) == []


def test_scan_ms_paces_the_rounds():
    table = Table(two_readers(), settings={"scan_ms": 200}, ms_per_scan=1)
    table.warm_up()
    waits = []
    for _ in range(20):
        wait = table.scanner.step()
        waits.append(wait)
        table.clock.advance(max(wait, 1))
    assert max(waits) > 100  # the caller is told to idle out the round
    before = table.scanner.rounds
    table.clock.advance(0)
    start = table.clock.now
    while table.scanner.rounds < before + 5:
        table.step()
    assert table.clock.now - start >= 4 * 200


# ---------------------------------------------------------------- host requests


def test_sync_answers_hello_and_snapshot():
    readers = two_readers()
    readers[1].set_tags(3, [C])
    table = Table(readers)
    table.warm_up()
    table.send(p.Sync())
    messages = table.received()
    assert [type(m) for m in messages] == [p.Hello, p.Snapshot]
    assert messages[1].zones[3] == (C,)


def test_ping_answers_pong():
    table = Table(two_readers())
    table.warm_up()
    table.send(p.Ping(31337))
    assert table.received() == [p.Pong(31337)]


def test_cfg_changes_settings_and_answers_with_all_of_them():
    table = Table(two_readers())
    table.warm_up()
    table.send(p.Config({"debounce_on": 4, "hb_ms": 500}))
    answer = table.received()
    assert len(answer) == 1
    assert answer[0].as_dict() == {"debounce_on": 4, "debounce_off": 3, "hb_ms": 500,
                                   "hold_ms": 800,
                                   "retry_ms": 1000, "scan_ms": 0, "snap_ms": 5000}
    assert table.scanner.debouncers[0].on == 4


def test_cfg_with_a_bad_key_or_value_is_reported_and_the_rest_applied():
    table = Table(two_readers())
    table.warm_up()
    table.send(p.Config([("speed", 3), ("debounce_off", 999), ("debounce_on", 3)]))
    messages = table.received()
    errors = of_type(messages, p.ErrorReport)
    assert [(e.reader, e.code) for e in errors] == [(None, "CFG"), (None, "CFG")]
    assert "unknown setting 'speed'" in errors[0].text
    assert "debounce_off: 999 is outside 1..50" in errors[1].text
    assert of_type(messages, p.Config)[0].as_dict()["debounce_on"] == 3


def test_corrupt_host_lines_are_counted_in_the_heartbeat():
    table = Table(two_readers(), ms_per_scan=10)
    table.warm_up()
    table.scanner.feed(b"0 SYNC *0000\nnonsense\n")
    table.step(150)
    beat = of_type(table.received(), p.Heartbeat)[0]
    assert beat.rx_bad == 2


# ---------------------------------------------------------------- faults


def test_reader_fault_reports_err_and_the_other_reader_keeps_scanning():
    readers = two_readers()
    readers[0].set_tags(1, [A])
    table = Table(readers, ms_per_scan=10)
    table.warm_up()
    readers[0].set_faulted(True, "NOREPLY", "unplugged")
    table.step(3)
    errors = of_type(table.received(), p.ErrorReport)
    assert [(e.reader, e.code) for e in errors] == [(0, "NOREPLY")]
    assert "unplugged" in errors[0].text

    readers[1].set_tags(4, [B])
    table.step(120)
    messages = table.received()
    assert p.ZoneState(4, [B]) in messages
    # the faulty reader's zone keeps its last contents: a fault is not an empty pad
    assert p.ZoneState(1, []) not in messages
    assert table.scanner.snapshot()[1] == (A,)
    beat = of_type(messages, p.Heartbeat)[-1]
    assert beat.faulted == (0,) and beat.reader_errors[0] >= 1 and beat.reader_errors[1] == 0


def test_faulty_reader_is_retried_and_recovers():
    readers = two_readers()
    table = Table(readers, settings={"retry_ms": 500}, ms_per_scan=10)
    table.warm_up()
    readers[0].set_faulted(True)
    table.step(5)
    attempts = readers[0].recoveries
    table.step(20)  # 200 ms: no retry yet
    assert readers[0].recoveries == attempts
    table.step(40)
    assert readers[0].recoveries > attempts
    readers[0].set_faulted(False)
    readers[0].set_tags(2, [C])
    table.step(200)
    messages = table.received()
    assert p.ZoneState(2, [C]) in messages
    assert of_type(messages, p.Heartbeat)[-1].faulted == ()


def test_a_lasting_fault_is_reported_again_but_not_on_every_retry():
    readers = two_readers()
    table = Table(readers, settings={"retry_ms": 100}, ms_per_scan=10)
    table.warm_up()
    readers[1].set_faulted(True)
    start = table.clock.now
    errors = []
    while table.clock.now - start < 2 * ERR_REPEAT_MS + 500:
        table.step()
        errors += of_type(table.received(), p.ErrorReport)
    assert len(errors) == 3
    assert readers[1].recoveries > 100


def test_any_exception_from_a_driver_is_a_fault_not_a_crash():
    class Broken(VirtualReader):
        def inventory(self, channel):
            raise ZeroDivisionError("driver bug")

    table = Table([Broken([0]), VirtualReader([1])])
    messages = table.warm_up()
    errors = of_type(messages, p.ErrorReport)
    assert errors[0].reader == 0 and errors[0].code == "EXC" and "driver bug" in errors[0].text


def test_a_reader_returning_a_malformed_uid_is_a_data_fault():
    class Garbled(VirtualReader):
        def inventory(self, channel):
            return ["not-a-uid"]

    table = Table([Garbled([0])])
    errors = of_type(table.warm_up(), p.ErrorReport)
    assert errors[0].code == "DATA" and "not-a-uid" in errors[0].text


def test_transient_fault_then_reading_resumes():
    readers = two_readers()
    readers[0].set_tags(0, [A])
    table = Table(readers, settings={"retry_ms": 50})
    table.warm_up()
    readers[0].fail_next(1, "TIMEOUT")
    table.step(100)
    messages = table.received()
    assert [(e.reader, e.code) for e in of_type(messages, p.ErrorReport)] == [(0, "TIMEOUT")]
    assert table.scanner.snapshot()[0] == (A,)
    assert not table.scanner.faulted[0]


def test_too_many_tags_on_one_zone():
    reader = VirtualReader([0])
    reader.set_tags(0, [f"E0040150{i:08X}" for i in range(p.MAX_ZONE_TAGS + 3)])
    table = Table([reader])
    messages = table.warm_up()
    errors = of_type(messages, p.ErrorReport)
    assert [e.code for e in errors] == ["OVERFLOW"]
    assert len(of_type(messages, p.Snapshot)[0].zones[0]) == p.MAX_ZONE_TAGS


def test_write_failures_are_counted_and_seen_as_a_gap_by_the_host():
    readers = two_readers()
    table = Table(readers, ms_per_scan=10)
    table.warm_up()
    healthy = table.scanner.write

    def unplugged(data):
        raise OSError("USB buffer full")

    table.scanner.write = unplugged
    readers[0].set_tags(0, [A])
    table.step(10)
    table.scanner.write = healthy
    table.step(150)
    messages = table.received()
    assert table.scanner.tx_dropped == 1
    assert of_type(messages, p.SequenceGap)[0].lost == 1
    assert of_type(messages, p.Heartbeat)[0].tx_dropped == 1


# ---------------------------------------------------------------- buttons and loop


def test_button_presses_are_counted():
    table = Table(two_readers(), buttons=2)
    table.warm_up()
    table.scanner.press(1)
    table.scanner.press(1)
    table.scanner.press(0)
    assert table.received() == [p.ButtonPress(1, 1), p.ButtonPress(1, 2), p.ButtonPress(0, 1)]
    with pytest.raises(ValueError, match="no button 2"):
        table.scanner.press(2)


def test_run_loop_reads_host_input_polls_buttons_and_stops():
    readers = two_readers()
    table = Table(readers, buttons=1)
    incoming = [table.host_encoder.encode(p.Ping(5))]
    presses = [[], [0], []]
    loops = []

    def read():
        return incoming.pop() if incoming else None

    def stop():
        loops.append(1)
        return len(loops) > 40

    table.scanner.run(read, lambda ms: table.clock.advance(ms),
                      lambda: presses.pop() if presses else [], stop)
    messages = table.received()
    assert p.Pong(5) in messages and p.ButtonPress(0, 1) in messages
    assert of_type(messages, p.Hello)


def test_all_readers_faulted_the_loop_idles_instead_of_spinning():
    reader = VirtualReader([0, 1])
    table = Table([reader], settings={"retry_ms": 1000})
    table.warm_up()
    reader.set_faulted(True)
    table.scanner.step()
    wait = table.scanner.step()
    assert 0 < wait <= 1000


def test_virtual_reader_refuses_bad_input():
    reader = VirtualReader([4, 5])
    with pytest.raises(ValueError, match="zone 3 is not one of its zones"):
        reader.set_tags(3, [A])
    with pytest.raises(ValueError, match="16 hex digits"):
        reader.set_tags(4, ["E004"])
    with pytest.raises(ReaderError):
        reader.inventory(1)  # nothing selected
