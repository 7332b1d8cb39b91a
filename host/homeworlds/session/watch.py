"""What the table reports, before anything is judged: zones, link, reader faults, buttons.

``TableWatch`` applies the link's events to the table view (cheap, at once) and notes when
the table last changed, so that the tracker judges it only once it has been still for
``settle_s``. ``SeatButtons`` tells a seat button's short press (a hand-over) from a long
one (a learner's hint): with hints allowed a press is acted on only once it can no longer
become a long press.
"""

from __future__ import annotations

from collections.abc import Callable

from homeworlds.link import (
    ButtonHeld,
    ButtonPressed,
    LinkDown,
    LinkUp,
    ReaderFault,
    SnapshotReceived,
    ZoneChanged,
)
from homeworlds.table.layout import Layout
from homeworlds.table.registry import Registry
from homeworlds.table.view import TableView


class TableWatch:
    """The table as last reported (``view``), the link's state and the reader faults, and
    whether every change has been judged. ``on_link`` is told of every link event and
    reader fault (the session logs them and updates its clocks)."""

    def __init__(self, layout: Layout, registry: Registry, clock: Callable[[], float], *,
                 settle_s: float = 0.1):
        self.view = TableView(layout, registry)
        self.clock = clock
        #: The tracker judges the table once it has been still this long ("settled").
        self.settle_s = settle_s
        self.link_up = False
        #: When a reader last reported a fault (None: never).
        self.reader_fault_at: float | None = None
        #: Changes of the table seen (zones, snapshots, presses).
        self.changes = 0
        self._dirty_since: float | None = None

    def handle(self, event: object) -> bool:
        """Apply a link event that concerns the table's zones or the link; False when the
        event is none of those (buttons: ``SeatButtons``)."""
        if isinstance(event, ZoneChanged):
            self.view.set_zone(event.zone, event.uids)
            self.changed()
        elif isinstance(event, SnapshotReceived):
            self.view.replace_all(event.zones)
            self.changed()
        elif isinstance(event, LinkUp):
            self.link_up = True
        elif isinstance(event, LinkDown):
            self.link_up = False
        elif isinstance(event, ReaderFault):
            if event.reader is not None:  # None: a request the firmware rejected
                self.reader_fault_at = self.clock()
        else:
            return False
        return True

    def changed(self) -> None:
        """The table changed (or must be judged again): judged once it has settled."""
        self.changes += 1
        if self._dirty_since is None:
            self._dirty_since = self.clock()
        else:
            self._dirty_since = max(self._dirty_since, self.clock())

    @property
    def judged(self) -> bool:
        """Every change of the table seen so far has been judged."""
        return self._dirty_since is None

    def take_settled(self, force: bool = False) -> float | None:
        """When the table took the shape it has now, if it is to be judged now: it changed,
        is known, and has been still for ``settle_s`` (or at once with ``force``). The
        change counts as judged from here on. None: nothing to judge yet."""
        if self._dirty_since is None or not self.view.known:
            return None
        if not force and self.clock() - self._dirty_since < self.settle_s:
            return None
        since, self._dirty_since = self._dirty_since, None
        return since


class SeatButtons:
    """The seat buttons' presses, told apart (short: a hand-over; long: a hint).

    ``long_press_s``: a short press is acted on only this many seconds after it, once it
    cannot become a long press (the table's HOLD report); None acts at once. ``waits``
    says whether to wait at all (only when hints are allowed)."""

    def __init__(self, layout: Layout, clock: Callable[[], float], *,
                 long_press_s: float | None = None, waits: bool = True,
                 together_s: float | None = None):
        self.layout = layout
        self.clock = clock
        self.long_press_s = long_press_s
        self.waits = waits and long_press_s is not None
        #: Two seats' long presses this close together are one gesture, "together" (Brain
        #: Transference); a long press alone is then acted on only this long after it.
        #: None: every long press is acted on at once.
        self.together_s = together_s
        self._pending: tuple[int, float] | None = None
        self._holds: list[tuple[int, float]] = []
        self._together: tuple[int, int] | None = None

    def seat_of(self, button: int) -> int | None:
        return next((s.index for s in self.layout.seats if s.button == button), None)

    def handle(self, event: object) -> tuple[str, int] | None:
        """A button event as a gesture: ``("press", seat)`` to act on now, ``("hold",
        seat)`` a long press (acted on at the next judgement, ``take_held``); None while a
        press waits or for a button of no seat."""
        if isinstance(event, ButtonPressed):
            seat = self.seat_of(event.button)
            if seat is None:
                return None
            if self.waits:
                # It may be the start of a long press (a hint): wait to see.
                self._pending = (seat, self.clock())
                return None
            return ("press", seat)
        if isinstance(event, ButtonHeld):
            seat = self.seat_of(event.button)
            if seat is None:
                return None
            if self._pending is not None and self._pending[0] == seat:
                self._pending = None
            now = self.clock()
            if self.together_s is None:
                self._holds = [(seat, now)]
                return ("hold", seat)
            other = next((h for h in self._holds
                          if h[0] != seat and now - h[1] <= self.together_s), None)
            if other is not None:
                self._holds.remove(other)
                first, second = sorted((other[0], seat))
                self._together = (first, second)
                return ("together", seat)
            self._holds.append((seat, now))
            return ("hold", seat)
        return None

    def due(self) -> int | None:
        """The seat whose press was released before it became a long press (now due)."""
        if self._pending is None or self.long_press_s is None \
                or self.clock() - self._pending[1] < self.long_press_s:
            return None
        seat, _ = self._pending
        self._pending = None
        return seat

    def take_held(self) -> int | None:
        """The seat whose button was held alone since the last judgement (a hint request,
        a declaration); with ``together_s``, once that long has passed without another
        seat's long press."""
        now = self.clock()
        for k, (seat, at) in enumerate(self._holds):
            if self.together_s is None or now - at > self.together_s:
                del self._holds[k]
                return seat
        return None

    def hold_due(self) -> bool:
        """A long press alone has waited ``together_s``: it is to be acted on now."""
        if self.together_s is None:
            return False
        now = self.clock()
        return any(now - at > self.together_s for _, at in self._holds)

    def take_together(self) -> tuple[int, int] | None:
        """The two seats whose buttons were held together (Brain Transference), once."""
        together, self._together = self._together, None
        return together
