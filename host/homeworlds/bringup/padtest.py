"""Live per-pad read statistics for tuning antennas (``homeworlds pad-test``).

With the firmware's debounce set to one scan each way (``CFG debounce_on=1
debounce_off=1``), every ``ZONE`` line reflects single reads: a tag missed in
one scan of its pad disappears for one scan. So the share of time a tag is
reported present on its pad is the share of scans that read it — the pad's
*read rate* for that tag — and every disappearance is a missed read (a
*drop-out*). :class:`PadMonitor` keeps these figures per pad and per tag from
the link's events and renders a frame that lights each pad's part of its
slot ring (or its seat's bar) while a tag is read on it: green when every tag
there reads at least 95 % of the time, amber from 70 %, red below.

A tag absent for longer than ``gone_after`` seconds counts as taken away: its
figures stop there instead of decaying.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from homeworlds.link import (
    Heartbeat,
    LinkDown,
    LinkEvent,
    SnapshotReceived,
    ZoneChanged,
)
from homeworlds.pixels import RGB, Frame, blank
from homeworlds.table.layout import Layout, ZoneKind

GOOD_RATE = 0.95
FAIR_RATE = 0.70
GREEN: RGB = (0, 255, 0)
AMBER: RGB = (255, 140, 0)
RED: RGB = (255, 0, 0)

RAW_READS = {"debounce_on": 1, "debounce_off": 1}
"""Firmware settings that make every ZONE line a single read (tablefw/settings.py)."""


class _TagTrack:
    __slots__ = ("first_seen", "present_since", "present_total", "dropouts", "absent_since")

    def __init__(self, now: float):
        self.first_seen = now
        self.present_since: float | None = now
        self.present_total = 0.0
        self.dropouts = 0
        self.absent_since: float | None = None

    def appear(self, now: float) -> None:
        if self.present_since is None:
            self.present_since = now
            self.absent_since = None

    def vanish(self, now: float, *, counts: bool = True) -> None:
        if self.present_since is not None:
            self.present_total += now - self.present_since
            self.present_since = None
            self.absent_since = now
            if counts:
                self.dropouts += 1

    def figures(self, now: float, gone_after: float) -> tuple[float, int, bool]:
        """(read rate, drop-outs, gone) as of ``now``."""
        present = self.present_total
        end = now
        gone = False
        dropouts = self.dropouts
        if self.present_since is not None:
            present += now - self.present_since
        elif self.absent_since is not None and now - self.absent_since > gone_after:
            end, gone = self.absent_since, True
            dropouts -= 1  # the last disappearance was the tag being taken away
        window = end - self.first_seen
        rate = present / window if window > 0 else 1.0
        return min(1.0, rate), max(0, dropouts), gone


@dataclass(frozen=True, slots=True)
class TagFigures:
    uid: str
    read_rate: float
    """Share of this pad's scans that read the tag since it was first seen."""
    dropouts: int
    """Scans that missed it while it lay there."""
    seconds: float
    """How long it has been watched."""
    present: bool
    gone: bool


@dataclass(frozen=True, slots=True)
class PadFigures:
    zone: int
    name: str
    reader: int
    channel: int
    tags: tuple[TagFigures, ...]

    @property
    def worst_rate(self) -> float:
        lying = [tag.read_rate for tag in self.tags if not tag.gone]
        return min(lying) if lying else 1.0

    def to_text(self) -> str:
        head = f"{self.name}, reader {self.reader} channel {self.channel}:"
        lines = [head]
        for tag in self.tags:
            state = "taken away" if tag.gone else ("read now" if tag.present else "missed now")
            lines.append(f"    {tag.uid}  {tag.read_rate:6.1%} read, {tag.dropouts} missed "
                         f"reads in {tag.seconds:.0f} s ({state})")
        return "\n".join(lines)


class PadMonitor:
    """Per-pad read figures from link events (feed every event to :meth:`handle`)."""

    def __init__(self, layout: Layout, *, gone_after: float = 2.0):
        self.layout = layout
        self.gone_after = gone_after
        self.refresh_ms: int | None = None
        self._tracks: dict[int, dict[str, _TagTrack]] = {}
        self._present: dict[int, frozenset[str]] = {}
        self._known = False

    def handle(self, event: LinkEvent) -> None:
        now = event.at
        if isinstance(event, SnapshotReceived):
            self._known = True
            for zone, uids in event.zones.items():
                self._set(zone, uids, now, counts=False)
        elif isinstance(event, ZoneChanged) and self._known:
            self._set(event.zone, event.uids, now, counts=True)
        elif isinstance(event, Heartbeat):
            self.refresh_ms = event.stats.refresh_ms
        elif isinstance(event, LinkDown):
            # Nothing is known while the link is down: stop the clocks, count no misses.
            self._known = False
            for zone in list(self._present):
                self._set(zone, frozenset(), now, counts=False)

    def _set(self, zone: int, uids: frozenset[str], now: float, *, counts: bool) -> None:
        if not self.layout.has_zone(zone):
            return
        before = self._present.get(zone, frozenset())
        tracks = self._tracks.setdefault(zone, {})
        for uid in uids - before:
            if uid in tracks:
                tracks[uid].appear(now)
            else:
                tracks[uid] = _TagTrack(now)
        for uid in before - uids:
            tracks[uid].vanish(now, counts=counts)
        self._present[zone] = frozenset(uids)

    def pads(self, now: float, zones: Iterable[int] | None = None) -> list[PadFigures]:
        """Figures of every pad that has had a tag on it (or of ``zones``), by zone."""
        wanted = set(zones) if zones is not None else None
        result = []
        for zone in sorted(self._tracks):
            if wanted is not None and zone not in wanted:
                continue
            tags = []
            for uid, track in sorted(self._tracks[zone].items()):
                rate, dropouts, gone = track.figures(now, self.gone_after)
                tags.append(TagFigures(uid, rate, dropouts, now - track.first_seen,
                                       track.present_since is not None, gone))
            wiring = self.layout.wiring(zone)
            result.append(PadFigures(zone, self.layout.describe_zone(zone), wiring.reader,
                                     wiring.channel, tuple(tags)))
        return result

    def report(self, now: float, zones: Iterable[int] | None = None) -> str:
        pads = self.pads(now, zones)
        if self.refresh_ms:
            head = (f"every pad is scanned every {self.refresh_ms} ms "
                    f"({1000 / self.refresh_ms:.0f} reads/s of a tag read every time)")
        else:
            head = "waiting for the firmware's heartbeat (scan timing)"
        if not pads:
            return head + "\nno tag seen yet: put tags on the pad you are tuning"
        return "\n".join([head] + [pad.to_text() for pad in pads])

    def frame(self, now: float) -> Frame:
        """Each pad's lamp lit while a tag is read on it, coloured by its worst read rate."""
        pixels = list(blank(self.layout.pixel_count))
        for pad in self.pads(now):
            if not any(tag.present for tag in pad.tags):
                continue
            rate = pad.worst_rate
            color = GREEN if rate >= GOOD_RATE else AMBER if rate >= FAIR_RATE else RED
            for index in self.lamp(pad.zone):
                pixels[index] = color
        return tuple(pixels)

    def lamp(self, zone: int) -> tuple[int, ...]:
        """The pixels that show ``zone``: its sector of the slot ring (the star pad first,
        then each seat's ship pad), its seat's bar for a token pad, none for the bank."""
        role = self.layout.zone_role(zone)
        if role.kind is ZoneKind.TOKEN:
            assert role.seat is not None  # a token pad is a seat's
            return self.layout.seats[role.seat].bar
        if role.kind is ZoneKind.BANK:
            return ()
        assert role.slot is not None  # a star or ship pad is a slot's
        ring = self.layout.slots[role.slot].ring
        sectors = 1 + self.layout.seat_count
        if role.kind is ZoneKind.STAR:
            sector = 0
        else:
            assert role.seat is not None  # a ship pad is a seat's, in its slot
            sector = 1 + role.seat
        start = sector * len(ring) // sectors
        end = (sector + 1) * len(ring) // sectors
        return ring[start:end]
