"""The running table's session: link events → table view → turn tracker → hints → LEDs.

- ``table_session``: :class:`TableSession`, driven by the link's events and the clock;
  it runs the game clocks, the computer seats and the learners' hints.
- ``advisor``: the computer at the table, thinking in a worker thread
  (:class:`Thinking`, :class:`ComputerSeat`).
- ``control``: admin commands from another thread (:class:`AdminCommand`,
  :class:`ControlQueue`), run on the table's loop by :class:`TableControl`.

The web display reaches the session only through ``control``'s queue; ``runtime``
assembles a session with its store, feed and displays and runs its loop.
"""

from homeworlds.session.advisor import DEFAULT_TIME_LIMITS, ComputerSeat, Thinking, make_player
from homeworlds.session.control import (
    MIN_BRIGHTNESS,
    VERBS,
    AdminCommand,
    ControlError,
    ControlQueue,
    TableControl,
    settings_of,
)
from homeworlds.session.table_session import (
    ALIGNMENT_SHOWN_S,
    HINT_LEVELS,
    READER_FAULT_HOLD_S,
    SESSION_LOG_LIMIT,
    SessionLog,
    TableSession,
)

__all__ = [
    "ALIGNMENT_SHOWN_S",
    "DEFAULT_TIME_LIMITS",
    "HINT_LEVELS",
    "MIN_BRIGHTNESS",
    "READER_FAULT_HOLD_S",
    "SESSION_LOG_LIMIT",
    "VERBS",
    "AdminCommand",
    "ComputerSeat",
    "ControlError",
    "ControlQueue",
    "SessionLog",
    "TableControl",
    "TableSession",
    "Thinking",
    "make_player",
    "settings_of",
]
