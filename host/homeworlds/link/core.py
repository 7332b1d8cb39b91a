"""The host side of the table link: handshake, resync, heartbeat watch, reconnect.

:class:`TableLink` turns the byte stream of a :class:`~homeworlds.link.transport.Transport`
into :mod:`~homeworlds.link.events`. It has no thread of its own: the caller
drives it with ``poll(timeout)``, which reads what arrived (waiting at most
``timeout`` seconds), runs the timers and returns the events. The codec is
``tablefw.protocol``, the very module the firmware runs.

States (docs/link.md has the diagram)::

    IDLE -> HANDSHAKE -> SYNCING -> READY
               |   \\________________/  |
               v            v           v
            REFUSED      WAITING <------+       CLOSED (after close())

The table's contents are trusted only in READY, i.e. after a complete
snapshot that followed the last (re)connect, restart or lost line.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Any

from homeworlds.link.events import (
    ButtonHeld,
    ButtonPressed,
    ConfigReported,
    HandshakeRefused,
    Heartbeat,
    LinesLost,
    LinkDown,
    LinkEvent,
    LinkUp,
    McuInfo,
    McuStats,
    PongReceived,
    ReaderFault,
    SnapshotReceived,
    ZoneChanged,
)
from homeworlds.link.transport import READ_SIZE, Transport
from tablefw import protocol

log = logging.getLogger("homeworlds.link")

DEFAULT_BACKOFF = (0.2, 0.5, 1.0, 2.0, 5.0)
DEFAULT_HEARTBEAT_TIMEOUT = 3.0
# A table that was refused (wrong firmware, wrong layout) is retried this
# rarely: a human has to act, and hammering the port helps no one.
DEFAULT_REFUSED_RETRY = 15.0
# While waiting for HELLO or a snapshot, SYNC is repeated this often.
DEFAULT_RESYNC_INTERVAL = 1.0

# Link-level reasons for dropping a well-formed line (beside protocol.DROP_REASONS).
OUT_OF_RANGE = "out_of_range"        # zone or button number beyond what HELLO announced
BAD_SNAPSHOT = "bad_snapshot"        # snapshot zone count differs from HELLO
BEFORE_HELLO = "before_hello"        # state lines before an acceptable HELLO
SNAP_PARTS = "snap_parts"            # snapshot lines that never made a whole snapshot
LINK_DROP_REASONS = (OUT_OF_RANGE, BAD_SNAPSHOT, BEFORE_HELLO, SNAP_PARTS)

_PING_TOKEN_LIMIT = 999_999_999


class LinkState(Enum):
    IDLE = "idle"
    """Created; the first poll() opens the port."""
    WAITING = "waiting"
    """Down; the next attempt is due at ``retry_at``."""
    HANDSHAKE = "handshake"
    """Port open, SYNC sent, waiting for HELLO."""
    SYNCING = "syncing"
    """HELLO accepted, waiting for a complete snapshot."""
    READY = "ready"
    """The table is known; zone changes flow."""
    REFUSED = "refused"
    """The table's HELLO was refused; retrying slowly."""
    CLOSED = "closed"
    """close() was called."""


@dataclass(frozen=True, slots=True)
class LinkStats:
    """Counters since the link was created (they survive reconnects)."""

    lines_ok: int
    """Lines that passed framing and CRC checks."""
    dropped: Mapping[str, int]
    """Lines dropped, by reason: the codec's (bad_crc, bad_syntax, overlong,
    non_ascii, unknown_type) and the link's (out_of_range, bad_snapshot,
    before_hello, snap_parts)."""
    gaps: int
    """Sequence gaps seen (each triggers a SYNC)."""
    lines_lost: int
    """Lines the gaps skipped."""
    syncs_sent: int
    snapshots: int
    """Complete snapshots accepted."""
    zone_changes: int
    """ZoneChanged events produced."""
    zone_updates_ignored: int
    """ZONE lines received while the table was not known (a snapshot follows)."""
    opens: int
    """Successful port opens."""
    open_failures: int
    reconnects: int
    """Times an open link was lost (port error, silence, table restart)."""
    handshake_refusals: int
    mcu_restarts: int
    last_error: str | None
    """The most recent dropped line or link problem, described."""

    @property
    def dropped_total(self) -> int:
        return sum(self.dropped.values())

    def to_text(self) -> str:
        drops = ", ".join(f"{k} {v}" for k, v in sorted(self.dropped.items()) if v) or "none"
        return (f"{self.lines_ok} lines ok; dropped: {drops}; {self.gaps} gaps "
                f"({self.lines_lost} lines lost); {self.syncs_sent} SYNC sent; "
                f"{self.snapshots} snapshots; {self.opens} opens, {self.open_failures} failed; "
                f"{self.reconnects} reconnects; {self.handshake_refusals} refused; "
                f"{self.mcu_restarts} table restarts")


def _check_seconds(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(f"{name}: expected a positive number of seconds, got {value!r}")
    return float(value)


class TableLink:
    """The serial link to the table, driven by :meth:`poll`.

    ``transport_factory()`` returns a fresh, closed transport for each
    connection attempt (e.g. ``lambda: SerialTransport("/dev/ttyACM1")``).
    ``expected_zones``: the layout's zone count; a table reporting another
    is refused. ``backoff``: waits before successive reconnect attempts; the
    last repeats, and the sequence restarts once a snapshot arrives.
    """

    def __init__(self, transport_factory: Callable[[], Transport], *,
                 clock: Callable[[], float] = time.monotonic,
                 heartbeat_timeout: float = DEFAULT_HEARTBEAT_TIMEOUT,
                 backoff: Sequence[float] = DEFAULT_BACKOFF,
                 expected_zones: int | None = None,
                 refused_retry: float = DEFAULT_REFUSED_RETRY,
                 resync_interval: float = DEFAULT_RESYNC_INTERVAL,
                 read_size: int = READ_SIZE):
        if not callable(transport_factory):
            raise TypeError(f"transport_factory must be callable, got {transport_factory!r}")
        self._heartbeat_timeout = _check_seconds(heartbeat_timeout, "heartbeat_timeout")
        if isinstance(backoff, str | bytes) or not isinstance(backoff, Sequence) or not backoff:
            raise ValueError(f"backoff: expected a non-empty sequence of seconds, got {backoff!r}")
        self._backoff = tuple(_check_seconds(b, "backoff step") for b in backoff)
        if expected_zones is not None and (isinstance(expected_zones, bool)
                                           or not isinstance(expected_zones, int)
                                           or expected_zones < 0):
            raise ValueError(f"expected_zones: expected a zone count or None, got "
                             f"{expected_zones!r}")
        self._expected_zones = expected_zones
        self._refused_retry = _check_seconds(refused_retry, "refused_retry")
        self._resync_interval = _check_seconds(resync_interval, "resync_interval")
        self._factory = transport_factory
        self._clock = clock
        self._read_size = read_size

        self._encoder = protocol.Encoder()
        self._decoder = protocol.Decoder(accept=protocol.FROM_MCU)
        self._transport: Transport | None = None
        self._port_name = "?"
        self._state = LinkState.IDLE
        self._retry_at: float | None = None
        self._attempt = 0
        self._hello: McuInfo | None = None
        # The last picture of the table; kept across reconnects so that the
        # next snapshot can say what changed meanwhile. Trusted only in READY.
        self._zones: dict[int, frozenset[str]] | None = None
        self._last_seq: int | None = None
        self._last_rx = 0.0
        self._dropped_since_rx = 0
        self._last_sync_at: float | None = None
        self._sync_outstanding = False
        self._last_ping_at: float | None = None
        self._internal_token = 0

        # Requests from other threads, applied by poll().
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._sync_requested = False
        self._pings: list[int] = []
        self._next_token = 1
        self._pings_in_flight: dict[int, float] = {}
        self._desired_config: dict[str, int] = {}
        self._config_dirty = False

        self._counts = {reason: 0 for reason in LINK_DROP_REASONS}
        self._syncs_sent = 0
        self._snapshots = 0
        self._zone_changes = 0
        self._zone_updates_ignored = 0
        self._opens = 0
        self._open_failures = 0
        self._reconnects = 0
        self._refusals = 0
        self._restarts = 0
        self._last_error: str | None = None

        # Each handler takes the message of its key type.
        self._handlers: dict[type, Callable[[Any, float, list[LinkEvent]], None]] = {
            protocol.SequenceGap: self._on_gap,
            protocol.Hello: self._on_hello,
            protocol.Snapshot: self._on_snapshot,
            protocol.ZoneState: self._on_zone,
            protocol.ButtonPress: self._on_button,
            protocol.ButtonHold: self._on_button,
            protocol.Heartbeat: self._on_heartbeat,
            protocol.ErrorReport: self._on_error,
            protocol.Pong: self._on_pong,
            protocol.Config: self._on_config,
        }

    # ------------------------------------------------------------ inspection

    def __repr__(self) -> str:
        return f"TableLink({self._port_name!r}, {self._state.value})"

    @property
    def state(self) -> LinkState:
        return self._state

    @property
    def is_up(self) -> bool:
        """An acceptable HELLO arrived on the open port (SYNCING or READY)."""
        return self._state in (LinkState.SYNCING, LinkState.READY)

    @property
    def table_known(self) -> bool:
        """A complete snapshot arrived since the last (re)connect or lost line."""
        return self._state is LinkState.READY

    @property
    def hello(self) -> McuInfo | None:
        """What the connected table announced (None while down)."""
        return self._hello if self.is_up else None

    @property
    def zones(self) -> Mapping[int, frozenset[str]] | None:
        """Every zone's tags while the table is known, else None."""
        if self._state is not LinkState.READY or self._zones is None:
            return None
        return MappingProxyType(dict(self._zones))

    @property
    def retry_at(self) -> float | None:
        """When the next connection attempt is due (clock time), if down."""
        if self._state in (LinkState.WAITING, LinkState.REFUSED):
            return self._retry_at
        return None

    @property
    def stats(self) -> LinkStats:
        counts = self._decoder.counts
        dropped = {reason: counts[reason] for reason in protocol.DROP_REASONS}
        dropped.update(self._counts)
        dropped[SNAP_PARTS] = counts["snap_parts_dropped"]
        return LinkStats(
            lines_ok=counts["lines"] - self._decoder.dropped,
            dropped=MappingProxyType(dropped),
            gaps=counts["gaps"],
            lines_lost=counts["lost"],
            syncs_sent=self._syncs_sent,
            snapshots=self._snapshots,
            zone_changes=self._zone_changes,
            zone_updates_ignored=self._zone_updates_ignored,
            opens=self._opens,
            open_failures=self._open_failures,
            reconnects=self._reconnects,
            handshake_refusals=self._refusals,
            mcu_restarts=self._restarts,
            last_error=self._last_error,
        )

    # ------------------------------------------------------------ requests (any thread)

    def request_sync(self) -> None:
        """Ask the table for HELLO and a full snapshot (sent by the next poll)."""
        with self._lock:
            self._sync_requested = True

    def ping(self) -> int:
        """Queue a PING; its PONG comes back as :class:`PongReceived`. Returns the token."""
        with self._lock:
            token = self._next_token
            self._next_token = token % _PING_TOKEN_LIMIT + 1
            self._pings.append(token)
        return token

    def configure(self, **settings: int) -> None:
        """Change firmware settings (e.g. ``hb_ms=500``); they are sent now if the
        link is up and again after every reconnect. The table answers with
        :class:`ConfigReported` (and :class:`ReaderFault` with reader None for a
        setting it rejects)."""
        for key, value in settings.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"setting {key}: expected a non-negative integer, got {value!r}")
        protocol.Config(settings).encode_fields()  # raises ValueError naming a bad key
        with self._lock:
            self._desired_config.update(settings)
            self._config_dirty = True

    def close(self) -> list[LinkEvent]:
        """Close the port and stop; returns the final LinkDown if the port was open.
        Call from the thread that polls (LinkThread.stop() does)."""
        events: list[LinkEvent] = []
        if self._state is LinkState.CLOSED:
            return events
        was_open = self._transport is not None
        self._close_transport()
        self._state = LinkState.CLOSED
        self._retry_at = None
        self._wake.set()
        if was_open:
            events.append(LinkDown(reason="closed by the host", retry_in=None, at=self._clock()))
        return events

    def interrupt(self) -> None:
        """Wake a poll() that is waiting out a reconnect delay (any thread)."""
        self._wake.set()

    def __enter__(self) -> TableLink:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ------------------------------------------------------------ the loop

    def poll(self, timeout: float = 0.0) -> list[LinkEvent]:
        """Connect if due, send queued requests, read for at most ``timeout``
        seconds, decode, run the timers; returns the events, oldest first.
        Never raises for port or line trouble: that becomes events."""
        events: list[LinkEvent] = []
        if self._state is LinkState.CLOSED:
            return events
        if self._transport is None:
            now = self._clock()
            if self._retry_at is not None and now < self._retry_at:
                wait = min(timeout, self._retry_at - now)
                if wait > 0:
                    self._wake.clear()
                    self._wake.wait(wait)
                    now = self._clock()
                    timeout = max(0.0, timeout - wait)
                if now < self._retry_at or self._state is LinkState.CLOSED:
                    return events
            self._connect(now, events)
            if self._transport is None:
                return events
        transport = self._transport
        now = self._clock()
        try:
            self._flush_requests(now)
            data = transport.read(self._read_size, timeout)
            now = self._clock()
            if data:
                self._receive(data, now, events)
            if self._transport is not None:
                self._run_timers(now, events)
        except OSError as exc:
            text = str(exc)
            if self._port_name not in text:
                text = f"{self._port_name}: {text}"
            self._lost(text, self._clock(), events)
        return events

    # ------------------------------------------------------------ connection

    def _next_delay(self) -> float:
        delay = self._backoff[min(self._attempt, len(self._backoff) - 1)]
        self._attempt += 1
        return delay

    def _connect(self, now: float, events: list[LinkEvent]) -> None:
        transport = None
        try:
            transport = self._factory()
            self._port_name = str(getattr(transport, "name", transport))
            transport.open()
        except (OSError, ValueError) as exc:
            self._open_failures += 1
            if transport is not None:
                try:
                    transport.close()
                except OSError:
                    pass
            delay = self._next_delay()
            self._set_down(LinkState.WAITING, now + delay)
            reason = str(exc)
            self._last_error = reason
            log.warning("table link: %s; retrying in %g s", reason, delay)
            events.append(LinkDown(reason=reason, retry_in=delay, at=now))
            return
        self._transport = transport
        self._opens += 1
        self._state = LinkState.HANDSHAKE
        self._encoder = protocol.Encoder()  # the host numbers its lines from 0 per connection
        self._decoder.reset()
        self._last_seq = None
        self._hello = None
        self._last_rx = now
        self._dropped_since_rx = 0
        self._last_ping_at = None
        self._pings_in_flight.clear()
        log.info("table link: opened %s, asking for HELLO", self._port_name)
        # The firmware announces itself only at boot (and writes nothing while
        # no host holds the port), so ask: SYNC brings HELLO and a snapshot
        # once it is ready, PING a PONG even during its warm-up.
        self._send_sync(now)
        self._send_ping(now)

    def _close_transport(self) -> None:
        transport, self._transport = self._transport, None
        if transport is not None:
            try:
                transport.close()
            except OSError:
                pass

    def _set_down(self, state: LinkState, retry_at: float) -> None:
        self._close_transport()
        self._state = state
        self._retry_at = retry_at
        self._hello = None
        self._sync_outstanding = False

    def _lost(self, reason: str, now: float, events: list[LinkEvent]) -> None:
        """The open port failed or went silent: close it, reconnect after backoff."""
        self._reconnects += 1
        delay = self._next_delay()
        self._set_down(LinkState.WAITING, now + delay)
        self._last_error = reason
        log.warning("table link down: %s; reconnecting in %g s", reason, delay)
        events.append(LinkDown(reason=reason, retry_in=delay, at=now))

    def _refuse(self, reason: str, info: McuInfo, now: float, events: list[LinkEvent]) -> None:
        self._refusals += 1
        self._set_down(LinkState.REFUSED, now + self._refused_retry)
        self._last_error = reason
        log.error("table link refused: %s; next attempt in %g s", reason, self._refused_retry)
        events.append(HandshakeRefused(reason=reason, retry_in=self._refused_retry,
                                       hello=info, at=now))

    def _problem_with(self, info: McuInfo) -> str | None:
        if info.protocol != protocol.PROTOCOL_VERSION:
            fix = ("update the host software" if info.protocol > protocol.PROTOCOL_VERSION
                   else "flash the firmware of this release onto the board (make flash)")
            return (f"the table's firmware {info.firmware} speaks protocol version "
                    f"{info.protocol} but this host speaks version {protocol.PROTOCOL_VERSION}: "
                    f"{fix}")
        if self._expected_zones is not None and info.zones != self._expected_zones:
            return (f"the table reports {info.zones} zones but the layout has "
                    f"{self._expected_zones}: choose the layout that matches this table, or "
                    f"regenerate the board's table_config.py from the layout "
                    f"(make flash LAYOUT=...)")
        return None

    # ------------------------------------------------------------ sending

    def _write(self, message: protocol.Message) -> None:
        if self._transport is None:
            return
        self._transport.write(self._encoder.encode(message))

    def _send_sync(self, now: float) -> None:
        self._write(protocol.Sync())
        self._syncs_sent += 1
        self._last_sync_at = now
        self._sync_outstanding = True

    def _request_sync(self, now: float) -> None:
        # One SYNC in flight at a time: its answer (HELLO + snapshot) covers
        # every loss before it; the timers repeat it if the answer is lost.
        if (self._sync_outstanding and self._last_sync_at is not None
                and now - self._last_sync_at < self._resync_interval):
            return
        self._send_sync(now)

    def _send_ping(self, now: float) -> None:
        # Keep-alive tokens count down from the top of the range, away from
        # ping()'s; their PONGs are not in _pings_in_flight, so not reported.
        self._internal_token = (self._internal_token + 1) % 1000
        self._write(protocol.Ping(_PING_TOKEN_LIMIT - self._internal_token))
        self._last_ping_at = now

    def _flush_requests(self, now: float) -> None:
        with self._lock:
            sync, self._sync_requested = self._sync_requested, False
            pings, self._pings = self._pings, []
            config = None
            if self._config_dirty and self.is_up:
                config = protocol.Config(dict(self._desired_config))
                self._config_dirty = False
        if sync:
            self._send_sync(now)
        for token in pings:
            self._write(protocol.Ping(token))
            self._pings_in_flight[token] = now
        if config is not None:
            self._write(config)

    # ------------------------------------------------------------ receiving

    def _receive(self, data: bytes, now: float, events: list[LinkEvent]) -> None:
        decoder = self._decoder
        counts = decoder.counts
        dropped_before = decoder.dropped
        ok_before = counts["lines"] - dropped_before
        handlers = self._handlers
        for message in decoder.feed(data):
            handlers[type(message)](message, now, events)
            if self._transport is None:
                return  # refused: the rest of this read is moot
            seq = getattr(message, "seq", None)
            if seq is not None:
                self._last_seq = seq
        dropped_after = decoder.dropped
        if counts["lines"] - dropped_after != ok_before:
            self._last_rx = now
            self._dropped_since_rx = 0
        if dropped_after != dropped_before:
            self._dropped_since_rx += dropped_after - dropped_before
            self._last_error = decoder.last_error

    def _drop(self, reason: str, text: str) -> None:
        self._counts[reason] += 1
        self._last_error = f"{reason}: {text}"

    def _on_gap(self, gap: protocol.SequenceGap, now: float, events: list[LinkEvent]) -> None:
        if not self.is_up:
            return  # a SYNC is on its way anyway
        log.info("table link: %d line(s) lost, resyncing", gap.lost)
        self._state = LinkState.SYNCING
        events.append(LinesLost(lost=gap.lost, expected=gap.expected, got=gap.got, at=now))
        self._request_sync(now)

    def _on_hello(self, message: protocol.Hello, now: float, events: list[LinkEvent]) -> None:
        info = McuInfo.from_message(message)
        problem = self._problem_with(info)
        if problem is not None:
            self._refuse(problem, info, now, events)
            return
        self._sync_outstanding = False
        if self._state is LinkState.HANDSHAKE:
            self._accept(info, now, events)
            return
        # Up already: a HELLO continuing the sequence answers a SYNC. One that
        # breaks it (the count restarts at boot) or says something new comes
        # from a table that restarted: its picture must be rebuilt.
        continues = (self._last_seq is not None
                     and message.seq == (self._last_seq + 1) % protocol.SEQ_MODULO)
        if continues and info == self._hello:
            return
        self._restarts += 1
        self._reconnects += 1
        reason = (f"the table restarted (HELLO #{message.seq}"
                  + ("" if self._last_seq is None else f" after #{self._last_seq}") + ")")
        self._last_error = reason
        log.warning("table link: %s; resyncing", reason)
        events.append(LinkDown(reason=reason, retry_in=0.0, at=now))
        self._accept(info, now, events)
        self._send_sync(now)

    def _accept(self, info: McuInfo, now: float, events: list[LinkEvent]) -> None:
        self._hello = info
        self._state = LinkState.SYNCING
        with self._lock:
            if self._desired_config:
                self._config_dirty = True
        log.info("table link up on %s: %s", self._port_name, info.to_text())
        events.append(LinkUp(hello=info, port=self._port_name, at=now))

    def _on_snapshot(self, message: protocol.Snapshot, now: float,
                     events: list[LinkEvent]) -> None:
        hello = self._hello
        if not self.is_up or hello is None:
            self._drop(BEFORE_HELLO, f"snapshot {message.snap_id} before an accepted HELLO")
            return
        if len(message.zones) != hello.zones:
            self._drop(BAD_SNAPSHOT, f"snapshot {message.snap_id} lists {len(message.zones)} "
                                     f"zones, HELLO announced {hello.zones}")
            self._state = LinkState.SYNCING
            self._request_sync(now)
            return
        zones = {zone: frozenset(uids) for zone, uids in enumerate(message.zones)}
        before = self._zones
        if before is None:
            changed = tuple(zones)
        else:
            changed = tuple(zone for zone, uids in zones.items() if before.get(zone) != uids)
        self._zones = zones
        if self._state is not LinkState.READY:
            log.info("table link: snapshot received, table known")
        self._state = LinkState.READY
        self._attempt = 0  # a working link: the next loss starts the backoff afresh
        self._snapshots += 1
        events.append(SnapshotReceived(zones, changed, at=now))

    def _on_zone(self, message: protocol.ZoneState, now: float, events: list[LinkEvent]) -> None:
        if self._state is not LinkState.READY:
            # Not trusted before the snapshot; that snapshot includes this change.
            self._zone_updates_ignored += 1
            return
        zone = message.zone
        hello = self._hello
        if hello is not None and zone >= hello.zones:
            self._drop(OUT_OF_RANGE, f"ZONE {zone} but the table has {hello.zones} zones")
            return
        uids = frozenset(message.uids)
        zones = self._zones
        assert zones is not None  # READY comes with the snapshot's zones
        if zones.get(zone) == uids:
            return  # ZONE is idempotent: a repeat changes nothing
        zones[zone] = uids
        self._zone_changes += 1
        events.append(ZoneChanged(zone, uids, at=now))

    def _on_button(self, message: protocol.ButtonPress | protocol.ButtonHold, now: float,
                   events: list[LinkEvent]) -> None:
        hello = self._hello
        if not self.is_up or hello is None:
            self._drop(BEFORE_HELLO, f"{message.TYPE} {message.button} before an accepted HELLO")
            return
        if message.button >= hello.buttons:
            self._drop(OUT_OF_RANGE, f"{message.TYPE} {message.button} but the table has "
                                     f"{hello.buttons} buttons")
            return
        kind = ButtonHeld if isinstance(message, protocol.ButtonHold) else ButtonPressed
        events.append(kind(message.button, message.count, at=now))

    def _on_heartbeat(self, message: protocol.Heartbeat, now: float,
                      events: list[LinkEvent]) -> None:
        if self.is_up:
            events.append(Heartbeat(McuStats.from_message(message), at=now))

    def _on_error(self, message: protocol.ErrorReport, now: float,
                  events: list[LinkEvent]) -> None:
        # Reported even before HELLO: reader faults during the firmware's
        # warm-up are exactly what a user needs to see.
        events.append(ReaderFault(message.reader, message.code, message.text, at=now))

    def _on_pong(self, message: protocol.Pong, now: float, events: list[LinkEvent]) -> None:
        sent = self._pings_in_flight.pop(message.token, None)
        if sent is not None:
            events.append(PongReceived(message.token, now - sent, at=now))

    def _on_config(self, message: protocol.Config, now: float, events: list[LinkEvent]) -> None:
        if self.is_up:
            events.append(ConfigReported(message.as_dict(), at=now))

    # ------------------------------------------------------------ timers

    def _run_timers(self, now: float, events: list[LinkEvent]) -> None:
        silent = now - self._last_rx
        if silent > self._heartbeat_timeout:
            self._lost(self._silence_reason(), now, events)
            return
        if self._state in (LinkState.HANDSHAKE, LinkState.SYNCING):
            if self._last_sync_at is None or now - self._last_sync_at >= self._resync_interval:
                self._send_sync(now)
        # Heartbeats normally keep the line busy; if the table was set to a
        # slow heartbeat, a PING keeps the silence watch from firing.
        half = self._heartbeat_timeout / 2
        if silent >= half and (self._last_ping_at is None or now - self._last_ping_at >= half):
            self._send_ping(now)

    def _silence_reason(self) -> str:
        reason = f"no data for {self._heartbeat_timeout:.1f} s"
        if self._dropped_since_rx:
            reason += (f" ({self._dropped_since_rx} unreadable lines: is {self._port_name} the "
                       f"console port instead of the data port?)")
        return reason
