"""The display's own process (``python -m homeworlds.web.child``), started by
``web.process.DisplayProcess``: feed events arrive on stdin, admin commands leave on stdout.

Every line from the host is read as a feed event (``feed.event_from_json``, which names a
bad field) or a command's answer; a line that is neither is reported on stderr and skipped,
never served. The process ends when stdin closes."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading

#: How much lower the display process's CPU priority is than the table's (nice(2)).
DISPLAY_NICENESS = 10


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="homeworlds.web.child")
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--table", required=True)
    parser.add_argument("--store", default=None, help="the game store, shown at /archive")
    parser.add_argument("--attract-after", type=float, default=0.0,
                        help="seconds without a game before the display replays the archive "
                        "(0: no attract mode)")
    parser.add_argument("--analysis", action="store_true",
                        help="analyse every committed position for spectators "
                        "(web.analysis: win probability, threats, suggested turn)")
    parser.add_argument("--no-suggestions", action="store_true",
                        help="tournament mode: no suggested turn in the analysis")
    args = parser.parse_args(argv)
    # Ctrl-C on the terminal reaches the whole process group: the host decides, and stops
    # this process by closing its stdin.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The table loop comes first: on the Pi's few cores the display's work (maps, fifty
    # streams) waits for it rather than the other way round.
    try:
        os.nice(DISPLAY_NICENESS)
    except OSError:
        pass
    out = sys.stdout
    from homeworlds.web import WebUnavailable

    try:
        from homeworlds.feed import FeedError, FeedHub, event_from_json
        from homeworlds.web.process import ACTIVITY, PHONE, TOKEN_VARIABLE, RemoteControl
        from homeworlds.web.server import WebDisplay

        hub = FeedHub()
        control = RemoteControl(out)
        mode = None
        if args.attract_after > 0:
            from homeworlds.web.archive import Archive
            from homeworlds.web.attract import AttractMode, playlist_from_archive

            mode = AttractMode(playlist_from_archive(Archive(args.store)),
                               idle_after_s=args.attract_after)
        server = WebDisplay(hub, control, host=args.host, port=args.port,
                            admin_token=os.environ.get(TOKEN_VARIABLE) or None,
                            table_name=args.table, store_path=args.store,
                            attract=mode, analysis=args.analysis,
                            suggestions=not args.no_suggestions).start()
    except WebUnavailable as exc:
        print(json.dumps({"error": str(exc)}), file=out, flush=True)
        return 2
    print(json.dumps({"ready": server.port}), file=out, flush=True)
    done = threading.Event()

    def read() -> None:
        for number, line in enumerate(sys.stdin, start=1):
            try:
                data = json.loads(line)
                if isinstance(data, dict) and data.get("type") == "reply":
                    control.answer(data)
                    continue
                if isinstance(data, dict) and data.get("type") == PHONE:
                    from homeworlds.web.app import phone_info

                    server.state.phone = phone_info(data.get("info"))
                    continue
                if isinstance(data, dict) and data.get("type") == ACTIVITY:
                    if mode is not None:
                        mode.activity()  # a piece was placed: the replays stop
                    continue
                hub.publish_threadsafe(event_from_json(data))
                if mode is not None and data.get("type") == "snapshot":
                    mode.observe(data)
            except (ValueError, FeedError) as exc:
                print(f"homeworlds display: line {number} from the table ignored: {exc}",
                      file=sys.stderr, flush=True)
        done.set()

    threading.Thread(target=read, name="feed-reader", daemon=True).start()
    done.wait()
    control.fail_all("the table stopped")
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
