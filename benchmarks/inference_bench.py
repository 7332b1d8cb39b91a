"""Turn inference latency over every turn of the archive (target p99 <= 5 ms, max <= 50 ms).

For each cooked game the board after each real turn is shown to ``infer_turn`` as the
table would see it (existing systems by name, new ones unnamed), and the turn found is
checked: applied to the position, it must give the recorded board, every system of the
start position that is still there holding what it holds in the record (names of new
systems aside). Besides wall-clock times (which depend on what else the machine runs),
the figures give CPU time and search nodes — the node count is deterministic, so the
worst case is comparable across machines and loads.

``python benchmarks/inference_bench.py [GAMES]`` runs the first GAMES games only.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from homeworlds.notation import read_cooked_file
from homeworlds.rules import GameState, ObservedSystem, infer_turn, preset
from homeworlds.rules.inference import system_signature

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def observe(start: GameState, after: GameState) -> list[ObservedSystem]:
    names = {s.key for s in start.systems}
    return [ObservedSystem(s.name if s.key in names else None, s.star_pieces,
                           tuple(s.ship_pieces(k) for k in range(after.players)))
            for s in after.systems]


def same_board(start: GameState, expected: GameState, got: GameState) -> bool:
    """``got`` shows what ``expected`` shows: the same systems (new ones by contents), and
    every system of ``start`` still in ``got`` as it is in ``expected``."""
    def board(st: GameState) -> list:
        return sorted(system_signature(s.stars, s.ships) for s in st.systems)

    if board(expected) != board(got):
        return False
    names = {s.key for s in start.systems}
    recorded = {s.key: system_signature(s.stars, s.ships) for s in expected.systems}
    return all(recorded.get(s.key) == system_signature(s.stars, s.ships)
               for s in got.systems if s.key in names)


def _percentiles(values: list, digits: int = 2) -> str:
    values = sorted(values)
    n = len(values)
    p50, p99, top = values[n // 2], values[min(n - 1, int(n * 0.99))], values[-1]
    return f"p50 {round(p50, digits)}, p99 {round(p99, digits)}, max {round(top, digits)}"


def run(limit: int | None = None) -> dict:
    files = sorted((SHARED / "games" / "cooked").glob("*.cooked"), key=lambda p: int(p.stem))
    if not files:
        return {"skipped": f"{SHARED} not found"}
    files = files[:limit] if limit else files
    rules = preset("strict")
    wall, cpu, nodes = [], [], []
    wrong: list[str] = []
    exhausted = 0
    slowest = (0.0, "")
    most = (0, "")
    load = os.getloadavg()[0]
    for f in files:
        game = read_cooked_file(f)
        state = GameState.from_position(game.systems, rules)
        for index, turn in enumerate(game.turns):
            if state.is_over:
                break
            after = state.copy()
            try:
                after.apply_turn(turn)
            except Exception:
                break
            seen = observe(state, after)
            t0, c0 = time.perf_counter(), time.process_time()
            result = infer_turn(state, seen)
            c1, t1 = time.process_time(), time.perf_counter()
            wall.append((t1 - t0) * 1e3)
            cpu.append((c1 - c0) * 1e3)
            nodes.append(result.nodes)
            where = f"game {f.stem} turn {index}"
            if t1 - t0 > slowest[0]:
                slowest = (t1 - t0, where)
            if result.nodes > most[0]:
                most = (result.nodes, where)
            exhausted += result.exhausted
            if result.found:
                check = state.copy()
                check.apply_turn(result.turn)
                if not same_board(state, after, check):
                    wrong.append(where)
            else:
                wrong.append(where)
            state = after
    load = max(load, os.getloadavg()[0])
    return {
        "turns": f"{len(wall)} of {len(files)} games",
        "not inferred exactly": f"{len(wrong)} {wrong[:5]}",
        "budget exhausted": exhausted,
        "wall ms": _percentiles(wall) + f" ({slowest[1]})",
        "cpu ms": _percentiles(cpu),
        "search nodes": _percentiles(nodes, 0) + f" ({most[1]})",
        "machine load (1-min average)": f"{load:.1f} on {os.cpu_count()} cores",
    }


if __name__ == "__main__":
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else None
    for key, value in run(limit).items():
        print(f"{key}: {value}")
