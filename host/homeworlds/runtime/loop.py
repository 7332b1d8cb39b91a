"""The table loop: the one loop every way of running the table goes through.

A pass polls the link for events (waiting at most ``poll_s`` for the first), hands each to
the table, ticks the table (it judges a settled table, runs its clocks, renders the LEDs
and tells its tick's listeners), then does the loop's own work in order (the store's
retries, the terminal's lines, a live view). ``homeworlds play`` runs it until stopped;
``table-replay``, the demo and the tests run it until the table has caught up with what
the simulated table shows (``run_until``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol


class SettleTimeout(RuntimeError):
    """The table did not reach what was awaited in time (``TableLoop.run_until``)."""


class EventSource(Protocol):
    """Where the table's events come from: the serial link (``link.TableLink``) or any
    source with the same ``poll``."""

    def poll(self, timeout: float = 0.0) -> Iterable[object]: ...


class Table(Protocol):
    """What the loop drives: a ``TableSession``, or something in front of it (the
    display's attract mode)."""

    def handle(self, event: object) -> None: ...

    def tick(self) -> None: ...


class StopSignal(Protocol):
    """What ends ``TableLoop.run``: a ``threading.Event``, or anything that says so."""

    def is_set(self) -> bool: ...


class TableLoop:
    """Runs ``table`` on the events of ``source``; ``work`` runs after every tick, in
    order (each a callable without arguments)."""

    def __init__(self, source: EventSource, table: Table, *, poll_s: float = 0.02,
                 work: Sequence[Callable[[], None]] = ()):
        self.source = source
        self.table = table
        self.poll_s = poll_s
        self.work: list[Callable[[], None]] = list(work)

    def step(self, poll_s: float | None = None) -> None:
        """One pass: events, tick, work."""
        for event in self.source.poll(self.poll_s if poll_s is None else poll_s):
            self.table.handle(event)
        self.table.tick()
        for work in self.work:
            work()

    def run(self, stop: StopSignal) -> None:
        """Pass after pass until ``stop`` is set."""
        while not stop.is_set():
            self.step()

    def run_until(self, done: Callable[[], bool], *, timeout: float, what: str,
                  poll_s: float | None = None) -> None:
        """Pass after pass until ``done()``; SettleTimeout ("the host did not ``what``
        within ...") after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                raise SettleTimeout(f"the host did not {what} within {timeout:g} s")
            self.step(poll_s)
