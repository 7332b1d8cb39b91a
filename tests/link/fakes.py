"""A fake clock and a scripted table MCU that speaks the real codec."""

from __future__ import annotations

from collections.abc import Callable

from homeworlds.link import LinkEvent, PipeTransport, TableLink, TransportError
from tablefw import protocol as p

A = "E004015000000001"
B = "E004015000000002"
C = "E004015000000003"


class FakeClock:
    """Seconds that move only when the test says so (kept as integer ms: no float drift)."""

    def __init__(self, start_ms: int = 1000) -> None:
        self.ms = start_ms

    def __call__(self) -> float:
        return self.ms / 1000

    def advance(self, seconds: float) -> None:
        self.ms += round(seconds * 1000)


class FakeMcu:
    """The table's side of the wire, scripted by the test.

    ``write(bytes)`` and ``read() -> bytes`` reach the wire (a PipeTransport
    end, or a pty master). ``service()`` answers what the host sent, as the
    firmware does: SYNC with HELLO + snapshot, PING with PONG, CFG with the
    settings. Switches: ``answer_sync``, ``answer_ping``, ``protocol_version``.
    """

    def __init__(self, write: Callable[[bytes], None], read: Callable[[], bytes], *,
                 zones: int = 4, readers: int = 1, buttons: int = 2,
                 firmware: str = "0.1.0", protocol_version: int = p.PROTOCOL_VERSION) -> None:
        self._write = write
        self._read = read
        self.zones = zones
        self.readers = readers
        self.buttons = buttons
        self.firmware = firmware
        self.protocol_version = protocol_version
        self.answer_sync = True
        self.answer_ping = True
        self.encoder = p.Encoder()
        self.decoder = p.Decoder(accept=p.FROM_HOST)
        self.tags: list[tuple[str, ...]] = [() for _ in range(zones)]
        self.received: list[p.Message] = []
        self.settings = {"hb_ms": 1000, "snap_ms": 5000}
        self.snap_id = 0
        self.write_failures = 0
        self.presses = [0] * buttons

    @classmethod
    def on_pipe(cls, end: PipeTransport, **options) -> FakeMcu:
        end.open()
        return cls(end.write, end.read, **options)

    # ---------------------------------------------------------------- output

    def send_raw(self, data: bytes) -> None:
        try:
            self._write(data)
        except TransportError:  # nobody listens (unplugged): the firmware keeps going
            self.write_failures += 1

    def send(self, message: p.Message) -> None:
        self.send_raw(self.encoder.encode(message))

    def hello(self) -> p.Hello:
        return p.Hello(self.firmware, self.protocol_version, self.zones, self.readers, self.buttons)

    def announce(self) -> None:
        """HELLO and a snapshot, as after boot or in answer to SYNC."""
        self.send(self.hello())
        self.send_snapshot()

    def send_snapshot(self) -> None:
        self.send(p.Snapshot(self.snap_id, self.tags))
        self.snap_id += 1

    def set_zone(self, zone: int, uids, *, report: bool = True) -> None:
        self.tags[zone] = tuple(uids)
        if report:
            self.send(p.ZoneState(zone, uids))

    def press(self, button: int) -> None:
        self.presses[button] += 1
        self.send(p.ButtonPress(button, self.presses[button]))

    def heartbeat(self, uptime_ms: int = 1000) -> None:
        self.send(p.Heartbeat(uptime_ms, 500, 120, 33, (0,) * self.readers, (), 0, 0))

    def skip_lines(self, count: int = 1) -> None:
        """Lose ``count`` lines on the wire: their sequence numbers never arrive."""
        self.encoder.seq = (self.encoder.seq + count) % p.SEQ_MODULO

    def reboot(self) -> None:
        """Restart: the sequence starts at 0 again, then HELLO and a snapshot."""
        self.encoder = p.Encoder()
        self.decoder = p.Decoder(accept=p.FROM_HOST)
        self.snap_id = 0
        self.announce()

    # ---------------------------------------------------------------- input

    def service(self) -> list[p.Message]:
        """Read and answer what the host sent; returns those messages."""
        try:
            data = self._read()
        except TransportError:
            return []
        messages = [m for m in self.decoder.feed(data) if isinstance(m, p.Message)]
        for message in messages:
            self.received.append(message)
            if isinstance(message, p.Sync) and self.answer_sync:
                self.announce()
            elif isinstance(message, p.Ping) and self.answer_ping:
                self.send(p.Pong(message.token))
            elif isinstance(message, p.Config):
                self.settings.update(message.as_dict())
                self.send(p.Config(self.settings))
        return messages

    def received_of(self, kind: type) -> list[p.Message]:
        return [m for m in self.received if isinstance(m, kind)]


class Bench:
    """A TableLink, a pipe, a fake clock and a FakeMcu, wired together."""

    def __init__(self, *, expected_zones: int | None = 4, mcu_options: dict | None = None,
                 **link_options) -> None:
        self.clock = FakeClock()
        self.host_end, self.mcu_end = PipeTransport.pair("table")
        self.mcu = FakeMcu.on_pipe(self.mcu_end, **(mcu_options or {}))
        self.factory_calls = 0
        self.link = TableLink(self._factory, clock=self.clock, expected_zones=expected_zones,
                              **link_options)
        self.events: list[LinkEvent] = []

    def _factory(self) -> PipeTransport:
        self.factory_calls += 1
        return self.host_end

    def poll(self) -> list[LinkEvent]:
        events = self.link.poll(0)
        self.events.extend(events)
        return events

    def exchange(self, rounds: int = 4) -> list[LinkEvent]:
        """Let host and MCU talk until both are quiet; returns the host's events."""
        events = []
        for _ in range(rounds):
            events += self.poll()
            answered = self.mcu.service()
            if not answered and not self.host_end.pending():
                break
        events += self.poll()
        return events

    def advance(self, seconds: float) -> list[LinkEvent]:
        """Move the clock, then exchange."""
        self.clock.advance(seconds)
        return self.exchange()

    def connect(self) -> list[LinkEvent]:
        """Open the link and finish the handshake and the first snapshot."""
        return self.exchange()


def of_type(events, kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]
