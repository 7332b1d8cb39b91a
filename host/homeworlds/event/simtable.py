"""A simulated table host for event tests and benchmarks: it plays an archive game turn by
turn at a chosen pace through the table host's own recorder (the game store) and
publisher (the outbox), as ``homeworlds play`` does when its tracker commits a turn.

Killed at any instant and started again with the same store, it resumes the game where
the store says and publishes what the broker did not acknowledge::

    python -m homeworlds.event.simtable --store t1.sqlite --broker mqtt://127.0.0.1:1883 \\
        --event club --table t1 --key-file t1.key --game game.raw \\
        --interval 0.05
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path

from homeworlds.event.publisher import EventPublisher
from homeworlds.event.settings import EventSettings, parse_broker_url
from homeworlds.notation import read_sdg_file
from homeworlds.rules import GameState, Turn, preset
from homeworlds.store import GameRecorder


def legal_record(path: Path, limit: int | None = None
                 ) -> tuple[tuple[str, ...], str, list[tuple[int, Turn]]]:
    """(players, rules, [(seat, turn)]) of a two-player archive game: its turns up to the
    first the rules engine refuses (or ``limit``)."""
    game = read_sdg_file(path)
    if len(game.players) != 2:
        raise ValueError(f"{path}: {len(game.players)} players (a table seats two here)")
    rules = preset(game.rules or "sdg")
    first = game.turns[0].seat if game.turns else 0
    state = GameState(rules, 2, first_to_move=first)
    record: list[tuple[int, Turn]] = []
    for t in game.turns:
        if state.is_over or (limit is not None and len(record) >= limit) or \
                t.seat != state.to_move:
            break
        try:
            state.push(t.actions)
        except ValueError:
            break
        record.append((t.seat, tuple(t.actions)))
    return tuple(game.players), rules.name, record


def play(store: Path, settings: EventSettings, game_file: Path, *, interval: float,
         limit: int | None, stop: threading.Event, publisher_poll: float = 0.5) -> int:
    players, rules_name, record = legal_record(game_file, limit)
    rules = preset(rules_name)
    recorder = GameRecorder(store, table=settings.table, layout="simulated")
    recorder.open()
    publisher = EventPublisher(settings, store, settings.table, poll_s=publisher_poll)
    publisher.start()
    first = record[0][0] if record else 0
    state = GameState(rules, 2, first_to_move=first)
    point = recorder.resume_point()
    done = 0
    if point is not None:
        recorder.continue_game(point.game)
        done = len(point.record)
        for _seat, turn in record[:done]:
            state.push(turn)
    else:
        recorder.start_game(rules, players, first)
    print(f"table {settings.table}: {done} of {len(record)} turns played", flush=True)
    try:
        for number in range(done + 1, len(record) + 1):
            if stop.wait(interval):
                break
            seat, turn = record[number - 1]
            state.push(turn)
            recorder.turn(number, seat, turn, state, players, {})
            publisher.wake()
        if not stop.is_set():
            print(f"table {settings.table}: all {len(record)} turns played", flush=True)
            stop.wait()
    finally:
        publisher.stop()
        recorder.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m homeworlds.event.simtable",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--store", required=True, type=Path)
    p.add_argument("--broker", required=True)
    p.add_argument("--event", required=True)
    p.add_argument("--table", required=True)
    p.add_argument("--game", required=True, type=Path)
    p.add_argument("--interval", type=float, default=1.0, help="seconds between turns")
    p.add_argument("--turns", type=int, default=None, help="play only this many turns")
    p.add_argument("--username")
    p.add_argument("--password-file", type=Path)
    p.add_argument("--ca-file", type=Path)
    p.add_argument("--key-file", type=Path, required=True,
                   help="the table's signing key (homeworlds hub-keys issue)")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    data: dict = {"broker": args.broker, "event": args.event, "table": args.table,
                  "key_file": str(args.key_file)}
    if args.username:
        data["username"] = args.username
    if args.password_file:
        data["password_file"] = str(args.password_file)
    if args.ca_file:
        data["ca_file"] = str(args.ca_file)
    settings = EventSettings.from_mapping(data, source="simtable", base=Path("."),
                                          default_table=args.table)
    parse_broker_url(args.broker)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    return play(args.store, settings, args.game, interval=args.interval, limit=args.turns,
                stop=stop)


if __name__ == "__main__":
    sys.exit(main())
