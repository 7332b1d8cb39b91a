"""The running table's session: link events → table view → turn tracker → hints → LEDs.

- ``table_session``: :class:`TableSession`, driven by the link's events and the clock,
  and ``new_session``, which builds one with its parts: ``watch`` (what the table
  reports; the seat buttons), ``clocks`` (the game clocks), ``computer`` (computer seats
  and learners' hints, as guidance), ``lights`` (the hint view and the LEDs).
- ``events``: :class:`TableEvents`, who is told of a commit, a hand-over, a new game, a
  flag fall or a tick, stage by stage (:class:`Stage`: the store first).
- ``advisor``: the computer at the table, thinking in a worker thread
  (:class:`Thinking`, :class:`ComputerSeat`).
- ``control``: admin commands from another thread (:class:`AdminCommand`,
  :class:`ControlQueue`), run on the table's loop by :class:`TableControl`.

The web display reaches the session only through ``control``'s queue; ``runtime``
assembles a session with its store, feed and displays and runs its loop.
"""

from homeworlds.session.advisor import DEFAULT_TIME_LIMITS, ComputerSeat, Thinking, make_player
from homeworlds.session.clocks import (
    READER_FAULT_HOLD_S,
    ClockReading,
    SessionClocks,
    TableConditions,
)
from homeworlds.session.computer import ComputerAtTable, PlannedTurn, SeatSettings
from homeworlds.session.control import (
    MIN_BRIGHTNESS,
    VERBS,
    AdminCommand,
    ControlError,
    ControlQueue,
    TableControl,
)
from homeworlds.session.events import Channel, Signal, Stage, TableEvents
from homeworlds.session.lights import (
    ACKNOWLEDGED_S,
    ALIGNMENT_SHOWN_S,
    HINT_LEVELS,
    REVEAL_SHOWN_S,
    TableLights,
)
from homeworlds.session.table_session import (
    SESSION_LOG_LIMIT,
    SessionLog,
    TableSession,
    new_session,
)
from homeworlds.session.watch import SeatButtons, TableWatch

__all__ = [
    "ACKNOWLEDGED_S",
    "ALIGNMENT_SHOWN_S",
    "REVEAL_SHOWN_S",
    "DEFAULT_TIME_LIMITS",
    "HINT_LEVELS",
    "MIN_BRIGHTNESS",
    "READER_FAULT_HOLD_S",
    "ClockReading",
    "SESSION_LOG_LIMIT",
    "VERBS",
    "AdminCommand",
    "Channel",
    "ComputerAtTable",
    "ComputerSeat",
    "ControlError",
    "ControlQueue",
    "PlannedTurn",
    "SeatButtons",
    "SeatSettings",
    "SessionClocks",
    "SessionLog",
    "Signal",
    "Stage",
    "TableConditions",
    "TableControl",
    "TableEvents",
    "TableLights",
    "TableSession",
    "TableWatch",
    "Thinking",
    "make_player",
    "new_session",
]
