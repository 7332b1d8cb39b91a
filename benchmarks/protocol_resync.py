"""What finding lines glued behind garbage costs the host's decoder.

A stream of ZONE lines in which every tenth line lost its second half (as
when a board resets mid-line) and is glued to the next line; fed in 4 KiB
chunks. Reports the decode rate and how many complete lines were recovered
(every one should be: 18,000 of 18,000). Clean streams never reach the
resync code (see protocol_decode.py).
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

LINES = 20_000
CUT_EVERY = 10
CHUNK = 4096


def make_stream(seed: int = 1) -> tuple[bytes, int]:
    rng = random.Random(seed)
    encoder = protocol.Encoder()
    parts = []
    complete = 0
    for index in range(LINES):
        line = encoder.encode(protocol.ZoneState(index % 56,
                                                 [f"E0040150{rng.getrandbits(32):08X}"]))
        if index % CUT_EVERY == 0:
            line = line[:len(line) // 2]
        else:
            complete += 1
        parts.append(line)
    return b"".join(parts), complete


def run() -> dict[str, str]:
    data, complete = make_stream()
    best = 0.0
    recovered = 0
    for _ in range(3):
        decoder = protocol.Decoder(accept=protocol.FROM_MCU)
        start = time.perf_counter()
        found = 0
        for offset in range(0, len(data), CHUNK):
            for message in decoder.feed(data[offset:offset + CHUNK]):
                found += isinstance(message, protocol.ZoneState)
        best = max(best, LINES / (time.perf_counter() - start))
        recovered = found
    return {"decode with every 10th line cut in half": f"{best:,.0f} lines/s",
            "complete lines recovered": f"{recovered:,} of {complete:,}"}


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value}")
