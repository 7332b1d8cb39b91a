"""NXP PN5180 driver: ISO 15693 inventory, several tags per antenna.

The chip sits on SPI (mode 0, MSB first, up to 7 MHz) with a BUSY line:
the host waits for BUSY low before every SPI frame and after it. All chip
traffic goes through one seam, ``_transceive(frame, read_len)``; tests
replace it with an emulator of the commands below.

Host-interface commands used (PN5180 datasheet, host interface command list):

==========  =======================  ==============================  ==========
code        command                  parameters                      answer
==========  =======================  ==============================  ==========
0x00        WRITE_REGISTER           reg, value (4 bytes LE)         -
0x01        WRITE_REGISTER_OR_MASK   reg, mask (4 bytes LE)          -
0x02        WRITE_REGISTER_AND_MASK  reg, mask (4 bytes LE)          -
0x04        READ_REGISTER            reg                             4 bytes LE
0x07        READ_EEPROM              address, length                 length bytes
0x09        SEND_DATA                valid bits in last byte, data   -
0x0A        READ_DATA                0x00                            RX bytes
0x11        LOAD_RF_CONFIG           TX config, RX config            -
0x16        RF_ON                    0x00                            -
0x17        RF_OFF                   0x00                            -
==========  =======================  ==============================  ==========

Registers: SYSTEM_CONFIG 0x00 (bits 0-2: 0 idle, 3 transceive),
IRQ_STATUS 0x02 (bit 0 RX done, bit 14 RX start-of-frame seen, bit 17
general error), IRQ_CLEAR 0x03, RX_STATUS 0x13 (bits 0-8 bytes received,
bit 18 collision), TX_CONFIG 0x18 (clearing bits 6, 7 and 10 makes the
next SEND_DATA transmit only an EOF, which is how ISO 15693 moves to the
next inventory slot). EEPROM 0x12: firmware version. RF configuration
0x0D/0x8D: ISO 15693, ASK 100 %, 26 kbit/s.

Inventory of one antenna:

1. a one-slot Inventory request as a probe: if no start of frame arrives
   within ``sof_timeout_ms`` the pad is empty, at the cost of one short
   wait instead of sixteen slots;
2. otherwise a 16-slot Inventory (flags 0x06, command 0x01): each tag
   answers in the slot given by 4 bits of its UID; slots with a clean
   10-byte answer yield a UID, collided slots are inventoried again with
   those 4 bits added to the mask (ISO 15693 anticollision), up to
   ``max_rounds`` requests.
"""

from tablefw.clock import monotonic_ms, sleep_ms
from tablefw.readers import Reader, ReaderError

WRITE_REGISTER = 0x00
WRITE_REGISTER_OR_MASK = 0x01
WRITE_REGISTER_AND_MASK = 0x02
READ_REGISTER = 0x04
READ_EEPROM = 0x07
SEND_DATA = 0x09
READ_DATA = 0x0A
LOAD_RF_CONFIG = 0x11
RF_ON = 0x16
RF_OFF = 0x17

SYSTEM_CONFIG = 0x00
IRQ_STATUS = 0x02
IRQ_CLEAR = 0x03
RX_STATUS = 0x13
TX_CONFIG = 0x18

IRQ_RX = 1 << 0
IRQ_RX_SOF = 1 << 14
IRQ_GENERAL_ERROR = 1 << 17
RX_LENGTH_MASK = 0x1FF
RX_COLLISION = 1 << 18

EEPROM_FIRMWARE_VERSION = 0x12
RF_TX_ISO15693 = 0x0D
RF_RX_ISO15693 = 0x8D
TX_CONFIG_EOF_ONLY_MASK = 0xFFFFFB3F

FLAGS_16_SLOTS = 0x06  # high data rate + inventory flag, 16 slots
FLAGS_1_SLOT = 0x26  # the same with the one-slot flag
CMD_INVENTORY = 0x01
RESPONSE_LENGTH = 10  # flags, DSFID, 8 UID bytes (the chip strips the CRC)
MAX_MASK_BITS = 60


def _le32(value):
    return bytes([value & 0xFF, (value >> 8) & 0xFF, (value >> 16) & 0xFF, (value >> 24) & 0xFF])


def uid_text(response):
    """UID of an Inventory response, most significant byte first ("E004...")."""
    uid = response[2:10]
    return "".join(["%02X" % uid[i] for i in range(7, -1, -1)])


class PN5180(Reader):
    """One PN5180 serving ``zones`` through ``mux`` (None for one antenna).

    ``spi``: a busio.SPI; ``cs``, ``busy``, ``reset``: digitalio pins (cs
    and reset outputs, busy an input). Timeouts in milliseconds:
    ``sof_timeout_ms`` how long an empty slot may keep us waiting,
    ``rx_timeout_ms`` the longest answer once it started,
    ``busy_timeout_ms`` the longest the chip may stay BUSY,
    ``power_up_ms`` field-on time before the first request (tags power up).
    """

    name = "pn5180"

    def __init__(self, spi=None, cs=None, busy=None, reset=None, zones=(0,), mux=None,
                 baudrate=7000000, sof_timeout_ms=1, rx_timeout_ms=10, busy_timeout_ms=20,
                 power_up_ms=2, max_rounds=8, clock=None, sleep=None, name=None):
        if name is not None:
            self.name = name
        Reader.__init__(self, zones, mux)
        self.spi = spi
        self.cs = cs
        self.busy = busy
        self.reset_pin = reset
        self.baudrate = baudrate
        self.sof_timeout_ms = sof_timeout_ms
        self.rx_timeout_ms = rx_timeout_ms
        self.busy_timeout_ms = busy_timeout_ms
        self.power_up_ms = power_up_ms
        self.max_rounds = max_rounds
        self.clock = clock if clock is not None else monotonic_ms
        self.sleep = sleep if sleep is not None else sleep_ms
        self.firmware_version = None
        self.ready = False
        if cs is not None:
            cs.value = True

    # ------------------------------------------------------------ the seam

    def _transceive(self, frame, read_len=0):
        """Send one command frame; if ``read_len``, read that many answer
        bytes in a second SPI frame. Real SPI with the BUSY handshake."""
        self._wait_not_busy()
        spi = self.spi
        self._lock()
        try:
            self.cs.value = False
            spi.write(frame)
            self.cs.value = True
        finally:
            spi.unlock()
        if not read_len:
            return b""
        self._wait_not_busy()
        answer = bytearray(read_len)
        self._lock()
        try:
            self.cs.value = False
            spi.readinto(answer, write_value=0xFF)
            self.cs.value = True
        finally:
            spi.unlock()
        return bytes(answer)

    def _lock(self):
        deadline = self.clock() + self.busy_timeout_ms
        while not self.spi.try_lock():
            if self.clock() >= deadline:
                raise ReaderError("BUS", "%s: SPI bus stays locked" % self.name)
        self.spi.configure(baudrate=self.baudrate, polarity=0, phase=0)

    def _wait_not_busy(self):
        deadline = self.clock() + self.busy_timeout_ms
        while self.busy.value:
            if self.clock() >= deadline:
                self.ready = False
                raise ReaderError("BUSY", "%s: BUSY stays high for %d ms" % (self.name, self.busy_timeout_ms))

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
        self._transceive(bytes([RF_ON, 0x00]))

    def rf_off(self):
        self._transceive(bytes([RF_OFF, 0x00]))

    def load_rf_config(self):
        self._transceive(bytes([LOAD_RF_CONFIG, RF_TX_ISO15693, RF_RX_ISO15693]))

    # ------------------------------------------------------------ reader API

    def recover(self):
        """Reset and initialise the chip; raises ReaderError if it is absent."""
        self.ready = False
        if self.reset_pin is not None:
            self.reset_pin.value = False
            self.sleep(1)
            self.reset_pin.value = True
            self.sleep(3)
        version = self.read_eeprom(EEPROM_FIRMWARE_VERSION, 2)
        if version in (b"\xff\xff", b"\x00\x00"):
            raise ReaderError("NOCHIP", "%s: no PN5180 answers (firmware version reads %02X%02X)" % (
                self.name, version[0], version[1]))
        self.firmware_version = "%d.%d" % (version[1], version[0])
        self.load_rf_config()
        self.rf_off()
        self.ready = True

    def select(self, channel):
        if not self.ready:
            self.recover()
        self.rf_off()
        Reader.select(self, channel)
        self.rf_on()
        self.sleep(self.power_up_ms)

    def inventory(self, channel):
        if channel != self.selected:
            raise ReaderError("MUX", "%s: inventory of channel %d but channel %r is selected" % (
                self.name, channel, self.selected))
        try:
            return self._inventory()
        except ReaderError:
            self.ready = False
            raise
        finally:
            if self.ready:
                self.rf_off()

    def _inventory(self):
        if not self._probe():
            return None
        found = {}
        pending = [(0, 0)]
        rounds = 0
        while pending and rounds < self.max_rounds:
            mask_bits, mask = pending.pop(0)
            rounds += 1
            for slot in self._round(mask_bits, mask, found):
                if mask_bits + 4 <= MAX_MASK_BITS:
                    pending.append((mask_bits + 4, mask | (slot << mask_bits)))
        if not found:
            return None
        uids = list(found)
        uids.sort()
        return uids

    def _request(self, flags, mask_bits, mask):
        payload = [flags, CMD_INVENTORY, mask_bits]
        for index in range((mask_bits + 7) // 8):
            payload.append((mask >> (8 * index)) & 0xFF)
        self.and_register(SYSTEM_CONFIG, 0xFFFFFFF8)  # idle
        self.or_register(SYSTEM_CONFIG, 0x00000003)  # transceive
        self.write_register(IRQ_CLEAR, 0x000FFFFF)
        self.send_data(payload)

    def _probe(self):
        """One-slot request: does anything answer at all?"""
        self._request(FLAGS_1_SLOT, 0, 0)
        return self._wait_slot(started_is_enough=True) is not None

    def _round(self, mask_bits, mask, found):
        """One 16-slot inventory; adds clean UIDs to ``found`` and returns
        the slots in which tags collided."""
        self._request(FLAGS_16_SLOTS, mask_bits, mask)
        collided = []
        for slot in range(16):
            status = self._wait_slot()
            if status is not None:
                length, collision = status
                if collision or length != RESPONSE_LENGTH:
                    collided.append(slot)
                else:
                    response = self.read_data(RESPONSE_LENGTH)
                    if not response[0] & 0x01:  # error flag clear
                        found[uid_text(response)] = True
            if slot < 15:
                self.and_register(TX_CONFIG, TX_CONFIG_EOF_ONLY_MASK)
                self.write_register(IRQ_CLEAR, 0x000FFFFF)
                self.send_data(b"")
        self.load_rf_config()  # restores TX_CONFIG for full frames
        return collided

    def _wait_slot(self, started_is_enough=False):
        """Wait for one slot's answer: None if nothing started within
        ``sof_timeout_ms``, else (bytes received, collision seen)."""
        deadline = self.clock() + self.sof_timeout_ms
        started = False
        while True:
            irq = self.read_register(IRQ_STATUS)
            if irq & IRQ_GENERAL_ERROR:
                raise ReaderError("CHIP", "%s: general error (IRQ_STATUS %08X)" % (self.name, irq))
            if irq & IRQ_RX:
                break
            if irq & IRQ_RX_SOF and not started:
                if started_is_enough:
                    return (0, False)
                started = True
                deadline = self.clock() + self.rx_timeout_ms
            if self.clock() >= deadline:
                if started:
                    # A frame began but never ended: treat as a garbled slot.
                    return (0, True)
                return None
        rx_status = self.read_register(RX_STATUS)
        return (rx_status & RX_LENGTH_MASK, bool(rx_status & RX_COLLISION))
