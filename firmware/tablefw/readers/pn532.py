"""NXP PN532 driver for the cheap prototype: one or two tags per pad.

The PN532 reads ISO 14443A tags (NTAG stickers, MIFARE), not ISO 15693, and
its InListPassiveTarget activates at most two targets at once. Their 4-, 7-
or 10-byte UIDs are reported as 16 hex digits, right-aligned and zero-padded
("00000004A1B2C3D4"; a 10-byte UID keeps its last 8 bytes) so that they can
never be mistaken for ISO 15693 UIDs, which start with E0.

The chip is on a UART in HSU mode (115200 8N1). Every byte goes through the
seam ``_write(data)`` / ``_read(count, timeout_ms)``; tests replace them with
an emulator of the frames below.

Frames (PN532 user manual, §6.2): host to chip
``00 00 FF LEN LCS D4 CMD params DCS 00`` with LEN = bytes from D4 on,
LCS = -LEN, DCS = -(D4 + CMD + params) (mod 256); the chip first answers
the ACK frame ``00 00 FF 00 FF 00`` and then ``00 00 FF LEN LCS D5 CMD+1
data DCS 00``; ``00 00 FF 01 FF 7F 81 00`` is its error frame.

Commands used:

====  =====================  ======================================
code  command                use
====  =====================  ======================================
0x02  GetFirmwareVersion     presence check (IC must read 0x32)
0x14  SAMConfiguration       normal mode (0x01), no SAM
0x32  RFConfiguration        item 0x01: field off/on, so tags reset;
                             item 0x05: MxRtyPassiveActivation, so an
                             empty pad answers at once instead of
                             retrying forever (the default 0xFF)
0x4A  InListPassiveTarget    MaxTg 1-2, BrTy 0x00 (106 kbit/s type A)
====  =====================  ======================================

Before the first command after power-up the chip is woken by a run of
``55`` and ``00`` bytes (HSU wake-up).
"""

from tablefw.clock import monotonic_ms, sleep_ms
from tablefw.readers import Reader, ReaderError

ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"
WAKE_UP = b"\x55\x55\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
HOST_TO_CHIP = 0xD4
CHIP_TO_HOST = 0xD5
ERROR_FRAME_TFI = 0x7F

GET_FIRMWARE_VERSION = 0x02
SAM_CONFIGURATION = 0x14
RF_CONFIGURATION = 0x32
IN_LIST_PASSIVE_TARGET = 0x4A

RF_ITEM_FIELD = 0x01
RF_ITEM_MAX_RETRIES = 0x05
TYPE_A_106 = 0x00
SEL_RES_ISO14443_4 = 0x20  # the target answered RATS: an ATS follows


def command_frame(command, params=b""):
    """The normal information frame carrying ``command`` to the chip."""
    data = bytes([HOST_TO_CHIP, command]) + bytes(params)
    length = len(data)
    checksum = (-sum(data)) & 0xFF
    return b"\x00\x00\xff" + bytes([length, (-length) & 0xFF]) + data + bytes([checksum, 0x00])


def uid_text(nfcid):
    """16 hex digits for a 4, 7 or 10 byte NFCID1 (see the module doc)."""
    uid = bytes(nfcid)[-8:]
    return "00" * (8 - len(uid)) + "".join(["%02X" % b for b in uid])


class PN532(Reader):
    """One PN532 on ``uart`` serving ``zones`` (through ``mux`` if several).

    ``max_targets`` 1 or 2; ``timeout_ms`` the longest wait for an answer;
    ``passive_retries`` activation retries on an empty field (0-254).
    """

    name = "pn532"

    def __init__(self, uart=None, zones=(0,), mux=None, max_targets=2, timeout_ms=50,
                 passive_retries=1, clock=None, sleep=None, name=None):
        if name is not None:
            self.name = name
        Reader.__init__(self, zones, mux)
        if max_targets not in (1, 2):
            raise ValueError("%s: max_targets must be 1 or 2, got %r" % (self.name, max_targets))
        if passive_retries < 0 or passive_retries > 254:
            raise ValueError("%s: passive_retries must be 0..254 (255 waits forever)" % self.name)
        self.uart = uart
        self.max_targets = max_targets
        self.timeout_ms = timeout_ms
        self.passive_retries = passive_retries
        self.clock = clock if clock is not None else monotonic_ms
        self.sleep = sleep if sleep is not None else sleep_ms
        self.firmware_version = None
        self.ready = False

    # ------------------------------------------------------------ the seam

    def _write(self, data):
        self.uart.write(data)

    def _read(self, count, timeout_ms):
        """Up to ``count`` bytes, waiting at most ``timeout_ms``."""
        deadline = self.clock() + timeout_ms
        data = b""
        while len(data) < count:
            chunk = self.uart.read(count - len(data))
            if chunk:
                data += chunk
            elif self.clock() >= deadline:
                break
        return data

    # ------------------------------------------------------------ framing

    def _fail(self, code, message):
        self.ready = False
        return ReaderError(code, "%s: %s" % (self.name, message))

    def command(self, command, params=b"", timeout_ms=None):
        """Send a command, check the ACK, return the answer's data bytes
        (after D5 and the answer code)."""
        if timeout_ms is None:
            timeout_ms = self.timeout_ms
        self._write(command_frame(command, params))
        ack = self._read(6, timeout_ms)
        if ack != ACK:
            if not ack:
                raise self._fail("TIMEOUT", "no ACK for command %02X" % command)
            if ack == NACK:
                raise self._fail("PROTOCOL", "NACK for command %02X" % command)
            raise self._fail("PROTOCOL", "expected ACK for command %02X, got %s"
                             % (command, _hex(ack)))
        data = self._read_frame(timeout_ms)
        if data[0] == ERROR_FRAME_TFI:
            raise self._fail("CHIP", "error frame for command %02X" % command)
        if len(data) < 2 or data[0] != CHIP_TO_HOST or data[1] != command + 1:
            raise self._fail("PROTOCOL", "unexpected answer %s to command %02X"
                             % (_hex(data), command))
        return data[2:]

    def _read_frame(self, timeout_ms):
        deadline = self.clock() + timeout_ms
        previous = None
        while True:
            byte = self._read(1, max(0, deadline - self.clock()))
            if not byte:
                raise self._fail("TIMEOUT", "no answer within %d ms" % timeout_ms)
            if previous == 0x00 and byte[0] == 0xFF:
                break
            previous = byte[0]
        header = self._read(2, timeout_ms)
        if len(header) != 2 or (header[0] + header[1]) & 0xFF:
            raise self._fail("PROTOCOL", "bad frame length bytes %s" % _hex(header))
        length = header[0]
        if length == 0:
            raise self._fail("PROTOCOL", "unexpected ACK frame")
        body = self._read(length + 2, timeout_ms)
        if len(body) != length + 2:
            raise self._fail("TIMEOUT", "frame cut short (%d of %d bytes)"
                             % (len(body), length + 2))
        data = body[:length]
        if (sum(data) + body[length]) & 0xFF:
            raise self._fail("PROTOCOL", "frame checksum mismatch in %s" % _hex(body))
        return data

    # ------------------------------------------------------------ reader API

    def recover(self):
        """Wake and configure the chip; raises ReaderError if it is absent."""
        self.ready = False
        self._write(WAKE_UP)
        self.sleep(2)
        self.command(SAM_CONFIGURATION, bytes([0x01, 0x14, 0x00]))
        version = self.command(GET_FIRMWARE_VERSION)
        if len(version) < 4 or version[0] != 0x32:
            raise self._fail("NOCHIP", "GetFirmwareVersion answered %s, not a PN532"
                             % _hex(version))
        self.firmware_version = "%d.%d" % (version[1], version[2])
        self.command(RF_CONFIGURATION,
                     bytes([RF_ITEM_MAX_RETRIES, 0xFF, 0x01, self.passive_retries]))
        self.ready = True

    def select(self, channel):
        if not self.ready:
            self.recover()
        # Field off while switching antennas: the tags lose power and start
        # afresh, so tags activated by the previous scan answer again.
        self.command(RF_CONFIGURATION, bytes([RF_ITEM_FIELD, 0x00]))
        Reader.select(self, channel)
        self.command(RF_CONFIGURATION, bytes([RF_ITEM_FIELD, 0x01]))

    def inventory(self, channel):
        if channel != self.selected:
            raise ReaderError("MUX", "%s: inventory of channel %d but channel %r is selected" % (
                self.name, channel, self.selected))
        data = self.command(IN_LIST_PASSIVE_TARGET, bytes([self.max_targets, TYPE_A_106]))
        uids = self.parse_targets(data)
        return uids or None

    def parse_targets(self, data):
        """UIDs from an InListPassiveTarget (106 kbit/s type A) answer."""
        if not data:
            raise self._fail("PROTOCOL", "empty InListPassiveTarget answer")
        count = data[0]
        position = 1
        uids = []
        for _ in range(count):
            # Tg, SENS_RES (2), SEL_RES, NFCID length, NFCID, [ATS]
            if position + 5 > len(data):
                raise self._fail("PROTOCOL", "target list cut short: %s" % _hex(data))
            sel_res = data[position + 3]
            id_length = data[position + 4]
            start = position + 5
            position = start + id_length
            if id_length not in (4, 7, 10) or position > len(data):
                raise self._fail("PROTOCOL", "bad NFCID length %d in %s" % (id_length, _hex(data)))
            uids.append(uid_text(data[start:position]))
            if sel_res & SEL_RES_ISO14443_4:
                if position >= len(data):
                    raise self._fail("PROTOCOL", "ATS missing in %s" % _hex(data))
                position += data[position]  # ATS length byte counts itself
        return uids


def _hex(data):
    return " ".join(["%02X" % b for b in data]) or "(nothing)"
