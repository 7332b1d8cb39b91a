"""The event's time control, as the hub sets it (docs/event.md, "The event's clock").

The hub publishes a retained ``ClockSpec.to_dict()`` on ``homeworlds/<event>/config/clock``
(an empty payload: the hub cleared it, each table plays its own ``[clock]``). The table's
publisher receives it on paho's network thread and only *offers* it here; the table's loop
thread *applies* it (a session tick hook), so the session is never touched from another
thread. It applies to the next game the table starts: a game in progress keeps the time
control it began with (the session keeps it per game, the store records it per game).
"""

from __future__ import annotations

import json
import logging
import queue
from collections.abc import Callable

from homeworlds.clock import ClockSpec, ClockSpecError

log = logging.getLogger("homeworlds.event")


class EventClockError(ValueError):
    """A clock payload that is not a time control (the reason, for the log)."""


def parse_clock_payload(payload: bytes) -> ClockSpec | None:
    """The time control of a clock message; None for an empty (cleared) one."""
    if not payload:
        return None
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EventClockError(f"not JSON text: {exc}") from None
    try:
        return ClockSpec.from_dict(data)
    except ClockSpecError as exc:
        raise EventClockError(str(exc)) from None


def describe(spec: ClockSpec | None) -> str:
    """A time control for people ("fischer 600 s + 5 s, flag: loss")."""
    if spec is None or not spec.timed:
        return "no clock"
    text = f"{spec.mode} {spec.initial_s:g} s"
    if spec.mode == "fischer":
        text += f" + {spec.increment_s:g} s"
    elif spec.mode == "delay":
        text += f", delay {spec.delay_s:g} s"
    return f"{text}, flag: {spec.on_flag}" + (", setup timed" if spec.timed_setup else "")


class EventClockFollower:
    """Which time control the table's next game gets: its own ``[clock]`` (``own``), or
    the event's while the hub sets one and ``[clock] from_event`` is true (the default).

    ``offer`` may be called from any thread; ``apply`` only from the table's loop."""

    def __init__(self, own: ClockSpec | None, *, from_event: bool = True, seats: int = 2,
                 table: str = "", say: Callable[[str], None] | None = None):
        self.own = own
        self.from_event = from_event
        self.seats = seats
        self.table = table
        self._say = say
        self._offers: queue.SimpleQueue[ClockSpec | None] = queue.SimpleQueue()
        #: the event's time control last offered (None: none set by the hub)
        self.event_spec: ClockSpec | None = None

    def offer(self, spec: ClockSpec | None) -> None:
        """The hub's time control arrived (None: cleared). Thread-safe."""
        self._offers.put(spec)

    def wanted(self) -> ClockSpec | None:
        """The time control of the table's next game."""
        if self.from_event and self.event_spec is not None:
            return self.event_spec
        return self.own

    def apply(self, session) -> bool:
        """Take the offers that arrived (on the table's loop thread): the session's time
        control for new games becomes ``wanted()``. True when it changed."""
        latest: list[ClockSpec | None] = []
        while True:
            try:
                latest.append(self._offers.get_nowait())
            except queue.Empty:
                break
        if not latest:
            return False
        spec = latest[-1]
        if spec is not None and spec.timed and spec.on_flag == "loss" and self.seats > 2:
            self._tell(f"table {self.table}: the event's time control ({describe(spec)}) is "
                       f"ignored: this table seats {self.seats}, and with three or more "
                       "players a flag fall cannot end the game (the hub must set "
                       "on_flag \"none\")", warning=True)
            return False
        self.event_spec = spec
        if not self.from_event:
            self._tell(f"table {self.table}: the event's time control ({describe(spec)}) is "
                       "not used: [clock] from_event = false keeps this table's own")
            return False
        wanted = self.wanted()
        before = session.clock_spec
        session.clock_spec = wanted if wanted is not None and wanted.timed else None
        if session.clock_spec == before:
            return False
        source = "the event's" if spec is not None else "the table's own (the hub cleared " \
            "the event's)"
        self._tell(f"table {self.table}: time control for the next game: {source}, "
                   f"{describe(wanted)}")
        return True

    def _tell(self, text: str, *, warning: bool = False) -> None:
        (log.warning if warning else log.info)("%s", text)
        if self._say is not None:
            self._say(text)
