"""``homeworlds play --config FILE``: run the real table.

Serial port, layout, tag registry, rules preset and LED sink all come from the
configuration (docs/configuration.md). Without a configuration, a port or a registry it
says what is missing and exits 2; it never falls back to the simulator.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from homeworlds.config import ConfigError, TableConfig, load_config
from homeworlds.notation.sdg import sdg_game, write_sdg
from homeworlds.table.tracker import Commit

if TYPE_CHECKING:
    from homeworlds.rules.alignments import Alignments


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="run the physical table (serial link, LEDs, referee)",
                       description=__doc__)
    p.add_argument("--config", metavar="FILE", help="table configuration (TOML)")
    p.add_argument("--record", metavar="FILE",
                   help="where the game record (SDG notation) is written after every turn "
                   "(default: game-record.raw next to the configuration)")
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"homeworlds play: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace, stop: threading.Event | None = None) -> int:
    if not args.config:
        return _fail("no configuration given: use --config FILE (see docs/configuration.md; "
                     "hardware/table.example.toml is an example). To try the table without "
                     "hardware run `homeworlds demo`.")
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        return _fail(str(exc))
    if not config.port:
        return _fail(f"{config.source}: serial.port: no serial port configured (the "
                     "microcontroller's data port, e.g. /dev/ttyACM1)")
    if config.registry is None:
        where = config.registry_path or "table.registry"
        return _fail(f"{config.source}: no tag registry at {where}: run `homeworlds enroll` "
                     "first (docs/hardware.md)")
    from homeworlds.pixels import PixelSinkUnavailable
    try:
        output = config.pixels.open_output(config.layout.pixel_count)
    except PixelSinkUnavailable as exc:
        return _fail(str(exc))
    record_path = Path(args.record) if args.record else Path(config.source).parent / \
        "game-record.raw"
    return serve(config, output, record_path, stop or _stop_on_signals())


def serve(config: TableConfig, output, record_path: Path, stop: threading.Event) -> int:
    from homeworlds.rules.errors import HomeworldsError

    try:
        alignments = table_alignments(config, record_path)
    except (OSError, HomeworldsError, ValueError) as exc:
        return _fail(f"cannot read the alignments of the game in {record_path}: {exc} (move "
                     "the file away to start a new game)")
    from homeworlds.link import SerialTransport, TableLink
    from homeworlds.session import TableSession

    red_alert = _red_alert_function() if config.rules.handicaps.red_alert else None
    session = TableSession(config.layout, config.registry, config.rules, config.players,
                           output=output, hint_settings=config.hints, red_alert=red_alert,
                           alignments=alignments)

    def save(_: Commit) -> None:
        write_record(record_path, session.tracker.record, config.players, config.rules.name,
                     alignments)
        seat, turn = session.tracker.record[-1]
        print(f"turn {len(session.tracker.record)}: {config.players[seat]}: "
              + "; ".join(str(a) for a in turn), flush=True)
        if session.tracker.state.result is not None and alignments is not None:
            print(reveal_alignments(config.players, alignments), flush=True)

    if record_path.exists():
        resumed = _resume(session, record_path, config)
        if resumed is not None:
            return resumed
    elif alignments is not None:
        # The deal is part of the game: kept before the first turn, so a restart keeps it.
        write_record(record_path, [], config.players, config.rules.name, alignments)
        print("Good/Evil alignments dealt in secret; they are revealed when the game ends",
              flush=True)
    session.tracker.on_commit = _chain(session.tracker.on_commit, save)
    link = TableLink(lambda: SerialTransport(config.port, config.baudrate),
                     heartbeat_timeout=config.heartbeat_timeout,
                     expected_zones=config.layout.zone_count)
    last_message = None
    try:
        while not stop.is_set():
            for event in link.poll(0.02):
                session.handle(event)
            session.tick()
            message = session.status.message
            if message and message != last_message:
                print(message, flush=True)
            last_message = message
    finally:
        link.close()
        if output is not None:
            output.close()
    return 0


def _resume(session, record_path: Path, config: TableConfig) -> int | None:
    """Continue the game in the record file; None when it could, else an exit status."""
    from homeworlds.notation.sdg import read_sdg_file
    from homeworlds.rules.errors import HomeworldsError

    try:
        game = read_sdg_file(record_path)
        # A record without turns (only the Good/Evil deal) lists players in seat-letter order.
        ours = [p.casefold() for p in config.players[:len(game.players)]]
        if [p.casefold() for p in game.players] != ours and (
                game.turns or sorted(p.casefold() for p in game.players) != sorted(ours)):
            raise ValueError(f"its players are {', '.join(game.players)}, the configuration's "
                             f"{', '.join(config.players)}")
        session.tracker.resume([(t.seat, t.actions) for t in game.turns])
    except (OSError, HomeworldsError, ValueError) as exc:
        return _fail(f"cannot resume the game in {record_path}: {exc} (move the file away "
                     "to start a new game)")
    print(f"resuming the game in {record_path} after {len(game.turns)} turns", flush=True)
    return None


def table_alignments(config: TableConfig, record_path: Path) -> Alignments | None:
    """Good/Evil: the alignments of the game in the record (a resumed game keeps its deal),
    else a new deal: seeded by ``table.alignment_seed`` or, without it, at random."""
    from homeworlds.notation.sdg import read_sdg_file
    from homeworlds.rules.alignments import deal_alignments

    if config.rules.goal != "good-evil":
        return None
    if record_path.exists():
        game = read_sdg_file(record_path)
        if game.alignments is not None:
            # By name: a record without turns lists its players in seat-letter order.
            by_name = {p.casefold(): a for p, a in zip(game.players, game.alignments,
                                                       strict=True)}
            try:
                return tuple(by_name[p.casefold()] for p in config.players)
            except KeyError:
                raise ValueError(f"its players are {', '.join(game.players)}, the "
                                 f"configuration's {', '.join(config.players)}") from None
    seed = config.alignment_seed
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    return deal_alignments(len(config.players), seed)


def reveal_alignments(players, alignments) -> str:
    return "Alignments revealed: " + ", ".join(
        f"{name} {alignment.capitalize()}" for name, alignment in zip(players, alignments,
                                                                      strict=True))


def write_record(path: Path, record, players, rules: str | None = None,
                 alignments: Alignments | None = None) -> None:
    """Replace the record file atomically: a committed turn survives a power cut."""
    game = sdg_game(players, [turn for _, turn in record], seats=[s for s, _ in record],
                    rules=rules, alignments=alignments)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(write_sdg(game))
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)


def _chain(first, second):
    def both(commit):
        if first is not None:
            first(commit)
        second(commit)
    return both


def _red_alert_function():
    try:
        from homeworlds.rules.winning import red_alert
    except ImportError:
        return None
    return red_alert


def _stop_on_signals() -> threading.Event:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop
