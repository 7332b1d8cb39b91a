"""Line codec of the serial link between the table MCU and the host.

Pure: no I/O, no clock. Written in the common subset of CPython and
CircuitPython (no dataclasses, typing, enum, f-strings or match), because
the firmware and the host share this code. docs/protocol.md is the
specification; this module is its reference implementation, in two halves:
tablefw.wire is what the board loads (framing, the messages it sends,
decoding the host's commands), and this module adds what only the host
needs: decoding the board's lines and collecting a snapshot's parts. The
host imports this module; every name of the codec is here.

A line is ASCII text::

    <seq> <TYPE>[ <field>...] *<CRC>\\n

``seq`` is a decimal sequence number 0..65535 counted per direction,
``CRC`` is the CRC-16/CCITT-FALSE of every byte before `` *``, as four
upper-case hex digits. A receiver drops any line that does not check out
and resynchronises at the next newline; a jump in ``seq`` tells it that
lines were lost (the host then asks for a snapshot with SYNC).

Encoding::

    enc = Encoder()
    port.write(enc.encode(ZoneState(3, ["E004015012345678"])))

Decoding::

    dec = Decoder(accept=FROM_MCU)
    for message in dec.feed(port.read(4096)):
        if isinstance(message, SequenceGap):
            port.write(host_enc.encode(Sync()))
        ...
"""

from tablefw.wire import (
    BAD_CRC,
    BAD_SYNTAX,
    DROP_REASONS,
    EMPTY_SET,
    FROM_HOST,
    FROM_MCU,
    HEX_DIGITS,
    MAX_LINE,
    MAX_TEXT,
    MAX_ZONE_TAGS,
    NO_READER,
    NON_ASCII,
    OVERLONG,
    PROTOCOL_VERSION,
    SEQ_MODULO,
    UNKNOWN_TYPE,
    ButtonHold,
    ButtonPress,
    Config,
    Encoder,
    ErrorReport,
    Heartbeat,
    Hello,
    Message,
    Ping,
    Pong,
    ProtocolError,
    SequenceGap,
    Snapshot,
    Sync,
    ZoneState,
    _need,
    _syntax,
    _uint,
    crc16,
    crc16_py,
    frame,
    normalize_uid,
    parse_line,
    tag_set,
)
from tablefw.wire import (
    PARSERS as HOST_COMMAND_PARSERS,
)
from tablefw.wire import Decoder as _BoardDecoder

__all__ = [
    "BAD_CRC", "BAD_SYNTAX", "DROP_REASONS", "EMPTY_SET", "FROM_HOST", "FROM_MCU", "HEX_DIGITS",
    "MAX_LINE", "MAX_TEXT", "MAX_ZONE_TAGS", "NO_READER", "NON_ASCII", "OVERLONG", "PARSERS",
    "PROTOCOL_VERSION", "SEQ_MODULO", "UNKNOWN_TYPE", "ButtonHold", "ButtonPress", "Config",
    "Decoder",
    "Encoder", "ErrorReport", "Heartbeat", "Hello", "Message", "Ping", "Pong", "ProtocolError",
    "SequenceGap", "Snapshot", "SnapshotPart", "Sync", "ZoneState", "crc16", "crc16_py", "encode",
    "frame", "normalize_uid", "parse_line", "tag_set",
]


# --------------------------------------------------------------------------
# Fields of the board's lines.


def _split_set(text):
    # The constructor's tag_set() checks, sorts and normalises the UIDs.
    if text == EMPTY_SET:
        return ()
    return text.split(",")


def _parse_uint_list(text, name):
    if text == "-":
        return ()
    return tuple([_uint(part, name) for part in text.split(",")])


# --------------------------------------------------------------------------
# The board's lines, parsed: ``parse(fields, seq)`` for each type.


def _parse_hello(fields, seq):
    _need(fields, 5, "HELLO", "firmware protocol zones readers buttons")
    return Hello(
        fields[0],
        _uint(fields[1], "HELLO protocol"),
        _uint(fields[2], "HELLO zones", 65535),
        _uint(fields[3], "HELLO readers", 255),
        _uint(fields[4], "HELLO buttons", 255),
        seq,
    )


class SnapshotPart:
    """One SNAP line, as parsed; the Decoder assembles parts into a Snapshot."""

    __slots__ = ("snap_id", "part", "parts", "zone_count", "first_zone", "sets", "seq")

    def __init__(self, snap_id, part, parts, zone_count, first_zone, sets, seq):
        self.snap_id = snap_id
        self.part = part
        self.parts = parts
        self.zone_count = zone_count
        self.first_zone = first_zone
        self.sets = sets
        self.seq = seq

    @classmethod
    def parse(cls, fields, seq):
        _need(fields, 4, "SNAP", "snap_id part/parts zone_count first_zone sets...")
        snap_id = _uint(fields[0], "SNAP snap_id", SEQ_MODULO - 1)
        fraction = fields[1].split("/")
        if len(fraction) != 2:
            raise _syntax("SNAP part/parts: expected e.g. 1/3, got %r" % fields[1])
        part = _uint(fraction[0], "SNAP part", 65535)
        parts = _uint(fraction[1], "SNAP parts", 65535)
        if part < 1 or part > parts:
            raise _syntax("SNAP part/parts: part %d of %d is out of range" % (part, parts))
        zone_count = _uint(fields[2], "SNAP zone_count", 65535)
        first = _uint(fields[3], "SNAP first_zone", 65535)
        sets = []
        zone = first
        for text in fields[4:]:
            sets.append(tag_set(_split_set(text), ("SNAP zone", zone)))
            zone += 1
        if zone > zone_count:
            raise _syntax("SNAP: zones %d..%d exceed the zone count %d"
                          % (first, zone - 1, zone_count))
        return cls(snap_id, part, parts, zone_count, first, sets, seq)


def _parse_zone(fields, seq):
    _need(fields, 2, "ZONE", "zone set")
    return ZoneState(_uint(fields[0], "ZONE zone", 65535), _split_set(fields[1]), seq)


def _parse_button(kind, fields, seq):
    _need(fields, 2, kind.TYPE, "button count")
    return kind(_uint(fields[0], kind.TYPE + " button", 255),
                _uint(fields[1], kind.TYPE + " count"), seq)


def _parse_heartbeat(fields, seq):
    _need(fields, 8, "HB", "uptime_ms scans scan_rate refresh_ms reader_errors faulted rx_bad "
                           "tx_dropped")
    return Heartbeat(
        _uint(fields[0], "HB uptime_ms", 10 ** 10 - 1),
        _uint(fields[1], "HB scans", 10 ** 10 - 1),
        _uint(fields[2], "HB scan_rate"),
        _uint(fields[3], "HB refresh_ms"),
        _parse_uint_list(fields[4], "HB reader_errors"),
        _parse_uint_list(fields[5], "HB faulted"),
        _uint(fields[6], "HB rx_bad"),
        _uint(fields[7], "HB tx_dropped"),
        seq,
    )


def _parse_error(fields, seq):
    _need(fields, 2, "ERR", "reader code text")
    if fields[0] == NO_READER:
        reader = None
    else:
        reader = _uint(fields[0], "ERR reader", 255)
    return ErrorReport(reader, fields[1], " ".join(fields[2:]), seq)


def _parse_pong(fields, seq):
    _need(fields, 1, "PONG", "token")
    return Pong(_uint(fields[0], "PONG token"), seq)


PARSERS = {
    "HELLO": _parse_hello,
    "SNAP": SnapshotPart.parse,
    "ZONE": _parse_zone,
    "BTN": lambda fields, seq: _parse_button(ButtonPress, fields, seq),
    "HOLD": lambda fields, seq: _parse_button(ButtonHold, fields, seq),
    "HB": _parse_heartbeat,
    "ERR": _parse_error,
    "PONG": _parse_pong,
}
PARSERS.update(HOST_COMMAND_PARSERS)


def encode(message, seq=0, max_line=MAX_LINE):
    """Frame ``message`` starting at sequence number ``seq``; returns bytes."""
    return Encoder(seq, max_line).encode(message)


class Decoder(_BoardDecoder):
    """tablefw.wire.Decoder that also knows the board's lines (every type by
    default): SNAP parts are collected and a Snapshot is returned only when
    all its parts arrived in sequence."""

    PARSERS = PARSERS
    DEFAULT_ACCEPT = FROM_MCU + FROM_HOST

    def reset(self):
        _BoardDecoder.reset(self)
        self._snap = None

    def feed_line(self, line):
        """Decode one complete line (without its newline); returns the list
        of messages it produced (empty if dropped or a SNAP part)."""
        out: list[Message | SequenceGap] = []
        self._line(line, out)
        return out

    def _complete(self, kind, message):
        if kind == "SNAP":
            return self._snapshot_part(message)
        if self._snap is not None:
            self._abandon_snapshot()
        return message

    def _abandon_snapshot(self):
        if self._snap is not None:
            # state[3] is the number of parts collected so far.
            self.counts["snap_parts_dropped"] += self._snap[3]
            self._snap = None

    def _snapshot_part(self, part):
        state = self._snap
        if part.part == 1:
            self._abandon_snapshot()
            if part.first_zone != 0:
                self.counts["snap_parts_dropped"] += 1
                self.last_error = "bad_syntax: SNAP %d part 1 starts at zone %d, not 0" % (
                    part.snap_id, part.first_zone)
                return None
            state = [part.snap_id, part.parts, part.zone_count, 1, list(part.sets)]
            self._snap = state
        elif (state is None or state[0] != part.snap_id or state[1] != part.parts
              or state[2] != part.zone_count or state[3] + 1 != part.part
              or len(state[4]) != part.first_zone):
            self._abandon_snapshot()
            self.counts["snap_parts_dropped"] += 1
            self.last_error = "SNAP %d part %d/%d arrived without its earlier parts" % (
                part.snap_id, part.part, part.parts)
            return None
        else:
            state[3] = part.part
            state[4].extend(part.sets)
        if state[3] < state[1]:
            return None
        self._snap = None
        if len(state[4]) != state[2]:
            self.counts["snap_parts_dropped"] += state[1]
            self.last_error = "SNAP %d lists %d zones, announced %d" % (state[0], len(state[4]),
                                                                        state[2])
            return None
        return Snapshot(state[0], state[4], part.seq)
