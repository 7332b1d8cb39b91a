"""kill -9 fuzz of the game store: archive games played on the simulated table against a
real `homeworlds play` process that is killed at seeded moments (docs/store.md).

`make fuzz` runs the long form (``--games 8``: game 608 and a seeded sample of legal
two-player archive games, a kill every few turns); `make bench` the short one (game 608,
six kills). Prints: kills survived, turns lost (must be 0), peak memory of a host process.
Exit status 1 if a turn was lost or a stored turn differs from the played one.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

from homeworlds.notation.sdg import read_sdg_file
from homeworlds.replay import load_expected
from homeworlds.runtime.crash_drill import CrashDrill

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def _games(count: int, seed: int) -> list[Path]:
    sdg = SHARED / "games" / "sdg"
    chosen = [sdg / "608.raw"]
    if count > 1:
        expected = load_expected(SHARED / "games" / "expected.tsv")
        legal = sorted((n for n, row in expected.items() if row.legal and n != "608"), key=int)
        chosen += [sdg / f"{n}.raw" for n in random.Random(seed).sample(legal, count - 1)]
    return chosen


def fuzz(games: int, kills_every: int, seed: int, max_turns: int | None = None,
         verbose: bool = False) -> dict:
    totals = {"games": 0, "turns played": 0, "kills": 0, "kills survived": 0,
              "turns lost": 0, "problems": 0, "peak host memory": "0 MB"}
    peak = 0
    moments: dict[str, int] = {}
    t0 = time.perf_counter()
    for k, path in enumerate(_games(games, seed)):
        game = read_sdg_file(path)
        turns = min(len(game.turns), max_turns or len(game.turns))
        rules = "looney" if path.name == "608.raw" else "sdg"
        with tempfile.TemporaryDirectory(prefix="kill-fuzz-") as work:
            drill = CrashDrill(game, Path(work), seed=seed + k, max_turns=turns, rules=rules,
                               kills=max(1, turns // kills_every),
                               log=print if verbose else None)
            result = drill.run()
            if result.problems:
                for problem in result.problems:
                    print(f"  {path.name}: {problem}", flush=True)
                print(f"  host log:\n{(Path(work) / 'host.log').read_text()[-3000:]}")
        totals["games"] += 1
        totals["turns played"] += result.turns_played
        totals["kills"] += result.kills
        totals["kills survived"] += result.kills_survived
        totals["turns lost"] += result.turns_lost
        totals["problems"] += len(result.problems)
        peak = max(peak, result.peak_rss_kb)
        for moment, n in result.moments.items():
            moments[moment] = moments.get(moment, 0) + n
    totals["peak host memory"] = f"{peak / 1024:.1f} MB"
    totals["kills by moment"] = ", ".join(f"{m} {n}" for m, n in sorted(moments.items()))
    totals["seconds"] = f"{time.perf_counter() - t0:.0f}"
    return totals


def run() -> dict:
    """The short form, for `make bench`."""
    if not (SHARED / "games").is_dir():
        return {"skipped": "../shared is not present"}
    return fuzz(games=1, kills_every=8, seed=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--kills-every", type=int, default=4, metavar="TURNS")
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--max-turns", type=int, default=None)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if not (SHARED / "games").is_dir():
        print("kill_fuzz: ../shared (the game archive) is not present", file=sys.stderr)
        return 2
    totals = fuzz(args.games, args.kills_every, args.seed, args.max_turns, args.verbose)
    print("kill -9 fuzz of the game store:")
    for key, value in totals.items():
        print(f"  {key}: {value}")
    return 1 if totals["turns lost"] or totals["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
