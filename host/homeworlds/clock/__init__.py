"""Game clocks: time controls and every seat's thinking time, as immutable values.

Nothing here reads a clock: every operation takes ``now`` (seconds of a monotonic clock)
and returns a new value, so any layer may use it (docs/clocks.md)::

    from homeworlds.clock import ClockSpec, GameClocks

``steady_time`` is the one exception: the wall time of day that never steps (``steady``),
for the moments displays subtract from each other.
"""

from homeworlds.clock.game_clocks import (
    LOW_TIME_S,
    MAX_INITIAL_S,
    MAX_PER_TURN_S,
    MAX_REMAINING_S,
    MIN_INITIAL_S,
    MODES,
    ON_FLAG,
    PAUSE_REASONS,
    PAUSE_TEXT,
    ClockSpec,
    ClockSpecError,
    GameClocks,
    TurnTime,
    format_clock,
)
from homeworlds.clock.steady import SteadyClock, steady_time

__all__ = [
    "LOW_TIME_S",
    "MAX_INITIAL_S",
    "MAX_PER_TURN_S",
    "MAX_REMAINING_S",
    "MIN_INITIAL_S",
    "MODES",
    "ON_FLAG",
    "PAUSE_REASONS",
    "PAUSE_TEXT",
    "ClockSpec",
    "ClockSpecError",
    "GameClocks",
    "SteadyClock",
    "TurnTime",
    "format_clock",
    "steady_time",
]
