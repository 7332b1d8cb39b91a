"""What the link reports: small immutable events, each stamped with the time.

Every event has ``at``, the link clock's reading (``time.monotonic`` unless
another clock was given) when the link produced it. Events are plain frozen
values: compare them, log them (``to_text()``), hand them across threads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from tablefw import protocol
from tablefw.protocol import Hello as HelloMessage  # McuInfo.protocol hides the module


@dataclass(frozen=True, slots=True)
class McuInfo:
    """What the table's firmware announced in its HELLO."""

    firmware: str
    protocol: int
    zones: int
    readers: int
    buttons: int

    @classmethod
    def from_message(cls, hello: HelloMessage) -> McuInfo:
        return cls(hello.firmware, hello.protocol, hello.zones, hello.readers, hello.buttons)

    def to_text(self) -> str:
        return (f"firmware {self.firmware}, protocol {self.protocol}, {self.zones} zones, "
                f"{self.readers} readers, {self.buttons} buttons")


@dataclass(frozen=True, slots=True)
class McuStats:
    """The firmware's heartbeat figures (see docs/protocol.md, HB)."""

    uptime_ms: int
    scans: int
    scan_rate: int
    """Zone scans per second over the last heartbeat period."""
    refresh_ms: int
    """Mean time between two scans of the same zone over that period."""
    reader_errors: tuple[int, ...]
    """Faults since start, per reader."""
    faulted: tuple[int, ...]
    """Readers failing right now."""
    rx_bad: int
    """Host lines the firmware dropped."""
    tx_dropped: int
    """Lines the firmware could not write."""

    @classmethod
    def from_message(cls, hb: protocol.Heartbeat) -> McuStats:
        return cls(hb.uptime_ms, hb.scans, hb.scan_rate, hb.refresh_ms,
                   tuple(hb.reader_errors), tuple(hb.faulted), hb.rx_bad, hb.tx_dropped)

    def to_text(self) -> str:
        faulted = ",".join(map(str, self.faulted)) or "none"
        return (f"up {self.uptime_ms / 1000:.0f} s, {self.scan_rate} scans/s, "
                f"refresh {self.refresh_ms} ms, faulted readers: {faulted}, "
                f"host lines dropped {self.rx_bad}, lines unsent {self.tx_dropped}")


@dataclass(frozen=True, slots=True)
class LinkEvent:
    """Base of every event: ``at`` is the link clock when it was produced."""

    at: float = field(kw_only=True)

    def to_text(self) -> str:
        return type(self).__name__


@dataclass(frozen=True, slots=True)
class LinkUp(LinkEvent):
    """The table answered with an acceptable HELLO. The table contents are
    not known yet: wait for :class:`SnapshotReceived`."""

    hello: McuInfo
    port: str

    def to_text(self) -> str:
        return f"link up on {self.port}: {self.hello.to_text()}"


@dataclass(frozen=True, slots=True)
class LinkDown(LinkEvent):
    """The link is down: a failed open, a lost port, silence, a table restart
    or :meth:`TableLink.close`. ``retry_in``: seconds until the next attempt
    (None: no further attempt, the link was closed)."""

    reason: str
    retry_in: float | None

    def to_text(self) -> str:
        if self.retry_in is None:
            return f"link down: {self.reason}"
        return f"link down: {self.reason}; retrying in {self.retry_in:g} s"


@dataclass(frozen=True, slots=True)
class HandshakeRefused(LinkDown):
    """A :class:`LinkDown` because the table is not one this host can work
    with (other protocol version, other zone count). The link retries only
    slowly: reflashing or choosing the right layout is a human's job."""

    hello: McuInfo


@dataclass(frozen=True, slots=True)
class SnapshotReceived(LinkEvent):
    """A complete snapshot: every zone's tag set. The table is known from the
    first one after each (re)connect or resync. ``changed`` lists the zones
    that differ from the picture before (every zone when there was none)."""

    zones: Mapping[int, frozenset[str]]
    changed: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.zones, MappingProxyType):
            object.__setattr__(self, "zones", MappingProxyType(dict(self.zones)))

    def to_text(self) -> str:
        tags = sum(len(uids) for uids in self.zones.values())
        return f"snapshot: {len(self.zones)} zones, {tags} tags, {len(self.changed)} changed"


@dataclass(frozen=True, slots=True)
class ZoneChanged(LinkEvent):
    """Zone ``zone`` now holds exactly the tags ``uids`` (upper-case hex UIDs)."""

    zone: int
    uids: frozenset[str]

    def to_text(self) -> str:
        return f"zone {self.zone}: {','.join(sorted(self.uids)) or '-'}"


@dataclass(frozen=True, slots=True)
class ButtonPressed(LinkEvent):
    """Button ``button`` was pressed; ``count`` is the firmware's press count
    since it started (a jump means presses were lost with lines)."""

    button: int
    count: int = 0

    def to_text(self) -> str:
        return f"button {self.button} pressed (press {self.count})"


@dataclass(frozen=True, slots=True)
class ButtonHeld(LinkEvent):
    """Button ``button`` has been held down for the firmware's ``hold_ms`` (a long press,
    protocol 2's HOLD); its press was reported before as a :class:`ButtonPressed`."""

    button: int
    count: int = 0

    def to_text(self) -> str:
        return f"button {self.button} held (press {self.count})"


@dataclass(frozen=True, slots=True)
class Heartbeat(LinkEvent):
    """The firmware's periodic statistics."""

    stats: McuStats

    def to_text(self) -> str:
        return f"heartbeat: {self.stats.to_text()}"


@dataclass(frozen=True, slots=True)
class ReaderFault(LinkEvent):
    """A reader fault, or a request the firmware rejected (``reader`` None)."""

    reader: int | None
    code: str
    text: str

    def to_text(self) -> str:
        who = "firmware" if self.reader is None else f"reader {self.reader}"
        return f"{who}: {self.code} {self.text}".rstrip()


@dataclass(frozen=True, slots=True)
class LinesLost(LinkEvent):
    """Sequence numbers jumped from ``expected`` to ``got``: ``lost`` lines
    vanished. The link asks for a snapshot; until it arrives the table is
    not known."""

    lost: int
    expected: int
    got: int

    def to_text(self) -> str:
        return f"{self.lost} line(s) lost (expected #{self.expected}, got #{self.got}); resyncing"


@dataclass(frozen=True, slots=True)
class PongReceived(LinkEvent):
    """The answer to :meth:`TableLink.ping`; ``rtt`` is the round trip in seconds."""

    token: int
    rtt: float

    def to_text(self) -> str:
        return f"pong {self.token}: {self.rtt * 1000:.1f} ms"


@dataclass(frozen=True, slots=True)
class ConfigReported(LinkEvent):
    """The firmware's settings, as it answered a CFG."""

    settings: Mapping[str, int]

    def __post_init__(self) -> None:
        if not isinstance(self.settings, MappingProxyType):
            object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))

    def to_text(self) -> str:
        return "settings: " + " ".join(f"{k}={v}" for k, v in sorted(self.settings.items()))
