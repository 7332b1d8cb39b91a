"""NXP PN5180 driver: ISO 15693 inventory, several tags per antenna.

The chip sits on SPI (mode 0, MSB first, up to 7 MHz) with a BUSY line:
the host waits for BUSY low before every SPI frame and after it. All chip
traffic goes through one seam, ``_transceive(frame, read_len)``; tests
replace it with an emulator of the chip.

Host-interface commands used (PN5180 datasheet, host interface command list):

==========  =======================  ==============================  ==========
code        command                  parameters                      answer
==========  =======================  ==============================  ==========
0x00        WRITE_REGISTER           reg, value (4 bytes LE)         -
0x01        WRITE_REGISTER_OR_MASK   reg, mask (4 bytes LE)          -
0x02        WRITE_REGISTER_AND_MASK  reg, mask (4 bytes LE)          -
0x03        WRITE_REGISTER_MULTIPLE  (reg, 1 set/2 OR/3 AND, value)  -
                                     per register, in order
0x04        READ_REGISTER            reg                             4 bytes LE
0x07        READ_EEPROM              address, length                 length bytes
0x09        SEND_DATA                valid bits in last byte, data   -
0x0A        READ_DATA                0x00                            RX bytes
0x11        LOAD_RF_CONFIG           TX config, RX config            -
0x16        RF_ON                    0x01 (no collision avoidance)   -
0x17        RF_OFF                   0x00                            -
==========  =======================  ==============================  ==========

Registers: SYSTEM_CONFIG 0x00 (bits 0-2, the transceiver command: 0 Idle,
3 Transceive), IRQ_STATUS 0x02 (bit 0 RX done, bit 1 TX done, bit 14 start
of an answer seen, bit 17 general error), IRQ_CLEAR 0x03, RX_STATUS 0x13
(bits 0-8 bytes received, bit 16 CRC error, bit 17 protocol error, bit 18
collision), TX_CONFIG 0x18 (clearing bits 6, 7 and 10 makes SEND_DATA
transmit only an EOF, which is how ISO 15693 moves to the next inventory
slot). EEPROM 0x12: firmware version. RF configuration 0x0D/0x8D: ISO
15693, ASK 100 %, 26 kbit/s.

NXP's procedure for one exchange, followed for every request and every
EOF: Idle, then Transceive (the transceiver is now waiting to transmit;
after an empty slot it is still waiting to receive, and SEND_DATA there is
a general error), clear the IRQs, SEND_DATA, wait for TX done, then wait
for an answer. Timeouts count from the end of the transmission (TX IRQ),
in microseconds: a tag answers t1 = 320.9 us after the reader's EOF.

Inventory of one antenna:

1. a one-slot Inventory request as a probe: nothing within
   ``sof_timeout_us`` of the end of the request means the pad is empty; a
   clean single answer is the pad's only tag, and the scan ends there;
2. otherwise (several tags collided, or an answer arrived garbled) a
   16-slot Inventory (flags 0x06, command 0x01): each tag answers in the
   slot given by 4 bits of its UID; slots with a clean 10-byte answer yield
   a UID; slots with a collision, CRC or protocol error are inventoried
   again with those 4 bits added to the mask (ISO 15693 anticollision), up
   to ``max_rounds`` requests;
3. tags that missed an EOF answer late: TRAILING_SLOTS more EOFs follow
   slot 15, and a collision its own round cannot account for (fewer than
   two tags found there) is followed by one-slot Inventories of the
   LATE_PROBES slots before it, where a late tag came from
   (``_find_late``); if that leaves it unexplained the round runs again.

A clean answer whose UID does not start with E0 is no ISO 15693 tag: it is
kept in ``rejected`` (the scan core reports it), not in ``found``. RF_ON is
sent without collision avoidance and checked (TX_RFON_IRQ): how many fields
are on together is the scan core's ``fields_at_once``. After a channel
switch the first request waits for the multiplexer's ``settle_us`` (its
relays) and then ``power_up_us``.

The RF field is switched off at the end of every scan, also when it fails.

``scan_steps(channel)`` is the same scan as a generator that yields
whenever it waits for the air interface, so the scan core can keep several
readers transmitting at once (see tablefw.scan).
"""

from tablefw.clock import sleep_us as _sleep_us
from tablefw.clock import ticks_us as _ticks_us
from tablefw.readers import Reader, ReaderError

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
IRQ_TX_RFON = 1 << 9
IRQ_RF_ACTIVE_ERROR = 1 << 10
IRQ_RX_SOF = 1 << 14
IRQ_GENERAL_ERROR = 1 << 17
IRQ_ALL = 0x000FFFFF
# What the IRQ pin shows, when it is wired: an answer started or ended, or an error.
IRQ_PIN_EVENTS = IRQ_RX | IRQ_RX_SOF | IRQ_GENERAL_ERROR
RX_LENGTH_MASK = 0x1FF
RX_CRC_ERROR = 1 << 16
RX_PROTOCOL_ERROR = 1 << 17
RX_COLLISION = 1 << 18
RX_ERRORS = RX_CRC_ERROR | RX_PROTOCOL_ERROR | RX_COLLISION

EEPROM_FIRMWARE_VERSION = 0x12
RF_TX_ISO15693 = 0x0D
RF_RX_ISO15693 = 0x8D
TX_CONFIG_EOF_ONLY_MASK = 0xFFFFFB3F
TX_FRAME_BITS = 0x000004C0  # the bits the EOF-only mask clears
SYSTEM_CONFIG_IDLE_MASK = 0xFFFFFFF8
COMMAND_TRANSCEIVE = 0x00000003

# RF_ON's parameter, bit 0: 1 = no collision avoidance. With collision avoidance
# (0x00) the chip refuses to switch its field on while it senses another field,
# which on a table is the neighbouring reader's: the scan core decides how many
# fields are on together (the supply budget), so the driver does not ask.
RF_ON_NO_COLLISION_AVOIDANCE = 0x01
UID_FIRST_BYTE = 0xE0  # ISO/IEC 15693-3: a UID's most significant byte is E0
# EOFs sent after the 16th slot: a tag that missed an EOF answers a slot late, so
# the tag of slot 15 that missed up to this many still answers.
TRAILING_SLOTS = 4
# One-slot Inventories sent for the tags of a collision its own round did not
# find, one for each slot a late tag may have come from.
LATE_PROBES = 4

FLAGS_16_SLOTS = 0x06  # high data rate + inventory flag, 16 slots
FLAGS_1_SLOT = 0x26  # the same with the one-slot flag
CMD_INVENTORY = 0x01
RESPONSE_LENGTH = 10  # flags, DSFID, 8 UID bytes (the chip strips the CRC)
MAX_MASK_BITS = 60

# ISO/IEC 15693-2, high data rate, 1-out-of-4 coding (microseconds).
VCD_BYTE_US = 303  # 4 x 75.52 us per byte: 26.48 kbit/s
VCD_SOF_US = 76
VCD_EOF_US = 38
T1_MAX_US = 324  # latest start of a tag's answer after the reader's EOF (4384/fc)
VICC_SOF_US = 57
ANSWER_US = 3740  # SOF, 12 bytes at 37.76 us per bit, EOF
# Defaults of the timeouts (microseconds, from the end of transmission).
SOF_TIMEOUT_US = 500  # t1 max + the answer's SOF + margin for the chip's detection
RX_TIMEOUT_US = 6000  # an answer that started must end within this
TX_MARGIN_US = 2000  # a transmission may end this much after its air time
POWER_UP_US = 1100  # ISO 15693: a tag is ready 1 ms after the field reaches it
RESET_LOW_US = 100  # datasheet: RESET_N low for at least 10 us
BOOT_US = 3000  # datasheet: the chip is ready 2.5 ms after reset


def request_air_us(payload_bytes):
    """Air time of a request of ``payload_bytes`` bytes (the chip adds a
    2-byte CRC)."""
    return VCD_SOF_US + (payload_bytes + 2) * VCD_BYTE_US + VCD_EOF_US


def _le32(value):
    return bytes([value & 0xFF, (value >> 8) & 0xFF, (value >> 16) & 0xFF, (value >> 24) & 0xFF])


# Frames of the per-slot hot path, built once (allocations are slow on the board).
_FRAME_IRQ_CLEAR = bytes([WRITE_REGISTER, IRQ_CLEAR]) + _le32(IRQ_ALL)
# Idle, Transceive and clear the IRQs in one frame (WRITE_REGISTER_MULTIPLE applies
# its sets in order): one SPI transfer where three cost the board three calls.
_FRAME_RESTART = (bytes([WRITE_REGISTER_MULTIPLE, SYSTEM_CONFIG, 3])
                  + _le32(SYSTEM_CONFIG_IDLE_MASK)
                  + bytes([SYSTEM_CONFIG, 2]) + _le32(COMMAND_TRANSCEIVE)
                  + bytes([IRQ_CLEAR, 1]) + _le32(IRQ_ALL))
_FRAME_SEND_EOF = bytes([SEND_DATA, 0x00])
_FRAME_READ_IRQ = bytes([READ_REGISTER, IRQ_STATUS])
_FRAME_RF_ON = bytes([RF_ON, RF_ON_NO_COLLISION_AVOIDANCE])


def uid_text(response):
    """UID of an Inventory response, most significant byte first ("E004...")."""
    uid = response[2:10]
    return "".join(["%02X" % uid[i] for i in range(7, -1, -1)])


class ResetLine:
    """The RST net of one or more PN5180s. A pulse resets every chip on it,
    so each reader remembers the pulse count it initialised at and reloads
    its RF configuration when another reader pulsed the line since.

    Readers given the same pin object share one ResetLine (``of(pin)``)."""

    _lines: "dict[int, ResetLine]" = {}

    def __init__(self, pin):
        self.pin = pin
        self.pulses = 0

    @classmethod
    def of(cls, pin):
        line = cls._lines.get(id(pin))
        if line is None or line.pin is not pin:
            line = cls(pin)
            cls._lines[id(pin)] = line
        return line

    def pulse(self, sleep_us):
        self.pin.value = False
        sleep_us(RESET_LOW_US)
        self.pin.value = True
        self.pulses += 1
        sleep_us(BOOT_US)


class PN5180(Reader):
    """One PN5180 serving ``zones`` through ``mux`` (None for one antenna).

    ``spi``: a busio.SPI; ``cs``, ``busy``, ``reset``: digitalio pins (cs
    and reset outputs, busy an input; a reset pin shared by several readers
    is handled as one line). Timeouts in microseconds, counted from the end
    of the transmission: ``sof_timeout_us`` how long an empty slot keeps us
    waiting, ``rx_timeout_us`` the longest answer once it started;
    ``busy_timeout_ms`` the longest the chip may stay BUSY; ``irq`` the chip's IRQ
    output (an input pin, optional; see ``IRQ_PIN_EVENTS``); ``power_up_us``
    field-on time before the first request. The ``*_ms`` spellings of the
    first three are accepted too (table_config.py ``timing``).

    ``clock``: if it has ``ticks_us()`` (and ``sleep_us()``), the driver
    times itself with it (simulated time in tests); otherwise the board's
    microsecond clock is used.
    """

    name = "pn5180"
    baudrate = 7000000
    sof_timeout_us = SOF_TIMEOUT_US
    rx_timeout_us = RX_TIMEOUT_US
    power_up_us = POWER_UP_US
    busy_timeout_us = 20000
    max_rounds = 8
    max_repeats = 8

    def __init__(self, spi=None, cs=None, busy=None, reset=None, zones=(0,), mux=None,
                 baudrate=7000000, sof_timeout_us=None, rx_timeout_us=None, busy_timeout_ms=20,
                 power_up_us=None, max_rounds=8, max_repeats=8, clock=None, sleep=None, name=None,
                 sof_timeout_ms=None, rx_timeout_ms=None, power_up_ms=None, irq=None):
        if name is not None:
            self.name = name
        Reader.__init__(self, zones, mux)
        self.spi = spi
        self.cs = cs
        self.busy = busy
        # The chip's IRQ output (an MCU input), or None: with it, an empty slot is told
        # by one pin reading instead of an IRQ_STATUS read over SPI.
        self.irq = irq
        self.reset_line = ResetLine.of(reset) if reset is not None else None
        # Settings at their defaults stay class attributes: each instance attribute costs
        # every reader's object on the board's heap.
        for key, value in (("baudrate", baudrate),
                           ("sof_timeout_us", _micro(sof_timeout_us, sof_timeout_ms,
                                                     SOF_TIMEOUT_US)),
                           ("rx_timeout_us", _micro(rx_timeout_us, rx_timeout_ms, RX_TIMEOUT_US)),
                           ("power_up_us", _micro(power_up_us, power_up_ms, POWER_UP_US)),
                           ("busy_timeout_us", busy_timeout_ms * 1000),
                           ("max_rounds", max_rounds), ("max_repeats", max_repeats)):
            if value != getattr(PN5180, key):
                setattr(self, key, value)
        self.rejected = None  # UIDs of clean answers that are no ISO 15693 UID (last scan)
        self.repeats = 0  # rounds repeated to find tags that missed an EOF, in total
        self.ticks_us = getattr(clock, "ticks_us", None) or _ticks_us
        self.sleep_us = getattr(clock, "sleep_us", None) or _sleep_us
        self.firmware_version = None
        self.ready = False
        self.found = None
        self._pulses_seen = None
        self._eof_only = False
        self._wait_transmit = False
        self._field_ready_at = 0
        self.exchanges = 0  # requests and EOFs sent, for statistics
        self._bus_locked = False
        self._burst = False
        if cs is not None:
            cs.value = True

    # ------------------------------------------------------------ the seam

    def _transceive(self, frame, read_len=0):
        """Send one command frame; if ``read_len``, read that many answer
        bytes in a second SPI frame. Real SPI with the BUSY handshake.

        During a scan (a *burst*) the bus stays locked and configured from
        one frame to the next and is released whenever the scan waits, so
        the other readers on the bus get it; outside a burst every call
        locks and releases it."""
        self._wait_not_busy()
        spi = self.spi
        if not self._bus_locked:
            self._lock()
        try:
            self.cs.value = False
            spi.write(frame)
            self.cs.value = True
            if read_len:
                self._wait_not_busy()
                answer = bytearray(read_len)
                self.cs.value = False
                spi.readinto(answer, write_value=0xFF)
                self.cs.value = True
        except Exception:
            self.cs.value = True
            self._release_bus()
            raise
        if not self._burst:
            self._release_bus()
        if read_len:
            return bytes(answer)
        return b""

    def burst(self, on):
        """Hold the bus from one frame to the next (on), as a scan does, or give it
        back (off)."""
        self._burst = bool(on)
        if not on:
            self._release_bus()

    def _lock(self):
        # The PN5180s of a table share one bus and one configuration: while one of them
        # holds it, another takes it without try_lock and configure (two calls into
        # busio the board would otherwise make after every wait of every scan).
        holders = bus_holders(self.spi)
        if holders[0] == 0 or holders[1] != self.baudrate:
            if holders[0]:
                raise ReaderError("BUS", "%s: the SPI bus is held at %d baud, this reader "
                                  "needs %d" % (self.name, holders[1], self.baudrate))
            deadline = self.ticks_us() + self.busy_timeout_us
            while not self.spi.try_lock():
                if self.ticks_us() >= deadline:
                    raise ReaderError("BUS", "%s: SPI bus stays locked" % self.name)
            self.spi.configure(baudrate=self.baudrate, polarity=0, phase=0)
            holders[1] = self.baudrate
        holders[0] += 1
        self._bus_locked = True

    def _unlock(self):
        self.spi.unlock()

    def _release_bus(self):
        if self._bus_locked:
            self._bus_locked = False
            holders = bus_holders(self.spi)
            holders[0] -= 1
            if holders[0] <= 0:
                holders[0] = 0
                self._unlock()

    def _wait_not_busy(self):
        if not self.busy.value:
            return
        deadline = self.ticks_us() + self.busy_timeout_us
        while self.busy.value:
            if self.ticks_us() >= deadline:
                self.ready = False
                raise ReaderError("BUSY", "%s: BUSY stays high for %d ms" % (
                    self.name, self.busy_timeout_us // 1000))

    # ------------------------------------------------------------ commands

    def write_register(self, reg, value):
        self._transceive(bytes([WRITE_REGISTER, reg]) + _le32(value))

    def or_register(self, reg, mask):
        self._transceive(bytes([WRITE_REGISTER_OR_MASK, reg]) + _le32(mask))

    def and_register(self, reg, mask):
        self._transceive(bytes([WRITE_REGISTER_AND_MASK, reg]) + _le32(mask))

    def read_register(self, reg):
        data = self._transceive(bytes([READ_REGISTER, reg]), 4)
        return data[0] | (data[1] << 8) | (data[2] << 16) | (data[3] << 24)

    def read_eeprom(self, address, length):
        return self._transceive(bytes([READ_EEPROM, address, length]), length)

    def send_data(self, data):
        self._transceive(bytes([SEND_DATA, 0x00]) + bytes(data))

    def read_data(self, length):
        return self._transceive(bytes([READ_DATA, 0x00]), length)

    def rf_on(self):
        """Switch the field on (no collision avoidance) and check that it came on."""
        self._transceive(_FRAME_IRQ_CLEAR)
        self._transceive(_FRAME_RF_ON)
        irq = self._read_irq()
        if not irq & IRQ_TX_RFON:
            if irq & IRQ_RF_ACTIVE_ERROR:
                raise ReaderError("RFON", "%s: RF_ON refused, another field is on (IRQ_STATUS "
                                          "%08X: "
                                  "RF_ACTIVE_ERROR)" % (self.name, irq))
            raise ReaderError("RFON", "%s: the field did not come on after RF_ON (IRQ_STATUS %08X)"
                              % (
                self.name, irq))

    def rf_off(self):
        self._transceive(bytes([RF_OFF, 0x00]))

    def load_rf_config(self):
        self._transceive(bytes([LOAD_RF_CONFIG, RF_TX_ISO15693, RF_RX_ISO15693]))

    # ------------------------------------------------------------ reader API

    def recover(self):
        """Pulse the reset line (every chip on it restarts) and initialise
        this chip; raises ReaderError if it is absent. The other readers on
        the line notice the pulse and reload their configuration."""
        self.ready = False
        if self.reset_line is not None:
            self.reset_line.pulse(self.sleep_us)
        self._initialise()

    def _initialise(self):
        self.ready = False
        version = self.read_eeprom(EEPROM_FIRMWARE_VERSION, 2)
        if version in (b"\xff\xff", b"\x00\x00"):
            raise ReaderError("NOCHIP", "%s: no PN5180 answers (firmware version reads %02X%02X)"
                              % (
                self.name, version[0], version[1]))
        self.firmware_version = "%d.%d" % (version[1], version[0])
        self.load_rf_config()
        self._wait_transmit = False  # the chip starts Idle after a reset
        if self.irq is not None:
            self.write_register(IRQ_ENABLE, IRQ_PIN_EVENTS)
        self._eof_only = False
        self.rf_off()
        self._pulses_seen = self.reset_line.pulses if self.reset_line is not None else None
        self.ready = True

    def prepare(self):
        """Initialise (or re-initialise after a reset) before a scan; the scan
        core calls it for every reader of a batch before any of them transmits,
        because a reset pulse on a shared line reaches every chip on it."""
        self._ensure_initialised()

    def _ensure_initialised(self):
        if not self.ready:
            self.recover()
        elif self.reset_line is not None and self.reset_line.pulses != self._pulses_seen:
            self._initialise()  # another reader reset the line: our RF configuration is gone

    def select(self, channel):
        """Route the field to ``channel`` and wait until its tags are up."""
        self._start(channel)
        wait = self._field_ready_at - self.ticks_us()
        if wait > 0:
            self.sleep_us(wait)

    def inventory(self, channel):
        if channel != self.selected:
            raise ReaderError("MUX", "%s: inventory of channel %d but channel %r is selected" % (
                self.name, channel, self.selected))
        for _ in self._inventory_steps(channel):
            pass
        return self.found

    def scan_steps(self, channel, several=False):
        """select() and inventory() as one generator: it yields whenever it
        waits for the chip; afterwards ``found`` holds the result.
        ``several``: the pad held several tags at the last scans, so the
        probe would only collide: go straight to the 16-slot round."""
        # The generator itself, not one wrapped in another: every generator frame a reader
        # keeps while on air costs the board's heap, four readers at once when pipelined.
        return self._inventory_steps(channel, several, True)

    def _start(self, channel):
        self.found = None
        self._wait_transmit = False  # a new scan restarts the transceiver in full
        self.rejected = None
        mux = self.mux
        if mux is not None:
            mux = getattr(mux, "mux", mux)  # a channel map's multiplexer
        try:
            self._ensure_initialised()
            switches = getattr(mux, "switches", 0)
            Reader.select(self, channel)
            if mux is not None and getattr(mux, "switches", 0) != switches:
                # The relays move now: the channel is usable settle_us from here, for
                # every reader on these select lines.
                mux.settled_at = self.ticks_us() + getattr(mux, "settle_us", 0)
            self.rf_on()
        except ReaderError:
            self.ready = False
            self._field_off()
            raise
        # Tags power up once the field reaches them: after RF_ON and after the relay closed.
        reached = self.ticks_us()
        if mux is not None and getattr(mux, "settled_at", 0) > reached:
            reached = mux.settled_at
        self._field_ready_at = reached + self.power_up_us

    def _field_off(self):
        # On every path out of a scan, error paths included: a field left on
        # would keep a pad energised next to the pads other readers scan.
        try:
            self.rf_off()
        except Exception:  # the chip is gone; the next scan recovers it
            self.ready = False

    def _inventory_steps(self, channel, several=False, start=False):
        """The scan of ``channel`` as a generator (see scan_steps); ``start``: route the
        field there first and wait until its tags are up (else select() did, and
        inventory() checked the channel)."""
        if start:
            self.found = None
            self._start(channel)
            while self.ticks_us() < self._field_ready_at:
                yield self._field_ready_at
        self.found = None
        self._burst = True
        try:
            if not several:
                status, data = yield from self._exchange(self._request(FLAGS_1_SLOT, 0, 0))
                if status is None:
                    return
                if _clean(status, data):
                    if self._accept(data):
                        self.found = [uid_text(data)]
                    return
            # Several tags answered at once, or the answer was garbled: anticollision.
            found: dict[str, int] = {}  # UID text -> UID as an integer
            pending = [(0, 0)]
            collisions: list = []  # (mask bits, mask, slot) of every collided slot
            rounds = 0
            repeats = 0
            while pending:
                while pending and rounds < self.max_rounds + repeats:
                    mask_bits, mask = pending.pop(0)
                    rounds += 1
                    collided = yield from self._round(mask_bits, mask, found)
                    _split(collided, mask_bits, mask, pending, collisions)
                pending = []
                if not collisions or repeats >= self.max_repeats:
                    break
                # A tag that missed an EOF answers a slot late, into its neighbour's slot
                # (or after slot 15): the collision's own round then finds the neighbour
                # alone and the late tag is nowhere. Each collision had two answers; those
                # its own round did not find are looked for where a late tag comes from.
                for mask_bits, mask, slot in collisions:
                    again = yield from self._find_late(mask_bits, mask, slot, found)
                    if again is not None:
                        pending.append(again)
                collisions = []
                if pending:
                    repeats += 1
                    self.repeats += 1
            if found:
                self.found = sorted(found)
        except ReaderError:
            self.ready = False
            raise
        finally:
            self._burst = False
            self._field_off()
            self._release_bus()

    def _find_late(self, mask_bits, mask, slot, found):
        """Look for the tags of a collision in ``slot`` of the round (mask_bits,
        mask) that its own round did not find: a one-slot Inventory for each of
        the LATE_PROBES slots before it (a tag that missed EOFs came from there).
        Returns a round to run (again) when that does not settle it, else None."""
        bits = (1 << (mask_bits + 4)) - 1
        need = 2
        if slot < 16:
            child = mask | (slot << mask_bits)
            for uid in found.values():
                if uid & bits == child:
                    need -= 1
        if need <= 0:
            return None  # two tags of that nibble, both found: an ordinary collision
        # Every slot a late tag may have come from is asked: a collision may hold
        # more than one late tag (one that missed two EOFs beside one that missed one).
        origin = (slot if slot < 16 else 16) - 1
        unsure = False
        while origin >= 0 and origin >= slot - LATE_PROBES:
            probe = mask | (origin << mask_bits)
            status, data = yield from self._exchange(self._request(FLAGS_1_SLOT, mask_bits + 4,
                                                                   probe))
            origin -= 1
            if status is None:
                unsure = True  # nobody there, or a tag that did not hear the probe
                continue
            if not _clean(status, data):
                return (mask_bits + 4, probe)  # several tags with that nibble: sort them out
            if self._accept(data):
                text = uid_text(data)
                if text not in found:
                    found[text] = _uid_value(data)
                    need -= 1
        if need > 0 and unsure:
            return (mask_bits, mask)  # still unexplained: the whole round again
        return None

    def _request(self, flags, mask_bits, mask):
        payload = [flags, CMD_INVENTORY, mask_bits]
        for index in range((mask_bits + 7) // 8):
            payload.append((mask >> (8 * index)) & 0xFF)
        return bytes(payload)

    def _round(self, mask_bits, mask, found):
        """One 16-slot inventory; adds clean UIDs to ``found`` and returns
        the slots to inventory again (collided or garbled answers). After the
        16th slot TRAILING_SLOTS more EOFs give late tags their turn."""
        again = []
        status, data = yield from self._exchange(self._request(FLAGS_16_SLOTS, mask_bits, mask))
        for slot in range(16 + TRAILING_SLOTS):
            if slot:
                if not self._eof_only:
                    self.and_register(TX_CONFIG, TX_CONFIG_EOF_ONLY_MASK)
                    self._eof_only = True
                status, data = yield from self._exchange(None)
            if status is None:
                continue
            if _clean(status, data):
                if self._accept(data):
                    found[uid_text(data)] = _uid_value(data)
            else:
                again.append(slot)  # 16 and up: late tags colliding after the last slot
        return again

    def _accept(self, data):
        """Whether a clean answer carries an ISO 15693 UID (E0 first); one that
        does not is kept in ``rejected`` for the scan core to report."""
        if data[9] == UID_FIRST_BYTE:
            return True
        if self.rejected is None:
            self.rejected = []
        self.rejected.append(uid_text(data))
        return False

    def _send_request(self, payload):
        """Put a request (bytes) or, for None, an EOF on air; returns its air time (us)."""
        if payload is not None and self._eof_only:
            self.or_register(TX_CONFIG, TX_FRAME_BITS)
            self._eof_only = False
        if self._wait_transmit:  # after an answer the transceive loop waits to transmit
            self._transceive(_FRAME_IRQ_CLEAR)
        else:  # Idle ends a wait for an answer that never came; Transceive -> WaitTransmit
            self._transceive(_FRAME_RESTART)
        self._wait_transmit = False
        if payload is None:
            self._transceive(_FRAME_SEND_EOF)
            air = VCD_EOF_US
        else:
            self.send_data(payload)
            air = request_air_us(len(payload))
        self.exchanges += 1
        return air

    def _exchange(self, payload):
        """Send a request (bytes) or, for None, an EOF; wait for the answer.
        Returns (RX_STATUS, data) or (None, None) when no tag answered."""
        air = self._send_request(payload)
        # Then wait for the end of the transmission and for an answer (in this generator,
        # not one of its own: every frame kept on air costs the board's heap). The waits
        # whose length the air interface fixes (the request on air, the SOF timeout, an
        # answer being received) pass without SPI traffic: the generator yields the
        # microsecond tick it waits for (0: ask again at once), so the scan core steps the
        # other readers meanwhile and need not resume this one before then; the chip is
        # asked once when the wait is over. No answer started within ``sof_timeout_us`` of
        # the end: (None, None); a frame that started and never ended: a protocol error.
        sent = self.ticks_us()
        # The air time is fixed and a tag's answer starts t1 after it: the chip is asked
        # once, when an answer would have started (the TX IRQ confirms the end of the
        # transmission in the same reading).
        while self.ticks_us() - sent < air + self.sof_timeout_us:
            yield sent + air + self.sof_timeout_us
        deadline = sent + air + TX_MARGIN_US
        tx_end = sent + air
        if self.irq is not None and not self.irq.value:
            return None, None  # no answer started, no error: the pin says so without SPI
        irq = self._read_irq()
        while not irq & (IRQ_TX | IRQ_RX | IRQ_RX_SOF):
            if self.ticks_us() >= deadline:
                raise ReaderError("TIMEOUT", "%s: transmission did not end within %d us" % (
                    self.name, air + TX_MARGIN_US))
            yield 0
            tx_end = self.ticks_us()  # later than foreseen: count from when it was seen
            irq = self._read_irq()
        if not irq & (IRQ_RX | IRQ_RX_SOF):
            deadline = tx_end + self.sof_timeout_us  # from the end of transmission
            while self.ticks_us() < deadline:
                yield deadline
            irq = self._read_irq()
            if not irq & (IRQ_RX | IRQ_RX_SOF):
                return None, None
        if not irq & IRQ_RX:
            started = self.ticks_us()
            while self.ticks_us() - started < ANSWER_US - VICC_SOF_US:
                yield started + ANSWER_US - VICC_SOF_US
            deadline = started + self.rx_timeout_us
            irq = self._read_irq()
            while not irq & IRQ_RX:
                if self.ticks_us() >= deadline:
                    return RX_PROTOCOL_ERROR, b""
                yield 0
                irq = self._read_irq()
        self._wait_transmit = True  # after an answer the transceive loop waits to transmit
        status = self.read_register(RX_STATUS)
        length = status & RX_LENGTH_MASK
        data = b""
        if length == RESPONSE_LENGTH and not status & RX_ERRORS:
            data = self.read_data(RESPONSE_LENGTH)
        return status, data

    def _read_irq(self):
        data = self._transceive(_FRAME_READ_IRQ, 4)
        irq = data[0] | (data[1] << 8) | (data[2] << 16) | (data[3] << 24)
        if irq & IRQ_GENERAL_ERROR:
            raise ReaderError("CHIP", "%s: general error (IRQ_STATUS %08X)" % (self.name, irq))
        return irq


BUS_HOLDERS: "dict[int, list]" = {}


def bus_holders(spi):
    """[readers holding ``spi`` now, the baud rate it is configured for, ``spi``]."""
    holders = BUS_HOLDERS.get(id(spi))
    if holders is None or holders[2] is not spi:
        holders = [0, 0, spi]  # the bus itself is kept, so its id is not reused
        BUS_HOLDERS[id(spi)] = holders
    return holders


def _split(collided, mask_bits, mask, pending, collisions):
    """After a round of (mask_bits, mask): each collided slot's nibble becomes a round of
    its own (``pending``) while the mask has room, and is noted in ``collisions``."""
    for slot in collided:
        if mask_bits + 4 > MAX_MASK_BITS:
            continue
        if slot < 16:
            pending.append((mask_bits + 4, mask | (slot << mask_bits)))
        collisions.append((mask_bits, mask, slot))


def _clean(status, data):
    return (status & RX_LENGTH_MASK) == RESPONSE_LENGTH and not status & RX_ERRORS \
        and len(data) == RESPONSE_LENGTH and not data[0] & 0x01


def _uid_value(response):
    """The UID of an Inventory response as an integer."""
    uid = 0
    for index in range(9, 1, -1):
        uid = (uid << 8) | response[index]
    return uid


def _micro(us, ms, default):
    if us is not None:
        return us
    if ms is not None:
        return ms * 1000
    return default
