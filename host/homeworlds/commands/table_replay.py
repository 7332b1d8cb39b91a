"""``homeworlds table-replay``: recorded games played on the simulated table over a pty."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from homeworlds.display.printable import printable
from homeworlds.notation import read_sdg_file
from homeworlds.rules import PRESETS, InvalidNotation, preset
from homeworlds.sim import SimError
from homeworlds.table.layout import LayoutError, builtin_layout_names


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "table-replay", help="drive SDG transcripts through the simulated table",
        description="Each transcript turn is handled physically on the simulated table (lift, "
        "carry, place, flip, turn token) with read misses; the simulated microcontroller reports "
        "over a pty and the host infers and records every turn. Exit 0 when every file could be "
        "read and the host inferred and recorded every turn, 1 when it did not (a timeout, a "
        "refused turn, a different record), 2 when a file cannot be read.")
    p.add_argument("--rules", choices=sorted(PRESETS), default="sdg",
                   help="the rules of two-player games (default sdg); a game of three or more "
                   "is played under the preset its Variants line names, as replay chooses")
    p.add_argument("--layout", choices=builtin_layout_names(), default=None,
                   help="the simulated table (default: standard-2p for two players, four-seat "
                   "for three or four, six-seat for five or six)")
    p.add_argument("--json", action="store_true", help="one JSON object per file, per line")
    p.add_argument("--miss-rate", type=miss_rate_option, default=0.05,
                   help="probability that a tag is missed in one scan, from 0 to 0.9 "
                   "(default 0.05)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=timeout_option, default=20.0,
                   help="seconds the host may take to catch up with the table, more than 0 "
                   "and at most 3600 (default 20)")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=run)


#: A tag missed in nine scans of ten still reads within the settle time; at 1 it never does.
MAX_MISS_RATE = 0.9
MAX_TIMEOUT = 3600.0


def finite_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def miss_rate_option(text: str) -> float:
    value = finite_number(text)
    if not 0.0 <= value <= MAX_MISS_RATE:
        raise argparse.ArgumentTypeError(f"{text} is out of range: give a probability from 0 "
                                         f"to {MAX_MISS_RATE}")
    return value


def timeout_option(text: str) -> float:
    value = finite_number(text)
    if not 0.0 < value <= MAX_TIMEOUT:
        raise argparse.ArgumentTypeError(f"{text} is out of range: give seconds, more than 0 "
                                         f"and at most {MAX_TIMEOUT:g}")
    return value


def run(args: argparse.Namespace) -> int:
    from homeworlds.runtime.table_replay import table_replay_game

    status = 0
    for name in args.files:
        path = Path(name)
        try:
            game = read_sdg_file(path)
        except InvalidNotation as exc:
            print(printable(f"homeworlds table-replay: {exc}"), file=sys.stderr)
            status = 2
            continue
        except OSError as exc:
            print(printable(f"homeworlds table-replay: {path}: {exc.strerror or exc}"),
                  file=sys.stderr)
            status = 2
            continue
        try:
            result = table_replay_game(game, preset(args.rules), file=path.name,
                                       miss_rate=args.miss_rate, seed=args.seed,
                                       timeout=args.timeout, layout_name=args.layout)
        except (LayoutError, SimError, ValueError) as exc:
            print(printable(f"homeworlds table-replay: {path.name}: {exc}"), file=sys.stderr)
            status = 2
            continue
        if args.json:
            print(json.dumps(result.to_json()), flush=True)
        else:
            line = (f"{path.name}: {result.inferred}/{result.turns} turns inferred, "
                    f"{result.matched} matched, refused {result.refused or 'none'}, "
                    f"record {'equal' if result.record_equal else 'DIFFERENT'}")
            if result.stopped:
                line += f" (stopped: {result.stopped})"
            print(printable(line), flush=True)
        if not _host_kept_up(result) and status == 0:
            status = 1
    return status


def _host_kept_up(result) -> bool:
    """The host inferred every turn the transcript lets it (a transcript that turns illegal
    stops the replay without blaming the host) and its record replays the same."""
    if result.stopped and " is illegal in the transcript" not in result.stopped:
        return False
    return result.record_equal and not result.refused
