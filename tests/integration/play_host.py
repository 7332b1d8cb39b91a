"""``homeworlds play`` run by a test: the host in a thread of the test process, talking
to a simulated MCU (``PtyMcu``) as it would to the real one, stopped by ``close``."""

from __future__ import annotations

import argparse
import threading

from homeworlds.commands import play


class PlayHost:
    def __init__(self, config, record, **options):
        """``options``: the other arguments of ``homeworlds play`` (``store``, ``listen``)."""
        self.stop = threading.Event()
        args = argparse.Namespace(config=str(config), record=str(record), **options)
        self.thread = threading.Thread(target=lambda: play.run(args, stop=self.stop))
        self.thread.start()

    def close(self):
        self.stop.set()
        self.thread.join(10)
