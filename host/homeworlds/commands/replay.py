"""``homeworlds replay``: check recorded games (SDG transcripts or cooked files) against the
rules."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from homeworlds.display.printable import printable, printable_lines
from homeworlds.notation import read_cooked, read_sdg
from homeworlds.notation.textfile import notation_format, read_notation_text
from homeworlds.replay import ReplayResult, ReplaySetupError, replay_cooked_game, replay_game
from homeworlds.rules import PRESETS, AlignmentError, InvalidNotation, alignments_from_text, preset


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="replay SDG transcripts or cooked games and check every "
                       "turn",
                       description="Replay games through the rules engine: SDG transcripts "
                       "and cooked files (the C++ engine's format), told apart by their "
                       "first line. Exit 0 when every file could be read (illegal games "
                       "included), 2 when a file cannot be read or parsed.")
    p.add_argument("--rules", choices=sorted(PRESETS), default=None,
                   help="rules preset for every file, whatever its player count (default: the "
                   "file's Rules line; else sdg for two players and, for three or more, the "
                   "preset their Variants line names)")
    p.add_argument("--alignments", metavar="LIST", default=None,
                   help="Good/Evil alignments in setup order, e.g. good,evil,good (default: "
                   "the file's Alignments line)")
    p.add_argument("--json", action="store_true", help="one JSON object per file, per line")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rules = preset(args.rules) if args.rules else None
    status = 0
    for name in args.files:
        path = Path(name)
        try:
            result = replay_file(path, rules, args.alignments)
        except (AlignmentError, ReplaySetupError) as exc:
            print(printable(f"homeworlds replay: {path}: {exc}"), file=sys.stderr)
            status = 2
            continue
        except (InvalidNotation, ValueError) as exc:
            print(printable(f"homeworlds replay: {exc}"), file=sys.stderr)
            status = 2
            continue
        except OSError as exc:
            print(printable(f"homeworlds replay: {path}: {exc.strerror or exc}"),
                  file=sys.stderr)
            status = 2
            continue
        if args.json:
            print(json.dumps(result.to_json()), flush=False)
        else:
            print(printable_lines(format_result(result)))
    sys.stdout.flush()
    return status


def replay_file(path: Path, rules, alignments: str | None = None) -> ReplayResult:
    """Read and replay one file of either format. InvalidNotation (or ValueError for a
    position the bank cannot hold) when it cannot be read; OSError when it cannot be opened;
    AlignmentError or ReplaySetupError when its rules or alignments cannot apply. ``rules``
    None: the file's own (cooked files: sdg)."""
    text = read_notation_text(path)
    if notation_format(text) == "cooked":
        cooked = read_cooked(text, source=str(path), named=True)
        if not cooked.systems:
            raise InvalidNotation("no position in the file (expected lines like "
                                  "'Home (0, y1b2) g3-')", source=str(path))
        try:
            return replay_cooked_game(cooked, rules or preset("sdg"), file=path.name)
        except ValueError as exc:
            if isinstance(exc, InvalidNotation):
                raise
            raise InvalidNotation(str(exc), source=str(path)) from None
    game = read_sdg(text, source=str(path))
    dealt = (alignments_from_text(alignments, len(game.players))
             if alignments is not None else None)
    return replay_game(game, rules, file=path.name, explicit=rules is not None,
                       alignments=dealt)


def format_result(result: ReplayResult) -> str:
    head = f"{result.file}"
    if result.game is not None:
        head += f" (SDG #{result.game})"
    head += ": " + " vs ".join(result.players)
    if result.error is not None:
        err = result.error
        return (f"{head}: ILLEGAL at turn {err.turn}: {err.text!r}: {err.reason}\n"
                f"  position before that turn:\n"
                + _indent(result.final_state.describe(), "    "))
    if result.board_end == "none":
        return f"{head}: legal, {result.turns_replayed} turns, no result on the board"
    winner = " and ".join(result.players[s] for s in result.board_winners) or "nobody"
    dealt = result.final_state.alignments
    revealed = "" if dealt is None else " (" + ", ".join(
        f"{name} {alignment}" for name, alignment in zip(result.players, dealt,
                                                          strict=True)) + ")"
    return (f"{head}: legal, {result.turns_replayed} turns, {result.board_end} at turn "
            f"{result.end_turn}, won by {winner}{revealed}")


def _indent(text: str, pad: str) -> str:
    return "\n".join(pad + line for line in text.splitlines())
