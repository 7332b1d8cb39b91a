"""Remote play (issue 30): two simulated tables play archive games against each other
through a real mosquitto on localhost (tests/remote/tables.py). Prints the turn latency
from a turn's commit at one table to the other table's first guidance step of it (what its
LEDs show next), p50/p95 (target: at most 500 ms over a local broker); and what happens to
a timed game's clocks across a silent cut of one table's network (tests/remote/tables.py
``silent_cut``: nothing closed, only the MQTT keepalive notices; keepalive 1 s): how far
apart the two tables' clocks were before the cut, while both stood still (how far apart
the two pauses were: what would remain without the agreement at resumption), and on
resumption; when each table noticed the cut.

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
#: Silent cuts for the clock figures: one after each turn from the third (the clocks run).
CUTS = 10


def _p(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"p50 {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, max {ms[-1]:.0f} ms"


def clock_cuts(tmp: Path, cuts: int = CUTS) -> dict[str, str]:
    from homeworlds.clock import ClockSpec
    from homeworlds.notation import read_sdg_file
    from tests.event.broker import Broker
    from tests.event.proxy import CuttableLink
    from tests.remote.tables import GAMES as FOLDER
    from tests.remote.tables import play, pump, silent_cut, two_tables

    directory = tmp / "cuts"
    (directory / "broker").mkdir(parents=True)
    broker = Broker(directory / "broker")
    broker.start()
    link = CuttableLink(broker.port)
    game = read_sdg_file(FOLDER / "6980.raw")
    tables = two_tables(directory, broker.url, game, ClockSpec.parse("600+0.2"),
                        guest_broker_url=f"mqtt://127.0.0.1:{link.port}", keepalive_s=1)
    figures: list[dict[str, float]] = []
    try:
        pump(tables, lambda: all(x.game.paused is None for x in tables), "the two tables meet")
        play(tables, game, 2)  # the setup (untimed)
        for turn in range(2, min(len(game.turns), 2 + cuts)):
            play(tables, game, turn + 1, start=turn)
            figures.append(silent_cut(tables, link, hold_s=0.5))
    finally:
        for table in tables:
            table.close()
        link.close()
        broker.kill()
    pick = {key: [f[key] for f in figures] for key in figures[0]}
    return {
        "silent cuts": f"{len(figures)} (game 6980, 600+0.2, the guest's network blackholed "
                       "after each turn, keepalive 1 s)",
        "clock difference between the tables just before the cut": _p(pick["before"]),
        "... while both stood still (the two pauses apart)": _p(pick["apart"]),
        "... on resumption (the larger reading agreed)": _p(pick["resumed"]),
        "clocks moved while both stood still": f"max {max(pick['drift']) * 1000:.0f} ms",
        "cut noticed: host (the broker's last will)": _p(pick["host_noticed"]),
        "cut noticed: guest (its own keepalive)": _p(pick["guest_noticed"]),
    }


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
        clocks = clock_cuts(Path(tmp))
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return {
        "games": f"{len(GAMES)} archive games ({', '.join(GAMES)}), {turns} turns, every "
                 "turn laid out by the other table's lights, both stores equal turn by turn",
        "turn latency commit -> remote table's first guidance step":
            f"p50 {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, max {ms[-1]:.0f} ms "
            f"over {len(ms)} turns (target <= 500 ms, local broker)",
        **clocks,
    }


if __name__ == "__main__":
    for key, value in run().items():
        print(f"  {key}: {value}")
