"""A host TableLink talking to a SimulatedMcu in-process, on the MCU's virtual clock."""

from __future__ import annotations

from homeworlds.link import LinkState, TableLink
from homeworlds.sim import SimulatedMcu


class McuPort:
    """A Transport whose other end is ``mcu``: reading runs the firmware for the read's
    timeout (virtual time) when nothing is waiting."""

    name = "sim-mcu"

    def __init__(self, mcu: SimulatedMcu) -> None:
        self.mcu = mcu
        self._open = False
        self.written: list[bytes] = []

    @property
    def is_open(self) -> bool:
        return self._open

    def open(self) -> None:
        self._open = True

    def close(self) -> None:
        self._open = False

    def write(self, data: bytes) -> None:
        self.written.append(bytes(data))
        self.mcu.write(data)

    def read(self, max_bytes: int = 4096, timeout: float = 0.0) -> bytes:
        if not self.mcu.in_waiting:
            self.mcu.run_for(max(1, int(timeout * 1000)))
        return self.mcu.read(max_bytes)


class LinkBench:
    """``mcu`` and a TableLink to it; ``events`` collects every event."""

    def __init__(self, mcu: SimulatedMcu, expected_zones: int | None = None) -> None:
        self.mcu = mcu
        self.port = McuPort(mcu)
        self.link = TableLink(lambda: self.port, clock=lambda: mcu.clock() / 1000,
                              expected_zones=expected_zones)
        self.events: list = []

    def poll(self, times: int = 1, timeout: float = 0.02) -> list:
        new = []
        for _ in range(times):
            new += self.link.poll(timeout)
        self.events += new
        return new

    def until(self, condition, limit: int = 2000, timeout: float = 0.02) -> list:
        new = []
        for _ in range(limit):
            new += self.poll(1, timeout)
            if condition():
                return new
        raise AssertionError(f"not reached after {limit} polls; link {self.link.state}, "
                             f"events {[type(e).__name__ for e in self.events]}, "
                             f"last error {self.link.stats.last_error}")

    def ready(self) -> list:
        return self.until(lambda: self.link.state is LinkState.READY)

    def of_type(self, kind) -> list:
        return [event for event in self.events if isinstance(event, kind)]
