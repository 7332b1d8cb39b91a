"""Event texts, statistics texts and argument checks."""

from __future__ import annotations

import pytest

from homeworlds.link import (
    HandshakeRefused,
    LinkDown,
    LinkUp,
    McuInfo,
    McuStats,
    ReaderFault,
    SnapshotReceived,
    TableLink,
    ZoneChanged,
)

from .fakes import A, B, Bench

INFO = McuInfo("0.1.0", 1, 44, 3, 2)


def test_event_texts_read_well_in_a_log():
    assert LinkUp(INFO, "/dev/ttyACM1", at=0).to_text() == (
        "link up on /dev/ttyACM1: firmware 0.1.0, protocol 1, 44 zones, 3 readers, 2 buttons")
    assert LinkDown("no data for 3.0 s", 0.5, at=0).to_text() == (
        "link down: no data for 3.0 s; retrying in 0.5 s")
    assert LinkDown("closed by the host", None, at=0).to_text() == "link down: closed by the host"
    assert ZoneChanged(7, frozenset({B, A}), at=0).to_text() == f"zone 7: {A},{B}"
    assert ZoneChanged(7, frozenset(), at=0).to_text() == "zone 7: -"
    assert ReaderFault(None, "CFG", "bad key", at=0).to_text() == "firmware: CFG bad key"
    assert ReaderFault(2, "TIMEOUT", "", at=0).to_text() == "reader 2: TIMEOUT"
    snap = SnapshotReceived({0: frozenset({A}), 1: frozenset()}, (0,), at=0)
    assert snap.to_text() == "snapshot: 2 zones, 1 tags, 1 changed"
    stats = McuStats(61000, 9000, 150, 290, (0, 4, 0), (1,), 2, 0)
    assert "150 scans/s" in stats.to_text() and "faulted readers: 1" in stats.to_text()


def test_events_are_immutable_values():
    event = ZoneChanged(1, frozenset({A}), at=2.0)
    assert event == ZoneChanged(1, frozenset({A}), at=2.0)
    with pytest.raises(AttributeError):
        event.zone = 3  # type: ignore[misc]
    snap = SnapshotReceived({0: frozenset()}, at=0)
    with pytest.raises(TypeError):
        snap.zones[0] = frozenset({A})  # type: ignore[index]
    refused = HandshakeRefused("old firmware", 15.0, INFO, at=0)
    assert isinstance(refused, LinkDown)


def test_stats_text_lists_drops_and_counters():
    bench = Bench()
    bench.connect()
    bench.mcu.send_raw(b"junk\n")
    bench.exchange()
    text = bench.link.stats.to_text()
    assert "dropped: bad_syntax 1" in text
    assert "1 SYNC sent" in text


@pytest.mark.parametrize("options, message", [
    ({"heartbeat_timeout": 0}, "heartbeat_timeout"),
    ({"backoff": ()}, "backoff"),
    ({"backoff": (0.2, -1)}, "backoff step"),
    ({"expected_zones": -3}, "expected_zones"),
    ({"refused_retry": "slow"}, "refused_retry"),
])
def test_bad_settings_are_rejected_by_name(options, message):
    with pytest.raises(ValueError, match=message):
        TableLink(lambda: None, **options)


def test_the_factory_must_be_callable():
    with pytest.raises(TypeError, match="transport_factory"):
        TableLink("/dev/ttyACM0")  # type: ignore[arg-type]
