"""Strength of the computer opponent: win rates against the random mover and the greedy
baseline, and the computer's thinking time per move.

Every game starts from one of the standard openings (both players set up a
sound homeworld); game ``i`` uses opening ``(i // 2) % 6`` with the computer
in seat ``i % 2``, so each opening is played once with the computer moving
first and once second. Seeds are fixed, so a run is reproducible up to the
time budgets. A game still running after ``max_turns`` turns counts as not
won. See ``homeworlds.ai.match``.

    .venv/bin/python benchmarks/strength.py              # quick run (make bench)
    .venv/bin/python benchmarks/strength.py --games 200  # the full measurement
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from homeworlds.ai.match import OPPONENTS, play_match_job  # noqa: E402

#: Games per opponent in a quick run (``make bench``); ``--games 200`` for the full one.
QUICK_GAMES = 20


def run(games: int = QUICK_GAMES, *, rules: str = "looney", level: int = 1,
        max_turns: int = 200, workers: int = 2, opponents: tuple[str, ...] = OPPONENTS) -> dict:
    """Play ``games`` games against each opponent; return rates and timing figures."""
    jobs = [(i, opp, rules, level, max_turns) for opp in opponents for i in range(games)]
    started = time.perf_counter()
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            records = list(pool.map(play_match_job, jobs, chunksize=1))
    else:
        records = [play_match_job(job) for job in jobs]
    report: dict = {"games_per_opponent": games, "rules": rules, "level": level,
                    "max_turns": max_turns, "wall_seconds": time.perf_counter() - started}
    if games < 200:
        report["note"] = (f"quick run of {games} games per opponent; the full measurement "
                          "is: .venv/bin/python benchmarks/strength.py --games 200")
    all_times: list[float] = []
    for opp in opponents:
        mine = [r for r in records if r.opponent == opp]
        counts = {k: sum(1 for r in mine if r.outcome == k)
                  for k in ("win", "loss", "draw", "capped")}
        times = [t for r in mine for t in r.times]
        all_times += times
        report[opp] = {**counts, "games": len(mine), "win_rate": counts["win"] / len(mine),
                       "mean_turns": statistics.fmean(r.turns for r in mine),
                       "seconds_per_move": _timing(times)}
    report["seconds_per_move"] = _timing(all_times)
    return report


def _timing(times: list[float]) -> dict:
    if not times:
        return {"moves": 0}
    ordered = sorted(times)
    return {"moves": len(ordered), "mean": statistics.fmean(ordered),
            "p50": ordered[len(ordered) // 2], "p90": ordered[int(len(ordered) * 0.9)],
            "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
            "max": ordered[-1]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=QUICK_GAMES,
                        help=f"games against each opponent (default {QUICK_GAMES}; the "
                        "documented measurement uses 200)")
    parser.add_argument("--rules", default="looney", help="rules preset (default looney)")
    parser.add_argument("--level", type=int, default=1, help="computer level (default 1)")
    parser.add_argument("--max-turns", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    args = parser.parse_args(argv)
    report = run(args.games, rules=args.rules, level=args.level, max_turns=args.max_turns,
                 workers=args.workers)
    print(f"computer level {report['level']}, {report['rules']} rules, "
          f"{report['games_per_opponent']} games per opponent, cap {report['max_turns']} "
          f"turns ({report['wall_seconds']:.0f} s)")
    for opp in OPPONENTS:
        r = report[opp]
        t = r["seconds_per_move"]
        print(f"  vs {opp:<6}: win rate {r['win_rate']:.1%} ({r['win']} won, {r['loss']} "
              f"lost, {r['draw']} drawn, {r['capped']} over the cap; {r['mean_turns']:.0f} "
              f"turns on average); {t['mean']:.3f} s/move mean, p90 {t['p90']:.3f}, max "
              f"{t['max']:.2f}")
    t = report["seconds_per_move"]
    print(f"  seconds per computer move: mean {t['mean']:.3f}, p50 {t['p50']:.3f}, "
          f"p90 {t['p90']:.3f}, p99 {t['p99']:.3f}, max {t['max']:.2f} ({t['moves']} moves)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
