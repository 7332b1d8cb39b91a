"""The game store's write cost: one committed turn (a transaction with synchronous=FULL in
WAL mode, i.e. an fsync) and one journalled hand-over, on the disk the repository is on.
Target (docs/performance.md): a turn is stored well inside the hand-over budget (p99 a few
tens of ms on an SD card; the table confirms only after it)."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from homeworlds.rules import GameState, preset
from homeworlds.store import GameRecorder
from homeworlds.store.records import position_to_json

HERE = Path(__file__).resolve().parent
TURNS = 200


def run() -> dict:
    state = GameState(preset("looney"))
    position = position_to_json(state)
    zones = {z: [f"E0040000{z:04X}{k:04X}" for k in range(3)] for z in range(40)}
    commits, journals = [], []
    with tempfile.TemporaryDirectory(dir=HERE.parent, prefix=".store-bench-") as work:
        recorder = GameRecorder(Path(work) / "games.sqlite", table="bench", layout="standard-2p")
        recorder.open()
        recorder.start_game(preset("looney"), ("Ann", "Bob"))
        store = recorder.store
        recorder.handover(0, zones)  # writes the game row too
        for number in range(1, TURNS + 1):
            t0 = time.perf_counter()
            recorder.handover(number - 1, zones)
            t1 = time.perf_counter()
            store.commit_turn(recorder.uid, number, number % 2, "Build G1 Ann", position,
                              {"Ann": ["E0040000000A0001"]}, "2026-01-01T00:00:00")
            t2 = time.perf_counter()
            journals.append(t1 - t0)
            commits.append(t2 - t1)
        recorder.close()

    def ms(values, q):
        return f"{statistics.quantiles(values, n=100)[q - 1] * 1000:.2f} ms"
    return {"turn commit p50": ms(commits, 50), "turn commit p99": ms(commits, 99),
            "hand-over journal p50": ms(journals, 50), "hand-over journal p99": ms(journals, 99),
            "turns": TURNS}


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value}")
