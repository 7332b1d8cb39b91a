"""A stand-in for the C++ engine's ``homeworlds-cli --auto`` answering ``rate_position``
as the real program does (Quuxplusone/Homeworlds at edb4263, core-src/climain.cc): it
reads a position in cooked notation up to a blank line, has seat 0 to move, ``pass``
hands the move to the other seat, and ``rate_position`` prints one integer: the position
rated for the player who moved LAST (``ai_static_evaluation(state, 1 - attacker)``).

Its rating: 100 times that player's ship pips minus the other's, plus 7 (the real
evaluation favours the last mover too), so that a test can tell whose view came back.
FAKE_RATE_PLAN=exit ends the program with status 3; =garbage answers text, not a number.
"""

from __future__ import annotations

import os
import re
import sys


def pips(fleet: str) -> int:
    return sum(int(size) for size in re.findall(r"[rygb]([123])", fleet))


def main() -> int:
    plan = os.environ.get("FAKE_RATE_PLAN", "")
    material = [0, 0]
    for line in sys.stdin:
        if not line.strip():
            break
        fleets = line.rsplit(")", 1)[1].strip().split("-")
        material[0] += pips(fleets[0])
        material[1] += pips(fleets[1])
    attacker = 0
    for line in sys.stdin:
        command = line.strip()
        if command == "pass":
            attacker = 1 - attacker
        elif command == "rate_position":
            if plan == "exit":
                print("core-src/AIStaticEval.cc: assertion failed", file=sys.stderr)
                return 3
            if plan == "garbage":
                print("The game is already over!")
                continue
            mover = 1 - attacker
            print(100 * (material[mover] - material[attacker]) + 7)
        else:
            print(f"unexpected command {command!r}", file=sys.stderr)
            return 4
    return 0


if __name__ == "__main__":
    sys.exit(main())
