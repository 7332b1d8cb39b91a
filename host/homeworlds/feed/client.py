"""Reading a table feed from another host: its ``/feed`` server-sent events, as events.

A display on another machine (the big screen of an event hall, a hub showing several
tables) needs nothing of the table but this stream. ``follow_feed`` connects, hands every
event to ``publish`` (read back with ``feed.event_from_json``, so a malformed one is
skipped with a message naming the field) and connects again after a lost connection or a
host restart — the host's first event on every connection is a full snapshot, so nothing
else is needed to resync. Plain ``urllib``: no web library.
"""

from __future__ import annotations

import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Callable

from homeworlds.feed.events import FeedError, FeedEvent, event_from_json

#: Seconds to wait before connecting again, and the longest a silent stream is trusted (the
#: host sends its clock every 15 s).
RETRY_S = 1.0
READ_TIMEOUT_S = 40.0


def follow_feed(url: str, publish: Callable[[FeedEvent], None], stop: threading.Event, *,
                on_state: Callable[[str], None] | None = None) -> None:
    """Follow ``url`` (a host's ``/feed``) until ``stop`` is set."""
    said = None
    while not stop.is_set():
        try:
            request = urllib.request.Request(url, headers={"Accept": "text/event-stream"})
            with urllib.request.urlopen(request, timeout=READ_TIMEOUT_S) as stream:
                if on_state is not None:
                    on_state("connected")
                said = None
                kind = None
                for raw in stream:
                    if stop.is_set():
                        return
                    line = raw.decode("utf-8", "replace").rstrip("\r\n")
                    if line.startswith("event:"):
                        kind = line[6:].strip()
                    elif line.startswith("data:") and kind in ("snapshot", "turn", "result"):
                        try:
                            publish(event_from_json(line[5:].strip()))
                        except FeedError as exc:
                            print(f"homeworlds: an event from {url} was skipped: {exc}",
                                  file=sys.stderr, flush=True)
                    elif not line:
                        kind = None
        except (OSError, urllib.error.URLError, ValueError) as exc:
            text = f"homeworlds: the feed {url} is not reachable ({exc}); trying again"
            if text != said:
                print(text, file=sys.stderr, flush=True)
                said = text
            if on_state is not None:
                on_state("down")
        stop.wait(RETRY_S)
