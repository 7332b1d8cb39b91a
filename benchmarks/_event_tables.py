"""Many simulated table hosts in one process (threads), for event_bench: each plays an
archive game through its own store and publisher (homeworlds.event.simtable.play).

    python benchmarks/_event_tables.py BROKER_URL EVENT DIR INTERVAL TURNS GAME...

Each table's key is DIR/tNN.key (event_bench issues them in DIR/hub.sqlite). Runs until
SIGTERM; prints "done N" when every table has played its turns."""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

from homeworlds.event.settings import EventSettings
from homeworlds.event.simtable import play


def main() -> int:
    url, event, directory, interval, turns, *games = sys.argv[1:]
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threads = []
    for k, game in enumerate(games):
        name = f"t{k + 1:02d}"
        settings = EventSettings.from_mapping({"broker": url, "event": event, "table": name,
                                               "key_file": str(Path(directory) /
                                                               f"{name}.key")},
                                              source="bench", base=Path("."),
                                              default_table=name)
        t = threading.Thread(target=play, args=(Path(directory) / f"{name}.sqlite", settings,
                                                Path(game)),
                             kwargs={"interval": float(interval), "limit": int(turns) or None,
                                     "stop": stop, "publisher_poll": 0.25}, daemon=True)
        t.start()
        threads.append(t)
    stop.wait()
    for t in threads:
        t.join(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
