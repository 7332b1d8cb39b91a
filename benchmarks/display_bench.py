"""Spectator display drawing: how long the star map SVG takes and how big it is, for every
position of the archive slice (tests/data) and, when present, a sample of ../shared; and the
archive viewer's answer time for one step's SVG (served in-process, Starlette's test client).
Prints figures, asserts nothing.

    python benchmarks/display_bench.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

from homeworlds.display.steps import GameFileError, load_game_file
from homeworlds.display.svg import render_svg

REPO = Path(__file__).resolve().parents[1]
SLICE = REPO / "tests" / "data" / "games" / "sdg"
SHARED = REPO.parent / "shared" / "games" / "sdg"


def _games() -> list[Path]:
    files = sorted(SLICE.glob("*.raw"))
    if SHARED.is_dir():
        files += random.Random(13).sample(sorted(SHARED.glob("*.raw")), 40)
    return files


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run() -> dict[str, str]:
    times, sizes = [], []
    games = 0
    for path in _games():
        try:
            game = load_game_file(path)
        except GameFileError:  # an unreadable archive file is corpus_check's business
            continue
        games += 1
        for step in game.steps:
            t0 = time.perf_counter()
            svg = render_svg(step.state, players=game.players)
            times.append(time.perf_counter() - t0)
            sizes.append(len(svg))
    out = {
        "positions drawn": f"{len(times)} from {games} games",
        "SVG draw p50 / p95 / max": " / ".join(f"{_percentile(times, q) * 1000:.2f} ms"
                                              for q in (0.5, 0.95, 1.0)),
        "SVG size p50 / max": f"{statistics.median(sizes) / 1024:.1f} KiB / "
                              f"{max(sizes) / 1024:.1f} KiB",
    }
    try:
        from starlette.applications import Starlette
        from starlette.testclient import TestClient

        from homeworlds.web.archive import archive_routes
    except ImportError:
        out["archive step"] = "skipped (pip install 'homeworlds-table[web]')"
        return out
    client = TestClient(Starlette(routes=archive_routes(None, [SLICE / "777.raw"])))
    client.get("/archive/file/0")  # the replay is cached after the first page
    answer = []
    for step in range(58):
        t0 = time.perf_counter()
        reply = client.get(f"/archive/file/0/svg/{step}")
        answer.append(time.perf_counter() - t0)
        if reply.status_code != 200:
            out["archive step"] = f"step {step} answered {reply.status_code}"
            return out
    out["archive step SVG answer p50 / p95 (777.raw, 4 players)"] = " / ".join(
        f"{_percentile(answer, q) * 1000:.2f} ms" for q in (0.5, 0.95))
    return out


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value}")
    sys.exit(0)
