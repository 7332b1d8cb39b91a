"""Protocol decode speed on the host (target: >= 50,000 lines/s).

The stream mimics a busy table: ZONE lines with 0-15 tags, heartbeats,
button presses and split snapshots of a 44-zone table, fed to the decoder
in 4 KiB chunks as a serial port delivers them.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

try:
    from tablefw import protocol
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "firmware"))
    from tablefw import protocol

TARGET_LINES_PER_S = 50_000
CHUNK = 4096


def _uid(rng: random.Random) -> str:
    return f"E00401{rng.getrandbits(40):010X}"


def make_stream(lines: int = 20_000, seed: int = 1) -> tuple[bytes, int]:
    """A byte stream of about ``lines`` lines; returns (stream, exact line count)."""
    rng = random.Random(seed)
    encoder = protocol.Encoder()
    zones = [[] for _ in range(44)]
    parts = []
    count = 0
    while count < lines:
        roll = rng.random()
        if roll < 0.80:
            zone = rng.randrange(44)
            zones[zone] = [_uid(rng) for _ in range(rng.choice((0, 1, 1, 2, 3, 5, 8, 15)))]
            chunk = encoder.lines(protocol.ZoneState(zone, zones[zone]))
        elif roll < 0.93:
            chunk = encoder.lines(protocol.Heartbeat(count * 7, count * 40, 180, 245, (0, 0, 1), (),
                                                     0, 0))
        elif roll < 0.97:
            chunk = encoder.lines(protocol.ButtonPress(rng.randrange(2), count))
        else:
            chunk = encoder.lines(protocol.Snapshot(count % 65536, zones))
        parts.extend(chunk)
        count += len(chunk)
    return b"".join(parts), count


def run(lines: int = 20_000, repeats: int = 5) -> dict:
    stream, count = make_stream(lines)
    chunks = [stream[i:i + CHUNK] for i in range(0, len(stream), CHUNK)]
    best = float("inf")
    decoder = None
    for _ in range(repeats):
        decoder = protocol.Decoder(accept=protocol.FROM_MCU)
        start = time.perf_counter()
        for chunk in chunks:
            decoder.feed(chunk)
        best = min(best, time.perf_counter() - start)
    if decoder.dropped or decoder.counts["gaps"] or decoder.counts["lines"] != count:
        raise RuntimeError(f"benchmark stream did not decode cleanly: {decoder.counts!r}")

    rng = random.Random(2)
    messages = [protocol.ZoneState(z % 44, [_uid(rng) for _ in range(z % 4)]) for z in range(5000)]
    start = time.perf_counter()
    encoder = protocol.Encoder()
    for message in messages:
        encoder.encode(message)
    encode_time = time.perf_counter() - start

    decode_rate = count / best
    return {
        "decode_lines_per_s": round(decode_rate),
        "decode_mb_per_s": round(len(stream) / best / 1e6, 2),
        "encode_lines_per_s": round(len(messages) / encode_time),
        "lines": count,
        "mean_line_bytes": round(len(stream) / count, 1),
        "target_lines_per_s": TARGET_LINES_PER_S,
        "meets_target": decode_rate >= TARGET_LINES_PER_S,
    }


if __name__ == "__main__":
    result = run()
    print(f"protocol decode: {result['decode_lines_per_s']} lines/s "
          f"({result['decode_mb_per_s']:.2f} MB/s, mean line {result['mean_line_bytes']} bytes, "
          f"{result['lines']} lines)")
    print(f"protocol encode: {result['encode_lines_per_s']} lines/s")
    verdict = "met" if result["meets_target"] else "NOT MET"
    print(f"target >= {TARGET_LINES_PER_S} lines/s: {verdict}")
