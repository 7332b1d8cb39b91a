"""Successor generation and win-in-one speed (issue: successors at C++ speed).

Figures: distinct successors per second on the two reference positions (the C++
engine counts them in about 0.43 s and 0.65 s on this kind of machine, i.e.
~64k and ~51k per second), on a seeded sample of archive positions, and the
latency of ``find_winning_turn`` (Red Alert runs the same search) over archive
positions, and of ``find_material_turn`` (4 pips: a sacrifice-driven catastrophe or
capture) over every third of them.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

from homeworlds.notation import read_cooked_file
from homeworlds.rules import (
    GameState,
    IllegalAction,
    Trade,
    count_successors,
    find_material_turn,
    find_winning_turn,
    preset,
    successors,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CXX_SECONDS = {"perf-27635-moves.txt": 0.43, "perf-33332-moves.txt": 0.65}
SAMPLE_SEED = 7
SAMPLE_GAMES = 25
SAMPLE_LIMIT = 100_000
WIN_GAMES = 150
#: ``find_material_turn`` is timed for turns taking at least this many pips (a small
#: ship's capture is not a threat worth a targeted search).
MATERIAL_PIPS = 4


def _positions(game: Path, rules_name: str = "strict"):
    cooked = read_cooked_file(game)
    state = GameState.from_position(cooked.systems, preset(rules_name), to_move=0)
    for index, turn in enumerate(list(cooked.turns) + [None]):
        if state.is_over:
            return
        yield index, state.copy()
        if turn is None:
            return
        try:
            state.apply_turn(turn)
        except IllegalAction:
            # 32225's "convert b1 to b1": a no-op for the C++ engine (see the tests).
            state.apply_turn(tuple(a for a in turn if not (isinstance(a, Trade)
                                                           and a.old == a.new)))


def _best_of(fn, repeat: int = 3) -> tuple[float, int]:
    best, value = float("inf"), 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t0)
    return best, value


def run() -> dict:
    if not (SHARED / "positions" / "perf").is_dir():
        return {"skipped": f"{SHARED} not found"}
    out: dict[str, object] = {}
    strict = preset("strict")
    for name, cxx in CXX_SECONDS.items():
        cooked = read_cooked_file(SHARED / "positions" / "perf" / name)
        state = GameState.from_position(cooked.systems, strict, to_move=0)
        seconds, count = _best_of(lambda s=state: count_successors(s))
        listed, _ = _best_of(lambda s=state: sum(1 for _ in successors(s)))
        out[f"{name} count"] = (f"{count} successors in {seconds:.3f} s = "
                                f"{count / seconds:,.0f}/s (C++ ~{cxx} s = "
                                f"{count / cxx:,.0f}/s)")
        out[f"{name} list turns"] = f"{listed:.3f} s = {count / listed:,.0f}/s"

    factors = json.loads((SHARED / "games" / "branching-factors.json").read_text())
    games = random.Random(SAMPLE_SEED).sample(sorted(factors), SAMPLE_GAMES)
    total = positions = 0
    elapsed = 0.0
    for game in games:
        for index, state in _positions(SHARED / "games" / "cooked" / f"{game}.cooked"):
            if factors[game][index] > SAMPLE_LIMIT:
                continue
            t0 = time.perf_counter()
            total += count_successors(state)
            elapsed += time.perf_counter() - t0
            positions += 1
    out["corpus sample"] = (f"{positions} positions of {SAMPLE_GAMES} games, {total:,} "
                            f"successors in {elapsed:.1f} s = {total / elapsed:,.0f}/s")

    for rules_name in ("strict", "looney"):
        times, material_times = [], []
        wins = takes = 0
        for game in random.Random(SAMPLE_SEED + 1).sample(sorted(factors), WIN_GAMES):
            for _, state in _positions(SHARED / "games" / "cooked" / f"{game}.cooked"):
                probe = state
                if rules_name != "strict":
                    probe.rules = preset(rules_name)
                    if probe.is_over:
                        continue
                t0 = time.perf_counter()
                wins += find_winning_turn(probe) is not None
                times.append(time.perf_counter() - t0)
                if len(times) % 3 == 0:
                    t0 = time.perf_counter()
                    takes += find_material_turn(probe, min_pips=MATERIAL_PIPS) is not None
                    material_times.append(time.perf_counter() - t0)
        out[f"win-in-one {rules_name}"] = _latency(times, f"{wins} with a win")
        out[f"material threat ({MATERIAL_PIPS} pips) {rules_name}"] = _latency(
            material_times, f"{takes} with one")
    return out


def _latency(times: list[float], found: str) -> str:
    times = sorted(times)
    return (f"{len(times)} positions ({found}): p50 {statistics.median(times) * 1e3:.2f} ms, "
            f"p99 {times[int(len(times) * 0.99)] * 1e3:.2f} ms, max {times[-1] * 1e3:.1f} ms")


def main() -> int:
    for key, value in run().items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
