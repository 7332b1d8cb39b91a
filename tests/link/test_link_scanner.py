"""End to end in one process: the real firmware Scanner on virtual readers,
talking to the TableLink through a PipeTransport."""

from __future__ import annotations

import pytest

scan = pytest.importorskip("tablefw.scan")
virtual = pytest.importorskip("tablefw.virtual")
settings_module = pytest.importorskip("tablefw.settings")

from homeworlds.link import (  # noqa: E402
    ButtonPressed,
    Heartbeat,
    LinkDown,
    LinkState,
    LinkUp,
    PipeTransport,
    ReaderFault,
    SnapshotReceived,
    TableLink,
    TransportError,
    ZoneChanged,
)

from .fakes import A, B, C, FakeClock, of_type  # noqa: E402


class Rig:
    """Scanner + virtual readers on one end of a pipe, TableLink on the other,
    one fake clock for both (the firmware counts ms, the host seconds)."""

    def __init__(self, expected_zones: int | None = 5, snap_ms: int = 5000) -> None:
        self.clock = FakeClock()
        self.host_end, self.mcu_end = PipeTransport.pair("usb")
        self.mcu_end.open()
        self.readers = [virtual.VirtualReader([0, 1, 2]), virtual.VirtualReader([3, 4])]
        self.scanner = scan.Scanner(
            self.readers, self.mcu_end.write, lambda: self.clock.ms,
            settings_module.Settings({"snap_ms": snap_ms}), buttons=1)
        self.link = TableLink(lambda: self.host_end, clock=self.clock,
                              expected_zones=expected_zones)
        self.events: list = []

    def _mcu_read(self) -> bytes:
        # The board reads nothing while unplugged, as UsbDataLink.read does.
        try:
            return self.mcu_end.read()
        except TransportError:
            return b""

    def run(self, seconds: float, step_ms: int = 5) -> list:
        """Alternate firmware steps and host polls for ``seconds`` of fake time."""
        events = []
        for _ in range(round(seconds * 1000 / step_ms)):
            self.scanner.feed(self._mcu_read())
            self.scanner.step()
            events += self.link.poll(0)
            self.clock.advance(step_ms / 1000)
        self.events += events
        return events


def test_the_real_firmware_handshake_snapshot_and_zone_changes():
    rig = Rig()
    rig.readers[0].set_tags(1, [A])
    events = rig.run(1.0)
    assert [type(e) for e in events[:2]] == [LinkUp, SnapshotReceived]
    assert events[0].hello.zones == 5 and events[0].hello.readers == 2
    assert events[1].zones[1] == frozenset({A})
    assert rig.link.table_known

    rig.readers[1].set_tags(4, [B, C])
    rig.readers[0].set_tags(1, [])
    events = rig.run(0.5)
    changes = of_type(events, ZoneChanged)
    assert [(e.zone, e.uids) for e in changes] == [(4, frozenset({B, C})), (1, frozenset())]
    assert rig.link.zones[4] == frozenset({B, C})
    assert of_type(rig.run(1.5), Heartbeat)
    assert rig.link.stats.dropped_total == 0


def test_a_host_that_opens_late_gets_the_table_by_sync():
    rig = Rig()
    rig.readers[0].set_tags(0, [A])
    # The firmware warms up and announces itself while nobody listens.
    for _ in range(200):
        rig.scanner.step()
        rig.clock.advance(0.005)
    assert rig.scanner.ready
    events = rig.run(0.5)
    assert [type(e) for e in events[:2]] == [LinkUp, SnapshotReceived]
    assert events[1].zones[0] == frozenset({A})


def test_buttons_and_reader_faults_reach_the_host():
    rig = Rig()
    rig.run(1.0)
    rig.scanner.press(0)
    rig.readers[1].set_faulted(True, "NOREPLY", "reader not answering")
    events = rig.run(0.5)
    assert of_type(events, ButtonPressed)[0].button == 0
    fault = of_type(events, ReaderFault)[0]
    assert (fault.reader, fault.code) == (1, "NOREPLY")


def test_unplug_and_replug_with_the_real_firmware():
    rig = Rig()
    rig.run(1.0)
    rig.host_end.unplug()
    events = rig.run(0.5)
    assert isinstance(events[0], LinkDown)
    rig.readers[0].set_tags(2, [C])  # placed while unplugged
    rig.host_end.replug()
    events = rig.run(2.0)
    up = of_type(events, LinkUp)
    assert up
    snap = of_type(events, SnapshotReceived)[0]
    assert snap.zones[2] == frozenset({C})
    assert 2 in snap.changed
    assert rig.link.state is LinkState.READY


def test_the_real_firmware_with_another_zone_count_is_refused():
    rig = Rig(expected_zones=14)
    events = rig.run(1.0)
    assert [type(e).__name__ for e in events] == ["HandshakeRefused"]
    assert "5 zones" in events[0].reason and "14" in events[0].reason
