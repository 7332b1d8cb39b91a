"""Host link figures: lines/s through TableLink and ZONE line -> ZoneChanged latency.

Targets (docs/link.md, DESIGN §9): protocol decode >= 50,000 lines/s through
the whole link (codec + event production), and p99 <= 5 ms from a ZONE line
written into the transport to the ZoneChanged event returned by poll(),
in-process. The same latency over a real pty opened with pyserial is printed
for information (it adds the kernel's tty layer and thread wake-ups).
"""

from __future__ import annotations

import os
import random
import select
import statistics
import sys
import time
from pathlib import Path

try:
    from homeworlds.link import PipeTransport, SerialTransport, TableLink, ZoneChanged
    from tablefw import protocol
except ImportError:  # run from a checkout without the editable install
    ROOT = Path(__file__).resolve().parents[1]
    sys.path[:0] = [str(ROOT / "firmware"), str(ROOT / "host")]
    from homeworlds.link import PipeTransport, SerialTransport, TableLink, ZoneChanged
    from tablefw import protocol

TARGET_LINES_PER_S = 50_000
TARGET_P99_MS = 5.0
ZONES = 44
CHUNK = 4096  # what a USB serial port typically hands over in one read


def _uid(rng: random.Random) -> str:
    return f"E00401{rng.getrandbits(40):010X}"


class _Table:
    """The MCU side: answers the handshake, then sends what the bench asks."""

    def __init__(self, write, read) -> None:
        self.write = write
        self.read = read
        self.encoder = protocol.Encoder()
        self.decoder = protocol.Decoder(accept=protocol.FROM_HOST)
        self.zones: list[list[str]] = [[] for _ in range(ZONES)]

    def service(self) -> None:
        for message in self.decoder.feed(self.read()):
            if isinstance(message, protocol.Sync):
                self.write(self.encoder.encode(protocol.Hello("bench", protocol.PROTOCOL_VERSION,
                                                              ZONES, 3, 2)))
                self.write(self.encoder.encode(protocol.Snapshot(0, self.zones)))
            elif isinstance(message, protocol.Ping):
                self.write(self.encoder.encode(protocol.Pong(message.token)))


def _connect(link: TableLink, table: _Table, poll_timeout: float = 0.0) -> None:
    deadline = time.monotonic() + 10
    while not link.table_known:
        if time.monotonic() > deadline:
            raise RuntimeError(f"benchmark link did not come up: {link.stats.to_text()}")
        link.poll(poll_timeout)
        table.service()


def _stream(table: _Table, lines: int, seed: int = 1) -> tuple[list[bytes], int]:
    """A busy table's traffic, cut into CHUNK-sized reads; returns (chunks, line count)."""
    rng = random.Random(seed)
    encoder = table.encoder
    parts: list[bytes] = []
    count = 0
    while count < lines:
        roll = rng.random()
        if roll < 0.80:
            zone = rng.randrange(ZONES)
            table.zones[zone] = [_uid(rng) for _ in range(rng.choice((0, 1, 1, 2, 3, 5, 8, 15)))]
            chunk = encoder.lines(protocol.ZoneState(zone, table.zones[zone]))
        elif roll < 0.93:
            chunk = encoder.lines(protocol.Heartbeat(count * 7, count * 40, 180, 245, (0, 0, 1),
                                                     (), 0, 0))
        elif roll < 0.97:
            chunk = encoder.lines(protocol.ButtonPress(rng.randrange(2), count))
        else:
            chunk = encoder.lines(protocol.Snapshot(count % 65536, table.zones))
        parts.extend(chunk)
        count += len(chunk)
    data = b"".join(parts)
    return [data[i:i + CHUNK] for i in range(0, len(data), CHUNK)], count


def measure_throughput(lines: int = 20_000, repeats: int = 7) -> dict:
    """Best of ``repeats`` for the link, and for the bare codec on the same chunks
    right after each run (so both see the same machine load)."""
    best = codec_best = float("inf")
    events = 0
    stats = None
    for _ in range(repeats):
        host, device = PipeTransport.pair("bench")
        device.open()
        table = _Table(device.write, device.read)
        link = TableLink(lambda host=host: host, expected_zones=ZONES, read_size=CHUNK)
        _connect(link, table)
        chunks, count = _stream(table, lines)
        for chunk in chunks:
            device.write(chunk)
        start = time.perf_counter()
        produced = 0
        while host.pending():
            produced += len(link.poll(0))
        elapsed = time.perf_counter() - start
        if elapsed < best:
            best, events, stats = elapsed, produced, link.stats
        link.close()

        decoder = protocol.Decoder(accept=protocol.FROM_MCU)
        start = time.perf_counter()
        for chunk in chunks:
            decoder.feed(chunk)
        codec_best = min(codec_best, time.perf_counter() - start)
    if stats.dropped_total or stats.gaps or not stats.lines_ok >= lines:
        raise RuntimeError(f"benchmark stream did not decode cleanly: {stats.to_text()}")
    return {
        "link_lines_per_s": round(count / best),
        "link_events_per_s": round(events / best),
        "codec_only_lines_per_s": round(count / codec_best),
        "link_overhead_pct": round(100 * (best - codec_best) / codec_best, 1),
        "link_lines": count,
        "target_lines_per_s": TARGET_LINES_PER_S,
        "meets_lines_target": count / best >= TARGET_LINES_PER_S,
    }


def _percentiles(samples: list[float]) -> tuple[float, float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered), p99, ordered[-1]


def _latency_samples(link: TableLink, table: _Table, count: int, poll_timeout: float,
                     seed: int = 2) -> list[float]:
    rng = random.Random(seed)
    samples = []
    for i in range(count):
        zone = i % ZONES
        uids = [_uid(rng) for _ in range(1 + i % 4)]
        line = table.encoder.encode(protocol.ZoneState(zone, uids))
        start = time.perf_counter()
        table.write(line)
        deadline = start + 5
        while True:
            events = link.poll(poll_timeout)
            if any(isinstance(e, ZoneChanged) and e.zone == zone for e in events):
                break
            if time.perf_counter() > deadline:
                raise RuntimeError(f"ZONE {zone} never came out of the link")
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def measure_latency(count: int = 3000) -> dict:
    host, device = PipeTransport.pair("bench")
    device.open()
    table = _Table(device.write, device.read)
    link = TableLink(lambda: host, expected_zones=ZONES)
    _connect(link, table)
    samples = _latency_samples(link, table, count, 0.0)
    link.close()
    p50, p99, worst = _percentiles(samples)
    return {
        "zone_latency_p50_ms": round(p50, 4),
        "zone_latency_p99_ms": round(p99, 4),
        "zone_latency_max_ms": round(worst, 3),
        "target_p99_ms": TARGET_P99_MS,
        "meets_latency_target": p99 <= TARGET_P99_MS,
    }


def measure_pty_latency(count: int = 500) -> dict:
    if not hasattr(os, "openpty") or sys.platform == "win32":
        return {}
    import tty

    master, slave = os.openpty()
    tty.setraw(slave)

    def read_master() -> bytes:
        if select.select([master], [], [], 0)[0]:
            return os.read(master, 65536)
        return b""

    table = _Table(lambda data: os.write(master, data), read_master)
    link = TableLink(lambda: SerialTransport(os.ttyname(slave)), expected_zones=ZONES)
    try:
        _connect(link, table, poll_timeout=0.005)
        samples = _latency_samples(link, table, count, 0.05)
    finally:
        link.close()
        os.close(master)
        os.close(slave)
    p50, p99, worst = _percentiles(samples)
    return {
        "pty_latency_p50_ms": round(p50, 3),
        "pty_latency_p99_ms": round(p99, 3),
        "pty_latency_max_ms": round(worst, 3),
    }


def run() -> dict:
    result = measure_throughput()
    result.update(measure_latency())
    result.update(measure_pty_latency())
    return result


if __name__ == "__main__":
    f = run()
    print(f"link decode: {f['link_lines_per_s']} lines/s through TableLink "
          f"({f['link_events_per_s']} events/s, {f['link_lines']} lines); the bare codec "
          f"{f['codec_only_lines_per_s']} lines/s, the link adds {f['link_overhead_pct']} %")
    print(f"ZONE line -> ZoneChanged, in-process: p50 {f['zone_latency_p50_ms']:.4f} ms, "
          f"p99 {f['zone_latency_p99_ms']:.4f} ms, max {f['zone_latency_max_ms']:.3f} ms")
    if "pty_latency_p50_ms" in f:
        print(f"ZONE line -> ZoneChanged, over a pty with pyserial: "
              f"p50 {f['pty_latency_p50_ms']:.3f} ms, p99 {f['pty_latency_p99_ms']:.3f} ms, "
              f"max {f['pty_latency_max_ms']:.3f} ms")
    print(f"target >= {TARGET_LINES_PER_S} lines/s: "
          f"{'met' if f['meets_lines_target'] else 'NOT MET'}")
    print(f"target p99 <= {TARGET_P99_MS:.0f} ms: "
          f"{'met' if f['meets_latency_target'] else 'NOT MET'}")
