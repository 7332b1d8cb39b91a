"""`make corpus`: replay the whole archive and print every disagreement (there must be none)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from homeworlds.replay import cooked_disagreements, sdg_disagreements

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
COOKED_KNOWN_BAD = {"32225"}  # same-colour trade; see docs/rules.md


def main() -> int:
    if not (SHARED / "games").is_dir():
        print(f"corpus: {SHARED} not found; nothing to check")
        return 0
    bad = 0
    t0 = time.perf_counter()
    for game, problem in sdg_disagreements(SHARED):
        print(f"sdg {game}: {problem}")
        bad += 1
    for game, problem in cooked_disagreements(SHARED):
        if game not in COOKED_KNOWN_BAD:
            print(f"cooked {game}: {problem}")
            bad += 1
    print(f"corpus: {bad} disagreements ({time.perf_counter() - t0:.1f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
