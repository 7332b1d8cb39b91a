"""``homeworlds play --config FILE``: run the real table.

Serial port, layout, tag registry, rules preset and LED sink all come from the
configuration (docs/configuration.md). Without a configuration, a port or a registry it
says what is missing and exits 2; it never falls back to the simulator.

Every committed turn goes to the game store (docs/store.md) before the table confirms it;
on a restart the table's unfinished game is resumed from the store. Lines typed on the
host's terminal end a game off the board: ``resign NAME``, ``draw``, ``abandon``.

With a ``[clock]`` time control the seat to move's clock runs; each turn's think time and
clock are stored with it, a flag fall ends the game as configured, and a resumed game's
clocks start from the store (docs/clocks.md).
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

from homeworlds.runtime.config import ConfigError, load_config


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="run the physical table (serial link, LEDs, referee)",
                       description=__doc__)
    p.add_argument("--config", metavar="FILE", help="table configuration (TOML)")
    p.add_argument("--record", metavar="FILE",
                   help="where an SDG export of the current game is written after every turn "
                   "(default: game-record.raw next to the configuration); the game store "
                   "is the record")
    p.add_argument("--store", metavar="FILE",
                   help="the game store (SQLite; default: [store] path of the configuration, "
                   "else games.sqlite next to it); see docs/store.md")
    p.add_argument("--live", action="store_true",
                   help="on a terminal: a live view of the table fitted to the terminal "
                   "(docs/terminal.md), the messages in its scrolling log and the command "
                   "being typed on its last line, instead of the messages line by line")
    p.add_argument("--listen", metavar="ADDR[:PORT]",
                   help="serve the web display there (overrides [display] listen and port "
                   "and turns the display on; e.g. 0.0.0.0:8080); see docs/display.md")
    p.add_argument("--phone", metavar="SEAT[@ADDR[:PORT]]",
                   help="play seat SEAT (0 or 1) from a phone's browser, its pages served "
                   "at ADDR:PORT (default: the [phone] section's, else 127.0.0.1:8090; "
                   "e.g. 1@0.0.0.0:8090); the table shows the link and a one-time code; "
                   "see docs/remote-play.md")
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"homeworlds play: {message}", file=sys.stderr)
    return 2


def _with_phone(config, text: str):
    """``--phone SEAT[@ADDR[:PORT]]`` applied to ``config`` (ValueError or ConfigError
    says what is wrong)."""
    from homeworlds.runtime.config import with_phone

    seat_text, _, where = text.strip().partition("@")
    if not seat_text.isdigit() or len(seat_text) > 2:
        raise ValueError(f"{seat_text!r} is not a seat: give 0 or 1, e.g. --phone 1 or "
                         "--phone 1@0.0.0.0:8090")
    listen = port = None
    if where:
        from homeworlds.web.server import parse_listen

        listen, port = parse_listen(where, config.phone.port if config.phone else 8090)
    return with_phone(config, int(seat_text), listen, port)


def run(args: argparse.Namespace, stop: threading.Event | None = None) -> int:
    from homeworlds.runtime.table import TableStartError, open_table_output, serve, serve_live
    from homeworlds.runtime.terminal import stop_on_signals, terminal_commands

    if not args.config:
        return _fail("no configuration given: use --config FILE (see docs/configuration.md; "
                     "hardware/table.example.toml is an example). To try the table without "
                     "hardware run `homeworlds demo`.")
    try:
        config = load_config(args.config)
        output = open_table_output(config)
    except (ConfigError, TableStartError) as exc:
        return _fail(str(exc))
    if getattr(args, "phone", None):
        try:
            config = _with_phone(config, args.phone)
        except (ConfigError, ValueError) as exc:
            if output is not None:
                output.close()
            return _fail(f"--phone: {exc}")
    here = Path(config.source).parent
    record_path = Path(args.record) if args.record else here / "game-record.raw"
    store_path = Path(args.store) if getattr(args, "store", None) else (
        config.store_path or here / "games.sqlite")
    listen = None
    if getattr(args, "listen", None):
        from homeworlds.web.server import parse_listen

        try:
            listen = parse_listen(args.listen, config.display.port)
        except ValueError as exc:
            if output is not None:
                output.close()
            return _fail(f"--listen: {exc}")
    elif config.display.enabled:
        listen = (config.display.listen, config.display.port)
    if getattr(args, "live", False) and stop is None:
        from homeworlds.display.screen import TerminalScreen

        screen = TerminalScreen()
        if screen.live:
            return serve_live(screen, config, output, record_path, store_path, listen)
    commands = terminal_commands() if stop is None else None
    return serve(config, output, record_path, stop or stop_on_signals(),
                 store_path=store_path, commands=commands, listen=listen)
