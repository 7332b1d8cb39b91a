"""Host-side latency of the running table, and its memory.

The tracker judges the table when it has settled (no change for ``settle_s``), not on
every line, so a line costs the link, the view and a frame; judging a settled table (the
partial-turn check, or inference at a hand-over) is timed on its own.

1. Real archive games are played on the simulated table over a pty while every byte the
   host reads is recorded.
2. The recorded stream is fed again, line by line, into a fresh host (link → table view →
   tracker → hints → LED output to a memory sink) through an in-memory transport, timing
   each line: line in → table view updated (including the tracker's partial-turn check or
   hand-over inference), and line in → LED frame written.
3. Peak resident memory of a process running `homeworlds demo` on the bundled game.

Targets (docs/performance.md): p99 <= 5 ms for both latencies; <= 80 MB resident.
"""

from __future__ import annotations

import random
import resource
import subprocess
import sys
import time
from pathlib import Path

from homeworlds.link import PipeTransport, SerialTransport, TableLink
from homeworlds.notation import read_sdg_file
from homeworlds.pixels import MemorySink, PixelOutput
from homeworlds.replay import rules_for_game
from homeworlds.runtime.table_replay import SimulatedTableGame, table_replay_game
from homeworlds.session import new_session

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


class _RecordingTransport(SerialTransport):
    def __init__(self, path: str, sink: list[bytes]):
        super().__init__(path)
        self._sink = sink

    def read(self, max_bytes: int = 65536, timeout: float = 0.0) -> bytes:
        data = super().read(max_bytes, timeout)
        if data:
            self._sink.append(data)
        return data


def _record_stream(path: Path) -> tuple[list[bytes], object]:
    game = read_sdg_file(path)
    chunks: list[bytes] = []
    original = SimulatedTableGame.__init__

    def patched(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.link = TableLink(lambda: _RecordingTransport(self.mcu.device_path, chunks))
        self.host.link = self.link
        self.host.loop.source = self.link  # the loop polls the link it was built with

    SimulatedTableGame.__init__ = patched
    try:
        table_replay_game(game, file=path.name, miss_rate=0.05, seed=7)
    finally:
        SimulatedTableGame.__init__ = original
    return chunks, game


def _replay_stream(chunks: list[bytes], game) -> tuple[list[float], list[float]]:
    from homeworlds.sim import make_registry
    from homeworlds.table.layout import builtin_layout

    layout = builtin_layout("standard-2p")
    registry = make_registry(layout, 2)
    host_end, device_end = PipeTransport.pair("bench")
    device_end.open()
    link = TableLink(lambda: host_end)
    output = PixelOutput(MemorySink(layout.pixel_count), max_fps=None)
    first = game.turns[0].seat if game.turns else 0
    session = new_session(layout, registry, rules_for_game(game, None), game.players,
                          output=output, first_seat=first)
    lines = [line + b"\n" for chunk in [b"".join(chunks)] for line in chunk.split(b"\n")
             if line]
    to_view, to_frame = [], []
    for line in lines:
        device_end.write(line)
        t0 = time.perf_counter()
        events = link.poll(0)
        for event in events:
            session.handle(event)
        t1 = time.perf_counter()
        output.submit(session.render())
        t2 = time.perf_counter()
        if events:
            to_view.append(t1 - t0)
            to_frame.append(t2 - t0)
        # The harness recorded a table that was judged after every change: do the same.
        session.evaluate(force=True)
    return to_view, to_frame, session.evaluation_seconds


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(len(values) * q))] * 1e3, 3)


def demo_peak_rss_mb() -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run([sys.executable, "-m", "homeworlds", "demo", "--speed", "0"],
                   stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return round(max(after, before) / 1024, 1)


def run(games: int = 5) -> dict:
    out: dict = {}
    files = sorted((SHARED / "games" / "sdg").glob("*.raw"))
    if files:
        to_view, to_frame, judged = [], [], []
        picked = [SHARED / "games" / "sdg" / "608.raw"] + random.Random(5).sample(files, games)
        for path in picked:
            chunks, game = _record_stream(path)
            if len(game.players) != 2:
                continue
            v, f, j = _replay_stream(chunks, game)
            to_view += v
            to_frame += f
            judged += j
        out.update({
            "lines timed": len(to_view),
            "line -> table view p50 ms": _pct(to_view, 0.5),
            "line -> table view p99 ms": _pct(to_view, 0.99),
            "line -> LED frame written p50 ms": _pct(to_frame, 0.5),
            "line -> LED frame written p99 ms": _pct(to_frame, 0.99),
            "line -> LED frame written max ms": _pct(to_frame, 1.0),
            "settled change -> tracker verdict p50 ms": _pct(judged, 0.5),
            "settled change -> tracker verdict p99 ms": _pct(judged, 0.99),
            "settled change -> tracker verdict max ms": _pct(judged, 1.0),
        })
    out["demo peak resident MB"] = demo_peak_rss_mb()
    return out


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value}")
