"""``homeworlds play --config FILE``: run the real table.

Serial port, layout, tag registry, rules preset and LED sink all come from the
configuration (docs/configuration.md). Without a configuration, a port or a registry it
says what is missing and exits 2; it never falls back to the simulator.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path

from homeworlds.config import ConfigError, TableConfig, load_config
from homeworlds.notation.sdg import sdg_game, write_sdg
from homeworlds.rules import red_alert as find_red_alert
from homeworlds.table.tracker import Commit


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
    from homeworlds.link import SerialTransport, TableLink
    from homeworlds.session import TableSession

    red_alert = find_red_alert if config.rules.handicaps.red_alert else None
    session = TableSession(config.layout, config.registry, config.rules, config.players,
                           output=output, hint_settings=config.hints, red_alert=red_alert)

    def save(_: Commit) -> None:
        write_record(record_path, session.tracker.record, config.players)
        seat, turn = session.tracker.record[-1]
        print(f"turn {len(session.tracker.record)}: {config.players[seat]}: "
              + "; ".join(str(a) for a in turn), flush=True)

    if record_path.exists():
        resumed = _resume(session, record_path, config)
        if resumed is not None:
            return resumed
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
        if tuple(p.casefold() for p in game.players) != tuple(
                p.casefold() for p in config.players[:len(game.players)]):
            raise ValueError(f"its players are {', '.join(game.players)}, the configuration's "
                             f"{', '.join(config.players)}")
        session.tracker.resume([(t.seat, t.actions) for t in game.turns])
    except (OSError, HomeworldsError, ValueError) as exc:
        return _fail(f"cannot resume the game in {record_path}: {exc} (move the file away "
                     "to start a new game)")
    print(f"resuming the game in {record_path} after {len(game.turns)} turns", flush=True)
    return None


def write_record(path: Path, record, players) -> None:
    """Replace the record file atomically: a committed turn survives a power cut."""
    game = sdg_game(players, [turn for _, turn in record], seats=[s for s, _ in record])
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


def _stop_on_signals() -> threading.Event:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop
