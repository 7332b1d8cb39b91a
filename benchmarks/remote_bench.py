"""Remote play (issue 30): two simulated tables play archive games against each other
through a real mosquitto on localhost (tests/remote/tables.py). Prints the turn latency
from a turn's commit at one table to the other table's first guidance step of it (what its
LEDs show next), p50/p95 (target: at most 500 ms over a local broker).

    python benchmarks/remote_bench.py      (also part of `make bench`)
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "host"), str(HERE.parent / "firmware")]

GAMES = ("3426", "6980")


def run() -> dict:
    if not (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").is_file()):
        return {"not run": "mosquitto is not installed (make mosquitto-bin)"}
    from homeworlds.notation import read_sdg_file
    from tests.event.broker import Broker
    from tests.remote.tables import GAMES as FOLDER
    from tests.remote.tables import latencies, play, pump, two_tables

    seconds: list[float] = []
    turns = 0
    with tempfile.TemporaryDirectory(prefix="remote-bench-") as tmp:
        for name in GAMES:
            directory = Path(tmp) / name
            (directory / "broker").mkdir(parents=True)
            broker = Broker(directory / "broker")
            broker.start()
            game = read_sdg_file(FOLDER / f"{name}.raw")
            tables = two_tables(directory, broker.url, game)
            try:
                pump(tables, lambda t=tables: all(x.game.paused is None for x in t),
                     "the two tables meet")
                play(tables, game, len(game.turns))
                seconds += latencies(tables)
                turns += len(game.turns)
            finally:
                for table in tables:
                    table.close()
                broker.kill()
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return {
        "games": f"{len(GAMES)} archive games ({', '.join(GAMES)}), {turns} turns, every "
                 "turn laid out by the other table's lights, both stores equal turn by turn",
        "turn latency commit -> remote table's first guidance step":
            f"p50 {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, max {ms[-1]:.0f} ms "
            f"over {len(ms)} turns (target <= 500 ms, local broker)",
    }


if __name__ == "__main__":
    for key, value in run().items():
        print(f"  {key}: {value}")
