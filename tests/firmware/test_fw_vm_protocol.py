"""The protocol codec on MicroPython round-trips with the host's over a pipe.

tests/firmware/vm/protocol_peer.py runs the firmware's tablefw.protocol on the VM;
the test (CPython, the host's side of the same file) sends it bytes through a pipe.
Every message type, encoded by the host, comes back decoded and encoded again byte
for byte; mutilated streams (bit flips, cut lines, garbage, overlong lines) are
decoded by both sides into the same messages, counters and error texts.
"""

from __future__ import annotations

import json
import random

from tablefw import protocol
from tests.firmware import mpvm

SCRIPT = mpvm.VM_DIR / "protocol_peer.py"


def sample_messages() -> list[protocol.Message]:
    uids = [f"E0040150{n:08X}" for n in range(30)]
    big = [uids[n % 30: n % 30 + (n % 5)] for n in range(300)]
    return [
        protocol.Hello("0.1.0", protocol.PROTOCOL_VERSION, 56, 4, 2),
        protocol.Snapshot(7, [uids[:2], (), uids[2:3]]),
        protocol.Snapshot(65535, big),  # several lines
        protocol.ZoneState(3, uids[:protocol.MAX_ZONE_TAGS]),
        protocol.ZoneState(65535, ()),
        protocol.ButtonPress(1, 17),
        protocol.ButtonHold(0, 999999999),
        protocol.Heartbeat(10 ** 10 - 1, 123456, 250, 196, (0, 3, 0, 12), (1,), 2, 0),
        protocol.Heartbeat(),
        protocol.ErrorReport(2, "TIMEOUT", "zone 4: no answer\tin time \x00\xe9" + "x" * 300),
        protocol.ErrorReport(None, "CFG", ""),
        protocol.Pong(4294967),
        protocol.Sync(),
        protocol.Ping(0),
        protocol.Config({"debounce_on": 3, "scan_ms": 0}),
        protocol.Config(),
    ]


class CPythonPeer:
    """What protocol_peer.py does, on CPython."""

    def __init__(self, seq: int) -> None:
        self.decoder = protocol.Decoder()
        self.encoder = protocol.Encoder(seq)

    def feed(self, data: bytes) -> dict:
        messages = self.decoder.feed(data)
        encoded = b"".join(self.encoder.encode(m) for m in messages if isinstance(m,
                                                                                  protocol.Message))
        return {"messages": [repr(m) for m in messages], "encoded": encoded.hex(),
                "counts": dict(self.decoder.counts), "last_error": self.decoder.last_error}


def converse(exchanges: list[tuple[int, list[bytes]]]) -> list[dict]:
    """Send each (seq, chunks) to the VM's codec; returns its answers in order."""
    requests = []
    for seq, chunks in exchanges:
        requests.append(f"new {seq}")
        requests += ["feed " + chunk.hex() for chunk in chunks]
    requests.append("bye")
    answers: list[str] = []

    def serve(message: bytes) -> bytes:
        answers.append(message.decode())
        return requests[len(answers) - 1].encode()

    mpvm.run(SCRIPT, mounts=[(mpvm.FIRMWARE, "/flash")], args=["/flash"], serve=serve).check()
    assert answers[0] == "ready" and len(answers) == len(requests)
    return [json.loads(answer) for answer in answers[1:] if answer.startswith("{")]


def test_every_message_type_round_trips_through_the_vm():
    host = protocol.Encoder(65530)  # the sequence numbers wrap on the way
    stream = b"".join(host.encode(message) for message in sample_messages())
    (answer,) = converse([(65530, [stream])])
    decoded = protocol.Decoder().feed(stream)
    assert answer["messages"] == [repr(message) for message in decoded]
    # What was sent, but for the ERR text: printable ASCII and cut, as it travels.
    sent = sample_messages()
    sent[9] = protocol.ErrorReport(2, "TIMEOUT",
                                   ("zone 4: no answer?in time ??" + "x" * 300)[:protocol.MAX_TEXT])
    assert decoded == sent
    # The VM, numbering from the same place, writes exactly the host's bytes.
    assert bytes.fromhex(answer["encoded"]) == stream
    assert answer["counts"]["messages"] == len(sample_messages()) and answer["last_error"] is None


def _mutilate(stream: bytes, rng: random.Random) -> bytes:
    data = bytearray(stream)
    for _ in range(rng.randrange(1, 6)):
        kind = rng.randrange(6)
        at = rng.randrange(len(data) + 1)
        if kind == 0 and data:
            data[min(at, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif kind == 1:
            del data[at:at + rng.randrange(1, 40)]
        elif kind == 2:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20)))
        elif kind == 3:
            data[at:at] = b"7" * rng.randrange(500, 700)  # an overlong line
        elif kind == 4:
            data[at:at] = b"\r\n"
        else:
            end = stream.find(b"\n", rng.randrange(len(stream))) + 1
            data[at:at] = stream[max(0, end - 40):end]  # the tail of a line, glued on
    return bytes(data)


def _chunks(data: bytes, rng: random.Random) -> list[bytes]:
    chunks, at = [], 0
    while at < len(data):
        size = rng.choice((1, 7, 64, 600))
        chunks.append(data[at:at + size])
        at += size
    return chunks


def test_mutilated_streams_decode_alike_on_both_sides():
    rng = random.Random(2026)
    stream = b"".join(protocol.Encoder(40).encode(message) for message in sample_messages())
    exchanges = []
    for _ in range(60):
        exchanges.append((rng.randrange(65536), _chunks(_mutilate(stream, rng), rng)))
    answers = iter(converse(exchanges))
    dropped = 0
    for seq, chunks in exchanges:
        peer = CPythonPeer(seq)
        for chunk in chunks:
            assert next(answers) == peer.feed(chunk)
        dropped += peer.decoder.dropped
    assert dropped > 60  # the mutilations really hit
