"""An emulator of a PN532 in HSU (UART) mode: frames, ACKs, the commands
the driver uses, and ISO 14443A targets on the selected antenna."""

from __future__ import annotations

from tablefw.readers import pn532 as d

from .fakes import mux_channel


def answer_frame(command: int, data: bytes) -> bytes:
    body = bytes([d.CHIP_TO_HOST, command + 1]) + data
    return (b"\x00\x00\xff" + bytes([len(body), (-len(body)) & 0xFF]) + body
            + bytes([(-sum(body)) & 0xFF, 0x00]))


class Target:
    def __init__(self, nfcid: bytes, sel_res: int = 0x00) -> None:
        self.nfcid = nfcid
        self.sel_res = sel_res


class Pn532Chip:
    def __init__(self, antennas: dict[int, list[Target]] | None = None, mux_pins=None) -> None:
        self.antennas = antennas or {}
        self.mux_pins = mux_pins
        self.awake = False
        self.sam = False
        self.field = False
        self.retries = 0xFF
        self.activated: set[bytes] = set()
        self.outgoing = bytearray()
        self.dead = False
        self.violations: list[str] = []
        self.commands: list[int] = []

    def channel(self) -> int:
        pins = self.mux_pins() if callable(self.mux_pins) else self.mux_pins
        return mux_channel(pins) if pins else 0

    def receive(self, data: bytes) -> None:
        if self.dead:
            return
        data = bytes(data)
        if data[:2] == b"\x55\x55":
            self.awake = True  # HSU wake-up: 55 55 then zeros
            return
        if not self.awake:
            return  # asleep: frames are ignored
        if data[:3] != b"\x00\x00\xff":
            self.violations.append(f"frame without preamble: {data.hex()}")
            return
        length, lcs = data[3], data[4]
        if (length + lcs) & 0xFF:
            self.violations.append("bad LCS")
            self.outgoing += d.NACK
            return
        body = data[5:5 + length]
        if (sum(body) + data[5 + length]) & 0xFF or data[6 + length] != 0x00:
            self.violations.append("bad DCS or postamble")
            self.outgoing += d.NACK
            return
        if body[0] != d.HOST_TO_CHIP:
            self.violations.append(f"TFI {body[0]:02X}")
            return
        self.outgoing += d.ACK
        self._command(body[1], body[2:])

    def send(self, count: int) -> bytes:
        data = bytes(self.outgoing[:count])
        del self.outgoing[:count]
        return data

    def _answer(self, command: int, data: bytes = b"") -> None:
        self.outgoing += answer_frame(command, data)

    def _command(self, command: int, params: bytes) -> None:
        self.commands.append(command)
        if command == d.SAM_CONFIGURATION:
            self.sam = params[:1] == b"\x01"
            self._answer(command)
        elif command == d.GET_FIRMWARE_VERSION:
            self._answer(command, b"\x32\x01\x06\x07")
        elif command == d.RF_CONFIGURATION:
            if params[0] == d.RF_ITEM_FIELD:
                self.field = bool(params[1] & 1)
                if not self.field:
                    self.activated.clear()  # tags lose power
            elif params[0] == d.RF_ITEM_MAX_RETRIES:
                self.retries = params[3]
            self._answer(command)
        elif command == d.IN_LIST_PASSIVE_TARGET:
            if not self.sam:
                self.violations.append("InListPassiveTarget before SAMConfiguration")
            max_targets, baud = params[0], params[1]
            if baud != d.TYPE_A_106 or max_targets not in (1, 2):
                self.violations.append(f"InListPassiveTarget params {params.hex()}")
            self.field = True
            ready = [t for t in self.antennas.get(self.channel(), [])
                     if t.nfcid not in self.activated]
            chosen = ready[:max_targets]
            if not chosen and self.retries == 0xFF:
                return  # retries forever: only the ACK ever comes
            out = bytearray([len(chosen)])
            for number, target in enumerate(chosen, start=1):
                out += bytes([number, 0x00, 0x44, target.sel_res, len(target.nfcid)]) + target.nfcid
                if target.sel_res & d.SEL_RES_ISO14443_4:
                    out += b"\x05\x78\x80\x70\x02"
                self.activated.add(target.nfcid)
            self._answer(command, bytes(out))
        else:
            self.violations.append(f"unknown command {command:02X}")


class EmulatedPN532(d.PN532):
    """The real driver with its byte seam wired to a Pn532Chip."""

    def __init__(self, chip: Pn532Chip, **options) -> None:
        super().__init__(**options)
        self.chip = chip

    def _write(self, data):
        self.chip.receive(data)

    def _read(self, count, timeout_ms):
        return self.chip.send(count)


class FakeUart:
    """busio.UART wired to a Pn532Chip (read returns None when empty)."""

    def __init__(self, chip: Pn532Chip) -> None:
        self.chip = chip

    def write(self, data) -> int:
        self.chip.receive(bytes(data))
        return len(data)

    def read(self, count: int):
        return self.chip.send(count) or None
