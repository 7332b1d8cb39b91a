"""The serial line codec: framing, CRC, every message, bad input, gaps, snapshots."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablefw import protocol as p

UID_A = "E004015012345678"
UID_B = "E0040150ABCDEF01"
UID_C = "E004015000000042"

EVERY_MESSAGE = [
    p.Hello("0.1.0", p.PROTOCOL_VERSION, 44, 6, 2),
    p.Snapshot(7, [(), (UID_A,), (UID_B, UID_C), ()]),
    p.ZoneState(3, [UID_A, UID_B]),
    p.ZoneState(4, []),
    p.ButtonPress(1, 5),
    p.Heartbeat(123456, 9000, 180, 245, (0, 0, 3), (2,), 1, 0),
    p.Heartbeat(10, 0, 0, 0, (), (), 0, 0),
    p.ErrorReport(2, "TIMEOUT", "zone 17: no answer within 20 ms"),
    p.ErrorReport(None, "CFG", "unknown setting 'speed'"),
    p.Pong(77),
    p.Config({"debounce_on": 2, "hb_ms": 1000}),
    p.Config(),
    p.Sync(),
    p.Ping(77),
]


def bitwise_crc(data: bytes) -> int:
    """An independent, bit-by-bit CRC-16/CCITT-FALSE."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def decode_all(data: bytes, accept=None) -> tuple[list, p.Decoder]:
    decoder = p.Decoder(accept=accept)
    return decoder.feed(data), decoder


# ---------------------------------------------------------------- CRC


def test_crc_check_value():
    assert p.crc16(b"123456789") == 0x29B1
    assert p.crc16_py(b"123456789") == 0x29B1


@given(st.binary(max_size=300))
def test_crc_implementations_agree(data):
    assert p.crc16(data) == p.crc16_py(data) == bitwise_crc(data)


def test_frame_layout():
    line = p.frame(12, "ZONE 3 -")
    body = b"12 ZONE 3 -"
    assert line == body + b" *%04X\n" % bitwise_crc(body)


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("message", EVERY_MESSAGE, ids=lambda m: type(m).__name__)
def test_every_message_round_trips(message):
    encoder = p.Encoder(seq=41)
    data = encoder.encode(message)
    assert data.endswith(b"\n") and data.isascii()
    decoded, decoder = decode_all(data)
    assert decoded == [message]
    assert decoded[0].seq == 41
    assert decoder.dropped == 0 and decoder.counts["gaps"] == 0


def test_stream_of_all_messages_with_consecutive_sequence_numbers():
    encoder = p.Encoder()
    data = b"".join(encoder.encode(m) for m in EVERY_MESSAGE)
    decoded, decoder = decode_all(data)
    assert decoded == EVERY_MESSAGE
    assert [m.seq for m in decoded] == list(range(len(EVERY_MESSAGE)))
    assert decoder.counts["messages"] == len(EVERY_MESSAGE)


def test_byte_by_byte_feeding_gives_the_same_messages():
    encoder = p.Encoder()
    data = b"".join(encoder.encode(m) for m in EVERY_MESSAGE)
    decoder = p.Decoder()
    out = []
    for i in range(len(data)):
        out.extend(decoder.feed(data[i:i + 1]))
    assert out == EVERY_MESSAGE


def test_uids_are_normalised_and_sorted():
    message = p.ZoneState(5, [UID_B.lower(), UID_A])
    assert message.uids == (UID_A, UID_B)
    assert p.encode(message, 0) == p.frame(0, f"ZONE 5 {UID_A},{UID_B}")


def test_lowercase_uids_on_the_wire_are_accepted_and_normalised():
    decoded, _ = decode_all(p.frame(0, f"ZONE 5 {UID_A.lower()}"))
    assert decoded == [p.ZoneState(5, [UID_A])]
    assert decoded[0].uids == (UID_A,)


def test_crlf_and_blank_lines_are_accepted():
    data = p.frame(0, "SYNC").replace(b"\n", b"\r\n") + b"\n\r\n" + p.frame(1, "PING 3")
    decoded, decoder = decode_all(data)
    assert decoded == [p.Sync(), p.Ping(3)]
    assert decoder.dropped == 0


def test_extra_trailing_fields_of_a_newer_peer_are_ignored():
    decoded, decoder = decode_all(p.frame(0, "HELLO 0.2.0 1 44 6 2 future-field"))
    assert decoded == [p.Hello("0.2.0", 1, 44, 6, 2)]
    assert decoder.dropped == 0


def test_err_text_keeps_its_spaces_and_loses_unprintables():
    message = p.ErrorReport(1, "BUS", "two  spaces\tand a tab \u00e9")
    decoded, _ = decode_all(p.encode(message))
    assert decoded[0].text == "two  spaces?and a tab ?"


# ---------------------------------------------------------------- encoder errors


@pytest.mark.parametrize(
    ("build", "fragment"),
    [
        (lambda: p.ZoneState(1, ["E00401"]), "not a tag UID"),
        (lambda: p.ZoneState(1, [UID_A, UID_A.lower()]), "listed twice"),
        (lambda: p.ZoneState(1, [f"E0040150{i:08X}" for i in range(p.MAX_ZONE_TAGS + 1)]),
         "at most"),
        (lambda: p.Snapshot(1, [(), ("XYZ",)]), "SNAP zone 1"),
    ],
)
def test_bad_tag_sets_are_refused_with_a_clear_message(build, fragment):
    with pytest.raises(ValueError, match=fragment):
        build()


@pytest.mark.parametrize(
    ("message", "fragment"),
    [
        (p.ZoneState(-1, []), "ZONE zone"),
        (p.ErrorReport(1, "TWO WORDS", ""), "ERR code"),
        (p.Hello("0.1 beta"), "HELLO firmware"),
        (p.Config({"Bad-Key": 1}), "CFG"),
        (p.Heartbeat(-5), "HB uptime_ms"),
    ],
)
def test_bad_fields_are_refused_when_encoding(message, fragment):
    with pytest.raises(ValueError, match=fragment):
        p.encode(message)


def test_no_encoded_line_exceeds_the_limit():
    big = p.Snapshot(9,
                     [["E0040150%08X" % (z * 100 + t) for t in range(z % 16)] for z in range(200)])
    lines = p.Encoder().lines(big)
    assert len(lines) > 1
    assert max(len(line) - 1 for line in lines) <= p.MAX_LINE
    full_zone = p.ZoneState(0, [f"E0040150{i:08X}" for i in range(p.MAX_ZONE_TAGS)])
    assert len(p.encode(full_zone)) - 1 <= p.MAX_LINE


# ---------------------------------------------------------------- bad lines


def test_bad_crc_is_dropped_counted_and_the_next_line_decoded():
    good = p.frame(0, "ZONE 1 -")
    corrupt = bytearray(p.frame(1, "ZONE 2 " + UID_A))
    corrupt[9] ^= 0x01  # one bit of the zone's tag
    data = good + bytes(corrupt) + p.frame(2, "ZONE 3 -")
    decoded, decoder = decode_all(data)
    messages = [m for m in decoded if isinstance(m, p.Message)]
    assert messages == [p.ZoneState(1), p.ZoneState(3)]
    assert decoder.counts["bad_crc"] == 1
    assert "CRC" in decoder.last_error
    # the lost line shows up as a gap before ZONE 3
    assert p.SequenceGap(1, 2) in decoded


def test_garbage_is_dropped_and_the_reader_resynchronises_at_the_newline():
    data = b"\x00\x13garbage without structure" + b"\n" + p.frame(5, "SYNC")
    decoded, decoder = decode_all(data)
    assert decoded == [p.Sync()]
    assert decoder.counts["bad_syntax"] == 1


def test_a_partial_line_after_opening_the_port_is_dropped():
    tail_of_old_line = p.frame(9, "ZONE 4 " + UID_A)[7:]
    decoded, decoder = decode_all(tail_of_old_line + p.frame(10, "ZONE 5 -"))
    assert decoded == [p.ZoneState(5)]
    assert decoder.dropped == 1


def test_non_ascii_line_is_dropped():
    line = "0 ERR 1 BUS caf\u00e9".encode()
    line += b" *%04X\n" % p.crc16(line)
    decoded, decoder = decode_all(line + p.frame(1, "SYNC"))
    assert decoded == [p.Sync()]
    assert decoder.counts["non_ascii"] == 1


def test_overlong_line_is_dropped_once_even_when_fed_in_pieces():
    decoder = p.Decoder()
    out = []
    for _ in range(10):
        out += decoder.feed(b"X" * 300)
    out += decoder.feed(b"tail\n" + p.frame(0, "SYNC"))
    assert out == [p.Sync()]
    assert decoder.counts["overlong"] == 1
    assert decoder.dropped == 1


def test_overlong_complete_line_is_dropped():
    body = "ERR 1 BUS " + "x" * (p.MAX_LINE + 10)
    line = p.frame(0, body)
    decoded, decoder = decode_all(line + p.frame(1, "SYNC"))
    assert decoded == [p.Sync()]
    assert decoder.counts["overlong"] == 1


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("ZONE x -", "ZONE zone"),
        ("ZONE 3 E0040150,E004015012345678", "not a tag UID"),
        (f"ZONE 3 {UID_A},{UID_A}", "listed twice"),
        ("HB 1 2 3", "HB"),
        ("SNAP 1 3/2 4 0 - - - -", "out of range"),
        ("SNAP 1 1/1 2 0 - - -", "exceed the zone count"),
        ("CFG debounce_on:2", "key=value"),
        ("CFG Speed=2", "CFG"),
        ("BTN 1 -4", "BTN count"),
    ],
)
def test_field_errors_are_dropped_as_bad_syntax_naming_the_field(body, fragment):
    decoded, decoder = decode_all(p.frame(0, body))
    assert decoded == []
    assert decoder.counts["bad_syntax"] == 1
    assert fragment in decoder.last_error


@pytest.mark.parametrize(
    "line",
    [
        b"SYNC *1234",  # no sequence number
        b"x1 SYNC *%04X" % p.crc16(b"x1 SYNC"),
        b"99999 SYNC *%04X" % p.crc16(b"99999 SYNC"),
        b"1 *%04X" % p.crc16(b"1"),
        b"1 SYNC *12g4",
        b"1 SYNC 1234",
    ],
)
def test_framing_errors(line):
    decoded, decoder = decode_all(line + b"\n")
    assert decoded == []
    assert decoder.dropped == 1


def test_unknown_types_are_dropped_but_keep_the_sequence():
    data = p.frame(0, "ZONE 1 -") + p.frame(1, "WOBBLE 3") + p.frame(2, "ZONE 2 -")
    decoded, decoder = decode_all(data)
    assert decoded == [p.ZoneState(1), p.ZoneState(2)]
    assert decoder.counts["unknown_type"] == 1
    assert decoder.counts["gaps"] == 0


def test_each_direction_accepts_only_its_messages():
    mcu_side = p.Decoder(accept=p.FROM_HOST)
    assert mcu_side.feed(p.frame(0, "ZONE 1 -") + p.frame(1, "SYNC")) == [p.Sync()]
    assert mcu_side.counts["unknown_type"] == 1
    host_side = p.Decoder(accept=p.FROM_MCU)
    assert host_side.feed(p.frame(0, "PING 4") + p.frame(1, "PONG 4")) == [p.Pong(4)]
    assert host_side.counts["unknown_type"] == 1


# ---------------------------------------------------------------- sequence numbers


def test_sequence_gap_is_reported_before_the_message_that_reveals_it():
    data = p.frame(0, "ZONE 1 -") + p.frame(1, "ZONE 2 -") + p.frame(5, "ZONE 3 -")
    decoded, decoder = decode_all(data)
    assert decoded == [p.ZoneState(1), p.ZoneState(2), p.SequenceGap(2, 5), p.ZoneState(3)]
    assert decoded[2].lost == 3
    assert decoder.counts["gaps"] == 1 and decoder.counts["lost"] == 3


def test_sequence_wraps_without_a_gap():
    data = p.frame(65534, "SYNC") + p.frame(65535, "SYNC") + p.frame(0, "SYNC")
    decoded, decoder = decode_all(data)
    assert decoded == [p.Sync()] * 3
    assert decoder.counts["gaps"] == 0
    encoder = p.Encoder(seq=65535)
    assert encoder.encode(p.Sync()).startswith(b"65535 ") and encoder.seq == 0


def test_first_line_after_connecting_is_never_a_gap():
    decoded, decoder = decode_all(p.frame(4321, "ZONE 1 -"))
    assert decoded == [p.ZoneState(1)]
    assert decoder.counts["gaps"] == 0


def test_hello_restarts_the_sequence_without_a_gap():
    data = p.frame(900, "ZONE 1 -") + p.frame(0, "HELLO 0.1.0 1 4 1 0") + p.frame(1, "ZONE 2 -")
    decoded, decoder = decode_all(data)
    assert [type(m) for m in decoded] == [p.ZoneState, p.Hello, p.ZoneState]
    assert decoder.counts["gaps"] == 0


def test_reset_forgets_partial_input_and_expected_sequence():
    decoder = p.Decoder()
    decoder.feed(p.frame(0, "ZONE 1 -") + b"12 ZONE")
    decoder.reset()
    assert decoder.feed(p.frame(50, "ZONE 2 -")) == [p.ZoneState(2)]
    assert decoder.dropped == 0 and decoder.counts["gaps"] == 0


# ---------------------------------------------------------------- snapshots


def big_snapshot(snap_id: int = 3, zones: int = 120) -> p.Snapshot:
    return p.Snapshot(snap_id,
                      [[f"E0040150{z:04X}{t:04X}" for t in range(z % 7)] for z in range(zones)])


def test_split_snapshot_is_reassembled():
    snapshot = big_snapshot()
    lines = p.Encoder(seq=100).lines(snapshot)
    assert len(lines) >= 3
    assert all(b" SNAP 3 %d/%d 120 " % (i + 1, len(lines)) in line for i, line in enumerate(lines))
    decoder = p.Decoder()
    out = []
    for line in lines[:-1]:
        out += decoder.feed(line)
    assert out == []  # nothing until the last part
    out = decoder.feed(lines[-1])
    assert out == [snapshot]
    assert out[0].seq == 100 + len(lines) - 1


def test_snapshot_with_a_lost_part_is_not_accepted():
    encoder = p.Encoder()
    lines = encoder.lines(big_snapshot(3))
    del lines[1]
    following = encoder.lines(big_snapshot(4))
    decoded, decoder = decode_all(b"".join(lines + following))
    snapshots = [m for m in decoded if isinstance(m, p.Snapshot)]
    assert [s.snap_id for s in snapshots] == [4]
    assert any(isinstance(m, p.SequenceGap) for m in decoded)
    assert decoder.counts["snap_parts_dropped"] == len(lines)


def test_snapshot_interrupted_by_another_line_is_not_accepted():
    snapshot_lines = p.Encoder().lines(big_snapshot(3))
    bodies = [line.decode().split(" ", 1)[1].rsplit(" *", 1)[0] for line in snapshot_lines]
    bodies.insert(1, "ZONE 0 -")  # a well-formed line squeezed between parts
    data = b"".join(p.frame(seq, body) for seq, body in enumerate(bodies))
    decoded, decoder = decode_all(data)
    assert decoded == [p.ZoneState(0)]
    assert decoder.counts["snap_parts_dropped"] == len(snapshot_lines)
    assert decoder.counts["gaps"] == 0


def test_stray_later_part_is_dropped():
    decoded, decoder = decode_all(p.frame(0, "SNAP 8 2/2 4 2 - -"))
    assert decoded == []
    assert decoder.counts["snap_parts_dropped"] == 1


def test_empty_table_snapshot():
    decoded, _ = decode_all(p.encode(p.Snapshot(0, [])))
    assert decoded == [p.Snapshot(0, [])]
    decoded, _ = decode_all(p.encode(p.Snapshot(1, [()] * 44)))
    assert decoded[0].zones == ((),) * 44


# ---------------------------------------------------------------- docs


def test_every_example_line_in_the_protocol_doc_decodes():
    doc = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
    lines = [m.group(0) for m in re.finditer(r"^\d+ [A-Z]+[^\n]* \*[0-9A-F]{4}$", doc.read_text(),
                                             re.M)]
    assert len(lines) >= 12
    for line in lines:
        decoder = p.Decoder()
        out = decoder.feed(line.encode() + b"\n")
        assert decoder.dropped == 0, f"{line}: {decoder.last_error}"
        if " SNAP " not in line:
            assert len(out) == 1, line


# ---------------------------------------------------------------- robustness


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.binary(max_size=80), max_size=20))
def test_random_bytes_never_raise(chunks):
    decoder = p.Decoder()
    for chunk in chunks:
        for message in decoder.feed(chunk):
            assert isinstance(message, p.Message | p.SequenceGap)


@settings(max_examples=300, derandomize=True)
@given(st.data())
def test_a_corrupted_byte_never_yields_a_wrong_message(data):
    originals = [p.ZoneState(z % 7, [UID_A] if z % 2 else []) for z in range(12)]
    originals.append(p.Snapshot(2, [(), (UID_B,)]))
    encoder = p.Encoder()
    stream = bytearray(b"".join(encoder.encode(m) for m in originals))
    position = data.draw(st.integers(0, len(stream) - 1))
    stream[position] = data.draw(st.integers(0, 255).filter(lambda b: b != stream[position]))
    decoded = [m for m in p.Decoder().feed(bytes(stream)) if isinstance(m, p.Message)]
    # What survives is the original stream, in order, minus the damaged line
    # (or two, when the damage turned a byte into a newline or removed one).
    assert len(decoded) >= len(originals) - 2
    position = 0
    for message in decoded:
        while not (originals[position] == message and position == message.seq):
            position += 1  # IndexError here means a message that was never sent
        position += 1
