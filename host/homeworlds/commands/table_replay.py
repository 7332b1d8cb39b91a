"""``homeworlds table-replay``: recorded games played on the simulated table over a pty."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from homeworlds.notation.sdg import read_sdg_file
from homeworlds.rules.errors import InvalidNotation
from homeworlds.rules.presets import PRESETS, preset


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "table-replay", help="drive SDG transcripts through the simulated table",
        description="Each transcript turn is handled physically on the simulated table (lift, "
        "carry, place, flip, turn token) with read misses; the simulated microcontroller reports "
        "over a pty and the host infers and records every turn. Exit 0 when every file could be "
        "read, 2 otherwise.")
    p.add_argument("--rules", choices=sorted(PRESETS), default="sdg")
    p.add_argument("--json", action="store_true", help="one JSON object per file, per line")
    p.add_argument("--miss-rate", type=float, default=0.05,
                   help="probability that a tag is missed in one scan (default 0.05)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=20.0,
                   help="seconds the host may take to catch up with the table")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from homeworlds.table_replay import table_replay_game

    status = 0
    for name in args.files:
        path = Path(name)
        try:
            game = read_sdg_file(path)
        except (InvalidNotation, OSError) as exc:
            print(f"homeworlds table-replay: {path}: {exc}", file=sys.stderr)
            status = 2
            continue
        result = table_replay_game(game, preset(args.rules), file=path.name,
                                   miss_rate=args.miss_rate, seed=args.seed,
                                   timeout=args.timeout)
        if args.json:
            print(json.dumps(result.to_json()), flush=True)
        else:
            line = (f"{path.name}: {result.inferred}/{result.turns} turns inferred, "
                    f"{result.matched} matched, refused {result.refused or 'none'}, "
                    f"record {'equal' if result.record_equal else 'DIFFERENT'}")
            if result.stopped:
                line += f" (stopped: {result.stopped})"
            print(line, flush=True)
    return status
