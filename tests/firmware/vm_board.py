"""The board around the firmware in the VM, on the test's side of the pipe.

The firmware runs on MicroPython with the fake CircuitPython modules of
tests/firmware/vm/circuitpython; whatever they put on a wire arrives here
(:meth:`VmBoard.serve`, see hostboard.py there for the message format). The board
is wired as a ``table_config.py`` says: each reader's chip select drives one
PN5180, modelled by the host's datasheet model (:class:`Pn5180Chip`), behind the
multiplexer select lines and the shared reset net; the USB data channel ends in
the host's protocol codec.

``on_feed(board)`` is asked at every watchdog feed of the firmware's main loop what
to do: ``"go"`` or ``"stop"``.
"""

from __future__ import annotations

from collections.abc import Callable

from homeworlds.sim.pn5180_chip import Pn5180Chip, SharedResetLine
from tablefw import protocol


class Wire:
    """A net driven by one MCU output (a multiplexer select line)."""

    def __init__(self) -> None:
        self.value = False

    @classmethod
    def at(cls, level: bool) -> Wire:
        wire = cls()
        wire.value = level
        return wire


class BridgeClock:
    """The chip models' clock: the VM's microseconds, as its requests stamp them."""

    def __init__(self) -> None:
        self.now_us = 0

    def ticks_us(self) -> int:
        return self.now_us

    def reach(self, us: int) -> None:
        self.now_us = max(self.now_us, us)


class VmBoard:
    def __init__(self, config: dict, on_feed: Callable[[VmBoard], str]) -> None:
        self.config = config
        self.on_feed = on_feed
        self.clock = BridgeClock()
        self.levels: dict[str, bool] = {}  # output pins, as the firmware drives them
        self.wires: dict[str, object] = {}  # pins whose level a model follows
        self.chips: dict[str | int, Pn5180Chip] = {}  # chip select (pin or output) -> chip
        self.zones: dict[int, tuple[Pn5180Chip, int]] = {}  # zone -> (chip, mux channel)
        self.violations: list[str] = []
        self.frames = 0
        self.to_mcu = bytearray()
        self.host_encoder = protocol.Encoder()
        self.decoder = protocol.Decoder(accept=protocol.FROM_MCU)
        self.received: list = []
        self.feeds = 0
        select = {}
        decoder = config.get("nss_decoder")
        self.address = list(decoder["address"]) if decoder else []
        self.nss_enable = decoder["enable"] if decoder else None
        self.latch = config.get("mux_latch")
        self.select_names: list[str] = list(config.get("mux", []))
        self.held: dict[int, list[bool]] = {}  # latch decoder output -> what its board holds
        self.irqs: dict[str, Pn5180Chip] = {}  # IRQ input pin -> chip
        for entry in config["readers"]:
            names = entry.get("mux", config.get("mux", []))
            for name in names:
                select.setdefault(name, Wire())
            if self.latch is not None:  # its board's 74HCT4514 holds what it latched
                pins = self._latched(entry["cs"])
            else:
                pins = [select[name] for name in names]
            chip = Pn5180Chip({}, mux_pins=pins, clock=self.clock)
            self.chips[entry["cs"]] = chip
            if entry.get("irq") is not None:
                self.irqs[entry["irq"]] = chip
            for channel, zone in enumerate(entry["zones"]):
                self.zones[zone] = (chip,
                                    entry.get("channels", range(len(entry["zones"])))[channel])
        self.wires.update(select)
        if config.get("reset") is not None:
            self.wires[config["reset"]] = SharedResetLine(self.chips.values())

    def _latched(self, output: int):
        def pins():
            return [Wire.at(level) for level in self.held.get(output, [False] * 4)]

        return pins

    def _address(self) -> int:
        return sum(1 << bit for bit, name in enumerate(self.address) if self.levels.get(name))

    # ------------------------------------------------------------ test verbs

    def place(self, zone: int, uids) -> None:
        chip, channel = self.zones[zone]
        chip.set_tags(channel, list(uids))

    def send(self, message: protocol.Message) -> None:
        """A line from the host to the firmware."""
        self.to_mcu += self.host_encoder.encode(message)

    def of(self, kind: type) -> list:
        return [message for message in self.received if isinstance(message, kind)]

    # ------------------------------------------------------------ the wires

    def _selected(self) -> Pn5180Chip | None:
        if self.nss_enable is not None:  # chip selects through the decoder
            enabled = self.levels.get(self.nss_enable) is False
            low = [chip for output, chip in self.chips.items()
                   if enabled and isinstance(output, int) and output == self._address()]
        else:
            low = [chip for pin, chip in self.chips.items() if self.levels.get(pin) is False]
        if len(low) != 1:
            self.violations.append(f"SPI transfer with {len(low)} chips selected")
            return None
        return low[0]

    def serve(self, request: bytes) -> bytes:
        """One request from the VM (see hostboard.py for the format); returns the answer."""
        at = 0
        while request[at] == ord("E"):
            name, level = f"GP{request[at + 1]}", request[at + 2] == 1
            self.clock.reach(int.from_bytes(request[at + 3:at + 7], "little"))
            self.levels[name] = level
            wire = self.wires.get(name)
            if wire is not None:
                wire.value = level  # type: ignore[attr-defined]
            if self.latch is not None and self.levels.get(self.latch):  # LE of one board high
                self.held[self._address()] = [bool(self.levels.get(name))
                                              for name in self.select_names]
            at += 7
        verb = chr(request[at])
        self.clock.reach(int.from_bytes(request[at + 1:at + 5], "little"))
        argument = request[at + 5:]
        payload = b""
        if verb == "W":
            self.frames += 1
            chip = self._selected()
            if chip is not None:
                chip.execute(bytes(argument))
        elif verb == "R":
            count = argument[0]
            chip = self._selected()
            payload = chip.read(count) if chip is not None else b"\xff" * count
        elif verb == "I":
            payload = len(self.to_mcu).to_bytes(4, "little")
        elif verb == "U":
            count = min(int.from_bytes(argument[:2], "little"), 4096)
            payload = bytes(self.to_mcu[:count])
            del self.to_mcu[:count]
        elif verb == "O":
            self.received += self.decoder.feed(bytes(argument))
        elif verb == "P":
            chip = self.irqs.get(f"GP{argument[0]}")
            payload = bytes([int(chip.irq_pin) if chip is not None else 0])
        elif verb == "F":
            self.feeds += 1
            payload = bytes([self.on_feed(self) == "stop"])
        else:
            raise ValueError(f"unknown request from the VM: {bytes(request[:40])!r}")
        # The IRQ inputs: the VM asks for their level when it reads them (3 = ask, "P").
        levels = b"".join(bytes([int(pin[2:]), 3]) for pin in self.irqs)
        return ((self.clock.now_us & 0xFFFFFFFF).to_bytes(4, "little") + bytes([len(self.irqs)])
                + levels + payload)
