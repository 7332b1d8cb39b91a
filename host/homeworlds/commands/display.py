"""``homeworlds display --feed URL``: the live view of a table that runs on another host.

Reads the table's feed (``http://TABLE-HOST:8080/feed``, docs/display.md "The table feed")
and serves the same live page here, read-only: the admin actions stay with the table's own
display. Reconnects by itself when the table's host restarts or the network drops.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("display", help="show another host's table in the browser (read-only)",
                       description=__doc__)
    p.add_argument("--feed", required=True, metavar="URL",
                   help="the table's feed, e.g. http://table-1.local:8080/feed")
    p.add_argument("--listen", metavar="ADDR[:PORT]", default="127.0.0.1:8080",
                   help="where this display listens (default 127.0.0.1:8080)")
    p.add_argument("--table", default=None, help="the name shown (default: the feed's)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, stop: threading.Event | None = None) -> int:
    from urllib.parse import urlsplit

    from homeworlds.web import WebUnavailable
    from homeworlds.web.server import parse_listen

    parts = urlsplit(args.feed)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        print(f"homeworlds display: --feed {args.feed!r} is not an http(s) URL (e.g. "
              "http://table-1.local:8080/feed)", file=sys.stderr)
        return 2
    try:
        host, port = parse_listen(args.listen)
    except ValueError as exc:
        print(f"homeworlds display: --listen: {exc}", file=sys.stderr)
        return 2
    try:
        from homeworlds.feed import FeedHub, follow_feed
        from homeworlds.web.server import WebDisplay

        hub = FeedHub()
        server = WebDisplay(hub, None, host=host, port=port,
                            table_name=args.table or parts.netloc).start()
    except WebUnavailable as exc:
        print(f"homeworlds display: {exc}", file=sys.stderr)
        return 2
    if stop is None:
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
    print(f"display: {server.url} (the table of {args.feed}, read-only)", flush=True)
    reader = threading.Thread(target=follow_feed, args=(args.feed, hub.publish_threadsafe,
                                                        stop), name="feed", daemon=True)
    reader.start()
    try:
        stop.wait()
    finally:
        server.stop()
    return 0
