"""Ask the table's firmware how it is: HELLO, heartbeats, reader faults, a snapshot.

:func:`probe_table` drives a :class:`~homeworlds.link.TableLink` until the
firmware has introduced itself, sent a complete snapshot and ``heartbeats``
heartbeats (so that reader faults of the warm-up have been reported), or the
time is up. :func:`table_checks` turns what came back into checks against the
layout and the tag registry: protocol version, zone and reader counts, every
reader's state as the heartbeat and ``ERR`` lines report it, unknown tags.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from homeworlds.bringup.checks import Check
from homeworlds.link import (
    HandshakeRefused,
    Heartbeat,
    LinkDown,
    LinkUp,
    McuInfo,
    McuStats,
    ReaderFault,
    SnapshotReceived,
    TableLink,
)
from homeworlds.table.layout import Layout
from homeworlds.table.registry import Registry
from tablefw import protocol

_READER_FIX = ("check that reader's SPI wiring (SCK, MOSI, MISO), its NSS and BUSY pins as the "
               "firmware configuration lists them, the shared RST line, and its 5 V and 3.3 V "
               "supplies (docs/hardware.md, Bring-up)")


@dataclass
class TableReport:
    """Everything the firmware said during a probe."""

    hello: McuInfo | None = None
    refused: HandshakeRefused | None = None
    zones: Mapping[int, frozenset[str]] | None = None
    heartbeats: list[McuStats] = field(default_factory=list)
    faults: list[ReaderFault] = field(default_factory=list)
    downs: list[LinkDown] = field(default_factory=list)
    waited: float = 0.0

    @property
    def complete(self) -> bool:
        return self.hello is not None and self.zones is not None


def probe_table(link: TableLink, *, timeout: float = 15.0, heartbeats: int = 2,
                clock: Callable[[], float] = time.monotonic) -> TableReport:
    """Poll ``link`` until HELLO, a snapshot and ``heartbeats`` heartbeats arrived and every
    reader the last heartbeat calls faulted has said why in an ERR line (the firmware
    repeats it every 10 s while the fault lasts), the table was refused, or ``timeout``
    seconds passed."""
    report = TableReport()
    start = clock()
    while clock() - start < timeout:
        for event in link.poll(0.05):
            if isinstance(event, HandshakeRefused):
                report.refused = event
                report.hello = event.hello
            elif isinstance(event, LinkDown):
                report.downs.append(event)
            elif isinstance(event, LinkUp):
                report.hello = event.hello
            elif isinstance(event, SnapshotReceived):
                report.zones = event.zones
            elif isinstance(event, Heartbeat):
                report.heartbeats.append(event.stats)
            elif isinstance(event, ReaderFault):
                report.faults.append(event)
        if report.refused is not None:
            break
        if report.complete and len(report.heartbeats) >= heartbeats and not _unexplained(report):
            break
    report.waited = clock() - start
    return report


def _unexplained(report: TableReport) -> set[int]:
    """Readers failing now whose ERR line has not arrived yet."""
    explained = {fault.reader for fault in report.faults}
    return set(report.heartbeats[-1].faulted) - explained


def table_checks(report: TableReport, layout: Layout, registry: Registry | None,
                 port: str) -> list[Check]:
    """The probe's findings, one check per subject."""
    checks: list[Check] = []
    hello = report.hello
    if hello is None:
        reasons = "; ".join(dict.fromkeys(down.reason for down in report.downs))
        detail = f"no HELLO from {port} within {report.waited:.0f} s"
        if reasons:
            detail += f" ({reasons})"
        return [Check.fail("firmware", detail,
                           "is this the board's data port (usb_cdc.data, the second "
                           "/dev/ttyACM*), not its console? Is the firmware running? Its "
                           "console port shows its start-up messages; `make flash` copies it")]
    if hello.protocol != protocol.PROTOCOL_VERSION:
        checks.append(Check.fail("firmware", report.refused.reason if report.refused else
                                 f"protocol {hello.protocol}, this host speaks "
                                 f"{protocol.PROTOCOL_VERSION}",
                                 "flash this release's firmware (make flash)"
                                 if hello.protocol < protocol.PROTOCOL_VERSION else
                                 "update the host software"))
    else:
        checks.append(Check.ok("firmware", f"{hello.firmware}, protocol {hello.protocol} "
                                           f"(this host speaks {protocol.PROTOCOL_VERSION})"))
    if hello.zones == layout.zone_count:
        checks.append(Check.ok("zones", f"{hello.zones}, as layout {layout.name!r} expects"))
    else:
        checks.append(Check.fail("zones", f"the firmware reports {hello.zones} zones, layout "
                                          f"{layout.name!r} has {layout.zone_count}",
                                 "choose the layout that matches this table (table.layout), or "
                                 "regenerate the board's table_config.py from the layout"))
    if hello.readers != len(layout.readers):
        checks.append(Check.fail("readers", f"the firmware drives {hello.readers} readers, "
                                            f"layout {layout.name!r} wires "
                                            f"{len(layout.readers)}",
                                 "make the board's table_config.py list the layout's readers"))
    buttons = sum(1 for seat in layout.seats if seat.button is not None)
    if hello.buttons < buttons:
        checks.append(Check.warn("buttons", f"the firmware reads {hello.buttons} buttons, the "
                                            f"layout gives {buttons} seats a button",
                                 "add the button pins to the board's table_config.py"))
    checks += _reader_checks(report, layout)
    checks += _snapshot_checks(report, registry)
    return checks


def _reader_checks(report: TableReport, layout: Layout) -> list[Check]:
    if report.refused is not None:
        return []
    if not report.heartbeats:
        return [Check.fail("readers", f"no heartbeat within {report.waited:.0f} s, so no "
                                      "reader status", "the firmware stalls or sends nothing "
                                                       "but HELLO: look at its console port")]
    stats = report.heartbeats[-1]
    last_fault: dict[int, ReaderFault] = {}
    for fault in report.faults:
        if fault.reader is not None:
            last_fault[fault.reader] = fault
    checks = []
    count = max(len(layout.readers), len(stats.reader_errors))
    for index in range(count):
        label = layout.readers[index].label if index < len(layout.readers) else None
        subject = f"reader {index}" + (f" ({label})" if label else "")
        errors = stats.reader_errors[index] if index < len(stats.reader_errors) else 0
        last = last_fault.get(index)
        said = f"; last report: {last.code} {last.text}".rstrip() if last else ""
        if index in stats.faulted:
            checks.append(Check.fail(subject, f"failing now ({errors} faults since start{said})",
                                     _READER_FIX))
        elif errors or last:
            checks.append(Check.warn(subject, f"answering again after {errors} fault(s) since "
                                              f"start{said}", _READER_FIX))
        else:
            checks.append(Check.ok(subject, "answering, no faults since start"))
    checks.append(Check.ok("scanning", f"{stats.scan_rate} pad scans/s, every pad re-read every "
                                       f"{stats.refresh_ms} ms"))
    return checks


def _snapshot_checks(report: TableReport, registry: Registry | None) -> list[Check]:
    if report.zones is None:
        if report.refused is not None:
            return []
        return [Check.fail("snapshot", f"no complete snapshot within {report.waited:.0f} s",
                           "look at the firmware's console port for errors")]
    uids = sorted({uid for tags in report.zones.values() for uid in tags})
    if registry is None:
        return [Check.ok("tags", f"{len(uids)} tags on the table (no registry to name them)")]
    unknown = [uid for uid in uids if registry.lookup(uid) is None]
    if unknown:
        shown = ", ".join(unknown[:4]) + (" ..." if len(unknown) > 4 else "")
        return [Check.warn("tags", f"{len(uids)} tags on the table, {len(unknown)} not in the "
                                   f"registry: {shown}",
                           "enroll them (homeworlds enroll) or take the strangers away")]
    return [Check.ok("tags", f"{len(uids)} tags on the table, all in the registry")]
