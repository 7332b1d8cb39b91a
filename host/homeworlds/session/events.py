"""What the running table tells the rest of the host, and in which order.

A ``TableSession`` has one ``TableEvents``: each kind of event (a committed turn, a
hand-over seen, a new game, a flag fall, the end of a tick) is a channel, and whoever
wants to hear of it listens at a ``Stage``. A channel tells its listeners stage by stage,
lowest first, and within a stage in the order they listened. So the order does not depend
on which line of the host ran first: the game store (``Stage.STORE``) hears of a turn
before the SDG export, the displays, the event broker and the terminal do, and each of
them may rely on the turn being stored (or queued for the store) when it is told.

The session has done its own bookkeeping (the log, the game clocks, Red Alert) before it
emits, so every listener sees the session as it stands after the event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import IntEnum
from typing import Generic, TypeVar

from homeworlds.table.tracker import Commit
from homeworlds.table.view import Observation

T = TypeVar("T")
F = TypeVar("F", bound=Callable)


class Stage(IntEnum):
    """Who hears of an event, in this order."""

    #: the game store: every later listener may rely on the turn being written (or queued)
    STORE = 10
    #: files kept beside the store (the SDG export)
    RECORD = 20
    #: what acts on the table from outside, on the table's own thread (admin commands, the
    #: event's time control)
    CONTROL = 30
    #: displays: the table feed (web display, terminal views)
    FEED = 40
    #: the event broker
    PUBLISH = 50
    #: lines for the people at the host's terminal
    ANNOUNCE = 60


class _Listeners(Generic[F]):
    """Listeners kept in stage order; events can be held back for a while."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._listeners: list[tuple[Stage, int, F]] = []
        self._held = 0

    def listen(self, stage: Stage, listener: F) -> None:
        """Tell ``listener`` of every event from now on, after the listeners of lower
        stages and those that listened at ``stage`` before it."""
        self._listeners.append((stage, len(self._listeners), listener))
        self._listeners.sort(key=lambda entry: (entry[0], entry[1]))

    def stages(self) -> list[Stage]:
        """The stage of each listener, in the order they are told."""
        return [stage for stage, _, _ in self._listeners]

    def _in_order(self) -> tuple[F, ...]:
        return () if self._held else tuple(listener for _, _, listener in self._listeners)

    @contextmanager
    def held(self) -> Iterator[None]:
        """Events emitted inside the block are told to nobody (e.g. a hand-over replayed
        from the store's journal, which is there already)."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1


class Channel(_Listeners[Callable[[T], None]]):
    """One kind of event with a payload, told to its listeners in stage order."""

    def emit(self, value: T) -> None:
        for listener in self._in_order():
            listener(value)


class Signal(_Listeners[Callable[[], None]]):
    """An event without a payload, told to its listeners in stage order."""

    def emit(self) -> None:
        for listener in self._in_order():
            listener()


class TableEvents:
    """The running table's events. ``committed`` a turn was committed (after the session
    updated its log and clocks); ``handover`` the table was handed over (the observation
    about to be judged); ``new_game`` the table was cleared after a finished game and a new
    game begins; ``flag`` the seat whose flag fell (after the game ended, when it loses);
    ``tick`` the end of every tick of the table loop."""

    def __init__(self) -> None:
        self.committed: Channel[Commit] = Channel("committed")
        self.handover: Channel[Observation] = Channel("handover")
        self.new_game = Signal("new-game")
        self.flag: Channel[int] = Channel("flag")
        self.tick = Signal("tick")
