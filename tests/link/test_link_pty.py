"""The link over a real pseudo-terminal, opened by pyserial like a USB serial port."""

from __future__ import annotations

import os
import select
import sys
import time

import pytest

from homeworlds.link import (
    LinkDown,
    LinkUp,
    SerialTransport,
    SnapshotReceived,
    TableLink,
    ZoneChanged,
)

from .fakes import A, B, FakeMcu, of_type

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty") or sys.platform == "win32",
                                reason="needs POSIX pseudo-terminals")

# A guard against hanging, not a timing assertion: each phase normally takes
# a few milliseconds.
DEADLINE = 10.0


class PtyTable:
    """The MCU side of a pty: writes to and reads from the master fd."""

    def __init__(self) -> None:
        import tty

        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo of what the MCU writes before the host opens
        self.path = os.ttyname(self.slave)
        self.mcu = FakeMcu(self.write, self.read, zones=3)

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def read(self) -> bytes:
        if not select.select([self.master], [], [], 0)[0]:
            return b""
        try:
            return os.read(self.master, 65536)
        except OSError:
            return b""

    def unplug(self) -> None:
        os.close(self.master)
        os.close(self.slave)


def pump(link: TableLink, table: PtyTable | None, until) -> list:
    events: list = []
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        events += link.poll(0.01)
        if table is not None:
            table.mcu.service()
        if until(events):
            return events
    raise AssertionError(f"condition not reached; events so far: {events}")


def test_handshake_zone_change_unplug_and_replug_over_a_pty():
    table = PtyTable()
    target = {"path": table.path}
    link = TableLink(lambda: SerialTransport(target["path"]), backoff=(0.02, 0.05),
                     expected_zones=3)
    try:
        # Lines written before the host opens the port are stale: opening flushes them.
        table.write(b"12 ZONE 0 E004015000000001 *0000\n" * 3)
        table.mcu.set_zone(1, [A], report=False)
        events = pump(link, table, lambda ev: of_type(ev, SnapshotReceived))
        assert [type(e) for e in events] == [LinkUp, SnapshotReceived]
        assert events[0].port == table.path
        assert events[1].zones == {0: frozenset(), 1: frozenset({A}), 2: frozenset()}
        assert link.stats.dropped_total == 0

        table.mcu.set_zone(2, [A, B])
        events = pump(link, table, lambda ev: of_type(ev, ZoneChanged))
        assert events == [ZoneChanged(2, frozenset({A, B}), at=events[0].at)]

        # Unplugged: the pty disappears, reads fail, reopening fails.
        table.unplug()
        events = pump(link, None, lambda ev: len(of_type(ev, LinkDown)) >= 2)
        downs = of_type(events, LinkDown)
        assert table.path in downs[0].reason
        assert downs[1].reason.startswith(f"cannot open {table.path}")
        assert link.stats.reconnects == 1 and link.stats.open_failures >= 1

        # Plugged in again (the device may come back under another name).
        table = PtyTable()
        target["path"] = table.path
        events = pump(link, table, lambda ev: of_type(ev, SnapshotReceived))
        assert of_type(events, LinkUp)[0].port == table.path
        assert link.table_known
    finally:
        link.close()
        try:
            table.unplug()
        except OSError:
            pass


def test_serial_transport_reads_and_writes_a_pty():
    table = PtyTable()
    port = SerialTransport(table.path)
    try:
        port.open()
        assert port.is_open
        assert port.read(100, 0) == b""
        table.write(b"abc\n")
        deadline = time.monotonic() + DEADLINE
        data = b""
        while len(data) < 4 and time.monotonic() < deadline:
            data += port.read(100, 0.05)
        assert data == b"abc\n"
        port.write(b"xyz\n")
        got = b""
        while len(got) < 4 and time.monotonic() < deadline:
            got += table.read()
        assert got == b"xyz\n"
    finally:
        port.close()
        table.unplug()
    assert not port.is_open
