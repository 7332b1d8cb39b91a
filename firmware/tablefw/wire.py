"""The serial line protocol as the board speaks it.

Framing (sequence numbers, CRC), the messages the board sends, and decoding
the host's commands (SYNC, PING, CFG). tablefw.protocol adds the host's half
(decoding what the board sends) and is what the host imports; the board loads
only this module, to keep its heap small. Pure: no I/O, no clock; written in
the common subset of CPython and CircuitPython. docs/protocol.md is the
specification, and tablefw.protocol's docstring shows a line and the codec's use.
"""

try:
    from typing import Optional
except ImportError:  # CircuitPython has no typing; it does not evaluate annotations either
    pass

PROTOCOL_VERSION = 2

# Longest line, in bytes, not counting the terminating newline (or CR LF).
MAX_LINE = 512
# Most tags one zone may report: 24 UIDs still fit one ZONE line.
MAX_ZONE_TAGS = 24
# ERR texts are cut to this many characters.
MAX_TEXT = 160
SEQ_MODULO = 65536

HEX_DIGITS = "0123456789ABCDEF"
EMPTY_SET = "-"
NO_READER = "-"

# Reasons a received line is dropped; they are keys of Decoder.counts.
BAD_CRC = "bad_crc"
BAD_SYNTAX = "bad_syntax"
OVERLONG = "overlong"
NON_ASCII = "non_ascii"
UNKNOWN_TYPE = "unknown_type"
DROP_REASONS = (BAD_CRC, BAD_SYNTAX, OVERLONG, NON_ASCII, UNKNOWN_TYPE)


class ProtocolError(ValueError):
    """A line or a field that does not follow the grammar.

    ``reason`` is one of DROP_REASONS.
    """

    def __init__(self, reason, message):
        super().__init__(message)
        self.reason = reason


# --------------------------------------------------------------------------
# CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor.

# Two bytes (high, low) per entry: half the heap of a list of 256 integers.
_CRC_TABLE = bytearray(512)
for _i in range(256):
    _c = _i << 8
    for _bit in range(8):
        if _c & 0x8000:
            _c = ((_c << 1) ^ 0x1021) & 0xFFFF
        else:
            _c = (_c << 1) & 0xFFFF
    _CRC_TABLE[2 * _i] = _c >> 8
    _CRC_TABLE[2 * _i + 1] = _c & 0xFF
del _i, _c, _bit


def crc16_py(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE in plain Python (what CircuitPython runs)."""
    table = _CRC_TABLE
    for byte in data:
        index = ((crc >> 8) ^ byte) << 1
        crc = ((crc << 8) & 0xFF00) ^ (table[index] << 8) ^ table[index + 1]
    return crc


try:
    # binascii.crc_hqx is the same polynomial in C; seeded with 0xFFFF it is
    # CCITT-FALSE. CircuitPython's binascii lacks it, hence the fallback.
    from binascii import crc_hqx as _crc_hqx
except ImportError:
    crc16 = crc16_py
else:

    def crc16(data, crc=0xFFFF):
        """CRC-16/CCITT-FALSE of ``data`` (bytes); 0x29B1 for b"123456789"."""
        return _crc_hqx(data, crc)


# --------------------------------------------------------------------------
# Field helpers. Every parser raises ProtocolError naming the field.


def _syntax(message):
    return ProtocolError(BAD_SYNTAX, message)


def _uint(text, name, limit=999999999):
    if not text or len(text) > 10 or not text.isdigit():
        raise _syntax("%s: expected a non-negative integer, got %r" % (name, text))
    value = int(text)
    if value > limit:
        raise _syntax("%s: %d is larger than %d" % (name, value, limit))
    return value


def _check_uint(value, name, limit=999999999):
    if not isinstance(value, int) or value < 0 or value > limit:
        raise ValueError("%s: expected an integer 0..%d, got %r" % (name, limit, value))
    return value


def _token(text, name):
    # A token is a run of printable ASCII without spaces or '*'.
    if not isinstance(text, str) or not text:
        raise ValueError("%s: expected a non-empty word, got %r" % (name, text))
    for ch in text:
        if ch <= " " or ch > "~" or ch == "*":
            raise ValueError("%s: %r may not contain spaces, '*' or control characters"
                             % (name, text))
    return text


def normalize_uid(uid):
    """Return ``uid`` as 16 upper-case hex digits or raise ValueError.

    ISO 15693 UIDs are written most significant byte first ("E004...").
    """
    if not isinstance(uid, str):
        raise ValueError("tag UID: expected a string of 16 hex digits, got %r" % (uid,))
    text = uid.upper()
    if len(text) != 16 or text.strip(HEX_DIGITS):
        raise ValueError("tag UID: expected 16 hex digits, got %r" % (uid,))
    return text


def _label(what):
    # Error labels are built only when an error is raised: decoding is hot.
    if isinstance(what, tuple):
        return "%s %s" % what
    return what


def tag_set(uids, what="tags"):
    """Canonical tag set: a sorted tuple of distinct normalised UIDs.

    ``what`` names the set in error messages (a string, or a (kind, number)
    pair formatted only on error).
    """
    if not uids:
        return ()
    result = []
    for uid in uids:
        if not isinstance(uid, str):
            raise ValueError("%s: tag UID %r is not a string" % (_label(what), uid))
        text = uid.upper()
        if len(text) != 16 or text.strip(HEX_DIGITS):
            raise ValueError("%s: %r is not a tag UID of 16 hex digits" % (_label(what), uid))
        result.append(text)
    if len(result) > MAX_ZONE_TAGS:
        raise ValueError("%s: %d tags, at most %d fit a line"
                         % (_label(what), len(result), MAX_ZONE_TAGS))
    if len(result) > 1:
        result.sort()
        for i in range(1, len(result)):
            if result[i] == result[i - 1]:
                raise ValueError("%s: tag %s listed twice" % (_label(what), result[i]))
    return tuple(result)


def _format_set(uids):
    if not uids:
        return EMPTY_SET
    return ",".join(uids)


def _format_uint_list(values):
    if not values:
        return "-"
    return ",".join([str(v) for v in values])


def _clean_text(text):
    # ERR texts travel as the rest of the line: printable ASCII only.
    chars = []
    for ch in str(text)[:MAX_TEXT]:
        if " " <= ch <= "~":
            chars.append(ch)
        else:
            chars.append("?")
    return "".join(chars)


def _need(fields, count, type_name, names):
    if len(fields) < count:
        raise _syntax("%s: expected fields %s, got %d field(s)" % (type_name, names, len(fields)))


# --------------------------------------------------------------------------
# Messages. Plain classes with __slots__; equality ignores ``seq``.


class Message:
    """Base of all messages. ``seq`` is the line's sequence number once
    decoded (for a Snapshot: of its last part); None when built locally."""

    __slots__ = ("seq",)
    seq: "Optional[int]"
    TYPE = ""
    FIELDS: "tuple[str, ...]" = ()

    def values(self):
        return tuple([getattr(self, name) for name in self.FIELDS])

    def __eq__(self, other):
        return type(self) is type(other) and self.values() == other.values()

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None  # type: ignore[assignment]  # mutable: no hashing, as in CPython's lists

    def __repr__(self):
        parts = ["%s=%r" % (name, getattr(self, name)) for name in self.FIELDS]
        if self.seq is not None:
            parts.append("seq=%d" % self.seq)
        return "%s(%s)" % (type(self).__name__, ", ".join(parts))

    def body(self):
        """The line body after the sequence number: TYPE and fields."""
        fields = self.encode_fields()
        if fields:
            return self.TYPE + " " + fields
        return self.TYPE

    def encode_fields(self):
        return ""


class Hello(Message):
    """MCU -> host, at boot and in answer to SYNC; always followed by a Snapshot.

    ``HELLO <firmware> <protocol> <zones> <readers> <buttons>``
    """

    __slots__ = ("firmware", "protocol", "zones", "readers", "buttons")
    TYPE = "HELLO"
    FIELDS = __slots__

    def __init__(self, firmware, protocol=PROTOCOL_VERSION, zones=0, readers=0, buttons=0,
                 seq=None):
        self.firmware = firmware
        self.protocol = protocol
        self.zones = zones
        self.readers = readers
        self.buttons = buttons
        self.seq = seq

    def encode_fields(self):
        return "%s %d %d %d %d" % (
            _token(self.firmware, "HELLO firmware"),
            _check_uint(self.protocol, "HELLO protocol"),
            _check_uint(self.zones, "HELLO zones", 65535),
            _check_uint(self.readers, "HELLO readers", 255),
            _check_uint(self.buttons, "HELLO buttons", 255),
        )


class Snapshot(Message):
    """MCU -> host: every zone's debounced tag set, zone 0 first.

    ``zones[i]`` is the sorted tuple of UIDs on zone ``i``. On the wire it is
    split over one or more lines sent on consecutive sequence numbers::

        SNAP <snap_id> <part>/<parts> <zone_count> <first_zone> <set>...

    The Decoder yields a Snapshot only once every part has arrived intact.
    """

    __slots__ = ("snap_id", "zones")
    TYPE = "SNAP"
    FIELDS = __slots__

    def __init__(self, snap_id, zones, seq=None):
        self.snap_id = snap_id
        checked = []
        for index in range(len(zones)):
            checked.append(tag_set(zones[index], ("SNAP zone", index)))
        self.zones = tuple(checked)
        self.seq = seq

    def bodies(self, max_body):
        """The line bodies of this snapshot, each at most ``max_body`` chars."""
        _check_uint(self.snap_id, "SNAP snap_id", SEQ_MODULO - 1)
        count = len(self.zones)
        _check_uint(count, "SNAP zone count", 65535)
        tokens = [_format_set(uids) for uids in self.zones]
        # Room for "SNAP <id> <part>/<parts> <zones> <first>" at its widest.
        room = max_body - len("SNAP 65535 65535/65535 65535 65535")
        groups: list[list[str]] = []
        current: list[str] = []
        used = 0
        for token in tokens:
            if current and used + 1 + len(token) > room:
                groups.append(current)
                current = []
                used = 0
            current.append(token)
            used += 1 + len(token)
        groups.append(current)
        bodies = []
        first = 0
        for number in range(len(groups)):
            group = groups[number]
            head = "SNAP %d %d/%d %d %d" % (self.snap_id, number + 1, len(groups), count, first)
            if group:
                bodies.append(head + " " + " ".join(group))
            else:
                bodies.append(head)
            first += len(group)
        return bodies

    def body(self):
        bodies = self.bodies(MAX_LINE - 12)
        if len(bodies) != 1:
            raise ValueError("SNAP: needs %d lines; encode it with Encoder" % len(bodies))
        return bodies[0]


class ZoneState(Message):
    """MCU -> host: the whole debounced tag set of one zone, sent when it
    changes. Idempotent: applying it twice changes nothing.

    ``ZONE <zone> <set>`` where set is ``-`` or comma-separated UIDs.
    """

    __slots__ = ("zone", "uids")
    TYPE = "ZONE"
    FIELDS = __slots__

    def __init__(self, zone, uids=(), seq=None):
        self.zone = zone
        self.uids = tag_set(uids, ("ZONE", zone))
        self.seq = seq

    def encode_fields(self):
        return "%d %s" % (_check_uint(self.zone, "ZONE zone", 65535), _format_set(self.uids))


class _ButtonReport(Message):
    """A button report: ``<TYPE> <button> <count>``; ``count`` counts the button's presses
    since boot (so a lost line shows as a jump)."""

    __slots__ = ("button", "count")
    FIELDS = __slots__

    def __init__(self, button, count=1, seq=None):
        self.button = button
        self.count = count
        self.seq = seq

    def encode_fields(self):
        return "%d %d" % (_check_uint(self.button, self.TYPE + " button", 255),
                          _check_uint(self.count, self.TYPE + " count"))


class ButtonPress(_ButtonReport):
    """MCU -> host: button ``button`` was pressed.

    ``BTN <button> <count>``
    """

    __slots__ = ()
    TYPE = "BTN"


class ButtonHold(_ButtonReport):
    """MCU -> host (protocol 2): button ``button``, pressed as BTN ``count``
    reported, is still held down after the ``hold_ms`` setting: a long press.

    ``HOLD <button> <count>``
    """

    __slots__ = ()
    TYPE = "HOLD"


class Heartbeat(Message):
    """MCU -> host, about once a second: scan statistics and error counters.

    ``HB <uptime_ms> <scans> <scan_rate> <refresh_ms> <reader_errors> <faulted> <rx_bad>
    <tx_dropped>``

    - uptime_ms: milliseconds since the firmware started
    - scans: zone scans (one antenna inventoried once) since start
    - scan_rate: zone scans per second over the last heartbeat period
    - refresh_ms: mean time between two scans of the same zone over that period
    - reader_errors: per reader, faults since start (``0,0,3``; ``-`` without readers)
    - faulted: readers failing right now (``2``, ``0,2``; ``-`` for none)
    - rx_bad: lines from the host the MCU dropped
    - tx_dropped: lines the MCU could not write
    """

    __slots__ = (
        "uptime_ms", "scans", "scan_rate", "refresh_ms",
        "reader_errors", "faulted", "rx_bad", "tx_dropped",
    )
    TYPE = "HB"
    FIELDS = __slots__

    def __init__(self, uptime_ms=0, scans=0, scan_rate=0, refresh_ms=0,
                 reader_errors=(), faulted=(), rx_bad=0, tx_dropped=0, seq=None):
        self.uptime_ms = uptime_ms
        self.scans = scans
        self.scan_rate = scan_rate
        self.refresh_ms = refresh_ms
        self.reader_errors = tuple(reader_errors)
        self.faulted = tuple(faulted)
        self.rx_bad = rx_bad
        self.tx_dropped = tx_dropped
        self.seq = seq

    def encode_fields(self):
        for value in self.reader_errors:
            _check_uint(value, "HB reader_errors")
        for value in self.faulted:
            _check_uint(value, "HB faulted", 255)
        return "%d %d %d %d %s %s %d %d" % (
            _check_uint(self.uptime_ms, "HB uptime_ms", 10 ** 10 - 1),
            _check_uint(self.scans, "HB scans", 10 ** 10 - 1),
            _check_uint(self.scan_rate, "HB scan_rate"),
            _check_uint(self.refresh_ms, "HB refresh_ms"),
            _format_uint_list(self.reader_errors),
            _format_uint_list(self.faulted),
            _check_uint(self.rx_bad, "HB rx_bad"),
            _check_uint(self.tx_dropped, "HB tx_dropped"),
        )


class ErrorReport(Message):
    """MCU -> host: a reader fault (``reader`` is its number) or a rejected
    request (``reader`` None, written ``-``).

    ``ERR <reader> <code> <text...>``; code is a word such as TIMEOUT, BUS,
    NOCHIP, OVERFLOW, CFG; text is free printable ASCII to the end of the line.
    """

    __slots__ = ("reader", "code", "text")
    TYPE = "ERR"
    FIELDS = __slots__

    def __init__(self, reader, code, text="", seq=None):
        self.reader = reader
        self.code = code
        self.text = text
        self.seq = seq

    def encode_fields(self):
        if self.reader is None:
            reader = NO_READER
        else:
            reader = str(_check_uint(self.reader, "ERR reader", 255))
        head = reader + " " + _token(self.code, "ERR code")
        text = _clean_text(self.text)
        if text:
            return head + " " + text
        return head


class Pong(Message):
    """MCU -> host: answer to PING, echoing its token. ``PONG <token>``"""

    __slots__ = ("token",)
    TYPE = "PONG"
    FIELDS = __slots__

    def __init__(self, token=0, seq=None):
        self.token = token
        self.seq = seq

    def encode_fields(self):
        return str(_check_uint(self.token, "PONG token"))


class Sync(Message):
    """Host -> MCU: send HELLO and a full Snapshot now. ``SYNC``"""

    __slots__ = ()
    TYPE = "SYNC"
    FIELDS = ()

    def __init__(self, seq=None):
        self.seq = seq

    @classmethod
    def parse(cls, fields, seq):
        return cls(seq)


class Ping(Message):
    """Host -> MCU: answered by PONG with the same token. ``PING <token>``"""

    __slots__ = ("token",)
    TYPE = "PING"
    FIELDS = __slots__

    def __init__(self, token=0, seq=None):
        self.token = token
        self.seq = seq

    def encode_fields(self):
        return str(_check_uint(self.token, "PING token"))

    @classmethod
    def parse(cls, fields, seq):
        _need(fields, 1, "PING", "token")
        return cls(_uint(fields[0], "PING token"), seq)


class Config(Message):
    """Settings as ``key=value`` pairs with non-negative integer values.

    Host -> MCU: change the named settings (none: just report them).
    MCU -> host: the answer, listing every setting after the change.

    ``CFG[ <key>=<value>...]``
    """

    __slots__ = ("items",)
    TYPE = "CFG"
    FIELDS = __slots__

    def __init__(self, items=(), seq=None):
        if isinstance(items, dict):
            items = sorted(items.items())
        self.items = tuple([(key, value) for key, value in items])
        self.seq = seq

    def as_dict(self):
        return dict(self.items)

    def encode_fields(self):
        words = []
        for key, value in self.items:
            _config_key(key)
            words.append("%s=%d" % (key, _check_uint(value, "CFG %s" % key)))
        return " ".join(words)

    @classmethod
    def parse(cls, fields, seq):
        items = []
        for word in fields:
            pair = word.split("=")
            if len(pair) != 2:
                raise _syntax("CFG: expected key=value, got %r" % word)
            try:
                key = _config_key(pair[0])
            except ValueError as exc:
                raise _syntax(str(exc)) from None
            items.append((key, _uint(pair[1], "CFG %s" % key)))
        return cls(items, seq)


def _config_key(key):
    if not isinstance(key, str) or not key or len(key) > 32:
        raise ValueError("CFG: bad key %r" % (key,))
    for ch in key:
        if not ("a" <= ch <= "z" or "0" <= ch <= "9" or ch == "_"):
            raise ValueError("CFG: key %r may hold only a-z, 0-9 and _" % key)
    return key


class SequenceGap:
    """Not a line: the Decoder reports that lines were lost.

    Yielded just before the message whose sequence number revealed the gap.
    ``lost`` is how many sequence numbers were skipped.
    """

    __slots__ = ("expected", "got", "lost")

    def __init__(self, expected, got):
        self.expected = expected
        self.got = got
        self.lost = (got - expected) % SEQ_MODULO

    def __eq__(self, other):
        return isinstance(other, SequenceGap) and (self.expected, self.got) == (other.expected,
                                                                                other.got)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None  # type: ignore[assignment]  # as Message's

    def __repr__(self):
        return "SequenceGap(expected=%d, got=%d, lost=%d)" % (self.expected, self.got, self.lost)


# Which messages travel which way. CFG goes both ways.
FROM_MCU = ("HELLO", "SNAP", "ZONE", "BTN", "HOLD", "HB", "ERR", "PONG", "CFG")
FROM_HOST = ("SYNC", "PING", "CFG")

# How the board decodes the host's commands; tablefw.protocol adds the board's lines.
PARSERS = {
    "SYNC": Sync.parse,
    "PING": Ping.parse,
    "CFG": Config.parse,
}


# --------------------------------------------------------------------------
# Framing.


def frame(seq, body):
    """One framed line (bytes, newline included) for a body "TYPE fields"."""
    _check_uint(seq, "seq", SEQ_MODULO - 1)
    text = str(seq) + " " + body
    data = text.encode()
    return data + (" *%04X\n" % crc16(data)).encode()


class Encoder:
    """Frames messages for one direction, numbering the lines.

    ``seq`` is the number the next line will carry.
    """

    def __init__(self, seq=0, max_line=MAX_LINE):
        self.seq = seq % SEQ_MODULO
        self.max_line = max_line

    def lines(self, message):
        """The framed lines of ``message`` (a list; several for a big Snapshot)."""
        # Reserve "65535 " in front and " *XXXX" behind each body.
        max_body = self.max_line - 12
        if isinstance(message, Snapshot):
            bodies = message.bodies(max_body)
        else:
            bodies = [message.body()]
        result = []
        for body in bodies:
            if len(body) > max_body:
                raise ValueError("%s: line of %d bytes exceeds %d"
                                 % (message.TYPE, len(body) + 12, self.max_line))
            result.append(frame(self.seq, body))
            self.seq = (self.seq + 1) % SEQ_MODULO
        return result

    def encode(self, message):
        """``message`` as bytes, ready to write (possibly several lines)."""
        return b"".join(self.lines(message))


# --------------------------------------------------------------------------
# Decoding.

try:
    _is_ascii = bytes.isascii
except AttributeError:  # MicroPython / CircuitPython

    def _is_ascii(data):
        for byte in data:
            if byte > 127:
                return False
        return True


def parse_line(line):
    """Parse one line (bytes, without newline) into ``(seq, type, fields)``.

    Checks length, ASCII, framing and CRC; raises ProtocolError with the
    reason (one of DROP_REASONS) and a message naming what is wrong.
    """
    if len(line) > MAX_LINE:
        raise ProtocolError(OVERLONG, "line of %d bytes exceeds %d" % (len(line), MAX_LINE))
    if not _is_ascii(line):
        raise ProtocolError(NON_ASCII, "line holds non-ASCII bytes")
    text = line.decode()
    if len(text) < 9 or text[-6:-4] != " *":
        raise _syntax("line does not end with ' *' and a 4-digit CRC")
    sent = text[-4:]
    computed = "%04X" % crc16(line[:-6])
    if sent != computed:
        if len(sent) != 4 or sent.strip(HEX_DIGITS):
            raise _syntax("CRC %r is not 4 upper-case hex digits" % sent)
        raise ProtocolError(BAD_CRC, "CRC %s does not match the computed %s" % (sent, computed))
    words = text[:-6].split(" ")
    seq_text = words[0]
    if not seq_text or len(seq_text) > 5 or not seq_text.isdigit() or int(seq_text) >= SEQ_MODULO:
        raise _syntax("sequence number %r is not 0..%d" % (seq_text, SEQ_MODULO - 1))
    if len(words) < 2 or not words[1]:
        raise _syntax("line has no message type")
    return int(seq_text), words[1], words[2:]


class Decoder:
    """Turns received bytes into messages for one direction of the link.

    ``feed(data)`` accepts any chunking of the byte stream and returns the
    complete messages it finished, in order: Message objects, plus a
    SequenceGap just before any message whose sequence number shows lost
    lines. Bad lines are dropped and counted by reason in ``counts``;
    ``last_error`` describes the most recent one.

    ``accept``: the message types expected in this direction (FROM_HOST on
    the board, the default here; tablefw.protocol.Decoder knows the board's
    lines too); any other type is dropped as ``unknown_type`` (it still
    counts for the sequence, so a newer peer's extra messages do not look
    like loss).
    """

    PARSERS = PARSERS
    DEFAULT_ACCEPT: "tuple[str, ...]" = FROM_HOST

    def __init__(self, accept=None, max_line=MAX_LINE):
        if accept is None:
            accept = self.DEFAULT_ACCEPT
        self.accept = {}
        for name in accept:
            self.accept[name] = self.PARSERS[name]
        self.max_line = max_line
        self.counts = {}
        self.last_error = None
        self.reset()
        for key in ("lines", "messages", "gaps", "lost", "snap_parts_dropped",
                    "resynced") + DROP_REASONS:
            self.counts[key] = 0
        # What a line glued behind garbage has after its sequence number.
        self._markers = []
        for name in self.accept:
            self._markers.append((" " + name + " ").encode())

    def reset(self):
        """Forget partial input and the expected sequence number (e.g. after
        reopening the port); the counters are kept."""
        self._buffer = b""
        self._skipping = False
        self._expected = None

    @property
    def dropped(self):
        """Total lines dropped, all reasons together."""
        counts = self.counts
        total = 0
        for reason in DROP_REASONS:
            total += counts[reason]
        return total

    def feed(self, data):
        out: list[Message | SequenceGap] = []
        if self._buffer:
            data = self._buffer + data
        pieces = data.split(b"\n")
        tail = pieces.pop()
        for line in pieces:
            if self._skipping:
                # The end of a line already counted as overlong; a whole line
                # may still end it (an MCU that reset mid-line, then said HELLO).
                self._skipping = False
                self._resync(line, out)
                continue
            self._line(line, out)
        if len(tail) > self.max_line + 1:
            if not self._skipping:
                self._drop(OVERLONG, "line longer than %d bytes" % self.max_line, tail)
                self._skipping = True
            # Keep what could still be the start of a complete line.
            tail = tail[-(self.max_line + 1):]
        self._buffer = tail
        return out

    def _drop(self, reason, message, line):
        self.counts["lines"] += 1
        self.counts[reason] += 1
        excerpt = line[:60]
        self.last_error = "%s: %s (line %r)" % (reason, message, excerpt)

    def _line(self, line, out):
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line:
            return  # blank lines are allowed as keep-alives
        if len(line) > self.max_line:
            self._drop(OVERLONG, "line of %d bytes exceeds %d" % (len(line), self.max_line), line)
            self._resync(line, out)
            return
        try:
            seq, kind, fields = parse_line(line)
        except ProtocolError as exc:
            self._drop(exc.reason, str(exc), line)
            self._resync(line, out)
            return
        counts = self.counts
        counts["lines"] += 1
        expected = self._expected
        self._expected = (seq + 1) % SEQ_MODULO
        if expected is not None and seq != expected and kind != "HELLO":
            # HELLO restarts the count (an MCU reset) and is always followed
            # by a full snapshot, so a jump before it needs no recovery.
            gap = SequenceGap(expected, seq)
            counts["gaps"] += 1
            counts["lost"] += gap.lost
            out.append(gap)
            self._abandon_snapshot()
        parser = self.accept.get(kind)
        if parser is None:
            self._abandon_snapshot()
            counts[UNKNOWN_TYPE] += 1
            self.last_error = "%s: message type %r is not expected here (line %r)" % (
                UNKNOWN_TYPE, kind, line[:60])
            return
        try:
            message = parser(fields, seq)
        except ValueError as exc:
            # Field errors: ProtocolError from the parsers, plain ValueError
            # from the message constructors (tag UIDs).
            self._abandon_snapshot()
            reason = getattr(exc, "reason", BAD_SYNTAX)
            counts[reason] += 1
            self.last_error = "%s: %s (line %r)" % (reason, exc, line[:60])
            return
        message = self._complete(kind, message)
        if message is None:
            return
        counts["messages"] += 1
        out.append(message)

    def _resync(self, line, out):
        """Decode a complete line glued behind garbage (half a line cut off by
        a reset, noise), e.g. ``12 ZONE 3 E00`` + ``0 HELLO ... *1A2B``: the
        line that ends ``line`` has its sequence number right before
        `` TYPE ``, and only its true start makes the CRC match."""
        if len(line) > self.max_line:
            line = line[-self.max_line:]
        best = None
        for marker in self._markers:
            end = line.find(marker)
            while end >= 0:
                start = end
                while start > 0 and end - start < 5 and 48 <= line[start - 1] <= 57:
                    start -= 1
                    if start > 0 and (best is None or start < best):
                        try:
                            parse_line(line[start:])
                        except ProtocolError:
                            continue
                        best = start
                        break
                end = line.find(marker, end + 1)
        if best is not None:
            self.counts["resynced"] += 1
            self._line(line[best:], out)

    def _complete(self, kind, message):
        """The message a parsed line makes, or None while it is a part of one
        (the host's Decoder collects SNAP parts here)."""
        return message

    def _abandon_snapshot(self):
        """A line went missing or wrong: forget a half-collected message."""
