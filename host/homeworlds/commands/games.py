"""``homeworlds games list|show|export|abandon``: the games in a game store.

The store is the SQLite file ``homeworlds play`` records into (docs/store.md). It is
opened for reading only, except by ``abandon``, which ends an unfinished game whose table
is not running (a running table takes ``abandon`` on its terminal).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from homeworlds.store import GameStore, StoredGame, StoredResult, StoreError
from homeworlds.store.export import FORMATS, ExportError, export_game, write_atomically
from homeworlds.store.recorder import utc_now

DEFAULT_STORE = "games.sqlite"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("games", help="list, show and export the games of a game store",
                       description=__doc__)
    p.add_argument("--store", metavar="FILE", default=DEFAULT_STORE,
                   help=f"the game store (default: {DEFAULT_STORE} in this directory)")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    lst = actions.add_parser("list", help="one line per game")
    lst.add_argument("--table", help="only this table's games")
    show = actions.add_parser("show", help="a game's players, result and turns")
    show.add_argument("game", type=int, metavar="ID")
    export = actions.add_parser("export", help="a game as SDG, cooked or JSON")
    export.add_argument("game", type=int, metavar="ID")
    export.add_argument("--format", choices=FORMATS, default="sdg")
    export.add_argument("--output", "-o", metavar="FILE",
                        help="write to FILE (atomically) instead of standard output")
    abandon = actions.add_parser("abandon", help="end an unfinished game as abandoned")
    abandon.add_argument("game", type=int, metavar="ID")
    for parser in (lst, show, export, abandon):
        parser.add_argument("--store", metavar="FILE", default=argparse.SUPPRESS,
                            help="the game store (also accepted before ACTION)")
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"homeworlds games: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    path = Path(args.store)
    if not path.is_file():
        return _fail(f"no game store at {path} (give it with --store FILE)")
    try:
        store = _open(path, writable=args.action == "abandon")
    except StoreError as exc:
        return _fail(str(exc))
    try:
        if args.action == "list":
            return _list(store, args.table)
        game = store.game(args.game)
        if game is None:
            return _fail(f"{path}: no game {args.game} (see `homeworlds games list`)")
        if args.action == "show":
            return _show(store, game)
        if args.action == "export":
            return _export(store, game, args.format, args.output)
        return _abandon(store, game)
    except StoreError as exc:
        return _fail(str(exc))
    finally:
        store.close()


def _open(path: Path, writable: bool) -> GameStore:
    if writable:
        return GameStore.open(path)
    return GameStore.open_read_only(path)  # listing and exporting never change the file


def _list(store: GameStore, table: str | None) -> int:
    games = store.games(table)
    if not games:
        print("no games")
        return 0
    for g in games:
        result = store.result(g.id)
        print(f"{g.id:>5}  {g.started[:16].replace('T', ' ')}  {g.table:<14} "
              f"{' v '.join(g.players):<30} {g.rules:<10} {g.turns:>4} turns  "
              f"{_outcome(g, result)}")
    return 0


def _outcome(game: StoredGame, result: StoredResult | None) -> str:
    if result is None:
        return game.status
    names = ", ".join(game.players[s] for s in result.winners)
    if result.kind == "resigned":
        who = game.players[result.by_seat] if result.by_seat is not None else "?"
        return f"{who} resigned ({names} wins)" if names else f"{who} resigned"
    if result.kind == "flag":
        who = game.players[result.by_seat] if result.by_seat is not None else "?"
        return f"{who}'s flag fell ({names} wins)"
    if result.kind == "agreed-draw":
        return "draw by agreement"
    if result.kind == "abandoned":
        return "abandoned"
    return f"{names} wins" if names else "draw"


def _time_control(data: dict) -> str:
    from homeworlds.clock import ClockSpec, ClockSpecError

    try:
        return ClockSpec.from_dict(data).describe()
    except ClockSpecError as exc:
        return f"unreadable ({exc})"


def _turn_time(turn) -> str:
    if turn.elapsed_ms is None or turn.clock_ms is None:
        return ""
    from homeworlds.clock import format_clock

    return f"  [{format_clock(turn.elapsed_ms)}, clock {format_clock(turn.clock_ms)}]"


def _show(store: GameStore, game: StoredGame) -> int:
    result = store.result(game.id)
    print(f"game {game.id} at table {game.table}, rules {game.rules}, started {game.started}")
    for seat, name in enumerate(game.players):
        alignment = game.alignments[seat]
        print(f"  seat {seat}: {name}" + (f" ({alignment})" if alignment else ""))
    if game.clock is not None:
        print(f"  clock: {_time_control(game.clock)}")
    for turn in store.turns(game.id):
        print(f"{turn.number:>4}) {game.players[turn.seat]}: "
              + "; ".join(turn.sdg.splitlines()) + _turn_time(turn))
    line = f"result: {_outcome(game, result)}"
    if result is not None:
        line += f" at {result.at} after turn {result.after_turn}"
    print(line)
    return 0


def _export(store: GameStore, game: StoredGame, fmt: str, output: str | None) -> int:
    try:
        text = export_game(store, game, fmt)
    except ExportError as exc:
        return _fail(str(exc))
    if output is None:
        sys.stdout.write(text)
        return 0
    try:
        write_atomically(output, text)
    except (OSError, ExportError) as exc:
        return _fail(f"cannot write {output}: {exc}")
    return 0


def _abandon(store: GameStore, game: StoredGame) -> int:
    if game.finished:
        return _fail(f"game {game.id} is already finished ({game.status}); finished games "
                     "are never changed")
    store.finish_game(game.uid, StoredResult("abandoned", (), None, utc_now(), game.turns))
    print(f"game {game.id} abandoned after {game.turns} turns")
    return 0
