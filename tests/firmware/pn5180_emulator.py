"""An emulator of the PN5180 host-interface subset the driver uses.

It models registers, the RF field, the transceive state and ISO 15693
inventory slots, including collisions and masks, and records every rule
the driver breaks in ``violations`` (a correct driver leaves it empty).
"""

from __future__ import annotations

from tablefw.readers import pn5180 as d

from .fakes import mux_channel

EOF_BITS = ~d.TX_CONFIG_EOF_ONLY_MASK & 0xFFFFFFFF


def le_uid(uid: str) -> bytes:
    """The 8 UID bytes as the tag sends them: least significant first."""
    return bytes.fromhex(uid)[::-1]


class Pn5180Chip:
    def __init__(self, antennas: dict[int, list[str]] | None = None, mux_pins=None,
                 firmware: bytes = b"\x06\x03") -> None:
        self.antennas = {k: list(v) for k, v in (antennas or {}).items()}
        self.mux_pins = mux_pins
        self.firmware = firmware
        self.regs = {d.SYSTEM_CONFIG: 0, d.IRQ_STATUS: 0, d.RX_STATUS: 0, d.TX_CONFIG: EOF_BITS}
        self.rf = False
        self.rf_config: tuple[int, int] | None = None
        self.answer = b""
        self.rx_buffer = b""
        self.slots: list[list[str]] | None = None
        self.slot = 0
        self.dead = False
        self.violations: list[str] = []
        self.requests: list[tuple[int, int, int]] = []
        self.commands = 0

    # -- what the antenna sees
    def channel(self) -> int:
        pins = self.mux_pins() if callable(self.mux_pins) else self.mux_pins
        return mux_channel(pins) if pins else 0

    def tags_in_field(self) -> list[str]:
        return self.antennas.get(self.channel(), [])

    # -- the SPI side
    def execute(self, frame: bytes) -> None:
        self.commands += 1
        if self.dead:
            return
        code = frame[0]
        regs = self.regs
        if code == d.WRITE_REGISTER:
            value = int.from_bytes(frame[2:6], "little")
            if frame[1] == d.IRQ_CLEAR:
                regs[d.IRQ_STATUS] &= ~value
            else:
                regs[frame[1]] = value
        elif code == d.WRITE_REGISTER_OR_MASK:
            regs[frame[1]] = regs.get(frame[1], 0) | int.from_bytes(frame[2:6], "little")
        elif code == d.WRITE_REGISTER_AND_MASK:
            regs[frame[1]] = regs.get(frame[1], 0) & int.from_bytes(frame[2:6], "little")
        elif code == d.READ_REGISTER:
            self.answer = regs.get(frame[1], 0).to_bytes(4, "little")
        elif code == d.READ_EEPROM:
            if frame[1:3] != bytes([d.EEPROM_FIRMWARE_VERSION, 2]):
                self.violations.append(f"unexpected EEPROM read {frame.hex()}")
            self.answer = self.firmware
        elif code == d.READ_DATA:
            self.answer = self.rx_buffer
        elif code == d.LOAD_RF_CONFIG:
            self.rf_config = (frame[1], frame[2])
            regs[d.TX_CONFIG] = EOF_BITS  # full frames again
        elif code == d.RF_ON:
            self.rf = True
        elif code == d.RF_OFF:
            self.rf = False
            self.slots = None
        elif code == d.SEND_DATA:
            self._send(frame[2:])
        else:
            self.violations.append(f"unknown command {code:02X}")

    def read(self, count: int) -> bytes:
        if self.dead:
            return b"\xff" * count  # MISO floats high without a chip
        if count > len(self.answer):
            self.violations.append(f"read of {count} bytes, only {len(self.answer)} available")
        data, self.answer = self.answer[:count], b""
        return data.ljust(count, b"\x00")

    # -- RF
    def _send(self, payload: bytes) -> None:
        regs = self.regs
        if (regs[d.SYSTEM_CONFIG] & 7) != 3:
            self.violations.append("SEND_DATA outside the transceive state")
            return
        if not payload:
            if regs[d.TX_CONFIG] & EOF_BITS:
                self.violations.append("empty SEND_DATA while TX_CONFIG sends full frames")
                return
            if self.slots is None or self.slot >= 15:
                self.violations.append("EOF without a 16-slot inventory in progress")
                return
            self.slot += 1
            self._present_slot()
            return
        if regs[d.TX_CONFIG] & EOF_BITS != EOF_BITS:
            self.violations.append("request sent while TX_CONFIG is in EOF-only mode")
            return
        if not self.rf or self.rf_config != (d.RF_TX_ISO15693, d.RF_RX_ISO15693):
            return  # no ISO 15693 field: nothing answers
        flags, command, mask_bits = payload[0], payload[1], payload[2]
        mask_bytes = payload[3:]
        if command != d.CMD_INVENTORY or not flags & 0x04:
            self.violations.append(f"not an Inventory request: {payload.hex()}")
            return
        if len(mask_bytes) != (mask_bits + 7) // 8:
            self.violations.append(f"mask of {mask_bits} bits sent in {len(mask_bytes)} bytes")
            return
        mask = int.from_bytes(mask_bytes, "little")
        self.requests.append((flags, mask_bits, mask))
        responders = [uid for uid in self.tags_in_field()
                      if int(uid, 16) & ((1 << mask_bits) - 1) == mask]
        if flags & 0x20:
            self.slots = [responders]
        else:
            self.slots = [[] for _ in range(16)]
            for uid in responders:
                self.slots[(int(uid, 16) >> mask_bits) & 0xF].append(uid)
        self.slot = 0
        self._present_slot()

    def _present_slot(self) -> None:
        answering = self.slots[self.slot]
        regs = self.regs
        regs[d.IRQ_STATUS] |= 1 << 1  # TX done
        if not answering:
            return
        regs[d.IRQ_STATUS] |= d.IRQ_RX | d.IRQ_RX_SOF
        if len(answering) == 1:
            regs[d.RX_STATUS] = d.RESPONSE_LENGTH
            self.rx_buffer = b"\x00\x00" + le_uid(answering[0])
        else:
            regs[d.RX_STATUS] = d.RESPONSE_LENGTH | d.RX_COLLISION
            self.rx_buffer = b""


class EmulatedPN5180(d.PN5180):
    """The real driver with its SPI seam wired to a Pn5180Chip."""

    def __init__(self, chip: Pn5180Chip, **options) -> None:
        super().__init__(**options)
        self.chip = chip

    def _transceive(self, frame, read_len=0):
        self.chip.execute(bytes(frame))
        if read_len:
            return self.chip.read(read_len)
        return b""


class FakeSpiBus:
    """busio.SPI whose devices are Pn5180Chips selected by their CS pin.

    ``cs`` is the pin object, or a callable returning it (for pins that
    are created later, inside the code under test)."""

    def __init__(self) -> None:
        self.devices: list[tuple[object, Pn5180Chip]] = []
        self.locked = False
        self.configured = None

    def attach(self, cs, chip: Pn5180Chip) -> None:
        self.devices.append((cs, chip))

    def _selected(self) -> Pn5180Chip:
        chosen = [chip for cs, chip in self.devices if not (cs() if callable(cs) else cs).value]
        assert len(chosen) == 1, f"exactly one chip select must be low, got {len(chosen)}"
        return chosen[0]

    def try_lock(self) -> bool:
        if self.locked:
            return False
        self.locked = True
        return True

    def unlock(self) -> None:
        self.locked = False

    def configure(self, baudrate=100000, polarity=0, phase=0, bits=8):
        assert self.locked, "configure() without the lock"
        self.configured = (baudrate, polarity, phase)

    def write(self, data) -> None:
        assert self.locked, "write() without the lock"
        self._selected().execute(bytes(data))

    def readinto(self, buffer, write_value=0) -> None:
        assert self.locked, "readinto() without the lock"
        data = self._selected().read(len(buffer))
        buffer[:] = data
