"""Run a TableLink on its own thread, delivering events to a queue or a callback.

::

    with LinkThread(TableLink(lambda: SerialTransport("/dev/ttyACM1"))) as thread:
        while True:
            event = thread.events.get()
            ...

The link's own requests (``ping``, ``configure``, ``request_sync``) may be
called from any thread; everything else of the link belongs to this thread
while it runs.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

from homeworlds.link.core import TableLink
from homeworlds.link.events import LinkEvent

log = logging.getLogger("homeworlds.link")


class LinkThread:
    """Polls ``link`` in a daemon thread until :meth:`stop`.

    Events go to ``on_event(event)`` if given (called on the link thread; an
    exception there is logged, not fatal), else to the queue :attr:`events`.
    ``poll_interval``: longest wait for input in one poll, so stop() is
    honoured within about that long.
    """

    def __init__(self, link: TableLink, on_event: Callable[[LinkEvent], None] | None = None, *,
                 poll_interval: float = 0.05, name: str = "table-link"):
        self.link = link
        self.events: queue.Queue[LinkEvent] = queue.Queue()
        self._on_event = on_event
        self._poll_interval = poll_interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.callback_errors = 0

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def start(self) -> LinkThread:
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        """Stop polling, close the link (its final LinkDown is delivered) and join."""
        self._stop.set()
        self.link.interrupt()
        if self._thread.is_alive():
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise RuntimeError(f"the link thread did not stop within {timeout} s")

    def __enter__(self) -> LinkThread:
        if not self._thread.is_alive():
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _deliver(self, events: list[LinkEvent]) -> None:
        for event in events:
            if self._on_event is None:
                self.events.put(event)
                continue
            try:
                self._on_event(event)
            except Exception:
                self.callback_errors += 1
                log.exception("table link: the event callback failed on %s", event)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self._deliver(self.link.poll(self._poll_interval))
        finally:
            self._deliver(self.link.close())
