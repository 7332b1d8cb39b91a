"""Game clocks: time controls and every seat's thinking time, as immutable values.

Nothing here reads a clock: every operation takes ``now`` (seconds of a monotonic clock)
and returns a new value, so any layer may use it (docs/clocks.md)::

    from homeworlds.clock import ClockSpec, GameClocks
"""

from homeworlds.clock.game_clocks import (
    LOW_TIME_S,
    MAX_INITIAL_S,
    MAX_PER_TURN_S,
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

__all__ = [
    "LOW_TIME_S",
    "MAX_INITIAL_S",
    "MAX_PER_TURN_S",
    "MIN_INITIAL_S",
    "MODES",
    "ON_FLAG",
    "PAUSE_REASONS",
    "PAUSE_TEXT",
    "ClockSpec",
    "ClockSpecError",
    "GameClocks",
    "TurnTime",
    "format_clock",
]
