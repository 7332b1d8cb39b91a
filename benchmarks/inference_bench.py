"""Turn inference latency over every turn of the archive (target p99 <= 10 ms, max <= 250 ms).

For each cooked game the board after each real turn is shown to ``infer_turn`` as the
table would see it (existing systems by name, new ones unnamed).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from homeworlds.notation.cooked import read_cooked_file
from homeworlds.rules.inference import ObservedSystem, infer_turn
from homeworlds.rules.presets import preset
from homeworlds.rules.state import GameState

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def observe(start: GameState, after: GameState) -> list[ObservedSystem]:
    names = {s.key for s in start.systems}
    return [ObservedSystem(s.name if s.key in names else None, s.star_pieces,
                           tuple(s.ship_pieces(k) for k in range(after.players)))
            for s in after.systems]


def run(limit: int | None = None) -> dict:
    files = sorted((SHARED / "games" / "cooked").glob("*.cooked"), key=lambda p: int(p.stem))
    if not files:
        return {"skipped": f"{SHARED} not found"}
    files = files[:limit] if limit else files
    rules = preset("strict")
    times, failures = [], 0
    for f in files:
        game = read_cooked_file(f)
        state = GameState.from_position(game.systems, rules)
        for turn in game.turns:
            if state.is_over:
                break
            after = state.copy()
            try:
                after.apply_turn(turn)
            except Exception:
                break
            seen = observe(state, after)
            t0 = time.perf_counter()
            result = infer_turn(state, seen)
            times.append(time.perf_counter() - t0)
            failures += not result.found
            state = after
    times.sort()
    n = len(times)
    return {
        "turns": n,
        "not inferred": failures,
        "p50 ms": round(times[n // 2] * 1e3, 2),
        "p99 ms": round(times[min(n - 1, int(n * 0.99))] * 1e3, 2),
        "max ms": round(times[-1] * 1e3, 1),
    }


if __name__ == "__main__":
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else None
    for key, value in run(limit).items():
        print(f"{key}: {value}")
