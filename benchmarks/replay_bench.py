"""Games and turns replayed per second over the whole SDG archive (issue: rules engine)."""

from __future__ import annotations

import time
from pathlib import Path

from homeworlds.notation import read_sdg_file
from homeworlds.replay import replay_game
from homeworlds.rules import preset

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def run() -> dict:
    files = sorted((SHARED / "games" / "sdg").glob("*.raw"))
    if not files:
        return {"skipped": f"{SHARED} not found"}
    games = [read_sdg_file(f) for f in files]
    rules = preset("sdg")
    t0 = time.perf_counter()
    turns = 0
    for game in games:
        turns += replay_game(game, rules).turns_replayed
    elapsed = time.perf_counter() - t0
    t1 = time.perf_counter()
    for f in files:
        read_sdg_file(f)
    parse = time.perf_counter() - t1
    return {
        "games": len(games),
        "turns": turns,
        "replay games/s": round(len(games) / elapsed, 1),
        "replay turns/s": round(turns / elapsed),
        "parse files/s": round(len(files) / parse, 1),
    }


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value}")
