"""``homeworlds archive-view``: the archive viewer (and the attract mode) in the browser,
without a table: every game of a store, and any SDG or cooked file given, turn by turn.

The live table display (``homeworlds play``) mounts the same pages; this command serves only
them, e.g. on a laptop beside the table or to look through a club's store."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DEFAULT_LISTEN = "127.0.0.1:8765"
WEB_EXTRA = "pip install 'homeworlds-table[web]'"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("archive-view", help="browse stored games and game files in a browser",
                       description=__doc__)
    p.add_argument("--store", metavar="FILE", default=None,
                   help="a game store (SQLite, `homeworlds play` records into it); opened "
                   "read-only")
    p.add_argument("--listen", metavar="ADDR", default=DEFAULT_LISTEN, type=listen_address,
                   help=f"HOST:PORT to serve on (default {DEFAULT_LISTEN}: this computer "
                   "only; 0.0.0.0:PORT for the whole network)")
    p.add_argument("--config", metavar="FILE", default=None,
                   help="a table configuration: its [store] path and [display] "
                   "attract_after_s are the defaults")
    p.add_argument("--attract-after", metavar="S", type=attract_seconds, default=None,
                   help="the /attract page starts replaying games after S seconds, 0: no "
                   "attract page (default: the configuration's [display] attract_after_s, "
                   "else 120)")
    p.add_argument("files", nargs="*", metavar="FILE", help="SDG transcripts or cooked files")
    p.set_defaults(func=run)


def listen_address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT (e.g. {DEFAULT_LISTEN})")
    host = host.strip("[]") or "127.0.0.1"
    return host, int(port)


def attract_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (value == 0 or 0 < value <= 86400):
        raise argparse.ArgumentTypeError(f"{text} is out of range: give seconds up to 86400, "
                                         "or 0 for no attract page")
    return value


def build_app(store: str | None, files: list[str], attract_after_s: float | None = None):
    """The Starlette app of the archive viewer and the attract page."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.responses import RedirectResponse
    from starlette.routing import Route

    from homeworlds.web.archive import Archive, archive_routes
    from homeworlds.web.kit import SecurityHeaders

    archive = Archive(store, files)

    async def home(request):
        return RedirectResponse("/archive", status_code=303)

    routes = [Route("/", home), *archive_routes(archive=archive)]
    from homeworlds.web.attract import attract_routes

    if attract_after_s != 0:
        routes += attract_routes(archive, idle_after_s=attract_after_s)
    return Starlette(routes=routes, middleware=[Middleware(SecurityHeaders)])


def run(args: argparse.Namespace) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        print(f"homeworlds archive-view: the web display needs Starlette and uvicorn: "
              f"{WEB_EXTRA}", file=sys.stderr)
        return 2
    store, attract_after = args.store, args.attract_after
    if args.config is not None:
        from homeworlds.runtime.config import ConfigError, load_config
        try:
            config = load_config(args.config)
        except ConfigError as exc:
            print(f"homeworlds archive-view: {exc}", file=sys.stderr)
            return 2
        if store is None and config.store_path is not None:
            store = str(config.store_path)
        if attract_after is None:
            attract_after = config.attract_after_s
    if store is not None and not Path(store).is_file():
        print(f"homeworlds archive-view: no game store at {store}", file=sys.stderr)
        return 2
    missing = [f for f in args.files if not Path(f).is_file()]
    if missing:
        print(f"homeworlds archive-view: no such file: {missing[0]}", file=sys.stderr)
        return 2
    app = build_app(store, args.files, attract_after)
    host, port = args.listen
    shown = f"[{host}]" if ":" in host else host
    print(f"homeworlds archive-view: http://{shown}:{port}/archive (Ctrl-C stops)", flush=True)
    from homeworlds.web.guard import guarded_config, widen_queue

    config = guarded_config(app, host=host, port=port)  # docs/display.md, "Under load"
    server = uvicorn.Server(config)
    try:
        sock = config.bind_socket()
    except SystemExit:  # uvicorn's way of saying the address is taken
        print(f"homeworlds archive-view: cannot listen on {shown}:{port} (another program "
              "on that port?)", file=sys.stderr)
        return 2
    widen_queue(server, [sock])
    server.run(sockets=[sock])
    return 0
