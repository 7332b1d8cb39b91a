"""An NXP PN5180 with ISO 15693 tags in its field, modelled from the datasheets.

The model follows the chip, not any driver: a driver that breaks a rule of the
chip gets what the chip would give it (a general error, no answer, a garbled
frame), and the rules it broke are listed in :attr:`Pn5180Chip.violations`.

Time is simulated: every SPI frame moves a shared microsecond clock (see
:class:`~homeworlds.sim.sim_clock.SimClock`) by its transfer time plus the
CircuitPython overhead of the call (:mod:`homeworlds.sim.scan_timing`), and the
air interface runs on that clock.

Sources and figures
-------------------
PN5180 datasheet (NXP, rev. 3.x), host interface and registers:

- transceiver states in SYSTEM_CONFIG's command field (bits 0-2): writing 3
  (Transceive) from Idle (0) enters *WaitTransmit*; SEND_DATA starts
  *Transmitting*; at the end of the frame TX_IRQ (IRQ_STATUS bit 1) is set and
  the chip *waits to receive*; an answer's start sets RX_SOF_DET (bit 14), its
  end RX_IRQ (bit 0) and RX_STATUS, and the transceive loop goes back to
  *WaitTransmit*. Without an answer the chip keeps waiting to receive (no
  receive timer is armed here), and SEND_DATA in any state but WaitTransmit
  sets GENERAL_ERROR_IRQ (bit 17) and sends nothing: the driver must go
  Idle -> Transceive again before the next EOF.
- RX_STATUS (0x13): bits 0-8 bytes received, bit 16 data integrity (CRC)
  error, bit 17 protocol error, bit 18 collision detected.
- LOAD_RF_CONFIG 0x0D/0x8D loads ISO 15693 ASK100 26 kbit/s; a reset (the
  RST pin, shared by several chips on a table) forgets it: with the reset
  default the modulation is not ISO 15693 and no tag answers.

ISO/IEC 15693-2/-3, high data rate, one subcarrier:

- reader -> tag, 1-out-of-4 pulse position coding: 75.52 us per pair of bits,
  i.e. 302.08 us per byte (26.48 kbit/s); SOF 75.52 us, EOF 37.76 us. The
  5-byte Inventory request (flags, command, mask length, CRC) is 1.62 ms.
- tag -> reader: 37.76 us per bit, SOF and EOF 56.64 us each; a 12-byte
  Inventory answer (flags, DSFID, UID, CRC) is 3.74 ms.
- tag response delay t1 = 4352/fc = 320.9 us after the reader's EOF.
- request flags: bit 0 two subcarriers, bit 1 high data rate. RF configuration
  0x8D receives one subcarrier at the high data rate only; a request asking
  for another answer form gets nothing the chip can decode.
- a tag is ready 1 ms after the field reaches it (field on, or the antenna
  multiplexer switched to its pad: with relays, once their contacts closed,
  see :mod:`homeworlds.sim.board`).
- 16-slot inventory: each tag counts the EOFs it hears and answers when the
  count reaches its slot (4 bits of its UID above the mask). A tag that
  misses an EOF (``ReadModel.eof_miss``, decided per tag and per EOF)
  answers a slot late; it keeps counting EOFs sent after the 16th slot.

RF_ON (0x16), datasheet host interface: parameter bit 0 = 1 switches the field
on without collision avoidance; with bit 0 = 0 the chip first senses for an
external field and, if there is one (another reader's, :attr:`external_field`),
leaves its field off and sets RF_ACTIVE_ERROR_IRQ (IRQ_STATUS bit 10). A field
that comes on sets TX_RFON_IRQ (bit 9); RF_OFF sets TX_RFOFF_IRQ (bit 8).

Read model (:class:`ReadModel`, documented in docs/firmware.md): each tag hears
an Inventory request with a probability that depends on how it lies (flat on
the pad, or on its side) and how high it sits in a stack; two tags answering in
one slot give a flagged collision, or - as happens when one answer is much
stronger - an unflagged overlap that the chip receives as a CRC error.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from homeworlds.sim.sim_clock import SimClock

# -- host interface (PN5180 datasheet); kept here so the model does not borrow the driver's view
WRITE_REGISTER = 0x00
WRITE_REGISTER_OR_MASK = 0x01
WRITE_REGISTER_AND_MASK = 0x02
WRITE_REGISTER_MULTIPLE = 0x03
READ_REGISTER = 0x04
READ_EEPROM = 0x07
SEND_DATA = 0x09
READ_DATA = 0x0A
LOAD_RF_CONFIG = 0x11
RF_ON = 0x16
RF_OFF = 0x17

SYSTEM_CONFIG = 0x00
IRQ_ENABLE = 0x01
IRQ_STATUS = 0x02
IRQ_CLEAR = 0x03
RX_STATUS = 0x13
TX_CONFIG = 0x18

IRQ_RX = 1 << 0
IRQ_TX = 1 << 1
IRQ_TX_RFOFF = 1 << 8
IRQ_TX_RFON = 1 << 9
IRQ_RF_ACTIVE_ERROR = 1 << 10
IRQ_RX_SOF = 1 << 14
IRQ_GENERAL_ERROR = 1 << 17
RX_CRC_ERROR = 1 << 16
RX_PROTOCOL_ERROR = 1 << 17
RX_COLLISION = 1 << 18

# ISO/IEC 15693-3 request flags
REQ_TWO_SUBCARRIERS = 1 << 0
REQ_HIGH_DATA_RATE = 1 << 1

EEPROM_FIRMWARE_VERSION = 0x12
RF_ISO15693 = (0x0D, 0x8D)
#: TX_CONFIG bits the ISO 15693 configuration sets for full frames (start symbol,
#: data); clearing them makes SEND_DATA transmit only an EOF.
TX_FRAME_BITS = (1 << 6) | (1 << 7) | (1 << 10)

# -- ISO/IEC 15693 timing, microseconds
FC_MHZ = 13.56
VCD_BYTE_US = 302.08
VCD_SOF_US = 75.52
VCD_EOF_US = 37.76
VICC_BIT_US = 37.76
VICC_SOF_US = 56.64
VICC_EOF_US = 56.64
T1_US = 4352 / FC_MHZ
TAG_POWER_UP_US = 1000.0
ANSWER_BYTES = 12  # flags, DSFID, 8 UID bytes, CRC (the chip strips the CRC: 10 bytes read)

IDLE = "Idle"
WAIT_TRANSMIT = "WaitTransmit"
TRANSMITTING = "Transceiving"
WAIT_RECEIVE = "WaitReceive"
RECEIVING = "Receiving"


def request_air_us(payload_bytes: int) -> float:
    """Air time of a reader frame of ``payload_bytes`` (the CRC is added)."""
    return VCD_SOF_US + (payload_bytes + 2) * VCD_BYTE_US + VCD_EOF_US


def answer_air_us(total_bytes: int = ANSWER_BYTES) -> float:
    return VICC_SOF_US + total_bytes * 8 * VICC_BIT_US + VICC_EOF_US


def le_uid(uid: str) -> bytes:
    """The 8 UID bytes as the tag sends them: least significant first."""
    return bytes.fromhex(uid)[::-1]


@dataclass(frozen=True)
class Tag:
    """A tag in a pad's field. ``pose``: "flat" (lying on the pad) or "side"
    (a piece on its side holds its tag at right angles to the field);
    ``level``: 0 on the pad, 1 on top of one other piece, ..."""

    uid: str
    pose: str = "flat"
    level: int = 0

    def __post_init__(self) -> None:
        if self.pose not in ("flat", "side"):
            raise ValueError(f"tag {self.uid}: pose must be 'flat' or 'side', got {self.pose!r}")
        if self.level < 0:
            raise ValueError(f"tag {self.uid}: level must be >= 0")


@dataclass(frozen=True)
class ReadModel:
    """Probabilities of the air interface.

    ``flat``: a flat tag on the pad hears a request; ``side``: the same for a
    tag on its side; ``per_level``: factor per piece underneath (a stacked tag
    is farther from the antenna); ``garble``: a single answer arrives with a
    CRC error; ``unflagged_collision``: two answers in one slot overlap without
    the chip flagging a collision (received as a CRC error instead).
    """

    flat: float = 0.998
    side: float = 0.95
    per_level: float = 0.95
    garble: float = 0.005
    unflagged_collision: float = 0.10
    eof_miss: float = 0.0
    """Probability that a tag waiting for its slot misses one EOF (and so answers late)."""

    def hears(self, tag: Tag) -> float:
        base = self.flat if tag.pose == "flat" else self.side
        return base * self.per_level ** tag.level


#: Every tag always heard, no garbled frame, every collision flagged.
PERFECT = ReadModel(flat=1.0, side=1.0, per_level=1.0, garble=0.0, unflagged_collision=0.0)


def as_tag(item: str | Tag) -> Tag:
    return item if isinstance(item, Tag) else Tag(item)


class Pn5180Chip:
    """One PN5180 and the tags on its antennas.

    ``antennas``: mux channel -> tags (UID strings or :class:`Tag`);
    ``mux_pins``: the select pins (or a callable giving them), least
    significant first; ``clock``: anything with ``ticks_us()`` (a
    :class:`~homeworlds.sim.sim_clock.SimClock`); ``model``: a :class:`ReadModel`;
    ``rng``: a ``random.Random``.
    """

    def __init__(self, antennas: dict[int, Iterable[str | Tag]] | None = None, mux_pins=None,
                 clock=None, model: ReadModel = PERFECT, rng: random.Random | None = None,
                 firmware: bytes = b"\x06\x03") -> None:
        if clock is None:
            clock = SimClock()
        self.clock = clock
        self.antennas: dict[int, list[Tag]] = {}
        for channel, tags in (antennas or {}).items():
            self.set_tags(channel, tags)
        self.mux_pins = mux_pins
        self.model = model
        self.rng = rng if rng is not None else random.Random(0)
        self.firmware = firmware
        self.dead = False
        self.violations: list[str] = []
        self.requests: list[tuple[int, int, int]] = []
        self.general_errors = 0
        self.commands = 0
        self.resets = 0
        self.air_us = 0.0  # time the reader transmitted
        self._garble_pending = 0
        self._fail_send_pending = False
        #: Whether another field is sensed (set by the board); None: never.
        self.external_field: Callable[[Pn5180Chip], bool] | None = None
        #: The antenna connected now and since when (``route(now_us)`` -> (channel or
        #: None, since_us)), set by a board with relays; None: the select pins decide at once.
        self.route: Callable[[float], tuple[int | None, float]] | None = None
        #: Called after the field switched on or off (the board's supply budget).
        self.on_field: Callable[[Pn5180Chip], None] | None = None
        self.rf_refused = 0
        self._reset_state()

    # ------------------------------------------------------------ test verbs

    def set_tags(self, channel: int, tags: Iterable[str | Tag]) -> None:
        self.antennas[channel] = [as_tag(t) for t in tags]

    def garble_next(self, count: int = 1) -> None:
        """The next ``count`` single answers arrive with a flipped bit (CRC error)."""
        self._garble_pending += count

    def fail_next_send(self) -> None:
        """The next SEND_DATA ends in a general error (as a chip in trouble does)."""
        self._fail_send_pending = True

    def reset(self) -> None:
        """The RST line pulsed (or power lost): registers, field and the loaded
        RF configuration are gone."""
        self.resets += 1
        was_on = getattr(self, "rf", False)
        self._reset_state()
        if was_on and self.on_field is not None:
            self.on_field(self)

    def _reset_state(self) -> None:
        self.regs = {SYSTEM_CONFIG: 0, IRQ_ENABLE: 0, IRQ_STATUS: 0, RX_STATUS: 0, TX_CONFIG: 0}
        self._state = IDLE
        self.rf = False
        self.rf_config: tuple[int, int] | None = None
        self.answer = b""
        self.rx_buffer = b""
        self._events: list[tuple[float, str, object]] = []
        self._field_since = 0.0
        self._channel: int | None = None
        self._round: dict | None = None  # tags' view of a running inventory
        self._answering_until = 0.0
        self._tx_started = 0.0

    @property
    def state(self) -> str:
        """The transceiver state now (Idle, WaitTransmit, Transceiving, WaitReceive, Receiving)."""
        self._run_until(self.now)
        return self._state

    @property
    def irq_pin(self) -> bool:
        """The IRQ output: high while an IRQ_STATUS bit that IRQ_ENABLE lets through
        is set (datasheet: IRQ pin, active high after reset)."""
        if self.dead:
            return False
        self._run_until(self.now)
        return bool(self.regs[IRQ_STATUS] & self.regs[IRQ_ENABLE])

    @property
    def now(self) -> float:
        return self.clock.now_us

    def channel(self) -> int:
        pins = self.mux_pins() if callable(self.mux_pins) else self.mux_pins
        if not pins:
            return 0
        return sum(1 << bit for bit, pin in enumerate(pins) if pin.value)

    # ------------------------------------------------------------ SPI side

    def execute(self, frame: bytes) -> None:
        """One command frame (CS low ... high)."""
        self.commands += 1
        if self.dead or not frame:
            return
        now = self.now
        self._run_until(now)
        self._watch_channel(now)
        code = frame[0]
        regs = self.regs
        if code == WRITE_REGISTER_MULTIPLE:
            # Sets of (register, action 1 write / 2 OR / 3 AND, value LE), applied in order.
            sets = frame[1:]
            if not sets or len(sets) % 6:
                self.violations.append(
                    f"WRITE_REGISTER_MULTIPLE of {len(frame)} bytes: {frame.hex()}")
                return
            actions = {1: WRITE_REGISTER, 2: WRITE_REGISTER_OR_MASK, 3: WRITE_REGISTER_AND_MASK}
            for start in range(0, len(sets), 6):
                action = actions.get(sets[start + 1])
                if action is None:
                    self.violations.append(f"WRITE_REGISTER_MULTIPLE action {sets[start + 1]:02X}")
                    return
                single = bytes([action, sets[start]]) + sets[start + 2:start + 6]
                self._write_register(action, single, now)
            return
        if code in (WRITE_REGISTER, WRITE_REGISTER_OR_MASK, WRITE_REGISTER_AND_MASK):
            self._write_register(code, frame, now)
        elif code == READ_REGISTER:
            self.answer = regs.get(frame[1], 0).to_bytes(4, "little")
        elif code == READ_EEPROM:
            if frame[1:3] != bytes([EEPROM_FIRMWARE_VERSION, 2]):
                self.violations.append(f"unexpected EEPROM read {frame.hex()}")
            self.answer = self.firmware
        elif code == READ_DATA:
            self.answer = self.rx_buffer
        elif code == LOAD_RF_CONFIG:
            self.rf_config = (frame[1], frame[2])
            regs[TX_CONFIG] = TX_FRAME_BITS | 0x0F  # full frames again
        elif code == RF_ON:
            self._rf_on(frame, now)
        elif code == RF_OFF:
            self._rf_off()
        elif code == SEND_DATA:
            self._send(frame[2:], now)
        else:
            self.violations.append(f"unknown command {code:02X}")

    def _rf_on(self, frame: bytes, now: float) -> None:
        """RF_ON: refused (RF active error) when another field is on and collision
        avoidance was asked for; else the field comes on."""
        regs = self.regs
        avoid = len(frame) < 2 or not frame[1] & 0x01
        if not self.rf and avoid and self.external_field is not None \
                and self.external_field(self):
            regs[IRQ_STATUS] |= IRQ_RF_ACTIVE_ERROR
            self.rf_refused += 1
            return
        regs[IRQ_STATUS] |= IRQ_TX_RFON
        if not self.rf:
            self.rf = True
            self._field_since = now
            if self.on_field is not None:
                self.on_field(self)

    def _rf_off(self) -> None:
        """RF_OFF: the field goes, and with it the tags' power and any exchange."""
        was_on = self.rf
        self.rf = False
        self.regs[IRQ_STATUS] |= IRQ_TX_RFOFF
        self._round = None  # tags lose power
        if self._state in (TRANSMITTING, WAIT_RECEIVE, RECEIVING):
            self._events.clear()
        if was_on and self.on_field is not None:
            self.on_field(self)

    def _write_register(self, code: int, frame: bytes, now: float) -> None:
        """WRITE_REGISTER (IRQ_CLEAR clears status bits), or its OR/AND mask forms."""
        regs = self.regs
        if len(frame) != 6:
            self.violations.append(f"register write of {len(frame)} bytes: {frame.hex()}")
            return
        reg, value = frame[1], int.from_bytes(frame[2:6], "little")
        if code == WRITE_REGISTER and reg == IRQ_CLEAR:
            regs[IRQ_STATUS] &= ~value
            return
        old = regs.get(reg, 0)
        if code == WRITE_REGISTER:
            new = value
        else:
            new = old | value if code == WRITE_REGISTER_OR_MASK else old & value
        regs[reg] = new & 0xFFFFFFFF
        if reg == SYSTEM_CONFIG:
            self._command_changed(old & 7, new & 7, now)

    def read(self, count: int) -> bytes:
        """The answer frame that follows a read command."""
        if self.dead:
            return b"\xff" * count  # MISO floats high without a chip
        if count > len(self.answer):
            self.violations.append(f"read of {count} bytes, only {len(self.answer)} available")
        data, self.answer = self.answer[:count], b""
        return data.ljust(count, b"\x00")

    # ------------------------------------------------------------ the transceiver

    def _command_changed(self, old: int, new: int, now: float) -> None:
        if new == old:
            return
        if new == 0:
            if self._state in (TRANSMITTING, RECEIVING):
                self._events.clear()  # aborted
            elif self._state == WAIT_RECEIVE:
                self._events.clear()
            self._state = IDLE
        elif new == 3 and old == 0:
            self._state = WAIT_TRANSMIT

    def _general_error(self, why: str) -> None:
        self.regs[IRQ_STATUS] |= IRQ_GENERAL_ERROR
        self.general_errors += 1
        self.violations.append(why)

    def _send(self, payload: bytes, now: float) -> None:
        if self._state != WAIT_TRANSMIT:
            self._general_error(f"SEND_DATA in state {self._state} "
                                "(needs Idle -> Transceive first)")
            return
        if self._fail_send_pending:
            self._fail_send_pending = False
            self.regs[IRQ_STATUS] |= IRQ_GENERAL_ERROR
            self.general_errors += 1
            return
        if now < self._answering_until:
            self.violations.append("reader transmitted while a tag was still answering")
        eof_only = not self.regs[TX_CONFIG] & TX_FRAME_BITS
        if eof_only and payload:
            self.violations.append("SEND_DATA with data while TX_CONFIG sends only an EOF")
        if not eof_only and not payload:
            self.violations.append("empty SEND_DATA while TX_CONFIG sends full frames")
        air = VCD_EOF_US if eof_only else request_air_us(len(payload))
        self._tx_started = now
        self.air_us += air
        self._state = TRANSMITTING
        self._events.append((now + air, "tx_end", (bytes(payload), eof_only)))

    def _run_until(self, now: float) -> None:
        while self._events:
            self._events.sort(key=lambda e: e[0])
            at, kind, data = self._events[0]
            if at > now:
                return
            self._events.pop(0)
            getattr(self, "_on_" + kind)(at, data)

    def _watch_channel(self, now: float) -> None:
        channel = self.channel()
        if channel != self._channel:
            if self._channel is not None:
                self._round = None  # the other pad's tags lost the field
            self._channel = channel
            self._field_since = max(self._field_since, now)

    def _on_tx_end(self, at: float, data) -> None:
        payload, eof_only = data
        self.regs[IRQ_STATUS] |= IRQ_TX
        self._state = WAIT_RECEIVE
        responders = self._responders(payload, eof_only, at)
        if responders:
            sof = at + T1_US
            end = sof + answer_air_us()
            self._answering_until = end
            self._events.append((sof, "rx_sof", None))
            self._events.append((end, "rx_end", responders))

    def _antenna(self, at: float) -> tuple[int | None, float]:
        """The antenna the field reaches at ``at`` and since when."""
        if self.route is not None:
            return self.route(at)
        return self._channel or 0, self._field_since

    def _tags_listening(self, at: float) -> bool:
        if not (self.rf and self.rf_config == RF_ISO15693):
            return False
        channel, since = self._antenna(at)
        if channel is None:
            return False
        # A tag takes a request only if it was powered up when the request began (its
        # SOF): a tag still powering up misses the frame's start (ISO/IEC 15693-3,
        # VICC power-up: ready to receive within 1 ms of the field's activation).
        return self._tx_started - max(self._field_since, since) >= TAG_POWER_UP_US

    def _responders(self, payload: bytes, eof_only: bool, at: float) -> list[Tag]:
        if not self._tags_listening(at):
            self._round = None
            return []
        if eof_only:
            rnd = self._round
            if rnd is None or rnd["slots"] == 1:
                return []
            rnd["slot"] += 1
            miss = self.model.eof_miss
            counts = rnd["counts"]
            waiting = rnd["waiting"]
            for tag in waiting:
                if not miss or self.rng.random() >= miss:
                    counts[tag.uid] += 1
            answering = [tag for tag in waiting if counts[tag.uid] == rnd["slot_of"][tag.uid]]
            rnd["waiting"] = [tag for tag in waiting if tag not in answering]
            return answering
        if len(payload) < 3 or payload[1] != 0x01 or not payload[0] & 0x04:
            self.violations.append(f"not an Inventory request: {payload.hex()}")
            self._round = None
            return []
        if payload[0] & REQ_TWO_SUBCARRIERS or not payload[0] & REQ_HIGH_DATA_RATE:
            # The tags answer, but not in the form RF configuration 0x8D receives
            # (one subcarrier, high data rate): the chip decodes no frame.
            self.violations.append(f"Inventory flags {payload[0]:02X}: the answer is not "
                                   "one subcarrier at the high data rate")
            self._round = None
            return []
        flags, mask_bits = payload[0], payload[2]
        mask_bytes = payload[3:]
        if len(mask_bytes) != (mask_bits + 7) // 8:
            self.violations.append(f"mask of {mask_bits} bits sent in {len(mask_bytes)} bytes")
            self._round = None
            return []
        mask = int.from_bytes(mask_bytes, "little") & ((1 << mask_bits) - 1)
        self.requests.append((flags, mask_bits, mask))
        channel, _since = self._antenna(at)
        heard = [tag for tag in self.antennas.get(channel or 0, [])
                 if int(tag.uid, 16) & ((1 << mask_bits) - 1) == mask
                 and self.rng.random() < self.model.hears(tag)]
        if flags & 0x20:
            self._round = {"slots": 1}
            return heard
        slot_of = {tag.uid: (int(tag.uid, 16) >> mask_bits) & 0xF for tag in heard}
        answering = [tag for tag in heard if slot_of[tag.uid] == 0]
        self._round = {"slots": 16, "slot": 0, "slot_of": slot_of,
                       "counts": {tag.uid: 0 for tag in heard},
                       "waiting": [tag for tag in heard if tag not in answering]}
        return answering

    def _on_rx_sof(self, at: float, data) -> None:
        if self._state == WAIT_RECEIVE:
            self.regs[IRQ_STATUS] |= IRQ_RX_SOF
            self._state = RECEIVING

    def _on_rx_end(self, at: float, responders: list[Tag]) -> None:
        if self._state != RECEIVING:
            return
        regs = self.regs
        model, rng = self.model, self.rng
        if len(responders) == 1:
            self.rx_buffer = b"\x00\x00" + le_uid(responders[0].uid)
            status = 10
            forced = self._garble_pending > 0
            if forced:
                self._garble_pending -= 1
            if forced or rng.random() < model.garble:
                if forced or rng.random() < 0.5:  # a flipped bit: the CRC does not fit
                    garbled = bytearray(self.rx_buffer)
                    garbled[2 + rng.randrange(8)] ^= 1 << rng.randrange(8)
                    self.rx_buffer = bytes(garbled)
                    status |= RX_CRC_ERROR
                else:  # the answer broke off: a frame without its EOF
                    self.rx_buffer = self.rx_buffer[:4]
                    status = 4 | RX_PROTOCOL_ERROR
        elif rng.random() < model.unflagged_collision:
            # The subcarriers add up: the stronger bits win, the CRC no longer fits.
            mixed = 0
            for tag in responders:
                mixed |= int(tag.uid, 16)
            self.rx_buffer = b"\x00\x00" + le_uid(f"{mixed:016X}")
            status = 10 | RX_CRC_ERROR
        else:
            self.rx_buffer = b"\x00\x00" + le_uid(responders[0].uid)
            status = 10 | RX_COLLISION
        regs[RX_STATUS] = status
        regs[IRQ_STATUS] |= IRQ_RX
        self._state = WAIT_TRANSMIT  # the transceive loop is ready for the next frame


class SharedResetLine:
    """The RST net of several chips: driving it low resets every one of them.

    Behaves like a digitalio output (``value``); tests and the simulator give it
    to the drivers as their reset pin."""

    def __init__(self, chips: Iterable[Pn5180Chip] = ()) -> None:
        self.chips = list(chips)
        self._value = True
        self.pulses = 0
        self.on_pulse: list[Callable[[], None]] = []

    @property
    def value(self) -> bool:
        return self._value

    @value.setter
    def value(self, level: bool) -> None:
        level = bool(level)
        if self._value and not level:
            self.pulses += 1
            for chip in self.chips:
                chip.reset()
        self._value = level

    def switch_to_output(self, value: bool = True) -> None:
        self.value = value
