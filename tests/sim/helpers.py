"""A minimal host end for the simulator tests: decode MCU lines into a zone view."""

from __future__ import annotations

from tablefw import protocol as p


class HostView:
    """Feeds MCU bytes through the real codec and keeps every zone's tag set as the
    host would: replaced by each snapshot, updated by each ZONE line."""

    def __init__(self) -> None:
        self.decoder = p.Decoder(accept=p.FROM_MCU)
        self.encoder = p.Encoder()
        self.zones: dict[int, tuple[str, ...]] = {}
        self.messages: list = []

    def feed(self, data: bytes) -> list:
        new = self.decoder.feed(data)
        for message in new:
            if isinstance(message, p.Snapshot):
                self.zones = dict(enumerate(message.zones))
            elif isinstance(message, p.ZoneState):
                self.zones[message.zone] = message.uids
        self.messages.extend(new)
        return new

    def of_type(self, kind) -> list:
        return [m for m in self.messages if isinstance(m, kind)]

    def zone_sets(self, count: int) -> tuple[tuple[str, ...], ...]:
        return tuple(self.zones.get(zone, ()) for zone in range(count))

    def request(self, message) -> bytes:
        return self.encoder.encode(message)
